//! World time on the wall clock: every process of a team counts world time from the same
//! epoch (a Unix time in milliseconds the launcher hands out), `speed` times faster than the
//! wall clock. A process that falls behind runs its ticks at once until it catches up.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The longest single sleep, so that a stop request is seen promptly.
const NAP: Duration = Duration::from_millis(20);

#[derive(Clone, Debug)]
pub struct WallClock {
    /// When world time 0 is, in milliseconds since the Unix epoch.
    pub epoch_ms: f64,
    /// World milliseconds per wall millisecond.
    pub speed: f64,
    /// Set to stop (Ctrl-C, SIGTERM, the launcher gone).
    pub stop: Arc<AtomicBool>,
}

/// Milliseconds since the Unix epoch now.
pub fn unix_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

impl WallClock {
    pub fn new(epoch_ms: f64, speed: f64, stop: Arc<AtomicBool>) -> WallClock {
        let speed = if speed.is_finite() && speed > 0.0 {
            speed
        } else {
            1.0
        };
        WallClock {
            epoch_ms,
            speed,
            stop,
        }
    }

    /// World time now (negative before the epoch).
    pub fn now(&self) -> f64 {
        (unix_ms() - self.epoch_ms) * self.speed
    }

    /// The wall time (Unix ms) of a world time.
    pub fn wall_of(&self, world_ms: f64) -> f64 {
        self.epoch_ms + world_ms / self.speed
    }

    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Sleeps until world time `world_ms` is due; false when asked to stop meanwhile.
    pub fn wait_until(&self, world_ms: f64) -> bool {
        loop {
            if self.stopped() {
                return false;
            }
            let left = self.wall_of(world_ms) - unix_ms();
            if left <= 0.0 {
                return true;
            }
            std::thread::sleep(Duration::from_secs_f64(left / 1000.0).min(NAP));
        }
    }

    /// Sleeps for `wall` unless asked to stop; false when asked to stop.
    pub fn nap(&self, wall: Duration) -> bool {
        let until = unix_ms() + wall.as_secs_f64() * 1000.0;
        loop {
            if self.stopped() {
                return false;
            }
            let left = until - unix_ms();
            if left <= 0.0 {
                return true;
            }
            std::thread::sleep(Duration::from_secs_f64(left / 1000.0).min(NAP));
        }
    }
}

/// A stop flag set by SIGINT and SIGTERM, and (for a process the launcher started) when its
/// standard input closes: the launcher holds the other end, so if the launcher dies, so does
/// the process. No process is left behind.
pub fn stop_flag(watch_stdin: bool) -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let on_signal = stop.clone();
    // A second handler cannot be installed; the first one's flag is then the only one, so a
    // process installs one (tests may call this more than once: they share nothing).
    let _ = ctrlc::set_handler(move || on_signal.store(true, Ordering::Relaxed));
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

    #[test]
    fn world_time_runs_speed_times_faster_than_the_wall() {
        let stop = Arc::new(AtomicBool::new(false));
        let c = WallClock::new(1_000_000.0, 60.0, stop.clone());
        assert_eq!(c.wall_of(60_000.0), 1_001_000.0);
        let c = WallClock::new(unix_ms(), 100.0, stop.clone());
        assert!(c.wait_until(500.0));
        assert!(c.now() >= 500.0);
        stop.store(true, Ordering::Relaxed);
        assert!(!c.wait_until(1e12), "a stop request ends the wait");
        assert_eq!(WallClock::new(0.0, -3.0, stop).speed, 1.0);
    }
}
