//! One element: a node with its label, doc, modifiers (pre/post conditions), scripts, switches,
//! `try_catch` and loops; the carried `_affect` text while the element still says it.

use super::super::carry::{self};
use super::super::names::PRE_POST;
use super::super::vocab;
use super::super::xml::{Attribute, Element, XmlNode};
use super::super::{element, kept, Dialect};
use super::ports;
use super::*;
use crate::btcpp::model::{self, ValueKind};
use crate::btcpp::script;
use crate::builtins::{self};
use crate::span::Span;
use crate::syntax::ast::*;

impl Reader {
    /// The node an element is, placed in the file (see [`Reader::place_node`]).
    pub(crate) fn node(&mut self, el: &Element, comment_docs: Vec<String>) -> Node {
        let n = self.node_unplaced(el, comment_docs);
        Reader::place_node(el, n)
    }

    /// A node's carried `.affect` text (`_affect`) read, placed where it is in the file.
    fn carried_node(&self, a: &Attribute) -> Option<Node> {
        let mut n = carry::parse_node(&a.value)?;
        // `carry::parse_node` reads the text inside `tree T {\n`.
        crate::syntax::spans::node(&mut n, true, &mut self.carried_place(a, 9));
        Some(n)
    }

    fn node_unplaced(&mut self, el: &Element, comment_docs: Vec<String>) -> Node {
        if el.attr(carry::NODE).is_some() {
            // Generated with the agent's state, which travels in `_affect`.
            return carry::placeholder();
        }
        if el.attr(carry::TENDENCIES).is_some() {
            // `tendencies(machine)`: the switch is the agent's table, in the agent's text.
            if let Some(n) = el
                .attribute(carry::AFFECT)
                .and_then(|a| self.carried_node(a))
            {
                return n;
            }
        }
        let natural = |this: &mut Self| {
            let mut n = this.natural(el);
            // Before the comments join the doc: the element says only its `_description`.
            this.keep_head(el, &mut n);
            // The comments before the node come first, then its own `_description`.
            if let Some(mut doc) = node_doc(comment_docs.clone()) {
                doc.lines
                    .extend(n.doc.take().into_iter().flat_map(|d| d.lines));
                n.doc = Some(doc);
            }
            n
        };
        let Some(a) = el.attribute(carry::AFFECT) else {
            return natural(self);
        };
        let Some(shadow) = self.carried_node(a) else {
            let span = a.name_span;
            self.warn(
                "W0404",
                "this `_affect` text does not parse; it is ignored",
                span,
            );
            return natural(self);
        };
        // The carried text counts only while the element still says what it says.
        let regenerated = element::node_element(&carry::head(&shadow), &self.scope, self.dialect)
            .map(|mut r| {
                // The Loop variant follows the variable's type, which one element does not show.
                if is_loop(&r) && is_loop(el) {
                    r.name = el.name.clone();
                }
                r
            });
        let holds = regenerated.is_some_and(|r| same_element(&r, el));
        let kids = if holds {
            if is_loop(el) {
                self.body_children(el)
            } else if el.attr(carry::TRY) == Some("true") {
                let mut v = Vec::new();
                for part in el.elements() {
                    v.extend(self.children(part));
                }
                v
            } else {
                self.children(el)
            }
        } else {
            vec![]
        };
        if holds {
            if let Some(n) = carry::fill(shadow, kids) {
                return n;
            }
        }
        let span = a.name_span;
        self.warn(
            "W0404",
            format!(
                "the `_affect` text of this `<{}>` no longer matches it; it is ignored",
                el.name
            ),
            span,
        );
        self.amend(|d| {
            d.with_note("the element was edited after the export; its attributes are read instead")
        });
        natural(self)
    }

    /// Keeps the element's start tag as written on the node (`#[xml]`, see `kept`) when the
    /// export would spell it otherwise. The node's head is written from the node itself: a
    /// head reads of its children only how many there are, so the copy with placeholder
    /// children (`carry::head`) spelled the same and cost a copy of every node.
    fn keep_head(&self, el: &Element, n: &mut Node) {
        if matches!(n.kind, NodeKind::Error) {
            return;
        }
        let mut st = element::HeadState {
            form: self.form,
            ..Default::default()
        };
        let generated = element::Heads {
            dialect: self.dialect,
            scope: &self.scope,
            st: &mut st,
        }
        .head(n);
        if crate::diagnostic::has_errors(&st.diags) || !kept::spelled_alike(&generated, el, false) {
            n.attrs.push(kept::attr(kept::XML, kept::start_tag(el)));
        }
    }

