//! What happens between a component's users finding it silent and their being served again,
//! in simulation: the registry taking the silent instance out, and the users renewing their
//! connection through the registry. The steps and their order are ADE's (the architecture
//! seed 001 describes, by its first author; `ade/ADERegistryImpl.java` and
//! `ade/ADEComponentImpl.java` of ADE 1.0), each step's duration a component setting
//! (docs/experiments.md lists them with their sources):
//!
//! - **The registry's reaper** checks every registered instance once per reaper period, twice
//!   the longest heartbeat (`RegistryReaper.setPeriod`, `DEF_RPPULSE = 2 * DEF_HBPULSE`), the
//!   first pass at time 0. An instance last heard more than a period before a pass is called
//!   once more (`isUp`, waited on for `confirm`: `DEF_RECOVERYTIMEOUT`); when that call fails
//!   the registry takes it out (and starts a restart, if it may). Users learn that it is gone
//!   from the registry's bookkeeping at the next pass (`updateComponentInfo`).
//! - **A user's renewal** (`Heartbeat.reconnectComponent`) starts one heartbeat after its
//!   failed heartbeat and repeats every heartbeat. While it knows nothing, it asks the
//!   registry: an instance still registered is reported fine, and the renewal then asks for
//!   that very instance again, by name; the registry's call to it and the user's own call to
//!   it each wait a heartbeat before failing (ADE's remote call timers use `DEF_HBPULSE`).
//!   Once told the instance is gone, the renewal asks the registry for any instance of the
//!   component: its restarted instance, or a redundant one that is alive, and is served again.
//!
//! Everything here is arithmetic on times: no clock, no state beyond [`Renewal`].

/// When the registry takes a silent instance out, and when its users hear of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Removal {
    /// The reaper's call to the instance has failed: it is no longer registered.
    pub at: f64,
    /// The first bookkeeping after that: users asking by name learn it is gone.
    pub told: f64,
}

