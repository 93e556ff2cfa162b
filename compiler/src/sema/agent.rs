//! Checking agents: their members become the agent's frame (its root blackboard), the
//! process phase is compiled in dependency order, and `main` becomes a template over the
//! same frame.

use super::devices::{self, ParamKind};
use super::expr::{article, Cx};
use super::frame::{Frame, FrameVar, VarKind};
use super::tree::{Template, TreeCx};
use super::ty::Ty;
use super::{Checker, Symbol};
use crate::diagnostic::Diagnostic;
use crate::ir::functions::Function;
use crate::ir::program::{
    Code, Device, DeviceArg, DeviceRole, DriveInfo, MachineInfo, MemorySpec, Op,
};
use crate::span::Span;
use crate::syntax::ast::{self, Expr, ExprKind, MemberKind, SettingEntry};

/// A checked agent, ready to lower.
pub struct CheckedAgent {
    pub name: String,
    pub rate_hz: f64,
    pub template: Template,
    pub process: Code,
    pub devices: Vec<Device>,
    pub drives: Vec<DriveInfo>,
    pub memories: Vec<MemorySpec>,
    pub machines: Vec<MachineInfo>,
    pub recruitments: Vec<crate::ir::program::RecruitSpec>,
    pub components: Vec<crate::ir::program::ComponentSpec>,
}

/// Intensity gained per unit of bad progress when a machine gives no `rise`.
const DEFAULT_RISE: f64 = 0.1;
/// Intensity lost per unit of good progress when a machine gives no `fall`.
const DEFAULT_FALL: f64 = 0.1;

impl Checker {
    /// The type, initial value and range of a `var`.
    pub fn var_type_and_init(
        &mut self,
        name: &ast::Ident,
        ty: Option<&ast::Type>,
        init: Option<&Expr>,
    ) -> (Ty, f64, Option<(f64, f64)>) {
        let first_diag = self.diags.len();
        let ann = ty.map(|t| self.resolve_type(t));
        let range = ty.and_then(|t| self.type_range(t));
        let (mut ty_out, mut value) = (ann.clone(), 0.0);
        if let Some(e) = init {
            match (&e.kind, &ann) {
                (ExprKind::Tuple(items), _) => {
                    // A point is stored like a list of its coordinates.
                    let mut values = Vec::new();
                    let mut tys = Vec::new();
                    for it in items {
                        if let Some((v, t)) = self.const_value_hint(it, None) {
                            values.push(v);
                            tys.push(t);
                        }
                    }
                    self.lists.push(values);
                    value = (self.lists.len() - 1) as f64;
                    let tt = Ty::Tuple(tys);
                    match &ann {
                        Some(a) if !tt.fits(a) => self.diags.push(
                            Diagnostic::error(
                                "E0301",
                                format!(
                                    "`{}` is {} but starts as {}",
                                    name.name,
                                    article(&self.g.show(a)),
                                    article(&self.g.show(&tt))
                                ),
                                e.span,
                            )
                            .with_label("wrong type")
                            .with_help("coordinates are lengths: write `(0m, 0m)`"),
                        ),
                        Some(_) => {}
                        None => ty_out = Some(tt),
                    }
                }
                (ExprKind::List(items), _) => {
                    let elem = match &ann {
                        Some(Ty::List(t)) => Some((**t).clone()),
                        _ => None,
                    };
                    let mut values = Vec::new();
                    let mut elem_ty = elem.clone();
                    let mut mixed = false;
                    for it in items {
                        if let Some((v, t)) = self.const_value_hint(it, elem.as_ref()) {
                            values.push(v);
                            match &elem_ty {
                                Some(et) if !t.fits(et) && !mixed => {
                                    mixed = true;
                                    let d = Diagnostic::error(
                                        super::expr::mismatch_code(&t, et),
                                        format!(
                                            "the elements of `{}` are {}, found {}",
                                            name.name,
                                            article(&self.g.show(et)),
                                            article(&self.g.show(&t))
                                        ),
                                        it.span,
                                    )
                                    .with_label("wrong type")
                                    .with_help("a list holds values of one type");
                                    self.diags.push(d);
                                }
                                Some(_) => {}
                                None => elem_ty = Some(t),
                            }
                        }
                    }
                    self.lists.push(values);
                    value = (self.lists.len() - 1) as f64;
                    let lt = Ty::List(Box::new(elem_ty.unwrap_or(Ty::Any)));
                    if let Some(a) = &ann {
                        if !lt.fits(a) {
                            self.diags.push(
                                Diagnostic::error(
                                    "E0301",
                                    format!(
                                        "`{}` is {} but starts as {}",
                                        name.name,
                                        article(&self.g.show(a)),
                                        article(&self.g.show(&lt))
                                    ),
                                    e.span,
                                )
                                .with_label("wrong type"),
                            );
                        }
                    } else {
                        ty_out = Some(lt);
                    }
                }
                _ => {
                    if let Some((v, t)) = self.const_value_hint(e, ann.as_ref()) {
                        value = v;
                        match &ann {
                            Some(a) if !t.fits(a) => {
                                self.diags.push(
                                    Diagnostic::error(
                                        "E0301",
                                        format!(
                                            "`{}` is {} but starts as {}",
                                            name.name,
                                            article(&self.g.show(a)),
                                            article(&self.g.show(&t))
                                        ),
                                        e.span,
                                    )
                                    .with_label("wrong type"),
                                );
                            }
                            Some(_) => {}
                            None => ty_out = Some(t),
                        }
                        if let Some((lo, hi)) = range {
                            if v < lo || v > hi {
                                self.diags.push(
                                    Diagnostic::error(
                                        "E0302",
                                        format!(
                                            "`{}` starts at {v}, outside its range {lo}..{hi}",
                                            name.name
                                        ),
                                        e.span,
                                    )
                                    .with_label("out of range"),
                                );
                            }
                        }
                    }
                }
            }
        } else if matches!(ann, Some(Ty::List(_))) {
            self.lists.push(Vec::new());
            value = (self.lists.len() - 1) as f64;
        }
        let ty_out = match ty_out {
            Some(t) => t,
            None => {
                if init.is_none() {
                    self.diags.push(
                        Diagnostic::error(
                            "E0301",
                            format!("`{}` needs a type or an initial value", name.name),
                            name.span,
                        )
                        .with_label("its type is unknown")
                        .with_help(format!("write `var {}: num = 0;`", name.name)),
                    );
                }
                Ty::Error
            }
        };
        // An initial value naming another variable is not unknown: it is not a constant.
        for d in &mut self.diags[first_diag..] {
            let Some(n) = d
                .message
                .strip_prefix("unknown name `")
                .and_then(|m| m.strip_suffix('`'))
            else {
                continue;
            };
            if d.code == "E0201" && self.runtime_names.iter().any(|r| r == n) {
                let n = n.to_string();
                *d = Diagnostic::error("E0304", format!("`{n}` is not a constant"), d.primary.span)
                    .with_label("a variable: its value is known only while the program runs")
                    .with_help(format!(
                        "an initial value is computed before the first tick: use literals, constants and enum variants here, and set `{}` from `{n}` in a block (`update {{ }}`, `do {{ }}`)",
                        name.name
                    ));
            }
        }
        (ty_out, value, range)
    }

    /// Constant folding with an expected type (so `Explore` resolves against the right enum).
    pub fn const_value_hint(&mut self, e: &Expr, hint: Option<&Ty>) -> Option<(f64, Ty)> {
        let mut frame = Frame::default();
        let mut code = Vec::new();
        let mut pending = Vec::new();
        let before = self.diags.len();
        let ty = {
            let mut cx = Cx {
                g: &self.g,
                frame: &mut frame,
                code: &mut code,
                diags: &mut self.diags,
                strings: &mut self.strings,
                lists: &mut self.lists,
                traits: &[],
                pending: &mut pending,
            };
            cx.expr(e, hint)
        };
        if self.diags.len() > before {
            return None;
        }
        match crate::ir::eval::eval_const(&code) {
            Some(v) => Some((v, ty)),
            None => {
                self.diags.push(
                    Diagnostic::error(
                        "E0304",
                        match &e.kind {
                            ExprKind::Root(id) => format!("`@{}` is not a constant", id.name),
                            _ => "this must be a constant".to_string(),
                        },
                        e.span,
                    )
                    .with_label("not computable before the program runs")
                    .with_help("use literals, constants and enum variants here"),
                );
                None
            }
        }
    }

