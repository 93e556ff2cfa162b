//! Real time: ticking against the monotonic clock (`--hardware`, `--realtime`), and what
//! the ticks cost on it. [`WallClock`] sleeps until each tick is due; [`TickTimer`] measures
//! each tick's sense, process and act phases, how late it started against its schedule
//! (jitter) and whether it overran its period, for the `timing` trace events and the
//! run's summary (p50 / p99 / max).

use crate::run::clock::Clock;
use crate::trace::{Timing, TimingSummary};
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

/// The monotonic clock, from the moment the clock is made.
pub struct WallClock {
    start: Instant,
    stamp: Stamp,
    /// Set by a signal: stop sleeping, the run is about to stop.
    stop: Option<Arc<AtomicBool>>,
}

/// Sleeps are cut into slices this long, so a stop request is seen within one.
const SLICE: Duration = Duration::from_millis(20);

impl WallClock {
    pub fn new(stamp: Stamp, stop: Option<Arc<AtomicBool>>) -> WallClock {
        WallClock {
            start: Instant::now(),
            stamp,
            stop,
        }
    }

    /// The moment a tick due `due_ms` into the run starts (a driver that waits for
    /// something else meanwhile, such as `--watch` for a saved file, waits until then).
    pub fn instant(&self, due_ms: f64) -> Instant {
        self.start + Duration::from_secs_f64(due_ms.max(0.0) / 1000.0)
    }

    fn elapsed_ms(&self) -> f64 {
        self.start.elapsed().as_secs_f64() * 1000.0
    }
}

impl Clock for WallClock {
    fn wait_until(&mut self, due_ms: f64) -> f64 {
        loop {
            let left = due_ms - self.elapsed_ms();
            if left <= 0.0
                || self
                    .stop
                    .as_ref()
                    .is_some_and(|s| s.load(Ordering::Relaxed))
            {
                break;
            }
            std::thread::sleep(SLICE.min(Duration::from_secs_f64(left / 1000.0)));
        }
        match self.stamp {
            Stamp::Due => due_ms,
            Stamp::Actual => self.elapsed_ms().max(due_ms),
        }
    }
}

/// Marks taken inside a tick, between its phases.
#[derive(Clone, Copy, Debug)]
pub struct PhaseMarks {
    pub sensed: Instant,
    pub processed: Instant,
}

impl Default for PhaseMarks {
    fn default() -> Self {
        let now = Instant::now();
        PhaseMarks {
            sensed: now,
            processed: now,
        }
    }
}

/// Measures ticks on the wall clock.
pub struct TickTimer {
    start: Instant,
    period_us: f64,
    ticks: Vec<f64>,
    lates: Vec<f64>,
    overruns: u64,
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// The `q` quantile (0..=1) of sorted samples, nearest rank.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

impl TickTimer {
    /// `period_ms`: the agent's period, against which overruns are counted.
    pub fn new(period_ms: f64) -> TickTimer {
        TickTimer {
            start: Instant::now(),
            period_us: period_ms * 1000.0,
            ticks: Vec::new(),
            lates: Vec::new(),
            overruns: 0,
        }
    }

    /// Starts the clock again: the run's first tick is due now.
    pub fn restart(&mut self) {
        self.start = Instant::now();
    }

    /// The wall-clock time since the timer was made, ms.
    pub fn now_ms(&self) -> f64 {
        self.start.elapsed().as_secs_f64() * 1000.0
    }

    /// One tick: it began at `began` (when it was `due_ms` into the run), its phases ended
    /// at `marks` and `ended`.
    pub fn record(
        &mut self,
        due_ms: f64,
        began: Instant,
        marks: PhaseMarks,
        ended: Instant,
    ) -> Timing {
        let tick_us = micros(ended - began);
        let late_us = (micros(began - self.start) - due_ms * 1000.0).max(0.0);
        let overrun = tick_us > self.period_us;
        self.ticks.push(tick_us);
        self.lates.push(late_us);
        self.overruns += u64::from(overrun);
        Timing {
            sense_us: micros(marks.sensed - began),
            process_us: micros(marks.processed - marks.sensed),
            act_us: micros(ended - marks.processed),
            tick_us,
            late_us,
            overrun,
        }
    }

    pub fn summary(&self) -> TimingSummary {
        let sorted = |v: &[f64]| {
            let mut s = v.to_vec();
            s.sort_by(f64::total_cmp);
            s
        };
        let (t, l) = (sorted(&self.ticks), sorted(&self.lates));
        TimingSummary {
            ticks: t.len() as u64,
            tick_p50_us: quantile(&t, 0.5),
            tick_p99_us: quantile(&t, 0.99),
            tick_max_us: t.last().copied().unwrap_or(0.0),
            late_p50_us: quantile(&l, 0.5),
            late_p99_us: quantile(&l, 0.99),
            late_max_us: l.last().copied().unwrap_or(0.0),
            overruns: self.overruns,
            period_us: self.period_us,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_by_nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(quantile(&v, 0.5), 50.0);
        assert_eq!(quantile(&v, 0.99), 99.0);
        assert_eq!(quantile(&v, 1.0), 100.0);
        assert_eq!(quantile(&[7.0], 0.99), 7.0);
        assert_eq!(quantile(&[], 0.5), 0.0);
    }

    #[test]
    fn the_wall_clock_waits_and_stamps() {
        let mut due = WallClock::new(Stamp::Due, None);
        assert_eq!(due.wait_until(30.0), 30.0);
        assert!(due.elapsed_ms() >= 30.0, "it slept until the tick was due");
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
    fn ticks_longer_than_the_period_are_overruns() {
        let mut t = TickTimer::new(10.0);
        let b = t.start;
        let m = PhaseMarks {
            sensed: b + Duration::from_millis(1),
            processed: b + Duration::from_millis(2),
        };
        let short = t.record(0.0, b, m, b + Duration::from_millis(3));
        assert!(!short.overrun);
        assert!((short.sense_us - 1000.0).abs() < 1.0 && (short.act_us - 1000.0).abs() < 1.0);
        let long = t.record(0.0, b, m, b + Duration::from_millis(12));
        assert!(long.overrun);
        let s = t.summary();
        assert_eq!((s.ticks, s.overruns), (2, 1));
        assert!((s.tick_max_us - 12_000.0).abs() < 1.0);
    }
}
