//! The story of a run on stderr (docs/run.md): one line per agent tick in which something a
//! person cares about happened, read off the trace's events as they are written.
//!
//! What counts, for any program:
//!
//! - the agent reached a new key of one of its memories (`memory feelings keyed by place`:
//!   a new place), with what the memory did with it (encoding, association, ...);
//! - a drive changed, with the intention it generated; an intention changed;
//! - an emotion machine changed state, with its intensity and causal chain;
//! - a fallback succeeded through a labelled child (`choose: fallback { from_memory: ..
//!   from_map: .. }`): which branch chose;
//! - a score-like level (`var x: num in 0..100`) changed class (positive above 60, negative
//!   below 40, else neutral);
//! - a behaviour module started, was preempted, resumed or stopped (`story_modules.rs`);
//! - a step of the recruitment protocol (seed 002): an offer to help, the requester's
//!   choice, the take-over, the help done, the release, giving up (a HELP ignored is not
//!   told: the plot draws the SHAME it raised);
//! - a log line from the runtime (each distinct text once per agent).
//!
//! Every line ends with the agent's levels, drives and intentions as they are now. The
//! narrator looks only at events (which are written on changes), so it costs little.

use super::story_modules::Modules;
use super::views::{program_of, AgentView, Role};
use super::RunObserver;
use affect_runtime::run::Observer;
use affect_runtime::trace::{Event, TraceSink, Value};
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::io::Write;
use std::rc::Rc;

/// Distinct log texts remembered per agent (later ones are printed again).
const LOG_MEMORY: usize = 256;

struct AgentStory {
    instance: String,
    view: Rc<AgentView>,
    /// Current values of the variables the story mentions, as text.
    values: HashMap<String, String>,
    /// Current class of each level (`positive`, `neutral`, `negative`).
    classes: HashMap<String, &'static str>,
    /// The branch each labelled fallback chose last, in first-choice order.
    chosen: Vec<(String, String)>,
    logs: HashSet<String>,
    /// Behaviour modules (seed 004): what runs, and what changed in this tick.
    modules: Modules,
}

/// Items of one line, in the order a line tells them.
const AT: u8 = 0;
const DRIVE: u8 = 1;
const EMOTION: u8 = 2;
const INTENTION: u8 = 3;
const MODULE: u8 = 4;
const RECRUIT: u8 = 5;
const LEVEL: u8 = 6;
const CHOICE: u8 = 7;
const MEMORY: u8 = 8;
const LOG: u8 = 9;

/// Writes the story; `out` is stderr in the command, a buffer in tests.
pub struct Narrator<'v> {
    views: Vec<Rc<AgentView>>,
    agents: Vec<AgentStory>,
    out: Box<dyn Write + 'v>,
    /// The agent and tick whose items are being collected, and when that tick was.
    cur: Option<(usize, u64, f64)>,
    items: Vec<(u8, String)>,
}

fn show(v: &Value) -> String {
    match v {
        Value::Num(x) => format!("{}", (x * 10.0).round() / 10.0),
        Value::Int(i) => i.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Str(s) => s.to_string(),
        Value::List(l) => format!("{} items", l.len()),
        Value::Items(l) => format!("{} items", l.len()),
    }
}

/// The design's classes of an emotional level (LANGUAGE.md §4.2).
fn class(x: f64) -> &'static str {
    if x > 60.0 {
        "positive"
    } else if x < 40.0 {
        "negative"
    } else {
        "neutral"
    }
}

