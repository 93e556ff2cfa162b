//! What a run writes: the initial values, each tick's changes in trace order (device
//! failures, behaviour modules, components and protocol steps, node transitions, memory
//! processes and logs, drives, emotions, variables, messages), and each instance's summary.

use super::values::trace_value;
use super::{AgentSummary, Live};
use crate::sim::mail::SharedMail;
use crate::sim::SenseErrors;
use crate::trace::{same_value, Event, TraceSink, Value};
use affect_compiler::ir::program::{AgentProgram, Program, Role, SlotId, Status, ValueKind};

/// Every visible root variable's value, so a trace starts from a known state: `null` for
/// one that has no value yet.
pub(super) fn initial_values(program: &Program, l: &Live, sink: &mut dyn TraceSink) {
    let p = l.agent.program;
    for (i, s) in p.slots.iter().enumerate() {
        if s.visible && s.scope == 0 {
            let v = if l.last[i].is_nan() {
                // Not a number: written as `null`.
                Value::Num(f64::NAN)
            } else {
                trace_value(program, &l.agent.machine, s, l.agent.machine.slots[i])
            };
            let _ = sink.line(
                0,
                0.0,
                &l.agent.name,
                &Event::Var {
                    name: &s.name,
                    value: v,
                },
            );
        }
    }
}

/// What changed in one agent tick, in trace order.
pub(super) fn tick_events(
    program: &Program,
    l: &mut Live,
    sense_errors: &SenseErrors,
    mail: &SharedMail,
    tick: u64,
    now: f64,
    sink: &mut dyn TraceSink,
) {
    for (device, e) in sense_errors {
        device_event(l, device, e, tick, now, sink);
    }
    if let Some(b) = &mut l.behavior {
        let spec = b.spec();
        for c in b.changes.drain(..) {
            let _ = sink.line(
                tick,
                now,
                &l.agent.name,
                &Event::Behavior {
                    module: &spec.modules[c.module as usize].name,
                    from: c.from.name(),
                    to: c.to.name(),
                    value: c.value,
                },
            );
        }
    }
    note_lists_changed_in_place(l);
    // Component changes and protocol steps come first: they are what the handlers and
    // the tree of this tick reacted to.
    l.agent.team.flush(tick, now, sink);
    transitions(l, tick, now, sink);
    memories_and_logs(program, l, tick, now, sink);
    drives(program, l, tick, now, sink);
    emotions(program, l, tick, now, sink);
    variables(program, l, tick, now, sink);
    mail.borrow_mut()
        .flush(program, tick, now, &l.agent.name, sink);
}

/// A list variable changed in place (a position sensor, a leaf writing its output list)
/// keeps its list id; marks it so that the trace reports it as a `var` change like any
/// other. Reuses the copies, so a steady-state tick does not allocate.
fn note_lists_changed_in_place(l: &mut Live) {
    let m = &l.agent.machine;
    for (i, s) in l.agent.program.slots.iter().enumerate() {
        if s.kind != ValueKind::List || !s.visible {
            continue;
        }
        let now = m.lists.shown(m.slots[i]);
        let seen = &mut l.lists[i];
        if !crate::lists::same_shown(seen, now) {
            seen.clear();
            seen.extend_from_slice(now);
            if l.last[i].to_bits() == m.slots[i].to_bits() {
                l.last[i] = f64::NAN;
            }
        }
    }
}

/// A device failure: the device's name, the error, and how many tries it had (its
/// `retries` and the first).
fn device_event(
    l: &Live,
    device: &str,
    e: &crate::devices::DeviceError,
    tick: u64,
    now: f64,
    sink: &mut dyn TraceSink,
) {
    let retries = l
        .agent
        .program
        .devices
        .iter()
        .find(|d| d.name == device)
        .map_or(0, crate::hardware::retries);
    let _ = sink.line(
        tick,
        now,
        &l.agent.name,
        &Event::Device {
            device,
            error: e.to_string(),
            attempts: retries + 1,
        },
    );
}

/// Device failures inside leaves and actuators on the robot since the last look.
pub(super) fn device_faults(
    l: &Live,
    h: &crate::hardware::Opened,
    tick: u64,
    now: f64,
    sink: &mut dyn TraceSink,
) {
    for f in h.faults.drain() {
        device_event(l, &f.device, &f.error, tick, now, sink);
    }
}

/// The transitions a halt made (the end of a run on the robot).
pub(super) fn halts(l: &mut Live, tick: u64, now: f64, sink: &mut dyn TraceSink) {
    transitions(l, tick, now, sink);
}

/// Node status changes, counted for the summary.
pub(super) fn transitions(l: &mut Live, tick: u64, now: f64, sink: &mut dyn TraceSink) {
    let p = l.agent.program;
    let m = &mut l.agent.machine;
    for t in &m.transitions {
        l.statuses[t.to as usize] += 1;
        let node = &p.nodes[t.node as usize];
        let _ = sink.line(
            tick,
            now,
            &l.agent.name,
            &Event::Node {
                uid: t.node + 1,
                path: &node.path,
                from: t.from.name(),
                to: t.to.name(),
            },
        );
    }
    m.transitions.clear();
}

/// What the emotional memories did, and the log lines of the runtime and the leaves.
fn memories_and_logs(
    program: &Program,
    l: &mut Live,
    tick: u64,
    now: f64,
    sink: &mut dyn TraceSink,
) {
    let agent = &l.agent.name;
    let mut affect = l.agent.affect.borrow_mut();
    for mem in &mut affect.memories {
        for e in &mem.events {
            let key = program
                .strings
                .get(e.key as usize)
                .map(String::as_str)
                .unwrap_or("?");
            let _ = sink.line(
                tick,
                now,
                agent,
                &Event::Memory {
                    op: e.op.name(),
                    key,
                    score: e.score,
                },
            );
        }
        mem.events.clear();
    }
    for text in affect.logs.drain(..) {
        let _ = sink.line(
            tick,
            now,
            agent,
            &Event::Log {
                level: "info",
                text,
            },
        );
    }
}

