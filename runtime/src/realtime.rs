//! Real time: ticking against the monotonic clock (`--hardware`, `--realtime`), and what
//! the ticks cost on it. [`WallClock`] sleeps until each tick is due and knows how late it
//! started; [`TickTimer`] measures each tick's sense, process and act phases, its lateness
//! (jitter), whether it overran its period and whether it missed its deadline (lateness plus
//! its own time past the period), and the periods the schedule skipped after a stall, for
//! the `timing` trace events and the run's summary (p50 / p99 / max, counts).
//!
//! The catch-up policy lives in the run's schedule (`run/tick.rs`, `schedule_next`): on the
//! robot ([`Stamp::Actual`]) a tick that starts a period or more late runs once, at the time
//! it really starts (its timers, hormones and moves see the time that passed), and the
//! periods it missed are skipped: the next tick is a period after it, never a burst of
//! ticks due in the past.

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

/// How late a tick started.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Lateness {
    /// After it was due, wall-clock milliseconds.
    pub ms: f64,
    /// The periods the schedule skipped to start it (after a stall on the robot).
    pub skipped: u64,
}

/// The ticks [`TickTimer`] makes room for before the first: 2^22, 23 hours at 50 Hz
/// (two 32 MiB reservations of address space, which even armv7 has).
const RESERVED_TICKS: u64 = 1 << 22;

/// Measures ticks on the wall clock.
pub struct TickTimer {
    period_us: f64,
    ticks: Vec<f64>,
    lates: Vec<f64>,
    overruns: u64,
    missed: u64,
    skipped: u64,
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
    /// `period_ms`: the agent's period, against which overruns are counted; `ticks`: how
    /// many the run will time. Room for their samples is taken now, so recording a tick
    /// does not allocate (a tick must not: a reallocation is a copy of every sample so far,
    /// a stall that grows with the run). Pages are touched only as samples come, so the
    /// room reserved costs nothing until used; past `RESERVED_TICKS` the samples grow as
    /// a vector does.
    pub fn new(period_ms: f64, ticks: u64) -> TickTimer {
        let room = usize::try_from(ticks.min(RESERVED_TICKS)).unwrap_or(0);
        TickTimer {
            period_us: period_ms * 1000.0,
            ticks: Vec::with_capacity(room),
            lates: Vec::with_capacity(room),
            overruns: 0,
            missed: 0,
            skipped: 0,
        }
    }

    /// One tick: it started `late` after it was due (the clock's [`Clock::late_ms`]), the
    /// schedule skipped `skipped` periods to start it, it began at `began`, its phases ended
    /// at `marks` and `ended`. It missed its deadline when it ended after its period was
    /// over: lateness plus its own time past the period.
    pub fn record(
        &mut self,
        late: Lateness,
        began: Instant,
        marks: PhaseMarks,
        ended: Instant,
    ) -> Timing {
        let tick_us = micros(ended - began);
        let late_us = late.ms.max(0.0) * 1000.0;
        let overrun = tick_us > self.period_us;
        let missed = late_us + tick_us > self.period_us;
        self.ticks.push(tick_us);
        self.lates.push(late_us);
        self.overruns += u64::from(overrun);
        self.missed += u64::from(missed);
        self.skipped += late.skipped;
        Timing {
            sense_us: micros(marks.sensed - began),
            process_us: micros(marks.processed - marks.sensed),
            act_us: micros(ended - marks.processed),
            tick_us,
            late_us,
            overrun,
            missed,
            skipped: late.skipped,
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
            missed: self.missed,
            skipped: self.skipped,
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
    fn ticks_longer_than_the_period_are_overruns() {
        let mut t = TickTimer::new(10.0, 2);
        let b = Instant::now();
        let m = PhaseMarks {
            sensed: b + Duration::from_millis(1),
            processed: b + Duration::from_millis(2),
        };
        let short = t.record(Lateness::default(), b, m, b + Duration::from_millis(3));
        assert!(!short.overrun && !short.missed);
        assert!((short.sense_us - 1000.0).abs() < 1.0 && (short.act_us - 1000.0).abs() < 1.0);
        let long = t.record(Lateness::default(), b, m, b + Duration::from_millis(12));
        assert!(long.overrun && long.missed);
        let s = t.summary();
        assert_eq!((s.ticks, s.overruns, s.missed), (2, 1, 1));
        // The samples fit the room taken for the run's ticks: no tick allocated.
        assert_eq!((t.ticks.capacity(), t.lates.capacity()), (2, 2));
        assert!((s.tick_max_us - 12_000.0).abs() < 1.0);
    }

    #[test]
    fn a_late_tick_misses_its_deadline_though_it_is_short() {
        let mut t = TickTimer::new(1.0, 4);
        let b = Instant::now();
        let tick = |t: &mut TickTimer, late: Lateness, us: u64| {
            t.record(
                late,
                b,
                PhaseMarks::default(),
                b + Duration::from_micros(us),
            )
        };
        // 1 kHz: 0.6 ms late and 0.3 ms long ends in time; 0.6 ms late and 0.5 ms long
        // does not; 1.88 ms late is a missed deadline and a skipped period.
        let on_time = tick(
            &mut t,
            Lateness {
                ms: 0.6,
                skipped: 0,
            },
            300,
        );
        assert!(!on_time.missed && !on_time.overrun);
        let over = tick(
            &mut t,
            Lateness {
                ms: 0.6,
                skipped: 0,
            },
            500,
        );
        assert!(over.missed && !over.overrun);
        let stalled = tick(
            &mut t,
            Lateness {
                ms: 1.88,
                skipped: 1,
            },
            100,
        );
        assert!(stalled.missed && !stalled.overrun);
        assert_eq!(stalled.skipped, 1);
        let s = t.summary();
        assert_eq!((s.overruns, s.missed, s.skipped), (0, 2, 1));
        assert!((s.late_max_us - 1880.0).abs() < 1e-6);
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
