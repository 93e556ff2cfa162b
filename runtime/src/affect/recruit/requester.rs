//! The requester's side of the protocol: HELP until someone accepts, the choice among the
//! offers, and the second stage's AGREE. A request ends only when help has arrived (ACKACK)
//! or the node asking is halted: a responder that never arrives or never acknowledges
//! starts the request over, so a place that needs help is asked about until it gets it,
//! however many messages the radio loses (the lease protocol's intent, seed 002).

use super::messages::{
    arrival_allowance, Body, Msg, Outbox, Progress, Report, Send, HANDSHAKE_TRIES,
};
use crate::world::{AgentId, Point};
use affect_compiler::ir::program::{RecruitSpec, Strategy};

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
        !matches!(self.state, Req::Idle | Req::Done(_))
    }

    pub fn progress(&self) -> Progress {
        match self.state {
            Req::Done(r) => Progress::Done(r),
            Req::Idle => Progress::Failed,
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
            // An ACCEPT after the choice: that robot missed RESPONDER (it repeats its ACCEPT
            // until it hears one). Tell it again whom we chose: "go", or "not needed".
            (
                Req::AwaitArrival { chosen, .. } | Req::AwaitAck { chosen, .. } | Req::Done(chosen),
                Body::Accept { .. },
            ) => {
                let chosen = *chosen;
                out.sends
                    .push(Send::To(from, self.msg(Body::Responder { chosen })));
            }
            _ => {}
        }
    }

    /// The team found robot `partner` gone (its process died or fell silent for longer than
    /// the liveliness lease, networked runs): an offer of it is dropped, and a request
    /// waiting for it to arrive or acknowledge starts over at once (HELP again) instead of
    /// waiting for its deadline. A task it has taken over stays its own until its lease ends.
    pub fn partner_lost(&mut self, partner: AgentId, now_ms: f64, out: &mut Outbox) {
        match &mut self.state {
            Req::Requesting { offers, .. } => offers.retain(|(r, _)| *r != partner),
            Req::AwaitArrival { chosen, .. } | Req::AwaitAck { chosen, .. }
                if *chosen == partner =>
            {
                out.reports
                    .push(Report::gave_up(Some(partner), "partner lost"));
                self.start(now_ms, self.asked_at, out);
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
                        // The responder, or the radio, failed in the second stage: as with a
                        // missing ARRIVAL, the place still needs help, so ask everyone again.
                        // (Had the ACKACKs alone been lost, the responder owns the task
                        // until its lease ends and ignores the new HELPs meanwhile.)
                        out.reports.push(Report::gave_up(Some(chosen), "no ACKACK"));
                        self.start(now_ms, self.asked_at, out);
                    }
                }
            }
            Req::Idle | Req::Done(_) => {}
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