/// A state slot (a drive's, an emotion machine's) that changed in the tick: its state
/// before and after by name, and its new value.
fn state_change<'a>(
    program: &'a Program,
    l: &Live,
    slot: SlotId,
) -> Option<(&'a str, &'a str, f64)> {
    let (old, new) = (l.last[slot as usize], l.agent.machine.slots[slot as usize]);
    if same_value(old, new) {
        return None;
    }
    let s = &l.agent.program.slots[slot as usize];
    let name = |v: f64| match trace_value(program, &l.agent.machine, s, v) {
        Value::Str(t) => t,
        _ => "?",
    };
    Some((name(old), name(new), new))
}

/// Drives that changed, with the intention each generated.
fn drives(program: &Program, l: &Live, tick: u64, now: f64, sink: &mut dyn TraceSink) {
    let p: &AgentProgram = l.agent.program;
    let m = &l.agent.machine;
    for d in &p.drives {
        let Some((from, to, _)) = state_change(program, l, d.slot) else {
            continue;
        };
        let intention = d
            .intention
            .map(|i| trace_value(program, m, &p.slots[i as usize], m.slots[i as usize]));
        let _ = sink.line(
            tick,
            now,
            &l.agent.name,
            &Event::Drive {
                name: &d.name,
                from,
                to,
                intention,
            },
        );
    }
}

/// Emotion machines that changed state, with their intensity and causal chain.
fn emotions(program: &Program, l: &Live, tick: u64, now: f64, sink: &mut dyn TraceSink) {
    let p: &AgentProgram = l.agent.program;
    let m = &l.agent.machine;
    for mc in &p.machines {
        let Some((from, to, new)) = state_change(program, l, mc.state) else {
            continue;
        };
        let cause = mc
            .causes
            .get(new as usize)
            .and_then(|c| c.as_deref())
            .unwrap_or("");
        let _ = sink.line(
            tick,
            now,
            &l.agent.name,
            &Event::Emotion {
                machine: &mc.name,
                from,
                to,
                intensity: m.slots[mc.intensity as usize],
                cause,
            },
        );
    }
}

/// Visible variables that changed; remembers every slot's value for the next tick.
fn variables(program: &Program, l: &mut Live, tick: u64, now: f64, sink: &mut dyn TraceSink) {
    let p = l.agent.program;
    let m = &l.agent.machine;
    for (i, s) in p.slots.iter().enumerate() {
        let v = m.slots[i];
        if s.visible && !same_value(l.last[i], v) {
            let value = trace_value(program, m, s, v);
            let _ = sink.line(
                tick,
                now,
                &l.agent.name,
                &Event::Var {
                    name: &s.name,
                    value,
                },
            );
        }
        l.last[i] = v;
    }
}

/// The instance's summary line, and its summary.
pub(super) fn summary(
    program: &Program,
    l: &Live,
    fallback: &Option<String>,
    sink: &mut dyn TraceSink,
) -> AgentSummary {
    let root = match l.root {
        Status::Idle => "IDLE",
        s => s.name(),
    };
    let _ = sink.line(
        l.ticks,
        l.next_ms,
        &l.agent.name,
        &Event::Summary {
            ticks: l.ticks,
            statuses: l.statuses,
            root,
        },
    );
    let variables = l
        .agent
        .program
        .slots
        .iter()
        .enumerate()
        .filter(|(_, s)| s.visible && s.scope == 0)
        .map(|(i, s)| {
            let shown = match s.role {
                // A memory's slot holds its number, not a value: say what it remembers.
                Role::Memory => memory_places(l, l.agent.machine.slots[i]),
                _ => super::show_value(program, &l.agent.machine, i),
            };
            (s.name.clone(), shown)
        })
        .collect();
    AgentSummary {
        agent: l.agent.name.clone(),
        ticks: l.ticks,
        statuses: l.statuses,
        root: l.root,
        variables,
        stand_ins: l.agent.stand_ins.clone(),
        unwritten: super::stand_ins::unwritten(&l.agent, &l.quiet_at_start),
        engine: l.agent.machine.engine(),
        fallback: fallback.clone(),
        error: l.error.clone(),
    }
}

/// What the memory of number `index` holds at the end: `15 places` (its long-term traces).
fn memory_places(l: &Live, index: f64) -> String {
    let affect = l.agent.affect.borrow();
    let n = (affect.memories.get(index as usize)).map_or(0, |m| m.long_term().len());
    format!("{n} place{}", if n == 1 { "" } else { "s" })
}

/// Reports a read of an unset variable, which stopped the agent's tree (BehaviorTree.CPP's
/// "Variable not found"); returns the message.
pub(super) fn fault(
    l: &Live,
    f: &crate::interp::Fault,
    tick: u64,
    now: f64,
    sink: &mut dyn TraceSink,
) -> String {
    let var = (l.agent.program.slots.get(f.slot as usize)).map_or("?", |s| s.name.as_str());
    let text = format!(
        "`{var}` was read while it holds no value (declared without one and not written yet, \
         or removed by `unset_blackboard`): the tree stops"
    );
    let ev = Event::Error {
        var,
        text: text.clone(),
    };
    let _ = sink.line(tick, now, &l.agent.name, &ev);
    text
}
