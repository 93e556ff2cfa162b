//! What goes on the wire, version 1 (docs/network.md is the reference for other languages).
//!
//! Key expressions: `affect/v1/<team>/<sender>/<kind>`, where `<sender>` is the sending
//! member's name with `#` written `-` (Zenoh keys cannot hold `#`: `UGV#2` is `UGV-2`) and
//! `<kind>` is `recruit`, `pose`, `command`, `heartbeat`, `restart`, `call`, `reply` or
//! `control`. Liveliness tokens:
//! `affect/v1/<team>/<member>/alive` for every process, and
//! `affect/v1/<team>/<host>/alive/<owner>/<component>` for every component a host runs
//! (`<owner>` is `_` for a top-level component).
//!
//! Payloads are UTF-8 JSON objects, one per sample ([`Message`]); the sample's attachment is
//! the sender's 64-byte Ed25519 signature of `key expression ++ "\n" ++ payload`.

use affect_runtime::affect::recruit::kind;
use serde::{Deserialize, Serialize};

/// The wire format's version: the second chunk of every key expression and `v` in every
/// payload. A new version may add fields; it renames none.
pub const VERSION: u32 = 1;

/// The owner chunk of a top-level component's token.
pub const TOP_LEVEL: &str = "_";

/// A member name as one chunk of a key expression.
pub fn chunk(name: &str) -> String {
    name.replace('#', "-")
}

/// The member name a key chunk stands for (inverse of [`chunk`]: agent names have no `-`).
pub fn unchunk(chunk: &str) -> String {
    chunk.replace('-', "#")
}

/// `affect/v1/<team>/<sender>/<kind>`.
pub fn key(team: &str, sender: &str, kind: &str) -> String {
    format!("affect/v{VERSION}/{}/{}/{kind}", chunk(team), chunk(sender))
}

/// Every sender's messages of one kind.
pub fn key_all(team: &str, kind: &str) -> String {
    format!("affect/v{VERSION}/{}/*/{kind}", chunk(team))
}

/// A process's token once it sees every member it expects (launched processes).
pub fn ready(team: &str, member: &str) -> String {
    format!("affect/v{VERSION}/{}/{}/ready", chunk(team), chunk(member))
}

/// Every readiness token of a team.
pub fn ready_all(team: &str) -> String {
    format!("affect/v{VERSION}/{}/*/ready", chunk(team))
}

/// A process's liveliness token.
pub fn alive(team: &str, member: &str) -> String {
    format!("affect/v{VERSION}/{}/{}/alive", chunk(team), chunk(member))
}

/// A component's liveliness token, declared by the host that runs it.
pub fn component_alive(team: &str, host: &str, owner: Option<&str>, component: &str) -> String {
    format!(
        "affect/v{VERSION}/{}/{}/alive/{}/{}",
        chunk(team),
        chunk(host),
        owner.map_or(TOP_LEVEL.to_string(), chunk),
        chunk(component)
    )
}

/// Every liveliness token of a team.
pub fn alive_all(team: &str) -> String {
    format!("affect/v{VERSION}/{}/*/alive/**", chunk(team))
}

/// What a liveliness key names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Alive {
    Member(String),
    Component {
        host: String,
        owner: Option<String>,
        component: String,
    },
}

/// Reads a liveliness key of `team`.
pub fn parse_alive(team: &str, key: &str) -> Option<Alive> {
    let rest = key.strip_prefix(&format!("affect/v{VERSION}/{}/", chunk(team)))?;
    let parts: Vec<&str> = rest.split('/').collect();
    match parts.as_slice() {
        [member, "alive"] => Some(Alive::Member(unchunk(member))),
        [host, "alive", owner, component] => Some(Alive::Component {
            host: unchunk(host),
            owner: (*owner != TOP_LEVEL).then(|| unchunk(owner)),
            component: component.to_string(),
        }),
        _ => None,
    }
}

/// The sender chunk of a message key of `team`, as a member name.
pub fn sender_of(team: &str, key: &str) -> Option<String> {
    let rest = key.strip_prefix(&format!("affect/v{VERSION}/{}/", chunk(team)))?;
    let (sender, _) = rest.split_once('/')?;
    Some(unchunk(sender))
}

