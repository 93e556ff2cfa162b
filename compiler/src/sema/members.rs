//! The first pass over an agent: every member's name and type, which together make the
//! agent's frame (its root blackboard), its devices, personality traits and rate. Code comes
//! in the second pass (`agent.rs`), once every name is known.

use super::error::{Scope, SemaError};
use super::frame::{Frame, FrameVar, VarKind};
use super::index::{Decl, DefId, DefKind, Visibility};
use super::ty::Ty;
use super::wording::article;
use super::{signature, Checker};
use crate::diagnostic::Diagnostic;
use crate::ir::program::{Device, DeviceRole};
use crate::span::Span;
use crate::syntax::ast::{self, Expr, MemberKind};

/// What the first pass learns about an agent.
#[derive(Default)]
pub(super) struct Declared {
    pub frame: Frame,
    pub traits: Vec<(String, f64)>,
    pub rate_hz: Option<f64>,
    rate_span: Option<Span>,
    pub devices: Vec<Device>,
    memory_count: usize,
    /// The agent's definition in the index, and the part of the file its members are
    /// visible in.
    agent: Option<DefId>,
    within: Span,
}

/// A frame entry for a member; `used` is set for members the runtime reads or writes
/// (only a `var` nobody reads is worth a warning).
fn var(name: &ast::Ident, ty: Ty, kind: VarKind, init: f64, range: Option<(f64, f64)>) -> FrameVar {
    FrameVar {
        name: name.name.clone(),
        ty,
        kind,
        init,
        range,
        span: name.span,
        used: kind != VarKind::Var && kind != VarKind::Machine,
        doc: None,
        def: None,
    }
}

/// How the index shows a member: its declaration, doc comment and settings.
fn member_decl(m: &ast::Member, d: &Declared) -> Decl {
    let (sig, fields) = signature::member(&m.kind).unwrap_or_default();
    let mut decl = Decl::new(m.span, sig, Visibility::Within(d.within))
        .doc(m.doc.as_ref().map(|d| d.text()))
        .fields(fields);
    decl.parent = d.agent;
    decl
}

impl Checker {
    /// Adds a member to the agent's frame and the index, unless its name is taken.
    fn member_var(
        &mut self,
        d: &mut Declared,
        name: &ast::Ident,
        mut var: FrameVar,
        kind: DefKind,
        decl: Decl,
    ) -> Option<u32> {
        if let Some(prev) = d.frame.get(&name.name) {
            self.report(SemaError::DeclaredTwice {
                name: name.name.clone(),
                span: name.span,
                first: Some(d.frame.vars[prev as usize].span),
                scope: Scope::Agent,
            });
            return None;
        }
        let decl = decl.ty(var.ty.clone());
        var.def = Some(self.index.define(name, kind, decl));
        Some(d.frame.add(var))
    }

    /// Pass 1 over an agent's members.
    pub(super) fn declare_members(
        &mut self,
        a: &ast::AgentDecl,
        members: &[ast::Member],
    ) -> Declared {
        let mut d = Declared {
            agent: self.index.declared_at(a.name.span),
            within: a.name.span.to(a.body_span.unwrap_or(a.name.span)),
            ..Declared::default()
        };
        self.index.traits.clear();
        for m in members {
            self.declare_member(m, &mut d);
        }
        d
    }

