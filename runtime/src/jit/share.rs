//! Units of the same shape share one compiled function. Lowering lays out every subtree
//! instance the same way: its nodes in pre-order from a base id, its edges of the children
//! table from a base edge, its own slots from a base slot. Two units whose members differ
//! only in those bases (and in slots that are the same for both, such as the agent's
//! variables) compute the same thing on state that sits at another offset, so one function
//! serves both: it takes the three offsets from its shape's representative (`Delta`) as
//! arguments and adds them to its base pointers at entry; everything else in its code is
//! the representative's. A unit whose members do something the offsets cannot move (a
//! foreign leaf or a host call names a node or slot to Rust, a wide node numbers units)
//! keeps a function of its own.

use super::plan::{Delta, Plan, Sharing};
use super::JitError;
use affect_compiler::ir::program::{
    AgentProgram, Arg, Code, NodeId, NodeKind, Op, Program, SlotId, ValueKind,
};
use std::collections::HashMap;
use std::fmt::Write;

/// `AFFECT_JIT_SHARE=0` gives every unit its own function (for measurements).
pub(crate) fn enabled() -> bool {
    std::env::var("AFFECT_JIT_SHARE").map_or(true, |v| v != "0")
}

/// The plan of an agent's code, with its units grouped by shape.
pub(crate) fn plan<'p>(
    program: &'p Program,
    agent: &'p AgentProgram,
    record: bool,
) -> Result<Plan<'p>, JitError> {
    let mut plan = Plan::new(program, agent, record)?;
    plan.share = classify(&plan);
    Ok(plan)
}

/// What a unit's code depends on, with its bases taken out.
struct Shape {
    /// Everything but slots and child units' offsets, as text.
    key: String,
    /// Every slot its code names, in the order the key names them.
    slots: Vec<SlotId>,
    /// The units its nodes call, in order.
    calls: Vec<u32>,
    root: NodeId,
    edge: u32,
}

/// One function and the units it serves.
struct Class {
    rep: u32,
    /// Which slot positions move with the unit (decided by the second unit to join).
    moved: Option<Vec<bool>>,
    members: usize,
}

/// Groups a plan's units by shape (children before parents, so a unit's key can name its
/// children's shapes).
fn classify(plan: &Plan) -> Sharing {
    let n = plan.units.len();
    let mut s = Sharing {
        rep: (0..n as u32).collect(),
        delta: vec![[0; 3]; n],
        rel_slots: vec![None; n],
    };
    if !enabled() {
        return s;
    }
    let mut shapes: Vec<Option<Shape>> = (0..n).map(|_| None).collect();
    let mut classes: Vec<Class> = Vec::new();
    let mut by_key: HashMap<String, Vec<usize>> = HashMap::new();
    for u in (0..n).rev() {
        let Some(shape) = shape(plan, &s, u) else {
            continue;
        };
        let candidates = by_key.entry(shape.key.clone()).or_default();
        let mut joined = false;
        for &c in candidates.iter() {
            let class = &mut classes[c];
            let rep = shapes[class.rep as usize].as_ref().expect("a shape");
            if let Some(d) = fits(plan, &s, rep, &shape, &mut class.moved) {
                s.rep[u] = class.rep;
                s.delta[u] = d;
                class.members += 1;
                joined = true;
                break;
            }
        }
        if !joined {
            candidates.push(classes.len());
            classes.push(Class {
                rep: u as u32,
                moved: None,
                members: 1,
            });
        }
        shapes[u] = Some(shape);
    }
    for c in &classes {
        if c.members < 2 {
            continue;
        }
        let rep = shapes[c.rep as usize].as_ref().expect("a shape");
        let mut rel: Vec<SlotId> = match &c.moved {
            Some(moved) => rep
                .slots
                .iter()
                .zip(moved)
                .filter(|(_, m)| **m)
                .map(|(s, _)| *s)
                .collect(),
            None => Vec::new(),
        };
        rel.sort_unstable();
        rel.dedup();
        s.rel_slots[c.rep as usize] = Some(rel);
    }
    s
}

