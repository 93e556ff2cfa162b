//! The protocol's messages, what a state machine wants done (messages to send, steps to
//! report), and the timing both sides share.

use crate::world::{AgentId, Point};

/// How long, beyond twice its own estimate, a chosen responder may take to arrive before
/// both sides give the recruitment up.
pub const ARRIVAL_SLACK_MS: f64 = 30_000.0;
/// How many times ACCEPT and ARRIVAL (responder) and AGREE (requester) are sent before that
/// side gives the attempt up. Once: seed 002's protocol repeats only HELP ("the UAV waited 3
/// seconds between requests for help before calling again"); any other message lost ends the
/// attempt (its lease "compensate[s] for ... a loss of communications (as the recruitment ends
/// when the lease expires)"), and the requester, still without help, asks again from HELP. So
/// at 25 % loss "there is only an 18% likelihood that the six consecutive recruitment messages
/// required by the protocol will all be sent properly" (0.75⁶), and message counts and waits
/// grow with loss as its Tables 3 and 4 show, for every strategy: an affective requester whose
/// handshake breaks must wait for some robot's SHAME to pass the threshold again. Repeating
/// each message until answered (8 times, before 2026-11-27) hid most losses from affective
/// recruitment, whose counts then stayed flat.
pub const HANDSHAKE_TRIES: u32 = 1;
/// How long a robot's travel takes per world unit: the seed's UGVs move one unit per
/// iteration (a second), so an estimated arrival time is the distance in seconds.
pub const MS_PER_UNIT: f64 = 1000.0;

/// What a message says.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// The requester needs help at `at`; responders need `percept`; it asks again every
    /// `resend_ms` (so responders know how long to wait for its answer).
    Help {
        at: Point,
        percept: Option<String>,
        resend_ms: f64,
    },
    /// A responder offers to come, arriving in `eta_ms`.
    Accept {
        eta_ms: f64,
    },
    /// The requester's choice: "go" for `chosen`, "not needed" for everyone else.
    Responder {
        chosen: AgentId,
    },
    /// The chosen responder is there and offers to own the task for `lease_ms`.
    Arrival {
        lease_ms: f64,
    },
    Agree,
    AckAck,
}

/// The seed's names of the message types, as traces show them (and the network's wire, which
/// takes them from here).
pub mod kind {
    pub const HELP: &str = "HELP";
    pub const ACCEPT: &str = "ACCEPT";
    pub const RESPONDER: &str = "RESPONDER";
    pub const ARRIVAL: &str = "ARRIVAL";
    pub const AGREE: &str = "AGREE";
    pub const ACKACK: &str = "ACKACK";
}

impl Body {
    /// The seed's name of the message type, as traces show it.
    pub fn kind(&self) -> &'static str {
        match self {
            Body::Help { .. } => kind::HELP,
            Body::Accept { .. } => kind::ACCEPT,
            Body::Responder { .. } => kind::RESPONDER,
            Body::Arrival { .. } => kind::ARRIVAL,
            Body::Agree => kind::AGREE,
            Body::AckAck => kind::ACKACK,
        }
    }
}

/// One protocol message.
#[derive(Clone, Debug, PartialEq)]
pub struct Msg {
    /// The recruitment block's name: blocks of the same name in different agents talk.
    pub block: String,
    /// The requester and its request number, so an answer to an earlier request (which
    /// arrived late, or whose RESPONDER was lost) is never taken for one to this request.
    pub requester: AgentId,
    pub session: u32,
    pub body: Body,
}

/// A message to send: to everyone in range, or to one robot.
#[derive(Clone, Debug, PartialEq)]
pub enum Send {
    All(Msg),
    To(AgentId, Msg),
}

/// A protocol step worth a trace line.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// `help_ignored`, `help_accepted`, `chose`, `recruited`, `not_needed`, `arrived`,
    /// `took_over`, `released`, `helped`, `gave_up`.
    pub step: &'static str,
    /// The other robot, when there is one.
    pub peer: Option<AgentId>,
    /// SHAME after the step (responders).
    pub shame: Option<f64>,
    /// Distance to the requester in world units (responders deciding on a HELP).
    pub distance: Option<f64>,
    /// An estimated arrival time (ACCEPT, the requester's choice).
    pub eta_ms: Option<f64>,
    /// How many ACCEPTs the requester chose from.
    pub offers: Option<u32>,
    /// The lease taken over.
    pub lease_ms: Option<f64>,
    /// Why a side gave up.
    pub why: Option<&'static str>,
}

impl Report {
    pub(super) fn new(step: &'static str, peer: Option<AgentId>) -> Report {
        Report {
            step,
            peer,
            shame: None,
            distance: None,
            eta_ms: None,
            offers: None,
            lease_ms: None,
            why: None,
        }
    }

    pub(super) fn gave_up(peer: Option<AgentId>, why: &'static str) -> Report {
        Report {
            why: Some(why),
            ..Report::new("gave_up", peer)
        }
    }
}

/// What a state machine wants done: messages to send, steps to report.
#[derive(Debug, Default)]
pub struct Outbox {
    pub sends: Vec<Send>,
    pub reports: Vec<Report>,
}

/// How far along a request or a response is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    Running,
    /// Help has arrived (requester: the responder) / the task was taken over.
    Done(AgentId),
    Failed,
}

/// How long a responder estimated to arrive in `eta_ms` may take: twice that, and some.
pub fn arrival_allowance(eta_ms: f64) -> f64 {
    let eta = if eta_ms.is_finite() {
        eta_ms.max(0.0)
    } else {
        0.0
    };
    2.0 * eta + ARRIVAL_SLACK_MS
}
