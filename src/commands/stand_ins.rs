//! What `affect run` says about its stand-ins after a run, on every run (`--quiet` too):
//! which nodes nobody implements and how they stand in, and which of their out ports the
//! program reads though nothing ever wrote them (docs/run.md, "Stand-ins").

use affect_compiler::ir::program::Program;
use affect_runtime::run::AgentSummary;

/// Both warnings, each once for the agents alike.
pub fn tell(program: &Program, summaries: &[AgentSummary], leaf_default: &str) {
    let mut told: Vec<(Vec<String>, Vec<&str>)> = Vec::new();
    for s in summaries.iter().filter(|s| !s.stand_ins.is_empty()) {
        match told.iter_mut().find(|(names, _)| *names == s.stand_ins) {
            Some((_, agents)) => agents.push(&s.agent),
            None => told.push((s.stand_ins.clone(), vec![&s.agent])),
        }
    }
    for (names, agents) in &told {
        eprintln!(
            "warning: {}: {}",
            agents.join(", "),
            stand_ins_text(program, names, leaf_default)
        );
    }
    tell_unwritten(summaries);
}

/// The stand-ins' outputs that the program reads and nothing wrote: a check on one fails
/// (or passes) forever, so say which, once per stand-in for the agents alike, and how to
/// give a value.
fn tell_unwritten(summaries: &[AgentSummary]) {
    // (agents, leaf, its (port, variable)s)
    type Told<'s> = (Vec<&'s str>, &'s str, Vec<(&'s str, &'s str)>);
    let mut told: Vec<Told> = Vec::new();
    for s in summaries {
        let mut mine: Vec<(&str, Vec<(&str, &str)>)> = Vec::new();
        for u in &s.unwritten {
            let port = (u.port.as_str(), u.variable.as_str());
            match mine.iter_mut().find(|(leaf, _)| *leaf == u.leaf) {
                Some((_, ports)) => ports.push(port),
                None => mine.push((&u.leaf, vec![port])),
            }
        }
        for (leaf, ports) in mine {
            match told.iter_mut().find(|(_, l, p)| *l == leaf && *p == ports) {
                Some((agents, _, _)) => agents.push(&s.agent),
                None => told.push((vec![&s.agent], leaf, ports)),
            }
        }
    }
    for (agents, leaf, ports) in told {
        let shown: Vec<String> = (ports.iter())
            .map(|(port, var)| match port == var {
                true => format!("`{port}`"),
                false => format!("`{port}` (into `{var}`)"),
            })
            .collect();
        let (s, keeps) = match ports.len() {
            1 => ("", "it keeps its first value"),
            _ => ("s", "they keep their first values"),
        };
        eprintln!(
            "warning: {}: stand-in {leaf} never wrote its out port{s} {}, which the program reads: {keeps}; give the stand-in a value to write with --leaf-out {leaf}.{}=VALUE",
            agents.join(", "),
            shown.join(", "),
            ports[0].0,
        );
    }
}

/// What the stand-ins of a run do: leaves return `--leaf-default` or their `--leaf`, a custom
/// decorator passes its child's status through, a custom control node is a Sequence (as the
/// BehaviorTree.CPP oracle's custom nodes do).
fn stand_ins_text(program: &Program, names: &[String], leaf_default: &str) -> String {
    use affect_compiler::builtins::NodeClass;
    let class = |n: &String| {
        program
            .leaves
            .iter()
            .find(|l| l.name == *n)
            .map_or(NodeClass::Action, |l| l.class)
    };
    let of = |want: &[NodeClass]| -> Vec<&str> {
        names
            .iter()
            .filter(|n| want.contains(&class(n)))
            .map(String::as_str)
            .collect()
    };
    let mut parts = Vec::new();
    let leaves = of(&[NodeClass::Action, NodeClass::Condition]);
    if !leaves.is_empty() {
        parts.push(format!(
            "{} return{} {} (--leaf-default) or {} --leaf/--leaf-cycle statuses",
            leaves.join(", "),
            if leaves.len() == 1 { "s" } else { "" },
            leaf_default.to_lowercase(),
            if leaves.len() == 1 { "its" } else { "their" }
        ));
    }
    let decorators = of(&[NodeClass::Decorator]);
    if !decorators.is_empty() {
        parts.push(format!(
            "decorator{} {} pass{} the child's status through",
            if decorators.len() == 1 { "" } else { "s" },
            decorators.join(", "),
            if decorators.len() == 1 { "es" } else { "" }
        ));
    }
    let controls = of(&[NodeClass::Control]);
    if !controls.is_empty() {
        parts.push(format!(
            "control node{} {} run{} as a sequence",
            if controls.len() == 1 { "" } else { "s" },
            controls.join(", "),
            if controls.len() == 1 { "s" } else { "" }
        ));
    }
    format!(
        "{} node{} without an implementation run{} as {}: {}",
        names.len(),
        if names.len() == 1 { "" } else { "s" },
        if names.len() == 1 { "s" } else { "" },
        if names.len() == 1 {
            "a stand-in"
        } else {
            "stand-ins"
        },
        parts.join("; ")
    )
}
