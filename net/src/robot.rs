//! One robot as its own process (`affect run FILE --agent NAME --net`): the run loop ticks it on
//! the wall clock and this module carries everything it exchanges with the rest of its team
//! over Zenoh — recruitment messages, commands, component heartbeats and liveliness, restart
//! requests — and the launcher's fault injection.
//!
//! Message loss and delay of the world's `messages` apply at the sender: each copy's loss is
//! one draw keyed by the copy (the run's seed and the sender's name, the recipient, and the
//! sender's how-manieth message this is), as the simulated bus keys it by the copy
//! (`runtime/src/world/messages.rs`; a network has no shared clock, so the message's number
//! stands in for its time). A copy lost at 5 % is then lost at 10 % too, for as long as the
//! robot sends the same messages. A latency holds a message back before it is published.

use crate::node::{Inbox, LiveInbox, Node};
use crate::peers::{Change, Peers};
use crate::wire::{self, Alive, Body, Message};
use affect_compiler::ir::program::EnumInfo;
use affect_compiler::ir::world::Delivery;
use affect_runtime::affect::recruit::{self, Msg};
use affect_runtime::network::{Copies, Exchange, Network, Radio};
use affect_runtime::rng::Rng;
use affect_runtime::trace::{Event, TraceSink};
use affect_runtime::world::{AgentId, Envelope, Point, Recipient, World};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What the robot's network, its radio and its component calls share.
struct Shared {
    node: Node,
    /// Set to stop (Ctrl-C, SIGTERM, the launcher gone).
    stop: Arc<AtomicBool>,
    recruit_in: Inbox,
    command_in: Inbox,
    heartbeat_in: Inbox,
    control_in: Inbox,
    pose_in: Inbox,
    alive_in: LiveInbox,
    /// The last position published: (x, y, airborne).
    last_pose: Option<(f64, f64, bool)>,
    /// Recruitment messages accepted but not yet taken by the radio.
    recruits: Vec<Message>,
    /// Messages held back by the world's latency: (world time due, recipient, lost for, body).
    delayed: Vec<(f64, Option<String>, Vec<String>, Body)>,
    /// Cut off (the launcher's partition) until this world time.
    partitioned_until: f64,
    /// World time of the tick under way.
    now_ms: f64,
    loss: f64,
    latency_ms: f64,
    unicast: bool,
    /// The key of this robot's loss draws: the run's seed and its name.
    loss_seed: u64,
    /// Messages this robot has sent: the number of the next one.
    sent: u64,
    /// Component calls, the caller's side.
    pub(crate) calls: crate::call::Caller,
    /// Heartbeats received ahead of this robot's clock: (sent at, owner, component, host).
    beats: Vec<(f64, Option<String>, String, String)>,
    /// The teammates' liveliness (`peers.rs`), and its changes for the trace.
    peers: Peers,
    peer_changes: Vec<Change>,
    /// When this robot last published its pose (its beat: at least every quarter lease).
    last_beat: Option<Instant>,
    /// Whether the previous tick was cut off (its end restarts the teammates' silence).
    was_cut_off: bool,
}

impl Shared {
    fn cut_off(&self) -> bool {
        self.now_ms < self.partitioned_until
    }

    /// Accepts a received message (`Node::accept`), and hears its sender.
    fn take(&mut self, raw: &crate::node::Raw) -> Option<Message> {
        let m = self.node.accept(raw)?;
        if let Some(c) = self.peers.heard(&m.from, m.instance, Instant::now()) {
            self.peer_changes.push(c);
        }
        Some(m)
    }

    /// Publishes now, or later under a latency; nothing while cut off.
    fn send(&mut self, to: Option<String>, lost_for: Vec<String>, body: Body) {
        if self.cut_off() {
            return;
        }
        if self.latency_ms > 0.0 {
            self.delayed
                .push((self.now_ms + self.latency_ms, to, lost_for, body));
        } else {
            let now = self.now_ms;
            self.node.publish(now, to, lost_for, body);
        }
    }

    fn flush_delayed(&mut self) {
        if self.delayed.is_empty() || self.cut_off() {
            return;
        }
        let now = self.now_ms;
        let (due, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.delayed)
            .into_iter()
            .partition(|(at, ..)| *at <= now);
        self.delayed = later;
        for (_, to, lost_for, body) in due {
            self.node.publish(now, to, lost_for, body);
        }
    }
}

