//! Observers of a run against the wall clock (`--hardware`, `--realtime`): a stop request
//! (Ctrl-C, SIGTERM) ends the run at the next tick boundary, where the runtime halts the
//! running nodes and sets the safe values; every tick feeds the watchdog; the tick timing is
//! summarised on stderr at the end.

use super::RunObserver;
use affect_runtime::hardware::watchdog::Watchdog;
use affect_runtime::run::{Flow, Observer, TickView};
use affect_runtime::trace::{Event, TimingSummary, TraceSink};
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Stops the run when the flag is set (by a signal handler).
pub struct StopOnSignal(pub Arc<AtomicBool>);

impl TraceSink for StopOnSignal {
    fn line(&mut self, _: u64, _: f64, _: &str, _: &Event) -> io::Result<()> {
        Ok(())
    }
}

impl Observer for StopOnSignal {
    fn tick_done(&mut self, _: &TickView) -> Flow {
        if self.0.load(Ordering::Relaxed) {
            Flow::Stop
        } else {
            Flow::Continue
        }
    }
}

impl RunObserver for StopOnSignal {}

/// Tells the watchdog after every tick; says goodbye when the run is over.
pub struct Heartbeat(pub Option<Watchdog>);

impl TraceSink for Heartbeat {
    fn line(&mut self, _: u64, _: f64, _: &str, _: &Event) -> io::Result<()> {
        Ok(())
    }
}

impl Observer for Heartbeat {
    fn tick_done(&mut self, _: &TickView) -> Flow {
        if let Some(w) = &mut self.0 {
            w.beat();
        }
        Flow::Continue
    }
}

impl RunObserver for Heartbeat {
    fn finish(&mut self, _completed: bool) -> Result<(), String> {
        if let Some(w) = self.0.take() {
            w.finish();
        }
        Ok(())
    }
}

/// Prints the run's timing summary (the trace's `timing_summary` line) when it is over.
#[derive(Default)]
pub struct TimingReport {
    summary: Option<TimingSummary>,
}

impl TraceSink for TimingReport {
    fn line(&mut self, _: u64, _: f64, _: &str, ev: &Event) -> io::Result<()> {
        if let Event::TimingSummary(s) = ev {
            self.summary = Some(*s);
        }
        Ok(())
    }
}

impl Observer for TimingReport {}

impl RunObserver for TimingReport {
    fn finish(&mut self, _completed: bool) -> Result<(), String> {
        if let Some(s) = &self.summary {
            eprintln!("{}", describe(s));
        }
        Ok(())
    }
}

/// One line: tick times, lateness of tick starts (jitter) and overruns.
pub fn describe(s: &TimingSummary) -> String {
    let ms = |us: f64| format!("{:.2} ms", us / 1000.0);
    format!(
        "timing: {} ticks of {}; tick p50 {}, p99 {}, max {}; start late p50 {}, p99 {}, max {}; {} overrun{}",
        s.ticks,
        ms(s.period_us),
        ms(s.tick_p50_us),
        ms(s.tick_p99_us),
        ms(s.tick_max_us),
        ms(s.late_p50_us),
        ms(s.late_p99_us),
        ms(s.late_max_us),
        s.overruns,
        if s.overruns == 1 { "" } else { "s" }
    )
}