/// Whether unit shape `u` can run on `rep`'s function, and at which offsets. The first
/// unit to join a representative decides which slot positions move (`moved`); later ones
/// must move the same positions by one offset and keep the others.
fn fits(
    plan: &Plan,
    s: &Sharing,
    rep: &Shape,
    u: &Shape,
    moved: &mut Option<Vec<bool>>,
) -> Option<Delta> {
    let dn = i32::try_from(i64::from(u.root) - i64::from(rep.root)).ok()?;
    let de = i32::try_from(i64::from(u.edge) - i64::from(rep.edge)).ok()?;
    if u.slots.len() != rep.slots.len() || u.calls.len() != rep.calls.len() {
        return None;
    }
    let slots = &plan.agent.slots;
    let same_kind = |a: SlotId, b: SlotId| {
        (slots[a as usize].kind == ValueKind::List) == (slots[b as usize].kind == ValueKind::List)
            && plan.can_be_unset(a) == plan.can_be_unset(b)
    };
    let mv: Vec<bool> = match moved {
        Some(m) => m.clone(),
        None => rep
            .slots
            .iter()
            .zip(&u.slots)
            .map(|(a, b)| a != b)
            .collect(),
    };
    let mut ds: Option<i64> = None;
    for ((&a, &b), &m) in rep.slots.iter().zip(&u.slots).zip(&mv) {
        if !same_kind(a, b) {
            return None;
        }
        if !m {
            if a != b {
                return None;
            }
            continue;
        }
        let d = i64::from(b) - i64::from(a);
        if *ds.get_or_insert(d) != d {
            return None;
        }
    }
    // A slot the representative reaches both ways would need two addresses.
    if moved.is_none() {
        let mut way: HashMap<SlotId, bool> = HashMap::new();
        for (&a, &m) in rep.slots.iter().zip(&mv) {
            if *way.entry(a).or_insert(m) != m {
                return None;
            }
        }
    }
    // Called units must lie at the same offsets from this one as the representative's
    // from it, each component the caller's plus the callee's own.
    let mut d = [Some(i64::from(dn)), Some(i64::from(de)), ds];
    for (&rc, &uc) in rep.calls.iter().zip(&u.calls) {
        if s.rep[rc as usize] != s.rep[uc as usize] {
            return None;
        }
        for (k, dk) in d.iter_mut().enumerate() {
            let want = i64::from(s.delta[uc as usize][k]) - i64::from(s.delta[rc as usize][k]);
            if *dk.get_or_insert(want) != want {
                return None;
            }
        }
    }
    let delta = [
        i32::try_from(d[0].unwrap_or(0)).ok()?,
        i32::try_from(d[1].unwrap_or(0)).ok()?,
        i32::try_from(d[2].unwrap_or(0)).ok()?,
    ];
    *moved = Some(mv);
    Some(delta)
}

/// A unit's shape, or `None` when its code cannot move.
fn shape(plan: &Plan, s: &Sharing, u: usize) -> Option<Shape> {
    let agent = plan.agent;
    let root = plan.units[u];
    let members = &plan.members[u];
    let edge = members
        .iter()
        .map(|&m| agent.nodes[m as usize].children)
        .filter(|c| c.1 > 0)
        .map(|c| c.0)
        .min()
        .unwrap_or(0);
    let mut sh = Shape {
        key: String::new(),
        slots: Vec::new(),
        calls: Vec::new(),
        root,
        edge,
    };
    for &m in members {
        let node = &agent.nodes[m as usize];
        if plan.wide[m as usize].is_some() || plan.is_wide_node(m) {
            return None;
        }
        let i = m as usize;
        let _ = write!(
            sh.key,
            "n{} p{} r{} ",
            i64::from(m) - i64::from(root),
            plan.possible[i],
            u8::from(plan.may_run[i])
        );
        kind(plan, &node.kind, &mut sh)?;
        if let Some(c) = node
            .conditions
            .and_then(|c| agent.conditions.get(c as usize))
        {
            for x in c.blocks() {
                match x {
                    Some(x) => code(plan, x, &mut sh)?,
                    None => sh.key.push('-'),
                }
            }
        }
        let (first, count) = node.children;
        if count > 0 {
            let _ = write!(sh.key, " e{} [", i64::from(first) - i64::from(edge));
        } else {
            sh.key.push_str(" [");
        }
        for &c in plan.children(m) {
            let _ = write!(sh.key, "{} ", i64::from(c) - i64::from(root));
            if plan.unit_of[c as usize] != Some(u as u32) {
                let cu = plan.unit_of[c as usize]?;
                let _ = write!(sh.key, "u{} ", s.rep[cu as usize]);
                sh.calls.push(cu);
            }
        }
        sh.key.push_str("]\n");
    }
    Some(sh)
}