    fn declare_member(&mut self, m: &ast::Member, d: &mut Declared) {
        let decl = member_decl(m, d);
        if let MemberKind::Behaviors(block) = &m.kind {
            if let Some(agent) = d.agent {
                self.index_settings("behaviors", block, agent);
            }
        }
        match &m.kind {
            MemberKind::Var { name, ty, init } => {
                let (t, v, r) = self.var_type_and_init(name, ty.as_ref(), init.as_ref());
                // No initial value: the slot starts unset (traces show `null`), and reading
                // it before something writes it stops the tree with an error.
                let v = if init.is_none() {
                    crate::ir::program::UNSET
                } else {
                    v
                };
                let v = var(name, t, VarKind::Var, v, r);
                self.member_var(d, name, v, DefKind::Var, decl);
            }
            MemberKind::Let { name, ty, .. } => {
                let t = ty
                    .as_ref()
                    .map(|t| self.resolve_type(t))
                    .unwrap_or(Ty::Error);
                let v = var(name, t, VarKind::Let, 0.0, None);
                self.member_var(d, name, v, DefKind::Let, decl);
            }
            MemberKind::Sensor { name, ty, source } => {
                self.declare_sensor(name, ty.as_ref(), source, decl, d)
            }
            MemberKind::Event { name, source } => {
                self.declare_event(name, source.as_ref(), decl, d)
            }
            MemberKind::Actuator { name, ty, source } => {
                self.declare_actuator(name, ty.as_ref(), source, decl, d)
            }
            MemberKind::Hormone { name, .. } => {
                let v = var(name, Ty::Num, VarKind::Hormone, 50.0, Some((0.0, 100.0)));
                self.member_var(d, name, v, DefKind::Hormone, decl);
            }
            MemberKind::Personality(fields) => self.declare_traits(m, fields, d),
            MemberKind::Emotions {
                name, ty, initial, ..
            } => {
                let t = self.resolve_type(ty);
                let init = self.variant_of(&t, initial);
                let v = var(name, t, VarKind::Machine, init, None);
                self.member_var(d, name, v, DefKind::Emotions, decl);
                let key = ast::Ident::new(format!("{}.intensity", name.name), name.span);
                let intensity = var(&key, Ty::Num, VarKind::Intensity, 0.0, Some((0.0, 1.0)));
                d.frame.add(intensity);
            }
            MemberKind::Drive(drive) => self.declare_drive(drive, decl, d),
            MemberKind::Memory { name, .. } => {
                // A memory's `init` is its index among the agent's memories.
                let index = d.memory_count as f64;
                d.memory_count += 1;
                let v = var(name, Ty::Memory, VarKind::Let, index, None);
                self.member_var(d, name, v, DefKind::Memory, decl);
            }
            MemberKind::Rate(e) => self.declare_rate(e, d),
            MemberKind::Component(s) => {
                let v = var(&s.name, Ty::Void, VarKind::Component, 0.0, None);
                self.member_var(d, &s.name, v, DefKind::Component, decl);
            }
            MemberKind::Behavior(b) => {
                let def = self.index.define(&b.name, DefKind::Behavior, decl);
                self.index_settings("behavior", &b.body, def);
            }
            MemberKind::Recruitment(s) => {
                let def = self.index.define(&s.name, DefKind::Recruitment, decl);
                self.index_settings("recruitment", &s.body, def);
            }
            // Checked and compiled in the second pass.
            MemberKind::Behaviors(_)
            | MemberKind::Update(_)
            | MemberKind::On { .. }
            | MemberKind::Tendencies { .. }
            | MemberKind::Main(_)
            | MemberKind::Error => {}
        }
        self.index_member_settings(m);
    }

    /// The settings block of a member (`memory`, `hormone`, `emotions`, `component`).
    fn index_member_settings(&mut self, m: &ast::Member) {
        let block = match &m.kind {
            MemberKind::Component(s) => Some(("component", &s.body, &s.name)),
            MemberKind::Memory { name, body, .. } => Some(("memory", body, name)),
            MemberKind::Hormone {
                name,
                settings: Some(b),
                ..
            } => Some(("hormone", b, name)),
            MemberKind::Emotions { name, body, .. } => Some(("emotions", body, name)),
            _ => None,
        };
        if let Some((kind, block, name)) = block {
            if let Some(def) = self.index.declared_at(name.span) {
                self.index_settings(kind, block, def);
            }
        }
    }

    /// A sensor: its driver call, and its type (declared, or what the driver gives).
    fn declare_sensor(
        &mut self,
        name: &ast::Ident,
        ty: Option<&ast::Type>,
        source: &Expr,
        decl: Decl,
        d: &mut Declared,
    ) {
        let declared = ty.map(|t| (self.resolve_type(t), self.type_range(t)));
        let (dev, gives) = self.device(name, source, DeviceRole::Sensor);
        let range = declared.as_ref().and_then(|(_, r)| *r);
        let t = match declared {
            Some((t, _)) => {
                if let Some(g) = gives.as_ref().filter(|g| !g.fits(&t)) {
                    self.diags.push(
                        Diagnostic::error(
                            "E0301",
                            format!(
                                "`{}` reads {} but is declared {}",
                                name.name,
                                article(&self.g.show(g)),
                                article(&self.g.show(&t))
                            ),
                            source.span,
                        )
                        .with_label("the driver's value"),
                    );
                }
                t
            }
            None => gives.unwrap_or(Ty::Error),
        };
        let v = var(name, t, VarKind::Sensor, 0.0, range);
        if let Some(slot) = self.member_var(d, name, v, DefKind::Sensor, decl) {
            if let Some(mut dev) = dev {
                dev.slot = Some(slot);
                d.devices.push(dev);
            }
        }
    }

    /// An actuator. With a type (`actuator buzzer: num in 0..1 = pwm(..)`) it is also a level
    /// the program writes like a variable; it starts at the device's `safe` value (else 0),
    /// and the runtime drives the device with it after every tick. Without one (a motor
    /// board) the program's leaves drive it.
    fn declare_actuator(
        &mut self,
        name: &ast::Ident,
        ty: Option<&ast::Type>,
        source: &Expr,
        decl: Decl,
        d: &mut Declared,
    ) {
        let declared = ty.map(|t| (self.resolve_type(t), self.type_range(t)));
        let Some(mut dev) = self.device(name, source, DeviceRole::Actuator).0 else {
            self.index.define(name, DefKind::Actuator, decl);
            return;
        };
        match declared {
            Some((t, range)) => {
                let safe = dev
                    .args
                    .iter()
                    .find_map(|(n, v)| match (n.as_str(), v) {
                        ("safe", crate::ir::program::DeviceArg::Num(x)) => Some(*x),
                        _ => None,
                    })
                    .unwrap_or(0.0);
                let mut v = var(name, t, VarKind::Var, safe, range);
                v.used = true;
                dev.slot = self.member_var(d, name, v, DefKind::Actuator, decl);
            }
            None => {
                self.index.define(name, DefKind::Actuator, decl);
            }
        }
        d.devices.push(dev);
    }

