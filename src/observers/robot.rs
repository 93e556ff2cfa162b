//! Observers of a run against the wall clock (`--hardware`, `--realtime`): a stop request
//! (Ctrl-C, SIGTERM) ends the run at the next tick boundary, where the runtime halts the
//! running nodes and sets the safe values; every tick feeds the watchdog; the tick timing is
//! summarised on stderr at the end.

use super::RunObserver;
use affect_runtime::hardware::watchdog::{Unguarded, Watchdog};
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

/// Tells the watchdog after every tick; says goodbye when the run is over. When the watchdog
/// no longer guards the run (gone, or silent for its bound), the run stops at this tick
/// boundary, where the runtime halts the nodes and sets every safe value itself, and it ends
/// with an error: a robot does not go on unguarded.
///
/// Under systemd (`NOTIFY_SOCKET`, a unit of `affect install-service`) it also tells the
/// service manager: `READY=1` after the first tick, `WATCHDOG=1` from the tick loop (at most
/// every half of `WatchdogSec=`, so a stalled loop stops the pings and systemd restarts the
/// unit, whose `ExecStopPost=` stops the motors), and `STOPPING=1` at the end.
pub struct Heartbeat {
    watchdog: Option<Watchdog>,
    unguarded: Option<Unguarded>,
    systemd: Option<Systemd>,
}

/// The service manager's side of [`Heartbeat`]. The notifications go out from a thread of
/// their own: sending to systemd's socket blocks when its queue is full, and the tick loop
/// must never wait for the service manager (a ping that finds the thread busy is dropped; the
/// next tick sends another).
struct Systemd {
    ready: bool,
    /// Half of `WATCHDOG_USEC` (`None`: no systemd watchdog).
    every: Option<std::time::Duration>,
    last: Option<std::time::Instant>,
    to: std::sync::mpsc::SyncSender<&'static [sd_notify::NotifyState<'static>]>,
}

impl Systemd {
    /// `None` when the run is not under systemd's notification protocol.
    fn from_env() -> Option<Systemd> {
        std::env::var_os("NOTIFY_SOCKET")?;
        let every = sd_notify::watchdog_enabled().map(|d| d / 2);
        let (to, from) = std::sync::mpsc::sync_channel::<&[sd_notify::NotifyState]>(4);
        std::thread::Builder::new()
            .name("sd_notify".into())
            .spawn(move || {
                for states in from {
                    // A service manager that went away cannot be helped; the run goes on.
                    let _ = sd_notify::notify(states);
                }
            })
            .ok()?;
        Some(Systemd {
            ready: false,
            every,
            last: None,
            to,
        })
    }

    fn tick(&mut self) {
        use sd_notify::NotifyState::{Ready, Watchdog};
        if !self.ready {
            self.ready = true;
            let _ = self.to.send(if self.every.is_some() {
                &[Ready, Watchdog]
            } else {
                &[Ready]
            });
            self.last = Some(std::time::Instant::now());
            return;
        }
        if let Some(every) = self.every {
            let now = std::time::Instant::now();
            if self.last.is_none_or(|l| now.duration_since(l) >= every)
                && self.to.try_send(&[Watchdog]).is_ok()
            {
                self.last = Some(now);
            }
        }
    }

    fn stopping(&mut self) {
        let _ = self.to.send(&[sd_notify::NotifyState::Stopping]);
    }
}

impl Heartbeat {
    pub fn new(watchdog: Option<Watchdog>) -> Heartbeat {
        Heartbeat {
            watchdog,
            unguarded: None,
            systemd: Systemd::from_env(),
        }
    }
}

impl TraceSink for Heartbeat {
    fn line(&mut self, _: u64, _: f64, _: &str, _: &Event) -> io::Result<()> {
        Ok(())
    }
}

impl Observer for Heartbeat {
    fn tick_done(&mut self, _: &TickView) -> Flow {
        if let Some(s) = &mut self.systemd {
            s.tick();
        }
        let Some(w) = &mut self.watchdog else {
            return Flow::Continue;
        };
        match w.beat() {
            Ok(()) => Flow::Continue,
            Err(why) => {
                eprintln!("error: {why}: the run stops, with the motors and every actuator at their safe values");
                self.unguarded = Some(why);
                Flow::Stop
            }
        }
    }
}

impl RunObserver for Heartbeat {
    fn finish(&mut self, _completed: bool) -> Result<(), String> {
        if let Some(s) = &mut self.systemd {
            s.stopping();
        }
        if let Some(w) = self.watchdog.take() {
            w.finish();
        }
        match self.unguarded.take() {
            Some(why) => Err(format!(
                "the run was stopped because {why}; the motors were stopped"
            )),
            None => Ok(()),
        }
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

/// One line: tick times, lateness of tick starts (jitter), overruns, missed deadlines and
/// the periods skipped after stalls.
pub fn describe(s: &TimingSummary) -> String {
    let ms = |us: f64| format!("{:.2} ms", us / 1000.0);
    let plural = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    format!(
        "timing: {} ticks of {}; tick p50 {}, p99 {}, max {}; start late p50 {}, p99 {}, max {}; {}, {}, {}",
        s.ticks,
        ms(s.period_us),
        ms(s.tick_p50_us),
        ms(s.tick_p99_us),
        ms(s.tick_max_us),
        ms(s.late_p50_us),
        ms(s.late_p99_us),
        ms(s.late_max_us),
        plural(s.overruns, "overrun", "overruns"),
        plural(s.missed, "missed deadline", "missed deadlines"),
        plural(s.skipped, "period skipped", "periods skipped"),
    )
}
