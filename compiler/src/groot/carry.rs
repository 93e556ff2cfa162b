//! What keeps `.affect → XML → .affect` lossless: `_`-prefixed attributes, which
//! BehaviorTree.CPP ignores (v4 stores them as "other attributes"; v3 ignores them on `<root>`,
//! `<BehaviorTree>` and model entries), holding affect text where the XML alone cannot say
//! exactly what the source said.
//!
//! | attribute | on | holds |
//! |---|---|---|
//! | `_affect` | `<root>` | the declarations XML cannot hold (`use std::..`, `const`, `enum`, `emotion`, `tendency`, `world`, agent clones, ...) in source order, with `// @xml KIND NAME` lines where the declarations that live in the XML go |
//! | `_affect` | `<BehaviorTree>` | the tree's header (`main`, ports, typed `var`s) with an empty body, or the whole agent with an empty `main {}`, when the XML does not give them exactly |
//! | `_affect` | a node | the node with its children replaced by `succeed`, when the XML form reads back differently (units, quoting, host entries, ...) |
//! | `_affect` | a model entry | the declaration, when its model reads back differently |
//! | `_affect_body` | `<Sequence>` | marks the sequence that holds a body of several nodes (a tree, an agent's `main`, a `for`) |
//! | `_affect_init` | `<RunOnce>` | marks the script that initialises a tree's `var`s once |
//! | `_affect_try` | `<Fallback>` | a `try_catch` written as `Fallback { Sequence { try.. } ForceFailure { catch } }` |
//! | `_affect_pad` | a Switch child | fills a case of a switch with fewer than two cases (never matched) |
//! | `_inferred` | a model entry | the node (or tree) was not declared; its model was inferred from its uses |
//!
//! The exporter writes `_affect` only where reading the XML back would not give the source's
//! syntax tree; the importer uses it only while the XML still says what the carried text says
//! (an element edited in Groot after the export is read from its attributes, with a warning).

use crate::span::Span;
use crate::syntax::ast::*;

pub const AFFECT: &str = "_affect";
pub const BODY: &str = "_affect_body";
pub const INIT: &str = "_affect_init";
/// On `<root>`: the file's enums as scripting enums, `Enum::Variant=value;..` (what a host
/// registers with `registerScriptingEnum`; the import ignores it, the enums travel in `_affect`).
pub const ENUMS: &str = "_affect_enums";
/// On a node and its model entry: a node the exporter generated, implemented by
/// `cpp/affect_bt.hpp` (the behaviour modules' arbiter); the import skips both.
pub const NODE: &str = "_affect_node";
/// On a Switch child that only fills a case BehaviorTree.CPP needs (a switch of fewer than
/// two cases is written as `Switch2`): never matched, skipped on import.
pub const PAD: &str = "_affect_pad";
/// On a `<Fallback>`: it is `try_catch`, written with nodes every BehaviorTree.CPP 4 has
/// (`TryCatch` came in 4.9): `Fallback { Sequence { try.. } ForceFailure { catch } }`.
pub const TRY: &str = "_affect_try";
/// On the `Switch` a `tendencies(machine)` node is written as (the agent's table for the
/// machine's state): the import takes the node from its `_affect` text, as the table is in
/// the agent's.
pub const TENDENCIES: &str = "_affect_tendencies";
pub const INFERRED_XML: &str = "_inferred";
/// `#[inferred]` on a leaf declaration: made up by `affect import` from the node's uses; the
/// export writes no model entry for it.
pub const INFERRED: &str = "inferred";
/// `#[model]` on a tree: the export writes a `<SubTree>` model entry even without ports.
pub const MODEL: &str = "model";
/// The start of a line in the root `_affect` text that stands for a declaration in the XML.
pub const MARKER: &str = "// @xml ";

fn file_of(items: Vec<Item>) -> File {
    File {
        items,
        span: Span::DUMMY,
    }
}

pub fn format_item(item: &Item) -> String {
    crate::fmt::format_file(&file_of(vec![item.clone()]), &[], None)
}

