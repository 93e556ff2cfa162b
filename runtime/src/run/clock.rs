//! How a run waits for a tick that is due. The run's schedule ([`Pacing`](super::Pacing))
//! says when each tick is due, in milliseconds since the run started; a clock turns that
//! into the moment the tick starts. In simulation no time passes between ticks; a clock
//! against the monotonic wall clock (real-time ticking on a robot) sleeps until the tick is
//! due and reports when it actually started.

/// Where the run's "now" comes from.
pub trait Clock {
    /// Called before every agent tick with the time the tick is due; returns the time the
    /// tick starts (never earlier than `due_ms`). The agent's timers, the world and the
    /// trace use the returned time.
    fn wait_until(&mut self, due_ms: f64) -> f64;

    /// How late, in wall-clock milliseconds, the tick that last started began after it was
    /// due (0 where time is simulated). The `timing` events report it; with ticks stamped
    /// when due it is the only sign that a tick ran late.
    fn late_ms(&self) -> f64 {
        0.0
    }
}

/// Simulated time: a tick starts exactly when it is due, at once. Same program, world and
/// seed, same trace, bit for bit.
#[derive(Clone, Copy, Debug, Default)]
pub struct SimClock;

impl Clock for SimClock {
    fn wait_until(&mut self, due_ms: f64) -> f64 {
        due_ms
    }
}