/// How a robot process runs.
pub struct RobotOptions {
    /// The loss to apply instead of the world's (`--loss`).
    pub loss: Option<f64>,
    pub seed: u64,
    /// World time per wall time (`--speed`).
    pub speed: f64,
    /// The teammates to watch (every other robot: name, world ms between its ticks) and the
    /// liveliness lease (wall time).
    pub peers: Vec<(String, f64)>,
    pub lease: Duration,
    /// Started late (a restart): cut off until it has caught up to this world time.
    pub catch_up_ms: Option<f64>,
    /// The ticks it makes: after the last it tells its team it is `done`.
    pub ticks: u64,
}

/// A robot's link to its team: the run loop's [`Network`].
pub struct Robot {
    shared: Rc<RefCell<Shared>>,
    /// The instance run here.
    name: String,
    enums: Vec<EnumInfo>,
    options: RobotOptions,
}

impl Robot {
    pub fn new(
        node: Node,
        stop: Arc<AtomicBool>,
        name: &str,
        enums: Vec<EnumInfo>,
        options: RobotOptions,
    ) -> Result<Robot, String> {
        let reply_in = node.subscribe("reply")?;
        let shared = Shared {
            recruit_in: node.subscribe("recruit")?,
            command_in: node.subscribe("command")?,
            heartbeat_in: node.subscribe("heartbeat")?,
            control_in: node.subscribe("control")?,
            pose_in: node.subscribe("pose")?,
            alive_in: node.watch_alive()?,
            last_pose: None,
            node,
            stop,
            recruits: Vec::new(),
            delayed: Vec::new(),
            partitioned_until: f64::NEG_INFINITY,
            now_ms: 0.0,
            loss: 0.0,
            latency_ms: 0.0,
            unicast: false,
            loss_seed: Rng::named(options.seed, &format!("messages:{name}")).next_u64(),
            sent: 0,
            calls: crate::call::Caller::new(
                reply_in,
                Rng::named(options.seed, &format!("calls:{name}")),
                options.speed,
            ),
            beats: Vec::new(),
            peers: Peers::new(
                options.peers.iter().map(|(n, period_ms)| {
                    let wall = period_ms / options.speed / 1000.0;
                    (n.clone(), Duration::from_secs_f64(wall.clamp(0.0, 1e6)))
                }),
                options.lease,
            ),
            peer_changes: Vec::new(),
            last_beat: None,
            was_cut_off: false,
        };
        let mut shared = shared;
        if let Some(t) = options.catch_up_ms {
            shared.partitioned_until = t;
        }
        Ok(Robot {
            shared: Rc::new(RefCell::new(shared)),
            name: name.to_string(),
            enums,
            options,
        })
    }

    /// Launched: waits for every member and the launcher's start; returns the epoch it
    /// announces (world time 0, Unix milliseconds) and a token that must live as long as the
    /// process.
    pub fn await_start(
        &mut self,
        expected: &[String],
        stop: &AtomicBool,
        limit: std::time::Duration,
    ) -> Result<(f64, zenoh::liveliness::LivelinessToken), String> {
        let mut s = self.shared.borrow_mut();
        crate::startup::await_start(&mut s.node, expected, stop, limit)
    }

    /// Messages published and accepted, and refusals, so far.
    pub fn counts(&self) -> (u64, u64) {
        let s = self.shared.borrow();
        (s.node.published, s.node.accepted)
    }
}

impl Network for Robot {
    fn radio(&mut self, world: &World) -> Box<dyn Radio> {
        let spec = &world.spec().messages;
        let mut s = self.shared.borrow_mut();
        s.loss = self.options.loss.unwrap_or(spec.loss).clamp(0.0, 1.0);
        s.latency_ms = spec.latency_ms as f64;
        s.unicast = spec.mode == Delivery::Unicast;
        Box::new(NetRadio {
            shared: self.shared.clone(),
        })
    }

    fn calls(&mut self) -> Option<std::rc::Rc<dyn affect_runtime::network::Calls>> {
        Some(Rc::new(NetCalls {
            shared: self.shared.clone(),
        }))
    }

    fn remote(&self, instance: &str) -> bool {
        instance != self.name
    }

