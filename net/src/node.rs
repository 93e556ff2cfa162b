//! One process's place in a team on Zenoh: the session (peer mode, multicast scouting off,
//! explicit endpoints), signing what it publishes, verifying what it receives.

use crate::accept::Acceptance;
use crate::keys::{Identity, TeamKeys};
use crate::wire::{self, Body, Message, VERSION};
use std::path::PathBuf;
use std::sync::mpsc::{channel, Receiver};
use zenoh::Wait;

/// How a process joins the network.
#[derive(Clone, Debug, Default)]
pub struct Endpoints {
    /// `--listen`: where other processes reach this one (`tcp/127.0.0.1:7447`).
    pub listen: Vec<String>,
    /// `--connect`: routers or peers to reach at start.
    pub connect: Vec<String>,
    /// `--zenoh-config`: a Zenoh configuration file (JSON5) to start from, for TLS and the
    /// like; the settings above and multicast scouting (off) override it.
    pub config: Option<PathBuf>,
}

/// Opens a Zenoh session in peer mode with multicast scouting off.
pub fn open(endpoints: &Endpoints) -> Result<zenoh::Session, String> {
    let mut config = match &endpoints.config {
        Some(p) => zenoh::Config::from_file(p)
            .map_err(|e| format!("cannot read the Zenoh configuration `{}`: {e}", p.display()))?,
        None => zenoh::Config::default(),
    };
    let json = |v: &[String]| serde_json::to_string(v).unwrap_or_else(|_| "[]".into());
    let mut set = |key: &str, value: &str| {
        config
            .insert_json5(key, value)
            .map_err(|e| format!("Zenoh configuration `{key}`: {e}"))
    };
    set("mode", "\"peer\"")?;
    // Multicast scouting would leave by an external interface: endpoints are explicit.
    set("scouting/multicast/enabled", "false")?;
    if !endpoints.listen.is_empty() {
        set("listen/endpoints", &json(&endpoints.listen))?;
    }
    if !endpoints.connect.is_empty() {
        set("connect/endpoints", &json(&endpoints.connect))?;
    }
    zenoh::open(config)
        .wait()
        .map_err(|e| format!("cannot open the Zenoh session: {e}"))
}

/// A message refused by a verifying member, for the trace.
#[derive(Clone, Debug, PartialEq)]
pub struct Rejection {
    /// The sender the message claimed (the key's sender chunk when the payload is unreadable).
    pub from: String,
    pub kind: String,
    pub why: String,
}

/// A received sample.
#[derive(Clone, Debug)]
pub struct Raw {
    pub key: String,
    pub payload: Vec<u8>,
    /// The sender's signature.
    pub attachment: Option<Vec<u8>>,
    /// When it arrived, by this machine's wall clock (ms since the Unix epoch): a process
    /// that takes its messages late (at its next tick, after a stall) does not count its own
    /// delay against their freshness.
    pub arrived_ms: f64,
}

/// A subscription whose samples queue up until polled.
pub struct Inbox {
    _subscriber: zenoh::pubsub::Subscriber<()>,
    rx: Receiver<Raw>,
}

impl Inbox {
    /// Every sample that arrived since the last call.
    pub fn drain(&self) -> Vec<Raw> {
        self.rx.try_iter().collect()
    }

    /// The next sample, waiting for it at most `limit` of wall time.
    pub fn wait(&self, limit: std::time::Duration) -> Option<Raw> {
        self.rx.recv_timeout(limit).ok()
    }
}

/// A liveliness change: (key, alive).
pub type LiveChange = (String, bool);

pub struct LiveInbox {
    _subscriber: zenoh::pubsub::Subscriber<()>,
    rx: Receiver<LiveChange>,
}

impl LiveInbox {
    pub fn drain(&self) -> Vec<LiveChange> {
        self.rx.try_iter().collect()
    }
}

