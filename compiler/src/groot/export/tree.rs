//! Trees and agents as `<BehaviorTree>` elements, with their model entries and carried heads.

use super::super::carry::{self};
use super::super::element::entry::{attr_value, is_reserved_item_attr, subtree_model};
use super::super::kept;
use super::super::xml::{Element, XmlNode};
use super::*;
use crate::span::Span;
use crate::syntax::ast::*;
use crate::syntax::token::NumLit;

impl Exporter {
    pub(super) fn tree(
        &mut self,
        item: &Item,
        t: &TreeDecl,
        is_main_on_import: bool,
    ) -> (Element, Option<Element>) {
        self.var_types_of_tree(t);
        let init = self.init(t);
        let unnamed = t.name.name == vocab::UNNAMED_TREE
            && item.attrs.iter().any(|a| a.name.name == vocab::UNNAMED);
        let mut bt = Element::new("BehaviorTree");
        if !unnamed {
            bt.set("ID", &t.name.name);
        }
        if let Some(d) = &item.doc {
            bt.set("_description", d.lines.join("\n"));
        }
        bt.set_all(
            item.attrs
                .iter()
                .filter(|a| !is_reserved_item_attr(a))
                .map(|a| (a.name.name.as_str(), attr_value(a))),
        );
        self.st.form = item.attrs.iter().find_map(|a| match a.name.name.as_str() {
            vocab::COMPACT => Some(vocab::COMPACT),
            vocab::EXPLICIT => Some(vocab::EXPLICIT),
            _ => None,
        });
        if let Some(body) = self.body(&t.body.nodes, init, t.body.span) {
            bt.children.push(XmlNode::Element(body));
        }
        self.st.form = None;
        if let Some(k) = kept::of(&item.attrs, kept::XML) {
            kept::merge_head(&mut bt, &k, self.dialect == Dialect::V4);
        }
        let mut model = subtree_model(item, false);
        if let Some(k) = self.kept_model(item, t) {
            model = Some(k);
        }
        if self.verify {
            // What an import makes of the tree's head, from the XML alone.
            let ports = match &model {
                Some(m) => match self.readback.model(m, None, &t.name.name).kind {
                    ItemKind::Tree(back) => back.ports,
                    _ => Default::default(),
                },
                None => Default::default(),
            };
            let locals = self
                .readback
                .tree_locals(&t.name.name, &ports, &t.body.nodes, &t.ports);
            let mut back_attrs: Vec<Attr> = bt
                .attrs
                .iter()
                .filter(|a| !matches!(a.name.as_str(), "ID" | "_description" | carry::AFFECT))
                .map(|a| Attr {
                    name: Ident::new(&a.name, Span::DUMMY),
                    value: Some(Expr {
                        kind: ExprKind::Str(a.value.clone()),
                        span: Span::DUMMY,
                    }),
                    span: Span::DUMMY,
                })
                .collect();
            if model
                .as_ref()
                .is_some_and(|m| m.elements().all(|p| !p.name.ends_with("_port")))
            {
                back_attrs.push(Attr {
                    name: Ident::new(carry::MODEL, Span::DUMMY),
                    value: None,
                    span: Span::DUMMY,
                });
            }
            if unnamed {
                back_attrs.push(Attr {
                    name: Ident::new(vocab::UNNAMED, Span::DUMMY),
                    value: None,
                    span: Span::DUMMY,
                });
            }
            if let Some(form) = vocab::tree_form(&bt, self.dialect) {
                back_attrs.push(Attr {
                    name: Ident::new(form, Span::DUMMY),
                    value: None,
                    span: Span::DUMMY,
                });
            }
            let placeholders: Vec<Node> =
                t.body.nodes.iter().map(|_| carry::placeholder()).collect();
            let back = Item {
                doc: bt.attr("_description").map(|d| Doc {
                    lines: d.split('\n').map(str::to_string).collect(),
                    span: Span::DUMMY,
                }),
                attrs: back_attrs,
                kind: ItemKind::Tree(TreeDecl {
                    is_main: is_main_on_import,
                    name: t.name.clone(),
                    ports,
                    locals,
                    body: NodeBlock {
                        nodes: placeholders.clone(),
                        span: Span::DUMMY,
                    },
                }),
                span: Span::DUMMY,
            };
            let mut original = item.clone();
            // `<root>`'s attributes ride on the first tree but are not the tree's.
            original.attrs.retain(|a| {
                !kept::is_kept(&a.name.name) && vocab::root_attr_name(&a.name.name).is_none()
            });
            if let ItemKind::Tree(o) = &mut original.kind {
                o.body.nodes = placeholders;
            }
            if !carry::same_item(&original, &back) {
                if let ItemKind::Tree(o) = &mut original.kind {
                    o.body.nodes.clear();
                }
                bt.set(carry::AFFECT, carry::format_item(&original).trim_end());
            }
        }
        (bt, model)
    }

