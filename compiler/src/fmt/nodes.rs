//! Printing trees: bodies, nodes (on one line when they fit), arguments and modifiers.

use super::expr::{self, name};
use super::{simple_stmt, Printer};
use crate::syntax::ast::*;

impl Printer<'_> {
    pub(super) fn tree_body(&mut self, t: &TreeDecl) {
        if t.locals.is_empty() {
            self.node_block(&t.body);
            return;
        }
        self.open();
        self.elements(
            &t.locals,
            |v| v.span,
            |p, v| {
                p.doc(&v.doc);
                p.cur.push_str(&format!("var {}", name(&v.name.name)));
                if let Some(ty) = &v.ty {
                    p.cur.push_str(&format!(": {}", expr::ty(ty)));
                }
                if let Some(i) = &v.init {
                    p.cur.push_str(&format!(" = {}", expr::expr(i)));
                }
                p.cur.push(';');
            },
        );
        if let Some(first) = t.body.nodes.first() {
            // Locals and nodes are separated by one blank line.
            self.leading(first.span.start, true);
            self.last_end = None;
        }
        self.elements(&t.body.nodes, |n| n.span, |p, n| p.node(n));
        self.close(t.body.span.end);
    }

    pub(super) fn node_block(&mut self, b: &NodeBlock) {
        if b.nodes.is_empty() && !self.has_comments_in(b.span) {
            self.cur.push_str(" {}");
            return;
        }
        self.open();
        self.elements(&b.nodes, |n| n.span, |p, n| p.node(n));
        self.close(b.span.end);
    }

    /// A node that prints on one line by itself (no children, no block modifiers that
    /// need several lines), if it does.
    pub(super) fn node_flat(&self, n: &Node) -> Option<String> {
        if !n.attrs.is_empty() || n.doc.is_some() {
            return None;
        }
        let mut s = String::new();
        if let Some(l) = &n.label {
            s.push_str(&format!("{}: ", expr::label(l)));
        }
        match &n.kind {
            NodeKind::Call {
                name: nm,
                args,
                children: None,
            } => {
                s.push_str(&expr::path(nm));
                if let Some(a) = args {
                    s.push_str(&expr::arg_list(a));
                }
            }
            NodeKind::Check(e) => s.push_str(&format!("check {}", expr::expr(e))),
            NodeKind::Script(b) => {
                let parts: Vec<String> = b.stmts.iter().map(simple_stmt).collect::<Option<_>>()?;
                if parts.is_empty() {
                    s.push_str("do {}");
                } else {
                    s.push_str(&format!("do {{ {} }}", parts.join("; ")));
                }
            }
            _ => return None,
        }
        for m in &n.modifiers {
            s.push(' ');
            s.push_str(&modifier_flat(m)?);
        }
        Some(s)
    }

    pub(super) fn node(&mut self, n: &Node) {
        self.doc(&n.doc);
        self.attrs(&n.attrs);
        if let Some(flat) = self.node_flat(n) {
            if self.fits(&flat) && !self.has_comments_in(n.span) {
                self.cur.push_str(&flat);
                return;
            }
        }
        if let Some(l) = &n.label {
            self.cur.push_str(&format!("{}: ", expr::label(l)));
        }
        match &n.kind {
            NodeKind::Call {
                name: nm,
                args,
                children,
            } => {
                self.cur.push_str(&expr::path(nm));
                if let Some(a) = args {
                    self.args(a);
                }
                if let Some(c) = children {
                    // One leaf child may sit on the parent's line: `retry(3) { Approach() }`.
                    let single = match c.nodes.as_slice() {
                        [only] if !self.has_comments_in(c.span) => self.node_flat(only),
                        _ => None,
                    };
                    match single {
                        Some(child) if self.fits(&format!(" {{ {child} }}")) => {
                            self.cur.push_str(&format!(" {{ {child} }}"));
                        }
                        _ => self.node_block(c),
                    }
                }
            }
            NodeKind::Script(b) => {
                self.cur.push_str("do");
                self.block(b, true);
            }
            NodeKind::Check(e) => self.cur.push_str(&format!("check {}", expr::expr(e))),
            NodeKind::Switch { subject, arms } => {
                self.cur
                    .push_str(&format!("switch {}", expr::expr(subject)));
                self.open();
                self.elements(
                    arms,
                    |a| a.span,
                    |p, a| {
                        p.doc(&a.doc);
                        let pattern = expr::pattern(&a.pattern);
                        if a.node.doc.is_some() || !a.node.attrs.is_empty() {
                            // The node's doc and attributes are lines of their own, so the
                            // node goes under its pattern (an import keeps `#[xml]` on nodes).
                            p.line(&format!("{pattern} =>"));
                            p.indent += 1;
                            p.node(&a.node);
                            if !p.cur.is_empty() {
                                p.newline();
                            }
                            p.indent -= 1;
                        } else {
                            p.cur.push_str(&format!("{pattern} => "));
                            p.node(&a.node);
                        }
                    },
                );
                self.close(n.span_end_of_block());
            }
            NodeKind::For { var, queue, body } => {
                self.cur
                    .push_str(&format!("for {} in {}", name(&var.name), expr::expr(queue)));
                self.node_block(body);
            }
            NodeKind::Error => self.cur.push_str("/* error */"),
        }
        self.modifiers(&n.modifiers);
    }

    /// Node arguments on the line, or one per line when they do not fit.
    pub(super) fn args(&mut self, a: &ArgList) {
        let flat = expr::arg_list_within(a, super::WIDTH);
        if let Some(flat) = flat.filter(|f| self.fits(f) && !self.has_comments_in(a.span)) {
            self.cur.push_str(&flat);
            return;
        }
        self.cur.push('(');
        self.newline();
        self.indent += 1;
        self.last_end = None;
        self.elements(
            &a.args,
            |x| x.span,
            |p, x| {
                p.cur.push_str(&format!("{},", expr::arg(x)));
            },
        );
        if let Some(rest) = a.rest {
            self.leading(rest.start, false);
            self.cur.push_str("..");
            self.end_element(rest.end);
        }
        self.leading(a.span.end.saturating_sub(1), false);
        self.indent -= 1;
        self.cur.push(')');
    }

    pub(super) fn modifiers(&mut self, mods: &[Modifier]) {
        for m in mods {
            match &m.kind {
                ModifierKind::OnSuccess(b)
                | ModifierKind::OnFailure(b)
                | ModifierKind::OnHalted(b)
                | ModifierKind::After(b) => {
                    self.cur.push(' ');
                    self.cur.push_str(m.kind.keyword());
                    self.block(b, true);
                }
                _ => {
                    let text = modifier_flat(m).expect("expression modifiers are flat");
                    self.cur.push(' ');
                    self.cur.push_str(&text);
                }
            }
        }
    }
}

fn modifier_flat(m: &Modifier) -> Option<String> {
    let kw = m.kind.keyword();
    match &m.kind {
        ModifierKind::SkipIf(e)
        | ModifierKind::SuccessIf(e)
        | ModifierKind::FailureIf(e)
        | ModifierKind::While(e) => Some(format!("{kw} {}", expr::expr(e))),
        ModifierKind::OnSuccess(b)
        | ModifierKind::OnFailure(b)
        | ModifierKind::OnHalted(b)
        | ModifierKind::After(b) => {
            let parts: Vec<String> = b.stmts.iter().map(simple_stmt).collect::<Option<_>>()?;
            if parts.is_empty() {
                Some(format!("{kw} {{}}"))
            } else {
                Some(format!("{kw} {{ {} }}", parts.join("; ")))
            }
        }
    }
}