/// A member of a team on the network.
pub struct Node {
    pub session: zenoh::Session,
    pub team: String,
    pub me: String,
    identity: Option<Identity>,
    /// What it accepts: the team's keys, the launch, the processes and sequence numbers
    /// seen, the freshness window.
    pub acceptance: Acceptance,
    /// This process's start, in microseconds since the Unix epoch (or its launch's epoch,
    /// when later).
    instance: u64,
    /// Which of its member's processes this is (`Message::part`).
    part: String,
    seq: u64,
    pub rejected: Vec<Rejection>,
    /// Messages published and received, for the summary.
    pub published: u64,
    pub accepted: u64,
    _token: Option<zenoh::liveliness::LivelinessToken>,
}

impl Node {
    /// Joins `team` as `me`: signs with `identity` and verifies against `keys` when given.
    pub fn join(
        session: zenoh::Session,
        team: &str,
        me: &str,
        identity: Option<Identity>,
        keys: Option<TeamKeys>,
    ) -> Result<Node, String> {
        let token = session
            .liveliness()
            .declare_token(wire::alive(team, me))
            .wait()
            .map_err(|e| format!("cannot declare the liveliness token: {e}"))?;
        let started_ms = crate::clock::unix_ms();
        let mut acceptance = Acceptance::new(keys);
        acceptance.started_at(started_ms);
        Ok(Node {
            session,
            team: team.to_string(),
            me: me.to_string(),
            identity,
            acceptance,
            instance: (started_ms * 1000.0) as u64,
            part: String::new(),
            seq: (started_ms * 1000.0) as u64,
            rejected: Vec::new(),
            published: 0,
            accepted: 0,
            _token: Some(token),
        })
    }

    /// This process is one part of its member (`Message::part`): a host process started for
    /// some of its components only.
    pub fn set_part(&mut self, part: &str) {
        self.part = part.to_string();
    }

    /// This process belongs to the launch whose world time 0 is `epoch_ms`: processes that
    /// started before it are of an earlier launch and their messages are refused; this one
    /// counts itself from the epoch when that is later than its start. A launch older than
    /// the one known changes nothing (false).
    pub fn learn_launch(&mut self, epoch_ms: f64) -> bool {
        // In whole milliseconds: an epoch handed on as text (`--epoch 1765...123.457`) and
        // rounded there must not make a process of the launch look older than it.
        let epoch_us = (epoch_ms.max(0.0).floor() * 1000.0) as u64;
        if !self.acceptance.learn_launch(epoch_us) {
            return false;
        }
        self.instance = self.instance.max(epoch_us);
        true
    }

    /// Subscribes to every sender's messages of one kind.
    pub fn subscribe(&self, kind: &str) -> Result<Inbox, String> {
        let (tx, rx) = channel();
        let subscriber = self
            .session
            .declare_subscriber(wire::key_all(&self.team, kind))
            .callback(move |sample| {
                let _ = tx.send(Raw {
                    key: sample.key_expr().as_str().to_string(),
                    payload: sample.payload().to_bytes().into_owned(),
                    attachment: sample.attachment().map(|a| a.to_bytes().into_owned()),
                    arrived_ms: crate::clock::unix_ms(),
                });
            })
            .wait()
            .map_err(|e| format!("cannot subscribe: {e}"))?;
        Ok(Inbox {
            _subscriber: subscriber,
            rx,
        })
    }

    /// Watches the team's liveliness tokens (those already declared come first).
    pub fn watch_alive(&self) -> Result<LiveInbox, String> {
        self.watch(wire::alive_all(&self.team))
    }

    /// Watches the liveliness tokens matching `key` (those already declared come first).
    pub fn watch(&self, key: String) -> Result<LiveInbox, String> {
        let (tx, rx) = channel();
        let subscriber = self
            .session
            .liveliness()
            .declare_subscriber(key)
            .history(true)
            .callback(move |sample| {
                let alive = sample.kind() == zenoh::sample::SampleKind::Put;
                let _ = tx.send((sample.key_expr().as_str().to_string(), alive));
            })
            .wait()
            .map_err(|e| format!("cannot watch liveliness: {e}"))?;
        Ok(LiveInbox {
            _subscriber: subscriber,
            rx,
        })
    }