    /// The tree's `<SubTree>` model entry kept as written (`#[xml_model]`, see `kept`), while
    /// it still reads as the tree's ports.
    fn kept_model(&mut self, item: &Item, t: &TreeDecl) -> Option<Element> {
        let k = kept::of(&item.attrs, kept::XML_MODEL)?;
        if k.name != "SubTree" || k.attr("ID") != Some(t.name.name.as_str()) {
            return None;
        }
        let ItemKind::Tree(back) = self.readback.model(&k, None, &t.name.name).kind else {
            return None;
        };
        let signature = |ports: &Ports| Item {
            doc: None,
            attrs: vec![],
            kind: ItemKind::Tree(TreeDecl {
                is_main: false,
                name: t.name.clone(),
                ports: ports.clone(),
                locals: vec![],
                body: NodeBlock {
                    nodes: vec![],
                    span: Span::DUMMY,
                },
            }),
            span: Span::DUMMY,
        };
        carry::same_item(&signature(&t.ports), &signature(&back.ports)).then_some(k)
    }

    pub(super) fn agent(
        &mut self,
        item: &Item,
        a: &AgentDecl,
        main_index: usize,
    ) -> Option<Element> {
        let members = a.members.as_ref()?;
        self.agent_var_types(members);
        let MemberKind::Main(block) = &members[main_index].kind else {
            return None;
        };
        let mut bt = Element::new("BehaviorTree").with("ID", &a.name.name);
        let init = self.agent_init(members, &block.nodes);
        let saved = self.scope.push_lets(members);
        let body = self.body(&block.nodes, init, block.span);
        self.scope.pop_lets(saved);
        if let Some(body) = body {
            bt.children.push(XmlNode::Element(body));
        }
        // The agent itself, with its `main` emptied: the nodes are in the XML.
        let mut shadow = item.clone();
        if let ItemKind::Agent(sa) = &mut shadow.kind {
            if let Some(MemberKind::Main(b)) = sa
                .members
                .as_mut()
                .and_then(|m| m.get_mut(main_index))
                .map(|m| &mut m.kind)
            {
                b.nodes.clear();
            }
        }
        bt.set(carry::AFFECT, carry::format_item(&shadow).trim_end());
        Some(bt)
    }

    /// An agent without `main` whose behaviour modules run: its state's initialisation, then
    /// the modules' arbiter (`modules.rs`). The agent travels whole in `_affect`; the import
    /// keeps nothing of the generated nodes.
    pub(super) fn agent_modules(&mut self, file: &File, item: &Item, a: &AgentDecl) -> Element {
        let members = a.members.as_deref().unwrap_or_default();
        self.agent_var_types(members);
        let init = self.agent_init(members, &[]);
        let arbiter = self.arbiter(file, members);
        self.affect_nodes = true;
        let mut bt = Element::new("BehaviorTree").with("ID", &a.name.name);
        let body = match init {
            Some(init) => {
                let mut seq = Element::new("Sequence").with(carry::BODY, "true");
                seq.children = vec![XmlNode::Element(init), XmlNode::Element(arbiter)];
                seq
            }
            None => arbiter,
        };
        bt.children.push(XmlNode::Element(body));
        bt.set(carry::AFFECT, carry::format_item(item).trim_end());
        bt
    }

    /// The declared types of the agent's `var`s (a `for` over one picks its Loop node by them),
    /// and its action-tendency tables.
    fn agent_var_types(&mut self, members: &[Member]) {
        self.tendency_tables(members);
        self.st.var_types.clear();
        for m in members {
            if let MemberKind::Var {
                name, ty: Some(t), ..
            } = &m.kind
            {
                self.st.var_types.insert(name.name.clone(), t.clone());
            }
        }
    }

