//! Units of the same shape share one compiled function. Lowering lays out every subtree
//! instance the same way: its nodes in pre-order from a base id, its edges of the children
//! table from a base edge, its own slots from a base slot. Two units whose members differ
//! only in those bases compute the same thing on state that sits at another offset, so one
//! function serves both: it takes the offsets from its shape's representative (`Delta`) as
//! arguments and adds them to its base pointers at entry.
//!
//! What the offsets cannot move comes from a parameter table (`Sharing::table`): a constant
//! that differs between the units of a shape (`a / 10 + 1` and `a / 10 + 2`, a `sleep(20ms)`
//! and a `sleep(30ms)`), and a slot that is not one offset away in every unit (a port bound
//! to another variable of the caller). Each unit has a block of entries, one per such
//! constant and slot of its function; constants that are the same in every unit stay
//! immediates. The blocks are laid out like the nodes: a unit's block, then its called
//! units' regions in order, so a called unit's block lies as far from its caller's in every
//! unit of a shape, and the table offset is passed on like the others.
//!
//! Node ids and slots that go to Rust (a foreign leaf's, a recorded transition's, a list's)
//! are moved the same way; a wide node's first child unit is a parameter. A unit whose
//! slots do not correspond (list or not, can be unset or not) keeps a function of its own.