    /// A node from its element alone.
    pub(super) fn natural(&mut self, el: &Element) -> Node {
        let mut node = Node {
            doc: None,
            attrs: vec![],
            label: None,
            kind: NodeKind::Error,
            modifiers: vec![],
            span: Span::DUMMY,
        };
        // What the node is: explicit form, SubTree, or compact.
        let (id, explicit_tag) = match el.name.as_str() {
            "Action" | "Condition" | "Control" | "Decorator" => match el.attribute("ID") {
                Some(a) if !self.spellable(&a.value, a.value_span, "node ID") => return node,
                Some(a) => (a.value.as_str(), Some(el.name.as_str())),
                None => {
                    self.error(
                        "E0414",
                        format!("`<{}>` without `ID`", el.name),
                        el.name_span,
                    );
                    self.amend(|d| d.with_label("the explicit form names the node in `ID`"));
                    return node;
                }
            },
            _ => (el.name.as_str(), None),
        };
        if explicit_tag.is_none()
            && self.dialect == Dialect::V4
            && el.attribute("ID").is_some()
            && !vocab::is_subtree_tag(&el.name)
        {
            let span = el
                .attribute("ID")
                .map(|a| a.name_span)
                .unwrap_or(el.name_span);
            self.error(
                "E0414",
                format!("attribute `ID` is not allowed in `<{}>`", el.name),
                span,
            );
            self.amend(|d| {
                d.with_label("BehaviorTree.CPP 4 refuses it")
                    .with_help("the compact form names the node by its tag; remove `ID`")
            });
            return node;
        }

        // BehaviorTree.CPP 4.8 looks the children of a `ReactiveSequence` (either form; not a
        // `ReactiveFallback`, measured) up by their tags, so an explicit-form child is "Unknown
        // node type: Action" there.
        if self.dialect == Dialect::V4 && id == "ReactiveSequence" {
            for child in el.elements().filter(|c| vocab::is_explicit_tag(&c.name)) {
                self.error(
                    "E0414",
                    format!(
                        "`<{}>` in `{id}`: BehaviorTree.CPP 4.8 refuses the explicit form here",
                        child.name
                    ),
                    child.name_span,
                );
                let compact = child.attr("ID").unwrap_or("ID").to_string();
                self.amend(|d| {
                    d.with_label("\"Unknown node type\" in BehaviorTree.CPP 4.8")
                        .with_help(format!("write it in the compact form, `<{compact} .../>`"))
                });
            }
        }

        // Attributes every node may have.
        let mut rest: Vec<&Attribute> = Vec::new();
        for a in &el.attrs {
            match a.name.as_str() {
                "name" => {
                    let mut l = label(&a.value);
                    l.span = a.value_span;
                    node.label = Some(l);
                }
                "_description" => node.doc = node_doc(description_lines(&a.value)),
                "ID" if explicit_tag.is_some() || vocab::is_subtree_tag(&el.name) => {}
                carry::AFFECT | carry::TRY => {}
                n if self.dialect == Dialect::V4 && PRE_POST.contains(&n) => match self.modifier(a)
                {
                    Some(m) => node.modifiers.push(m),
                    None => node.attrs.push(attr_of(a)),
                },
                _ => rest.push(a),
            }
        }

        if vocab::is_subtree_tag(&el.name) {
            node.kind = self.subtree(el, &rest, &mut node.attrs);
            return node;
        }
        // Ports BehaviorTree.CPP refuses: of a built-in, or of a node its model declares.
        let known_ports = match ports::builtin_ports(id, self.dialect) {
            Some(mut p) => {
                if self.dialect == Dialect::V3 && id == "Parallel" {
                    // 3.0–3.5's single `threshold`, which the import keeps as an attribute.
                    p.push(("threshold".to_string(), None));
                }
                Some(p)
            }
            None => self
                .scope
                .leaves
                .get(id)
                .map(|sig| ports::model_ports(&sig.ports)),
        };
        if let Some(known) = known_ports {
            // Reported, and the node read on, so that its children's errors are found too.
            self.check_ports(id, &rest, &known);
        }
        let builtin = match self.dialect {
            Dialect::V4 => builtins::BUILTINS.iter().find(|b| b.v4 == Some(id)),
            Dialect::V3 => builtins::BUILTINS.iter().find(|b| b.v3 == Some(id)),
        };
        // Nodes with a syntax of their own.
        let special = match (self.dialect, id) {
            (Dialect::V4, builtins::SCRIPT_ID) => {
                self.script_node(el, &rest, &mut node.attrs, false)
            }
            (Dialect::V4, builtins::SCRIPT_CONDITION_ID) => {
                self.script_node(el, &rest, &mut node.attrs, true)
            }
            (_, sw) if vocab::switch_cases(sw).is_some() => {
                self.switch(el, sw, &rest, &mut node.attrs)
            }
            (Dialect::V4, id @ ("LoopInt" | "LoopBool" | "LoopDouble" | "LoopString")) => {
                self.for_loop(el, id, &rest, &mut node.attrs)
            }
            _ => None,
        };
        let special = special.or_else(|| self.try_catch(el, id, &rest));
        if let Some(kind) = special {
            node.kind = kind;
            return node;
        }
        match builtin {
            Some(b) if b.name != "blackboard_check" && b.name != "loop" => {
                node.kind = self.builtin(el, b, &rest, &mut node.attrs);
            }
            _ => {
                node.kind = self.custom(el, id, explicit_tag, &rest, &mut node.attrs);
            }
        }
        node
    }

