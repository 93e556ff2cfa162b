//! A component host as its own process (`affect host FILE --host NAME`): it runs the
//! components the world places on it (seed 001's ADEServers on a laptop), each alive as a
//! Zenoh liveliness token for as long as the process lives, and beating every `heartbeat`
//! of world time. The robots that use them watch both: a withdrawn token (the process died,
//! its link broke) is a failure at once; a heartbeat missing for longer than `timeout` (the
//! process hangs, or is cut off) is one at the deadline.
//!
//! The host also answers component calls (`call.rs` is the caller's side): a call addressed
//! to it for an instance it runs is answered `served` at once; a call for an instance it
//! does not run gets no answer (another process of the same host, a component restarted on
//! it, may run that one). While cut off it hears no calls.

use crate::clock::WallClock;
use crate::node::{Node, Raw};
use crate::wire::{self, Body};
use affect_compiler::ir::program::{ComponentSpec, Program};
use affect_compiler::ir::world::WorldSpec;
use affect_runtime::rng::Rng;
use affect_runtime::trace::{Event, TraceSink};
use std::time::Duration;

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

/// How a host answers: the world's message loss applies to its answers, drawn from its own
/// random stream (the run's seed and the host's name).
pub struct HostOptions {
    pub loss: f64,
    pub seed: u64,
    /// Started after the team's start to run components again (the launcher's restart): its
    /// trace says `restarted` for each, the one place a restart is a fact.
    pub restart: bool,
}

/// Writes an info line to the host's trace.
fn log(sink: &mut dyn TraceSink, now: f64, host: &str, text: String) {
    let _ = sink.line(
        0,
        now.max(0.0),
        host,
        &Event::Log {
            level: "info",
            text,
        },
    );
}

fn named(s: &Served) -> String {
    match &s.owner {
        Some(o) => format!("{} of {o}", s.spec.name),
        None => s.spec.name.clone(),
    }
}

