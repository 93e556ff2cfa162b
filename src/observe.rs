//! What the trace's events mean to a person: each agent's visible variables by the kind of
//! member that declared them (a hormone, a `let`, a drive, the key of a memory, ...), so the
//! narrator (`narrate.rs`) and the plot (`plot.rs`) can pick what to tell and draw without
//! knowing any particular program. And `Observers`, the trace sink that hands every event to
//! the trace file and to them.

use affect_compiler::ir::program::{AgentProgram, NodeKind, Program, ValueKind};
use affect_compiler::syntax::ast::{self, ExprKind, ItemKind, MemberKind};
use affect_runtime::trace::{Event, TraceSink};
use std::collections::HashMap;
use std::io;

/// What declared a variable of an agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// `var x: num in lo..hi` with the range inside 0..100 (a score-like level).
    Level,
    /// Any other `var`.
    Var,
    Let,
    Hormone,
    Sensor,
    Event,
    Drive,
    Intention,
    /// The state of an emotion machine.
    Emotion,
    /// The intensity of an emotion machine (0..1).
    Intensity,
}

/// One agent program as the observers see it.
pub struct AgentView {
    pub name: String,
    /// Root variables by name: their role and declaration order.
    pub vars: HashMap<String, Var>,
    /// The variables memories are keyed by (`memory feelings keyed by place`): where the
    /// agent is, or what it is dealing with.
    pub keys: Vec<String>,
    /// For each node (by uid - 1): when it is a labelled child of a fallback, the name of the
    /// fallback and its own label. Its success is the fallback's choice.
    pub choices: Vec<Option<(String, String)>>,
    /// Emotion machines: (machine, state variable, intensity variable, states).
    pub machines: Vec<Machine>,
    /// Drives: (drive variable, its intention variable, its states).
    pub drives: Vec<Drive>,
}

#[derive(Clone, Debug)]
pub struct Var {
    pub role: Role,
    /// Declaration order among the agent's root variables.
    pub order: usize,
}

