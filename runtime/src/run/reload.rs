//! Reloading: a run goes on with a new program at a tick boundary (`affect run --watch`).
//!
//! The new program is set up beside the old one first (its instances built, its JIT code
//! compiled); if anything fails, the old program keeps running untouched. Then, for each
//! instance: the running nodes that did not keep their place are halted cleanly in the old
//! program (their halt transitions go to the trace), variables and emotional memories carry
//! over by name and type (`carry.rs`), and every node that kept its place keeps its status
//! and state (a sequence's cursor, a repeat's count, a timer). A node keeps its place when
//! the new program has a node at the same path with the same registration ID and children at
//! the same paths, under a parent that kept its place.
//!
//! Not carried, and said so in `docs/monitoring.md`: foreign actions in progress (their
//! implementation belongs to the old program: they are halted and start again), behaviour
//! modules (the arbiter starts afresh; their trees are halted), and the recruitment
//! protocol, components and commands on their way (the team and the post office start
//! afresh). The world goes on as it is, so a reload that changes the world, or which agent
//! instances run, is refused.

use super::carry::{self, Translate};
use super::{setup, Live, Run};
use crate::affect::persist;
use crate::interp::Machine;
use crate::trace::Event;
use affect_compiler::builtins::NodeClass;
use affect_compiler::diagnostic::Diagnostic;
use affect_compiler::ir::program::{AgentProgram, NodeId, NodeKind, Program, Status};
use affect_compiler::ir::world::WorldSpec;
use std::collections::HashMap;

/// What a reload did to one instance.
#[derive(Clone, Debug, PartialEq)]
pub struct Reloaded {
    pub agent: String,
    /// Variables whose values came over.
    pub carried: usize,
    /// Visible variables that start from their initial value: new, or changed in type.
    pub fresh: Vec<String>,
    /// Emotional memories that came over.
    pub memories: usize,
    /// Nodes that kept their place (and their status and state).
    pub kept: usize,
    /// The paths of the running nodes halted.
    pub halted: Vec<String>,
}

