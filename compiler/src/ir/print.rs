//! A readable listing of the tick program (`affect build FILE --emit ir`): each agent's
//! slots, node table in uid order with their conditions, and its code with slot names.

use super::program::*;
use std::fmt::Write;

fn kind_name(k: ValueKind, p: &Program) -> String {
    match k {
        ValueKind::Num => "num".into(),
        ValueKind::Int => "int".into(),
        ValueKind::Bool => "bool".into(),
        ValueKind::Str => "str".into(),
        ValueKind::Enum(e) => p
            .enums
            .get(e as usize)
            .map(|e| e.name.clone())
            .unwrap_or_else(|| "enum".into()),
        ValueKind::Duration => "duration".into(),
        ValueKind::Rate => "rate".into(),
        ValueKind::Length => "length".into(),
        ValueKind::Angle => "angle".into(),
        ValueKind::Status => "status".into(),
        ValueKind::List => "list".into(),
    }
}

fn slot_name(a: &AgentProgram, s: SlotId) -> String {
    a.slots
        .get(s as usize)
        .map(|x| x.name.clone())
        .unwrap_or_else(|| format!("#{s}"))
}

fn arg(x: Arg) -> String {
    match x {
        Arg::Const(v) => format!("{v}"),
        Arg::Expr(c) => code_ref(c),
    }
}

fn code_ref(c: Code) -> String {
    format!("@{}..{}", c.start, c.start + c.len)
}

/// A decorator's arguments, each by its row's name: `num_attempts 3`, `if @4..9 else FAILURE`.
fn decorator_args(a: &AgentProgram, d: &Decorator) -> String {
    let row = d.kind.row();
    let args: Vec<String> = row
        .args
        .iter()
        .zip(&d.args)
        .map(|(spec, x)| {
            let v = match x {
                DecoratorArg::Value(x) => arg(*x),
                DecoratorArg::Code(c) => code_ref(*c),
                DecoratorArg::Slot(s, _) => slot_name(a, *s),
                DecoratorArg::Status(s) => s.name().to_string(),
                DecoratorArg::Flag(f) => f.to_string(),
            };
            format!("{} {v}", spec.name)
        })
        .collect();
    args.join(" ")
}

fn node_line(p: &Program, a: &AgentProgram, n: &Node) -> String {
    let detail = match &n.kind {
        NodeKind::Parallel { success, failure } => {
            format!("success {} failure {}", arg(*success), arg(*failure))
        }
        NodeKind::ParallelAll { max_failures } => format!("max_failures {}", arg(*max_failures)),
        NodeKind::TryCatch { catch_on_halt } => format!("catch_on_halt {catch_on_halt}"),
        NodeKind::Switch { subject, cases, .. } => {
            let cs: Vec<&str> = cases.iter().map(|c| c.text.as_str()).collect();
            format!("on {} cases [{}]", code_ref(*subject), cs.join(", "))
        }
        NodeKind::Decorator(d) => decorator_args(a, d),
        NodeKind::Sleep { ms } => format!("{} ms", arg(*ms)),
        NodeKind::SubTree { inputs } => {
            let ins: Vec<String> = inputs
                .iter()
                .map(|(s, c)| format!("{} = {}", slot_name(a, *s), code_ref(*c)))
                .collect();
            if ins.is_empty() {
                String::new()
            } else {
                format!("inputs [{}]", ins.join(", "))
            }
        }
        NodeKind::Script { code } => code_ref(*code),
        NodeKind::ScriptCondition { cond } => code_ref(*cond),
        NodeKind::WasEntryUpdated { slot } => format!("entry {}", slot_name(a, *slot)),
        NodeKind::Foreign { leaf, ports } => {
            let info = &p.leaves[*leaf as usize];
            let bound: Vec<String> = info
                .ports
                .iter()
                .zip(ports)
                .map(|(port, b)| match b {
                    // A constant list (a point, a list literal) is shown by its elements.
                    PortBinding::In(Arg::Const(v)) if port.kind == Some(ValueKind::List) => {
                        match p.lists.get(*v as usize) {
                            Some(xs) => format!("{} = {xs:?}", port.name),
                            None => format!("{} = list {v}", port.name),
                        }
                    }
                    PortBinding::In(x) => format!("{} = {}", port.name, arg(*x)),
                    PortBinding::Slot(s) => format!("{} -> {}", port.name, slot_name(a, *s)),
                    PortBinding::Absent => format!("{} absent", port.name),
                })
                .collect();
            format!("({})", bound.join(", "))
        }
        _ => String::new(),
    };
    detail
}

