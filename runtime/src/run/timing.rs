//! What the ticks cost on the wall clock (`--hardware`, `--realtime`): [`TickTimer`]
//! measures each tick's sense, process and act phases, how late it started against its
//! schedule (jitter) and whether it overran its period, for the `timing` trace events and
//! the run's summary (p50 / p99 / max).

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

/// The ticks [`TickTimer`] makes room for before the first: 2^22, 23 hours at 50 Hz
/// (two 32 MiB reservations of address space, which even armv7 has).
const RESERVED_TICKS: u64 = 1 << 22;

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
    /// `period_ms`: the agent's period, against which overruns are counted; `ticks`: how
    /// many the run will time. Room for their samples is taken now, so recording a tick
    /// does not allocate (a tick must not: a reallocation is a copy of every sample so far,
    /// a stall that grows with the run). Pages are touched only as samples come, so the
    /// room reserved costs nothing until used; past `RESERVED_TICKS` the samples grow as
    /// a vector does.
    pub fn new(period_ms: f64, ticks: u64) -> TickTimer {
        let room = usize::try_from(ticks.min(RESERVED_TICKS)).unwrap_or(0);
        TickTimer {
            start: Instant::now(),
            period_us: period_ms * 1000.0,
            ticks: Vec::with_capacity(room),
            lates: Vec::with_capacity(room),
            overruns: 0,
        }
    }

    /// Starts the clock again: the run's first tick is due now.
    pub fn restart(&mut self) {
        self.start = Instant::now();
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
    fn ticks_longer_than_the_period_are_overruns() {
        let mut t = TickTimer::new(10.0, 2);
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
        // The samples fit the room taken for the run's ticks: no tick allocated.
        assert_eq!((t.ticks.capacity(), t.lates.capacity()), (2, 2));
        assert!((s.tick_max_us - 12_000.0).abs() < 1.0);
    }
}
