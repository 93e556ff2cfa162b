//! Checking agents: their members become the agent's frame (its root blackboard), the
//! process phase is compiled in dependency order, and `main` becomes a template over the
//! same frame.

use super::error::SemaError;
use super::frame::{Frame, VarKind};
use super::members::member_names;
use super::tree::{TNode, Template, TreeCx};
use super::ty::Ty;
use super::Checker;
use crate::diagnostic::Diagnostic;
use crate::ir::program::{Code, Device, DriveInfo, MachineInfo, MemorySpec};
use crate::syntax::ast::{self, Expr, ExprKind, MemberKind};

/// What the process phase compiles besides its code.
#[derive(Default)]
struct ProcessPhase {
    code: Code,
    drives: Vec<DriveInfo>,
    memories: Vec<MemorySpec>,
    machines: Vec<MachineInfo>,
}

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

impl Checker {
    pub fn check_agent(&mut self, a: &ast::AgentDecl, members: &[ast::Member]) -> CheckedAgent {
        // Every member's name, for initial values that name one (`var b = a;`).
        self.runtime_names = members.iter().flat_map(|m| member_names(&m.kind)).collect();
        // Agents are checked in the main file only.
        self.index.current = super::index::MAIN_FILE;
        let declared = self.declare_members(a, members);
        let traits = declared.traits;
        let rate_hz = declared.rate_hz.unwrap_or(10.0);
        let mut t = Template {
            frame: declared.frame,
            ..Template::default()
        };
        let phase = self.process_phase(members, &mut t, &traits, 1000.0 / rate_hz);
        // The behaviour arbiter's code follows the process phase's.
        self.agent_behaviors(members, &mut t, &traits);
        // Seed 002's and seed 001's blocks (`recruit.rs`, `component.rs`): any code they
        // need goes after the process phase, which must not run it.
        let recruitments = self.recruitments(members, &mut t, &traits);
        let components = self.member_components(members, &mut t, &traits);
        t.root = self.agent_main(a, members, &mut t, &traits);
        self.warn_unused_members(&t);
        CheckedAgent {
            name: a.name.name.clone(),
            rate_hz,
            template: t,
            process: phase.code,
            devices: declared.devices,
            drives: phase.drives,
            memories: phase.memories,
            machines: phase.machines,
            recruitments,
            components,
        }
    }

    /// Pass 2, the process phase: hormones and lets in dependency order, then `update`, `on`
    /// handlers, emotion machines, tendency tables, memories and drives.
    fn process_phase(
        &mut self,
        members: &[ast::Member],
        t: &mut Template,
        traits: &[(String, f64)],
        dt_ms: f64,
    ) -> ProcessPhase {
        let start = t.code.len() as u32;
        let mut out = ProcessPhase::default();
        self.derived_values(members, t, traits, dt_ms);
        for m in members {
            if let MemberKind::Update(b) = &m.kind {
                TreeCx::agent(self, t, traits).code_block(b);
            }
        }
        for m in members {
            if let MemberKind::On { event, body } = &m.kind {
                self.handler(event, body, t, traits);
            }
        }
        for m in members {
            match &m.kind {
                MemberKind::Emotions { name, body, .. } => {
                    out.machines.extend(self.machine(name, body, t, traits));
                }
                MemberKind::Tendencies { machine, arms } => {
                    self.tendencies(machine, arms, t, traits, m.span)
                }
                MemberKind::Memory { name, key, body } => {
                    let spec = self.memory(&name.name, key.as_ref(), body, t, traits);
                    out.memories.push(spec);
                }
                _ => {}
            }
        }
        for m in members {
            match &m.kind {
                MemberKind::Behavior(b) => self.mark_setting_names(&b.body, t),
                MemberKind::Behaviors(s) => self.mark_setting_names(s, t),
                MemberKind::Recruitment(s) | MemberKind::Component(s) => {
                    self.mark_setting_names(&s.body, t)
                }
                _ => {}
            }
        }
        self.check_agent_settings(members, t, traits);
        for m in members {
            if let MemberKind::Drive(d) = &m.kind {
                out.drives.extend(self.drive(d, t, traits));
            }
        }
        out.code = Code {
            start,
            len: t.code.len() as u32 - start,
        };
        out
    }

    /// The tree ticked every tick: the agent's one `main`.
    fn agent_main(
        &mut self,
        a: &ast::AgentDecl,
        members: &[ast::Member],
        t: &mut Template,
        traits: &[(String, f64)],
    ) -> Option<TNode> {
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
        let what = format!("the `main` of agent `{}`", a.name.name);
        TreeCx::agent(self, t, traits).one_root(mains.first()?, &what)
    }

    /// A `var` nobody reads or writes.
    fn warn_unused_members(&mut self, t: &Template) {
        for v in &t.frame.vars {
            // `@name` in a tree (or here) reads or writes the agent's variable.
            let rooted = self.root_keys.contains(&v.name)
                || t.frame.root_refs.iter().any(|(n, _)| *n == v.name);
            if v.kind == VarKind::Var && !v.used && !rooted {
                self.report(SemaError::Unused {
                    name: v.name.clone(),
                    span: v.span,
                    help: "remove it, or use it in the tree or a block",
                });
            }
        }
    }

    /// Marks the names a configuration block mentions as used (its semantics are the
    /// runtime's; the names must still not be reported as unused).
    pub(super) fn mark_setting_names(&mut self, block: &ast::SettingBlock, t: &mut Template) {
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
                        self.c
                            .index
                            .refer_def(p.span, self.frame.vars[i as usize].def);
                    } else if self.c.g.names.contains_key(&n) {
                        self.c.index.refer_global(p.span, &n);
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

    /// The value of a state named by `id` in the enum `ty` (0 when it is none, reported).
    pub(super) fn variant_of(&mut self, ty: &Ty, id: &ast::Ident) -> f64 {
        match ty {
            Ty::Enum(ei) => {
                let e = &self.g.enums[*ei as usize];
                match e.variants.iter().position(|v| *v == id.name) {
                    Some(i) => {
                        let def = self.index.variant(*ei, i as u32);
                        self.index.refer_def(id.span, def);
                        i as f64
                    }
                    None => {
                        self.report(SemaError::NotAVariant {
                            name: id.name.clone(),
                            span: id.span,
                            of: *ei,
                        });
                        0.0
                    }
                }
            }
            Ty::Error => 0.0,
            other => {
                self.report(SemaError::StatesNotAnEnum {
                    found: other.clone(),
                    span: id.span,
                });
                0.0
            }
        }
    }
}
