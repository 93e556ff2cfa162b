//! Seed 002's recruitment protocol (Gage and Murphy, "Affective Recruitment of Distributed
//! Heterogeneous Agents"): six messages in a three-way handshake of two stages, and SHAME,
//! which decides when a robot lets itself be recruited.
//!
//! ```text
//! requester                                responders
//! HELP (location, percept)  ------------>  each decides whether to answer
//!                           <------------  ACCEPT (estimated arrival time)
//! RESPONDER (chosen id)     ------------>  "go" for the chosen one, "not needed" for the rest
//!                           <------------  ARRIVAL (lease)
//! AGREE                     ------------>
//!                           <------------  ACKACK; the responder takes over until the lease ends
//! ```
//!
//! The state machines here know nothing of worlds, buses or trees: they take messages and
//! the time, and return what to send and what to report. Messages get lost, so every state
//! that waits has a deadline; nothing waits forever.

use crate::world::{AgentId, Point};
use affect_compiler::ir::program::{RecruitSpec, Strategy};

/// How long, beyond twice its own estimate, a chosen responder may take to arrive before
/// both sides give the recruitment up.
pub const ARRIVAL_SLACK_MS: f64 = 30_000.0;
/// How many times ARRIVAL (responder) and AGREE (requester) are sent before giving up.
pub const HANDSHAKE_TRIES: u32 = 3;
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

