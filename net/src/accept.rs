//! Which received messages a member acts on. A signed message must be its claimed sender's
//! (the signature), of the current launch (its sending process no older than the launch), of
//! the newest process of that member seen so far, newer than the last one accepted from that
//! process on that key (its `seq`), fresh (its `wall_ms` within the freshness window of the
//! receiver's wall clock), and sent after the receiving process started, checked in that
//! order so that the reason given is the most telling one. The last five are what make a
//! captured message worthless later: replayed into another launch it is from before that
//! launch; replayed after its sender restarted it is from an earlier process; replayed to a
//! receiver that saw it, it is not newer; replayed to a receiver restarted since (which saw
//! nothing of it, but whose earlier process may have acted on it), it was sent before that
//! receiver started. So each member acts on a message at most once, across its restarts.

use crate::keys::TeamKeys;
use crate::wire::Message;
use std::collections::HashMap;

/// The freshness window when not set (`--freshness`): a message sent longer ago than this by
/// the receiver's wall clock, or stamped this far in the receiver's future, is refused. It
/// tolerates clocks that differ by up to the window less the delivery time (NTP keeps
/// machines within milliseconds of each other), and a receiver stalled or paused for about
/// as long.
pub const DEFAULT_WINDOW_MS: f64 = 10_000.0;

/// A member's acceptance state.
pub struct Acceptance {
    /// The team's public keys; `None` accepts anything (`--unsigned`).
    pub keys: Option<TeamKeys>,
    /// The freshness window, in wall-clock milliseconds.
    pub window_ms: f64,
    /// The current launch's epoch in microseconds since the Unix epoch (0: none known):
    /// a process that started before it belongs to an earlier launch.
    launch_us: u64,
    /// The newest process accepted from each member's part (`from`, `part`).
    newest: HashMap<(String, String), u64>,
    /// The last sequence number accepted from each sending process on each key (messages
    /// on different keys may arrive in any order relative to each other).
    last_seq: HashMap<(String, u64), u64>,
    /// When this receiving process started, by its wall clock (Unix ms; 0: not set): a
    /// message stamped earlier could not have reached it but as a replay, and its earlier
    /// process (it was restarted) may have acted on it already.
    started_ms: f64,
}

impl Acceptance {
    pub fn new(keys: Option<TeamKeys>) -> Acceptance {
        Acceptance {
            keys,
            window_ms: DEFAULT_WINDOW_MS,
            launch_us: 0,
            newest: HashMap::new(),
            last_seq: HashMap::new(),
            started_ms: 0.0,
        }
    }

    /// This receiving process started at `unix_ms` (before it subscribed to anything): what
    /// was sent before then is refused. A sender whose clock is `s` ms behind this one's is
    /// refused for the first `s` ms after the start (NTP keeps `s` to milliseconds; a
    /// restarted robot hears nothing anyway while it catches up).
    pub fn started_at(&mut self, unix_ms: f64) {
        self.started_ms = unix_ms;
    }

    /// The current launch's epoch (µs), 0 when none is known.
    pub fn launch_us(&self) -> u64 {
        self.launch_us
    }

    /// A newer launch is known: processes started before `epoch_us` are of an older one.
    /// Returns whether it was newer than the one known.
    pub fn learn_launch(&mut self, epoch_us: u64) -> bool {
        let newer = epoch_us > self.launch_us;
        self.launch_us = self.launch_us.max(epoch_us);
        newer
    }

    /// Takes note of a process of a member as the newest so far (this process's own).
    pub fn note_process(&mut self, from: &str, part: &str, instance: u64) {
        let newest = self
            .newest
            .entry((from.to_string(), part.to_string()))
            .or_insert(0);
        *newest = (*newest).max(instance);
    }