impl<'v> Narrator<'v> {
    pub fn new(views: &[AgentView], out: Box<dyn Write + 'v>) -> Narrator<'v> {
        Narrator {
            views: views.iter().cloned().map(Rc::new).collect(),
            agents: Vec::new(),
            out,
            cur: None,
            items: Vec::new(),
        }
    }

    fn agent_index(&mut self, instance: &str) -> Option<usize> {
        if let Some((i, ..)) = self.cur {
            if self.agents[i].instance == instance {
                return Some(i);
            }
        }
        if let Some(i) = self.agents.iter().position(|a| a.instance == instance) {
            return Some(i);
        }
        let view = program_of(&self.views, instance)?;
        self.agents.push(AgentStory {
            instance: instance.to_string(),
            view,
            values: HashMap::new(),
            classes: HashMap::new(),
            chosen: Vec::new(),
            logs: HashSet::new(),
            modules: Modules::default(),
        });
        Some(self.agents.len() - 1)
    }

    pub fn event(&mut self, tick: u64, t_ms: f64, instance: &str, ev: &Event) {
        // Node and memory events are the most frequent: most are dismissed here.
        if let Event::Node { to, .. } = ev {
            if *to != "SUCCESS" {
                return;
            }
        }
        let Some(i) = self.agent_index(instance) else {
            return;
        };
        match self.cur {
            Some((a, t, _)) if a == i && t == tick => {}
            _ => {
                self.flush();
                self.cur = Some((i, tick, t_ms));
            }
        }
        let a = &mut self.agents[i];
        let view = Rc::clone(&a.view);
        match ev {
            Event::Var { name, value } => {
                let Some(var) = view.vars.get(*name) else {
                    return;
                };
                let text = show(value);
                // The first report of a variable is its initial value, not news.
                let Some(old) = a.values.insert(name.to_string(), text.clone()) else {
                    if let (Role::Level, Value::Num(_) | Value::Int(_)) = (var.role, value) {
                        a.classes.insert(name.to_string(), class(number(value)));
                    }
                    return;
                };
                if old == text {
                    return;
                }
                if view.keys.iter().any(|k| k == name) {
                    if !text.is_empty() {
                        self.items.push((AT, format!("at {text}")));
                    }
                    return;
                }
                match (var.role, value) {
                    (Role::Level, Value::Num(_) | Value::Int(_)) => {
                        let x = number(value);
                        let c = class(x);
                        let was = a.classes.insert(name.to_string(), c);
                        if was.is_some_and(|w| w != c) {
                            self.items.push((LEVEL, format!("{name} → {c}")));
                        }
                    }
                    (Role::Intention, _) => {
                        // A drive change reports its intention itself.
                        let by_drive = self.items.iter().any(|(r, _)| *r == DRIVE);
                        if !by_drive && !text.is_empty() {
                            self.items.push((INTENTION, format!("{name} → {text}")));
                        }
                    }
                    _ => {}
                }
            }
            Event::Drive {
                name,
                from,
                to,
                intention,
            } => {
                a.values.insert(name.to_string(), to.to_string());
                let mut s = format!("{name} {from} → {to}");
                if let Some(v) = intention {
                    let text = show(v);
                    if let Some(d) = view.drives.iter().find(|d| d.name == *name) {
                        if let Some(iname) = &d.intention {
                            a.values.insert(iname.clone(), text.clone());
                            let _ = write!(s, ", {iname} {text}");
                        }
                    }
                }
                self.items.push((DRIVE, s));
            }
            Event::Emotion {
                machine,
                from,
                to,
                intensity,
                cause,
            } => {
                if let Some(m) = view.machines.iter().find(|m| m.name == *machine) {
                    a.values.insert(m.state.clone(), to.to_string());
                }
                let mut s = format!("{machine} {from} → {to} (intensity {intensity:.2})");
                if !cause.is_empty() {
                    let _ = write!(s, ": \"{cause}\"");
                }
                self.items.push((EMOTION, s));
            }
            Event::Node { uid, .. } => {
                let choice = view.choices.get((*uid as usize).wrapping_sub(1));
                if let Some(Some((parent, child))) = choice {
                    // News only when the fallback chooses differently from last time; the
                    // current choice is part of every line's state.
                    match a.chosen.iter_mut().find(|(p, _)| p == parent) {
                        Some((_, c)) if c == child => {}
                        Some((_, c)) => {
                            self.items
                                .push((CHOICE, format!("{parent}: {c} → {child}")));
                            *c = child.clone();
                        }
                        None => {
                            self.items.push((CHOICE, format!("{parent}: {child}")));
                            a.chosen.push((parent.clone(), child.clone()));
                        }
                    }
                }
            }
            Event::Behavior {
                module, from, to, ..
            } => a.modules.event(module, from, to),
            Event::Memory { op, key, score } if *op != "decay" => {
                let s = format!("{op} {key} {score:.1}");
                match self.items.iter_mut().find(|(r, _)| *r == MEMORY) {
                    Some((_, m)) => {
                        m.push_str(", ");
                        m.push_str(&s);
                    }
                    None => self.items.push((MEMORY, format!("memory: {s}"))),
                }
            }
            Event::Recruit { .. } => {
                if let Some(said) = recruit_step(ev) {
                    self.items.push((RECRUIT, said));
                }
            }
            Event::Error { text, .. } => self.items.push((LOG, format!("error: {text}"))),
            Event::Log { level, text }
                if a.logs.len() < LOG_MEMORY && a.logs.insert(text.clone()) =>
            {
                let tag = if *level == "info" {
                    String::new()
                } else {
                    format!("{level}: ")
                };
                self.items.push((LOG, format!("{tag}{text}")));
            }
            _ => {}
        }
    }

    /// Prints the collected tick, if anything happened in it.
    pub fn flush(&mut self) {
        let Some((i, _, t_ms)) = self.cur else {
            return;
        };
        if let Some(item) = self.agents[i].modules.item(t_ms) {
            self.items.push((MODULE, item));
        }
        if self.items.is_empty() {
            return;
        }
        let a = &self.agents[i];
        let view = &a.view;
        let mut line = String::new();
        let _ = write!(line, "{:>7.1}s  {}  ", t_ms / 1000.0, a.instance);
        self.items.sort_by_key(|(r, _)| *r);
        let items: Vec<&str> = self.items.iter().map(|(_, s)| s.as_str()).collect();
        line.push_str(&items.join("; "));
        // The state it is in now: levels, emotions, drives and intentions.
        let mut now: Vec<(&usize, String)> = Vec::new();
        for (name, var) in &view.vars {
            let Some(v) = a.values.get(name) else {
                continue;
            };
            let text = match var.role {
                Role::Level => match a.classes.get(name) {
                    Some(c) => format!("{name} {v} {c}"),
                    None => format!("{name} {v}"),
                },
                Role::Emotion | Role::Drive | Role::Intention if !v.is_empty() => {
                    format!("{name} {v}")
                }
                _ => continue,
            };
            now.push((&var.order, text));
        }
        now.sort();
        let last = usize::MAX;
        for (p, c) in &a.chosen {
            now.push((&last, format!("{p}: {c}")));
        }
        now.extend(a.modules.now().map(|m| (&last, m)));
        if !now.is_empty() {
            line.push_str("  [");
            line.push_str(
                &now.into_iter()
                    .map(|(_, t)| t)
                    .collect::<Vec<_>>()
                    .join(", "),
            );
            line.push(']');
        }
        line.push('\n');
        let _ = self.out.write_all(line.as_bytes());
        self.items.clear();
    }

    /// Prints what is left; call after the run.
    pub fn finish(&mut self) {
        self.flush();
        self.cur = None;
        let _ = self.out.flush();
    }
}

impl TraceSink for Narrator<'_> {
    fn line(&mut self, tick: u64, t_ms: f64, agent: &str, ev: &Event) -> std::io::Result<()> {
        self.event(tick, t_ms, agent, ev);
        Ok(())
    }
}

