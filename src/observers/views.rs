//! What the trace's events mean to a person: each agent's visible variables by the kind of
//! member that declared them (a hormone, a `let`, a drive, the key of a memory, ...), so the
//! story (`story.rs`) and the plot (`plot.rs`) can pick what to tell and draw without
//! knowing any particular program.

use affect_compiler::ir::program::{
    AgentProgram, NodeKind, Program, Role as IrRole, Slot, ValueKind,
};
use std::collections::HashMap;
use std::rc::Rc;

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
    /// The SHAME of a responder's recruitment block (seed 002): not a variable, but the
    /// value the `recruit` events carry when it decides on a HELP (the plot draws it).
    Shame,
}

/// One agent program as the observers see it.
#[derive(Clone, Debug)]
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

/// Every agent of a checked program, with the roles the checker gave its variables.
pub fn views(program: &Program) -> Vec<AgentView> {
    program.agents.iter().map(|p| view(program, p)).collect()
}

/// The role the observers give a variable the checker declared as `role`; `None` for those
/// they do not follow (and emotion machines, which come after, in machine order).
fn observed(role: IrRole, s: &Slot) -> Option<Role> {
    Some(match role {
        IrRole::Var => {
            let numeric = matches!(s.kind, ValueKind::Num | ValueKind::Int);
            match s.range {
                Some((lo, hi)) if numeric && lo >= 0.0 && hi <= 100.0 => Role::Level,
                _ => Role::Var,
            }
        }
        IrRole::Let => Role::Let,
        IrRole::Sensor => Role::Sensor,
        IrRole::Event => Role::Event,
        IrRole::Hormone => Role::Hormone,
        IrRole::Drive => Role::Drive,
        IrRole::Intention => Role::Intention,
        _ => return None,
    })
}

fn view(program: &Program, p: &AgentProgram) -> AgentView {
    let mut vars = HashMap::new();
    for (order, s) in p
        .slots
        .iter()
        .filter(|s| s.visible && s.scope == 0)
        .enumerate()
    {
        if let Some(role) = observed(s.role, s) {
            vars.insert(s.name.clone(), Var { role, order });
        }
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
        keys: memory_keys(p),
        choices,
        machines,
        drives,
    }
}

/// The variables the agent's memories are keyed by, each once, in memory order.
fn memory_keys(p: &AgentProgram) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for slot in p.memories.iter().filter_map(|m| m.key) {
        let name = &p.slots[slot as usize].name;
        if !keys.contains(name) {
            keys.push(name.clone());
        }
    }
    keys
}

/// After a reload: the views of `program`, and each agent's new view (its old one when its
/// program is gone).
pub fn replace<'a>(
    views: &mut Vec<Rc<AgentView>>,
    program: &Program,
    agents: impl Iterator<Item = (&'a str, &'a mut Rc<AgentView>)>,
) {
    *views = super::views::views(program)
        .into_iter()
        .map(Rc::new)
        .collect();
    for (instance, view) in agents {
        if let Some(v) = program_of(views, instance) {
            *view = v;
        }
    }
}

/// The program an agent instance runs: `UGV#2` runs `UGV`.
pub fn program_of(views: &[Rc<AgentView>], instance: &str) -> Option<Rc<AgentView>> {
    let base = match instance.rsplit_once('#') {
        Some((b, n)) if !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) => b,
        _ => instance,
    };
    views
        .iter()
        .find(|v| v.name == instance)
        .or_else(|| views.iter().find(|v| v.name == base))
        .cloned()
}
