//! What the ticks cost on the wall clock (`--hardware`, `--realtime`): [`TickTimer`]
//! measures each tick's sense, process and act phases, its lateness (jitter), whether it
//! overran its period and whether it missed its deadline (lateness plus its own time past
//! the period), and the periods the schedule skipped after a stall, for the `timing` trace
//! events and the run's summary (p50 / p99 / max, counts). How late a tick started the
//! clock says (`Clock::late_ms`).

use crate::trace::{Timing, TimingSummary};
use std::time::{Duration, Instant};

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
}