    fn before_tick(&mut self, now_ms: f64, x: Exchange) -> bool {
        let Exchange {
            mut world,
            team,
            mail,
        } = x;
        let mut shared = self.shared.borrow_mut();
        // The run's clock has waited for the tick; a stop request cut that wait short.
        if shared.stop.load(Ordering::Relaxed) {
            return false;
        }
        shared.now_ms = now_ms;
        let s = &mut *shared;
        // The launcher's faults come first, so a partition starting now takes effect now.
        for raw in s.control_in.drain() {
            if let Some(m) = s.take(&raw) {
                match (&m.body, m.to.as_deref() == Some(self.name.as_str())) {
                    (Body::Partition { for_ms }, true) => {
                        s.partitioned_until = now_ms + for_ms.max(0.0);
                    }
                    // A robot started on its own learns its team's launch from the
                    // launcher's signed, fresh `start` (docs/network.md, section 4).
                    (Body::Start { epoch_ms }, _) if m.from == crate::keys::LAUNCHER => {
                        s.node.learn_launch(*epoch_ms);
                    }
                    _ => {}
                }
            }
        }
        let cut_off = s.cut_off();
        if s.was_cut_off && !cut_off {
            // Back from a partition or a catch-up: silence heard meanwhile was its own.
            s.peers.restart_silence(Instant::now());
        }
        s.was_cut_off = cut_off;
        for raw in s.pose_in.drain() {
            if cut_off {
                continue;
            }
            if let Some(m) = s.take(&raw) {
                match (&m.body, world.as_deref_mut()) {
                    (Body::Pose { at, airborne }, Some(w)) => {
                        if let Some(id) = w.agent_by_name(&m.from) {
                            w.place(id, Point::new(at[0], at[1]), *airborne);
                        }
                    }
                    (Body::Done { .. }, _) => s.peers.done(&m.from),
                    _ => {}
                }
            }
        }
        for raw in s.recruit_in.drain() {
            if cut_off {
                continue;
            }
            if let Some(m) = s.take(&raw) {
                s.recruits.push(m);
            }
        }
        for raw in s.command_in.drain() {
            if cut_off {
                continue;
            }
            if let Some(m) = s.take(&raw) {
                if let (Body::Command { command }, Some(to)) = (&m.body, &m.to) {
                    mail.receive_remote(to, command, &self.enums);
                }
            }
        }
        for raw in s.heartbeat_in.drain() {
            if cut_off {
                continue;
            }
            if let Some(m) = s.node.accept(&raw) {
                if let Body::Heartbeat {
                    owner,
                    component,
                    host,
                } = m.body
                {
                    // A component heard again may be called again (`call.rs`).
                    s.calls.heard(&owner, &component);
                    s.beats.push((m.t_ms.max(0.0), owner, component, host));
                }
            }
        }
        // Heard when it was sent, and not before: a robot late to its ticks (catching up
        // after a stall) neither counts its own delay as the component's silence nor hears a
        // beat before the tick it belongs to.
        let (due, later): (Vec<_>, Vec<_>) = std::mem::take(&mut s.beats)
            .into_iter()
            .partition(|(at, ..)| *at <= now_ms.max(0.0));
        s.beats = later;
        for (at, owner, component, host) in due {
            if let Some(unit) = team.component(owner.as_deref(), &component) {
                team.component_heard(unit, at, Some(&host));
            }
        }
        for (key, alive) in s.alive_in.drain() {
            if let (false, Some(Alive::Member(m))) = (alive, wire::parse_alive(&s.node.team, &key))
            {
                if let Some(c) = s.peers.withdrawn(&m) {
                    s.peer_changes.push(c);
                }
                continue;
            }
            if let (
                false,
                Some(Alive::Component {
                    host,
                    owner,
                    component,
                }),
            ) = (alive, wire::parse_alive(&s.node.team, &key))
            {
                // A token withdrawn from a host the component has moved away from is old news.
                if let Some(unit) = team.component(owner.as_deref(), &component) {
                    if team.component_host(unit) == Some(host.as_str()) {
                        team.component_lost(unit, now_ms.max(0.0));
                    }
                }
            }
        }
        if !cut_off {
            let expired = s.peers.expired(Instant::now());
            s.peer_changes.extend(expired);
        }
        s.flush_delayed();
        let lost: Vec<String> = (s.peer_changes.iter())
            .filter(|(_, state, _)| *state == "lost")
            .map(|(name, ..)| name.clone())
            .collect();
        drop(shared);
        // A teammate found gone is a partner lost at once: no waiting for its deadlines. (The
        // protocol's answers go out through the radio, which borrows the shared state.)
        if let Some(w) = world.as_deref() {
            for name in &lost {
                team.partner_lost(w, name, now_ms.max(0.0));
            }
        }
        true
    }