/// One message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// [`VERSION`].
    pub v: u32,
    pub team: String,
    /// The sending member; must match the key's `<sender>` chunk and the signature.
    pub from: String,
    /// The sending process: when it started, in microseconds since the Unix epoch. Two
    /// processes may sign as one member (a host and a component restarted on it).
    /// A process that learns its launch (`start`, `--epoch`) before it sends counts from the
    /// launch's epoch when that is later: no process of a launch is older than the launch.
    #[serde(default)]
    pub instance: u64,
    /// Which of a member's processes sent it, when a member has several: empty for the
    /// member's own; a host process started for some of its components only (a component
    /// restarted on it) names them, comma-separated. The newest process of each part is the
    /// one a receiver accepts.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub part: String,
    /// Increases with every message of a sending process (from `instance`, plus one per
    /// message): a message not newer than the last one accepted from that process on that
    /// key is refused as replayed.
    pub seq: u64,
    /// The sender's wall clock when it sent, in milliseconds since the Unix epoch: receivers
    /// refuse a message outside their freshness window (`accept.rs`). Required of a signed
    /// message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_ms: Option<f64>,
    /// The sender's world time when it sent, in milliseconds.
    pub t_ms: f64,
    /// The recipient; `null` for everyone.
    #[serde(default)]
    pub to: Option<String>,
    /// Fault injection: recipients that must treat this copy as lost (the world's `messages
    /// .. loss`, drawn at the sender).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lost_for: Vec<String>,
    pub body: Body,
}

/// What a message says. Recruitment messages (seed 002) carry the recruitment block's name,
/// the requester and its request number.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Body {
    #[serde(rename = "HELP")]
    Help {
        block: String,
        requester: String,
        session: u32,
        at: [f64; 2],
        #[serde(default)]
        percept: Option<String>,
        resend_ms: f64,
    },
    #[serde(rename = "ACCEPT")]
    Accept {
        block: String,
        requester: String,
        session: u32,
        eta_ms: f64,
    },
    #[serde(rename = "RESPONDER")]
    Responder {
        block: String,
        requester: String,
        session: u32,
        chosen: String,
    },
    #[serde(rename = "ARRIVAL")]
    Arrival {
        block: String,
        requester: String,
        session: u32,
        lease_ms: f64,
    },
    #[serde(rename = "AGREE")]
    Agree {
        block: String,
        requester: String,
        session: u32,
    },
    #[serde(rename = "ACKACK")]
    AckAck {
        block: String,
        requester: String,
        session: u32,
    },
    /// Where the sender is now, in metres (sent when it has moved): other processes keep
    /// their copy of the world up to date with it.
    #[serde(rename = "pose")]
    Pose {
        at: [f64; 2],
        #[serde(default)]
        airborne: bool,
    },
    /// The sender has made all its ticks and leaves (its liveliness token goes next): a
    /// teammate that ended, not one lost.
    #[serde(rename = "done")]
    Done { ticks: u64 },
    /// A command for robot `to` (`SendCommand`): a variant of its `command` enum.
    #[serde(rename = "command")]
    Command { command: String },
    /// A component is alive (seed 001); sent every `heartbeat` by the host running it.
    #[serde(rename = "heartbeat")]
    Heartbeat {
        #[serde(default)]
        owner: Option<String>,
        component: String,
        host: String,
    },
    /// A robot's supervisor asks for a failed component to be started again on `host`.
    #[serde(rename = "restart")]
    Restart {
        #[serde(default)]
        owner: Option<String>,
        component: String,
        #[serde(default)]
        host: Option<String>,
    },
    /// A call of a leaf a component serves (`serves Listen;`), to the host (`to`) that runs
    /// the instance serving the caller now: `owner` and `component` name that instance.
    #[serde(rename = "call")]
    Call {
        id: u64,
        #[serde(default)]
        owner: Option<String>,
        component: String,
        leaf: String,
    },
    /// A host's answer to call `id` of the recipient: `served` when it runs that instance and
    /// took the call, else `why` not.
    #[serde(rename = "reply")]
    Reply {
        id: u64,
        served: bool,
        #[serde(default)]
        why: Option<String>,
    },
    /// The launcher's fault injection: the recipient cuts itself off for `for_ms` of world
    /// time (sends nothing, takes nothing in).
    #[serde(rename = "partition")]
    Partition { for_ms: f64 },
    /// The launcher, once every process is up and linked: world time 0 is `epoch_ms`
    /// (milliseconds since the Unix epoch).
    #[serde(rename = "start")]
    Start { epoch_ms: f64 },
}

