//! What the command line asks of the run's stand-ins, checked before anything is built: a
//! `--leaf`/`--leaf-cycle` key must name a foreign node, and each `--leaf-out NODE.PORT=VALUE`
//! becomes the value one node writes to one of its out ports (E0602 for a node, port or
//! value that does not fit). After the run, the outputs of stand-ins that the program reads
//! and nothing ever wrote.

use super::{LeafOut, RunConfig, UnwrittenOutput};
use crate::leaf::{rank, StandInWrite};
use crate::sim::SimAgent;
use affect_compiler::diagnostic::Diagnostic;
use affect_compiler::ir::program::PortDir;
use affect_compiler::ir::program::{AgentProgram, LeafInfo, Node, NodeKind, PortBinding, Program};
use affect_compiler::span::Span;

/// Every foreign node of every agent, with its declaration.
fn foreign_nodes(
    program: &Program,
) -> impl Iterator<Item = (&AgentProgram, usize, &Node, &LeafInfo)> {
    program.agents.iter().flat_map(move |a| {
        a.nodes
            .iter()
            .enumerate()
            .filter_map(move |(i, n)| match &n.kind {
                NodeKind::Foreign { leaf, .. } => program
                    .leaves
                    .get(*leaf as usize)
                    .map(|info| (a, i, n, info)),
                _ => None,
            })
    })
}

/// Whether `key` names a declared leaf or a foreign node of some agent.
fn known(program: &Program, key: &str) -> bool {
    program.leaves.iter().any(|l| l.name == key)
        || foreign_nodes(program).any(|(_, _, n, info)| rank(n, info, key).is_some())
}

/// Checks the `--leaf` keys and reads the `--leaf-out` values into what each node writes.
pub(super) fn resolve(
    program: &Program,
    config: &RunConfig,
) -> Result<Vec<StandInWrite>, Vec<Diagnostic>> {
    let mut diags = Vec::new();
    for script in &config.leaves {
        let flag = if script.cycle {
            "--leaf-cycle"
        } else {
            "--leaf"
        };
        if !known(program, &script.key) {
            diags.push(no_such_node(program, flag, &script.key, &script.key));
        }
    }
    // One per (agent, node, port), with the rank of the key that chose it: the most specific
    // key wins, then the last given.
    let mut chosen: Vec<(StandInWrite, u8)> = Vec::new();
    for out in &config.leaf_outs {
        let arg = format!("{}.{}={}", out.node, out.port, out.value);
        if !known(program, &out.node) {
            diags.push(no_such_node(program, "--leaf-out", &out.node, &arg));
            continue;
        }
        match writes(program, out, &arg) {
            Ok(found) => {
                for (write, r) in found {
                    let same = |(w, _): &&mut (StandInWrite, u8)| {
                        w.agent == write.agent && w.node == write.node && w.port == write.port
                    };
                    match chosen.iter_mut().find(same) {
                        Some(c) if c.1 < r => {}
                        Some(c) => *c = (write, r),
                        None => chosen.push((write, r)),
                    }
                }
            }
            Err(d) => diags.push(*d),
        }
    }
    if diags.is_empty() {
        Ok(chosen.into_iter().map(|(w, _)| w).collect())
    } else {
        Err(diags)
    }
}

/// What one `--leaf-out` writes: for each node it names, the port and the value read as
/// the type of the variable the port is bound to (a port left unbound writes nowhere). The
/// port is checked against the declaration even where no call names it (an error shown
/// there); a value the variable cannot hold is an error of the argument `arg`.
fn writes(
    program: &Program,
    out: &LeafOut,
    arg: &str,
) -> Result<Vec<(StandInWrite, u8)>, Box<Diagnostic>> {
    let port_error = |info: &LeafInfo, e: String| {
        Box::new(at_declaration(info, format!("--leaf-out {arg}: {e}")))
    };
    for info in program.leaves.iter().filter(|l| l.name == out.node) {
        out_port(info, &out.port).map_err(|e| port_error(info, e))?;
    }
    let mut found = Vec::new();
    for (agent, i, node, info) in foreign_nodes(program) {
        let Some(r) = rank(node, info, &out.node) else {
            continue;
        };
        let port = out_port(info, &out.port).map_err(|e| port_error(info, e))?;
        let NodeKind::Foreign { ports, .. } = &node.kind else {
            continue;
        };
        let Some(PortBinding::Slot(slot)) = ports.get(port) else {
            continue;
        };
        let slot = &agent.slots[*slot as usize];
        let value = super::values::parse_value(program, slot, &out.value)
            .map_err(|e| Box::new(usage(format!("--leaf-out {arg}: {e}"))))?;
        let write = StandInWrite {
            agent: agent.name.clone(),
            node: i as u32,
            port,
            value,
        };
        found.push((write, r));
    }
    Ok(found)
}

