//! The launch's one trace: every process's JSON Lines merged in world-time order (lines of
//! the same time keep their process's order), each line keeping its `agent` and the `pid`
//! its process wrote. Then what the merged trace says about each injected fault: when the
//! robots found the failed components, and how long recovery took (seed 001's measures).

use crate::faults::{Fault, FaultKind};
use affect_compiler::ir::program::Program;
use affect_compiler::ir::world::WorldSpec;
use std::path::Path;

/// How a fault was seen and repaired, the way seed 001's Table I reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct Measure {
    pub fault: String,
    pub component: String,
    pub owner: String,
    /// World ms from the fault to the robot's `failed`.
    pub detected_after_ms: Option<f64>,
    /// World ms from `failed` to `rebound` or `recovered`.
    pub recovered_after_ms: Option<f64>,
    /// `rebound` (redundant instance) or `recovered` (restart).
    pub how: Option<String>,
    /// The component's declared heartbeat.
    pub heartbeat_ms: f64,
}

/// One line of a merged trace.
#[derive(Clone, Debug)]
pub struct Line {
    pub t_ms: f64,
    pub text: String,
    pub value: serde_json::Value,
}

/// Reads the traces (a missing file, a process that died before writing, is empty; a torn
/// last line of a killed process is dropped) and merges them by `t_ms`.
pub fn merge(files: &[&Path]) -> Result<Vec<Line>, String> {
    let mut all: Vec<(f64, usize, usize, Line)> = Vec::new();
    for (fi, f) in files.iter().enumerate() {
        let text = match std::fs::read_to_string(f) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(format!("cannot read `{}`: {e}", f.display())),
        };
        for (li, raw) in text.lines().enumerate() {
            let Ok(value) = serde_json::from_str::<serde_json::Value>(raw) else {
                continue;
            };
            let t_ms = value.get("t_ms").and_then(|t| t.as_f64()).unwrap_or(0.0);
            all.push((
                t_ms,
                fi,
                li,
                Line {
                    t_ms,
                    text: raw.to_string(),
                    value,
                },
            ));
        }
    }
    all.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    Ok(all.into_iter().map(|(_, _, _, l)| l).collect())
}

fn str_of<'a>(v: &'a serde_json::Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(|x| x.as_str())
}

/// For each fault, each component its target ran and each robot using it: how long until
/// the robot found it failed, and until it was served again.
pub fn measure(
    lines: &[Line],
    faults: &[(Fault, f64)],
    program: &Program,
    world: &WorldSpec,
) -> Vec<Measure> {
    let mut out = Vec::new();
    for (fault, at) in faults {
        if matches!(
            fault.kind,
            FaultKind::Partition { .. } | FaultKind::Pause { .. }
        ) && !world.hosts.iter().any(|h| h.name == fault.target)
        {
            continue;
        }
        let Some(host) = world.hosts.iter().find(|h| h.name == fault.target) else {
            continue;
        };
        for c in &host.components {
            let heartbeat_ms = program
                .agents
                .iter()
                .flat_map(|a| &a.components)
                .chain(&program.components)
                .find(|s| s.name == c.name)
                .map_or(f64::NAN, |s| s.heartbeat_ms);
            // Each robot (or `*`) that reports on this component.
            let mut owners: Vec<String> = Vec::new();
            for l in lines.iter().filter(|l| l.t_ms >= *at) {
                if str_of(&l.value, "ev") == Some("component")
                    && str_of(&l.value, "name") == Some(c.name.as_str())
                {
                    let agent = str_of(&l.value, "agent").unwrap_or("?").to_string();
                    if !owners.contains(&agent) {
                        owners.push(agent);
                    }
                }
            }
            for owner in owners {
                let events: Vec<&Line> = lines
                    .iter()
                    .filter(|l| {
                        l.t_ms >= *at
                            && str_of(&l.value, "ev") == Some("component")
                            && str_of(&l.value, "name") == Some(c.name.as_str())
                            && str_of(&l.value, "agent") == Some(owner.as_str())
                    })
                    .collect();
                let failed = events
                    .iter()
                    .find(|l| str_of(&l.value, "state") == Some("failed"));
                let back = failed.and_then(|f| {
                    events.iter().find(|l| {
                        l.t_ms >= f.t_ms
                            && matches!(str_of(&l.value, "state"), Some("rebound" | "recovered"))
                    })
                });
                out.push(Measure {
                    fault: format!("{} {}@{:.1}s", fault.kind.name(), fault.target, at / 1000.0),
                    component: c.name.clone(),
                    owner,
                    detected_after_ms: failed.map(|f| f.t_ms - at),
                    recovered_after_ms: failed.zip(back).map(|(f, b)| b.t_ms - f.t_ms),
                    how: back
                        .and_then(|b| str_of(&b.value, "state"))
                        .map(str::to_string),
                    heartbeat_ms,
                });
            }
        }
    }
    out
}
