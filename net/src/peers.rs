//! A robot's view of its teammates' liveliness (docs/network.md, "Robots' liveliness"): a
//! teammate is `lost` when its liveliness token is withdrawn (its process died, or its
//! link broke: SIGKILL closes its sockets at once) or when nothing was heard from it for
//! longer than the lease (a paused process, a cut-off link, a hung robot: only silence
//! reveals those), and `back` when it is heard again.
//!
//! Every robot publishes at least one message (its `pose`) every quarter of the lease of
//! wall time, so a live robot is never silent for a whole lease. The lease counts wall
//! time, not world time: it is about processes and links, which `--speed` does not speed
//! up. A robot whose ticks are further apart than half the lease (a slow rate at a low
//! speed) is given two tick periods instead, since it publishes only after a tick.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// The liveliness lease when none is given: 3 s of wall time. Zenoh's own transport lease
/// is 10 s; 3 s finds a paused or cut-off robot sooner while a process starved of the CPU
/// for a moment (a loaded machine) is not taken for dead.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(3);

struct Peer {
    lease: Duration,
    heard: Option<Instant>,
    lost: bool,
    /// It said it made all its ticks (`done`): its token going and its silence are its end.
    done: bool,
    /// The process last heard (its `instance`), to tell a restarted robot.
    instance: u64,
}

/// A change to report: (robot, `lost` or `back`, why).
pub type Change = (String, &'static str, String);

/// The teammates one robot watches.
pub struct Peers {
    peers: BTreeMap<String, Peer>,
    lease: Duration,
}

impl Peers {
    /// Watches `robots` (name, wall time between its ticks) with `lease`.
    pub fn new(robots: impl IntoIterator<Item = (String, Duration)>, lease: Duration) -> Peers {
        let peers = robots
            .into_iter()
            .map(|(name, period)| {
                let peer = Peer {
                    lease: lease.max(period * 2),
                    heard: None,
                    lost: false,
                    done: false,
                    instance: 0,
                };
                (name, peer)
            })
            .collect();
        Peers { peers, lease }
    }

    /// How often a robot must publish to stay alive: a quarter of the lease.
    pub fn beat(&self) -> Duration {
        self.lease / 4
    }

    /// Every teammate's silence counts from now (the team's start, or the end of a time in
    /// which this robot heard nothing on purpose: cut off, catching up).
    pub fn restart_silence(&mut self, now: Instant) {
        for p in self.peers.values_mut() {
            p.heard = Some(now);
        }
    }

    /// A message from `name`, sent by process `instance`, was accepted.
    pub fn heard(&mut self, name: &str, instance: u64, now: Instant) -> Option<Change> {
        let p = self.peers.get_mut(name)?;
        p.heard = Some(now);
        let new_process = p.instance != 0 && instance != p.instance;
        p.instance = instance;
        p.done &= !new_process;
        if !p.lost {
            return None;
        }
        p.lost = false;
        let why = if new_process {
            "heard again, from a new process"
        } else {
            "heard again"
        };
        Some((name.to_string(), "back", why.to_string()))
    }

    /// `name` made all its ticks and leaves: not lost when its token goes or it falls silent.
    pub fn done(&mut self, name: &str) {
        if let Some(p) = self.peers.get_mut(name) {
            p.done = true;
        }
    }

    /// `name`'s liveliness token was withdrawn.
    pub fn withdrawn(&mut self, name: &str) -> Option<Change> {
        let p = self.peers.get_mut(name)?;
        if p.lost || p.done {
            return None;
        }
        p.lost = true;
        Some((
            name.to_string(),
            "lost",
            "its process is gone (liveliness token withdrawn)".to_string(),
        ))
    }

    /// The teammates silent for longer than their lease, found lost now.
    pub fn expired(&mut self, now: Instant) -> Vec<Change> {
        let mut out = Vec::new();
        for (name, p) in &mut self.peers {
            let Some(heard) = p.heard else { continue };
            let silent = now.saturating_duration_since(heard);
            if !p.lost && !p.done && silent > p.lease {
                p.lost = true;
                out.push((
                    name.clone(),
                    "lost",
                    format!(
                        "nothing heard for {} ms of wall time (lease {} ms)",
                        silent.as_millis(),
                        p.lease.as_millis()
                    ),
                ));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peers() -> Peers {
        Peers::new(
            [
                ("UGV#1".to_string(), Duration::from_millis(100)),
                ("UGV#2".to_string(), Duration::from_secs(5)),
            ],
            Duration::from_secs(3),
        )
    }

    #[test]
    fn a_silent_teammate_is_lost_after_its_lease_and_back_when_heard() {
        let mut p = peers();
        let t0 = Instant::now();
        p.restart_silence(t0);
        assert!(p.expired(t0 + Duration::from_millis(2900)).is_empty());
        p.heard("UGV#1", 7, t0 + Duration::from_millis(2900));
        let lost = p.expired(t0 + Duration::from_millis(3100));
        assert!(lost.is_empty(), "UGV#2's ticks are 5 s apart: {lost:?}");
        let lost = p.expired(t0 + Duration::from_millis(6000));
        assert_eq!(lost.len(), 1, "{lost:?}");
        assert_eq!((lost[0].0.as_str(), lost[0].1), ("UGV#1", "lost"));
        // Once: a lost teammate is not found lost again.
        assert!(p.expired(t0 + Duration::from_millis(6500)).is_empty());
        let back = p
            .heard("UGV#1", 8, t0 + Duration::from_millis(7000))
            .unwrap();
        assert_eq!(back.1, "back");
        assert!(back.2.contains("new process"), "{back:?}");
        assert_eq!(p.beat(), Duration::from_millis(750));
    }

    #[test]
    fn a_teammate_that_made_its_ticks_is_not_lost_when_it_leaves() {
        let mut p = peers();
        let t0 = Instant::now();
        p.restart_silence(t0);
        p.heard("UGV#1", 7, t0);
        p.done("UGV#1");
        assert!(p.withdrawn("UGV#1").is_none());
        let lost = p.expired(t0 + Duration::from_secs(20));
        assert_eq!(lost.len(), 1, "UGV#2 only: {lost:?}");
        assert_eq!(lost[0].0, "UGV#2");
        // A new process of it (started again) is watched again.
        p.heard("UGV#1", 8, t0 + Duration::from_secs(21));
        assert_eq!(p.withdrawn("UGV#1").unwrap().1, "lost");
    }

    #[test]
    fn a_withdrawn_token_is_a_loss_at_once_and_strangers_are_ignored() {
        let mut p = peers();
        assert_eq!(p.withdrawn("UGV#2").unwrap().1, "lost");
        assert!(p.withdrawn("UGV#2").is_none());
        assert!(p.withdrawn("laptop2").is_none());
        assert!(p.heard("stranger", 1, Instant::now()).is_none());
        assert_eq!(
            p.heard("UGV#2", 1, Instant::now()).unwrap().2,
            "heard again"
        );
    }
}
