//! Every span of a syntax tree, to change in place. The XML import builds trees that no text
//! spells; it places them in the XML file with this walk: the spans it left empty take the
//! place of the element or attribute they came from, and the spans of `.affect` text carried
//! in an attribute (`_affect`) move to where that text is in the file.
//!
//! The walk is iterative over nodes' children only through [`node`]'s `deep`; everything else
//! it visits is bounded by the parser's and the importer's nesting limits.

use super::ast::*;
use crate::span::Span;

/// The function applied to each span.
pub type Place<'a> = &'a mut dyn FnMut(&mut Span);

/// Fills the empty spans (`Span::DUMMY`) with `at`.
pub fn fill(at: Span) -> impl FnMut(&mut Span) {
    move |s: &mut Span| {
        if *s == Span::DUMMY {
            *s = at;
        }
    }
}

pub fn file(file: &mut File, f: Place) {
    f(&mut file.span);
    for i in &mut file.items {
        item(i, f);
    }
}

fn ident(i: &mut Ident, f: Place) {
    f(&mut i.span);
}

fn path(p: &mut Path, f: Place) {
    f(&mut p.span);
    for s in &mut p.segments {
        ident(s, f);
    }
}

fn doc(d: &mut Option<Doc>, f: Place) {
    if let Some(d) = d {
        f(&mut d.span);
    }
}

pub fn attrs(attrs: &mut [Attr], f: Place) {
    for a in attrs {
        f(&mut a.span);
        ident(&mut a.name, f);
        if let Some(e) = &mut a.value {
            expr(e, f);
        }
    }
}

pub fn ports(ports: &mut Ports, f: Place) {
    if ports.is_empty() {
        return;
    }
    for p in std::sync::Arc::make_mut(ports) {
        port(p, f);
    }
}

pub fn port(p: &mut PortDecl, f: Place) {
    f(&mut p.span);
    if let Some(d) = &mut p.doc {
        f(&mut d.span);
    }
    ident(&mut p.name, f);
    if let Some(t) = &mut p.ty {
        ty(t, f);
    }
    if let Some(e) = &mut p.default {
        expr(e, f);
    }
}

pub fn item(item: &mut Item, f: Place) {
    f(&mut item.span);
    doc(&mut item.doc, f);
    attrs(&mut item.attrs, f);
    match &mut item.kind {
        ItemKind::Use(u) => match &mut u.target {
            UseTarget::Module(p) => path(p, f),
            UseTarget::File(_, s) => f(s),
        },
        ItemKind::Const(c) => {
            ident(&mut c.name, f);
            if let Some(t) = &mut c.ty {
                ty(t, f);
            }
            expr(&mut c.value, f);
        }
        ItemKind::Enum(e) => {
            ident(&mut e.name, f);
            for v in &mut e.variants {
                f(&mut v.span);
                doc(&mut v.doc, f);
                ident(&mut v.name, f);
                if let Some(x) = &mut v.value {
                    expr(x, f);
                }
            }
        }
        ItemKind::Leaf(l) => {
            ident(&mut l.name, f);
            ports(&mut l.ports, f);
        }
        ItemKind::Tree(t) => {
            ident(&mut t.name, f);
            ports(&mut t.ports, f);
            for l in &mut t.locals {
                f(&mut l.span);
                doc(&mut l.doc, f);
                ident(&mut l.name, f);
                if let Some(x) = &mut l.ty {
                    ty(x, f);
                }
                if let Some(e) = &mut l.init {
                    expr(e, f);
                }
            }
            nodes(&mut t.body, true, f);
        }
        ItemKind::Emotion(r) | ItemKind::Tendency(r) => {
            ident(&mut r.name, f);
            fields(&mut r.fields, f);
        }
        ItemKind::Agent(a) => {
            ident(&mut a.name, f);
            if let Some(b) = &mut a.base {
                ident(b, f);
            }
            if let Some(s) = &mut a.body_span {
                f(s);
            }
            for m in a.members.iter_mut().flatten() {
                member(m, f);
            }
        }
        ItemKind::World(w) => {
            ident(&mut w.name, f);
            settings(&mut w.body, f);
        }
        ItemKind::Component(c) => {
            ident(&mut c.name, f);
            settings(&mut c.body, f);
        }
        ItemKind::Behavior(b) => behavior(b, f),
        ItemKind::Error => {}
    }
}