/// The registry's view of an instance last heard at `last_ms`: the reaper, passing every
/// `period_ms` from time 0, finds it overdue at the first pass more than a period after
/// `last_ms`, calls it once more for `confirm_ms`, and takes it out.
pub fn removal_time(last_ms: f64, period_ms: f64, confirm_ms: f64) -> Removal {
    let period = period_ms.max(1.0);
    let pass = ((last_ms + period) / period).floor() + 1.0;
    let found = pass * period;
    let at = found + confirm_ms;
    Removal {
        at,
        // The reaper sleeps what is left of its period after the call, if anything.
        told: (found + period).max(at),
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Know {
    /// Nothing yet: ask the registry about the instance.
    Nothing,
    /// The registry still lists the instance: ask for it again, by name.
    Listed,
    /// The registry said the instance is gone: ask for any instance of the component.
    Gone,
}

/// A user's renewal of its connection to a component whose serving instance (`lost`) fell
/// silent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Renewal {
    /// The instance the users lost.
    pub lost: usize,
    /// When the renewal next asks the registry.
    pub next_ms: f64,
    know: Know,
}

impl Renewal {
    /// A renewal for users that found `lost` failed at `found_ms`: it starts one heartbeat
    /// later.
    pub fn start(lost: usize, found_ms: f64, heartbeat_ms: f64) -> Renewal {
        Renewal {
            lost,
            next_ms: found_ms + heartbeat_ms,
            know: Know::Nothing,
        }
    }

    /// Runs the renewal's rounds due by `now_ms`. `removal` is when the registry takes `lost`
    /// out (`None`: not yet); `by_name(t)` whether `lost` itself is registered and alive at
    /// `t` (a restarted instance registers under the same name); `any(t)` an instance of the
    /// component the registry would hand out at `t`. Returns the instance the users get, and
    /// when.
    pub fn advance(
        &mut self,
        now_ms: f64,
        heartbeat_ms: f64,
        removal: Option<Removal>,
        by_name: &dyn Fn(f64) -> bool,
        any: &dyn Fn(f64) -> Option<usize>,
    ) -> Option<(usize, f64)> {
        let hb = heartbeat_ms.max(1.0);
        while self.next_ms <= now_ms {
            let t = self.next_ms;
            let listed = removal.is_none_or(|d| t < d.at);
            if removal.is_some_and(|d| t >= d.told) {
                self.know = Know::Gone;
            }
            if by_name(t) {
                return Some((self.lost, t));
            }
            match self.know {
                Know::Nothing | Know::Gone if listed => {
                    self.know = Know::Listed;
                    self.next_ms = t + hb;
                }
                Know::Nothing | Know::Gone => {
                    if let Some(to) = any(t) {
                        return Some((to, t));
                    }
                    self.know = Know::Gone;
                    self.next_ms = t + hb;
                }
                Know::Listed => {
                    // Asking for the silent instance by name: while it is registered, the
                    // registry's call to it times out; then the user's own call to it does.
                    let end = t + if listed { 2.0 * hb } else { hb };
                    if removal.is_some_and(|d| end >= d.told) {
                        self.know = Know::Gone;
                    }
                    self.next_ms = end + hb;
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reaper_finds_an_instance_a_period_after_its_last_beat() {
        // Last heard at 39.0 s, reaper every 3 s: 42 is exactly a period later (not more), so
        // 45 finds it; the call waits 1 s; users hear at the next pass, 48.
        let d = removal_time(39_000.0, 3000.0, 1000.0);
        assert_eq!(
            d,
            Removal {
                at: 46_000.0,
                told: 48_000.0
            }
        );
        // A call longer than the period: the reaper does not sleep after it.
        let d = removal_time(39_000.0, 3000.0, 5000.0);
        assert_eq!(
            d,
            Removal {
                at: 50_000.0,
                told: 50_000.0
            }
        );
        // Last heard between passes.
        assert_eq!(removal_time(40_500.0, 3000.0, 0.0).at, 45_000.0);
    }

    /// ADE's defaults in seed 001's failure: heartbeat 1.5 s, the speech recognizer last
    /// heard at 39.0 s and found silent by its users at 42.1 s.
    #[test]
    fn users_get_the_redundant_instance_once_the_registry_has_told_them() {
        let removal = removal_time(39_000.0, 3000.0, 1000.0);
        let mut r = Renewal::start(7, 42_100.0, 1500.0);
        let none = |_: f64| false;
        let backup = |_: f64| Some(9);
        // 43.6: the registry still lists it; 45.1: asked by name, the registry's call and
        // then the user's own call time out (48.1, after the registry's 48.0 bookkeeping);
        // 49.6: told it is gone, the renewal gets the backup.
        assert_eq!(
            r.advance(49_000.0, 1500.0, Some(removal), &none, &backup),
            None
        );
        assert_eq!(r.next_ms, 49_600.0);
        assert_eq!(
            r.advance(49_600.0, 1500.0, Some(removal), &none, &backup),
            Some((9, 49_600.0))
        );
    }

    #[test]
    fn a_restarted_instance_is_found_by_name_or_once_it_has_registered() {
        let removal = removal_time(39_000.0, 3000.0, 1000.0);
        let mut r = Renewal::start(7, 42_100.0, 1500.0);
        // Registered again at 60 s: the renewal, told at 48.0, asks every 1.5 s from 49.6 and
        // gets it, by name, at 60.1.
        let up = |t: f64| t >= 60_000.0;
        let nothing = |_: f64| None;
        assert_eq!(
            r.advance(59_999.0, 1500.0, Some(removal), &up, &nothing),
            None
        );
        assert_eq!(
            r.advance(70_000.0, 1500.0, Some(removal), &up, &nothing),
            Some((7, 60_100.0))
        );
    }

    #[test]
    fn before_the_registry_acts_the_renewal_keeps_asking_by_name() {
        let mut r = Renewal::start(7, 1000.0, 500.0);
        let none = |_: f64| false;
        let other = |_: f64| Some(9);
        // No removal yet: every round finds it listed, and nothing is handed out.
        assert_eq!(r.advance(20_000.0, 500.0, None, &none, &other), None);
        assert!(r.next_ms > 20_000.0);
    }
}