impl Body {
    /// The seed's name of the message type, as traces show it.
    pub fn kind(&self) -> &'static str {
        match self {
            Body::Help { .. } => "HELP",
            Body::Accept { .. } => "ACCEPT",
            Body::Responder { .. } => "RESPONDER",
            Body::Arrival { .. } => "ARRIVAL",
            Body::Agree => "AGREE",
            Body::AckAck => "ACKACK",
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
    fn new(step: &'static str, peer: Option<AgentId>) -> Report {
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

    fn gave_up(peer: Option<AgentId>, why: &'static str) -> Report {
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

/// SHAME, a standards-based emotion (Ortony): `s` in 0..1, from 0. On each HELP it first
/// loses `k·ΔT` (ΔT since the previous HELP); then the robot answers if `s > t`, else it
/// ignores the HELP and `s` gains `c + d(D)`. Being recruited resets it to 0.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Shame {
    pub level: f64,
    last_help_ms: Option<f64>,
}

fn unit_interval(x: f64) -> f64 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

impl Shame {
    /// A HELP at `now_ms`: decays SHAME since the previous one, then says whether it exceeds
    /// the threshold (answer) or not (ignore, then call [`Shame::ignored`]).
    pub fn on_help(&mut self, now_ms: f64, decay_per_ms: f64, threshold: f64) -> bool {
        if let Some(last) = self.last_help_ms {
            let dt = (now_ms - last).max(0.0);
            self.level = unit_interval(self.level - decay_per_ms * dt);
        }
        self.last_help_ms = Some(now_ms);
        self.level > threshold
    }

    /// The HELP was ignored: SHAME grows by the ignore cost `c + d(D)` (an infinite cost, a
    /// requester at distance 0, fills it; a cost that is not a number adds nothing).
    pub fn ignored(&mut self, cost: f64) {
        let cost = if cost.is_nan() { 0.0 } else { cost };
        self.level = unit_interval(self.level + cost);
    }

    /// Recruited: SHAME starts again from 0.
    pub fn reset(&mut self) {
        self.level = 0.0;
    }
}

/// The seed's ignore cost, `c + d(D) = 0.2 + 0.5 / D`, for a block that gives none.
pub fn seed_ignore_cost(distance: f64) -> f64 {
    0.2 + 0.5 / distance
}

/// How far along a request or a response is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    Running,
    /// Help has arrived (requester: the responder) / the task was taken over.
    Done(AgentId),
    Failed,
}

#[derive(Clone, Debug, PartialEq)]
enum Req {
    Idle,
    Requesting {
        at: Point,
        last_help_ms: f64,
        /// ACCEPTs of this request: (responder, estimated arrival).
        offers: Vec<(AgentId, f64)>,
    },
    AwaitArrival {
        chosen: AgentId,
        deadline_ms: f64,
    },
    AwaitAck {
        chosen: AgentId,
        last_agree_ms: f64,
        agrees: u32,
    },
    Done(AgentId),
    Failed,
}

/// The requester's side of one recruitment block.
#[derive(Clone, Debug)]
pub struct Requester {
    me: AgentId,
    block: String,
    strategy: Strategy,
    resend_ms: f64,
    percept: Option<String>,
    session: u32,
    /// Where the current request asks for help (kept when it is asked again).
    asked_at: Point,
    state: Req,
}

impl Requester {
    pub fn new(me: AgentId, spec: &RecruitSpec) -> Requester {
        Requester {
            me,
            block: spec.name.clone(),
            strategy: spec.strategy,
            resend_ms: spec.resend_ms,
            percept: spec.requires.clone(),
            session: 0,
            asked_at: Point::default(),
            state: Req::Idle,
        }
    }

    fn msg(&self, body: Body) -> Msg {
        Msg {
            block: self.block.clone(),
            requester: self.me,
            session: self.session,
            body,
        }
    }

    fn help(&self, at: Point) -> Send {
        Send::All(self.msg(Body::Help {
            at,
            percept: self.percept.clone(),
            resend_ms: self.resend_ms,
        }))
    }

    /// Starts a new request for help at `at`: HELP goes out now. An earlier request is
    /// abandoned (its late answers no longer count).
    pub fn start(&mut self, now_ms: f64, at: Point, out: &mut Outbox) {
        self.session = self.session.wrapping_add(1);
        self.asked_at = at;
        self.state = Req::Requesting {
            at,
            last_help_ms: now_ms,
            offers: Vec::new(),
        };
        out.sends.push(self.help(at));
    }

    /// Stops asking (the node asking was halted); responders time out on their own.
    pub fn cancel(&mut self) {
        self.state = Req::Idle;
    }

    /// Whether a request is under way (an agent asking for help does not give it).
    pub fn busy(&self) -> bool {
        !matches!(self.state, Req::Idle | Req::Done(_) | Req::Failed)
    }

    pub fn progress(&self) -> Progress {
        match self.state {
            Req::Done(r) => Progress::Done(r),
            Req::Failed | Req::Idle => Progress::Failed,
            _ => Progress::Running,
        }
    }

    /// A message for this requester.
    pub fn receive(&mut self, from: AgentId, msg: &Msg, now_ms: f64, out: &mut Outbox) {
        if msg.requester != self.me || msg.session != self.session || msg.block != self.block {
            return;
        }
        match (&mut self.state, &msg.body) {
            (Req::Requesting { offers, .. }, Body::Accept { eta_ms })
                if !offers.iter().any(|(r, _)| *r == from) =>
            {
                offers.push((from, *eta_ms));
            }
            (Req::AwaitArrival { chosen, .. }, Body::Arrival { .. })
            | (Req::AwaitAck { chosen, .. }, Body::Arrival { .. })
                if *chosen == from =>
            {
                // A repeated ARRIVAL means our AGREE was lost: agree again.
                let chosen = *chosen;
                let agrees = match self.state {
                    Req::AwaitAck { agrees, .. } => agrees + 1,
                    _ => {
                        out.reports.push(Report::new("arrived", Some(chosen)));
                        1
                    }
                };
                self.state = Req::AwaitAck {
                    chosen,
                    last_agree_ms: now_ms,
                    agrees,
                };
                out.sends.push(Send::To(chosen, self.msg(Body::Agree)));
            }
            (Req::AwaitAck { chosen, .. }, Body::AckAck) if *chosen == from => {
                let chosen = *chosen;
                out.reports.push(Report::new("helped", Some(chosen)));
                self.state = Req::Done(chosen);
            }
            _ => {}
        }
    }

    /// Time passes: choose among the ACCEPTs in hand, repeat HELP, give up on a responder
    /// that never arrives or never acknowledges. `pick(n)` draws one of `n` offers for the
    /// random strategy.
    pub fn step(&mut self, now_ms: f64, pick: &mut dyn FnMut(usize) -> usize, out: &mut Outbox) {
        match &mut self.state {
            Req::Requesting {
                at,
                last_help_ms,
                offers,
            } => {
                if !offers.is_empty() {
                    let i = match self.strategy {
                        Strategy::Random => pick(offers.len()).min(offers.len() - 1),
                        Strategy::Affective | Strategy::Greedy => least_eta(offers),
                    };
                    let (chosen, eta) = offers[i];
                    let n = offers.len() as u32;
                    out.sends
                        .push(Send::All(self.msg(Body::Responder { chosen })));
                    out.reports.push(Report {
                        eta_ms: Some(eta),
                        offers: Some(n),
                        ..Report::new("chose", Some(chosen))
                    });
                    self.state = Req::AwaitArrival {
                        chosen,
                        deadline_ms: now_ms + arrival_allowance(eta),
                    };
                } else if now_ms - *last_help_ms >= self.resend_ms {
                    *last_help_ms = now_ms;
                    let at = *at;
                    out.sends.push(self.help(at));
                }
            }
            Req::AwaitArrival {
                chosen,
                deadline_ms,
            } => {
                if now_ms >= *deadline_ms {
                    // The responder, or the radio, failed: ask everyone again.
                    out.reports
                        .push(Report::gave_up(Some(*chosen), "no ARRIVAL"));
                    self.start(now_ms, self.asked_at, out);
                }
            }
            Req::AwaitAck {
                chosen,
                last_agree_ms,
                agrees,
            } => {
                if now_ms - *last_agree_ms >= self.resend_ms {
                    let chosen = *chosen;
                    if *agrees < HANDSHAKE_TRIES {
                        *agrees += 1;
                        *last_agree_ms = now_ms;
                        out.sends.push(Send::To(chosen, self.msg(Body::Agree)));
                    } else {
                        out.reports.push(Report::gave_up(Some(chosen), "no ACKACK"));
                        self.state = Req::Failed;
                    }
                }
            }
            Req::Idle | Req::Done(_) | Req::Failed => {}
        }
    }
}

/// The offer with the least estimated arrival time; the lowest robot id among equals.
fn least_eta(offers: &[(AgentId, f64)]) -> usize {
    let mut best = 0;
    for (i, (id, eta)) in offers.iter().enumerate() {
        let (bid, beta) = offers[best];
        if eta.total_cmp(&beta).then(id.cmp(&bid)).is_lt() {
            best = i;
        }
    }
    best
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

#[derive(Clone, Debug, PartialEq)]
enum Resp {
    Idle,
    Offered {
        requester: AgentId,
        session: u32,
        site: Point,
        eta_ms: f64,
        deadline_ms: f64,
        resend_ms: f64,
    },
    Chosen {
        requester: AgentId,
        session: u32,
        site: Point,
        deadline_ms: f64,
        resend_ms: f64,
    },
    Arriving {
        requester: AgentId,
        session: u32,
        lease_ms: f64,
        last_sent_ms: f64,
        sends: u32,
        resend_ms: f64,
    },
    TakenOver {
        requester: AgentId,
        session: u32,
        until_ms: f64,
    },
}

/// What a responder knows about itself when a HELP arrives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HelpView {
    /// Not on its own task and able to provide the percept the HELP asks for.
    pub available: bool,
    /// D, the distance to the requester, in world units.
    pub distance: f64,
}

/// The responder's side of one recruitment block.
#[derive(Clone, Debug)]
pub struct Responder {
    me: AgentId,
    block: String,
    strategy: Strategy,
    threshold: f64,
    decay_per_ms: f64,
    pub shame: Shame,
    state: Resp,
}

impl Responder {
    pub fn new(me: AgentId, spec: &RecruitSpec) -> Responder {
        Responder {
            me,
            block: spec.name.clone(),
            strategy: spec.strategy,
            threshold: spec.threshold,
            decay_per_ms: spec.decay_per_ms,
            shame: Shame::default(),
            state: Resp::Idle,
        }
    }

    fn msg(&self, requester: AgentId, session: u32, body: Body) -> Msg {
        Msg {
            block: self.block.clone(),
            requester,
            session,
            body,
        }
    }

    /// Whether it is taken by a recruitment (offered, chosen, on its way, or holding a lease).
    pub fn busy(&self) -> bool {
        self.state != Resp::Idle
    }

    /// A HELP from `from`. Only an available, idle robot considers it; SHAME (affective) or
    /// nothing (greedy, random) decides whether it answers. `cost(D)` is `c + d(D)`.
    pub fn on_help(
        &mut self,
        now_ms: f64,
        from: AgentId,
        msg: &Msg,
        view: HelpView,
        cost: &mut dyn FnMut(f64) -> f64,
        out: &mut Outbox,
    ) {
        let Body::Help { at, resend_ms, .. } = msg.body else {
            return;
        };
        if msg.block != self.block || from == self.me || self.busy() || !view.available {
            return;
        }
        let d = view.distance;
        let accept = match self.strategy {
            Strategy::Affective => self
                .shame
                .on_help(now_ms, self.decay_per_ms, self.threshold),
            Strategy::Greedy | Strategy::Random => true,
        };
        if !accept {
            self.shame.ignored(cost(d));
            out.reports.push(Report {
                shame: Some(self.shame.level),
                distance: Some(d),
                ..Report::new("help_ignored", Some(from))
            });
            return;
        }
        let eta_ms = if d.is_finite() {
            d.max(0.0) * MS_PER_UNIT
        } else {
            f64::MAX
        };
        out.sends.push(Send::To(
            from,
            self.msg(from, msg.session, Body::Accept { eta_ms }),
        ));
        out.reports.push(Report {
            shame: Some(self.shame.level),
            distance: Some(d),
            eta_ms: Some(eta_ms),
            ..Report::new("help_accepted", Some(from))
        });
        // The requester chooses at its next tick; allow for a lost RESPONDER.
        let resend_ms = if resend_ms.is_finite() && resend_ms > 0.0 {
            resend_ms
        } else {
            3000.0
        };
        self.state = Resp::Offered {
            requester: from,
            session: msg.session,
            site: at,
            eta_ms,
            deadline_ms: now_ms + 2.0 * resend_ms,
            resend_ms,
        };
    }

    /// Any other message for this responder.
    pub fn receive(&mut self, from: AgentId, msg: &Msg, now_ms: f64, out: &mut Outbox) {
        if msg.block != self.block || from != msg.requester {
            return;
        }
        match (&self.state, &msg.body) {
            (
                Resp::Offered {
                    requester,
                    session,
                    site,
                    eta_ms,
                    resend_ms,
                    ..
                },
                Body::Responder { chosen },
            ) if *requester == from && *session == msg.session => {
                if *chosen == self.me {
                    out.reports.push(Report::new("recruited", Some(from)));
                    self.shame.reset();
                    self.state = Resp::Chosen {
                        requester: from,
                        session: *session,
                        site: *site,
                        deadline_ms: now_ms + arrival_allowance(*eta_ms),
                        resend_ms: *resend_ms,
                    };
                } else {
                    out.reports.push(Report::new("not_needed", Some(from)));
                    self.state = Resp::Idle;
                }
            }
            (
                Resp::Arriving {
                    requester,
                    session,
                    lease_ms,
                    ..
                },
                Body::Agree,
            ) if *requester == from && *session == msg.session => {
                let (session, lease_ms) = (*session, *lease_ms);
                out.sends
                    .push(Send::To(from, self.msg(from, session, Body::AckAck)));
                out.reports.push(Report {
                    lease_ms: Some(lease_ms),
                    ..Report::new("took_over", Some(from))
                });
                self.state = Resp::TakenOver {
                    requester: from,
                    session,
                    until_ms: now_ms + lease_ms,
                };
            }
            // Our ACKACK was lost and the requester agrees again: acknowledge again.
            (
                Resp::TakenOver {
                    requester, session, ..
                },
                Body::Agree,
            ) if *requester == from && *session == msg.session => {
                let session = *session;
                out.sends
                    .push(Send::To(from, self.msg(from, session, Body::AckAck)));
            }
            _ => {}
        }
    }

    /// Time passes: every wait has its deadline, and a lease its end.
    pub fn step(&mut self, now_ms: f64, out: &mut Outbox) {
        match &mut self.state {
            Resp::Offered {
                requester,
                deadline_ms,
                ..
            } if now_ms >= *deadline_ms => {
                out.reports
                    .push(Report::gave_up(Some(*requester), "no RESPONDER"));
                self.state = Resp::Idle;
            }
            Resp::Chosen {
                requester,
                deadline_ms,
                ..
            } if now_ms >= *deadline_ms => {
                out.reports
                    .push(Report::gave_up(Some(*requester), "did not arrive in time"));
                self.state = Resp::Idle;
            }
            Resp::Arriving {
                requester,
                session,
                lease_ms,
                last_sent_ms,
                sends,
                resend_ms,
            } if now_ms - *last_sent_ms >= *resend_ms => {
                let (requester, session, lease_ms) = (*requester, *session, *lease_ms);
                if *sends < HANDSHAKE_TRIES {
                    *sends += 1;
                    *last_sent_ms = now_ms;
                    out.sends.push(Send::To(
                        requester,
                        self.msg(requester, session, Body::Arrival { lease_ms }),
                    ));
                } else {
                    out.reports
                        .push(Report::gave_up(Some(requester), "no AGREE"));
                    self.state = Resp::Idle;
                }
            }
            Resp::TakenOver {
                requester,
                until_ms,
                ..
            } if now_ms >= *until_ms => {
                out.reports.push(Report::new("released", Some(*requester)));
                self.state = Resp::Idle;
            }
            _ => {}
        }
    }

    /// The requester that chose this robot and where it needs help, while the robot is
    /// recruited and has not yet arrived.
    pub fn recruited(&self) -> Option<(AgentId, Point)> {
        match self.state {
            Resp::Chosen {
                requester, site, ..
            } => Some((requester, site)),
            _ => None,
        }
    }

    /// Arrived at the requester: ARRIVAL goes out with the lease. False when this robot is
    /// not (or no longer) recruited by `requester`.
    pub fn arrive(
        &mut self,
        requester: AgentId,
        lease_ms: f64,
        now_ms: f64,
        out: &mut Outbox,
    ) -> bool {
        let Resp::Chosen {
            requester: r,
            session,
            resend_ms,
            ..
        } = self.state
        else {
            return false;
        };
        if r != requester {
            return false;
        }
        out.sends.push(Send::To(
            requester,
            self.msg(requester, session, Body::Arrival { lease_ms }),
        ));
        self.state = Resp::Arriving {
            requester,
            session,
            lease_ms,
            last_sent_ms: now_ms,
            sends: 1,
            resend_ms,
        };
        true
    }

    /// How the handshake with `requester` stands: running until ACKACK is sent, done once
    /// the task is taken over, failed when the requester stopped answering.
    pub fn handshake(&self, requester: AgentId) -> Progress {
        match self.state {
            Resp::Arriving { requester: r, .. } if r == requester => Progress::Running,
            Resp::TakenOver { requester: r, .. } if r == requester => Progress::Done(r),
            _ => Progress::Failed,
        }
    }

    /// The node handshaking was halted: stop (the requester times out on its own).
    pub fn abandon_arrival(&mut self) {
        if matches!(self.state, Resp::Arriving { .. }) {
            self.state = Resp::Idle;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: f64 = 0.75;
    const K: f64 = 0.005 / 1000.0;
    const RESEND: f64 = 3000.0;

    fn cost(d: f64) -> f64 {
        seed_ignore_cost(d)
    }

    /// SHAME over HELPs every 3 s from one requester at distance `d`: the levels after each
    /// ignored HELP, and the HELP (from 1) that is answered.
    fn answer(d: f64) -> (Vec<f64>, usize) {
        let mut s = Shame::default();
        let mut levels = Vec::new();
        for n in 1..=20 {
            if s.on_help(f64::from(n - 1) * RESEND, K, T) {
                return (levels, n as usize);
            }
            s.ignored(cost(d));
            levels.push(s.level);
        }
        (levels, 0)
    }

    fn close(a: &[f64], b: &[f64]) {
        assert_eq!(a.len(), b.len(), "{a:?} vs {b:?}");
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() < 1e-9, "{a:?} vs {b:?}");
        }
    }

    #[test]
    fn shame_worked_by_hand_at_ten_units() {
        // c + d(10) = 0.2 + 0.05 = 0.25 per ignored HELP; k·ΔT = 0.005 · 3 = 0.015 per gap.
        // 0 → .25; .235 → .485; .47 → .72; .705 → .955; .94 > .75: the fifth HELP is answered.
        let (levels, n) = answer(10.0);
        close(&levels, &[0.25, 0.485, 0.72, 0.955]);
        assert_eq!(n, 5);
    }

    #[test]
    fn a_close_robot_answers_sooner_and_shame_is_capped_at_one() {
        // c + d(1) = 0.7: 0 → .7; .685 → 1.385, capped to 1; .985 > .75: the third HELP.
        let (levels, n) = answer(1.0);
        close(&levels, &[0.7, 1.0]);
        assert_eq!(n, 3);
        // Far away only c counts: about t / c = 4 ignored HELPs, five with the decay.
        let (levels, n) = answer(f64::INFINITY);
        close(&levels, &[0.2, 0.385, 0.57, 0.755, 0.94]);
        assert_eq!(n, 6);
        // At distance 0 the cost is infinite: full SHAME at once, the second HELP answered.
        assert_eq!(answer(0.0).1, 2);
    }

    #[test]
    fn shame_decays_with_time_between_helps_and_resets_when_recruited() {
        let mut s = Shame::default();
        // The first HELP has no previous one: no decay.
        assert!(!s.on_help(0.0, K, T));
        s.ignored(0.25);
        // 40 s later the shame of one ignored request at 10 units has almost faded:
        // 0.25 - 0.005 · 40 = 0.05.
        assert!(!s.on_help(40_000.0, K, T));
        assert!((s.level - 0.05).abs() < 1e-9);
        s.ignored(1.0);
        assert_eq!(s.level, 1.0);
        // From 1 to 0 takes 200 s; never below 0.
        assert!(!s.on_help(240_000.0, K, T));
        assert_eq!(s.level, 0.0);
        s.ignored(0.9);
        assert!(s.on_help(240_000.0, K, T), "0.9 > 0.75 with no time passed");
        s.reset();
        assert_eq!(s.level, 0.0);
        // A cost that is not a number adds nothing; a negative threshold answers at once.
        s.ignored(f64::NAN);
        assert_eq!(s.level, 0.0);
        assert!(Shame::default().on_help(0.0, K, -0.1));
    }

    fn spec(strategy: Strategy) -> RecruitSpec {
        RecruitSpec {
            strategy,
            ..RecruitSpec::seed_defaults("help")
        }
    }

    const UAV: AgentId = AgentId(0);

    /// A requester and some responders with a radio that drops what `lose` says.
    struct Net {
        now: f64,
        req: Requester,
        resp: Vec<Responder>,
        /// (responder index, distance)
        distance: Vec<f64>,
        log: Vec<(AgentId, Option<AgentId>, &'static str)>,
        reports: Vec<(AgentId, Report)>,
        picks: usize,
    }

    impl Net {
        fn new(strategy: Strategy, distances: &[f64]) -> Net {
            let s = spec(strategy);
            Net {
                now: 0.0,
                req: Requester::new(UAV, &s),
                resp: (0..distances.len())
                    .map(|i| Responder::new(AgentId(i as u32 + 1), &s))
                    .collect(),
                distance: distances.to_vec(),
                log: Vec::new(),
                reports: Vec::new(),
                picks: 0,
            }
        }

        fn id(i: usize) -> AgentId {
            AgentId(i as u32 + 1)
        }

        /// Delivers `out` (sent by `from`), dropping what `lose` says; answers go on until
        /// the radio is quiet.
        fn route(
            &mut self,
            from: AgentId,
            out: Outbox,
            lose: &mut dyn FnMut(&str, AgentId) -> bool,
        ) {
            // First in, first out, as a radio delivers.
            let mut queue: std::collections::VecDeque<(AgentId, Outbox)> = [(from, out)].into();
            while let Some((from, out)) = queue.pop_front() {
                for r in out.reports {
                    self.reports.push((from, r));
                }
                for send in out.sends {
                    let (to, msg) = match send {
                        Send::All(m) => (None, m),
                        Send::To(id, m) => (Some(id), m),
                    };
                    self.log.push((from, to, msg.body.kind()));
                    let mut targets: Vec<AgentId> = (0..self.resp.len()).map(Net::id).collect();
                    targets.push(UAV);
                    for target in targets {
                        if target == from || to.is_some_and(|t| t != target) {
                            continue;
                        }
                        if lose(msg.body.kind(), target) {
                            continue;
                        }
                        let mut o = Outbox::default();
                        if target == UAV {
                            self.req.receive(from, &msg, self.now, &mut o);
                        } else {
                            let i = target.0 as usize - 1;
                            if matches!(msg.body, Body::Help { .. }) {
                                let view = HelpView {
                                    available: true,
                                    distance: self.distance[i],
                                };
                                self.resp[i].on_help(self.now, from, &msg, view, &mut cost, &mut o);
                            } else {
                                self.resp[i].receive(from, &msg, self.now, &mut o);
                            }
                        }
                        queue.push_back((target, o));
                    }
                }
            }
        }

        /// One second passes: everybody's timers, then their messages.
        fn second(&mut self, lose: &mut dyn FnMut(&str, AgentId) -> bool) {
            self.now += 1000.0;
            let mut o = Outbox::default();
            let picks = &mut self.picks;
            self.req.step(
                self.now,
                &mut |n| {
                    *picks += 1;
                    n - 1
                },
                &mut o,
            );
            self.route(UAV, o, lose);
            for i in 0..self.resp.len() {
                let mut o = Outbox::default();
                self.resp[i].step(self.now, &mut o);
                self.route(Net::id(i), o, lose);
            }
        }

        fn start(&mut self, lose: &mut dyn FnMut(&str, AgentId) -> bool) {
            let mut o = Outbox::default();
            self.req.start(self.now, Point::new(0.0, 0.0), &mut o);
            self.route(UAV, o, lose);
        }

        /// The chosen responder arrives and hands the lease over.
        fn arrive(&mut self, i: usize, lose: &mut dyn FnMut(&str, AgentId) -> bool) -> bool {
            let mut o = Outbox::default();
            let ok = self.resp[i].arrive(UAV, 30_000.0, self.now, &mut o);
            self.route(Net::id(i), o, lose);
            ok
        }

        fn count(&self, kind: &str) -> usize {
            self.log.iter().filter(|(_, _, k)| *k == kind).count()
        }

        fn steps(&self, step: &str) -> Vec<AgentId> {
            self.reports
                .iter()
                .filter(|(_, r)| r.step == step)
                .map(|(a, _)| *a)
                .collect()
        }
    }

    fn never(_: &str, _: AgentId) -> bool {
        false
    }

    #[test]
    fn greedy_handshake_picks_the_least_arrival_time_and_completes() {
        let mut net = Net::new(Strategy::Greedy, &[30.0, 5.0, 12.0]);
        net.start(&mut never);
        assert_eq!(net.count("ACCEPT"), 3, "every available robot answers");
        net.second(&mut never);
        // The nearest (5 units, robot 2) is chosen; the others are not needed.
        let chosen = net.reports.iter().find(|(_, r)| r.step == "chose").unwrap();
        assert_eq!(chosen.1.peer, Some(AgentId(2)));
        assert_eq!(chosen.1.eta_ms, Some(5000.0));
        assert_eq!(chosen.1.offers, Some(3));
        assert_eq!(net.resp[1].recruited(), Some((UAV, Point::new(0.0, 0.0))));
        assert_eq!(net.resp[0].recruited(), None);
        assert_eq!(net.steps("not_needed"), vec![AgentId(1), AgentId(3)]);
        assert!(net.arrive(1, &mut never));
        assert_eq!(net.req.progress(), Progress::Done(AgentId(2)));
        assert_eq!(net.resp[1].handshake(UAV), Progress::Done(UAV));
        let kinds: Vec<&str> = net.log.iter().map(|(_, _, k)| *k).collect();
        assert_eq!(
            kinds,
            [
                "HELP",
                "ACCEPT",
                "ACCEPT",
                "ACCEPT",
                "RESPONDER",
                "ARRIVAL",
                "AGREE",
                "ACKACK"
            ]
        );
        // The lease ends the recruitment: the robot is free again after 30 s.
        for _ in 0..30 {
            net.second(&mut never);
        }
        assert_eq!(net.steps("released"), vec![AgentId(2)]);
        assert!(!net.resp[1].busy());
    }

    #[test]
    fn random_strategy_draws_among_the_offers() {
        let mut net = Net::new(Strategy::Random, &[30.0, 5.0, 12.0]);
        net.start(&mut never);
        net.second(&mut never);
        assert_eq!(net.picks, 1);
        // The test's draw takes the last offer: robot 3, not the nearest.
        assert_eq!(net.resp[2].recruited().map(|r| r.0), Some(UAV));
    }

    #[test]
    fn affective_responders_answer_only_when_ashamed_enough() {
        let mut net = Net::new(Strategy::Affective, &[10.0, 1000.0]);
        net.start(&mut never);
        let mut seconds = 0;
        while net.steps("help_accepted").is_empty() && seconds < 60 {
            net.second(&mut never);
            seconds += 1;
        }
        // HELP every 3 s; the robot at 10 units answers the fifth (see the hand-worked
        // levels), the one at 1000 units (cost 0.2005) is still below the threshold then.
        assert_eq!(net.count("HELP"), 5);
        assert_eq!(net.steps("help_accepted"), vec![AgentId(1)]);
        assert_eq!(net.steps("help_ignored").len(), 4 + 5);
        net.second(&mut never);
        assert_eq!(net.resp[0].recruited().map(|r| r.0), Some(UAV));
        assert_eq!(net.resp[0].shame.level, 0.0, "recruited: SHAME resets");
    }

    #[test]
    fn a_lost_accept_is_made_up_by_the_next_help() {
        let mut net = Net::new(Strategy::Greedy, &[5.0]);
        let mut first = true;
        let mut lose_first_accept = |k: &str, _: AgentId| {
            let drop = k == "ACCEPT" && first;
            if k == "ACCEPT" {
                first = false;
            }
            drop
        };
        net.start(&mut lose_first_accept);
        for _ in 0..10 {
            net.second(&mut lose_first_accept);
        }
        // The responder gave up waiting for RESPONDER (6 s), the requester asked again
        // every 3 s: the robot answered the third HELP and is recruited.
        assert_eq!(net.steps("gave_up"), vec![AgentId(1)]);
        assert_eq!(net.resp[0].recruited().map(|r| r.0), Some(UAV));
        assert!(net.count("HELP") >= 3);
    }

    #[test]
    fn a_lost_responder_message_makes_the_requester_ask_again() {
        let mut net = Net::new(Strategy::Greedy, &[5.0]);
        let mut drops = 0;
        let mut lose_responder_once = |k: &str, _: AgentId| {
            let drop = k == "RESPONDER" && drops == 0;
            drops += usize::from(drop);
            drop
        };
        net.start(&mut lose_responder_once);
        // The requester waits 2 · 5 s + 30 s for ARRIVAL, then starts over (and chooses
        // a second later).
        for _ in 0..42 {
            net.second(&mut lose_responder_once);
        }
        let gave_up: Vec<&Report> = net
            .reports
            .iter()
            .filter(|(_, r)| r.step == "gave_up")
            .map(|(_, r)| r)
            .collect();
        assert!(gave_up.iter().any(|r| r.why == Some("no RESPONDER")));
        assert!(gave_up.iter().any(|r| r.why == Some("no ARRIVAL")));
        assert_eq!(
            net.resp[0].recruited().map(|r| r.0),
            Some(UAV),
            "the second try works"
        );
        assert!(net.arrive(0, &mut never));
        assert_eq!(net.req.progress(), Progress::Done(AgentId(1)));
    }

    #[test]
    fn lost_agree_and_ackack_are_repeated() {
        let mut net = Net::new(Strategy::Greedy, &[5.0]);
        net.start(&mut never);
        net.second(&mut never);
        let (mut agrees, mut acks) = (0, 0);
        let mut lose = |k: &str, _: AgentId| match k {
            "AGREE" => {
                agrees += 1;
                agrees == 1
            }
            "ACKACK" => {
                acks += 1;
                acks == 1
            }
            _ => false,
        };
        assert!(net.arrive(0, &mut lose));
        assert_eq!(net.resp[0].handshake(UAV), Progress::Running);
        // The first AGREE is lost: 3 s later the requester agrees again, which gets through;
        // the ACKACK is lost, so 3 s after that it agrees once more and the responder (now
        // owning the task) acknowledges again.
        for _ in 0..6 {
            net.second(&mut lose);
        }
        assert_eq!(net.resp[0].handshake(UAV), Progress::Done(UAV));
        assert_eq!(net.req.progress(), Progress::Done(AgentId(1)));
        assert_eq!(net.count("ARRIVAL"), 1);
        assert_eq!(net.count("AGREE"), 3);
        assert_eq!(net.count("ACKACK"), 2);
    }

    #[test]
    fn nobody_waits_forever_when_the_radio_dies() {
        let mut net = Net::new(Strategy::Greedy, &[5.0]);
        net.start(&mut never);
        net.second(&mut never);
        let mut dead = |k: &str, _: AgentId| k != "HELP";
        assert!(net.arrive(0, &mut dead));
        for _ in 0..20 {
            net.second(&mut dead);
        }
        // Three ARRIVALs without AGREE: the responder gives up, and so does its node.
        assert_eq!(net.resp[0].handshake(UAV), Progress::Failed);
        assert_eq!(net.count("ARRIVAL"), 3);
        assert!(!net.resp[0].busy());
        // The requester never heard ARRIVAL: it gives up on it and asks again.
        for _ in 0..40 {
            net.second(&mut dead);
        }
        assert!(net.req.busy());
        assert!(net
            .reports
            .iter()
            .any(|(a, r)| *a == UAV && r.why == Some("no ARRIVAL")));
    }

    #[test]
    fn answers_to_an_earlier_request_are_ignored() {
        let mut net = Net::new(Strategy::Greedy, &[5.0]);
        let s = spec(Strategy::Greedy);
        let mut out = Outbox::default();
        net.req.start(0.0, Point::new(0.0, 0.0), &mut out);
        let stale = Msg {
            block: s.name.clone(),
            requester: UAV,
            session: 999,
            body: Body::Accept { eta_ms: 1.0 },
        };
        net.req.receive(AgentId(1), &stale, 0.0, &mut out);
        let mut out = Outbox::default();
        net.req.step(1000.0, &mut |_| 0, &mut out);
        assert!(out.sends.is_empty(), "no choice from a stale ACCEPT");
        // Another block's messages are none of this one's business either.
        let other = Msg {
            block: "other".into(),
            session: 1,
            ..stale
        };
        net.req.receive(AgentId(1), &other, 0.0, &mut out);
        net.req.step(1000.0, &mut |_| 0, &mut out);
        assert!(out.sends.is_empty());
    }

    #[test]
    fn busy_or_unavailable_robots_do_not_consider_help() {
        let s = spec(Strategy::Affective);
        let mut r = Responder::new(AgentId(1), &s);
        let help = Msg {
            block: s.name.clone(),
            requester: UAV,
            session: 1,
            body: Body::Help {
                at: Point::new(0.0, 0.0),
                percept: None,
                resend_ms: RESEND,
            },
        };
        let mut out = Outbox::default();
        let away = HelpView {
            available: false,
            distance: 1.0,
        };
        r.on_help(0.0, UAV, &help, away, &mut cost, &mut out);
        assert!(out.reports.is_empty() && out.sends.is_empty());
        assert_eq!(
            r.shame.level, 0.0,
            "SHAME only counts HELPs the robot could answer"
        );
    }
}
