//! Real time: ticking against the monotonic clock (`--hardware`, `--realtime`).
//! [`WallClock`] sleeps until each tick is due and knows how late it started; what each
//! tick costs on it the run loop measures (`run/timing.rs`).
//!
//! The catch-up policy lives in the run's schedule (`run/tick.rs`, `schedule_next`): on the
//! robot ([`Stamp::Actual`]) a tick that starts a period or more late runs once, at the time
//! it really starts (its timers, hormones and moves see the time that passed), and the
//! periods it missed are skipped: the next tick is a period after it, never a burst of
//! ticks due in the past.

use crate::run::clock::Clock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What time a tick is said to start at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stamp {
    /// When it was due: a simulated world runs at wall-clock speed and its trace stays the
    /// simulated one, bit for bit (`--realtime`).
    Due,
    /// When it actually started: on the robot, timers and the trace follow the real clock.
    Actual,
}

/// The monotonic clock. World time 0 is the moment the clock is made (`--hardware`,
/// `--realtime`), or a moment a team's processes agreed on (`affect run --net`, where world
/// time may also run `speed` times faster than the wall clock).
pub struct WallClock {
    start: Instant,
    /// World milliseconds per wall millisecond.
    speed: f64,
    stamp: Stamp,
    /// Set by a signal: stop sleeping, the run is about to stop.
    stop: Option<Arc<AtomicBool>>,
    /// World time 0 is the first tick (a clock of one run, made by [`WallClock::new`]): the
    /// start moves there when the first tick is asked for, so the time the run took to set
    /// up (devices opened, code compiled, the watchdog started) is not counted as lateness.
    anchor_at_first: bool,
    /// How late the last tick started after it was due, wall-clock milliseconds.
    late_ms: f64,
}

/// Sleeps are cut into slices this long, so a stop request is seen within one.
const SLICE: Duration = Duration::from_millis(20);

impl WallClock {
    /// The clock of one run: world time 0 is its first tick.
    pub fn new(stamp: Stamp, stop: Option<Arc<AtomicBool>>) -> WallClock {
        WallClock {
            anchor_at_first: true,
            ..WallClock::at(Instant::now(), 1.0, stamp, stop)
        }
    }

    /// World time 0 at `start` (which may lie ahead), world time running `speed` times
    /// faster than the wall clock (not positive or not finite: 1).
    pub fn at(
        start: Instant,
        speed: f64,
        stamp: Stamp,
        stop: Option<Arc<AtomicBool>>,
    ) -> WallClock {
        let speed = if speed.is_finite() && speed > 0.0 {
            speed
        } else {
            1.0
        };
        WallClock {
            start,
            speed,
            stamp,
            stop,
            anchor_at_first: false,
            late_ms: 0.0,
        }
    }

    /// The moment a tick due `due_ms` into the run starts (a driver that waits for
    /// something else meanwhile, such as `--watch` for a saved file, waits until then).
    pub fn instant(&self, due_ms: f64) -> Instant {
        self.start + Duration::from_secs_f64(due_ms.max(0.0) / self.speed / 1000.0)
    }

    /// World time now, in milliseconds: negative before world time 0.
    pub fn now_ms(&self) -> f64 {
        let now = Instant::now();
        let wall = match now.checked_duration_since(self.start) {
            Some(d) => d.as_secs_f64(),
            None => -self.start.duration_since(now).as_secs_f64(),
        };
        wall * 1000.0 * self.speed
    }

    pub fn speed(&self) -> f64 {
        self.speed
    }

    /// Whether a stop was asked for.
    pub fn stopped(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
    }
}

impl Clock for WallClock {
    fn wait_until(&mut self, due_ms: f64) -> f64 {
        if std::mem::take(&mut self.anchor_at_first) {
            self.start = Instant::now() - Duration::from_secs_f64(due_ms.max(0.0) / 1000.0);
        }
        loop {
            let left = (due_ms - self.now_ms()) / self.speed;
            if left <= 0.0 || self.stopped() {
                break;
            }
            std::thread::sleep(SLICE.min(Duration::from_secs_f64(left / 1000.0)));
        }
        let now = self.now_ms();
        self.late_ms = ((now - due_ms) / self.speed).max(0.0);
        match self.stamp {
            Stamp::Due => due_ms,
            Stamp::Actual => now.max(due_ms),
        }
    }

