//! The protocol between one requester and a few responders over a radio that loses what
//! each test says.

use super::*;
use crate::world::{AgentId, Point};
use affect_compiler::ir::program::{RecruitSpec, Strategy};

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
    fn route(&mut self, from: AgentId, out: Outbox, lose: &mut dyn FnMut(&str, AgentId) -> bool) {
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

    /// Why each side gave up, in order.
    fn gave_up(&self) -> Vec<Option<&'static str>> {
        self.reports
            .iter()
            .filter(|(_, r)| r.step == "gave_up")
            .map(|(_, r)| r.why)
            .collect()
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
fn a_lost_accept_ends_the_offer_and_a_later_help_is_answered() {
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
    for _ in 0..7 {
        net.second(&mut lose_first_accept);
    }
    // Seed 002 sends ACCEPT once: no RESPONDER within the HELP period, and the robot drops
    // its offer (at 3 s, after the HELP repeated then found it still offered). It answers
    // the HELP of 6 s, which arrives, and is chosen a second later.
    assert_eq!(net.steps("gave_up"), vec![AgentId(1)]);
    assert_eq!(net.count("ACCEPT"), 2);
    assert_eq!(net.count("HELP"), 3);
    assert_eq!(net.resp[0].recruited().map(|r| r.0), Some(UAV));
}

#[test]
fn a_responder_that_never_hears_responder_gives_up_and_the_requester_asks_again() {
    let mut net = Net::new(Strategy::Greedy, &[5.0]);
    // Every RESPONDER of the first request is lost.
    let mut lose = |k: &str, _: AgentId| k == "RESPONDER";
    net.start(&mut lose);
    // HANDSHAKE_TRIES ACCEPTs 3 s apart, each answered by a lost RESPONDER: the robot drops
    // its offer 3 s after the last.
    let offered_s = 3 * HANDSHAKE_TRIES + 1;
    for _ in 0..offered_s {
        net.second(&mut lose);
    }
    assert_eq!(net.count("ACCEPT"), HANDSHAKE_TRIES as usize);
    assert_eq!(net.steps("gave_up"), vec![AgentId(1)]);
    assert!(!net.resp[0].busy());
    // The requester waits 2 · 5 s + 30 s after its choice (at 1 s) for ARRIVAL, then starts
    // over; with the radio working the second request succeeds.
    for _ in offered_s..42 {
        net.second(&mut never);
    }
    assert_eq!(net.gave_up(), [Some("no RESPONDER"), Some("no ARRIVAL")]);
    assert_eq!(net.resp[0].recruited().map(|r| r.0), Some(UAV));
    assert!(net.arrive(0, &mut never));
    assert_eq!(net.req.progress(), Progress::Done(AgentId(1)));
}

#[test]
fn a_lost_ackack_leaves_the_task_with_the_responder_until_its_lease_ends() {
    let mut net = Net::new(Strategy::Greedy, &[5.0]);
    net.start(&mut never);
    net.second(&mut never);
    let mut acks = 0;
    let mut lose_first_ackack = |k: &str, _: AgentId| {
        acks += usize::from(k == "ACKACK");
        k == "ACKACK" && acks == 1
    };
    assert!(net.arrive(0, &mut lose_first_ackack));
    // The responder took the task over; the requester never heard so. One HELP period
    // later it gives the handshake up and asks again; the robot, owning the task for its
    // 30 s lease, ignores those HELPs, then answers the first one after its lease and is
    // recruited again.
    assert_eq!(net.resp[0].handshake(UAV), Progress::Done(UAV));
    for _ in 0..36 {
        net.second(&mut lose_first_ackack);
    }
    assert_eq!(net.gave_up(), [Some("no ACKACK")]);
    assert_eq!(net.steps("released"), vec![AgentId(1)]);
    assert_eq!(net.count("AGREE"), 1, "AGREE is not repeated");
    assert_eq!(net.resp[0].recruited().map(|r| r.0), Some(UAV));
    assert!(net.arrive(0, &mut never));
    assert_eq!(net.req.progress(), Progress::Done(AgentId(1)));
    assert_eq!(net.count("ACKACK"), 2);
}

#[test]
fn nobody_waits_forever_when_the_radio_dies() {
    let mut net = Net::new(Strategy::Greedy, &[5.0]);
    net.start(&mut never);
    net.second(&mut never);
    let mut dead = |k: &str, _: AgentId| k != "HELP";
    assert!(net.arrive(0, &mut dead));
    for _ in 0..3 * HANDSHAKE_TRIES + 2 {
        net.second(&mut dead);
    }
    // HANDSHAKE_TRIES ARRIVALs without AGREE: the responder gives up, and so does its node.
    assert_eq!(net.resp[0].handshake(UAV), Progress::Failed);
    assert_eq!(net.count("ARRIVAL"), HANDSHAKE_TRIES as usize);
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
fn a_requester_whose_handshake_fails_asks_again_until_help_arrives() {
    // Seed 002: the lease protocol is there so that recruitment always completes. Every AGREE
    // of the first handshake is lost: the requester gives up on that responder after
    // HANDSHAKE_TRIES AGREEs and starts the request over; the responder gave up too, answers
    // the new HELP, is recruited again and this time the handshake goes through.
    let mut net = Net::new(Strategy::Greedy, &[5.0]);
    net.start(&mut never);
    net.second(&mut never);
    let mut no_agree = |k: &str, _: AgentId| k == "AGREE";
    assert!(net.arrive(0, &mut no_agree));
    for _ in 0..3 * HANDSHAKE_TRIES + 3 {
        net.second(&mut no_agree);
    }
    let gave_up = net.gave_up();
    assert!(gave_up.contains(&Some("no ACKACK")), "{gave_up:?}");
    assert!(gave_up.contains(&Some("no AGREE")), "{gave_up:?}");
    assert!(net.req.busy(), "still asking: {:?}", net.req);
    assert_ne!(net.req.progress(), Progress::Failed);
    assert!(
        net.count("HELP") >= 2,
        "HELP again after the failed handshake"
    );
    // The radio is back: the robot answers the repeated HELP, is chosen and arrives.
    for _ in 0..4 {
        net.second(&mut never);
    }
    assert_eq!(net.resp[0].recruited().map(|r| r.0), Some(UAV));
    assert!(net.arrive(0, &mut never));
    assert_eq!(net.req.progress(), Progress::Done(AgentId(1)));
    assert_eq!(net.steps("helped"), vec![UAV]);
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