#[derive(Clone, Debug)]
pub struct Machine {
    pub name: String,
    pub state: String,
    pub intensity: String,
    pub states: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct Drive {
    pub name: String,
    pub intention: Option<String>,
    pub states: Vec<String>,
}

/// The members each agent declares, by name, from the syntax tree (clones included).
fn declared_roles(file: &ast::File) -> HashMap<String, (HashMap<String, Role>, Vec<String>)> {
    let agents: HashMap<&str, &ast::AgentDecl> = file
        .items
        .iter()
        .filter_map(|i| match &i.kind {
            ItemKind::Agent(a) => Some((a.name.name.as_str(), a)),
            _ => None,
        })
        .collect();
    let mut out = HashMap::new();
    for &name in agents.keys() {
        let mut roles = HashMap::new();
        let mut keys = Vec::new();
        // A clone has its base's members, then its own (bases first, at most a few deep).
        let mut chain = Vec::new();
        let mut at = agents.get(name).copied();
        while let Some(a) = at {
            if chain.len() > 16 || chain.iter().any(|c: &&ast::AgentDecl| std::ptr::eq(*c, a)) {
                break;
            }
            chain.push(a);
            at = a
                .base
                .as_ref()
                .and_then(|b| agents.get(b.name.as_str()).copied());
        }
        for a in chain.iter().rev() {
            for m in a.members.iter().flatten() {
                let mut put = |n: &ast::Ident, r: Role| {
                    roles.insert(n.name.clone(), r);
                };
                match &m.kind {
                    MemberKind::Var { name, .. } => put(name, Role::Var),
                    MemberKind::Let { name, .. } => put(name, Role::Let),
                    MemberKind::Sensor { name, .. } => put(name, Role::Sensor),
                    MemberKind::Event { name, .. } => put(name, Role::Event),
                    MemberKind::Hormone { name, .. } => put(name, Role::Hormone),
                    MemberKind::Drive(d) => {
                        put(&d.name, Role::Drive);
                        for e in &d.entries {
                            if let ast::DriveEntry::Intention(i) = e {
                                put(&i.name, Role::Intention);
                            }
                        }
                    }
                    MemberKind::Memory { key: Some(k), .. } => {
                        if let ExprKind::Name(p) = &k.kind {
                            if let [one] = p.segments.as_slice() {
                                if !keys.contains(&one.name) {
                                    keys.push(one.name.clone());
                                }
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        out.insert(name.to_string(), (roles, keys));
    }
    out
}

fn variants(program: &Program, kind: ValueKind) -> Vec<String> {
    match kind {
        ValueKind::Enum(e) => program
            .enums
            .get(e as usize)
            .map(|e| e.variants.clone())
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// Every agent of a checked program, with the roles its source gives its variables.
pub fn views(program: &Program, file: &ast::File) -> Vec<AgentView> {
    let declared = declared_roles(file);
    program
        .agents
        .iter()
        .map(|p| view(program, p, declared.get(&p.name)))
        .collect()
}

fn view(
    program: &Program,
    p: &AgentProgram,
    declared: Option<&(HashMap<String, Role>, Vec<String>)>,
) -> AgentView {
    let mut vars = HashMap::new();
    for (order, s) in p
        .slots
        .iter()
        .filter(|s| s.visible && s.scope == 0)
        .enumerate()
    {
        let role = declared.and_then(|(r, _)| r.get(&s.name).copied());
        let role = match role {
            Some(Role::Var) => {
                let numeric = matches!(s.kind, ValueKind::Num | ValueKind::Int);
                match s.range {
                    Some((lo, hi)) if numeric && lo >= 0.0 && hi <= 100.0 => Role::Level,
                    _ => Role::Var,
                }
            }
            Some(r) => r,
            None => continue,
        };
        vars.insert(s.name.clone(), Var { role, order });
    }
    let mut machines = Vec::new();
    for m in &p.machines {
        let state = p.slots[m.state as usize].name.clone();
        let intensity = p.slots[m.intensity as usize].name.clone();
        let kind = p.slots[m.state as usize].kind;
        for (n, r) in [(&state, Role::Emotion), (&intensity, Role::Intensity)] {
            let order = vars.len();
            vars.entry(n.clone())
                .and_modify(|v: &mut Var| v.role = r)
                .or_insert(Var { role: r, order });
        }
        machines.push(Machine {
            name: m.name.clone(),
            state,
            intensity,
            states: variants(program, kind),
        });
    }
    let drives = p
        .drives
        .iter()
        .map(|d| Drive {
            name: d.name.clone(),
            intention: d.intention.map(|i| p.slots[i as usize].name.clone()),
            states: variants(program, p.slots[d.slot as usize].kind),
        })
        .collect();
    // A labelled child of a fallback: the fallback's choice when it succeeds.
    let labelled = |i: usize| {
        let n = &p.nodes[i];
        n.name != n.id
    };
    let mut choices = vec![None; p.nodes.len()];
    for n in &p.nodes {
        if !matches!(
            n.kind,
            NodeKind::Fallback | NodeKind::ReactiveFallback | NodeKind::AsyncFallback
        ) {
            continue;
        }
        let (first, count) = (n.children.0 as usize, n.children.1 as usize);
        let kids = p.children.get(first..first + count).unwrap_or(&[]);
        for &c in kids {
            if labelled(c as usize) {
                choices[c as usize] = Some((n.name.clone(), p.nodes[c as usize].name.clone()));
            }
        }
    }
    AgentView {
        name: p.name.clone(),
        vars,
        keys: declared.map(|(_, k)| k.clone()).unwrap_or_default(),
        choices,
        machines,
        drives,
    }
}

/// The program an agent instance runs: `UGV#2` runs `UGV`.
pub fn program_of<'v>(views: &'v [AgentView], instance: &str) -> Option<&'v AgentView> {
    let base = match instance.rsplit_once('#') {
        Some((b, n)) if !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) => b,
        _ => instance,
    };
    views
        .iter()
        .find(|v| v.name == instance)
        .or_else(|| views.iter().find(|v| v.name == base))
}

/// Hands every event to the trace file (when there is one), then to the observers that are
/// on. An observer never fails the run.
pub struct Observers<'a> {
    pub file: Option<&'a mut dyn TraceSink>,
    pub plot: Option<crate::plot::Recorder<'a>>,
    pub story: Option<crate::narrate::Narrator<'a>>,
    /// Live views of the run: the Groot 2 server, the `.btlog` recorder.
    pub live: Vec<Box<dyn LiveView + 'a>>,
}

/// An observer that can fail: it says why once the run is over.
pub trait LiveView: TraceSink {
    /// Called after the run; an error fails the command.
    fn finish(&mut self) -> Result<(), String>;
}

impl TraceSink for Observers<'_> {
    fn line(&mut self, tick: u64, t_ms: f64, agent: &str, ev: &Event) -> io::Result<()> {
        if let Some(p) = &mut self.plot {
            p.event(t_ms, agent, ev);
        }
        if let Some(s) = &mut self.story {
            s.event(tick, t_ms, agent, ev);
        }
        for l in &mut self.live {
            let _ = l.line(tick, t_ms, agent, ev);
        }
        match &mut self.file {
            Some(f) => f.line(tick, t_ms, agent, ev),
            None => Ok(()),
        }
    }
}