fn tree_around(nodes: Vec<Node>) -> Item {
    Item {
        doc: None,
        attrs: vec![],
        kind: ItemKind::Tree(TreeDecl {
            is_main: false,
            name: Ident::new("T", Span::DUMMY),
            ports: Default::default(),
            locals: vec![],
            body: NodeBlock {
                nodes,
                span: Span::DUMMY,
            },
        }),
        span: Span::DUMMY,
    }
}

/// The text of one node as the formatter prints it (with its doc comment), dedented.
pub fn format_node(node: &Node) -> String {
    let text = format_item(&tree_around(vec![node.clone()]));
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() < 2 {
        return String::new();
    }
    lines[1..lines.len() - 1]
        .iter()
        .map(|l| l.strip_prefix("    ").unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Reads back a node written by [`format_node`].
pub fn parse_node(text: &str) -> Option<Node> {
    let parsed = crate::syntax::parse(&format!("tree T {{\n{text}\n}}\n"));
    if crate::diagnostic::has_errors(&parsed.diagnostics) || parsed.file.items.len() != 1 {
        return None;
    }
    match parsed.file.items.into_iter().next()?.kind {
        ItemKind::Tree(t) if t.locals.is_empty() && t.body.nodes.len() == 1 => {
            t.body.nodes.into_iter().next()
        }
        _ => None,
    }
}

/// Reads back one declaration.
pub fn parse_item(text: &str) -> Option<Item> {
    let parsed = crate::syntax::parse(text);
    if crate::diagnostic::has_errors(&parsed.diagnostics) || parsed.file.items.len() != 1 {
        return None;
    }
    parsed.file.items.into_iter().next()
}

/// `succeed`: stands for a child in a node's carried text.
pub fn placeholder() -> Node {
    Node {
        doc: None,
        attrs: vec![],
        label: None,
        kind: NodeKind::Call {
            name: Path::single(Ident::new("succeed", Span::DUMMY)),
            args: None,
            children: None,
        },
        modifiers: vec![],
        span: Span::DUMMY,
    }
}

/// The node with every child replaced by a placeholder: what one XML element says.
pub fn head(n: &Node) -> Node {
    head_with(n, true)
}

/// [`head`], with the arguments of a call left out (`keep_args` false) or copied.
fn head_with(n: &Node, keep_args: bool) -> Node {
    let mut h = Node {
        doc: n.doc.clone(),
        attrs: n.attrs.clone(),
        label: n.label.clone(),
        kind: NodeKind::Error,
        modifiers: n.modifiers.clone(),
        span: n.span,
    };
    let block = |b: &NodeBlock| NodeBlock {
        nodes: b.nodes.iter().map(|_| placeholder()).collect(),
        span: b.span,
    };
    h.kind = match &n.kind {
        NodeKind::Call {
            name,
            args,
            children,
        } => NodeKind::Call {
            name: name.clone(),
            args: match keep_args {
                true => args.clone(),
                false => args.as_ref().map(|l| ArgList {
                    args: Vec::new(),
                    rest: l.rest,
                    span: l.span,
                }),
            },
            children: children.as_ref().map(block),
        },
        NodeKind::Switch { subject, arms } => NodeKind::Switch {
            subject: subject.clone(),
            arms: arms
                .iter()
                .map(|a| SwitchArm {
                    doc: a.doc.clone(),
                    pattern: a.pattern.clone(),
                    node: placeholder(),
                    span: a.span,
                })
                .collect(),
        },
        NodeKind::For { var, queue, body } => NodeKind::For {
            var: var.clone(),
            queue: queue.clone(),
            body: block(body),
        },
        other => other.clone(),
    };
    h
}

/// How many children a node has.
pub fn child_count(n: &Node) -> usize {
    match &n.kind {
        NodeKind::Call {
            children: Some(c), ..
        } => c.nodes.len(),
        NodeKind::Switch { arms, .. } => arms.len(),
        NodeKind::For { body, .. } => body.nodes.len(),
        _ => 0,
    }
}

/// Puts the real children into a node read from carried text, in order. `None` when the
/// counts differ (the XML was edited).
pub fn fill(mut n: Node, children: Vec<Node>) -> Option<Node> {
    if child_count(&n) != children.len() {
        return None;
    }
    let mut it = children.into_iter();
    match &mut n.kind {
        NodeKind::Call {
            children: Some(c), ..
        } => c
            .nodes
            .iter_mut()
            .for_each(|slot| *slot = it.next().expect("counted")),
        NodeKind::Switch { arms, .. } => arms
            .iter_mut()
            .for_each(|a| a.node = it.next().expect("counted")),
        NodeKind::For { body, .. } => body
            .nodes
            .iter_mut()
            .for_each(|slot| *slot = it.next().expect("counted")),
        _ => {}
    }
    Some(n)
}

/// [`differs`] of `n`'s head and `b`, without copying the head's arguments when they read
/// back the same: each argument is compared on its own (a copy of a call with 200,000
/// arguments cost as much memory as the call). Only a head that differs is copied whole.
pub fn head_differs(n: &Node, mut b: Node) -> Option<String> {
    let (ours, mut theirs) = match (&n.kind, &mut b.kind) {
        (
            NodeKind::Call {
                args: Some(ours), ..
            },
            NodeKind::Call {
                args: Some(theirs), ..
            },
        ) if ours.args.len() == theirs.args.len() => (&ours.args, std::mem::take(&mut theirs.args)),
        _ => return differs(head(n), b),
    };
    let mut a = head_with(n, false);
    unspan::node(&mut a);
    unspan::node(&mut b);
    let same = a == b
        && ours.iter().zip(theirs.iter_mut()).all(|(x, y)| {
            let mut x = x.clone();
            unspan::arg(&mut x);
            unspan::arg(y);
            x == *y
        });
    if same {
        return None;
    }
    if let NodeKind::Call {
        args: Some(back), ..
    } = &mut b.kind
    {
        back.args = theirs;
    }
    differs(head(n), b)
}

/// Whether two nodes (or heads) print the same, so read back they give the same tree:
/// `None` when `b` reads back as `a`, else the text of `a` (what `_affect` must carry).
/// Comparing without spans first spares printing in the common case.
pub fn differs(mut a: Node, mut b: Node) -> Option<String> {
    unspan::node(&mut a);
    unspan::node(&mut b);
    if a == b {
        return None;
    }
    let text = format_node(&a);
    (text != format_node(&b)).then_some(text)
}

/// Blanking every span, so that trees compare by content alone.
mod unspan {
    use crate::span::Span;
    use crate::syntax::ast::*;

    fn ident(i: &mut Ident) {
        i.span = Span::DUMMY;
    }

    fn path(p: &mut Path) {
        p.span = Span::DUMMY;
        p.segments.iter_mut().for_each(ident);
    }

    fn doc(d: &mut Option<Doc>) {
        if let Some(d) = d {
            d.span = Span::DUMMY;
        }
    }

    fn args(a: &mut ArgList) {
        a.span = Span::DUMMY;
        if a.rest.is_some() {
            a.rest = Some(Span::DUMMY);
        }
        a.args.iter_mut().for_each(arg);
    }

    pub fn arg(x: &mut Arg) {
        x.span = Span::DUMMY;
        if let Some(n) = &mut x.name {
            ident(n);
        }
        expr(&mut x.value);
    }

    pub fn expr(e: &mut Expr) {
        e.span = Span::DUMMY;
        match &mut e.kind {
            ExprKind::Name(p) => path(p),
            ExprKind::Root(i) => ident(i),
            ExprKind::Unary(_, a) | ExprKind::Paren(a) => expr(a),
            ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => {
                expr(a);
                expr(b);
            }
            ExprKind::Ternary(a, b, c) => {
                expr(a);
                expr(b);
                expr(c);
            }
            ExprKind::Call(f, a) => {
                expr(f);
                args(a);
            }
            ExprKind::Field(a, i) => {
                expr(a);
                ident(i);
            }
            ExprKind::List(xs) | ExprKind::Tuple(xs) => xs.iter_mut().for_each(expr),
            ExprKind::Num(_) | ExprKind::Str(_) | ExprKind::Bool(_) | ExprKind::Error => {}
        }
    }

    fn block(b: &mut Block) {
        b.span = Span::DUMMY;
        for s in &mut b.stmts {
            stmt(s);
        }
    }

    fn stmt(s: &mut Stmt) {
        s.span = Span::DUMMY;
        match &mut s.kind {
            StmtKind::Assign { target, value, .. } => {
                expr(target);
                expr(value);
            }
            StmtKind::Expr(e) => expr(e),
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                expr(cond);
                block(then);
                match otherwise.as_deref_mut() {
                    Some(Else::Block(b)) => block(b),
                    Some(Else::If(s)) => stmt(s),
                    None => {}
                }
            }
            StmtKind::Error => {}
        }
    }

    fn nodes(b: &mut NodeBlock) {
        b.span = Span::DUMMY;
        b.nodes.iter_mut().for_each(node);
    }

    pub fn node(n: &mut Node) {
        n.span = Span::DUMMY;
        doc(&mut n.doc);
        for a in &mut n.attrs {
            a.span = Span::DUMMY;
            ident(&mut a.name);
            if let Some(v) = &mut a.value {
                expr(v);
            }
        }
        if let Some(l) = &mut n.label {
            l.span = Span::DUMMY;
        }
        for m in &mut n.modifiers {
            m.span = Span::DUMMY;
            match &mut m.kind {
                ModifierKind::SkipIf(e)
                | ModifierKind::SuccessIf(e)
                | ModifierKind::FailureIf(e)
                | ModifierKind::While(e) => expr(e),
                ModifierKind::OnSuccess(b)
                | ModifierKind::OnFailure(b)
                | ModifierKind::OnHalted(b)
                | ModifierKind::After(b) => block(b),
            }
        }
        match &mut n.kind {
            NodeKind::Call {
                name,
                args: a,
                children,
            } => {
                path(name);
                if let Some(a) = a {
                    args(a);
                }
                if let Some(c) = children {
                    nodes(c);
                }
            }
            NodeKind::Script(b) => block(b),
            NodeKind::Check(e) => expr(e),
            NodeKind::Switch { subject, arms } => {
                expr(subject);
                for arm in arms {
                    arm.span = Span::DUMMY;
                    doc(&mut arm.doc);
                    match &mut arm.pattern {
                        Pattern::Wildcard(s) => *s = Span::DUMMY,
                        Pattern::Expr(e) => expr(e),
                    }
                    node(&mut arm.node);
                }
            }
            NodeKind::For { var, queue, body } => {
                ident(var);
                expr(queue);
                nodes(body);
            }
            NodeKind::Error => {}
        }
    }
}

pub fn same_item(a: &Item, b: &Item) -> bool {
    a == b || format_item(a) == format_item(b)
}

/// A reference from the root's carried text to a declaration held by the XML.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum XmlItem {
    /// `use "path";` ↔ `<include path=..>`
    Use(String),
    /// A leaf declaration ↔ a model entry.
    Leaf(String),
    /// A tree ↔ a `<BehaviorTree>` (or a `<SubTree>` model entry for a tree without body).
    Tree(String),
    /// An agent ↔ the `<BehaviorTree>` of its `main`.
    Agent(String),
}