    /// Checks a message that parsed and matched its key: `signed` is what its signature
    /// covers, `arrived_ms` when it arrived by this machine's wall clock. `track`: take note
    /// of it as accepted (a second subscription seeing the same messages does not).
    pub fn check(
        &mut self,
        key: &str,
        msg: &Message,
        signed: &[u8],
        signature: Option<&[u8]>,
        arrived_ms: f64,
        track: bool,
    ) -> Result<(), String> {
        let Some(keys) = &self.keys else {
            return Ok(());
        };
        keys.verify(&msg.from, signed, signature)
            .map_err(|r| r.text().to_string())?;
        if msg.instance < self.launch_us {
            return Err(format!(
                "replayed: sent by a process started before this launch ({} ms before its epoch)",
                (self.launch_us - msg.instance) / 1000
            ));
        }
        let part = (msg.from.clone(), msg.part.clone());
        if self.newest.get(&part).is_some_and(|n| msg.instance < *n) {
            return Err(format!(
                "replayed: sent by an earlier process of {} (a newer one has spoken since)",
                msg.from
            ));
        }
        let process = (key.to_string(), msg.instance);
        if self.last_seq.get(&process).is_some_and(|s| msg.seq <= *s) {
            return Err("replayed: not newer than the last message of its process".into());
        }
        self.fresh(msg, arrived_ms)?;
        if let Some(sent) = msg.wall_ms.filter(|t| *t < self.started_ms) {
            return Err(format!(
                "replayed: sent {} ms before this process started",
                (self.started_ms - sent).round()
            ));
        }
        if track {
            self.last_seq.insert(process, msg.seq);
            self.note_process(&msg.from, &msg.part, msg.instance);
        }
        Ok(())
    }

    /// A copy of this process's own message came back (Zenoh hands a process what it
    /// publishes): the first copy is its echo, a second one of the same number a replay.
    pub fn own_echo(&mut self, key: &str, msg: &Message) -> Result<(), String> {
        let last = self
            .last_seq
            .entry((key.to_string(), msg.instance))
            .or_insert(0);
        if self.keys.is_some() && msg.seq <= *last {
            return Err("replayed: its own message, heard before".into());
        }
        *last = msg.seq;
        Ok(())
    }

