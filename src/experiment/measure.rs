//! Taking an experiment's measures from a run as it goes: an observer that matches each
//! trace event against the measures' filters. An event is written as its JSON line (the
//! trace's own writer, so fields are named as docs/trace.md names them) only when some filter
//! asks for its kind, so a run's millions of node transitions cost a string compare each.

use super::spec::{Filter, Kind};
use affect_runtime::run::{AgentSummary, Observer};
use affect_runtime::trace::{write_event, Event, TraceSink};

/// The `ev` name of an event, as its JSON line has it.
fn ev_name(ev: &Event) -> &'static str {
    match ev {
        Event::Node { .. } => "node",
        Event::Var { .. } => "var",
        Event::Drive { .. } => "drive",
        Event::Emotion { .. } => "emotion",
        Event::Memory { .. } => "memory",
        Event::Msg { .. } => "msg",
        Event::Behavior { .. } => "behavior",
        Event::Lost { .. } => "lost",
        Event::Recruit { .. } => "recruit",
        Event::Component { .. } => "component",
        Event::Error { .. } => "error",
        Event::Log { .. } => "log",
        Event::Device { .. } => "device",
        Event::Timing(_) => "timing",
        Event::TimingSummary(_) => "timing_summary",
        Event::Summary { .. } => "summary",
        Event::Rejected { .. } => "rejected",
        Event::Call { .. } => "call",
        Event::Robot { .. } => "robot",
    }
}

fn field_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Whether an event's line has every field the filter asks for.
fn matches(filter: &Filter, line: &serde_json::Map<String, serde_json::Value>) -> bool {
    filter.iter().all(|(k, want)| {
        let Some(have) = line.get(k) else {
            return false;
        };
        let have = field_text(have);
        have == *want
            || (k == "agent"
                && have
                    .split_once('#')
                    .is_some_and(|(program, _)| program == want))
    })
}

/// One measure's state during a run.
enum State {
    Count(u64),
    First(Option<f64>),
    /// The open interval's start, the closed intervals' total, count and longest.
    Between {
        open: Option<f64>,
        total: f64,
        n: u64,
        longest: f64,
    },
    Final,
}

/// The measures of one run.
pub struct Measures<'k> {
    kinds: &'k [Kind],
    states: Vec<State>,
    /// Every `ev` some filter names (`None`: some filter takes any event).
    wanted: Option<Vec<String>>,
    buf: Vec<u8>,
    /// The time of the run's last event, where an interval still open at the end stops.
    last_ms: f64,
}

impl<'k> Measures<'k> {
    pub fn new(kinds: &'k [Kind]) -> Measures<'k> {
        let mut wanted = Some(Vec::new());
        let mut want = |f: &Filter| match (f.get("ev"), wanted.as_mut()) {
            (Some(ev), Some(w)) => w.push(ev.clone()),
            (None, _) => wanted = None,
            _ => {}
        };
        for k in kinds {
            match k {
                Kind::Count(f) | Kind::First(f) => want(f),
                Kind::Between(a, b, _) => {
                    want(a);
                    want(b);
                }
                Kind::Final { .. } => {}
            }
        }
        let states = kinds
            .iter()
            .map(|k| match k {
                Kind::Count(_) => State::Count(0),
                Kind::First(_) => State::First(None),
                Kind::Between(..) => State::Between {
                    open: None,
                    total: 0.0,
                    n: 0,
                    longest: 0.0,
                },
                Kind::Final { .. } => State::Final,
            })
            .collect();
        Measures {
            kinds,
            states,
            wanted,
            buf: Vec::new(),
            last_ms: 0.0,
        }
    }

    /// The values at the end of the run (`None`: undefined, such as a time to an event that
    /// never happened), given the agents' summaries.
    pub fn values(&self, summaries: &[AgentSummary]) -> Vec<Option<f64>> {
        self.kinds
            .iter()
            .zip(&self.states)
            .map(|(k, s)| match (k, s) {
                (_, State::Count(n)) => Some(*n as f64),
                (_, State::First(t)) => t.map(|ms| ms / 1000.0),
                (
                    Kind::Between(.., true),
                    State::Between {
                        open, n, longest, ..
                    },
                ) => {
                    let still = open.map(|start| self.last_ms - start);
                    (*n > 0 || still.is_some()).then(|| longest.max(still.unwrap_or(0.0)) / 1000.0)
                }
                (_, State::Between { total, n, .. }) => {
                    (*n > 0).then(|| total / *n as f64 / 1000.0)
                }
                (Kind::Final { var, agent }, State::Final) => final_value(summaries, var, agent),
                _ => None,
            })
            .collect()
    }
}

/// A variable's value at the end of the run, as a number (`true` is 1, `false` 0, a
/// quantity in the runtime's unit: the summary's `10s` is 10,000).
fn final_value(summaries: &[AgentSummary], var: &str, agent: &Option<String>) -> Option<f64> {
    summaries
        .iter()
        .filter(|s| match agent {
            Some(a) => s.agent == *a || s.agent.split_once('#').is_some_and(|(p, _)| p == a),
            None => true,
        })
        .find_map(|s| s.variables.iter().find(|(n, _)| n == var))
        .and_then(|(_, v)| match v.as_str() {
            "true" => Some(1.0),
            "false" => Some(0.0),
            v => affect_compiler::ir::value::parse_number(v)
                .map(|(n, unit)| unit.map_or(n, |u| affect_compiler::ir::units::quantity(n, u))),
        })
}

impl TraceSink for Measures<'_> {
    fn line(&mut self, tick: u64, t_ms: f64, agent: &str, ev: &Event) -> std::io::Result<()> {
        self.last_ms = self.last_ms.max(t_ms);
        let name = ev_name(ev);
        if let Some(w) = &self.wanted {
            if !w.iter().any(|x| x == name) {
                return Ok(());
            }
        }
        self.buf.clear();
        write_event(&mut self.buf, tick, t_ms, agent, ev);
        let Ok(serde_json::Value::Object(line)) = serde_json::from_slice(&self.buf) else {
            return Ok(());
        };
        for (k, s) in self.kinds.iter().zip(&mut self.states) {
            match (k, s) {
                (Kind::Count(f), State::Count(n)) if matches(f, &line) => *n += 1,
                (Kind::First(f), State::First(t @ None)) if matches(f, &line) => *t = Some(t_ms),
                (
                    Kind::Between(from, to, _),
                    State::Between {
                        open,
                        total,
                        n,
                        longest,
                    },
                ) => {
                    // `to` closes the open interval before `from` may open the next.
                    if let Some(start) = *open {
                        if matches(to, &line) {
                            *total += t_ms - start;
                            *longest = longest.max(t_ms - start);
                            *n += 1;
                            *open = None;
                            continue;
                        }
                    }
                    if open.is_none() && matches(from, &line) {
                        *open = Some(t_ms);
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
}

impl Observer for Measures<'_> {}
