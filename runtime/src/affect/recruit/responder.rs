//! The responder's side of the protocol: whether to answer HELP (SHAME, or at once), the
//! way to the requester, ARRIVAL with the lease, and the task owned until the lease ends.

use super::messages::{
    arrival_allowance, Body, Msg, Outbox, Progress, Report, Send, HANDSHAKE_TRIES, MS_PER_UNIT,
};
use super::shame::Shame;
use crate::world::{AgentId, Point};
use affect_compiler::ir::program::{RecruitSpec, Strategy};

#[derive(Clone, Debug, PartialEq)]
enum Resp {
    Idle,
    /// ACCEPT sent (`sends` times, the last at `last_sent_ms`), waiting for RESPONDER.
    Offered {
        requester: AgentId,
        session: u32,
        site: Point,
        eta_ms: f64,
        last_sent_ms: f64,
        sends: u32,
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
        // The requester chooses at its next tick; without a RESPONDER within its HELP period
        // the offer lapses (see `step`).
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
            last_sent_ms: now_ms,
            sends: 1,
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

    /// The team found robot `partner` gone (networked runs): a handshake with it as the
    /// requester ends at once (it can no longer choose, agree or need this robot); a task
    /// taken over is kept until its lease ends, as the protocol says.
    pub fn partner_lost(&mut self, partner: AgentId, out: &mut Outbox) {
        let requester = match &self.state {
            Resp::Offered { requester, .. }
            | Resp::Chosen { requester, .. }
            | Resp::Arriving { requester, .. } => *requester,
            Resp::Idle | Resp::TakenOver { .. } => return,
        };
        if requester == partner {
            out.reports
                .push(Report::gave_up(Some(partner), "partner lost"));
            self.state = Resp::Idle;
        }
    }

    /// Time passes: every wait has its deadline, and a lease its end.
    pub fn step(&mut self, now_ms: f64, out: &mut Outbox) {
        match &mut self.state {
            // RESPONDER acknowledges ACCEPT, as in a three-way handshake: without it the
            // offer is sent `HANDSHAKE_TRIES` times (once, as in the seed), `resend` apart,
            // then dropped.
            Resp::Offered {
                requester,
                session,
                eta_ms,
                last_sent_ms,
                sends,
                resend_ms,
                ..
            } if now_ms - *last_sent_ms >= *resend_ms => {
                let (requester, session, eta_ms) = (*requester, *session, *eta_ms);
                if *sends < HANDSHAKE_TRIES {
                    *sends += 1;
                    *last_sent_ms = now_ms;
                    out.sends.push(Send::To(
                        requester,
                        self.msg(requester, session, Body::Accept { eta_ms }),
                    ));
                } else {
                    out.reports
                        .push(Report::gave_up(Some(requester), "no RESPONDER"));
                    self.state = Resp::Idle;
                }
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
