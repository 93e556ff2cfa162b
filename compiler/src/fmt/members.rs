//! Printing agents' members, drives and tendency tables.

use super::expr::{self, name};
use super::Printer;
use crate::span::Span;
use crate::syntax::ast::*;

impl Printer<'_> {
    pub(super) fn member(&mut self, m: &Member) {
        self.doc(&m.doc);
        self.attrs(&m.attrs);
        let typed = |kw: &str, n: &Ident, t: &Option<Type>| {
            let mut s = format!("{kw} {}", name(&n.name));
            if let Some(t) = t {
                s.push_str(&format!(": {}", expr::ty(t)));
            }
            s
        };
        match &m.kind {
            MemberKind::Rate(e) => self.cur.push_str(&format!("rate {};", expr::expr(e))),
            MemberKind::Var { name: n, ty, init } => {
                self.cur.push_str(&typed("var", n, ty));
                if let Some(i) = init {
                    self.cur.push_str(&format!(" = {}", expr::expr(i)));
                }
                self.cur.push(';');
            }
            MemberKind::Let { name: n, ty, value } => {
                self.cur
                    .push_str(&format!("{} = {};", typed("let", n, ty), expr::expr(value)));
            }
            MemberKind::Sensor {
                name: n,
                ty,
                source,
            } => {
                self.cur.push_str(&format!(
                    "{} = {};",
                    typed("sensor", n, ty),
                    expr::expr(source)
                ));
            }
            MemberKind::Event { name: n, source } => {
                self.cur.push_str(&format!("event {}", name(&n.name)));
                if let Some(s) = source {
                    self.cur.push_str(&format!(" = {}", expr::expr(s)));
                }
                self.cur.push(';');
            }
            MemberKind::Actuator {
                name: n,
                ty,
                source,
            } => {
                self.cur.push_str(&format!(
                    "{} = {};",
                    typed("actuator", n, ty),
                    expr::expr(source)
                ));
            }
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

    pub(super) fn tendencies(&mut self, machine: &Ident, arms: &[TendencyArm], span: Span) {
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

    pub(super) fn drive(&mut self, d: &DriveDecl, span: Span) {
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