fn op_line(a: &AgentProgram, op: &Op) -> String {
    match op {
        Op::Const(v) => format!("const {v}"),
        Op::Load(s) => format!("load {}", slot_name(a, *s)),
        Op::LoadChecked(s) => format!("load? {}", slot_name(a, *s)),
        Op::Store(s) => format!("store {}", slot_name(a, *s)),
        Op::StoreClamped(s, lo, hi) => format!("store {} clamped {lo}..{hi}", slot_name(a, *s)),
        Op::JumpIfFalse(o) => format!("jump_if_false +{o}"),
        Op::Jump(o) => format!("jump +{o}"),
        Op::JumpIfFalseKeep(o) => format!("jump_if_false_keep +{o}"),
        Op::JumpIfTrueKeep(o) => format!("jump_if_true_keep +{o}"),
        Op::Call(f, n) => format!("call {f:?}/{n}"),
        Op::Host(f, x, n) => format!("host {f:?}[{x}]/{n}"),
        Op::ListBuild(s, n) => format!("list_build {}/{n}", slot_name(a, *s)),
        Op::ListSet(s) => format!("list_set {}", slot_name(a, *s)),
        Op::ListSetAt(s) => format!("list_set_at {}", slot_name(a, *s)),
        other => format!("{other:?}").to_lowercase(),
    }
}

fn policy_name(policy: BehaviorPolicy, children: &[String]) -> String {
    match policy {
        BehaviorPolicy::Simultaneous => "simultaneous".into(),
        BehaviorPolicy::Parallel => "parallel".into(),
        BehaviorPolicy::Main(i) => format!(
            "main({})",
            children.get(i as usize).map_or("?", String::as_str)
        ),
    }
}

/// The behaviour arbiter: the top block, then each module with its value's parts, keys,
/// policy and children (trees by root uid).
fn behaviors_lines(a: &AgentProgram, b: &Behaviors, out: &mut String) {
    let child = |c: &BehaviorChild| match *c {
        BehaviorChild::Module(m) => b.modules[m as usize].name.clone(),
        BehaviorChild::Tree(r) => a
            .roots
            .get(r as usize)
            .map_or("?".into(), |t| format!("tree {}", t.root + 1)),
    };
    let top: Vec<String> = b
        .top
        .iter()
        .map(|&m| b.modules[m as usize].name.clone())
        .collect();
    let _ = writeln!(
        out,
        "  behaviors: {} inhibition {} modules [{}]",
        policy_name(b.policy, &top),
        b.inhibition,
        top.join(", ")
    );
    for m in &b.modules {
        let keys: Vec<&str> = m
            .keys
            .iter()
            .map(|&k| b.keys[k as usize].as_str())
            .collect();
        let children: Vec<String> = m.children.iter().map(child).collect();
        let _ = writeln!(
            out,
            "    {}: Mv {} S {} dS {} alpha {} beta {} keys [{}] {} [{}]",
            m.name,
            arg(m.motivation),
            arg(m.satisfaction),
            arg(m.expected),
            m.alpha,
            m.beta,
            keys.join(", "),
            policy_name(m.policy, &children),
            children.join(", ")
        );
    }
}

