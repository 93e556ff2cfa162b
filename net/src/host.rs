//! A component host as its own process (`affect host FILE --host NAME`): it runs the
//! components the world places on it (seed 001's ADEServers on a laptop), each alive as a
//! Zenoh liveliness token for as long as the process lives, and beating every `heartbeat`
//! of world time. The robots that use them watch both: a withdrawn token (the process died,
//! its link broke) is a failure at once; a heartbeat missing for longer than `timeout` (the
//! process hangs, or is cut off) is one at the deadline.

use crate::clock::WallClock;
use crate::node::Node;
use crate::wire::{self, Body};
use affect_compiler::ir::program::{ComponentSpec, Program};
use affect_compiler::ir::world::WorldSpec;
use affect_runtime::run::Clock;
use affect_runtime::trace::{Event, TraceSink};

/// One component instance a host runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Served {
    /// The agent instance it belongs to; `None` for a top-level component.
    pub owner: Option<String>,
    pub spec: ComponentSpec,
}

/// The instance names a world gives its agents, with their programs, in spawn order.
pub fn instances(world: &WorldSpec, program: &Program) -> Result<Vec<(String, String)>, String> {
    let w = affect_runtime::world::World::new(world)
        .map_err(|e| format!("world `{}` cannot be built: {e}", world.name))?;
    Ok(w.agents()
        .iter()
        .filter(|a| program.agents.iter().any(|p| p.name == a.program))
        .map(|a| (a.name.clone(), a.program.clone()))
        .collect())
}

/// What host `host` runs: the components the world places on it (only `only`, when given),
/// for every instance whose agent declares them, and the top-level ones.
pub fn served_on(
    program: &Program,
    world: &WorldSpec,
    host: &str,
    only: &[String],
) -> Result<Vec<Served>, String> {
    let placed: Vec<String> = match world.hosts.iter().find(|h| h.name == host) {
        Some(h) => h.components.iter().map(|c| c.name.clone()).collect(),
        None => {
            let names: Vec<&str> = world.hosts.iter().map(|h| h.name.as_str()).collect();
            return Err(format!(
                "world `{}` has no host `{host}` (hosts: {})",
                world.name,
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            ));
        }
    };
    let wanted: Vec<String> = if only.is_empty() {
        placed
    } else {
        only.to_vec()
    };
    let instances = instances(world, program)?;
    let mut out = Vec::new();
    for name in &wanted {
        let mut found = false;
        if let Some(spec) = program.components.iter().find(|c| c.name == *name) {
            out.push(Served {
                owner: None,
                spec: spec.clone(),
            });
            found = true;
        }
        for (instance, agent) in &instances {
            let spec = program
                .agents
                .iter()
                .find(|a| a.name == *agent)
                .and_then(|a| a.components.iter().find(|c| c.name == *name));
            if let Some(spec) = spec {
                out.push(Served {
                    owner: Some(instance.clone()),
                    spec: spec.clone(),
                });
                found = true;
            }
        }
        if !found {
            return Err(format!(
                "no agent or top-level declaration has a component `{name}`"
            ));
        }
    }
    Ok(out)
}

/// Runs the host until stopped: tokens up, heartbeats out, the launcher's partitions obeyed.
pub fn run(
    mut node: Node,
    mut clock: WallClock,
    served: &[Served],
    sink: &mut dyn TraceSink,
) -> Result<(), String> {
    let host = node.me.clone();
    let mut tokens = Vec::new();
    for s in served {
        tokens.push(node.declare_alive(wire::component_alive(
            &node.team,
            &host,
            s.owner.as_deref(),
            &s.spec.name,
        ))?);
        let _ = sink.line(
            0,
            clock.now_ms().max(0.0),
            &host,
            &Event::Log {
                level: "info",
                text: format!(
                    "{host} runs {}{}",
                    s.spec.name,
                    s.owner
                        .as_ref()
                        .map_or(String::new(), |o| format!(" for {o}"))
                ),
            },
        );
    }
    let control = node.subscribe("control")?;
    // Every component beats from the start (before the epoch, so its users hear it at once).
    let mut next: Vec<f64> = served.iter().map(|_| f64::NEG_INFINITY).collect();
    let mut cut_off_until = f64::NEG_INFINITY;
    let mut beats = 0u64;
    loop {
        let due = next.iter().copied().fold(f64::INFINITY, f64::min);
        let now = clock.now_ms();
        if due > now {
            // At least every 100 ms of wall time: partitions and stop requests are seen.
            clock.wait_until(due.min(now + 100.0 * clock.speed()));
        }
        if clock.stopped() {
            break;
        }
        let now = clock.now_ms();
        for raw in control.drain() {
            if let Some(m) = node.accept(&raw) {
                if let (Body::Partition { for_ms }, true) =
                    (&m.body, m.to.as_deref() == Some(host.as_str()))
                {
                    cut_off_until = now + for_ms.max(0.0);
                }
            }
        }
        for (i, s) in served.iter().enumerate() {
            if next[i] > now {
                continue;
            }
            let period = s.spec.heartbeat_ms.max(1.0);
            next[i] = if next[i].is_finite() {
                (next[i] + period).max(now)
            } else {
                now + period
            };
            if now < cut_off_until {
                continue;
            }
            node.publish(
                now,
                None,
                Vec::new(),
                Body::Heartbeat {
                    owner: s.owner.clone(),
                    component: s.spec.name.clone(),
                    host: host.clone(),
                },
            );
            beats += 1;
        }
        for r in node.rejected.drain(..) {
            let _ = sink.line(
                0,
                now.max(0.0),
                &host,
                &Event::Rejected {
                    from: &r.from,
                    kind: &r.kind,
                    why: &r.why,
                },
            );
        }
    }
    let _ = sink.line(
        0,
        clock.now_ms().max(0.0),
        &host,
        &Event::Log {
            level: "info",
            text: format!("{host} stops after {beats} heartbeats"),
        },
    );
    drop(tokens);
    Ok(())
}
