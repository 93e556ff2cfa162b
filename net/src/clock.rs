//! World time on the wall clock: every process of a team counts world time from the same
//! epoch (a Unix time in milliseconds the launcher hands out), `speed` times faster than the
//! wall clock. The clock is the runtime's own (`affect run --realtime` and `--hardware` tick
//! on it too); this module only places its start at the team's epoch. A process that falls
//! behind runs its due ticks at once until it catches up.

use affect_runtime::realtime::Stamp;
pub use affect_runtime::realtime::WallClock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch now.
pub fn unix_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

/// The team's clock: world time 0 at `epoch_ms` (Unix milliseconds, shared by the team's
/// processes), world time `speed` times faster than the wall clock, ticks stamped when they
/// are due (so loss and scripted events land at the world times the program names).
pub fn team_clock(epoch_ms: f64, speed: f64, stop: Arc<AtomicBool>) -> WallClock {
    let now = Instant::now();
    let ahead = (epoch_ms - unix_ms()) / 1000.0;
    let start = if ahead >= 0.0 {
        now + Duration::from_secs_f64(ahead)
    } else {
        // An epoch before this machine booted cannot be an Instant: count from now.
        now.checked_sub(Duration::from_secs_f64(-ahead))
            .unwrap_or(now)
    };
    WallClock::at(start, speed, Stamp::Due, Some(stop))
}

/// A stop flag set by SIGINT and SIGTERM, and (for a process the launcher started) when its
/// standard input closes: the launcher holds the other end, so if the launcher dies, so does
/// the process. No process is left behind.
pub fn stop_flag(watch_stdin: bool) -> Arc<AtomicBool> {
    // The runtime's signal flags compose: every call gets its own, and each is set.
    let stop = affect_runtime::realtime::stop_on_signals().unwrap_or_else(|e| {
        eprintln!("warning: {e}; stop the process with SIGKILL");
        Arc::new(AtomicBool::new(false))
    });
    if watch_stdin {
        let on_eof = stop.clone();
        std::thread::spawn(move || {
            use std::io::Read;
            let mut buf = [0u8; 64];
            let mut input = std::io::stdin();
            loop {
                match input.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => continue,
                }
            }
            on_eof.store(true, Ordering::Relaxed);
        });
    }
    stop
}

#[cfg(test)]
mod tests {
    use super::*;
    use affect_runtime::run::Clock;

    #[test]
    fn the_team_clock_counts_world_time_from_the_epoch() {
        let stop = Arc::new(AtomicBool::new(false));
        // The epoch 2 s of wall time ago, at 60 times the wall clock: 120 s of world time.
        let c = team_clock(unix_ms() - 2_000.0, 60.0, stop.clone());
        assert!((c.now_ms() - 120_000.0).abs() < 6_000.0, "{}", c.now_ms());
        let mut c = team_clock(unix_ms(), 100.0, stop.clone());
        assert_eq!(c.wait_until(500.0), 500.0);
        assert!(c.now_ms() >= 500.0);
        stop.store(true, Ordering::Relaxed);
        let begun = Instant::now();
        c.wait_until(1e12);
        assert!(
            begun.elapsed() < Duration::from_secs(1),
            "a stop request ends the wait"
        );
    }
}
