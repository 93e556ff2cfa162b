//! The run's post office for commands between robots (CARS's `setRobotCommand`, seed 000):
//! the running robots, commands on their way, and the trace notes of the agent ticking now.
//! `SendCommand` ([`super::area_leaves`]) and the world's scripted `send` events post here;
//! the run loop delivers before each robot's tick ([`Mail::deliver`]) and writes the notes
//! after it ([`Mail::flush`]). Deterministic: commands are delivered in the order they were
//! sent.

use crate::interp::Machine;
use crate::trace::{Event, TraceSink};
use affect_compiler::ir::program::{AgentProgram, EnumInfo, Program, SlotId, ValueKind};
use std::cell::RefCell;
use std::rc::Rc;

/// The root variable a command sets on the robot it is addressed to.
pub const COMMAND_VARIABLE: &str = "command";

/// A running robot that commands can reach.
#[derive(Clone, Debug)]
struct Robot {
    /// Instance name (`Vonda`, `UGV#2`).
    name: String,
    /// The agent declaration it runs.
    program: String,
    /// Its root variable `command` and that variable's enum, when it has one.
    command: Option<(SlotId, u32)>,
}

/// Something a leaf did that goes to the trace after its agent's tick.
#[derive(Clone, Copy, Debug)]
enum Note {
    /// `Say`: a string symbol.
    Said(u32),
    /// `SendCommand`: (robot index, variant index).
    Sent(usize, usize),
}

/// The run's post office.
#[derive(Debug, Default)]
pub struct Mail {
    robots: Vec<Robot>,
    /// (robot index, variant index), in sending order.
    pending: Vec<(usize, usize)>,
    notes: Vec<Note>,
}

pub type SharedMail = Rc<RefCell<Mail>>;

impl Mail {
    pub fn shared() -> SharedMail {
        Rc::new(RefCell::new(Mail::default()))
    }

    /// A sentence said (`Say`), for the trace.
    pub fn say(&mut self, text: u32) {
        self.notes.push(Note::Said(text));
    }

    /// Makes a running instance reachable by commands.
    pub fn register(&mut self, program: &Program, agent: &AgentProgram, name: &str) {
        let command = agent
            .slots
            .iter()
            .position(|s| s.scope == 0 && s.name == COMMAND_VARIABLE)
            .and_then(|i| match agent.slots[i].kind {
                ValueKind::Enum(e) if (e as usize) < program.enums.len() => Some((i as SlotId, e)),
                _ => None,
            });
        self.robots.push(Robot {
            name: name.to_string(),
            program: agent.name.clone(),
            command,
        });
    }

    /// The robot a name addresses: the instance of that name, else the first instance of the
    /// program of that name.
    fn resolve(&self, name: &str) -> Option<usize> {
        self.robots
            .iter()
            .position(|r| r.name == name)
            .or_else(|| self.robots.iter().position(|r| r.program == name))
    }

    /// Queues a command: false when no robot has the name or its `command` has no variant
    /// of this name.
    pub fn send(&mut self, to: &str, variant: &str, enums: &[EnumInfo]) -> bool {
        let Some(r) = self.resolve(to) else {
            return false;
        };
        let Some((_, e)) = self.robots[r].command else {
            return false;
        };
        let Some(v) = enums
            .get(e as usize)
            .and_then(|en| en.variants.iter().position(|x| x == variant))
        else {
            return false;
        };
        self.pending.push((r, v));
        self.notes.push(Note::Sent(r, v));
        true
    }

    /// The robots a world's scripted `send VARIANT [to NAME]` reaches, with the variant's
    /// index in each one's `command` enum: every instance of that name or program (every
    /// robot without `to`) whose `command` has a variant of that name.
    fn scripted_targets(
        &self,
        to: Option<&str>,
        variant: &str,
        enums: &[EnumInfo],
    ) -> Vec<(usize, usize)> {
        self.robots
            .iter()
            .enumerate()
            .filter(|(_, r)| to.is_none_or(|t| r.name == t || r.program == t))
            .filter_map(|(i, r)| {
                let (_, e) = r.command?;
                let v = enums
                    .get(e as usize)?
                    .variants
                    .iter()
                    .position(|x| x == variant)?;
                Some((i, v))
            })
            .collect()
    }

    /// The variants the `command` of the robots `to` addresses can take, for suggestions.
    pub fn command_variants<'e>(&self, to: Option<&str>, enums: &'e [EnumInfo]) -> Vec<&'e str> {
        let mut names: Vec<&str> = self
            .robots
            .iter()
            .filter(|r| to.is_none_or(|t| r.name == t || r.program == t))
            .filter_map(|r| enums.get(r.command?.1 as usize))
            .flat_map(|en| en.variants.iter().map(String::as_str))
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    /// Whether a scripted `send` reaches any robot (checked before the first tick).
    pub fn can_deliver_scripted(
        &self,
        to: Option<&str>,
        variant: &str,
        enums: &[EnumInfo],
    ) -> bool {
        !self.scripted_targets(to, variant, enums).is_empty()
    }

    /// Queues a world's scripted `send` for every robot it reaches; returns their names, for
    /// the trace.
    pub fn send_scripted(
        &mut self,
        to: Option<&str>,
        variant: &str,
        enums: &[EnumInfo],
    ) -> Vec<String> {
        let targets = self.scripted_targets(to, variant, enums);
        self.pending.extend(targets.iter().copied());
        targets
            .iter()
            .map(|&(r, _)| self.robots[r].name.clone())
            .collect()
    }

    /// Sets the `command` of instance `name` to each command sent to it since its last tick,
    /// in sending order. The run loop calls this just before the instance ticks.
    pub fn deliver(&mut self, name: &str, machine: &mut Machine) {
        if self.pending.is_empty() {
            return;
        }
        let Some(r) = self.robots.iter().position(|x| x.name == name) else {
            return;
        };
        let Some((slot, _)) = self.robots[r].command else {
            return;
        };
        for &(to, v) in &self.pending {
            if to == r && (slot as usize) < machine.slots.len() {
                machine.write(slot, v as f64);
            }
        }
        self.pending.retain(|(to, _)| *to != r);
    }

    /// Writes what the leaves of the agent that just ticked did: a `log` line per sentence
    /// said, a `msg` per command sent.
    pub fn flush(
        &mut self,
        program: &Program,
        tick: u64,
        now: f64,
        agent: &str,
        sink: &mut dyn TraceSink,
    ) {
        for note in self.notes.drain(..) {
            let ev = match note {
                Note::Said(s) => Event::Log {
                    level: "info",
                    text: program.strings.get(s as usize).cloned().unwrap_or_default(),
                },
                Note::Sent(r, v) => {
                    let robot = &self.robots[r];
                    let kind = robot
                        .command
                        .and_then(|(_, e)| program.enums.get(e as usize))
                        .and_then(|en| en.variants.get(v))
                        .map_or("?", String::as_str);
                    Event::Msg {
                        from: agent,
                        to: &robot.name,
                        kind,
                    }
                }
            };
            let _ = sink.line(tick, now, agent, &ev);
        }
    }
}