    pub(super) fn modifier(&mut self, a: &Attribute) -> Option<Modifier> {
        let stmts = self.script(a, false)?;
        let kind = match a.name.as_str() {
            "_skipIf" => ModifierKind::SkipIf(script::condition(&stmts).ok()?),
            "_successIf" => ModifierKind::SuccessIf(script::condition(&stmts).ok()?),
            "_failureIf" => ModifierKind::FailureIf(script::condition(&stmts).ok()?),
            "_while" => ModifierKind::While(script::condition(&stmts).ok()?),
            "_onSuccess" => ModifierKind::OnSuccess(script::block(&stmts).ok()?),
            "_onFailure" => ModifierKind::OnFailure(script::block(&stmts).ok()?),
            "_onHalted" => ModifierKind::OnHalted(script::block(&stmts).ok()?),
            "_post" => ModifierKind::After(script::block(&stmts).ok()?),
            _ => return None,
        };
        let mut m = Modifier {
            kind,
            span: a.name_span.to(a.value_span),
        };
        crate::syntax::spans::modifier(&mut m, &mut crate::syntax::spans::fill(a.value_span));
        Some(m)
    }

    /// Parses a script attribute. A broken script is an error (BehaviorTree.CPP refuses the
    /// file); an empty pre/post-condition is not a script at all (`None`, kept as written).
    pub(super) fn script<'a>(
        &mut self,
        a: &'a Attribute,
        required: bool,
    ) -> Option<Vec<script::Raw<'a>>> {
        if !required && a.value.trim().is_empty() {
            return None;
        }
        match script::parse(&a.value) {
            Ok(s) => Some(s),
            Err(e) => {
                let span = if a.verbatim && e.end <= a.value.len() {
                    let start = a.value_span.start as usize + e.start;
                    let end = a.value_span.start as usize
                        + e.end.max(e.start + 1).min(a.value.len().max(e.start + 1));
                    Span::new(start, end.min(a.value_span.end as usize).max(start))
                } else {
                    a.value_span
                };
                // An empty value: point at the whole attribute.
                let span = if span.is_empty() {
                    Span {
                        start: a.name_span.start,
                        end: a.value_span.end + 1,
                    }
                } else {
                    span
                };
                let name = a.name.clone();
                // Our nesting limit is E0406 (an importer limit, like XML depth), not a
                // script BehaviorTree.CPP would refuse.
                if e.too_deep {
                    self.error(
                        "E0406",
                        format!("the script in `{name}` nests too deeply"),
                        span,
                    );
                    let message = e.message.clone();
                    self.amend(|d| {
                        d.with_label(message)
                            .with_help("split the script into several nodes, or name parts of it")
                    });
                    return None;
                }
                self.error(
                    "E0413",
                    format!("broken script in `{name}`: {}", e.message),
                    span,
                );
                let help = e.help.clone();
                self.amend(|d| {
                    let d = d.with_label(e.message.clone()).with_note(
                        "BehaviorTree.CPP refuses the file when it loads a script it cannot parse",
                    );
                    match help {
                        Some(h) => d.with_help(h),
                        None => d,
                    }
                });
                None
            }
        }
    }

    pub(super) fn script_node(
        &mut self,
        el: &Element,
        rest: &[&Attribute],
        attrs: &mut Vec<Attr>,
        condition: bool,
    ) -> Option<NodeKind> {
        let code = rest.iter().find(|a| a.name == "code")?;
        if el.elements().next().is_some() {
            return None;
        }
        let stmts = self.script(code, true)?;
        let place = &mut crate::syntax::spans::fill(code.value_span);
        let kind = if condition {
            let mut e = script::condition(&stmts).ok()?;
            crate::syntax::spans::expr(&mut e, place);
            NodeKind::Check(e)
        } else {
            let mut b = script::block(&stmts).ok()?;
            crate::syntax::spans::block(&mut b, place);
            NodeKind::Script(b)
        };
        for a in rest.iter().filter(|a| a.name != "code") {
            attrs.push(attr_of(a));
        }
        Some(kind)
    }

    pub(super) fn switch(
        &mut self,
        el: &Element,
        id: &str,
        rest: &[&Attribute],
        attrs: &mut Vec<Attr>,
    ) -> Option<NodeKind> {
        let n = vocab::switch_cases(id)?;
        let variable = rest.iter().find(|a| a.name == "variable")?;
        let mut subject = match model::blackboard_key(&variable.value) {
            Some(k) => model::key_expr(k)?,
            None => expr(ExprKind::Str(variable.value.clone())),
        };
        crate::syntax::spans::expr(
            &mut subject,
            &mut crate::syntax::spans::fill(variable.value_span),
        );
        let mut cases = Vec::new();
        for i in 1..=n {
            let c = rest.iter().find(|a| a.name == format!("case_{i}"))?;
            if model::blackboard_key(&c.value).is_some() {
                return None;
            }
            let mut case = model::literal(&c.value, ValueKind::Unknown);
            crate::syntax::spans::expr(&mut case, &mut crate::syntax::spans::fill(c.value_span));
            cases.push(case);
        }
        let elements: Vec<&Element> = el.elements().collect();
        if elements.len() != n + 1 || el.children.iter().any(|c| matches!(c, XmlNode::Text(..))) {
            return None;
        }
        let known = |a: &&&Attribute| {
            a.name == "variable"
                || (a.name.starts_with("case_")
                    && a.name[5..]
                        .parse::<usize>()
                        .is_ok_and(|i| (1..=n).contains(&i)))
        };
        for a in rest.iter().filter(|a| !known(a)) {
            attrs.push(attr_of(a));
        }
        // Children with the comments before them as docs; pads (the exporter's filling of a
        // switch with fewer than two cases) are dropped with their cases.
        use super::super::comments::{lines_at, Place};
        let mut arms: Vec<SwitchArm> = Vec::new();
        let mut docs: Vec<&str> = Vec::new();
        let mut i = 0;
        for c in &el.children {
            match c {
                XmlNode::Comment(t, _) => docs.push(t),
                XmlNode::Element(child) => {
                    let d = std::mem::take(&mut docs)
                        .into_iter()
                        .flat_map(|t| lines_at(t, Place::Here))
                        .collect();
                    let pattern = match cases.get(i) {
                        Some(c) => Pattern::Expr(c.clone()),
                        None => Pattern::Wildcard(Span::DUMMY),
                    };
                    i += 1;
                    if child.attr(carry::PAD) == Some("true") {
                        continue;
                    }
                    let node = if self.shallow {
                        carry::placeholder()
                    } else {
                        self.node(child, d)
                    };
                    arms.push(SwitchArm {
                        doc: None,
                        pattern,
                        node,
                        span: Span::DUMMY,
                    });
                }
                _ => {}
            }
        }
        // Comments after the last arm go back after it.
        if let (Some(last), false) = (arms.last_mut(), docs.is_empty()) {
            last.node
                .doc
                .get_or_insert_with(Doc::default)
                .lines
                .extend(docs.into_iter().flat_map(|t| lines_at(t, Place::After)));
        }
        Some(NodeKind::Switch { subject, arms })
    }

    /// `<Fallback _affect_try="true"><Sequence>try..</Sequence><ForceFailure>catch</ForceFailure>`:
    /// the exporter's `try_catch`.
    pub(super) fn try_catch(
        &mut self,
        el: &Element,
        id: &str,
        rest: &[&Attribute],
    ) -> Option<NodeKind> {
        if id != "Fallback" || el.attr(carry::TRY) != Some("true") || !rest.is_empty() {
            return None;
        }
        let kids: Vec<&Element> = el.elements().collect();
        let [seq, force] = kids.as_slice() else {
            return None;
        };
        let catch: Vec<&Element> = force.elements().collect();
        if seq.name != "Sequence"
            || !seq.attrs.is_empty()
            || force.name != "ForceFailure"
            || !force.attrs.is_empty()
            || catch.len() != 1
        {
            return None;
        }
        let mut nodes = self.children(seq);
        nodes.extend(self.children(force));
        Some(call("try_catch", None, false, Some(nodes)))
    }

    pub(super) fn for_loop(
        &mut self,
        el: &Element,
        id: &str,
        rest: &[&Attribute],
        attrs: &mut Vec<Attr>,
    ) -> Option<NodeKind> {
        let value = rest.iter().find(|a| a.name == "value")?;
        let var = model::blackboard_key(&value.value).and_then(model::key_expr)?;
        let ExprKind::Name(p) = &var.kind else {
            return None;
        };
        let mut var = p.segments[0].clone();
        var.span = value.value_span;
        let queue_attr = rest.iter().find(|a| a.name == "queue")?;
        let mut queue = match model::blackboard_key(&queue_attr.value) {
            Some(k) => model::key_expr(k)?,
            None => literal_queue(id, &queue_attr.value)
                .unwrap_or_else(|| expr(ExprKind::Str(queue_attr.value.clone()))),
        };
        crate::syntax::spans::expr(
            &mut queue,
            &mut crate::syntax::spans::fill(queue_attr.value_span),
        );
        let body = self.body_children(el);
        for a in rest
            .iter()
            .filter(|a| a.name != "value" && a.name != "queue")
        {
            attrs.push(attr_of(a));
        }
        Some(NodeKind::For {
            var,
            queue,
            body: NodeBlock {
                nodes: body,
                span: Span::DUMMY,
            },
        })
    }
}