    /// The script that starts the agent's state as the affect runtime does when the tree runs
    /// in BehaviorTree.CPP, so that nothing reads an entry nobody set: each `var` at its
    /// initial value, else its type's zero; the drive and each emotion machine at their
    /// initial states; a list a `for` pops as the queue its loop reads (`AffectQueue…`,
    /// `cpp/affect_bt.hpp`: scripts cannot make one). (Sensors, events, intentions and
    /// hormones are the host's.)
    fn agent_init(&mut self, members: &[Member], main: &[Node]) -> Option<Element> {
        let script = self.agent_state(members);
        let mut popped = Vec::new();
        for n in main {
            queues(n, &mut popped);
        }
        let mut lists: Vec<Element> = Vec::new();
        let mut texts: Vec<Element> = Vec::new();
        for m in members {
            let MemberKind::Var {
                name,
                ty: Some(t),
                init,
            } = &m.kind
            else {
                continue;
            };
            let popped_list = match &t.kind {
                TypeKind::List(inner) if popped.contains(&name.name.as_str()) => Some(inner),
                _ => None,
            };
            let Some(inner) = popped_list else {
                // Any other list or point literal of plain elements: its `;`-separated text,
                // which a port of a vector (or a host's point) type reads.
                if let Some(ExprKind::List(xs) | ExprKind::Tuple(xs)) =
                    init.as_ref().map(|e| &e.kind)
                {
                    if let Some(items) = super::super::element::literal_elements(xs) {
                        texts.push(
                            Element::new("SetBlackboard")
                                .with("value", items.join(";"))
                                .with("output_key", &name.name),
                        );
                    }
                }
                continue;
            };
            let items = match init.as_ref().map(|e| &e.kind) {
                None => Some(Vec::new()),
                Some(ExprKind::List(xs)) if xs.is_empty() => Some(Vec::new()),
                Some(ExprKind::List(xs)) => super::super::element::literal_elements(xs),
                _ => None,
            };
            let Some(items) = items else { continue };
            let id = match crate::fmt::format_type(inner).as_str() {
                "int" => "AffectQueueInt",
                "bool" => "AffectQueueBool",
                "str" => "AffectQueueString",
                _ => "AffectQueueDouble",
            };
            lists.push(
                Element::new(id)
                    .with("queue", format!("{{{}}}", name.name))
                    .with("items", items.join(";"))
                    .with(carry::NODE, "true"),
            );
        }
        if lists.is_empty() && texts.is_empty() {
            return script;
        }
        self.affect_nodes |= !lists.is_empty();
        lists.splice(0..0, texts);
        let mut once = script.unwrap_or_else(|| {
            Element::new("RunOnce")
                .with("then_skip", "true")
                .with(carry::INIT, "true")
        });
        let mut seq = Element::new("Sequence");
        seq.children = std::mem::take(&mut once.children);
        seq.children.extend(lists.into_iter().map(XmlNode::Element));
        once.children.push(XmlNode::Element(seq));
        Some(once)
    }

    fn agent_state(&mut self, members: &[Member]) -> Option<Element> {
        let state: Vec<(Ident, Option<Type>, Option<Expr>, Span)> = members
            .iter()
            .filter_map(|m| match &m.kind {
                MemberKind::Var { name, ty, init } => {
                    let init = init
                        .clone()
                        .or_else(|| ty.as_ref().and_then(|t| self.zero(t)));
                    Some((name.clone(), ty.clone(), init, m.span))
                }
                MemberKind::Drive(d) => Some((
                    d.name.clone(),
                    Some(d.ty.clone()),
                    Some(variant(&d.ty, &d.initial)),
                    m.span,
                )),
                MemberKind::Emotions {
                    name, ty, initial, ..
                } => Some((
                    name.clone(),
                    Some(ty.clone()),
                    Some(variant(ty, initial)),
                    m.span,
                )),
                _ => None,
            })
            .collect();
        let refs: Vec<(&Ident, Option<&Type>, Option<&Expr>, Span)> = state
            .iter()
            .map(|(n, t, i, s)| (n, t.as_ref(), i.as_ref(), *s))
            .collect();
        self.init_vars(&refs, true)
    }

    /// The zero of a type a script can write: `0`, `0.0`, `false`, `''`, an enum's first variant.
    fn zero(&self, t: &Type) -> Option<Expr> {
        let base = match &t.kind {
            TypeKind::Range(b, ..) => b.as_ref(),
            _ => t,
        };
        let name = crate::fmt::format_type(base);
        let num = |integer: bool| {
            ExprKind::Num(NumLit {
                value: 0.0,
                integer,
                unit: None,
                text: if integer { "0" } else { "0.0" }.to_string(),
            })
        };
        let kind = match name.as_str() {
            "int" => num(true),
            "num" | "angle" | "length" | "duration" | "frequency" => num(false),
            "bool" => ExprKind::Bool(false),
            "str" | "Label" => ExprKind::Str(String::new()),
            other => {
                let first = self.scope.enums.get(other)?.first()?;
                return Some(variant(base, &Ident::new(first, Span::DUMMY)));
            }
        };
        Some(Expr {
            kind,
            span: Span::DUMMY,
        })
    }
}

/// `Enum::Variant` for a variant of the enum type `ty`.
fn variant(ty: &Type, v: &Ident) -> Expr {
    let mut segments: Vec<Ident> = vec![Ident::new(crate::fmt::format_type(ty), Span::DUMMY)];
    segments.push(v.clone());
    Expr {
        kind: ExprKind::Name(Path {
            segments,
            span: Span::DUMMY,
        }),
        span: Span::DUMMY,
    }
}

/// The lists `for` loops pop, by name.
fn queues<'a>(n: &'a Node, out: &mut Vec<&'a str>) {
    match &n.kind {
        NodeKind::For { queue, body, .. } => {
            if let ExprKind::Name(p) = &queue.kind {
                if p.segments.len() == 1 {
                    out.push(&p.segments[0].name);
                }
            }
            for c in &body.nodes {
                queues(c, out);
            }
        }
        NodeKind::Call {
            children: Some(c), ..
        } => {
            for c in &c.nodes {
                queues(c, out);
            }
        }
        NodeKind::Switch { arms, .. } => {
            for a in arms {
                queues(&a.node, out);
            }
        }
        _ => {}
    }
}
