//! Reading a JSON Lines trace (docs/trace.md) into what the report shows, in one pass and in
//! memory bounded by the report's resolution rather than by the trace: node statuses per time
//! bucket (the last status each node had in each bucket), each numeric variable's minimum and
//! maximum per bucket, the first changes of drives, emotions and the story, the error that
//! stopped an agent's tree, the messages a robot refused (security), its wall-clock timing
//! and the processes (`pid`) that wrote its lines. Every kind of event the runtime writes
//! shows somewhere (`every_event.rs` holds that to the event enum).

use serde_json::Value;
use std::collections::BTreeMap;
use std::io::BufRead;

/// Time buckets across the run.
pub const BUCKETS: usize = 400;
/// Story lines and changes kept per agent (the rest are counted).
pub const KEPT_LINES: usize = 400;

#[derive(Default)]
pub struct Node {
    pub path: String,
    /// Transitions into IDLE, RUNNING, SUCCESS, FAILURE, SKIPPED.
    pub counts: [u64; 5],
    /// Per bucket: the last status entered (0..4), or 255 when none.
    pub buckets: Vec<u8>,
}

/// A numeric variable: min and max per bucket (NaN where it did not change).
pub struct Series {
    pub min: Vec<f64>,
    pub max: Vec<f64>,
    /// The value before the first bucket with a change carries over.
    pub first: f64,
    pub changes: u64,
}

/// A variable whose values are names (an enum, a label): when it took each.
#[derive(Default)]
pub struct Steps {
    pub values: Vec<(f64, String)>,
    pub dropped: u64,
}