    /// The freshness window: the message's wall-clock stamp against this machine's.
    fn fresh(&self, msg: &Message, arrived_ms: f64) -> Result<(), String> {
        let Some(sent) = msg.wall_ms.filter(|t| t.is_finite()) else {
            return Err("no send time (`wall_ms`)".into());
        };
        let age = arrived_ms - sent;
        let window = self.window_ms;
        if age > window {
            Err(format!(
                "stale: sent {} ms before it arrived (freshness window {} ms)",
                age.round(),
                window.round()
            ))
        } else if -age > window {
            Err(format!(
                "from the future: sent {} ms after it arrived by this clock (freshness window {} ms)",
                (-age).round(),
                window.round()
            ))
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::{generate, Identity};
    use crate::wire::{signed_bytes, Body, VERSION};

    struct Team {
        _dir: tempfile::TempDir,
        keys: TeamKeys,
        uav: Identity,
    }

    fn team() -> Team {
        let dir = tempfile::tempdir().unwrap();
        let names = vec!["UAV".to_string(), "UGV#1".to_string()];
        generate(dir.path(), "T", &names).unwrap();
        Team {
            keys: TeamKeys::load(dir.path()).unwrap(),
            uav: Identity::load(dir.path(), "UAV").unwrap(),
            _dir: dir,
        }
    }

    fn msg(instance: u64, seq: u64, wall_ms: f64) -> Message {
        Message {
            v: VERSION,
            team: "T".into(),
            from: "UAV".into(),
            instance,
            part: String::new(),
            seq,
            wall_ms: Some(wall_ms),
            t_ms: 0.0,
            to: None,
            lost_for: vec![],
            body: Body::Pose {
                at: [0.0, 0.0],
                airborne: true,
            },
        }
    }

    const KEY: &str = "affect/v1/T/UAV/pose";

    fn check(a: &mut Acceptance, t: &Team, m: &Message, now: f64) -> Result<(), String> {
        let payload = serde_json::to_vec(m).unwrap();
        let signed = signed_bytes(KEY, &payload);
        let sig = t.uav.sign(&signed);
        a.check(KEY, m, &signed, Some(&sig), now, true)
    }

    #[test]
    fn a_message_is_refused_outside_the_window_and_taken_inside_it() {
        let t = team();
        let mut a = Acceptance::new(Some(t.keys.clone()));
        a.window_ms = 1000.0;
        let now = 1_800_000_000_000.0;
        // A sender's clock 999 ms behind or ahead is tolerated; 1001 ms is not.
        assert_eq!(check(&mut a, &t, &msg(1, 1, now - 999.0), now), Ok(()));
        assert_eq!(check(&mut a, &t, &msg(1, 2, now + 999.0), now), Ok(()));
        let old = check(&mut a, &t, &msg(1, 3, now - 1001.0), now).unwrap_err();
        assert!(old.starts_with("stale: sent 1001 ms before"), "{old}");
        let ahead = check(&mut a, &t, &msg(1, 4, now + 1001.0), now).unwrap_err();
        assert!(
            ahead.starts_with("from the future: sent 1001 ms after"),
            "{ahead}"
        );
        let mut none = msg(1, 5, now);
        none.wall_ms = None;
        assert_eq!(
            check(&mut a, &t, &none, now).unwrap_err(),
            "no send time (`wall_ms`)"
        );
    }

    #[test]
    fn processes_of_an_earlier_launch_or_an_earlier_process_are_refused() {
        let t = team();
        let mut a = Acceptance::new(Some(t.keys.clone()));
        let now = 1_800_000_000_000.0;
        assert!(a.learn_launch(5_000));
        assert!(
            !a.learn_launch(4_000),
            "an older launch does not replace a newer one"
        );
        assert_eq!(a.launch_us(), 5_000);
        let before = check(&mut a, &t, &msg(4_999, 10, now), now).unwrap_err();
        assert!(before.contains("before this launch"), "{before}");
        assert_eq!(check(&mut a, &t, &msg(6_000, 10, now), now), Ok(()));
        let same = check(&mut a, &t, &msg(6_000, 10, now), now).unwrap_err();
        assert!(same.contains("not newer"), "{same}");
        // The member restarted: its new process spoke, the old one's messages are refused
        // even with sequence numbers never seen.
        assert_eq!(check(&mut a, &t, &msg(7_000, 1, now), now), Ok(()));
        let old = check(&mut a, &t, &msg(6_000, 99, now), now).unwrap_err();
        assert!(old.contains("earlier process of UAV"), "{old}");
        // Another part of the member (a host's restarted component) is its own process line.
        let mut part = msg(6_500, 1, now);
        part.part = "speech".into();
        assert_eq!(check(&mut a, &t, &part, now), Ok(()));
    }

    #[test]
    fn a_restarted_receiver_refuses_what_was_sent_before_it_started() {
        // The receiver's earlier process may have acted on it: every message of a process
        // still current, fresh and with a sequence number this process never saw, is
        // refused when stamped before this process started, and taken when after.
        let t = team();
        let mut a = Acceptance::new(Some(t.keys.clone()));
        let now = 1_800_000_000_000.0;
        a.started_at(now - 500.0);
        let before = check(&mut a, &t, &msg(1, 1, now - 501.0), now).unwrap_err();
        assert_eq!(before, "replayed: sent 1 ms before this process started");
        assert_eq!(check(&mut a, &t, &msg(1, 2, now - 500.0), now), Ok(()));
        // A stale one says so first: the more telling reason.
        let stale = check(&mut a, &t, &msg(1, 3, now - 20_000.0), now).unwrap_err();
        assert!(stale.starts_with("stale"), "{stale}");
    }

    #[test]
    fn a_forged_signature_is_refused_before_anything_is_noted() {
        let t = team();
        let mut a = Acceptance::new(Some(t.keys.clone()));
        let now = 1_800_000_000_000.0;
        let m = msg(9_000, 1, now);
        let payload = serde_json::to_vec(&m).unwrap();
        let signed = signed_bytes(KEY, &payload);
        let stranger = Identity::generate("UAV").sign(&signed);
        assert_eq!(
            a.check(KEY, &m, &signed, Some(&stranger), now, true),
            Err("bad signature".into())
        );
        // A forged newer process does not make the real one's messages look old.
        assert_eq!(check(&mut a, &t, &msg(8_000, 1, now), now), Ok(()));
    }
}
