//! Scripted events: one-off (`at 40s raise loud_noise on Navigator`) and recurring (`raise
//! treat_taken on Butler every exponential(mean: 4s)`). Each scripted event has its own
//! random stream, so its occurrences do not depend on when or how often the others are asked
//! for.

use crate::rng::Rng;
use affect_compiler::ir::world::{EventAction, Interval, ScriptedEvent, WorldSpec};

/// One occurrence of a scripted event.
#[derive(Clone, Debug, PartialEq)]
pub struct WorldEvent {
    pub at_ms: u64,
    /// Which scripted event of the spec (index into `WorldSpec::events`).
    pub source: usize,
    pub action: EventAction,
}

#[derive(Debug)]
struct Generator {
    event: ScriptedEvent,
    rng: Rng,
    /// The next occurrence not yet handed out; `None` when there are no more.
    next: Option<u64>,
}

impl Generator {
    fn new(event: &ScriptedEvent, rng: Rng) -> Generator {
        let mut g = Generator {
            event: event.clone(),
            rng,
            next: None,
        };
        g.next = match (event.at_ms, event.every) {
            (Some(at), _) => Some(at),
            // A recurring event without `at` first happens one interval after the start.
            (None, Some(every)) => Some(g.draw(every)),
            (None, None) => None,
        };
        g.next = g.next.filter(|t| g.before_until(*t));
        g
    }

    fn before_until(&self, t: u64) -> bool {
        self.event.until_ms.is_none_or(|u| t < u)
    }

    /// Milliseconds to the next occurrence: at least 1, so time always moves on.
    fn draw(&mut self, every: Interval) -> u64 {
        let ms = match every {
            Interval::Fixed(ms) => ms,
            Interval::Exponential { mean } => self.rng.exponential(mean),
            Interval::Uniform { min, max } => self.rng.uniform(min, max),
            Interval::Triangular(t) => self.rng.triangular(t.min, t.mode, t.max),
        };
        if ms.is_finite() {
            (ms.round() as u64).max(1)
        } else {
            u64::MAX
        }
    }

    fn advance(&mut self) {
        let Some(now) = self.next else { return };
        self.next = match self.event.every {
            Some(every) => {
                let step = self.draw(every);
                now.checked_add(step).filter(|t| self.before_until(*t))
            }
            None => None,
        };
    }
}

#[derive(Debug)]
pub(super) struct Schedule {
    generators: Vec<Generator>,
}

impl Schedule {
    pub(super) fn new(spec: &WorldSpec) -> Schedule {
        Schedule {
            generators: spec
                .events
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    Generator::new(e, Rng::stream(spec.seed ^ 0x6576_656E_7473, i as u64))
                })
                .collect(),
        }
    }

    /// Occurrences in `[t0, t1)`, sorted by time and then by written order. Occurrences
    /// before `t0` that were never asked for are dropped.
    pub(super) fn between(&mut self, t0: u64, t1: u64) -> Vec<WorldEvent> {
        let mut out = Vec::new();
        for (source, g) in self.generators.iter_mut().enumerate() {
            while let Some(t) = g.next {
                if t >= t1 {
                    break;
                }
                if t >= t0 {
                    out.push(WorldEvent {
                        at_ms: t,
                        source,
                        action: g.event.action.clone(),
                    });
                }
                g.advance();
            }
        }
        // Stable: equal times keep written order.
        out.sort_by_key(|e| (e.at_ms, e.source));
        out
    }
}