impl Body {
    /// The message type, as traces show it: the recruitment protocol's names are the
    /// runtime's (the `rename`s above must spell them alike; a test checks).
    pub fn kind(&self) -> &'static str {
        match self {
            Body::Help { .. } => kind::HELP,
            Body::Accept { .. } => kind::ACCEPT,
            Body::Responder { .. } => kind::RESPONDER,
            Body::Arrival { .. } => kind::ARRIVAL,
            Body::Agree { .. } => kind::AGREE,
            Body::AckAck { .. } => kind::ACKACK,
            Body::Pose { .. } => "pose",
            Body::Done { .. } => "done",
            Body::Command { .. } => "command",
            Body::Heartbeat { .. } => "heartbeat",
            Body::Restart { .. } => "restart",
            Body::Call { .. } => "call",
            Body::Reply { .. } => "reply",
            Body::Partition { .. } => "partition",
            Body::Start { .. } => "start",
        }
    }

    /// The `<kind>` chunk of its key expression.
    pub fn topic(&self) -> &'static str {
        match self {
            Body::Pose { .. } | Body::Done { .. } => "pose",
            Body::Command { .. } => "command",
            Body::Heartbeat { .. } => "heartbeat",
            Body::Restart { .. } => "restart",
            Body::Call { .. } => "call",
            Body::Reply { .. } => "reply",
            Body::Partition { .. } | Body::Start { .. } => "control",
            _ => "recruit",
        }
    }
}