fn fields(fields: &mut [Field], f: Place) {
    for x in fields {
        f(&mut x.span);
        doc(&mut x.doc, f);
        ident(&mut x.key, f);
        expr(&mut x.value, f);
    }
}

fn behavior(b: &mut BehaviorDecl, f: Place) {
    doc(&mut b.doc, f);
    ident(&mut b.name, f);
    settings(&mut b.body, f);
}

/// A block of nodes: its span, and its nodes when `deep`.
pub fn nodes(block: &mut NodeBlock, deep: bool, f: Place) {
    f(&mut block.span);
    if deep {
        for n in &mut block.nodes {
            node(n, true, f);
        }
    }
}

/// A node; its children (in a block, a switch's arms) only when `deep`.
pub fn node(n: &mut Node, deep: bool, f: Place) {
    f(&mut n.span);
    doc(&mut n.doc, f);
    attrs(&mut n.attrs, f);
    if let Some(l) = &mut n.label {
        f(&mut l.span);
    }
    match &mut n.kind {
        NodeKind::Call {
            name,
            args: a,
            children,
        } => {
            path(name, f);
            if let Some(a) = a {
                args(a, f);
            }
            if let Some(c) = children {
                nodes(c, deep, f);
            }
        }
        NodeKind::Script(b) => block(b, f),
        NodeKind::Check(e) => expr(e, f),
        NodeKind::Switch { subject, arms } => {
            expr(subject, f);
            for arm in arms {
                f(&mut arm.span);
                doc(&mut arm.doc, f);
                pattern(&mut arm.pattern, f);
                if deep {
                    node(&mut arm.node, true, f);
                }
            }
        }
        NodeKind::For { var, queue, body } => {
            ident(var, f);
            expr(queue, f);
            nodes(body, deep, f);
        }
        NodeKind::Error => {}
    }
    for m in &mut n.modifiers {
        modifier(m, f);
    }
}

pub fn modifier(m: &mut Modifier, f: Place) {
    f(&mut m.span);
    match &mut m.kind {
        ModifierKind::SkipIf(e)
        | ModifierKind::SuccessIf(e)
        | ModifierKind::FailureIf(e)
        | ModifierKind::While(e) => expr(e, f),
        ModifierKind::OnSuccess(b)
        | ModifierKind::OnFailure(b)
        | ModifierKind::OnHalted(b)
        | ModifierKind::After(b) => block(b, f),
    }
}

fn pattern(p: &mut Pattern, f: Place) {
    match p {
        Pattern::Wildcard(s) => f(s),
        Pattern::Expr(e) => expr(e, f),
    }
}

pub fn args(a: &mut ArgList, f: Place) {
    f(&mut a.span);
    if let Some(s) = &mut a.rest {
        f(s);
    }
    for x in &mut a.args {
        arg(x, f);
    }
}

pub fn arg(a: &mut Arg, f: Place) {
    f(&mut a.span);
    if let Some(n) = &mut a.name {
        ident(n, f);
    }
    expr(&mut a.value, f);
}

pub fn block(b: &mut Block, f: Place) {
    f(&mut b.span);
    for s in &mut b.stmts {
        stmt(s, f);
    }
}

fn stmt(s: &mut Stmt, f: Place) {
    f(&mut s.span);
    match &mut s.kind {
        StmtKind::Assign { target, value, .. } => {
            expr(target, f);
            expr(value, f);
        }
        StmtKind::Expr(e) => expr(e, f),
        StmtKind::If {
            cond,
            then,
            otherwise,
        } => {
            expr(cond, f);
            block(then, f);
            match otherwise.as_deref_mut() {
                Some(Else::Block(b)) => block(b, f),
                Some(Else::If(s)) => stmt(s, f),
                None => {}
            }
        }
        StmtKind::Error => {}
    }
}