    fn member_var(
        &mut self,
        frame: &mut Frame,
        name: &ast::Ident,
        var: FrameVar,
        doc: &Option<ast::Doc>,
    ) -> Option<u32> {
        if let Some(prev) = frame.get(&name.name) {
            let prev_span = frame.vars[prev as usize].span;
            self.diags.push(
                Diagnostic::error(
                    "E0202",
                    format!("`{}` is declared twice in this agent", name.name),
                    name.span,
                )
                .with_label("again here")
                .with_secondary(prev_span, "first here"),
            );
            return None;
        }
        self.symbols.push(Symbol {
            name: name.name.clone(),
            kind: var.kind.describe(),
            detail: format!(
                "{} {}: {}",
                var.kind.describe(),
                name.name,
                self.g.show(&var.ty)
            ),
            doc: doc.as_ref().map(|d| d.text()),
            span: name.span,
        });
        Some(frame.add(var))
    }

    pub fn check_agent(&mut self, a: &ast::AgentDecl, members: &[ast::Member]) -> CheckedAgent {
        let mut frame = Frame::default();
        // Every member's name, for initial values that name one (`var b = a;`).
        self.runtime_names = members.iter().flat_map(|m| member_names(&m.kind)).collect();
        let mut traits: Vec<(String, f64)> = Vec::new();
        let mut rate_hz = None;
        let mut rate_span: Option<Span> = None;
        let pending: Vec<(String, Span)> = Vec::new();
        let mut devices_out = Vec::new();
        let mut memory_count = 0usize;
        let var =
            |name: &ast::Ident, ty: Ty, kind: VarKind, init: f64, range: Option<(f64, f64)>| {
                FrameVar {
                    name: name.name.clone(),
                    ty,
                    kind,
                    init,
                    range,
                    span: name.span,
                    used: false,
                    doc: None,
                }
            };
        // Pass 1: every member's name and type.
        for m in members {
            match &m.kind {
                MemberKind::Var { name, ty, init } => {
                    let (t, v, r) = self.var_type_and_init(name, ty.as_ref(), init.as_ref());
                    self.member_var(&mut frame, name, var(name, t, VarKind::Var, v, r), &m.doc);
                }
                MemberKind::Let { name, ty, .. } => {
                    let t = ty
                        .as_ref()
                        .map(|t| self.resolve_type(t))
                        .unwrap_or(Ty::Error);
                    self.member_var(
                        &mut frame,
                        name,
                        FrameVar {
                            used: true,
                            ..var(name, t, VarKind::Let, 0.0, None)
                        },
                        &m.doc,
                    );
                }
                MemberKind::Sensor { name, ty, source } => {
                    let declared = ty
                        .as_ref()
                        .map(|t| (self.resolve_type(t), self.type_range(t)));
                    let (dev, gives) = self.device(name, source, DeviceRole::Sensor);
                    let range = declared.as_ref().and_then(|(_, r)| *r);
                    let t = match declared {
                        Some((t, _)) => {
                            if let Some(g) = &gives {
                                if !g.fits(&t) {
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
                            }
                            t
                        }
                        None => gives.unwrap_or(Ty::Error),
                    };
                    if let Some(slot) = self.member_var(
                        &mut frame,
                        name,
                        FrameVar {
                            used: true,
                            ..var(name, t, VarKind::Sensor, 0.0, range)
                        },
                        &m.doc,
                    ) {
                        if let Some(mut d) = dev {
                            d.slot = Some(slot);
                            devices_out.push(d);
                        }
                    }
                }
                MemberKind::Event { name, source } => {
                    let dev = source
                        .as_ref()
                        .and_then(|s| self.device(name, s, DeviceRole::Event).0);
                    if let Some(slot) = self.member_var(
                        &mut frame,
                        name,
                        FrameVar {
                            used: true,
                            ..var(name, Ty::Event, VarKind::Event, 0.0, None)
                        },
                        &m.doc,
                    ) {
                        devices_out.push(
                            dev.map(|mut d| {
                                d.slot = Some(slot);
                                d
                            })
                            .unwrap_or(Device {
                                role: DeviceRole::Event,
                                name: name.name.clone(),
                                slot: Some(slot),
                                driver: String::new(),
                                args: vec![],
                            }),
                        );
                    }
                }
                MemberKind::Actuator { name, ty, source } => {
                    if let Some(t) = ty {
                        self.resolve_type(t);
                    }
                    let dev = self.device(name, source, DeviceRole::Actuator).0;
                    if let Some(d) = dev {
                        devices_out.push(d);
                    }
                }
                MemberKind::Hormone { name, .. } => {
                    self.member_var(
                        &mut frame,
                        name,
                        FrameVar {
                            used: true,
                            ..var(name, Ty::Num, VarKind::Hormone, 50.0, Some((0.0, 100.0)))
                        },
                        &m.doc,
                    );
                }
                MemberKind::Personality(fields) => {
                    for f in fields {
                        if let Some((v, t)) = self.const_value_hint(&f.value, Some(&Ty::Num)) {
                            if !t.fits(&Ty::Num) {
                                self.diags.push(
                                    Diagnostic::error(
                                        "E0301",
                                        "a personality trait is a number",
                                        f.value.span,
                                    )
                                    .with_label(format!("this is {}", article(&self.g.show(&t)))),
                                );
                            }
                            traits.push((f.key.name.clone(), v));
                        }
                    }
                }
                MemberKind::Emotions {
                    name, ty, initial, ..
                } => {
                    let t = self.resolve_type(ty);
                    let init = self.variant_of(&t, initial);
                    self.member_var(
                        &mut frame,
                        name,
                        var(name, t, VarKind::Machine, init, None),
                        &m.doc,
                    );
                    let key = ast::Ident::new(format!("{}.intensity", name.name), name.span);
                    frame.add(FrameVar {
                        used: true,
                        ..var(&key, Ty::Num, VarKind::Intensity, 0.0, Some((0.0, 1.0)))
                    });
                }
                MemberKind::Drive(d) => {
                    let t = self.resolve_type(&d.ty);
                    let init = self.variant_of(&t, &d.initial);
                    self.member_var(
                        &mut frame,
                        &d.name,
                        FrameVar {
                            used: true,
                            ..var(&d.name, t, VarKind::Drive, init, None)
                        },
                        &m.doc,
                    );
                    if let Some(i) = d.intention() {
                        let it =
                            i.ty.as_ref()
                                .map(|t| self.resolve_type(t))
                                .unwrap_or(Ty::Any);
                        self.member_var(
                            &mut frame,
                            &i.name,
                            FrameVar {
                                used: true,
                                ..var(&i.name, it, VarKind::Intention, 0.0, None)
                            },
                            &i.doc,
                        );
                    }
                }
                MemberKind::Memory { name, .. } => {
                    // A memory's `init` is its index among the agent's memories.
                    let index = memory_count as f64;
                    memory_count += 1;
                    self.member_var(
                        &mut frame,
                        name,
                        FrameVar {
                            used: true,
                            ..var(name, Ty::Memory, VarKind::Let, index, None)
                        },
                        &m.doc,
                    );
                }
                MemberKind::Rate(e) => {
                    if let Some(first) = rate_span {
                        self.diags.push(
                            Diagnostic::error("E0202", "the rate is set twice", e.span)
                                .with_label("again here")
                                .with_secondary(first, "first set here")
                                .with_help("an agent ticks at one rate: keep one `rate` member"),
                        );
                    }
                    rate_span.get_or_insert(e.span);
                    rate_hz = match self.const_value_hint(e, Some(&Ty::Rate)) {
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
                MemberKind::Component(s) => {
                    self.member_var(
                        &mut frame,
                        &s.name,
                        FrameVar {
                            used: true,
                            ..var(&s.name, Ty::Void, VarKind::Component, 0.0, None)
                        },
                        &m.doc,
                    );
                }
                // Checked and compiled after the process phase (`behavior`).
                MemberKind::Behavior(_) | MemberKind::Behaviors(_) => {}
                MemberKind::Recruitment(_) => {}
                MemberKind::Update(_)
                | MemberKind::On { .. }
                | MemberKind::Tendencies { .. }
                | MemberKind::Main(_)
                | MemberKind::Error => {}
            }
        }

        let mut t = Template {
            frame,
            ..Template::default()
        };
        t.pending = pending;
        let start = t.code.len() as u32;
        let mut drives = Vec::new();
        let mut memories = Vec::new();
        let mut machines = Vec::new();
        let dt_ms = 1000.0 / rate_hz.unwrap_or(10.0);
        // Pass 2, the process phase: hormones and lets in dependency order, then update, on
        // handlers, emotion machines and drives.
        self.derived_values(members, &mut t, &traits, dt_ms);
        for m in members {
            if let MemberKind::Update(b) = &m.kind {
                let mut tc = TreeCx {
                    c: self,
                    t: &mut t,
                    traits: &traits,
                    in_agent: true,
                };
                let code = tc.code_block(b);
                let _ = code;
            }
        }
        for m in members {
            if let MemberKind::On { event, body } = &m.kind {
                self.handler(event, body, &mut t, &traits);
            }
        }
        for m in members {
            match &m.kind {
                MemberKind::Emotions { name, body, .. } => {
                    machines.extend(self.machine(name, body, &mut t, &traits));
                }
                MemberKind::Tendencies { machine, arms } => {
                    self.tendencies(machine, arms, &mut t, &traits, m.span)
                }
                MemberKind::Memory { name, key, body } => {
                    let spec = self.memory(&name.name, key.as_ref(), body, &mut t, &traits);
                    memories.push(spec);
                }
                _ => {}
            }
        }
        for m in members {
            match &m.kind {
                MemberKind::Behavior(b) => self.mark_setting_names(&b.body, &mut t),
                MemberKind::Behaviors(s) => self.mark_setting_names(s, &mut t),
                MemberKind::Recruitment(s) | MemberKind::Component(s) => {
                    self.mark_setting_names(&s.body, &mut t)
                }
                _ => {}
            }
        }
        self.check_agent_settings(members, &mut t, &traits);
        for m in members {
            if let MemberKind::Drive(d) = &m.kind {
                if let Some(info) = self.drive(d, &mut t, &traits) {
                    drives.push(info);
                }
            }
        }
        let process = Code {
            start,
            len: t.code.len() as u32 - start,
        };
        // The behaviour arbiter's code follows the process phase's.
        self.agent_behaviors(members, &mut t, &traits);
        // Seed 002's and seed 001's blocks (`recruit.rs`, `component.rs`): any code they
        // need goes after the process phase, which must not run it.
        let recruitments = self.recruitments(members, &mut t, &traits);
        let components = self.member_components(members, &mut t, &traits);

        // The tree ticked every tick.
        let mains: Vec<&ast::NodeBlock> = members
            .iter()
            .filter_map(|m| match &m.kind {
                MemberKind::Main(b) => Some(b),
                _ => None,
            })
            .collect();
        if mains.len() > 1 {
            self.diags.push(
                Diagnostic::error(
                    "E0202",
                    format!("agent `{}` has more than one `main`", a.name.name),
                    mains[1].span,
                )
                .with_label("second `main`"),
            );
        }
        if let Some(b) = mains.first() {
            t.root = self.one_root(
                b,
                &mut t,
                &traits,
                &format!("the `main` of agent `{}`", a.name.name),
            );
        }
        for v in &t.frame.vars {
            // `@name` in a tree (or here) reads or writes the agent's variable.
            let rooted = self.root_keys.contains(&v.name)
                || t.frame.root_refs.iter().any(|(n, _)| *n == v.name);
            if v.kind == VarKind::Var && !v.used && !rooted {
                self.diags.push(
                    Diagnostic::warning("W0201", format!("`{}` is never used", v.name), v.span)
                        .with_label("declared here")
                        .with_help("remove it, or use it in the tree or a block"),
                );
            }
        }
        CheckedAgent {
            name: a.name.name.clone(),
            rate_hz: rate_hz.unwrap_or(10.0),
            template: t,
            process,
            devices: devices_out,
            drives,
            memories,
            machines,
            recruitments,
            components,
        }
    }

    /// Marks the names a configuration block mentions as used (its semantics are the
    /// runtime's; the names must still not be reported as unused).
    fn mark_setting_names(&mut self, block: &ast::SettingBlock, t: &mut Template) {
        struct Mark<'a> {
            c: &'a mut Checker,
            frame: &'a mut Frame,
        }
        impl crate::syntax::visit::Visitor for Mark<'_> {
            fn visit_expr(&mut self, e: &Expr) {
                if let ExprKind::Name(p) = &e.kind {
                    let n = p.to_string_path();
                    if let Some(i) = self.frame.get(&n) {
                        self.frame.vars[i as usize].used = true;
                    } else if self.c.g.names.contains_key(&n) {
                        self.c.used_globals.insert(n);
                    }
                }
                crate::syntax::visit::walk_expr(self, e);
            }
        }
        let mut v = Mark {
            c: self,
            frame: &mut t.frame,
        };
        crate::syntax::visit::Visitor::visit_settings(&mut v, "behavior", block);
    }

    /// Checks a block meant to hold one root node.
    pub fn one_root(
        &mut self,
        b: &ast::NodeBlock,
        t: &mut Template,
        traits: &[(String, f64)],
        what: &str,
    ) -> Option<super::tree::TNode> {
        let mut tc = TreeCx {
            c: self,
            t,
            traits,
            in_agent: true,
        };
        let mut nodes: Vec<_> = b.nodes.iter().map(|n| tc.node(n)).collect();
        match nodes.len() {
            1 => nodes.pop(),
            0 => {
                self.diags.push(
                    Diagnostic::error("E0313", format!("{what} is empty"), b.span)
                        .with_label("no node to tick")
                        .with_help("put one node here, such as `sequence { .. }`"),
                );
                None
            }
            n => {
                self.diags.push(
                    Diagnostic::error(
                        "E0313",
                        format!("{what} holds {n} nodes; a tree has one root"),
                        b.span,
                    )
                    .with_label("several roots")
                    .with_help("wrap them in `sequence { .. }` (or another control node)"),
                );
                nodes.truncate(1);
                nodes.pop()
            }
        }
    }

    fn variant_of(&mut self, ty: &Ty, id: &ast::Ident) -> f64 {
        match ty {
            Ty::Enum(ei) => {
                let e = &self.g.enums[*ei as usize];
                match e.variants.iter().position(|v| *v == id.name) {
                    Some(i) => i as f64,
                    None => {
                        let (en, vs) = (e.name.clone(), e.variants.join(", "));
                        let best = crate::suggest::closest(
                            &id.name,
                            e.variants.iter().map(String::as_str),
                        )
                        .map(str::to_string);
                        let mut d = Diagnostic::error(
                            "E0201",
                            format!("`{}` is not a variant of `{en}`", id.name),
                            id.span,
                        )
                        .with_label(format!("the variants are {vs}"));
                        d = match best {
                            Some(b) => d.with_help(format!("did you mean `{b}`?")),
                            None => d.with_help(format!(
                                "add it to the enum: `enum {en} {{ {vs}, {} }}`",
                                id.name
                            )),
                        };
                        self.diags.push(d);
                        0.0
                    }
                }
            }
            Ty::Error => 0.0,
            other => {
                self.diags.push(
                    Diagnostic::error(
                        "E0301",
                        format!(
                            "states must be an enum, not {}",
                            article(&self.g.show(other))
                        ),
                        id.span,
                    )
                    .with_label("not an enum"),
                );
                0.0
            }
        }
    }

    /// Checks a device constructor call.
    fn device(
        &mut self,
        member: &ast::Ident,
        source: &Expr,
        role: DeviceRole,
    ) -> (Option<Device>, Option<Ty>) {
        let ExprKind::Call(f, args) = &source.kind else {
            self.diags.push(
                Diagnostic::error("E0317", "a device is created by a driver call", source.span)
                    .with_label("not a driver call")
                    .with_help("for example `ads1115(bus: 1, address: 0x48, channel: 0)`"),
            );
            return (None, None);
        };
        let ExprKind::Name(p) = &f.kind else {
            return (None, None);
        };
        let name = p.to_string_path();
        let Some(spec) = devices::lookup(&name) else {
            let known: Vec<&str> = devices::DRIVERS
                .iter()
                .filter(|d| d.role == role)
                .map(|d| d.name)
                .collect();
            let mut d =
                Diagnostic::error("E0317", format!("unknown device driver `{name}`"), p.span)
                    .with_label("no such driver")
                    .with_note(format!(
                        "drivers for this kind of member: {}",
                        known.join(", ")
                    ));
            if let Some(b) = crate::suggest::closest(&name, known.iter().copied()) {
                d = d.with_help(format!("did you mean `{b}`?"));
            }
            self.diags.push(d);
            return (None, None);
        };
        if spec.role != role {
            let what = |r: DeviceRole| match r {
                DeviceRole::Sensor => "sensor",
                DeviceRole::Event => "event",
                DeviceRole::Actuator => "actuator",
            };
            self.diags.push(
                Diagnostic::error(
                    "E0317",
                    format!(
                        "`{name}` is {} driver, not {} one",
                        article_word(what(spec.role)),
                        article_word(what(role))
                    ),
                    p.span,
                )
                .with_label("wrong kind of device")
                .with_help(format!(
                    "declare `{}` with `{}`",
                    member.name,
                    what(spec.role)
                )),
            );
        }
        let mut out: Vec<(String, DeviceArg)> = Vec::new();
        let mut unknown_arg = false;
        // Argument names given, even with a wrong value (so they are not also "missing").
        let mut given: Vec<String> = Vec::new();
        for (i, a) in args.args.iter().enumerate() {
            let pname = a
                .name
                .as_ref()
                .map(|n| n.name.clone())
                .or_else(|| spec.params.get(i).map(|p| p.0.to_string()));
            let Some(pname) = pname else {
                self.diags.push(
                    Diagnostic::error(
                        "E0310",
                        match spec.params.len() {
                            0 => format!("`{name}` takes no arguments"),
                            1 => format!("`{name}` takes 1 argument"),
                            n => format!("`{name}` takes {n} arguments"),
                        },
                        a.span,
                    )
                    .with_label("extra argument"),
                );
                continue;
            };
            if given.contains(&pname) {
                self.diags.push(
                    Diagnostic::error("E0309", format!("`{pname}` is given twice"), a.span)
                        .with_label("again here"),
                );
                continue;
            }
            given.push(pname.clone());
            let Some((_, kind, _)) = spec.params.iter().find(|p| p.0 == pname) else {
                let names: Vec<&str> = spec.params.iter().map(|p| p.0).collect();
                let best = crate::suggest::closest(&pname, names.iter().copied());
                self.diags.push(
                    Diagnostic::error(
                        "E0305",
                        format!("`{name}` has no argument `{pname}`"),
                        a.name.as_ref().map_or(a.span, |n| n.span),
                    )
                    .with_label("unknown argument")
                    .with_help(match best {
                        Some(b) => format!("did you mean `{b}`?"),
                        None if names.is_empty() => format!("`{name}` takes no arguments"),
                        None => format!("its arguments are `{}`", names.join("`, `")),
                    }),
                );
                unknown_arg = true;
                continue;
            };
            let value = match (kind, &a.value.kind) {
                (ParamKind::Word(words), ExprKind::Name(p)) if p.segments.len() == 1 => {
                    let w = &p.segments[0].name;
                    if !words.contains(&w.as_str()) {
                        let mut d = Diagnostic::error(
                            "E0301",
                            format!("`{pname}` is one of `{}`", words.join("`, `")),
                            a.value.span,
                        )
                        .with_label("not one of them");
                        if let Some(b) = crate::suggest::closest(w, words.iter().copied()) {
                            d = d.with_help(format!("did you mean `{b}`?"));
                        }
                        self.diags.push(d);
                    }
                    DeviceArg::Name(w.clone())
                }
                (ParamKind::Name, ExprKind::Name(p)) => DeviceArg::Name(p.to_string_path()),
                (ParamKind::Str, ExprKind::Str(s)) => DeviceArg::Str(s.clone()),
                (ParamKind::Num, _) => match self.const_value_hint(&a.value, Some(&Ty::Num)) {
                    // A number, with or without a unit (`frequency: 2kHz`).
                    Some((v, t)) if t.is_quantity() => DeviceArg::Num(v),
                    Some((_, t)) => {
                        self.diags.push(
                            Diagnostic::error(
                                "E0301",
                                format!(
                                    "`{pname}` of `{name}` is a number, found {}",
                                    article(&self.g.show(&t))
                                ),
                                a.value.span,
                            )
                            .with_label("not a number"),
                        );
                        continue;
                    }
                    None => continue,
                },
                _ => {
                    let want = match kind {
                        ParamKind::Str => "a string in quotes".to_string(),
                        ParamKind::Word(words) => format!("one of `{}`", words.join("`, `")),
                        ParamKind::Name => "the name of an agent or component".to_string(),
                        ParamKind::Num => "a number".to_string(),
                    };
                    self.diags.push(
                        Diagnostic::error(
                            "E0301",
                            format!("`{pname}` of `{name}` is {want}"),
                            a.value.span,
                        )
                        .with_label("wrong kind of value"),
                    );
                    continue;
                }
            };
            out.push((pname, value));
        }
        // Missing arguments, in one report; an unknown argument was probably meant to be one
        // of them, so it is reported alone.
        let missing: Vec<&str> = spec
            .params
            .iter()
            .filter(|(pname, _, required)| *required && !given.iter().any(|n| n == pname))
            .map(|(pname, _, _)| *pname)
            .collect();
        if !missing.is_empty() && !unknown_arg {
            let (what, list) = match missing.as_slice() {
                [one] => ("argument", format!("`{one}`")),
                [rest @ .., last] => ("arguments", format!("`{}` and `{last}`", rest.join("`, `"))),
                [] => unreachable!("not empty"),
            };
            let example: Vec<String> = spec
                .params
                .iter()
                .filter(|(_, _, required)| *required)
                .map(|(p, k, _)| match k {
                    ParamKind::Num => format!("{p}: 1"),
                    ParamKind::Str => format!("{p}: \"..\""),
                    ParamKind::Word(w) => format!("{p}: {}", w[0]),
                    ParamKind::Name => format!("{p}: name"),
                })
                .collect();
            self.diags.push(
                Diagnostic::error(
                    "E0306",
                    format!("`{name}` needs its {list} {what}"),
                    args.span,
                )
                .with_label("missing")
                .with_help(format!("for example `{name}({})`", example.join(", "))),
            );
        }
        let gives = match spec.gives {
            "num" => Some(Ty::Num),
            "bool" => Some(Ty::Bool),
            "str" => Some(Ty::Str),
            "angle" => Some(Ty::Angle),
            "length" => Some(Ty::Length),
            "Point" => Some(Ty::Tuple(vec![Ty::Length, Ty::Length])),
            _ => None,
        };
        (
            Some(Device {
                role,
                name: member.name.clone(),
                slot: None,
                driver: name,
                args: out,
            }),
            gives,
        )
    }

    /// Hormones and `let`s, in the order their dependencies need.
    fn derived_values(
        &mut self,
        members: &[ast::Member],
        t: &mut Template,
        traits: &[(String, f64)],
        dt_ms: f64,
    ) {
        let derived: Vec<(&ast::Ident, &ast::Member)> = members
            .iter()
            .filter_map(|m| match &m.kind {
                MemberKind::Let { name, .. } | MemberKind::Hormone { name, .. } => Some((name, m)),
                _ => None,
            })
            .collect();
        // The first value of each name (a duplicate is reported elsewhere).
        let mut index: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for (i, (n, _)) in derived.iter().enumerate() {
            index.entry(n.name.as_str()).or_insert(i);
        }
        let deps: Vec<Vec<usize>> = derived
            .iter()
            .map(|(_, m)| {
                let mut found = Vec::new();
                let e = match &m.kind {
                    MemberKind::Let { value, .. } | MemberKind::Hormone { value, .. } => value,
                    _ => unreachable!("filtered above"),
                };
                names_in(e, &mut found);
                found
                    .iter()
                    .filter_map(|n| index.get(n.as_str()).copied())
                    .collect()
            })
            .collect();
        // Depth-first topological order; a cycle is reported once, with its members.
        let mut cycle: Option<Vec<usize>> = None;
        let order = crate::graph::depth_first(
            &deps,
            |&d| d,
            |_, members| {
                cycle.get_or_insert_with(|| members.to_vec());
            },
        );
        if let Some(members) = cycle {
            let first = derived[members[0]].0;
            let message = match members.as_slice() {
                [_] => format!("`{}` depends on itself", first.name),
                [_, second] => format!(
                    "`{}` and `{}` depend on each other",
                    first.name, derived[*second].0.name
                ),
                _ => format!("`{}` depends on itself through other values", first.name),
            };
            let chain: Vec<&str> = members
                .iter()
                .chain(std::iter::once(&members[0]))
                .map(|&i| derived[i].0.name.as_str())
                .collect();
            let mut d = Diagnostic::error("E0210", message, first.span)
                .with_label("part of a cycle of derived values")
                .with_help("a `let` or hormone is computed from others each tick; break the cycle with a `var` updated in `update { }`");
            for &i in &members[1..] {
                d = d.with_secondary(derived[i].0.span, "also in the cycle");
            }
            if members.len() > 1 {
                d = d.with_note(format!("the cycle: {}", chain.join(" -> ")));
            }
            self.diags.push(d);
            // The values are not computed, but the names they read are used.
            for (_, m) in &derived {
                if let MemberKind::Let { value, .. } | MemberKind::Hormone { value, .. } = &m.kind {
                    let mut names = Vec::new();
                    names_in(value, &mut names);
                    for n in names {
                        if let Some(i) = t.frame.get(&n) {
                            t.frame.vars[i as usize].used = true;
                        }
                    }
                }
            }
            return;
        }
        for i in order {
            let (name, m) = derived[i];
            let slot = t.frame.get(&name.name).expect("declared in pass 1");
            match &m.kind {
                MemberKind::Let { value, ty, .. } => {
                    let want = t.frame.vars[slot as usize].ty.clone();
                    let mut tc = TreeCx {
                        c: self,
                        t,
                        traits,
                        in_agent: true,
                    };
                    let got = if ty.is_some() {
                        tc.code_expr(value, &want, &format!("`{}`", name.name)).1
                    } else {
                        let start = tc.t.code.len();
                        let g = tc.cx_expr(value);
                        let _ = start;
                        g
                    };
                    if ty.is_none() {
                        t.frame.vars[slot as usize].ty = got;
                    }
                    t.code.push(Op::Store(slot));
                }
                MemberKind::Hormone {
                    value, settings, ..
                } => {
                    let (baseline, half_life) = self.hormone_settings(settings.as_ref());
                    t.frame.vars[slot as usize].init = baseline;
                    let mut tc = TreeCx {
                        c: self,
                        t,
                        traits,
                        in_agent: true,
                    };
                    // Secretion is fast, recovery slow: a stimulus further from the baseline
                    // than the level (on its side) sets the level at once; otherwise the level
                    // relaxes toward the stimulus, by k per tick from the half-life. With a
                    // neutral stimulus that is decay toward the baseline.
                    match half_life {
                        Some(hl) if hl > 0.0 => {
                            let k = 1.0 - 0.5f64.powf(dt_ms / hl);
                            let stimulus = tc.t.frame.add(FrameVar {
                                name: format!("{}.stimulus", tc.t.frame.vars[slot as usize].name),
                                ty: Ty::Num,
                                kind: VarKind::Temp,
                                init: baseline,
                                range: None,
                                span: tc.t.frame.vars[slot as usize].span,
                                used: true,
                                doc: None,
                            });
                            tc.code_expr(value, &Ty::Num, "a hormone's stimulus");
                            let b = baseline;
                            tc.t.code.extend([
                                Op::Store(stimulus),
                                // same side: (s - b) * (level - b) >= 0
                                Op::Load(stimulus),
                                Op::Const(b),
                                Op::Sub,
                                Op::Load(slot),
                                Op::Const(b),
                                Op::Sub,
                                Op::Mul,
                                Op::Const(0.0),
                                Op::Ge,
                                // further out: |s - b| >= |level - b|
                                Op::Load(stimulus),
                                Op::Const(b),
                                Op::Sub,
                                Op::Call(Function::Abs, 1),
                                Op::Load(slot),
                                Op::Const(b),
                                Op::Sub,
                                Op::Call(Function::Abs, 1),
                                Op::Ge,
                                Op::BitAnd,
                                Op::JumpIfFalse(2),
                                Op::Load(stimulus),
                                Op::Jump(7),
                                Op::Load(slot),
                                Op::Load(stimulus),
                                Op::Load(slot),
                                Op::Sub,
                                Op::Const(k),
                                Op::Mul,
                                Op::Add,
                            ]);
                        }
                        _ => {
                            tc.code_expr(value, &Ty::Num, "a hormone's stimulus");
                        }
                    }
                    t.code.push(Op::StoreClamped(slot, 0.0, 100.0));
                }
                _ => {}
            }
        }
    }

    fn hormone_settings(&mut self, settings: Option<&ast::SettingBlock>) -> (f64, Option<f64>) {
        let (mut baseline, mut half_life) = (50.0, None);
        let Some(block) = settings else {
            return (baseline, half_life);
        };
        for e in &block.entries {
            let SettingEntry::Setting(s) = e else {
                continue;
            };
            let Some(arg) = s.args.first() else { continue };
            match s.key.name.as_str() {
                "baseline" => {
                    if let Some((v, t)) = self.const_value_hint(arg, Some(&Ty::Num)) {
                        if !t.fits(&Ty::Num) || !(0.0..=100.0).contains(&v) {
                            self.diags.push(
                                Diagnostic::error(
                                    "E0302",
                                    "a hormone's baseline is a level in 0..100",
                                    arg.span,
                                )
                                .with_label("not in 0..100"),
                            );
                        }
                        baseline = v;
                    }
                }
                "half_life" => {
                    if let Some((v, t)) = self.const_value_hint(arg, Some(&Ty::Duration)) {
                        if t != Ty::Duration {
                            self.diags.push(
                                Diagnostic::error(
                                    "E0303",
                                    format!(
                                        "a half-life is a duration, found {}",
                                        article(&self.g.show(&t))
                                    ),
                                    arg.span,
                                )
                                .with_label("not a duration")
                                .with_help("write it with a unit: `30s`"),
                            );
                        } else {
                            half_life = Some(v);
                        }
                    }
                }
                _ => {}
            }
        }
        (baseline, half_life)
    }

    fn handler(
        &mut self,
        event: &Expr,
        body: &ast::Block,
        t: &mut Template,
        traits: &[(String, f64)],
    ) {
        let slot = match &event.kind {
            ExprKind::Name(p) if p.segments.len() == 1 => match t.frame.get(&p.segments[0].name) {
                Some(i) if t.frame.vars[i as usize].kind == VarKind::Event => Some(i),
                Some(i) => {
                    t.frame.vars[i as usize].used = true;
                    let v = &t.frame.vars[i as usize];
                    let (n, kind, span) = (v.name.clone(), v.kind.describe(), v.span);
                    self.diags.push(
                        Diagnostic::error(
                            "E0301",
                            format!("`on` needs an event, and `{n}` is a {kind}"),
                            event.span,
                        )
                        .with_label("not an event")
                        .with_secondary(span, "declared here")
                        .with_help(format!("declare it with `event {n} = ..;`")),
                    );
                    None
                }
                None => {
                    let mut tc = TreeCx {
                        c: self,
                        t,
                        traits,
                        in_agent: true,
                    };
                    tc.cx_expr(event);
                    tc.t.code.pop();
                    None
                }
            },
            ExprKind::Call(f, _) if matches!(&f.kind, ExprKind::Name(p) if matches!(p.to_string_path().as_str(), "failed" | "recovered")) =>
            {
                return self.component_handler(event, body, t, traits);
            }
            _ => {
                self.diags.push(Diagnostic::error("E0301", "`on` needs an event", event.span).with_label("not an event").with_help("write `on loud_noise { .. }` with an `event` member, or `on failed(component) { .. }`"));
                None
            }
        };
        let Some(slot) = slot else {
            // Still check the body (and count the names it uses), compiled to nothing.
            let start = t.code.len();
            let mut tc = TreeCx {
                c: self,
                t,
                traits,
                in_agent: true,
            };
            tc.code_block(body);
            t.code.truncate(start);
            return;
        };
        t.code.push(Op::Load(slot));
        let at = t.code.len();
        t.code.push(Op::JumpIfFalse(0));
        let mut tc = TreeCx {
            c: self,
            t,
            traits,
            in_agent: true,
        };
        tc.code_block(body);
        let offset = (t.code.len() - at - 1) as u32;
        t.code[at] = Op::JumpIfFalse(offset);
    }

    /// An emotion machine (seed 000), compiled into the process phase. Each tick:
    ///
    /// ```text
    /// p = progress
    /// intensity = clamp(intensity + rise * max(-p, 0) - fall * max(p, 0), 0, 1)
    /// the first transition out of the current state whose guard holds is taken
    /// ```
    ///
    /// Inside the machine, `intensity` names its own intensity and personality traits are
    /// in scope (`rise 0.1 * (1 + caution)`).
    fn machine(
        &mut self,
        name: &ast::Ident,
        body: &ast::SettingBlock,
        t: &mut Template,
        traits: &[(String, f64)],
    ) -> Option<MachineInfo> {
        let slot = t.frame.get(&name.name)?;
        let ty = t.frame.vars[slot as usize].ty.clone();
        let intensity = t.frame.get(&format!("{}.intensity", name.name))?;
        // States that are not an enum are reported where the initial state is resolved.
        let enum_index = match ty {
            Ty::Enum(e) => Some(e),
            _ => None,
        };
        let shadow = t.frame.by_name.get("intensity").copied();
        t.frame.by_name.insert("intensity".into(), intensity);
        let progress = t.frame.add(FrameVar {
            name: format!("{}.progress", name.name),
            ty: Ty::Num,
            kind: VarKind::Temp,
            init: 0.0,
            range: None,
            span: name.span,
            used: true,
            doc: None,
        });
        let setting = |key: &str| {
            body.entries.iter().find_map(|e| match e {
                SettingEntry::Setting(s) if s.key.name == key => s.args.first(),
                _ => None,
            })
        };
        let (from, rise, fall) = (setting("from"), setting("rise"), setting("fall"));
        // Without `from`, progress is 0 and the intensity stays where it is.
        self.num_or(t, traits, from, 0.0, "the progress (`from`)");
        t.code.push(Op::Store(progress));
        t.code.push(Op::Load(intensity));
        self.num_or(t, traits, rise, DEFAULT_RISE, "`rise`");
        t.code.extend([
            Op::Const(0.0),
            Op::Load(progress),
            Op::Sub,
            Op::Const(0.0),
            Op::Call(Function::Max, 2),
            Op::Mul,
            Op::Add,
        ]);
        self.num_or(t, traits, fall, DEFAULT_FALL, "`fall`");
        t.code.extend([
            Op::Load(progress),
            Op::Const(0.0),
            Op::Call(Function::Max, 2),
            Op::Mul,
            Op::Sub,
            Op::StoreClamped(intensity, 0.0, 1.0),
        ]);
        // The first transition out of the current state whose guard holds.
        let mut ends = Vec::new();
        for e in &body.entries {
            let SettingEntry::Transition(tr) = e else {
                continue;
            };
            if enum_index.is_none() {
                break;
            }
            let from_v = self.variant_of(&ty, &tr.from);
            let to_v = self.variant_of(&ty, &tr.to);
            t.code.extend([Op::Load(slot), Op::Const(from_v), Op::Eq]);
            let skip_state = t.code.len();
            t.code.push(Op::JumpIfFalse(0));
            let mut tc = TreeCx {
                c: self,
                t,
                traits,
                in_agent: true,
            };
            tc.code_expr(&tr.guard, &Ty::Bool, "a transition's guard");
            let skip_guard = t.code.len();
            t.code.push(Op::JumpIfFalse(0));
            t.code.extend([Op::Const(to_v), Op::Store(slot)]);
            ends.push(t.code.len());
            t.code.push(Op::Jump(0));
            for at in [skip_state, skip_guard] {
                let off = (t.code.len() - at - 1) as u32;
                t.code[at] = Op::JumpIfFalse(off);
            }
        }
        for at in ends {
            let off = (t.code.len() - at - 1) as u32;
            t.code[at] = Op::Jump(off);
        }
        match shadow {
            Some(s) => {
                t.frame.by_name.insert("intensity".into(), s);
            }
            None => {
                t.frame.by_name.remove("intensity");
            }
        }
        let variants = enum_index
            .map(|e| self.g.enums[e as usize].variants.clone())
            .unwrap_or_default();
        let causes = variants
            .iter()
            .map(|v| self.g.emotions.get(v).and_then(|d| d.causal_chain.clone()))
            .collect();
        Some(MachineInfo {
            name: name.name.clone(),
            state: slot,
            intensity,
            causes,
        })
    }

    /// Code for a numeric setting, or its default when the setting is absent.
    fn num_or(
        &mut self,
        t: &mut Template,
        traits: &[(String, f64)],
        e: Option<&Expr>,
        default: f64,
        what: &str,
    ) {
        match e {
            Some(e) => {
                let mut tc = TreeCx {
                    c: self,
                    t,
                    traits,
                    in_agent: true,
                };
                tc.code_expr(e, &Ty::Num, what);
            }
            None => t.code.push(Op::Const(default)),
        }
    }

    fn tendencies(
        &mut self,
        machine: &ast::Ident,
        arms: &[ast::TendencyArm],
        t: &mut Template,
        traits: &[(String, f64)],
        span: Span,
    ) {
        if t.tendencies.iter().any(|(m, _)| *m == machine.name) {
            self.diags.push(
                Diagnostic::error(
                    "E0202",
                    format!("a second `tendencies` table for `{}`", machine.name),
                    span,
                )
                .with_label("the first table is the one that runs")
                .with_help("merge the two tables into one"),
            );
        }
        t.tendencies.push((machine.name.clone(), arms.to_vec()));
        let slot = t
            .frame
            .get(&machine.name)
            .filter(|&i| t.frame.vars[i as usize].kind == VarKind::Machine);
        if slot.is_none() {
            let machines: Vec<&str> = t
                .frame
                .vars
                .iter()
                .filter(|v| v.kind == VarKind::Machine)
                .map(|v| v.name.as_str())
                .collect();
            let mut d = Diagnostic::error(
                "E0201",
                format!("no emotion machine `{}` in this agent", machine.name),
                machine.span,
            )
            .with_label("not an `emotions` member");
            d = match crate::suggest::closest(&machine.name, machines.iter().copied()) {
                Some(b) => d.with_help(format!("did you mean `{b}`?")),
                None => d.with_help(format!(
                    "a `tendencies` table belongs to an emotion machine: declare it with `emotions {}: States = Initial {{ .. }}`",
                    machine.name
                )),
            };
            self.diags.push(d);
        }
        let ty = match slot {
            Some(i) => {
                t.frame.vars[i as usize].used = true;
                t.frame.vars[i as usize].ty.clone()
            }
            None => Ty::Error,
        };
        let mut covered = Vec::new();
        let mut wildcard = false;
        let mut bad_pattern = false;
        for arm in arms {
            match &arm.pattern {
                ast::Pattern::Wildcard(_) => wildcard = true,
                ast::Pattern::Expr(e) => {
                    if let ExprKind::Name(p) = &e.kind {
                        let id = p.last().clone();
                        let before = self.diags.len();
                        let v = self.variant_of(&ty, &id);
                        if self.diags.len() == before {
                            covered.push(v as usize);
                        } else {
                            bad_pattern = true;
                        }
                    } else {
                        bad_pattern = true;
                        self.diags.push(
                            Diagnostic::error(
                                "E0314",
                                "a tendency arm names a state of its machine",
                                e.span,
                            )
                            .with_label("not a state")
                            .with_help(
                                "write a variant of the machine's enum, or `_` for the others",
                            ),
                        );
                    }
                }
            }
            for target in &arm.targets {
                let n = target.name.to_string_path();
                match self.g.names.get(&n).map(|g| g.0) {
                    Some(g @ (super::Global::Tree(_) | super::Global::Leaf(_))) => {
                        self.used_globals.insert(n);
                        // The arguments bind the tree's ports like a call in `main`.
                        let start = t.code.len();
                        let mut tc = TreeCx {
                            c: self,
                            t,
                            traits,
                            in_agent: true,
                        };
                        match g {
                            super::Global::Tree(i) => {
                                tc.subtree_bindings(i, &target.name, target.args.as_ref());
                            }
                            super::Global::Leaf(i) => {
                                tc.leaf(i, &target.name, target.args.as_ref(), None);
                            }
                            _ => {}
                        }
                        t.code.truncate(start);
                    }
                    Some(super::Global::Tendency) => {
                        self.used_globals.insert(n);
                    }
                    _ => {
                        let mut candidates: Vec<&str> =
                            self.g.trees.iter().map(|t| t.name.as_str()).collect();
                        candidates.extend(self.g.leaves.iter().map(|l| l.name.as_str()));
                        let best = crate::suggest::closest(&n, candidates).map(str::to_string);
                        self.used_globals.extend(best.clone());
                        let mut d = Diagnostic::error(
                            "E0201",
                            format!("unknown behaviour `{n}`"),
                            target.name.span,
                        )
                        .with_label("not a tree, tendency or node");
                        d = match best {
                            Some(b) => d.with_help(format!("did you mean `{b}`?")),
                            None => {
                                d.with_help("a tendency selects a `tree` (or declared node) to run")
                            }
                        };
                        self.diags.push(d);
                    }
                }
            }
        }
        if let Ty::Enum(ei) = ty {
            let e = &self.g.enums[ei as usize];
            let missing: Vec<&str> = e
                .variants
                .iter()
                .enumerate()
                .filter(|(i, _)| !covered.contains(i))
                .map(|(_, v)| v.as_str())
                .collect();
            if !wildcard && !bad_pattern && !missing.is_empty() {
                self.diags.push(
                    Diagnostic::error(
                        "E0308",
                        format!(
                            "the tendencies of `{}` do not cover every emotion",
                            machine.name
                        ),
                        span,
                    )
                    .with_label(format!("no tendency for {}", missing.join(", ")))
                    .with_help("add arms for them, or `_ => ..;`"),
                );
            }
        }
    }

    /// Checks an emotional memory's settings and builds its configuration.
    fn memory(
        &mut self,
        name: &str,
        key: Option<&Expr>,
        body: &ast::SettingBlock,
        t: &mut Template,
        traits: &[(String, f64)],
    ) -> MemorySpec {
        let mut spec = MemorySpec {
            name: name.to_string(),
            ..MemorySpec::default()
        };
        if let Some(k) = key {
            let scratch = t.code.len();
            let mut tc = TreeCx {
                c: self,
                t,
                traits,
                in_agent: true,
            };
            tc.cx_expr(k);
            t.code.truncate(scratch);
        }
        let mut weights_given = false;
        for e in &body.entries {
            let SettingEntry::Setting(s) = e else {
                continue;
            };
            let num = |c: &mut Checker, e: &Expr, what: &str| -> Option<f64> {
                let (v, t) = c.const_value_hint(e, Some(&Ty::Num))?;
                if !t.fits(&Ty::Num) {
                    c.diags.push(
                        Diagnostic::error("E0301", format!("{what} is a number"), e.span)
                            .with_label(format!("this is {}", article(&c.g.show(&t)))),
                    );
                    return None;
                }
                Some(v)
            };
            match s.key.name.as_str() {
                "short_term" => {
                    let mut size_ok = true;
                    if let Some(a) = s.args.first() {
                        if let Some((v, t)) = self.const_value_hint(a, Some(&Ty::Int)) {
                            if t != Ty::Int || v < 1.0 {
                                self.diags.push(
                                    Diagnostic::error(
                                        "E0302",
                                        "the short-term size is a whole number above 0",
                                        a.span,
                                    )
                                    .with_label("not a size"),
                                );
                                size_ok = false;
                            } else {
                                spec.size = v as usize;
                            }
                        } else {
                            size_ok = false;
                        }
                    }
                    if let Some((_, w)) = s.pairs.iter().find(|(k, _)| k.name == "weights") {
                        if let ExprKind::List(items) = &w.kind {
                            if size_ok && items.len() != spec.size {
                                self.diags.push(
                                    Diagnostic::error(
                                        "E0316",
                                        format!(
                                            "{} weights for a short-term memory of {}",
                                            items.len(),
                                            spec.size
                                        ),
                                        w.span,
                                    )
                                    .with_label(format!(
                                        "expected {} weights, one per element",
                                        spec.size
                                    ))
                                    .with_help(
                                        "give one weight per short-term element, most recent first",
                                    ),
                                );
                            }
                            spec.weights = items
                                .iter()
                                .filter_map(|it| num(self, it, "a weight"))
                                .collect();
                            weights_given = true;
                        } else {
                            self.diags.push(
                                Diagnostic::error(
                                    "E0301",
                                    "the weights are a list of numbers",
                                    w.span,
                                )
                                .with_label("not a list"),
                            );
                        }
                    }
                }
                "retrospection" => match s.args.first().map(|a| &a.kind) {
                    Some(ExprKind::Call(f, args)) if matches!(&f.kind, ExprKind::Name(p) if p.to_string_path() == "sigmoid") => {
                        for a in &args.args {
                            let v = num(self, &a.value, "a sigmoid parameter");
                            match (a.name.as_ref().map(|n| n.name.as_str()), v) {
                                (Some("gain"), Some(v)) => spec.gain = v,
                                (Some("center"), Some(v)) => spec.center = v,
                                (_, Some(_)) => self.diags.push(
                                    Diagnostic::error(
                                        "E0305",
                                        "`sigmoid` takes `gain:` and `center:`",
                                        a.span,
                                    )
                                    .with_label("unknown parameter"),
                                ),
                                _ => {}
                            }
                        }
                    }
                    Some(_) => self.diags.push(
                        Diagnostic::error(
                            "E0301",
                            "retrospection is `sigmoid(gain: g, center: c)`",
                            s.args[0].span,
                        )
                        .with_label("not a sigmoid")
                        .with_help("write `retrospection sigmoid(gain: 0.2, center: 50);`"),
                    ),
                    None => {}
                },
                "familiarity" => {
                    if let Some(v) = s
                        .args
                        .first()
                        .and_then(|a| num(self, a, "the initial familiarity"))
                    {
                        spec.familiarity = v;
                    }
                    for (k, v) in &s.pairs {
                        let Some(v) = num(self, v, "a familiarity step") else {
                            continue;
                        };
                        match k.name.as_str() {
                            "gain" => spec.familiarity_gain = v,
                            "decay" => spec.familiarity_decay = v,
                            _ => {}
                        }
                    }
                }
                "threshold" => {
                    if let Some(v) = s.args.first().and_then(|a| num(self, a, "the threshold")) {
                        spec.threshold = v;
                    }
                }
                "persist" => match s.args.first().map(|a| &a.kind) {
                    Some(ExprKind::Str(f)) => {
                        spec.persist = Some(f.clone());
                        spec.persist_span = s.args[0].span;
                    }
                    Some(_) => self.diags.push(
                        Diagnostic::error(
                            "E0301",
                            "`persist` takes a file name in quotes",
                            s.args[0].span,
                        )
                        .with_label("not a string"),
                    ),
                    None => {}
                },
                _ => {}
            }
        }
        if !weights_given && spec.size != spec.weights.len() {
            // The default weights are the seed's seven: any other size weighs elements equally.
            spec.weights = vec![1.0 / spec.size as f64; spec.size];
        }
        spec
    }

    /// Drives: rules in order, the first that holds sets the drive; a change sets the
    /// intention (seed 003).
    fn drive(
        &mut self,
        d: &ast::DriveDecl,
        t: &mut Template,
        traits: &[(String, f64)],
    ) -> Option<DriveInfo> {
        let slot = t.frame.get(&d.name.name)?;
        let ty = t.frame.vars[slot as usize].ty.clone();
        let intention = d.intention().and_then(|i| t.frame.get(&i.name.name));
        // previous = drive
        let prev = t.frame.add(FrameVar {
            name: format!("{}.previous", d.name.name),
            ty: ty.clone(),
            kind: VarKind::Temp,
            init: -1.0,
            range: None,
            span: d.name.span,
            used: true,
            doc: None,
        });
        let mut ends = Vec::new();
        for r in d.rules() {
            let target = self.variant_of(&ty, &r.target);
            let mut tc = TreeCx {
                c: self,
                t,
                traits,
                in_agent: true,
            };
            tc.code_expr(&r.guard, &Ty::Bool, "a drive rule");
            let jf = t.code.len();
            t.code.push(Op::JumpIfFalse(0));
            t.code.extend([Op::Const(target), Op::Store(slot)]);
            ends.push(t.code.len());
            t.code.push(Op::Jump(0));
            let off = (t.code.len() - jf - 1) as u32;
            t.code[jf] = Op::JumpIfFalse(off);
        }
        for at in ends {
            let off = (t.code.len() - at - 1) as u32;
            t.code[at] = Op::Jump(off);
        }
        if let (Some(i), Some(islot)) = (d.intention(), intention) {
            let ity = t.frame.vars[islot as usize].ty.clone();
            // A new drive (or the first tick) generates a new intention.
            t.code.extend([Op::Load(slot), Op::Load(prev), Op::Ne]);
            let jf = t.code.len();
            t.code.push(Op::JumpIfFalse(0));
            let mut arm_ends = Vec::new();
            let mut covered = Vec::new();
            let mut wildcard = false;
            for arm in &i.arms {
                // if drive == p1 or drive == p2 { intention = value }
                for (tests, p) in arm.patterns.iter().enumerate() {
                    match p {
                        ast::Pattern::Wildcard(_) => {
                            wildcard = true;
                            t.code.push(Op::Const(1.0));
                        }
                        ast::Pattern::Expr(e) => {
                            let before = self.diags.len();
                            let v = match &e.kind {
                                ExprKind::Name(path) => self.variant_of(&ty, path.last()),
                                _ => {
                                    self.diags.push(
                                        Diagnostic::error(
                                            "E0314",
                                            "an intention arm names drive values",
                                            e.span,
                                        )
                                        .with_label("not a drive value")
                                        .with_help("write values of the drive's enum, or `_` for the others"),
                                    );
                                    0.0
                                }
                            };
                            if self.diags.len() == before {
                                covered.push(v as usize);
                            } else {
                                // Reported: not every value is then listed on top of it.
                                wildcard = true;
                            }
                            t.code.extend([Op::Load(slot), Op::Const(v), Op::Eq]);
                        }
                    }
                    if tests > 0 {
                        t.code.push(Op::BitOr);
                    }
                }
                let af = t.code.len();
                t.code.push(Op::JumpIfFalse(0));
                let mut tc = TreeCx {
                    c: self,
                    t,
                    traits,
                    in_agent: true,
                };
                tc.code_expr(&arm.value, &ity, "the intention");
                t.code.push(Op::Store(islot));
                arm_ends.push(t.code.len());
                t.code.push(Op::Jump(0));
                let off = (t.code.len() - af - 1) as u32;
                t.code[af] = Op::JumpIfFalse(off);
            }
            for at in arm_ends {
                let off = (t.code.len() - at - 1) as u32;
                t.code[at] = Op::Jump(off);
            }
            let off = (t.code.len() - jf - 1) as u32;
            t.code[jf] = Op::JumpIfFalse(off);
            if let Ty::Enum(ei) = ty {
                let e = &self.g.enums[ei as usize];
                let missing: Vec<&str> = e
                    .variants
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !covered.contains(i))
                    .map(|(_, v)| v.as_str())
                    .collect();
                if !wildcard && !missing.is_empty() {
                    self.diags.push(
                        Diagnostic::error(
                            "E0308",
                            format!(
                                "the intention of drive `{}` misses {}",
                                d.name.name,
                                missing.join(", ")
                            ),
                            i.span,
                        )
                        .with_label("not every drive value generates an intention")
                        .with_help("add arms for them, or `_ => ..;`"),
                    );
                }
            }
        }
        // Remember this tick's drive: a change next tick generates a new intention (and the
        // first tick, whose `previous` starts at -1, generates the first one).
        t.code.extend([Op::Load(slot), Op::Store(prev)]);
        Some(DriveInfo {
            name: d.name.name.clone(),
            slot,
            intention,
        })
    }
}