/// The bytes a signature covers: the key expression, a newline, the payload.
pub fn signed_bytes(key: &str, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(key.len() + 1 + payload.len());
    out.extend_from_slice(key.as_bytes());
    out.push(b'\n');
    out.extend_from_slice(payload);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_versioned_and_names_fit_in_one_chunk() {
        assert_eq!(
            key("Minefield", "UGV#2", "recruit"),
            "affect/v1/Minefield/UGV-2/recruit"
        );
        assert_eq!(
            key_all("Minefield", "recruit"),
            "affect/v1/Minefield/*/recruit"
        );
        assert_eq!(
            sender_of("Minefield", "affect/v1/Minefield/UGV-2/recruit").as_deref(),
            Some("UGV#2")
        );
        assert_eq!(
            sender_of("Other", "affect/v1/Minefield/UGV-2/recruit"),
            None
        );
        let token = component_alive("PlanetSurface", "laptop2", Some("Peoplebot"), "speech");
        assert_eq!(
            token,
            "affect/v1/PlanetSurface/laptop2/alive/Peoplebot/speech"
        );
        assert_eq!(
            parse_alive("PlanetSurface", &token),
            Some(Alive::Component {
                host: "laptop2".into(),
                owner: Some("Peoplebot".into()),
                component: "speech".into()
            })
        );
        assert_eq!(
            parse_alive(
                "PlanetSurface",
                &component_alive("PlanetSurface", "laptop1", None, "registry")
            ),
            Some(Alive::Component {
                host: "laptop1".into(),
                owner: None,
                component: "registry".into()
            })
        );
        assert_eq!(
            parse_alive("PlanetSurface", &alive("PlanetSurface", "UGV#3")),
            Some(Alive::Member("UGV#3".into()))
        );
    }

    #[test]
    fn payloads_are_plain_json_with_the_seeds_message_names() {
        let m = Message {
            v: VERSION,
            team: "Minefield".into(),
            from: "UAV".into(),
            instance: 5,
            part: String::new(),
            seq: 7,
            wall_ms: Some(1732615282000.0),
            t_ms: 3000.0,
            to: None,
            lost_for: vec![],
            body: Body::Help {
                block: "help".into(),
                requester: "UAV".into(),
                session: 1,
                at: [20.0, 12.0],
                percept: Some("mine_detector".into()),
                resend_ms: 3000.0,
            },
        };
        let text = serde_json::to_string(&m).unwrap();
        assert_eq!(
            text,
            r#"{"v":1,"team":"Minefield","from":"UAV","instance":5,"seq":7,"wall_ms":1732615282000.0,"t_ms":3000.0,"to":null,"body":{"type":"HELP","block":"help","requester":"UAV","session":1,"at":[20.0,12.0],"percept":"mine_detector","resend_ms":3000.0}}"#
        );
        let back: Message = serde_json::from_str(&text).unwrap();
        assert_eq!(back, m);
        // Written by hand in another language, optional fields left out.
        let foreign = r#"{"v":1,"team":"T","from":"X","seq":1,"t_ms":0,"body":{"type":"AGREE","block":"help","requester":"X","session":2}}"#;
        let m: Message = serde_json::from_str(foreign).unwrap();
        assert_eq!(m.body.kind(), "AGREE");
        assert_eq!(m.to, None);
    }

    /// A component call and its answer as docs/network.md shows them.
    #[test]
    fn calls_and_replies_are_plain_json() {
        let call = Message {
            v: VERSION,
            team: "PlanetSurface".into(),
            from: "Peoplebot".into(),
            instance: 5,
            part: String::new(),
            seq: 9,
            wall_ms: None,
            t_ms: 41200.0,
            to: Some("laptop1".into()),
            lost_for: vec![],
            body: Body::Call {
                id: 412,
                owner: Some("Peoplebot".into()),
                component: "speech_recognition_backup".into(),
                leaf: "Listen".into(),
            },
        };
        assert_eq!(
            serde_json::to_string(&call).unwrap(),
            r#"{"v":1,"team":"PlanetSurface","from":"Peoplebot","instance":5,"seq":9,"t_ms":41200.0,"to":"laptop1","body":{"type":"call","id":412,"owner":"Peoplebot","component":"speech_recognition_backup","leaf":"Listen"}}"#
        );
        assert_eq!(call.body.topic(), "call");
        let reply = r#"{"v":1,"team":"PlanetSurface","from":"laptop1","seq":3,"t_ms":41200.4,"to":"Peoplebot","body":{"type":"reply","id":412,"served":true}}"#;
        let m: Message = serde_json::from_str(reply).unwrap();
        assert_eq!(
            m.body,
            Body::Reply {
                id: 412,
                served: true,
                why: None
            }
        );
        assert_eq!(m.body.topic(), "reply");
    }

    /// The names on the wire (serde's `rename`s) are the names traces show (`kind`), which
    /// for the recruitment protocol are the runtime's.
    #[test]
    fn every_wire_type_is_its_kind() {
        let (b, r, s) = (String::new(), String::new(), 0);
        let bodies = [
            Body::Help {
                block: b.clone(),
                requester: r.clone(),
                session: s,
                at: [0.0, 0.0],
                percept: None,
                resend_ms: 0.0,
            },
            Body::Accept {
                block: b.clone(),
                requester: r.clone(),
                session: s,
                eta_ms: 0.0,
            },
            Body::Responder {
                block: b.clone(),
                requester: r.clone(),
                session: s,
                chosen: String::new(),
            },
            Body::Arrival {
                block: b.clone(),
                requester: r.clone(),
                session: s,
                lease_ms: 0.0,
            },
            Body::Agree {
                block: b.clone(),
                requester: r.clone(),
                session: s,
            },
            Body::AckAck {
                block: b,
                requester: r,
                session: s,
            },
            Body::Pose {
                at: [0.0, 0.0],
                airborne: false,
            },
            Body::Command {
                command: String::new(),
            },
            Body::Heartbeat {
                owner: None,
                component: String::new(),
                host: String::new(),
            },
            Body::Restart {
                owner: None,
                component: String::new(),
                host: None,
            },
            Body::Call {
                id: 0,
                owner: None,
                component: String::new(),
                leaf: String::new(),
            },
            Body::Reply {
                id: 0,
                served: true,
                why: None,
            },
            Body::Partition { for_ms: 0.0 },
            Body::Start { epoch_ms: 0.0 },
        ];
        for body in &bodies {
            let json = serde_json::to_value(body).unwrap();
            assert_eq!(json["type"], body.kind(), "{json}");
        }
        assert_eq!(bodies[0].kind(), "HELP");
        assert_eq!(bodies[5].kind(), "ACKACK");
    }
}
