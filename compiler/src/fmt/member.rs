//! Agent members as the formatter prints them: one line for a declaration, a block for
//! the members that hold settings, rules or arms.

use super::{expr, name, Printer};
use crate::span::Span;
use crate::syntax::ast::*;

impl Printer<'_> {
    pub(super) fn member(&mut self, m: &Member) {
        self.doc(&m.doc);
        self.attrs(&m.attrs);
        match &m.kind {
            MemberKind::Rate(e) => self.cur.push_str(&format!("rate {};", expr::expr(e))),
            MemberKind::Var { name: n, ty, init } => {
                self.cur
                    .push_str(&with_value(typed("var", n, ty), init.as_ref()));
            }
            MemberKind::Let { name: n, ty, value } => {
                self.cur
                    .push_str(&with_value(typed("let", n, ty), Some(value)));
            }
            MemberKind::Sensor {
                name: n,
                ty,
                source,
            } => self
                .cur
                .push_str(&with_value(typed("sensor", n, ty), Some(source))),
            MemberKind::Event { name: n, source } => self.cur.push_str(&with_value(
                format!("event {}", name(&n.name)),
                source.as_ref(),
            )),
            MemberKind::Actuator {
                name: n,
                ty,
                source,
            } => self
                .cur
                .push_str(&with_value(typed("actuator", n, ty), Some(source))),
            MemberKind::Hormone {
                name: n,
                value,
                settings,
            } => {
                self.cur.push_str(&format!(
                    "hormone {} = {}",
                    name(&n.name),
                    expr::expr(value)
                ));
                match settings {
                    Some(s) => self.setting_block(s, true),
                    None => self.cur.push(';'),
                }
            }
            MemberKind::Update(b) => {
                self.cur.push_str("update");
                self.block(b, false);
            }
            MemberKind::On { event, body } => {
                self.cur.push_str(&format!("on {}", expr::expr(event)));
                self.block(body, false);
            }
            MemberKind::Personality(fields) => {
                self.cur.push_str("personality");
                self.fields(fields, m.span, 4);
            }
            MemberKind::Emotions {
                name: n,
                ty,
                initial,
                body,
            } => {
                self.cur.push_str(&format!(
                    "emotions {}: {} = {}",
                    name(&n.name),
                    expr::ty(ty),
                    name(&initial.name)
                ));
                self.setting_block(body, false);
            }
            MemberKind::Tendencies { machine, arms } => self.tendencies(machine, arms, m.span),
            MemberKind::Drive(d) => self.drive(d, m.span),
            MemberKind::Memory { name: n, key, body } => {
                self.cur.push_str(&format!("memory {}", name(&n.name)));
                if let Some(k) = key {
                    self.cur.push_str(&format!(" keyed by {}", expr::expr(k)));
                }
                self.setting_block(body, false);
            }
            MemberKind::Behavior(b) => {
                self.cur
                    .push_str(&format!("behavior {}", name(&b.name.name)));
                self.setting_block(&b.body, false);
            }
            MemberKind::Behaviors(s) => {
                self.cur.push_str("behaviors");
                self.setting_block(s, false);
            }
            MemberKind::Recruitment(s) => {
                self.cur
                    .push_str(&format!("recruitment {}", name(&s.name.name)));
                self.setting_block(&s.body, false);
            }
            MemberKind::Component(s) => {
                self.cur
                    .push_str(&format!("component {}", name(&s.name.name)));
                self.setting_block(&s.body, false);
            }
            MemberKind::Main(b) => {
                self.cur.push_str("main");
                self.node_block(b);
            }
            MemberKind::Error => self.cur.push_str("/* error */"),
        }
    }

    /// `tendencies machine { pattern => target(args), ...; }`
    fn tendencies(&mut self, machine: &Ident, arms: &[TendencyArm], span: Span) {
        self.cur
            .push_str(&format!("tendencies {}", name(&machine.name)));
        self.open();
        self.elements(
            arms,
            |a| a.span,
            |p, a| {
                p.doc(&a.doc);
                let targets: Vec<String> = a
                    .targets
                    .iter()
                    .map(|t| {
                        let mut s = expr::path(&t.name);
                        if let Some(args) = &t.args {
                            s.push_str(&expr::arg_list(args));
                        }
                        s
                    })
                    .collect();
                p.cur.push_str(&format!(
                    "{} => {};",
                    expr::pattern(&a.pattern),
                    targets.join(", ")
                ));
            },
        );
        self.close(span.end);
    }

    fn drive(&mut self, d: &DriveDecl, span: Span) {
        self.cur.push_str(&format!(
            "drive {}: {} = {}",
            name(&d.name.name),
            expr::ty(&d.ty),
            name(&d.initial.name)
        ));
        self.open();
        let entry_span = |e: &DriveEntry| match e {
            DriveEntry::Rule(r) => r.span,
            DriveEntry::Intention(i) => i.span,
            DriveEntry::Error(s) => *s,
        };
        self.elements(&d.entries, entry_span, |p, e| match e {
            DriveEntry::Rule(r) => {
                p.doc(&r.doc);
                p.cur.push_str(&format!(
                    "{} when {};",
                    name(&r.target.name),
                    expr::expr(&r.guard)
                ));
            }
            DriveEntry::Intention(i) => {
                p.doc(&i.doc);
                p.cur.push_str(&format!("intention {}", name(&i.name.name)));
                if let Some(t) = &i.ty {
                    p.cur.push_str(&format!(": {}", expr::ty(t)));
                }
                p.open();
                p.elements(
                    &i.arms,
                    |a| a.span,
                    |p, a| {
                        let pats: Vec<String> = a.patterns.iter().map(expr::pattern).collect();
                        p.cur.push_str(&format!(
                            "{} => {};",
                            pats.join(", "),
                            expr::expr(&a.value)
                        ));
                    },
                );
                p.close(i.span.end);
            }
            DriveEntry::Error(_) => p.cur.push_str("/* error */"),
        });
        self.close(span.end);
    }
}

/// `kw name` or `kw name: type`.
fn typed(kw: &str, n: &Ident, t: &Option<Type>) -> String {
    match t {
        Some(t) => format!("{kw} {}: {}", name(&n.name), expr::ty(t)),
        None => format!("{kw} {}", name(&n.name)),
    }
}

/// A declaration's head, its value if it has one, and the `;`.
fn with_value(head: String, value: Option<&Expr>) -> String {
    match value {
        Some(v) => format!("{head} = {};", expr::expr(v)),
        None => format!("{head};"),
    }
}