use super::plan::{Delta, Params, Plan, Sharing, Site};
use super::JitError;
use affect_compiler::ir::functions::HostFn;
use affect_compiler::ir::program::{
    is_unset, AgentProgram, Arg, Code, DecoratorArg, NodeId, NodeKind, Op, PortBinding, Program,
    SlotId, ValueKind,
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

/// What a unit's code depends on, with its bases, slots and constants taken out.
struct Shape {
    /// Everything but slots, constants and child units' offsets, as text.
    key: String,
    /// Every slot its code names, in the order the key names them.
    slots: Vec<SlotId>,
    /// Every constant that may differ between units of the shape, in key order, as bits.
    consts: Vec<(Site, u64)>,
    /// The units its nodes call, in order.
    calls: Vec<u32>,
    root: NodeId,
    edge: u32,
}

/// One function and the units it serves (the representative first).
struct Class {
    rep: u32,
    members: Vec<u32>,
}

/// Groups a plan's units by shape (children before parents, so a unit's key can name its
/// children's shapes), then gives each shared function its parameters.
fn classify(plan: &Plan) -> Sharing {
    let n = plan.units.len();
    let unshared = || Sharing {
        rep: (0..n as u32).collect(),
        delta: vec![[0; 4]; n],
        params: vec![None; n],
        table: Vec::new(),
    };
    let mut s = unshared();
    if !enabled() {
        return s;
    }
    let mut shapes: Vec<Option<Shape>> = (0..n).map(|_| None).collect();
    let mut classes: Vec<Class> = Vec::new();
    let mut by_key: HashMap<String, Vec<usize>> = HashMap::new();
    // Each unit's class, which a key names (it stays when a class changes representative).
    let mut class_of: Vec<Option<u32>> = vec![None; n];
    for u in (0..n).rev() {
        let Some(shape) = shape(plan, &class_of, u) else {
            continue;
        };
        let candidates = by_key.entry(shape.key.clone()).or_default();
        let mut joined = false;
        for &c in candidates.iter() {
            let class = &mut classes[c];
            let rep = shapes[class.rep as usize].as_ref().expect("a shape");
            if let Some(d) = fits(plan, &s, rep, &shape) {
                s.rep[u] = class.rep;
                s.delta[u] = d;
                class.members.push(u as u32);
                class_of[u] = Some(c as u32);
                joined = true;
                break;
            }
        }
        // A representative alone in its class that binds two of its slots to one slot
        // (two ports to one variable) serves no unit binding them to two; the other way
        // round works: swap.
        for &c in candidates.iter() {
            let class = &mut classes[c];
            let old = class.rep as usize;
            if joined || class.members.len() != 1 {
                continue;
            }
            let rep = shapes[old].as_ref().expect("a shape");
            if let Some(d) = fits(plan, &s, &shape, rep) {
                class.rep = u as u32;
                class.members = vec![u as u32, old as u32];
                s.rep[old] = u as u32;
                s.delta[old] = d;
                class_of[u] = Some(c as u32);
                joined = true;
            }
        }
        if !joined {
            class_of[u] = Some(classes.len() as u32);
            candidates.push(classes.len());
            classes.push(Class {
                rep: u as u32,
                members: vec![u as u32],
            });
        }
        shapes[u] = Some(shape);
    }
    let mut own: Vec<Vec<u64>> = vec![Vec::new(); n];
    for c in classes.iter().filter(|c| c.members.len() > 1) {
        let (params, values) = parameters(&s, c, &shapes);
        s.params[c.rep as usize] = Some(params);
        for (m, v) in c.members.iter().zip(values) {
            own[*m as usize] = v;
        }
    }
    // A program the layout cannot serve (never one lowering makes) runs unshared.
    if layout(plan, &mut s, &own, &shapes).is_none() {
        return unshared();
    }
    s
}

/// What the function of class `c` reads from where its unit's state lives, with the class's
/// table entries numbered from 0, and each member's entries.
fn parameters(s: &Sharing, c: &Class, shapes: &[Option<Shape>]) -> (Params, Vec<Vec<u64>>) {
    let shape = |u: u32| shapes[u as usize].as_ref().expect("a shape");
    let rep = shape(c.rep);
    let mut p = Params::default();
    let mut values: Vec<Vec<u64>> = vec![Vec::new(); c.members.len()];
    let mut seen: Vec<SlotId> = Vec::new();
    for (pos, &a) in rep.slots.iter().enumerate() {
        if seen.contains(&a) {
            continue;
        }
        seen.push(a);
        let theirs = c.members.iter().map(|&m| (m, shape(m).slots[pos]));
        let fixed = theirs.clone().all(|(_, b)| b == a);
        let moved = theirs
            .clone()
            .all(|(m, b)| i64::from(b) - i64::from(a) == i64::from(s.delta[m as usize][2]));
        if fixed {
            continue;
        }
        if moved {
            p.rel.push(a);
            continue;
        }
        p.mapped.push((a, values[0].len() as u32));
        for (k, (_, b)) in theirs.enumerate() {
            values[k].push(u64::from(b));
        }
    }
    for (i, &(site, bits)) in rep.consts.iter().enumerate() {
        let theirs = c.members.iter().map(|&m| shape(m).consts[i].1);
        if theirs.clone().all(|b| b == bits) {
            continue;
        }
        p.consts.push((site, values[0].len() as u32));
        for (k, b) in theirs.enumerate() {
            values[k].push(b);
        }
    }
    p.rel.sort_unstable();
    p.mapped.sort_unstable();
    p.consts.sort_unstable();
    (p, values)
}

/// Lays out the parameter table: each unit's block of entries, then the regions of the
/// units it calls, in order. Sets each unit's table offset from its representative, and the
/// representatives' entries to their own blocks. `None` when a shared function's called
/// units would not find their blocks at its offset.
fn layout(plan: &Plan, s: &mut Sharing, own: &[Vec<u64>], shapes: &[Option<Shape>]) -> Option<()> {
    let n = plan.units.len();
    let calls = unit_calls(plan);
    let mut size = vec![0usize; n];
    for u in (0..n).rev() {
        size[u] = own[u].len()
            + calls[u]
                .iter()
                .filter(|&&c| c as usize > u)
                .map(|&c| size[c as usize])
                .sum::<usize>();
    }
    let mut block: Vec<Option<usize>> = vec![None; n];
    let mut next = 0usize;
    for u in 0..n {
        let at = *block[u].get_or_insert_with(|| {
            let b = next;
            next += size[u];
            b
        });
        let mut at = at + own[u].len();
        for &c in &calls[u] {
            if c as usize > u && block[c as usize].is_none() {
                block[c as usize] = Some(at);
                at += size[c as usize];
            }
        }
    }
    if next >= (i32::MAX as usize) / 8 {
        return None;
    }
    s.table = vec![0; next];
    let block: Vec<usize> = block.into_iter().map(|b| b.unwrap_or(0)).collect();
    for u in 0..n {
        s.table[block[u]..block[u] + own[u].len()].copy_from_slice(&own[u]);
        let r = s.rep[u] as usize;
        s.delta[u][3] = (block[u] as i64 - block[r] as i64) as i32;
    }
    for (r, p) in s.params.iter_mut().enumerate() {
        if let Some(p) = p {
            for (_, e) in p.mapped.iter_mut() {
                *e += block[r] as u32;
            }
            for (_, e) in p.consts.iter_mut() {
                *e += block[r] as u32;
            }
        }
    }
    for u in 0..n {
        let r = s.rep[u] as usize;
        if r == u {
            continue;
        }
        let (us, rs) = (shapes[u].as_ref()?, shapes[r].as_ref()?);
        for (&uc, &rc) in us.calls.iter().zip(&rs.calls) {
            if s.delta[uc as usize][3] - s.delta[rc as usize][3] != s.delta[u][3] {
                return None;
            }
        }
    }
    Some(())
}

/// The units each unit's nodes call, in the order of their children.
fn unit_calls(plan: &Plan) -> Vec<Vec<u32>> {
    let mut calls = vec![Vec::new(); plan.units.len()];
    for (u, members) in plan.members.iter().enumerate() {
        for &m in members {
            for &c in plan.children(m) {
                match plan.unit_of[c as usize] {
                    Some(cu) if cu as usize != u => calls[u].push(cu),
                    _ => {}
                }
            }
        }
    }
    calls
}

/// Whether unit shape `u` can run on `rep`'s function, and at which offsets (the table's is
/// set by `layout`). The same slot of the representative must always be the same of `u`;
/// two of its slots may be one of `u`'s (a port bound to a variable the subtree also reads
/// otherwise): a shared function's stores forget every checked read (`expr.rs`).
fn fits(plan: &Plan, s: &Sharing, rep: &Shape, u: &Shape) -> Option<Delta> {
    let dn = i32::try_from(i64::from(u.root) - i64::from(rep.root)).ok()?;
    let de = i32::try_from(i64::from(u.edge) - i64::from(rep.edge)).ok()?;
    if u.slots.len() != rep.slots.len()
        || u.calls.len() != rep.calls.len()
        || u.consts.len() != rep.consts.len()
    {
        return None;
    }
    let slots = &plan.agent.slots;
    let same_kind = |a: SlotId, b: SlotId| {
        (slots[a as usize].kind == ValueKind::List) == (slots[b as usize].kind == ValueKind::List)
            && plan.can_be_unset(a) == plan.can_be_unset(b)
    };
    let mut to: HashMap<SlotId, SlotId> = HashMap::new();
    let mut moves: HashMap<i64, usize> = HashMap::new();
    for (&a, &b) in rep.slots.iter().zip(&u.slots) {
        if !same_kind(a, b) || *to.entry(a).or_insert(b) != b {
            return None;
        }
        if a != b {
            *moves.entry(i64::from(b) - i64::from(a)).or_default() += 1;
        }
    }
    // Called units must lie at the same offsets from this one as the representative's
    // from it, each component the caller's plus the callee's own.
    let mut d = [Some(i64::from(dn)), Some(i64::from(de)), None];
    for (&rc, &uc) in rep.calls.iter().zip(&u.calls) {
        if s.rep[rc as usize] != s.rep[uc as usize] {
            return None;
        }
        for (k, dk) in d.iter_mut().enumerate() {
            // A unit whose nodes have no children (a wide node's leaf, say) never reads
            // its edge offset.
            if k == 1 && !has_edges(plan, uc) {
                continue;
            }
            let want = i64::from(s.delta[uc as usize][k]) - i64::from(s.delta[rc as usize][k]);
            if *dk.get_or_insert(want) != want {
                return None;
            }
        }
    }
    // Without called units to fix it, the slot offset is the one most slots move by (the
    // subtree's own variables); slots that do not move by it are read from the table.
    let ds = d[2].unwrap_or_else(|| {
        let mut m: Vec<(usize, i64)> = moves.into_iter().map(|(d, c)| (c, -d)).collect();
        m.sort_unstable();
        m.last().map_or(0, |&(_, d)| -d)
    });
    Some([dn, de, i32::try_from(ds).ok()?, 0])
}

/// Whether any node of unit `u` has children (and so entries of the children table).
fn has_edges(plan: &Plan, u: u32) -> bool {
    plan.members[u as usize]
        .iter()
        .any(|&m| plan.agent.nodes[m as usize].children.1 > 0)
}

/// A unit's shape, or `None` when its code cannot move.
fn shape(plan: &Plan, class_of: &[Option<u32>], u: usize) -> Option<Shape> {
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
        consts: Vec::new(),
        calls: Vec::new(),
        root,
        edge,
    };
    for &m in members {
        let node = &agent.nodes[m as usize];
        // A wide node calls its children through the unit table from its first child's
        // unit, a number the offsets do not move: a parameter.
        match plan.wide[m as usize] {
            Some(base) => {
                sh.key.push_str("w;");
                sh.consts.push((Site::Wide(m), u64::from(base)));
            }
            None if plan.is_wide_node(m) => return None,
            None => {}
        }
        let i = m as usize;
        let _ = write!(
            sh.key,
            "n{} p{} r{} ",
            i64::from(m) - i64::from(root),
            plan.possible[i],
            u8::from(plan.may_run[i])
        );
        kind(plan, m, &node.kind, &mut sh)?;
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
                match class_of[cu as usize] {
                    Some(k) => write!(sh.key, "u{k} "),
                    None => write!(sh.key, "x{cu} "),
                }
                .ok()?;
                sh.calls.push(cu);
            }
        }
        sh.key.push_str("]\n");
    }
    Some(sh)
}