    /// Declares a liveliness token (dropping it withdraws it).
    pub fn declare_alive(&self, key: String) -> Result<zenoh::liveliness::LivelinessToken, String> {
        self.session
            .liveliness()
            .declare_token(key)
            .wait()
            .map_err(|e| format!("cannot declare the liveliness token: {e}"))
    }

    /// Signs and publishes a message from this member.
    pub fn publish(&mut self, t_ms: f64, to: Option<String>, lost_for: Vec<String>, body: Body) {
        self.seq += 1;
        let key = wire::key(&self.team, &self.me, body.topic());
        let msg = Message {
            v: VERSION,
            team: self.team.clone(),
            from: self.me.clone(),
            instance: self.instance,
            part: self.part.clone(),
            seq: self.seq,
            wall_ms: Some(crate::clock::unix_ms()),
            t_ms,
            to,
            lost_for,
            body,
        };
        let Ok(payload) = serde_json::to_vec(&msg) else {
            return;
        };
        let put = self.session.put(&key, payload.clone());
        let put = match &self.identity {
            Some(id) => put.attachment(id.sign(&wire::signed_bytes(&key, &payload)).to_vec()),
            None => put,
        };
        if put.wait().is_ok() {
            self.published += 1;
        }
    }

    /// Reads and verifies a received sample: the payload must parse, be of this team and
    /// version, come from the member its key names, and pass [`Acceptance::check`] (its
    /// signature, freshness, launch, process and sequence number). Refusals are kept for
    /// the trace.
    pub fn accept(&mut self, raw: &Raw) -> Option<Message> {
        self.check(raw, true)
    }

    /// As [`Node::accept`], without taking note of the sequence number: for a second
    /// subscription that sees the same messages (the start-up's).
    pub fn peek(&mut self, raw: &Raw) -> Option<Message> {
        self.check(raw, false)
    }

    fn check(&mut self, raw: &Raw, track: bool) -> Option<Message> {
        let key = &raw.key;
        let claimed = wire::sender_of(&self.team, key).unwrap_or_else(|| "?".into());
        let msg: Message = match serde_json::from_slice(&raw.payload) {
            Ok(m) => m,
            Err(e) => {
                self.refuse(&claimed, "?", format!("unreadable payload: {e}"));
                return None;
            }
        };
        // Its own messages come back to it; a message of this member from another process
        // (an earlier one's, replayed) is checked as any other.
        if msg.from == self.me && msg.instance == self.instance && msg.part == self.part {
            // Its own (a second copy of it is a replay).
            if let Err(why) = self.acceptance.own_echo(key, &msg) {
                self.refuse(&msg.from, msg.body.kind(), why);
            }
            return None;
        }
        let kind = msg.body.kind();
        if msg.v != VERSION || msg.team != self.team || msg.from != claimed {
            self.refuse(
                &msg.from,
                kind,
                "sender, team or version do not match the key".into(),
            );
            return None;
        }
        if msg.from == self.me {
            // Its own process is the newest of its part.
            let (me, part, instance) = (self.me.clone(), self.part.clone(), self.instance);
            self.acceptance.note_process(&me, &part, instance);
        }
        let signed = wire::signed_bytes(key, &raw.payload);
        if let Err(why) = self.acceptance.check(
            key,
            &msg,
            &signed,
            raw.attachment.as_deref(),
            raw.arrived_ms,
            track,
        ) {
            self.refuse(&msg.from, kind, why);
            return None;
        }
        self.accepted += 1;
        Some(msg)
    }

    fn refuse(&mut self, from: &str, kind: &str, why: String) {
        // A flood of refusals must not grow without bound: keep the first ones of a tick.
        if self.rejected.len() < 1000 {
            self.rejected.push(Rejection {
                from: from.to_string(),
                kind: kind.to_string(),
                why,
            });
        }
    }
}