impl Reloaded {
    /// One line for the trace and the terminal.
    pub fn text(&self) -> String {
        let mut s = format!(
            "program reloaded: {} variable{} carried",
            self.carried,
            plural(self.carried)
        );
        if !self.fresh.is_empty() {
            s += &format!("; starting afresh: {}", self.fresh.join(", "));
        }
        s += &format!(
            "; {} memor{} carried; {} node{} kept",
            self.memories,
            if self.memories == 1 { "y" } else { "ies" },
            self.kept,
            plural(self.kept)
        );
        if !self.halted.is_empty() {
            s += &format!(", halted: {}", self.halted.join(", "));
        }
        s
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Why a reload did not happen; the run goes on with the program it had.
#[derive(Clone, Debug, PartialEq)]
pub enum NotReloaded {
    /// The new program cannot run, as [`Run::new`] would refuse it.
    Refused(Vec<Diagnostic>),
    /// It changes what a run cannot change while it goes: the world, or which agent
    /// instances run. Restarting the run applies it.
    Unchangeable(String),
}

impl From<Vec<Diagnostic>> for NotReloaded {
    fn from(d: Vec<Diagnostic>) -> Self {
        NotReloaded::Refused(d)
    }
}

impl<'p> Run<'p> {
    /// The program the run runs: the last one it reloaded.
    pub fn program(&self) -> &'p Program {
        self.program
    }

    /// Goes on with `program` from the next tick. `Err` (the run unchanged) when the new
    /// program cannot run, or changes the world or the instances that run. The halts and a
    /// `log` line per instance go to `obs`.
    ///
    /// The new program's string table gains the running program's strings it lacks (at the
    /// end, so that nothing it numbered moves): a text value carries over even when the new
    /// program no longer writes that text.
    pub fn reload(
        &mut self,
        program: &'p mut Program,
        obs: &mut dyn super::Observer,
    ) -> Result<Vec<Reloaded>, NotReloaded> {
        if self.hardware.is_some() {
            return Err(NotReloaded::Unchangeable(
                "a run on hardware cannot change its program (its devices were opened for it)"
                    .into(),
            ));
        }
        if self.net.is_some() {
            return Err(NotReloaded::Unchangeable(
                "a robot on the network cannot change its program (its team runs the old one)"
                    .into(),
            ));
        }
        let known: std::collections::HashSet<&str> =
            program.strings.iter().map(String::as_str).collect();
        let missing: Vec<String> = (self.program.strings.iter())
            .filter(|s| !known.contains(s.as_str()))
            .cloned()
            .collect();
        program.strings.extend(missing);
        let program: &'p Program = program;
        let config = self.config;
        super::check_runnable(program, config.agent.as_deref())?;
        let misfits = config.nodes.check(program);
        if !misfits.is_empty() {
            return Err(misfits.into());
        }
        let world = setup::choose_world(program, config)?;
        let before = setup::choose_world(self.program, config)?;
        if !same_world(before, world) {
            return Err(NotReloaded::Unchangeable(
                "the world changed, and a running world cannot be replaced".into(),
            ));
        }
        let instances = setup::instances(program, config, self.world.as_ref());
        let names: Vec<&str> = instances.iter().map(|i| i.name.as_str()).collect();
        if !names.iter().copied().eq(self.agents()) {
            return Err(NotReloaded::Unchangeable(format!(
                "the agents that run changed (now: {}; running: {})",
                names.join(", "),
                self.agents().collect::<Vec<_>>().join(", ")
            )));
        }
        let engines = setup::compile(program, config, &instances);
        let sources: Vec<&dyn crate::leaf::LeafSource> = vec![&config.nodes];
        // The new program's memories that do not carry over start from their files.
        let files = match &config.persist_dir {
            // Read now: the files as they are at the reload, not as the run found them.
            Some(dir) => Some(persist::check_files(
                instances.iter().map(|i| i.program),
                dir,
                &persist::ReadAhead::default(),
            )?),
            None => None,
        };
        let shared = setup::shared(program, config, &sources, files.as_ref())?;
        let mut built = Vec::with_capacity(instances.len());
        for i in instances {
            built.push(setup::bind(
                program,
                config,
                &shared,
                self.world.as_ref(),
                i,
                &engines,
            )?);
        }
        // Everything is built: from here on the reload happens.
        let t = Translate::new(self.program, program);
        let mut done = Vec::new();
        let mut lives = Vec::with_capacity(built.len());
        // A reload carries values by name: what starts afresh is in `carried.fresh`.
        for (old, (mut sim, _unset)) in std::mem::take(&mut self.live).into_iter().zip(built) {
            let (live, carried, r) = self.carry_instance(&t, old, &mut sim, obs);
            lives.push(Live::new_after(sim, live, &carried));
            done.push(r);
        }
        self.live = lives;
        self.program = program;
        self.mail = shared.mail;
        self.team = shared.team;
        self.fallback = engines.fallback;
        self.tiers = engines.tiers;
        // Said at the instance's next tick: the program it starts with.
        for (l, r) in self.live.iter().zip(&done) {
            let ev = Event::Log {
                level: "info",
                text: r.text(),
            };
            let _ = obs.line(l.ticks, l.next_ms, &l.agent.name, &ev);
        }
        Ok(done)
    }

    /// Halts what does not go on in the old instance, then moves its state into `sim`.
    fn carry_instance(
        &self,
        t: &Translate,
        mut old: Live<'p>,
        sim: &mut crate::sim::SimAgent<'p>,
        obs: &mut dyn super::Observer,
    ) -> (Live<'p>, carry::Carried, Reloaded) {
        let (old_p, new_p) = (old.agent.program, sim.program);
        let places = places(old_p, new_p);
        let halted = halt_moved(&mut old.agent.machine, self.program, &places);
        // The halts happen just before the instance's next tick.
        let (tick, due) = (old.ticks, old.next_ms);
        super::report::transitions(&mut old, tick, due, obs);
        let now = old.agent.machine.now_ms;
        let m = &mut sim.machine;
        m.now_ms = now;
        m.woken = old.agent.machine.woken;
        let carried = carry::variables(t, (old_p, &old.agent.machine), (new_p, m));
        let kept = copy_node_states(&old.agent.machine, m, &places);
        let memories = carry::memories(
            t,
            (old_p, &old.agent.affect.borrow()),
            (new_p, &mut sim.affect.borrow_mut()),
        );
        let fresh = carried
            .fresh
            .iter()
            .map(|&j| &new_p.slots[j])
            .filter(|s| s.visible && s.scope == 0)
            .map(|s| s.name.clone())
            .collect();
        let r = Reloaded {
            agent: old.agent.name.clone(),
            carried: carried.values.len(),
            fresh,
            memories,
            kept,
            halted,
        };
        (old, carried, r)
    }
}

impl<'p> Live<'p> {
    /// The new program's instance going on where `old` stood: its schedule, ticks and
    /// counts. The next tick reports the variables that start afresh or were clamped into a
    /// new range; the others are as the trace last showed them.
    fn new_after(
        sim: crate::sim::SimAgent<'p>,
        old: Live<'p>,
        carried: &carry::Carried,
    ) -> Live<'p> {
        let mut l = Live::new(sim, &[]);
        l.next_ms = old.next_ms;
        l.ticks = old.ticks;
        l.statuses = old.statuses;
        l.root = old.root;
        for &j in carried.fresh.iter().chain(&carried.clamped) {
            l.last[j] = f64::NAN;
        }
        l
    }
}

