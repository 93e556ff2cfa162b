//! Trees and agents as `<BehaviorTree>` elements, with their model entries and carried heads.

use super::super::carry::{self};
use super::super::element::entry::{attr_value, is_reserved_item_attr, subtree_model};
use super::super::xml::{Element, XmlNode};
use super::*;
use crate::span::Span;
use crate::syntax::ast::*;

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
        let model = subtree_model(item, false);
        if self.verify {
            // What an import makes of the tree's head, from the XML alone.
            let ports = match &model {
                Some(m) => match self.readback.model(m, None, &t.name.name).kind {
                    ItemKind::Tree(back) => back.ports,
                    _ => vec![],
                },
                None => vec![],
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
                .is_some_and(|m| m.elements().next().is_none())
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

    pub(super) fn agent(
        &mut self,
        item: &Item,
        a: &AgentDecl,
        main_index: usize,
    ) -> Option<Element> {
        let members = a.members.as_ref()?;
        self.st.var_types.clear();
        for m in members {
            if let MemberKind::Var {
                name, ty: Some(t), ..
            } = &m.kind
            {
                self.st.var_types.insert(name.name.clone(), t.clone());
            }
        }
        let MemberKind::Main(block) = &members[main_index].kind else {
            return None;
        };
        let mut bt = Element::new("BehaviorTree").with("ID", &a.name.name);
        // The agent's state starts as declared when the tree runs in BehaviorTree.CPP.
        let vars: Vec<(&Ident, Option<&Type>, Option<&Expr>, Span)> = members
            .iter()
            .filter_map(|m| match &m.kind {
                MemberKind::Var { name, ty, init } => {
                    Some((name, ty.as_ref(), init.as_ref(), m.span))
                }
                _ => None,
            })
            .collect();
        let init = self.init_vars(&vars, true);
        if let Some(body) = self.body(&block.nodes, init, block.span) {
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
}