    /// An event: a device when it names a driver, else raised by the world or by hand.
    fn declare_event(
        &mut self,
        name: &ast::Ident,
        source: Option<&Expr>,
        decl: Decl,
        d: &mut Declared,
    ) {
        let dev = source.and_then(|s| self.device(name, s, DeviceRole::Event).0);
        let v = var(name, Ty::Event, VarKind::Event, 0.0, None);
        let Some(slot) = self.member_var(d, name, v, DefKind::Event, decl) else {
            return;
        };
        let mut dev = dev.unwrap_or(Device {
            role: DeviceRole::Event,
            name: name.name.clone(),
            slot: None,
            driver: String::new(),
            args: vec![],
            span: name.span,
        });
        dev.slot = Some(slot);
        d.devices.push(dev);
    }

    /// Personality traits: constants of the agent, numbers.
    fn declare_traits(&mut self, m: &ast::Member, fields: &[ast::Field], d: &mut Declared) {
        for f in fields {
            let doc = f.doc.as_ref().or(m.doc.as_ref()).map(|d| d.text());
            let sig = format!("{}: {}", f.key.name, crate::fmt::format_expr(&f.value));
            let mut decl = Decl::new(f.span, sig, Visibility::Within(d.within))
                .doc(doc)
                .ty(Ty::Num);
            decl.parent = d.agent;
            let def = self.index.define(&f.key, DefKind::Trait, decl);
            self.index.traits.insert(f.key.name.clone(), def);
            let Some((v, t)) = self.const_value_hint(&f.value, Some(&Ty::Num)) else {
                continue;
            };
            if !t.fits(&Ty::Num) {
                self.diags.push(
                    Diagnostic::error("E0301", "a personality trait is a number", f.value.span)
                        .with_label(format!("this is {}", article(&self.g.show(&t)))),
                );
            }
            d.traits.push((f.key.name.clone(), v));
        }
    }

    /// A drive and its intention.
    fn declare_drive(&mut self, drive: &ast::DriveDecl, decl: Decl, d: &mut Declared) {
        let t = self.resolve_type(&drive.ty);
        let init = self.variant_of(&t, &drive.initial);
        let v = var(&drive.name, t, VarKind::Drive, init, None);
        self.member_var(d, &drive.name, v, DefKind::Drive, decl);
        if let Some(i) = drive.intention() {
            let it =
                i.ty.as_ref()
                    .map(|t| self.resolve_type(t))
                    .unwrap_or(Ty::Any);
            let v = var(&i.name, it, VarKind::Intention, 0.0, None);
            let mut decl = Decl::new(
                i.span,
                signature::intention(i),
                Visibility::Within(d.within),
            )
            .doc(i.doc.as_ref().map(|d| d.text()));
            decl.parent = d.agent;
            self.member_var(d, &i.name, v, DefKind::Intention, decl);
        }
    }

    /// `rate 10Hz;`: once, a positive rate.
    fn declare_rate(&mut self, e: &Expr, d: &mut Declared) {
        if let Some(first) = d.rate_span {
            self.diags.push(
                Diagnostic::error("E0202", "the rate is set twice", e.span)
                    .with_label("again here")
                    .with_secondary(first, "first set here")
                    .with_help("an agent ticks at one rate: keep one `rate` member"),
            );
        }
        d.rate_span.get_or_insert(e.span);
        d.rate_hz = match self.const_value_hint(e, Some(&Ty::Rate)) {
            Some((v, Ty::Rate)) if v > 0.0 => Some(v),
            Some((_, Ty::Rate)) => {
                self.diags.push(
                    Diagnostic::error("E0302", "the rate must be above 0Hz", e.span)
                        .with_label("not a positive rate"),
                );
                None
            }
            Some((_, t)) => {
                self.diags.push(
                    Diagnostic::error(
                        "E0303",
                        format!(
                            "the rate must be a rate, found {}",
                            article(&self.g.show(&t))
                        ),
                        e.span,
                    )
                    .with_label("not a rate")
                    .with_help("write it in hertz: `rate 10Hz;`"),
                );
                None
            }
            None => None,
        };
    }
}

/// The names a member declares in the agent's frame.
pub(super) fn member_names(k: &MemberKind) -> Vec<String> {
    match k {
        MemberKind::Var { name, .. }
        | MemberKind::Let { name, .. }
        | MemberKind::Sensor { name, .. }
        | MemberKind::Event { name, .. }
        | MemberKind::Actuator { name, .. }
        | MemberKind::Hormone { name, .. }
        | MemberKind::Emotions { name, .. }
        | MemberKind::Memory { name, .. } => vec![name.name.clone()],
        MemberKind::Drive(d) => {
            let mut v = vec![d.name.name.clone()];
            if let Some(i) = d.intention() {
                v.push(i.name.name.clone());
            }
            v
        }
        MemberKind::Component(s) => vec![s.name.name.clone()],
        _ => Vec::new(),
    }
}