/// The long-term memory files the run read and wrote, one line each, with how many places
/// each holds: a second run that starts "choose: from_memory" then says why.
impl Observer for Narrator<'_> {
    fn memory_read(&mut self, path: &std::path::Path, places: usize) {
        self.tell_file("read", path, places);
    }

    fn memory_written(&mut self, path: &std::path::Path, places: usize) {
        self.tell_file("wrote", path, places);
    }
}

impl Narrator<'_> {
    fn tell_file(&mut self, what: &str, path: &std::path::Path, n: usize) {
        // The tick being told comes first.
        self.flush();
        let s = if n == 1 { "" } else { "s" };
        let line = format!("{what} {} ({n} place{s})\n", path.display());
        let _ = self.out.write_all(line.as_bytes());
    }
}

impl RunObserver for Narrator<'_> {
    fn finish(&mut self, _completed: bool) -> Result<(), String> {
        Narrator::finish(self);
        Ok(())
    }

    fn reloaded(
        &mut self,
        program: &affect_compiler::ir::program::Program,
        _exported: Option<&affect_compiler::groot::xml::Document>,
    ) {
        // The tick being told belongs to the old program: it is told first.
        self.flush();
        let agents = self
            .agents
            .iter_mut()
            .map(|a| (a.instance.as_str(), &mut a.view));
        super::views::replace(&mut self.views, program, agents);
    }
}

fn number(v: &Value) -> f64 {
    match v {
        Value::Num(x) => *x,
        Value::Int(i) => *i as f64,
        _ => f64::NAN,
    }
}

/// A step of the recruitment protocol as the story tells it (`help: chose UGV#7 of 3
/// offers, there in 6s`); none for a HELP ignored, which only raised the robot's SHAME.
fn recruit_step(ev: &Event) -> Option<String> {
    let Event::Recruit {
        block,
        step,
        peer,
        shame,
        eta_ms,
        offers,
        lease_ms,
        why,
        ..
    } = ev
    else {
        return None;
    };
    let peer = peer.unwrap_or("?");
    let said = match *step {
        "help_ignored" => return None,
        "help_accepted" => match shame {
            Some(s) => format!("offers to help {peer} (SHAME {s:.2})"),
            None => format!("offers to help {peer}"),
        },
        "chose" => {
            let n = offers.unwrap_or(1);
            let there = eta_ms.map_or(String::new(), |e| format!(", there in {:.0}s", e / 1000.0));
            format!(
                "chose {peer} of {n} offer{}{there}",
                if n == 1 { "" } else { "s" }
            )
        }
        "recruited" => format!("recruited by {peer}"),
        "not_needed" => format!("not needed by {peer}"),
        "arrived" => format!("{peer} arrived"),
        "took_over" => match lease_ms {
            Some(l) => format!("took over from {peer} (lease {:.0}s)", l / 1000.0),
            None => format!("took over from {peer}"),
        },
        "helped" => format!("helped by {peer}"),
        "released" => format!("released (the lease with {peer} is over)"),
        "gave_up" => format!("gave up on {peer} ({})", why.unwrap_or("no answer")),
        other => format!("{other} {peer}"),
    };
    Some(format!("{block}: {said}"))
}