/// A constant of the code: in the key when it is "no value" (which decides which slots can
/// be unset), else a parameter.
fn constant(sh: &mut Shape, site: Site, v: f64) {
    if is_unset(v) {
        let _ = write!(sh.key, "c{:x};", v.to_bits());
    } else {
        sh.key.push_str("k;");
        sh.consts.push((site, v.to_bits()));
    }
}

fn kind(plan: &Plan, n: NodeId, k: &NodeKind, sh: &mut Shape) -> Option<()> {
    let arg = |a: &Arg, i: u16, sh: &mut Shape| match a {
        Arg::Const(v) => {
            constant(sh, Site::Arg(n, i), *v);
            Some(())
        }
        Arg::Expr(c) => code(plan, *c, sh),
    };
    match k {
        NodeKind::Parallel { success, failure } => {
            sh.key.push_str("Parallel ");
            arg(success, 0, sh)?;
            arg(failure, 1, sh)?;
        }
        NodeKind::ParallelAll { max_failures } => {
            sh.key.push_str("ParallelAll ");
            arg(max_failures, 0, sh)?;
        }
        NodeKind::Sleep { ms: a } => {
            sh.key.push_str("Sleep ");
            arg(a, 0, sh)?;
        }
        // A decorator's values move like any node's arguments (`node_arg(n, i, ..)` reads
        // the one at its position), its conditions like code, its variables like slots;
        // statuses and flags decide the code, so they are the key.
        NodeKind::Decorator(d) => {
            let _ = write!(sh.key, "{:?} ", d.kind);
            for (i, x) in (0u16..).zip(&d.args) {
                match x {
                    DecoratorArg::Value(a) => arg(a, i, sh)?,
                    DecoratorArg::Code(c) => code(plan, *c, sh)?,
                    DecoratorArg::Slot(s, _) => {
                        sh.key.push_str("s_ ");
                        sh.slots.push(*s);
                    }
                    DecoratorArg::Status(s) => {
                        let _ = write!(sh.key, "{s:?} ");
                    }
                    DecoratorArg::Flag(f) => {
                        let _ = write!(sh.key, "{f} ");
                    }
                }
            }
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
        // Their slots move like any other; a node's `seen` entry moves with the node.
        NodeKind::WasEntryUpdated { slot } => {
            sh.key.push_str("WasEntryUpdated s_ ");
            sh.slots.push(*slot);
        }
        // The leaf's stand-in is found in Rust by the node's id, which the offset moves.
        NodeKind::Foreign { leaf, ports } => {
            let _ = write!(sh.key, "Foreign {leaf} ");
            for (i, p) in (0u16..).zip(ports) {
                match p {
                    PortBinding::In(a) => {
                        sh.key.push_str("i ");
                        arg(a, i, sh)?;
                    }
                    PortBinding::Slot(s) => {
                        sh.key.push_str("o_ ");
                        sh.slots.push(*s);
                    }
                    PortBinding::Absent => sh.key.push_str("a "),
                }
            }
        }
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
    for (pc, op) in (c.start..).zip(ops) {
        let slot = match *op {
            Op::Const(v) => {
                constant(sh, Site::Op(pc), v);
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
            // A list's slot; the other services' argument names a memory, an enum or a
            // component, the same for every unit.
            Op::Host(HostFn::ListPush, s, argc) => {
                let _ = write!(sh.key, "push{argc}");
                Some(("", s))
            }
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