/// An expression. A chain of binary operators (`a + b + c`, as long as the script that made
/// it) is walked down its left side in a loop, not by recursion.
pub fn expr(e: &mut Expr, f: Place) {
    let mut e = e;
    loop {
        f(&mut e.span);
        match &mut e.kind {
            ExprKind::Num(_) | ExprKind::Str(_) | ExprKind::Bool(_) | ExprKind::Error => {}
            ExprKind::Name(p) => path(p, f),
            ExprKind::Root(i) => ident(i, f),
            ExprKind::Unary(_, x) | ExprKind::Paren(x) => {
                e = x;
                continue;
            }
            ExprKind::Field(x, i) => {
                ident(i, f);
                e = x;
                continue;
            }
            ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => {
                expr(b, f);
                e = a;
                continue;
            }
            ExprKind::Ternary(c, a, b) => {
                expr(c, f);
                expr(a, f);
                e = b;
                continue;
            }
            ExprKind::Call(x, a) => {
                args(a, f);
                e = x;
                continue;
            }
            ExprKind::List(items) | ExprKind::Tuple(items) => {
                for i in items {
                    expr(i, f);
                }
            }
        }
        return;
    }
}

pub fn ty(t: &mut Type, f: Place) {
    f(&mut t.span);
    match &mut t.kind {
        TypeKind::Named(p) => path(p, f),
        TypeKind::Range(base, lo, hi) => {
            ty(base, f);
            expr(lo, f);
            expr(hi, f);
        }
        TypeKind::List(x) => ty(x, f),
        TypeKind::Foreign(_) | TypeKind::Error => {}
    }
}

fn opt_ty(t: &mut Option<Type>, f: Place) {
    if let Some(t) = t {
        ty(t, f);
    }
}

fn member(m: &mut Member, f: Place) {
    f(&mut m.span);
    doc(&mut m.doc, f);
    attrs(&mut m.attrs, f);
    match &mut m.kind {
        MemberKind::Rate(e) => expr(e, f),
        MemberKind::Var { name, ty: t, init } => {
            ident(name, f);
            opt_ty(t, f);
            if let Some(e) = init {
                expr(e, f);
            }
        }
        MemberKind::Let { name, ty: t, value } => {
            ident(name, f);
            opt_ty(t, f);
            expr(value, f);
        }
        MemberKind::Sensor {
            name,
            ty: t,
            source,
        }
        | MemberKind::Actuator {
            name,
            ty: t,
            source,
        } => {
            ident(name, f);
            opt_ty(t, f);
            expr(source, f);
        }
        MemberKind::Event { name, source } => {
            ident(name, f);
            if let Some(e) = source {
                expr(e, f);
            }
        }
        MemberKind::Hormone {
            name,
            value,
            settings: s,
        } => {
            ident(name, f);
            expr(value, f);
            if let Some(s) = s {
                settings(s, f);
            }
        }
        MemberKind::Update(b) => block(b, f),
        MemberKind::On { event, body } => {
            expr(event, f);
            block(body, f);
        }
        MemberKind::Personality(x) => fields(x, f),
        MemberKind::Emotions {
            name,
            ty: t,
            initial,
            body,
        } => {
            ident(name, f);
            ty(t, f);
            ident(initial, f);
            settings(body, f);
        }
        MemberKind::Tendencies { machine, arms } => {
            ident(machine, f);
            for arm in arms {
                f(&mut arm.span);
                doc(&mut arm.doc, f);
                pattern(&mut arm.pattern, f);
                for t in &mut arm.targets {
                    f(&mut t.span);
                    path(&mut t.name, f);
                    if let Some(a) = &mut t.args {
                        args(a, f);
                    }
                }
            }
        }
        MemberKind::Drive(d) => drive(d, f),
        MemberKind::Memory { name, key, body } => {
            ident(name, f);
            if let Some(k) = key {
                expr(k, f);
            }
            settings(body, f);
        }
        MemberKind::Behavior(b) => behavior(b, f),
        MemberKind::Behaviors(s) => settings(s, f),
        MemberKind::Recruitment(s) | MemberKind::Component(s) => {
            ident(&mut s.name, f);
            settings(&mut s.body, f);
        }
        MemberKind::Main(b) => nodes(b, true, f),
        MemberKind::Error => {}
    }
}