/// The whole program, readably.
pub fn print_program(p: &Program) -> String {
    let mut out = String::new();
    for e in &p.enums {
        let _ = writeln!(out, "enum {} {{ {} }}", e.name, e.variants.join(", "));
    }
    for l in &p.leaves {
        let ports: Vec<String> = l
            .ports
            .iter()
            .map(|x| format!("{} {}", x.dir.keyword(), x.name))
            .collect();
        let _ = writeln!(out, "{:?} {}({})", l.class, l.name, ports.join(", "));
    }
    for w in &p.worlds {
        let _ = writeln!(
            out,
            "world {} ({} spawns, {} events, {} ticks)",
            w.name,
            w.spawns.len(),
            w.events.len(),
            w.ticks
                .map(|t| t.to_string())
                .unwrap_or_else(|| "unbounded".into())
        );
    }
    if let Some(m) = &p.main_tree {
        let _ = writeln!(out, "main tree {m}");
    }
    for a in &p.agents {
        let _ = writeln!(
            out,
            "\nagent {} (rate {} Hz; {} slots, {} nodes, {} ops)",
            a.name,
            a.rate_hz,
            a.slots.len(),
            a.nodes.len(),
            a.code.len()
        );
        let _ = writeln!(out, "  slots:");
        for (i, s) in a.slots.iter().enumerate() {
            let range = s
                .range
                .map(|(lo, hi)| format!(" in {lo}..{hi}"))
                .unwrap_or_default();
            let hidden = if s.visible { "" } else { "  (internal)" };
            let _ = writeln!(
                out,
                "    {i:4}  {}: {}{range} = {}{hidden}",
                s.name,
                kind_name(s.kind, p),
                if s.init.is_nan() {
                    "none".to_string()
                } else {
                    s.init.to_string()
                }
            );
        }
        for d in &a.devices {
            let _ = writeln!(
                out,
                "  {:?} {} = {}(..){}",
                d.role,
                d.name,
                d.driver,
                d.slot
                    .map(|s| format!(" -> {}", slot_name(a, s)))
                    .unwrap_or_default()
            );
        }
        for m in &a.memories {
            let _ = writeln!(
                out,
                "  memory {} (short term {}, gain {}, center {})",
                m.name, m.size, m.gain, m.center
            );
        }
        if a.process.len > 0 {
            let _ = writeln!(out, "  process: {}", code_ref(a.process));
        }
        if !a.pending.is_empty() {
            let names: Vec<&str> = a.pending.iter().map(|(w, _)| w.as_str()).collect();
            let _ = writeln!(out, "  cannot run yet: {}", names.join(", "));
        }
        if let Some(b) = &a.behaviors {
            behaviors_lines(a, b, &mut out);
        }
        let _ = writeln!(out, "  nodes:");
        for (i, n) in a.nodes.iter().enumerate() {
            let (start, count) = n.children;
            let kids: Vec<String> = a.children[start as usize..(start + count) as usize]
                .iter()
                .map(|c| (c + 1).to_string())
                .collect();
            let kids = if kids.is_empty() {
                String::new()
            } else {
                format!(" -> [{}]", kids.join(", "))
            };
            let _ = writeln!(
                out,
                "    {:4}  {} {}{kids}  {}",
                i + 1,
                n.id,
                node_line(p, a, n),
                n.path
            );
            if let Some(ci) = n.conditions {
                let c = &a.conditions[ci as usize];
                let show = |name: &str, x: Option<Code>, out: &mut String| {
                    if let Some(x) = x {
                        let _ = writeln!(out, "          {name} {}", code_ref(x));
                    }
                };
                show("failure_if", c.failure_if, &mut out);
                show("success_if", c.success_if, &mut out);
                show("skip_if", c.skip_if, &mut out);
                show("while", c.while_, &mut out);
                show("on_success", c.on_success, &mut out);
                show("on_failure", c.on_failure, &mut out);
                show("after", c.post, &mut out);
                show("on_halted", c.on_halted, &mut out);
            }
        }
        let _ = writeln!(out, "  code:");
        for (i, op) in a.code.iter().enumerate() {
            let _ = writeln!(out, "    {i:04}  {}", op_line(a, op));
        }
    }
    out
}