    fn late_ms(&self) -> f64 {
        self.late_ms
    }
}

/// A stop flag that SIGINT (Ctrl-C) and SIGTERM set: a wall-clock run (`--hardware`,
/// `--realtime`, a robot on the network) stops at the next tick boundary, where the runtime
/// sets the safe values and the trace is completed. Every call gets a flag of its own, and
/// each is set: the handlers compose (unlike a process-wide single handler).
pub fn stop_on_signals() -> std::io::Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, stop.clone()).map_err(|e| {
            std::io::Error::new(e.kind(), format!("cannot handle signal {signal}: {e}"))
        })?;
    }
    Ok(stop)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wall_clock_waits_and_stamps() {
        let mut due = WallClock::new(Stamp::Due, None);
        assert_eq!(due.wait_until(30.0), 30.0);
        assert!(due.now_ms() >= 30.0, "it slept until the tick was due");
        let mut actual = WallClock::new(Stamp::Actual, None);
        let t = actual.wait_until(10.0);
        assert!(t >= 10.0);
        // A stop request ends the wait at once.
        let stop = Arc::new(AtomicBool::new(true));
        let mut stopped = WallClock::new(Stamp::Due, Some(stop));
        let begun = Instant::now();
        stopped.wait_until(10_000.0);
        assert!(begun.elapsed() < Duration::from_secs(1));
    }

    #[test]
    fn a_fast_clock_from_a_start_ahead_counts_world_time_from_it() {
        // World time 0 is 50 ms ahead; world time runs 100 times faster.
        let mut c = WallClock::at(
            Instant::now() + Duration::from_millis(50),
            100.0,
            Stamp::Due,
            None,
        );
        assert!(c.now_ms() < 0.0, "before world time 0");
        let begun = Instant::now();
        assert_eq!(c.wait_until(2_000.0), 2_000.0);
        // 50 ms to world time 0, then 2 s of world time in 20 ms of wall time.
        assert!(begun.elapsed() >= Duration::from_millis(65));
        assert!(c.now_ms() >= 2_000.0);
        assert_eq!(
            WallClock::at(Instant::now(), -3.0, Stamp::Due, None).speed(),
            1.0
        );
    }

    #[cfg(unix)]
    #[test]
    fn every_stop_flag_hears_the_signal() {
        let (a, b) = (stop_on_signals().unwrap(), stop_on_signals().unwrap());
        assert!(!a.load(Ordering::Relaxed));
        signal_hook::low_level::raise(signal_hook::consts::SIGTERM).unwrap();
        assert!(a.load(Ordering::Relaxed) && b.load(Ordering::Relaxed));
    }

    #[test]
    fn the_wall_clock_says_how_late_a_tick_started() {
        // A clock of one run counts from its first tick, however long the setup took.
        let mut c = WallClock::new(Stamp::Actual, None);
        std::thread::sleep(Duration::from_millis(30));
        let first = c.wait_until(0.0);
        assert!(first < 25.0, "the first tick is world time 0, not {first}");
        assert!(c.late_ms() < 25.0);
        // A tick asked for after its time starts at once and says how late.
        std::thread::sleep(Duration::from_millis(40));
        let t = c.wait_until(10.0);
        assert!(t >= 40.0, "stamped when it started: {t}");
        assert!(c.late_ms() >= 30.0, "late {}", c.late_ms());
        // Stamped when due, the lateness is still measured.
        let mut due = WallClock::new(Stamp::Due, None);
        due.wait_until(0.0);
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(due.wait_until(5.0), 5.0);
        assert!(due.late_ms() >= 25.0);
    }
}