impl TreeCx<'_> {
    /// Compiles an expression with no expectation, returning its type.
    pub fn cx_expr(&mut self, e: &Expr) -> Ty {
        let mut cx = Cx {
            g: &self.c.g,
            frame: &mut self.t.frame,
            code: &mut self.t.code,
            diags: &mut self.c.diags,
            strings: &mut self.c.strings,
            lists: &mut self.c.lists,
            traits: self.traits,
            pending: &mut self.t.pending,
        };
        cx.expr(e, None)
    }
}

/// Collects the plain names an expression mentions (for dependency order).
fn names_in(e: &Expr, out: &mut Vec<String>) {
    struct Names<'a>(&'a mut Vec<String>);
    impl crate::syntax::visit::Visitor for Names<'_> {
        fn visit_expr(&mut self, e: &Expr) {
            if let ExprKind::Name(p) = &e.kind {
                if p.segments.len() == 1 {
                    self.0.push(p.segments[0].name.clone());
                }
            }
            crate::syntax::visit::walk_expr(self, e);
        }
    }
    let mut v = Names(out);
    crate::syntax::visit::Visitor::visit_expr(&mut v, e);
}

/// `a sensor`, `an event`, `an actuator`.
fn article_word(w: &str) -> String {
    match w.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => format!("an {w}"),
        _ => format!("a {w}"),
    }
}

/// The names a member declares in the agent's frame.
fn member_names(k: &MemberKind) -> Vec<String> {
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
        MemberKind::Component(c) => vec![c.name.name.clone()],
        _ => Vec::new(),
    }
}