impl XmlItem {
    pub fn marker(&self) -> String {
        match self {
            XmlItem::Use(p) => format!(
                "{MARKER}use {}",
                crate::fmt::format_expr(&Expr {
                    kind: ExprKind::Str(p.clone()),
                    span: Span::DUMMY,
                })
            ),
            XmlItem::Leaf(n) => format!("{MARKER}leaf {n}"),
            XmlItem::Tree(n) => format!("{MARKER}tree {n}"),
            XmlItem::Agent(n) => format!("{MARKER}agent {n}"),
        }
    }

    fn parse_marker(text: &str) -> Option<XmlItem> {
        let rest = text.strip_prefix(MARKER)?;
        let (kind, name) = rest.split_once(' ')?;
        Some(match kind {
            "use" => {
                let lexed = crate::syntax::lexer::lex(name);
                match lexed.tokens.as_slice() {
                    [(_, crate::syntax::token::Tok::Str(s), _)] => XmlItem::Use(s.clone()),
                    _ => return None,
                }
            }
            "leaf" => XmlItem::Leaf(name.to_string()),
            "tree" => XmlItem::Tree(name.to_string()),
            "agent" => XmlItem::Agent(name.to_string()),
            _ => return None,
        })
    }
}

/// One entry of the root's carried text: a declaration, or a place for an XML one.
#[derive(Clone, Debug)]
pub enum Entry {
    Item(Item),
    Xml(XmlItem),
}