fn drive(d: &mut DriveDecl, f: Place) {
    ident(&mut d.name, f);
    ty(&mut d.ty, f);
    ident(&mut d.initial, f);
    for e in &mut d.entries {
        match e {
            DriveEntry::Rule(r) => {
                f(&mut r.span);
                doc(&mut r.doc, f);
                ident(&mut r.target, f);
                expr(&mut r.guard, f);
            }
            DriveEntry::Intention(i) => {
                f(&mut i.span);
                doc(&mut i.doc, f);
                ident(&mut i.name, f);
                opt_ty(&mut i.ty, f);
                for arm in &mut i.arms {
                    f(&mut arm.span);
                    for p in &mut arm.patterns {
                        pattern(p, f);
                    }
                    expr(&mut arm.value, f);
                }
            }
            DriveEntry::Error(s) => f(s),
        }
    }
}

fn settings(b: &mut SettingBlock, f: Place) {
    f(&mut b.span);
    for e in &mut b.entries {
        match e {
            SettingEntry::Setting(s) => {
                f(&mut s.span);
                doc(&mut s.doc, f);
                ident(&mut s.key, f);
                for a in &mut s.args {
                    expr(a, f);
                }
                if let Some(x) = &mut s.assign {
                    expr(x, f);
                }
                for (k, x) in &mut s.pairs {
                    ident(k, f);
                    expr(x, f);
                }
                if let Some(x) = &mut s.value {
                    expr(x, f);
                }
                if let Some(b) = &mut s.block {
                    settings(b, f);
                }
            }
            SettingEntry::Behavior(b, s) => {
                f(s);
                behavior(b, f);
            }
            SettingEntry::Transition(t) => {
                f(&mut t.span);
                doc(&mut t.doc, f);
                ident(&mut t.from, f);
                ident(&mut t.to, f);
                expr(&mut t.guard, f);
            }
            SettingEntry::Error(s) => f(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_reaches_every_span_and_keeps_the_placed_ones() {
        let src = "agent A {\n    var x: num = 1;\n    update { x = x + 1; }\n    main { sequence { Go(to: x) } }\n}\n";
        let mut parsed = crate::syntax::parse(src);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        // Blank every span, then fill: none is left empty.
        file(&mut parsed.file, &mut |s: &mut Span| *s = Span::DUMMY);
        let at = Span::new(3, 7);
        file(&mut parsed.file, &mut fill(at));
        let text = format!("{:?}", parsed.file);
        assert!(!text.contains("start: 0, end: 0"), "{text}");
        // A placed span stays.
        let mut e = Expr::name("y", Span::new(1, 2));
        expr(&mut e, &mut fill(at));
        assert_eq!(e.span, Span::new(1, 2));
    }

    #[test]
    fn a_long_chain_is_walked_without_recursion() {
        let mut e = Expr::name("a", Span::DUMMY);
        for _ in 0..200_000 {
            e = Expr {
                kind: ExprKind::Binary(
                    BinOp::Add,
                    Box::new(e),
                    Box::new(Expr::name("b", Span::DUMMY)),
                ),
                span: Span::DUMMY,
            };
        }
        let mut count = 0;
        expr(&mut e, &mut |_: &mut Span| count += 1);
        assert!(count > 400_000);
        // Dropping such a chain recurses; leak it, as the test is about the walk.
        std::mem::forget(e);
    }
}