/// Runs the host until stopped: tokens up, heartbeats out, calls answered, the launcher's
/// partitions and the world's scripted component faults (`script`) obeyed.
pub fn run(
    mut node: Node,
    clock: WallClock,
    served: &[Served],
    (program, mut script): (&Program, crate::script::Script),
    options: HostOptions,
    sink: &mut dyn TraceSink,
) -> Result<(), String> {
    let host = node.me.clone();
    let mut faulted = Faulted::new(served);
    for s in served {
        faulted.tokens.push(Some(token_of(&node, s)?));
        announce(s, &host, clock.now_ms().max(0.0), options.restart, sink);
    }
    let control = node.subscribe("control")?;
    let calls = node.subscribe("call")?;
    let mut answers = Answers {
        served,
        rng: Rng::named(options.seed, &format!("calls:{host}")),
        loss: options.loss.clamp(0.0, 1.0),
    };
    // Every component beats from the start (before the epoch, so its users hear it at once).
    let mut next: Vec<f64> = served.iter().map(|_| f64::NEG_INFINITY).collect();
    let mut cut_off_until = f64::NEG_INFINITY;
    let mut beats = 0u64;
    loop {
        let due = next.iter().copied().fold(f64::INFINITY, f64::min);
        let now = clock.now_ms();
        let mut first = None;
        if due > now {
            // Until the next heartbeat is due or a call comes, at most 100 ms of wall time:
            // partitions and stop requests are seen.
            let wall_ms = ((due - now) / clock.speed()).clamp(0.0, 100.0);
            first = calls.wait(Duration::from_secs_f64(wall_ms / 1000.0));
        }
        if clock.stopped() {
            break;
        }
        let now = clock.now_ms();
        for raw in control.drain() {
            if let Some(m) = node.accept(&raw) {
                match (&m.body, m.to.as_deref() == Some(host.as_str())) {
                    (Body::Partition { for_ms }, true) => {
                        cut_off_until = now + for_ms.max(0.0);
                    }
                    (Body::Start { epoch_ms }, _) if m.from == crate::keys::LAUNCHER => {
                        node.learn_launch(*epoch_ms);
                    }
                    _ => {}
                }
            }
        }
        faulted.apply(&mut script, (program, served), &node, now, sink)?;
        answers.answer(
            &mut node,
            first.into_iter().chain(calls.drain()),
            (now, now < cut_off_until),
            &faulted.failed,
            sink,
        );
        for (i, s) in served.iter().enumerate() {
            if next[i] > now || faulted.failed[i] {
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
    drop(faulted);
    drop(calls);
    Ok(())
}

/// The host's first lines about a component it runs: that it runs it, and `restarted` when
/// this process was started to run it again.
fn announce(s: &Served, host: &str, now: f64, restart: bool, sink: &mut dyn TraceSink) {
    let _ = sink.line(
        0,
        now,
        host,
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
    if restart {
        // Written by the host, as its other lines are (`agent` is the writer here).
        let _ = sink.line(
            0,
            now,
            host,
            &Event::Component {
                name: &s.spec.name,
                state: "restarted",
                host: Some(host),
                to: None,
                silence_ms: None,
            },
        );
    }
}

/// A component's liveliness token on this host.
fn token_of(node: &Node, s: &Served) -> Result<zenoh::liveliness::LivelinessToken, String> {
    node.declare_alive(wire::component_alive(
        &node.team,
        &node.me,
        s.owner.as_deref(),
        &s.spec.name,
    ))
}

/// The served components' tokens and what the world's script did to them.
struct Faulted {
    /// Each served component's token; `None` once withdrawn.
    tokens: Vec<Option<zenoh::liveliness::LivelinessToken>>,
    /// Failed by the script: silent and deaf until it recovers...
    failed: Vec<bool>,
    /// ... since this world time.
    failed_at: Vec<f64>,
    /// (owner, name) of each, as the script names them.
    ids: Vec<(Option<String>, String)>,
}

impl Faulted {
    fn new(served: &[Served]) -> Faulted {
        Faulted {
            tokens: Vec::new(),
            failed: vec![false; served.len()],
            failed_at: vec![f64::INFINITY; served.len()],
            ids: (served.iter())
                .map(|s| (s.owner.clone(), s.spec.name.clone()))
                .collect(),
        }
    }

    /// Applies the script's events due by `now`, and withdraws the token of a component
    /// failed for its `timeout`: its users have found it silent by then, as they would a
    /// real host whose link is down for good, and the launcher then takes it for gone and
    /// starts the restart its users ask for.
    fn apply(
        &mut self,
        script: &mut crate::script::Script,
        (program, served): (&Program, &[Served]),
        node: &Node,
        now: f64,
        sink: &mut dyn TraceSink,
    ) -> Result<(), String> {
        for a in script.due(now, program, &self.ids) {
            let i = a.served;
            if self.failed[i] == a.failed {
                continue;
            }
            self.failed[i] = a.failed;
            self.failed_at[i] = if a.failed { a.at_ms } else { f64::INFINITY };
            if !a.failed && self.tokens[i].is_none() {
                self.tokens[i] = Some(token_of(node, &served[i])?);
            }
            let what = if a.failed { "fails" } else { "recovers" };
            let text = format!(
                "{}: {} {what} (the world's script, at {:.1} s)",
                node.me,
                named(&served[i]),
                a.at_ms / 1000.0
            );
            log(sink, a.at_ms, &node.me, text);
        }
        for (i, s) in served.iter().enumerate() {
            if self.failed_at[i] + s.spec.timeout_ms <= now {
                self.tokens[i] = None;
            }
        }
        Ok(())
    }
}

/// What a host needs to answer calls.
struct Answers<'a> {
    served: &'a [Served],
    rng: Rng,
    loss: f64,
}

impl Answers<'_> {
    /// Answers the calls addressed to this host for instances it runs (none while cut off).
    fn answer(
        &mut self,
        node: &mut Node,
        raws: impl Iterator<Item = Raw>,
        (now, cut_off): (f64, bool),
        failed: &[bool],
        sink: &mut dyn TraceSink,
    ) {
        let host = node.me.clone();
        for raw in raws {
            let Some(m) = node.accept(&raw) else {
                continue;
            };
            let Body::Call {
                id,
                owner,
                component,
                leaf,
            } = &m.body
            else {
                continue;
            };
            if cut_off || m.to.as_deref() != Some(host.as_str()) || m.lost_for.contains(&host) {
                continue;
            }
            let runs = (self.served.iter().enumerate()).any(|(i, s)| {
                s.owner == *owner
                    && s.spec.name == *component
                    && !failed.get(i).copied().unwrap_or(false)
            });
            if !runs {
                continue;
            }
            let lost = self.loss > 0.0 && self.rng.chance(self.loss);
            node.publish(
                now,
                Some(m.from.clone()),
                if lost {
                    vec![m.from.clone()]
                } else {
                    Vec::new()
                },
                Body::Reply {
                    id: *id,
                    served: true,
                    why: None,
                },
            );
            let _ = sink.line(
                0,
                now.max(0.0),
                &host,
                &Event::Call {
                    caller: &m.from,
                    component,
                    leaf,
                    host: &host,
                    id: *id,
                    state: "served",
                    ms: None,
                    why: None,
                },
            );
        }
    }
}