    fn after_tick(
        &mut self,
        tick: u64,
        now_ms: f64,
        agent: &str,
        x: Exchange,
        sink: &mut dyn TraceSink,
    ) {
        let Exchange { world, team, mail } = x;
        let mut s = self.shared.borrow_mut();
        // Where this robot is, when it has moved: the others' copies of the world follow.
        let world: Option<&World> = world.map(|w| &*w);
        if let Some(a) = world.and_then(|w| w.agent(w.agent_by_name(agent)?)) {
            let pose = (a.position.x, a.position.y, a.airborne);
            // Also every quarter lease when it stands still: its teammates' lease.
            let beat_due = s.last_beat.is_none_or(|t| t.elapsed() >= s.peers.beat());
            if (s.last_pose != Some(pose) || beat_due) && !s.cut_off() {
                s.last_pose = Some(pose);
                s.last_beat = Some(Instant::now());
                s.send(
                    None,
                    Vec::new(),
                    Body::Pose {
                        at: [pose.0, pose.1],
                        airborne: pose.2,
                    },
                );
            }
        }
        for (to, command) in mail.take_remote(&self.enums) {
            s.send(Some(to), Vec::new(), Body::Command { command });
        }
        for r in team.take_restarts() {
            s.send(
                None,
                Vec::new(),
                Body::Restart {
                    owner: r.owner,
                    component: r.component,
                    host: r.host,
                },
            );
        }
        s.flush_delayed();
        if tick + 1 == self.options.ticks && !s.cut_off() {
            // Its last tick: its teammates are to see it leave, not lose it.
            let (now, ticks) = (s.now_ms, self.options.ticks);
            s.node.publish(now, None, Vec::new(), Body::Done { ticks });
        }
        // An agent without recruitment never takes its messages.
        s.recruits.clear();
        crate::call::trace(&mut s.calls.notes, tick, agent, sink);
        for (name, state, why) in std::mem::take(&mut s.peer_changes) {
            let _ = sink.line(
                tick,
                now_ms,
                agent,
                &Event::Robot {
                    name: &name,
                    state,
                    why: &why,
                },
            );
        }
        for r in s.node.rejected.drain(..) {
            let _ = sink.line(
                tick,
                now_ms,
                agent,
                &Event::Rejected {
                    from: &r.from,
                    kind: &r.kind,
                    why: &r.why,
                },
            );
        }
    }
}

/// The recruitment protocol's radio over Zenoh.
struct NetRadio {
    shared: Rc<RefCell<Shared>>,
}

fn name_of(world: &World, id: AgentId) -> String {
    world
        .agent(id)
        .map_or_else(|| format!("#{}", id.0), |a| a.name.clone())
}

/// A protocol message as it goes on the wire.
fn to_wire(world: &World, msg: &Msg) -> Body {
    let block = msg.block.clone();
    let requester = name_of(world, msg.requester);
    let session = msg.session;
    match &msg.body {
        recruit::Body::Help {
            at,
            percept,
            resend_ms,
        } => Body::Help {
            block,
            requester,
            session,
            at: [at.x, at.y],
            percept: percept.clone(),
            resend_ms: *resend_ms,
        },
        recruit::Body::Accept { eta_ms } => Body::Accept {
            block,
            requester,
            session,
            eta_ms: *eta_ms,
        },
        recruit::Body::Responder { chosen } => Body::Responder {
            block,
            requester,
            session,
            chosen: name_of(world, *chosen),
        },
        recruit::Body::Arrival { lease_ms } => Body::Arrival {
            block,
            requester,
            session,
            lease_ms: *lease_ms,
        },
        recruit::Body::Agree => Body::Agree {
            block,
            requester,
            session,
        },
        recruit::Body::AckAck => Body::AckAck {
            block,
            requester,
            session,
        },
    }
}

/// A protocol message from the wire; `None` for names this world does not have.
fn from_wire(world: &World, body: &Body) -> Option<Msg> {
    let id = |name: &str| world.agent_by_name(name);
    let (block, requester, session, body) = match body {
        Body::Help {
            block,
            requester,
            session,
            at,
            percept,
            resend_ms,
        } => (
            block,
            requester,
            session,
            recruit::Body::Help {
                at: Point::new(at[0], at[1]),
                percept: percept.clone(),
                resend_ms: *resend_ms,
            },
        ),
        Body::Accept {
            block,
            requester,
            session,
            eta_ms,
        } => (
            block,
            requester,
            session,
            recruit::Body::Accept { eta_ms: *eta_ms },
        ),
        Body::Responder {
            block,
            requester,
            session,
            chosen,
        } => (
            block,
            requester,
            session,
            recruit::Body::Responder {
                chosen: id(chosen)?,
            },
        ),
        Body::Arrival {
            block,
            requester,
            session,
            lease_ms,
        } => (
            block,
            requester,
            session,
            recruit::Body::Arrival {
                lease_ms: *lease_ms,
            },
        ),
        Body::Agree {
            block,
            requester,
            session,
        } => (block, requester, session, recruit::Body::Agree),
        Body::AckAck {
            block,
            requester,
            session,
        } => (block, requester, session, recruit::Body::AckAck),
        _ => return None,
    };
    Some(Msg {
        block: block.clone(),
        requester: id(requester)?,
        session: *session,
        body,
    })
}