#[derive(Default)]
pub struct Agent {
    pub name: String,
    pub nodes: BTreeMap<u64, Node>,
    pub series: BTreeMap<String, Series>,
    pub steps: BTreeMap<String, Steps>,
    /// (t_ms, kind, text): drive and emotion changes, memory, messages, logs.
    pub story: Vec<(f64, &'static str, String)>,
    pub story_dropped: u64,
    pub ticks: u64,
    pub node_events: u64,
    pub summary: Option<String>,
    /// The first `error` event (a read of a variable without a value stopped the agent's
    /// tree): its tick, `t_ms` and text.
    pub error: Option<(u64, f64, String)>,
    /// Messages from the network the agent refused (`rejected`): (t_ms, from, kind, why),
    /// the first `KEPT_LINES`, then counted.
    pub rejected: Vec<(f64, String, String, String)>,
    pub rejected_dropped: u64,
    /// The processes that wrote the agent's lines (networked runs), in order of appearance:
    /// a component host started again is a new one.
    pub pids: Vec<u64>,
    /// Ticks measured on the wall clock (`timing`), those over the period, those that missed
    /// their deadline, the periods skipped after stalls, the longest tick (µs),
    /// and the run's `timing_summary` as (label, value) pairs.
    pub timed_ticks: u64,
    pub overruns: u64,
    pub missed: u64,
    pub skipped: u64,
    pub longest_us: f64,
    pub timing: Option<Vec<(&'static str, String)>>,
}

/// How many processes an agent lists (more are not expected: one per start of a host).
const KEPT_PIDS: usize = 32;

impl Agent {
    /// A line of the story, or one more counted as dropped once `KEPT_LINES` are kept.
    fn tell(&mut self, t: f64, kind: &'static str, said: String) {
        if self.story.len() < KEPT_LINES {
            self.story.push((t, kind, said));
        } else {
            self.story_dropped += 1;
        }
    }
}

pub struct Run {
    pub agents: Vec<Agent>,
    pub end_ms: f64,
    pub lines: u64,
    pub node_events: u64,
    pub bad_lines: u64,
}

fn bucket(t_ms: f64, end_ms: f64) -> usize {
    if end_ms <= 0.0 {
        return 0;
    }
    ((t_ms / end_ms * BUCKETS as f64) as usize).min(BUCKETS - 1)
}

fn status(s: &str) -> u8 {
    match s {
        "RUNNING" => 1,
        "SUCCESS" => 2,
        "FAILURE" => 3,
        "SKIPPED" => 4,
        _ => 0,
    }
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Reads a trace. `end_ms` is the run's length (a first pass finds it: the last `t_ms`).
pub fn read(input: impl BufRead, end_ms: f64) -> Result<Run, String> {
    let mut run = Run {
        agents: Vec::new(),
        end_ms,
        lines: 0,
        node_events: 0,
        bad_lines: 0,
    };
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    for line in input.lines() {
        let line = line.map_err(|e| e.to_string())?;
        if line.trim().is_empty() {
            continue;
        }
        run.lines += 1;
        let Ok(ev) = serde_json::from_str::<Value>(&line) else {
            run.bad_lines += 1;
            continue;
        };
        let (Some(agent), Some(kind)) = (ev["agent"].as_str(), ev["ev"].as_str()) else {
            run.bad_lines += 1;
            continue;
        };
        let t = ev["t_ms"].as_f64().unwrap_or(0.0);
        let k = *index.entry(agent.to_string()).or_insert_with(|| {
            run.agents.push(Agent {
                name: agent.to_string(),
                ..Agent::default()
            });
            run.agents.len() - 1
        });
        let a = &mut run.agents[k];
        a.ticks = a.ticks.max(ev["tick"].as_u64().unwrap_or(0));
        if let Some(pid) = ev["pid"].as_u64() {
            if !a.pids.contains(&pid) && a.pids.len() < KEPT_PIDS {
                a.pids.push(pid);
            }
        }
        let b = bucket(t, end_ms);
        match kind {
            "node" => {
                run.node_events += 1;
                a.node_events += 1;
                let uid = ev["uid"].as_u64().unwrap_or(0);
                let n = a.nodes.entry(uid).or_insert_with(|| Node {
                    path: text(&ev["path"]),
                    buckets: vec![255; BUCKETS],
                    ..Node::default()
                });
                let s = status(ev["to"].as_str().unwrap_or(""));
                n.counts[s as usize] += 1;
                // What a person wants to see in a bucket is the most telling status: a failure
                // or a success over the IDLE that follows it in the same tick.
                let old = n.buckets[b];
                if old == 255 || s != 0 || old == 0 {
                    n.buckets[b] = s;
                }
            }
            "var" => {
                let name = text(&ev["name"]);
                match &ev["value"] {
                    Value::Number(x) => {
                        let x = x.as_f64().unwrap_or(0.0);
                        let s = a.series.entry(name).or_insert_with(|| Series {
                            min: vec![f64::NAN; BUCKETS],
                            max: vec![f64::NAN; BUCKETS],
                            first: x,
                            changes: 0,
                        });
                        s.changes += 1;
                        s.min[b] = if s.min[b].is_nan() {
                            x
                        } else {
                            s.min[b].min(x)
                        };
                        s.max[b] = if s.max[b].is_nan() {
                            x
                        } else {
                            s.max[b].max(x)
                        };
                    }
                    // Names, and flags (`transmitted`) as `true` / `false` steps.
                    v @ (Value::String(_) | Value::Bool(_)) => {
                        let st = a.steps.entry(name).or_default();
                        if st.values.len() < KEPT_LINES {
                            st.values.push((t, text(v)));
                        } else {
                            st.dropped += 1;
                        }
                    }
                    _ => {}
                }
            }
            "rejected" => {
                if a.rejected.len() < KEPT_LINES {
                    let field = |k: &str| text(&ev[k]);
                    a.rejected
                        .push((t, field("from"), field("kind"), field("why")));
                } else {
                    a.rejected_dropped += 1;
                }
            }
            "timing" => {
                a.timed_ticks += 1;
                a.overruns += u64::from(ev["overrun"].as_bool().unwrap_or(false));
                a.missed += u64::from(ev["missed"].as_bool().unwrap_or(false));
                a.skipped += ev["skipped"].as_u64().unwrap_or(0);
                a.longest_us = a.longest_us.max(ev["tick_us"].as_f64().unwrap_or(0.0));
            }
            "timing_summary" => a.timing = Some(timing_summary(&ev)),
            "error" => {
                let said = text(&ev["text"]);
                if a.error.is_none() {
                    a.error = Some((ev["tick"].as_u64().unwrap_or(0), t, said.clone()));
                }
                a.tell(t, "error", said);
            }
            "drive" | "emotion" | "memory" | "msg" | "log" | "recruit" | "component"
            | "behavior" | "lost" | "call" | "device" | "robot" => {
                let (kind, said) = story_line(kind, &ev);
                a.tell(t, kind, said);
            }
            "summary" => {
                a.summary = Some(format!(
                    "{} ticks, root {}",
                    ev["ticks"].as_u64().unwrap_or(0),
                    text(&ev["root"])
                ));
            }
            _ => {}
        }
    }
    Ok(run)
}

/// A story line of an event that tells something: its kind and text.
fn story_line(kind: &str, ev: &Value) -> (&'static str, String) {
    let said = match kind {
        "drive" => format!(
            "{}: {} → {}{}",
            text(&ev["name"]),
            text(&ev["from"]),
            text(&ev["to"]),
            match &ev["intention"] {
                Value::Null => String::new(),
                i => format!(" (intention {})", text(i)),
            }
        ),
        "emotion" => format!(
            "{}: {} → {} (intensity {:.2}{})",
            text(&ev["machine"]),
            text(&ev["from"]),
            text(&ev["to"]),
            ev["intensity"].as_f64().unwrap_or(0.0),
            match ev["cause"].as_str() {
                Some(c) if !c.is_empty() => format!(", {c}"),
                _ => String::new(),
            }
        ),
        "memory" => format!(
            "{} {} → {:.1}",
            text(&ev["op"]),
            text(&ev["key"]),
            ev["score"].as_f64().unwrap_or(0.0)
        ),
        "msg" => format!(
            "{} → {}: {}",
            text(&ev["from"]),
            text(&ev["to"]),
            text(&ev["kind"])
        ),
        "log" => text(&ev["text"]),
        "recruit" => recruit_line(ev),
        "component" => format!(
            "{} {}{}{}",
            text(&ev["name"]),
            text(&ev["state"]),
            opt(ev, "host", " on "),
            opt(ev, "to", " to ")
        ),
        "robot" => format!(
            "robot {} {}: {}",
            text(&ev["name"]),
            text(&ev["state"]),
            text(&ev["why"])
        ),
        "lost" => {
            let copies = ev["copies"].as_u64().unwrap_or(0);
            format!(
                "{copies} {} of {} from {} to {} lost",
                if copies == 1 { "copy" } else { "copies" },
                text(&ev["kind"]),
                text(&ev["from"]),
                text(&ev["to"])
            )
        }
        "call" => format!(
            "{} calls {}.{} on {} (call {}): {}{}{}",
            text(&ev["caller"]),
            text(&ev["component"]),
            text(&ev["leaf"]),
            text(&ev["host"]),
            text(&ev["id"]),
            text(&ev["state"]),
            match ev["ms"].as_f64() {
                Some(ms) => format!(" in {ms:.1} ms"),
                None => String::new(),
            },
            opt(ev, "why", ": ")
        ),
        "device" => format!(
            "device {} failed after {} attempt{}: {}",
            text(&ev["device"]),
            text(&ev["attempts"]),
            if ev["attempts"].as_u64() == Some(1) {
                ""
            } else {
                "s"
            },
            text(&ev["error"])
        ),
        _ => format!(
            "{}: {} → {} (value {:.2})",
            text(&ev["module"]),
            text(&ev["from"]),
            text(&ev["to"]),
            ev["value"].as_f64().unwrap_or(0.0)
        ),
    };
    let kind: &'static str = match kind {
        "drive" => "drive",
        "emotion" => "emotion",
        "memory" => "memory",
        "msg" => "msg",
        "log" => "log",
        "recruit" => "recruit",
        "component" => "component",
        "robot" => "robot",
        "lost" => "lost",
        "call" => "call",
        "device" => "device",
        _ => "behavior",
    };
    (kind, said)
}

/// `PREFIX value` when the event has the field (not null), else nothing.
fn opt(ev: &Value, key: &str, prefix: &str) -> String {
    match &ev[key] {
        Value::Null => String::new(),
        v => format!("{prefix}{}", text(v)),
    }
}

/// A step of the recruitment protocol with what it says: `Help chose UGV#2 (shame 0.42,
/// 3.1 m, 2 offers)`.
fn recruit_line(ev: &Value) -> String {
    let mut details = Vec::new();
    if let Some(x) = ev["shame"].as_f64() {
        details.push(format!("shame {x:.2}"));
    }
    if let Some(x) = ev["distance"].as_f64() {
        details.push(format!("{x:.1} m"));
    }
    if let Some(x) = ev["eta_ms"].as_f64() {
        details.push(format!("arrives in {:.1} s", x / 1000.0));
    }
    if let Some(x) = ev["offers"].as_u64() {
        details.push(format!("{x} offer{}", if x == 1 { "" } else { "s" }));
    }
    if let Some(x) = ev["lease_ms"].as_f64() {
        details.push(format!("lease {:.1} s", x / 1000.0));
    }
    if let Some(why) = ev["why"].as_str() {
        details.push(why.to_string());
    }
    format!(
        "{} {}{}{}",
        text(&ev["block"]),
        text(&ev["step"]),
        opt(ev, "peer", " "),
        match details.is_empty() {
            true => String::new(),
            false => format!(" ({})", details.join(", ")),
        }
    )
}

/// The `timing_summary` of a run as the report lists it.
fn timing_summary(ev: &Value) -> Vec<(&'static str, String)> {
    let us = |k: &str| match ev[k].as_f64() {
        Some(x) if x >= 1000.0 => format!("{:.2} ms", x / 1000.0),
        Some(x) => format!("{x:.0} µs"),
        None => "–".to_string(),
    };
    vec![
        ("ticks", text(&ev["ticks"])),
        ("period", us("period_us")),
        (
            "tick time p50 / p99 / max",
            format!(
                "{} / {} / {}",
                us("tick_p50_us"),
                us("tick_p99_us"),
                us("tick_max_us")
            ),
        ),
        (
            "late start p50 / p99 / max",
            format!(
                "{} / {} / {}",
                us("late_p50_us"),
                us("late_p99_us"),
                us("late_max_us")
            ),
        ),
        ("overruns", text(&ev["overruns"])),
        ("missed deadlines", text(&ev["missed"])),
        ("periods skipped", text(&ev["skipped"])),
    ]
}

/// The last `t_ms` of a trace (a cheap first pass: no full parse of each line).
pub fn end_ms(input: impl BufRead) -> Result<f64, String> {
    let mut end = 0.0f64;
    for line in input.lines() {
        let line = line.map_err(|e| e.to_string())?;
        if let Some(i) = line.find("\"t_ms\":") {
            let rest = &line[i + 7..];
            let num: String = rest
                .chars()
                .take_while(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+'))
                .collect();
            if let Ok(t) = num.parse::<f64>() {
                end = end.max(t);
            }
        }
    }
    Ok(end)
}