/// A literal queue (`queue="1;2;3"`) as the list literal BehaviorTree.CPP reads from it: the
/// text split at `;` (an empty last piece dropped, as its `splitString`), each piece read as
/// the loop's type. `None` (the text stays a string, which the checker refuses) where affect
/// cannot spell the list as written: no piece, a piece the type cannot hold as it is
/// spelled, or a `LoopDouble` piece spelled as an integer (it would read back as an `int`
/// and make the loop a `LoopInt`).
fn literal_queue(id: &str, text: &str) -> Option<Expr> {
    let mut pieces: Vec<&str> = text.split(';').collect();
    if pieces.last() == Some(&"") {
        pieces.pop();
    }
    if pieces.is_empty() {
        return None;
    }
    let items = pieces
        .iter()
        .map(|p| {
            let (neg, digits) = match p.strip_prefix('-') {
                Some(d) => (true, d),
                None => (false, *p),
            };
            let number = |float: bool| {
                let n = crate::btcpp::script::number(digits)?;
                (n.integer != float && n.unit.is_none() && !digits.contains('_')).then(|| {
                    let num = expr(ExprKind::Num(n));
                    if neg {
                        expr(ExprKind::Unary(
                            crate::syntax::ast::UnOp::Neg,
                            Box::new(num),
                        ))
                    } else {
                        num
                    }
                })
            };
            match id {
                "LoopInt" => p
                    .parse::<i32>()
                    .ok()
                    .filter(|_| !p.starts_with('+'))
                    .and_then(|_| number(false)),
                "LoopDouble" => number(true),
                "LoopBool" => match *p {
                    "true" => Some(expr(ExprKind::Bool(true))),
                    "false" => Some(expr(ExprKind::Bool(false))),
                    _ => None,
                },
                _ => (!p.is_empty() && !p.contains(['{', '}']))
                    .then(|| expr(ExprKind::Str(p.to_string()))),
            }
        })
        .collect::<Option<Vec<Expr>>>()?;
    Some(expr(ExprKind::List(items)))
}