fn kind(plan: &Plan, k: &NodeKind, sh: &mut Shape) -> Option<()> {
    let arg = |a: &Arg, sh: &mut Shape| match a {
        Arg::Const(v) => {
            let _ = write!(sh.key, "c{:x} ", v.to_bits());
            Some(())
        }
        Arg::Expr(c) => code(plan, *c, sh),
    };
    match k {
        NodeKind::Parallel { success, failure } => {
            sh.key.push_str("Parallel ");
            arg(success, sh)?;
            arg(failure, sh)?;
        }
        NodeKind::ParallelAll { max_failures } => {
            sh.key.push_str("ParallelAll ");
            arg(max_failures, sh)?;
        }
        NodeKind::Repeat { cycles: a }
        | NodeKind::Retry { attempts: a }
        | NodeKind::Timeout { ms: a }
        | NodeKind::Delay { ms: a }
        | NodeKind::Sleep { ms: a } => {
            let name = format!("{k:?}");
            sh.key.push_str(name.split(' ').next().unwrap_or(""));
            sh.key.push(' ');
            arg(a, sh)?;
        }
        NodeKind::Switch {
            subject,
            subject_kind,
            cases,
        } => {
            let _ = write!(sh.key, "Switch {subject_kind:?} ");
            for c in cases {
                let _ = write!(sh.key, "{:?}={:x} ", c.text, c.value.to_bits());
            }
            code(plan, *subject, sh)?;
        }
        NodeKind::Precondition { cond, otherwise } => {
            let _ = write!(sh.key, "Precondition {otherwise:?} ");
            code(plan, *cond, sh)?;
        }
        NodeKind::SubTree { inputs } => {
            sh.key.push_str("SubTree ");
            for (slot, c) in inputs {
                sh.key.push_str("s ");
                sh.slots.push(*slot);
                code(plan, *c, sh)?;
            }
        }
        NodeKind::Script { code: c } | NodeKind::ScriptCondition { cond: c } => {
            let name = format!("{k:?}");
            sh.key.push_str(name.split(' ').next().unwrap_or(""));
            sh.key.push(' ');
            code(plan, *c, sh)?;
        }
        // These name a node, a slot or a unit to Rust or to a table, as numbers the offsets
        // do not move.
        NodeKind::EntryUpdated { .. }
        | NodeKind::WasEntryUpdated { .. }
        | NodeKind::Loop { .. }
        | NodeKind::Foreign { .. } => return None,
        other => {
            let _ = write!(sh.key, "{other:?} ");
        }
    }
    Some(())
}

fn code(plan: &Plan, c: Code, sh: &mut Shape) -> Option<()> {
    let ops = plan
        .agent
        .code
        .get(c.start as usize..(c.start as usize + c.len as usize))?;
    sh.key.push('{');
    for op in ops {
        let slot = match *op {
            Op::Const(v) => {
                let _ = write!(sh.key, "c{:x};", v.to_bits());
                None
            }
            Op::Load(s) => Some(("ld", s)),
            Op::LoadChecked(s) => Some(("ldc", s)),
            Op::Store(s) => Some(("st", s)),
            Op::ListSet(s) => Some(("ls", s)),
            Op::ListSetAt(s) => Some(("lsa", s)),
            Op::ListBuild(s, k) => {
                let _ = write!(sh.key, "lb{k}");
                Some(("", s))
            }
            Op::StoreClamped(s, lo, hi) => {
                let _ = write!(sh.key, "sc{:x},{:x}", lo.to_bits(), hi.to_bits());
                Some(("", s))
            }
            Op::Host(..) => return None,
            other => {
                let _ = write!(sh.key, "{other:?};");
                None
            }
        };
        if let Some((tag, s)) = slot {
            let _ = write!(sh.key, "{tag}_;");
            if s as usize >= plan.agent.slots.len() {
                return None;
            }
            sh.slots.push(s);
        }
    }
    sh.key.push('}');
    Some(())
}
