//! The launch's one trace: every process's JSON Lines merged in world-time order (lines of
//! the same time keep their process's order), each line keeping its `agent` and the `pid`
//! its process wrote. Then what the merged trace says about each injected fault: when the
//! robots found the failed components, and how long recovery took (seed 001's measures).

use crate::faults::Fault;
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

/// One line of a merged trace: its world time and its text (parsed again only where a line
/// is looked into: a team's trace has millions of lines).
#[derive(Clone, Debug)]
pub struct Line {
    pub t_ms: f64,
    pub text: String,
}

impl Line {
    /// The line's event kind, as the runtime writes it (`"ev":"component"`).
    pub fn is(&self, ev: &str) -> bool {
        self.text.contains(&format!("\"ev\":\"{ev}\""))
    }

    pub fn value(&self) -> Option<serde_json::Value> {
        serde_json::from_str(&self.text).ok()
    }
}

/// The world time of a trace line, read without building the line's value; `None` for a
/// line that is not JSON (the torn last line of a killed process).
fn time_of(raw: &str) -> Option<f64> {
    #[derive(serde::Deserialize)]
    struct Time {
        t_ms: Option<f64>,
    }
    serde_json::from_str::<Time>(raw)
        .ok()
        .map(|t| t.t_ms.unwrap_or(0.0))
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
            let Some(t_ms) = time_of(raw) else {
                continue;
            };
            all.push((
                t_ms,
                fi,
                li,
                Line {
                    t_ms,
                    text: raw.to_string(),
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
    // The component lines, the only ones looked into: (world ms, value).
    let components: Vec<(f64, serde_json::Value)> = lines
        .iter()
        .filter(|l| l.is("component"))
        .filter_map(|l| Some((l.t_ms, l.value()?)))
        .collect();
    let robots: Vec<(f64, serde_json::Value)> = lines
        .iter()
        .filter(|l| l.is("robot"))
        .filter_map(|l| Some((l.t_ms, l.value()?)))
        .collect();
    let mut out = Vec::new();
    for (fault, at) in faults {
        let Some(host) = world.hosts.iter().find(|h| h.name == fault.target) else {
            out.extend(robot_measure(&robots, fault, *at));
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
            for (_, l) in components.iter().filter(|(t, _)| *t >= *at) {
                if str_of(l, "name") == Some(c.name.as_str()) {
                    let agent = str_of(l, "agent").unwrap_or("?").to_string();
                    // A host writes its own `restarted` line: it is not a robot the
                    // component serves, so it gets no measure of its own.
                    if world.hosts.iter().any(|h| h.name == agent) {
                        continue;
                    }
                    if !owners.contains(&agent) {
                        owners.push(agent);
                    }
                }
            }
            for owner in owners {
                let events: Vec<(f64, &serde_json::Value)> = components
                    .iter()
                    .filter(|(t, l)| {
                        *t >= *at
                            && str_of(l, "name") == Some(c.name.as_str())
                            && str_of(l, "agent") == Some(owner.as_str())
                    })
                    .map(|(t, l)| (*t, l))
                    .collect();
                let failed = events
                    .iter()
                    .find(|(_, l)| str_of(l, "state") == Some("failed"));
                let back = failed.and_then(|(f, _)| {
                    events.iter().find(|(t, l)| {
                        t >= f && matches!(str_of(l, "state"), Some("rebound" | "recovered"))
                    })
                });
                out.push(Measure {
                    fault: format!("{} {}@{:.1}s", fault.kind.name(), fault.target, at / 1000.0),
                    component: c.name.clone(),
                    owner,
                    detected_after_ms: failed.map(|(f, _)| f - at),
                    recovered_after_ms: failed.zip(back).map(|((f, _), (b, _))| b - f),
                    how: back
                        .and_then(|(_, b)| str_of(b, "state"))
                        .map(str::to_string),
                    heartbeat_ms,
                });
            }
        }
    }
    out
}

/// A fault of a robot: how soon a teammate found it lost (`robot` lines), and how soon
/// after that it was heard again (`restarted` when a new process was heard: the launcher
/// started it again).
fn robot_measure(robots: &[(f64, serde_json::Value)], fault: &Fault, at: f64) -> Option<Measure> {
    let about = |state: &str, after: f64| {
        robots.iter().find(|(t, l)| {
            *t >= after
                && str_of(l, "name") == Some(fault.target.as_str())
                && str_of(l, "state") == Some(state)
        })
    };
    let lost = about("lost", at);
    let back = lost.and_then(|(t, _)| about("back", *t));
    Some(Measure {
        fault: format!("{} {}@{:.1}s", fault.kind.name(), fault.target, at / 1000.0),
        component: ROBOT.to_string(),
        owner: fault.target.clone(),
        detected_after_ms: lost.map(|(t, _)| t - at),
        recovered_after_ms: lost.zip(back).map(|((l, _), (b, _))| b - l),
        how: back.map(|(_, b)| {
            if str_of(b, "why").is_some_and(|w| w.contains("new process")) {
                "restarted".to_string()
            } else {
                "back".to_string()
            }
        }),
        heartbeat_ms: f64::NAN,
    })
}

/// [`Measure::component`] of a robot's own fault (the process is the robot).
pub const ROBOT: &str = "robot";

/// How hard the merged trace is compressed (`.zst`): zstd's default level, which writes
/// a team's trace at hundreds of megabytes a second.
const ZSTD_LEVEL: i32 = 3;

/// Writes the merged trace, one line each; a path ending in `.zst` is compressed with
/// Zstandard (what `affect report` reads as it is, and `zstd -d` unpacks).
pub fn write(lines: &[Line], out: &Path) -> Result<(), String> {
    let cannot = |e: std::io::Error| format!("cannot write `{}`: {e}", out.display());
    let file = std::fs::File::create(out).map_err(cannot)?;
    if out.extension().is_some_and(|x| x == "zst") {
        let mut z = zstd::Encoder::new(file, ZSTD_LEVEL).map_err(cannot)?;
        write_lines(lines, &mut z).map_err(cannot)?;
        z.finish().map_err(cannot)?;
    } else {
        let mut file = file;
        write_lines(lines, &mut file).map_err(cannot)?;
    }
    Ok(())
}

fn write_lines(lines: &[Line], out: &mut dyn std::io::Write) -> std::io::Result<()> {
    use std::io::Write;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, out);
    for line in lines {
        w.write_all(line.text.as_bytes())?;
        w.write_all(b"\n")?;
    }
    w.flush()
}
