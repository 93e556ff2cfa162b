//! How the processes of a launch start together: each one, once its session is open and its
//! subscriptions declared, waits until it sees every other member's liveliness token (so
//! every peer link is up), declares its `ready` token, and waits for the launcher's `start`,
//! which names the epoch: world time 0 on the wall clock, the same for everyone.

use crate::keys::LAUNCHER;
use crate::node::Node;
use crate::wire::{self, Alive, Body};
use affect_compiler::ir::program::Program;
use affect_compiler::ir::world::WorldSpec;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Every member of a launched team: the world's robots, its component hosts, the launcher.
pub fn members(program: &Program, world: &WorldSpec) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = crate::host::instances(world, program)?
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    out.extend(world.hosts.iter().map(|h| h.name.clone()));
    out.push(LAUNCHER.to_string());
    Ok(out)
}

/// Waits for every `expected` member (but itself), says it is ready, and returns the epoch
/// the launcher announces. The returned token must live as long as the process.
pub fn await_start(
    node: &mut Node,
    expected: &[String],
    stop: &AtomicBool,
    limit: Duration,
) -> Result<(f64, zenoh::liveliness::LivelinessToken), String> {
    let alive = node.watch_alive()?;
    let control = node.subscribe("control")?;
    let started = Instant::now();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut ready = None;
    let want: BTreeSet<&str> = expected
        .iter()
        .map(String::as_str)
        .filter(|m| *m != node.me)
        .collect();
    loop {
        if stop.load(Ordering::Relaxed) {
            return Err("stopped before the start".into());
        }
        if started.elapsed() > limit {
            let missing: Vec<&str> = want
                .iter()
                .copied()
                .filter(|m| !seen.contains(*m))
                .collect();
            return Err(format!(
                "no start within {} s (not seen: {})",
                limit.as_secs(),
                if missing.is_empty() {
                    "nobody; the launcher did not say start".to_string()
                } else {
                    missing.join(", ")
                }
            ));
        }
        for (key, up) in alive.drain() {
            if let Some(Alive::Member(m)) = wire::parse_alive(&node.team, &key) {
                if up {
                    seen.insert(m);
                } else {
                    seen.remove(&m);
                }
            }
        }
        if ready.is_none() && want.iter().all(|m| seen.contains(*m)) {
            ready = Some(node.declare_alive(wire::ready(&node.team, &node.me))?);
        }
        for raw in control.drain() {
            if let Some(m) = node.peek(&raw) {
                if let (Body::Start { epoch_ms }, LAUNCHER) = (&m.body, m.from.as_str()) {
                    if let Some(token) = ready.take() {
                        node.learn_launch(*epoch_ms);
                        return Ok((*epoch_ms, token));
                    }
                }
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}
