//! The phases of one agent tick: the world catches up with the tick's time, then the agent
//! senses, processes (hormones, lets, handlers, emotions, drives) and acts (the main tree,
//! then its behaviour modules); last, the schedule says when it ticks next.

use super::timing::PhaseMarks;
use super::{Live, Pacing};
use crate::devices::sim::SharedWorld;
use crate::sim::mail::SharedMail;
use crate::sim::SenseErrors;
use crate::trace::TraceSink;
use crate::world::World;
use affect_compiler::ir::program::{Program, ValueKind};

/// Steps the world to the tick's time (whole milliseconds) and delivers the scripted
/// messages that fired on the way.
pub(super) fn step_world(
    program: &Program,
    w: &mut World,
    mail: &SharedMail,
    tick: u64,
    now: f64,
    sink: &mut dyn TraceSink,
) {
    let target = now.floor() as u64;
    // The first step (possibly of 0 ms) fires the events due at 0.
    if target > w.now_ms() || w.steps() == 0 {
        let dt = target - w.now_ms();
        w.step(dt);
        super::scripted::deliver_scripted_sends(program, w, mail, tick, now, sink);
    }
}

/// Sense, process, act.
pub(super) fn tick_agent(
    program: &Program,
    l: &mut Live,
    world: Option<&SharedWorld>,
    mail: &SharedMail,
    now: f64,
    sense_errors: &mut SenseErrors,
    marks: Option<&mut PhaseMarks>,
) {
    let m = &mut l.agent.machine;
    m.advance(now, false);
    m.now_ms = now;
    // Commands other robots sent since this one's last tick (`SendCommand`).
    mail.borrow_mut().deliver(&l.agent.name, m);
    sense_errors.clear();
    l.agent.sense(program, world, sense_errors);
    let sensed = marks.is_some().then(std::time::Instant::now);
    // Messages, protocol timers and component supervision (seed 002, seed 001).
    l.agent.team.before_tick(&mut l.agent.machine);
    let m = &mut l.agent.machine;
    m.process();
    if let (Some(marks), Some(sensed)) = (marks, sensed) {
        marks.sensed = sensed;
        marks.processed = std::time::Instant::now();
    }
    // A process phase that read an unset variable stopped the tick: the tree does not run.
    if m.fault.is_some() {
        return;
    }
    l.root = m.tick_tree();
    // The act phase goes on with the behaviour modules, after `main`.
    if let Some(b) = &mut l.behavior {
        if m.fault.is_none() {
            b.tick(m);
        }
    }
}

/// The agent's period at its `rate`.
fn period(l: &Live) -> f64 {
    1000.0 / l.agent.program.rate_hz
}

/// The periods of the grid a tick due at `due` that started at `now` skipped: whole
/// periods between the two. 0 wherever ticks start when due (every simulated run).
pub(super) fn skipped_periods(l: &Live, due: f64, now: f64, pacing: Pacing) -> u64 {
    // Sleeping between ticks like BehaviorTree.CPP has no grid to skip on.
    let p = period(l);
    match pacing {
        Pacing::Fixed if now - due >= p => ((now - due) / p).floor() as u64,
        _ => 0,
    }
}

/// When the agent ticks next. At a fixed rate ticks keep to the grid of the period from
/// when this one was due, so a tick's lateness does not drift the schedule. A tick that
/// started a period or more late (a stall on the robot, where a tick starts when it really
/// can) ran once, at the time it started, and the periods it missed are skipped: the grid
/// starts again from it, a period later, never a burst of ticks due in the past, each
/// sending commands for a time already gone. Where a tick starts when due (simulation,
/// `--realtime`), `now == due` and this is `now + period`. Timers due before then fire now
/// (their transitions belong to this tick); between ticks like BehaviorTree.CPP's
/// `tree.sleep`, a timer that fires, or a node that woke the tree, brings the next tick
/// forward.
pub(super) fn schedule_next(l: &mut Live, due: f64, now: f64, pacing: Pacing) -> f64 {
    let skipped = skipped_periods(l, due, now, pacing);
    let mut next = match pacing {
        Pacing::Fixed if skipped == 0 => due + period(l),
        Pacing::Fixed => now + period(l),
        Pacing::SleepBetweenTicks { ms } => now + ms,
    };
    let m = &mut l.agent.machine;
    let wake_early = matches!(pacing, Pacing::SleepBetweenTicks { .. });
    if wake_early && m.woken {
        // Woken during the tick: the sleep returns at once.
        next = now;
    } else if let Some(w) = m.advance(next - 1e-9, wake_early) {
        if wake_early {
            next = w.at_ms;
        }
    }
    m.woken = false;
    next
}

/// The contents of each visible list variable (points too); empty for the others.
pub(super) fn list_contents(l: &Live) -> Vec<Vec<f64>> {
    let m = &l.agent.machine;
    l.agent
        .program
        .slots
        .iter()
        .enumerate()
        .map(|(i, s)| match s.kind {
            ValueKind::List if s.visible => m.lists.shown(m.slots[i]).to_vec(),
            _ => Vec::new(),
        })
        .collect()
}