/// Whether two world declarations describe the same world (where each was written aside).
fn same_world(a: Option<&WorldSpec>, b: Option<&WorldSpec>) -> bool {
    fn without_spans(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(o) => {
                o.remove("span");
                o.values_mut().for_each(without_spans);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(without_spans),
            _ => {}
        }
    }
    let plain = |w: Option<&WorldSpec>| {
        let mut v = serde_json::to_value(w).unwrap_or_default();
        without_spans(&mut v);
        v
    };
    plain(a) == plain(b)
}

/// Where each old node is in the new program, when it kept its place; and the roots the
/// behaviour modules run, whose trees start afresh.
struct Places {
    of: Vec<Option<NodeId>>,
    modules: Vec<(NodeId, NodeId)>,
}

fn parents(p: &AgentProgram) -> Vec<Option<NodeId>> {
    let mut up = vec![None; p.nodes.len()];
    for (i, n) in p.nodes.iter().enumerate() {
        let (first, count) = n.children;
        for &c in &p.children[first as usize..(first + count) as usize] {
            up[c as usize] = Some(i as NodeId);
        }
    }
    up
}

fn kids(p: &AgentProgram, n: NodeId) -> &[NodeId] {
    let (first, count) = p.nodes[n as usize].children;
    &p.children[first as usize..(first + count) as usize]
}

/// The old nodes that kept their place, in uid order (parents first).
fn places(old: &AgentProgram, new: &AgentProgram) -> Places {
    let at: HashMap<&str, NodeId> = new
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.path.as_str(), i as NodeId))
        .collect();
    let (up_old, up_new) = (parents(old), parents(new));
    let path_of = |p: &AgentProgram, n: &NodeId| p.nodes[*n as usize].path.clone();
    let mut of: Vec<Option<NodeId>> = vec![None; old.nodes.len()];
    for (i, n) in old.nodes.iter().enumerate() {
        let Some(&j) = at.get(n.path.as_str()) else {
            continue;
        };
        let m = &new.nodes[j as usize];
        let same_children = kids(old, i as NodeId)
            .iter()
            .map(|c| path_of(old, c))
            .eq(kids(new, j).iter().map(|c| path_of(new, c)));
        let same_parent = match (up_old[i], up_new[j as usize]) {
            (None, None) => true,
            (Some(a), Some(b)) => of[a as usize] == Some(b),
            _ => false,
        };
        let same_kind = std::mem::discriminant(&n.kind) == std::mem::discriminant(&m.kind);
        if n.id == m.id && same_kind && same_children && same_parent {
            of[i] = Some(j);
        }
    }
    Places {
        of,
        modules: old.roots.iter().map(|r| (r.root, r.end)).collect(),
    }
}

/// Halts, in the old machine, every running node that does not go on: one that lost its
/// place, a foreign action (its implementation is the old program's) and the trees of
/// behaviour modules. Returns their paths.
fn halt_moved(m: &mut Machine, program: &Program, places: &Places) -> Vec<String> {
    let p = m.prog;
    let mut halted = Vec::new();
    let mut stack: Vec<NodeId> = p.root.into_iter().collect();
    while let Some(n) = stack.pop() {
        if m.status[n as usize] != Status::Running {
            continue;
        }
        let action = match &p.nodes[n as usize].kind {
            NodeKind::Foreign { leaf, .. } => program
                .leaves
                .get(*leaf as usize)
                .is_some_and(|l| l.class == NodeClass::Action),
            _ => false,
        };
        if places.of[n as usize].is_none() || action {
            m.halt_node(n);
            m.reset_status(n);
            halted.push(p.nodes[n as usize].path.clone());
        } else {
            stack.extend(kids(p, n).iter().rev());
        }
    }
    for &(root, _) in &places.modules {
        if m.status[root as usize] == Status::Running {
            halted.push(p.nodes[root as usize].path.clone());
        }
        m.halt_root(root);
    }
    halted
}

/// Copies status and state (cursor, counters, timer, flags, what a parallel's children
/// did) of every node that kept its place, outside the behaviour modules' trees. Returns
/// how many nodes kept their place.
fn copy_node_states(old: &Machine, new: &mut Machine, places: &Places) -> usize {
    let in_module = |n: usize| {
        places
            .modules
            .iter()
            .any(|&(r, e)| (r as usize..e as usize).contains(&n))
    };
    let mut kept = 0;
    for (i, to) in places.of.iter().enumerate() {
        let Some(j) = *to else { continue };
        kept += 1;
        if in_module(i) {
            continue;
        }
        let j = j as usize;
        new.status[j] = old.status[i];
        new.state[j] = old.state[i];
        new.seen[j] = old.seen[i];
        let (a, count) = old.prog.nodes[i].children;
        let (b, _) = new.prog.nodes[j].children;
        for e in 0..count {
            if let (Some(&d), Some(slot)) = (
                old.done.get((a + e) as usize),
                new.done.get_mut((b + e) as usize),
            ) {
                *slot = d;
            }
        }
    }
    kept
}