/// Writes the root's carried text.
pub fn write_root(entries: &[Entry]) -> String {
    let mut out = String::new();
    for e in entries {
        match e {
            Entry::Item(item) => out.push_str(&format_item(item)),
            Entry::Xml(x) => {
                out.push_str(&x.marker());
                out.push('\n');
            }
        }
    }
    out
}

/// Reads the root's carried text back. `None` when it does not parse (it was edited badly).
pub fn read_root(text: &str) -> Option<Vec<Entry>> {
    let parsed = crate::syntax::parse(text);
    if crate::diagnostic::has_errors(&parsed.diagnostics) {
        return None;
    }
    let mut events: Vec<(u32, Entry)> = Vec::new();
    for item in parsed.file.items {
        let start = item
            .doc
            .as_ref()
            .map(|d| d.span.start)
            .unwrap_or(item.span.start)
            .min(item.span.start);
        events.push((start, Entry::Item(item)));
    }
    for c in &parsed.comments {
        if let Some(x) = XmlItem::parse_marker(&c.text) {
            events.push((c.span.start, Entry::Xml(x)));
        }
    }
    events.sort_by_key(|(s, _)| *s);
    Some(events.into_iter().map(|(_, e)| e).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_text_round_trips() {
        let n = parse_node("/// Doc.\nlabel: retry(3) { succeed }").unwrap();
        assert_eq!(format_node(&n), "/// Doc.\nlabel: retry(3) { succeed }");
        assert!(fill(n.clone(), vec![]).is_none());
        assert!(fill(n, vec![placeholder()]).is_some());
    }

    #[test]
    fn head_differs_as_differs_of_the_head_does() {
        // Written with other spaces than its read-back, so the spans differ throughout.
        let n = parse_node("Move( a: 1,  b: x  +  1 )").unwrap();
        // Spans differ, arguments the same: nothing to carry.
        let same = parse_node("Move(a: 1, b: x+1)").unwrap();
        assert_eq!(head_differs(&n, same.clone()), differs(head(&n), same));
        assert_eq!(
            head_differs(&n, parse_node("Move(a: 1, b: x + 1)").unwrap()),
            None
        );
        // An argument that reads back otherwise, or one more: the source text is carried.
        for other in [
            "Move(a: 2, b: x + 1)",
            "Move(a: 1)",
            "Move(b: x + 1, a: 1)",
            "Go(a: 1, b: x + 1)",
        ] {
            let back = parse_node(other).unwrap();
            assert_eq!(
                head_differs(&n, back.clone()),
                differs(head(&n), back),
                "{other}"
            );
            assert!(
                head_differs(&n, parse_node(other).unwrap()).is_some(),
                "{other}"
            );
        }
    }

    #[test]
    fn root_text_keeps_order() {
        let entries = vec![
            Entry::Item(parse_item("const A = 1;").unwrap()),
            Entry::Xml(XmlItem::Use("lib/x.affect".into())),
            Entry::Xml(XmlItem::Tree("Main".into())),
            Entry::Item(parse_item("/// E.\nenum E { A, B }").unwrap()),
        ];
        let text = write_root(&entries);
        let back = read_root(&text).unwrap();
        assert_eq!(back.len(), 4);
        assert!(matches!(&back[1], Entry::Xml(XmlItem::Use(p)) if p == "lib/x.affect"));
        assert!(matches!(&back[3], Entry::Item(i) if i.doc.is_some()));
    }
}