/// The position of an out (or inout) port in a leaf's declaration.
fn out_port(info: &LeafInfo, port: &str) -> Result<usize, String> {
    let outs: Vec<&str> = info
        .ports
        .iter()
        .filter(|p| p.dir != PortDir::In)
        .map(|p| p.name.as_str())
        .collect();
    let listed = if outs.is_empty() {
        format!("`{}` has no out ports", info.name)
    } else {
        format!("its out ports: {}", outs.join(", "))
    };
    match info.ports.iter().position(|p| p.name == port) {
        Some(i) if info.ports[i].dir != PortDir::In => Ok(i),
        Some(_) => Err(format!(
            "`{port}` is an in port of `{}`; a stand-in writes out ports ({listed})",
            info.name
        )),
        None => {
            let guess = affect_compiler::suggest::closest(port, outs.iter().copied())
                .map_or(String::new(), |g| format!("; did you mean `{g}`?"));
            Err(format!(
                "`{}` has no port `{port}` ({listed}){guess}",
                info.name
            ))
        }
    }
}

fn usage(message: String) -> Diagnostic {
    Diagnostic::error("E0602", message, Span::DUMMY)
}

/// A `--leaf-out` that does not fit the node's declaration, shown at the declaration.
fn at_declaration(info: &LeafInfo, message: String) -> Diagnostic {
    Diagnostic::error("E0602", message, info.span)
        .with_label(format!("`{}` declares its ports here", info.name))
}

fn no_such_node(program: &Program, flag: &str, key: &str, arg: &str) -> Diagnostic {
    let mut names: Vec<&str> = Vec::new();
    for (_, _, n, info) in foreign_nodes(program) {
        for name in [info.name.as_str(), n.name.as_str(), n.path.as_str()] {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    let d = usage(format!(
        "{flag} {arg}: no action, condition or foreign node `{key}` in this program"
    ));
    match affect_compiler::suggest::closest(key, names.iter().copied()) {
        Some(g) => d.with_help(format!("did you mean `{g}`?")),
        None if names.is_empty() => {
            d.with_help("the program declares no foreign node: nothing runs as a stand-in")
        }
        None => d.with_help(format!(
            "a node is named by its path, its label or its declared name (declared: {})",
            declared(program).join(", ")
        )),
    }
}

fn declared(program: &Program) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for (_, _, _, info) in foreign_nodes(program) {
        if !names.contains(&info.name.as_str()) {
            names.push(&info.name);
        }
    }
    names
}

/// The stand-ins' outputs the program reads that nothing wrote since `written_at_start`
/// (the slots' write counters when the run began): a check on one never sees a new value.
pub(super) fn unwritten(agent: &SimAgent, written_at_start: &[u32]) -> Vec<UnwrittenOutput> {
    let read = affect_compiler::ir::reads::slots_read(agent.program);
    let mut out: Vec<UnwrittenOutput> = Vec::new();
    for (q, &start) in agent.quiet_outputs.iter().zip(written_at_start) {
        let s = q.slot as usize;
        if !read[s] || agent.machine.writes_of(q.slot) != start {
            continue;
        }
        let o = UnwrittenOutput {
            leaf: q.leaf.clone(),
            port: q.port.clone(),
            variable: agent.program.slots[s].name.clone(),
        };
        if !out.contains(&o) {
            out.push(o);
        }
    }
    out
}