impl Radio for NetRadio {
    fn send(&mut self, world: &World, from: AgentId, to: Recipient, msg: Msg) -> Copies {
        let mut s = self.shared.borrow_mut();
        let recipients = to.agents(world, from);
        let nth = s.sent;
        s.sent += 1;
        // One draw per copy, keyed by the copy (none when nothing is ever lost).
        let mut lost_for = Vec::new();
        if s.loss > 0.0 {
            for r in &recipients {
                if copy_lost(s.loss_seed, r.0.into(), nth, s.loss) {
                    lost_for.push(name_of(world, *r));
                }
            }
        }
        let copies = Copies {
            sent: recipients.len() as u64,
            lost: lost_for.len() as u64,
        };
        let to = match to {
            Recipient::Agent(id) => Some(name_of(world, id)),
            Recipient::Broadcast => None,
        };
        let body = to_wire(world, &msg);
        s.send(to, lost_for, body);
        copies
    }

    fn receive(&mut self, world: &World, me: AgentId) -> Vec<Envelope<Msg>> {
        let mut s = self.shared.borrow_mut();
        let my_name = name_of(world, me);
        // The run asks for robots that run elsewhere too (to drop their copies): their
        // messages are theirs to take.
        if my_name != s.node.me {
            return Vec::new();
        }
        std::mem::take(&mut s.recruits)
            .into_iter()
            .filter(|m| m.to.as_deref().is_none_or(|t| t == my_name))
            .filter(|m| !m.lost_for.contains(&my_name))
            .filter_map(|m| {
                let from = world.agent_by_name(&m.from)?;
                let payload = from_wire(world, &m.body)?;
                Some(Envelope {
                    from,
                    to: match m.to {
                        Some(_) => Recipient::Agent(me),
                        None => Recipient::Broadcast,
                    },
                    sent_ms: m.t_ms.max(0.0) as u64,
                    payload,
                })
            })
            .collect()
    }

    fn unicast(&self) -> bool {
        self.shared.borrow().unicast
    }
}

/// The robot's component calls ([`crate::call::Caller`]), over its node.
struct NetCalls {
    shared: Rc<RefCell<Shared>>,
}

impl affect_runtime::network::Calls for NetCalls {
    fn call(&self, call: &affect_runtime::network::Call) -> Result<(), String> {
        let Ok(mut s) = self.shared.try_borrow_mut() else {
            return Err("the network is busy".into());
        };
        let s = &mut *s;
        let (cut_off, loss) = (s.cut_off(), s.loss);
        s.calls.call(&mut s.node, cut_off, loss, call)
    }
}

/// Whether the copy of this robot's message number `nth` to `recipient` is lost at `loss`:
/// a draw keyed by the copy, so a copy lost at one loss is lost at any higher one.
fn copy_lost(loss_seed: u64, recipient: u64, nth: u64, loss: f64) -> bool {
    Rng::keyed(loss_seed, &[recipient, nth]).chance(loss)
}

#[cfg(test)]
mod tests {
    use super::copy_lost;

    /// The copies lost at 5 % are lost at 10 % too, and each rate is about what it says: the
    /// property the simulated bus has, which one stream of draws did not give (one more
    /// copy lost shifted every later copy's draw).
    #[test]
    fn a_copy_lost_at_a_lower_loss_is_lost_at_a_higher_one() {
        let copies: Vec<(u64, u64)> = (0..4000).map(|n| (n % 7, n / 7)).collect();
        let lost = |p: f64| -> Vec<bool> {
            copies
                .iter()
                .map(|&(to, nth)| copy_lost(0x5eed, to, nth, p))
                .collect()
        };
        let (five, ten) = (lost(0.05), lost(0.10));
        assert!(five.iter().zip(&ten).all(|(a, b)| !a || *b));
        let count = |v: &[bool]| v.iter().filter(|&&x| x).count();
        assert!((150..250).contains(&count(&five)), "{}", count(&five));
        assert!((330..470).contains(&count(&ten)), "{}", count(&ten));
        // Another robot (another key) loses other copies.
        let other: Vec<bool> = copies
            .iter()
            .map(|&(to, nth)| copy_lost(0x5eee, to, nth, 0.10))
            .collect();
        assert_ne!(other, ten);
    }
}
