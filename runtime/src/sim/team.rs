//! The run's team: what agent instances share beyond the world. Recruitment (seed 002) runs
//! over the world's [`MessageBus`]; components (seed 001) are watched by one supervisor.
//!
//! Every instance joins when it is built and gets a [`Link`]. Before each of its ticks the
//! run loop calls [`Link::before_tick`]: the world's scripted `fail`/`recover` events reach
//! the supervisor, the instance's components (and the top-level ones) are brought up to
//! date, its messages are received and its recruitment state machines step. Its process
//! phase then asks the supervisor through [`wrap_host`] (`failed(c)`, `recovered(c)`, `on
//! failed(c)`); its tree drives the protocol through the leaves bound here:
//!
//! | leaf | does | statuses |
//! |---|---|---|
//! | `RequestHelp(in at: Point, out responder: int)` | starts a request of the agent's (first) recruitment block: HELP with `at` and the block's percept, again every `resend` until an ACCEPT; picks the offer with the least arrival time (random: any); RESPONDER; AGREE on ARRIVAL | RUNNING until ACKACK, then SUCCESS with the responder's id; a responder that never arrives or never acknowledges starts the request over (HELP again), so it never fails on lost messages |
//! | `Recruited(out requester: int, out site: Point)` | is a RESPONDER naming this robot in hand (and not yet answered by arriving)? | SUCCESS with the requester's id and where it needs help, else FAILURE |
//! | `Respond(in requester: int, in lease: duration)` | on arrival: ARRIVAL with the lease (the block's when not given), sent once (`HANDSHAKE_TRIES`), then ACKACK on AGREE: the robot owns the task until the lease ends | RUNNING until ACKACK is sent, then SUCCESS; FAILURE when this robot is not recruited by `requester` or the requester stops answering |
//!
//! Each binds when the agent has a recruitment block and runs in a world. Trace lines go out
//! after the tick of the agent they concern ([`Link::flush`]): `msg` for every message sent,
//! `lost` for copies the world lost, `recruit` for protocol steps, `component` for component
//! changes (`agent` is `*` for top-level components). Nothing here panics: a state that is
//! busy (never in a normal run) makes a leaf fail or a question answer "no".

use crate::affect::component::{Change, Supervisor, Unit};
use crate::affect::recruit::{
    seed_ignore_cost, Body, HelpView, Msg, Outbox, Progress, Report, Requester, Responder, Send,
};
use crate::devices::sim::SharedWorld;
use crate::interp::{Host, Lists, Machine};
use crate::leaf::{Leaf, LeafCall};
use crate::radio::Radio;
use crate::rng::Rng;
use crate::trace::{Event, TraceSink};
use crate::world::{point_from, AgentId, MessageBus, Recipient, World};
use affect_compiler::ir::functions::HostFn;
use affect_compiler::ir::program::{
    AgentProgram, DeviceRole, LeafInfo, Program, RecruitSpec, SlotId, Status, ValueKind,
};
use affect_compiler::ir::world::EventAction;
use std::cell::RefCell;
use std::rc::Rc;

/// The root variable that says whether a robot may answer HELP (`var available: bool`).
pub const AVAILABLE_VARIABLE: &str = "available";

/// One recruitment block of one instance: both sides of the protocol.
struct Block {
    spec: RecruitSpec,
    requester: Requester,
    responder: Responder,
}

/// A component name an instance may ask about, and what it last saw of it.
struct Watch {
    symbol: u32,
    unit: usize,
    seen: (u32, u32),
    failed_now: bool,
    recovered_now: bool,
}

struct Member {
    name: String,
    id: Option<AgentId>,
    blocks: Vec<Block>,
    watches: Vec<Watch>,
    /// Its `available` variable, when it has a `bool` one.
    available: Option<SlotId>,
    /// Its percepts: the names and drivers of its sensors.
    percepts: Vec<String>,
}

/// A trace line waiting for the end of the tick.
enum Note {
    Msg {
        from: usize,
        to: Option<AgentId>,
        kind: &'static str,
    },
    Lost {
        from: usize,
        to: Option<AgentId>,
        kind: &'static str,
        copies: u64,
    },
    Recruit {
        member: usize,
        /// The block's index in the instance's blocks.
        block: usize,
        report: Report,
    },
    Component {
        unit: usize,
        state: &'static str,
        host: Option<usize>,
        to: Option<usize>,
        silence_ms: Option<f64>,
    },
}

/// What the instances of a run share.
pub struct Team {
    members: Vec<Member>,
    world: Option<SharedWorld>,
    /// What carries the protocol's messages: the world's bus, or a network.
    bus: Option<Box<dyn Radio>>,
    supervisor: Supervisor,
    /// Top-level components are added once, with the first instance.
    globals_added: bool,
    linked: bool,
    /// The last world step whose scripted events reached the supervisor.
    world_step: Option<u64>,
    /// Draws for the random strategy.
    rng: Rng,
    notes: Vec<Note>,
    /// Restarts the supervisor decided on, for a network to carry out.
    restarts: Vec<Restart>,
    /// Networked: what carries calls to components on other hosts.
    calls: Option<Rc<dyn super::call_route::Calls>>,
}

/// A component the supervisor wants restarted, on a host (networked runs: the launcher
/// starts the new process).
#[derive(Clone, Debug, PartialEq)]
pub struct Restart {
    /// The agent instance that owns it; `None` for a top-level component.
    pub owner: Option<String>,
    pub component: String,
    pub host: Option<String>,
}

pub type SharedTeam = Rc<RefCell<Team>>;

impl Team {
    /// An empty team for a run with this seed.
    pub fn shared(seed: u64) -> SharedTeam {
        Team::with_radio(seed, None)
    }

    /// An empty team whose messages go through `radio` (a network) instead of the world's
    /// bus.
    pub fn with_radio(seed: u64, radio: Option<Box<dyn Radio>>) -> SharedTeam {
        Rc::new(RefCell::new(Team {
            members: Vec::new(),
            world: None,
            bus: radio,
            supervisor: Supervisor::default(),
            globals_added: false,
            linked: false,
            world_step: None,
            rng: Rng::named(seed, "recruitment"),
            notes: Vec::new(),
            restarts: Vec::new(),
            calls: None,
        }))
    }

    /// Networked runs: calls of leaves served by components on other hosts go through
    /// `calls`.
    pub fn set_calls(&mut self, calls: Rc<dyn super::call_route::Calls>) {
        self.calls = Some(calls);
    }

    /// Networked runs: component heartbeats are heard over the network from now on (see
    /// [`Supervisor::observe`]), and restarts are handed out by [`Team::take_restarts`].
    pub fn observe_components(&mut self) {
        self.supervisor.observe();
    }

    /// Every component of the team: (owning instance, or `None` for a top-level one; name).
    pub fn components(&self) -> Vec<(Option<String>, String)> {
        self.supervisor
            .units()
            .iter()
            .map(|u| (self.owner_name(u.owner), u.spec.name.clone()))
            .collect()
    }

    fn owner_name(&self, owner: Option<usize>) -> Option<String> {
        owner
            .and_then(|o| self.members.get(o))
            .map(|m| m.name.clone())
    }

    /// The component `name` of instance `owner` (`None`: the top-level one).
    pub fn component(&self, owner: Option<&str>, name: &str) -> Option<usize> {
        let unit = match owner {
            Some(o) => {
                let member = self.members.iter().position(|m| m.name == o)?;
                self.supervisor.find(Some(member), name)?
            }
            None => self.supervisor.find(None, name)?,
        };
        let u = &self.supervisor.units()[unit];
        (u.spec.name == name && self.owner_name(u.owner).as_deref() == owner).then_some(unit)
    }

    /// The host a component runs on now, as far as the supervisor knows.
    pub fn component_host(&self, unit: usize) -> Option<&str> {
        let host = self.supervisor.units().get(unit)?.host;
        self.supervisor.host_name(host)
    }

    /// A heartbeat of a component heard at `at_ms`, sent from `host`.
    pub fn component_heard(&mut self, unit: usize, at_ms: f64, host: Option<&str>) {
        let host = host.and_then(|h| self.supervisor.host_index(h));
        self.supervisor.heard(unit, at_ms, host);
    }

    /// A component's process is gone (its liveliness token was withdrawn).
    pub fn component_lost(&mut self, unit: usize, at_ms: f64) {
        self.supervisor.lost(unit, at_ms);
    }

    /// Networked runs: robot `name` was found gone (see the recruitment machines'
    /// `partner_lost`); every instance run here stops waiting for it at once.
    pub fn partner_lost(&mut self, w: &World, name: &str, now_ms: f64) {
        let Some(partner) = w.agent_by_name(name) else {
            return;
        };
        for member in 0..self.members.len() {
            for bi in 0..self.members[member].blocks.len() {
                let mut out = Outbox::default();
                let b = &mut self.members[member].blocks[bi];
                b.requester.partner_lost(partner, now_ms, &mut out);
                b.responder.partner_lost(partner, &mut out);
                deliver(self, member, bi, out, w);
            }
        }
    }

    /// The restarts decided since the last call.
    pub fn take_restarts(&mut self) -> Vec<Restart> {
        std::mem::take(&mut self.restarts)
    }

    fn name_of(&self, id: AgentId) -> String {
        if let Some(m) = self.members.iter().find(|m| m.id == Some(id)) {
            return m.name.clone();
        }
        self.world
            .as_ref()
            .and_then(|w| w.try_borrow().ok()?.agent(id).map(|a| a.name.clone()))
            .unwrap_or_else(|| format!("#{}", id.0))
    }
}

/// An instance's membership.
#[derive(Clone)]
pub struct Link {
    team: SharedTeam,
    member: usize,
    world: Option<SharedWorld>,
}

/// Adds an instance to the team: its recruitment blocks, its components (and, with the
/// first instance, the file's), the component names its code may ask about.
pub fn join(
    team: &SharedTeam,
    program: &Program,
    agent: &AgentProgram,
    name: &str,
    world: Option<(SharedWorld, AgentId)>,
) -> Link {
    let Ok(mut t) = team.try_borrow_mut() else {
        // Never during set-up; an instance that cannot join simply has no team.
        return Link {
            team: team.clone(),
            member: usize::MAX,
            world: None,
        };
    };
    let member = t.members.len();
    let id = world.as_ref().map(|(_, id)| *id);
    if let (Some((w, _)), None) = (&world, &t.world) {
        t.world = Some(w.clone());
        if let Ok(w) = w.try_borrow() {
            if t.bus.is_none() {
                t.bus = Some(Box::new(MessageBus::<Msg>::for_world(&w)));
            }
            let hosts = w
                .spec()
                .hosts
                .iter()
                .map(|h| {
                    let runs = h.components.iter().map(|c| c.name.clone()).collect();
                    (h.name.clone(), runs)
                })
                .collect();
            let hardware = w.spec().hosts.iter().map(|h| h.hardware.clone()).collect();
            t.supervisor = Supervisor::new(hosts).with_hardware(hardware);
        }
    }
    if !t.globals_added {
        t.globals_added = true;
        for c in &program.components {
            t.supervisor.add(c.clone(), None);
        }
    }
    for c in &agent.components {
        t.supervisor.add(c.clone(), Some(member));
    }
    // Every component name the program interned is one `failed(..)` may ask about.
    let mut watches = Vec::new();
    for c in agent.components.iter().chain(&program.components) {
        let (Some(symbol), Some(unit)) = (
            program.symbol(&c.name),
            t.supervisor.find(Some(member), &c.name),
        ) else {
            continue;
        };
        if !watches.iter().any(|w: &Watch| w.symbol == symbol) {
            watches.push(Watch {
                symbol,
                unit,
                seen: (0, 0),
                failed_now: false,
                recovered_now: false,
            });
        }
    }
    let me = id.unwrap_or(AgentId(u32::MAX));
    let blocks = agent
        .recruitments
        .iter()
        .map(|spec| Block {
            spec: spec.clone(),
            requester: Requester::new(me, spec),
            responder: Responder::new(me, spec),
        })
        .collect();
    let available = agent
        .slots
        .iter()
        .position(|s| s.scope == 0 && s.name == AVAILABLE_VARIABLE && s.kind == ValueKind::Bool);
    let percepts = agent
        .devices
        .iter()
        .filter(|d| d.role == DeviceRole::Sensor)
        .flat_map(|d| [d.name.clone(), d.driver.clone()])
        .collect();
    t.members.push(Member {
        name: name.to_string(),
        id,
        blocks,
        watches,
        available: available.map(|i| i as SlotId),
        percepts,
    });
    drop(t);
    Link {
        team: team.clone(),
        member,
        world: world.map(|(w, _)| w),
    }
}

impl Link {
    /// Whether component `name`'s users are served now (`None`: not a component of this
    /// team), and if so whether by an instance in another process. Allocates nothing: it is
    /// asked on every tick of a served leaf, where [`Link::route`] is needed only for a call
    /// that leaves the process.
    pub fn serving(&self, name: &str) -> Option<Option<bool>> {
        let t = self.team.try_borrow().ok()?;
        let unit = t.supervisor.find(Some(self.member), name)?;
        Some(
            t.supervisor
                .serving(unit)
                .map(|s| t.calls.is_some() && t.supervisor.is_remote(s)),
        )
    }

    /// Where a call of a leaf that component `name` serves goes now (see `calls.rs`).
    pub fn route(&self, name: &str) -> Option<super::call_route::Route> {
        let t = self.team.try_borrow().ok()?;
        let unit = t.supervisor.find(Some(self.member), name)?;
        let caller = t.members.get(self.member)?.name.clone();
        let serving = t
            .supervisor
            .serving(unit)
            .and_then(|s| Some((s, t.supervisor.units().get(s)?)));
        Some(match serving {
            None => super::call_route::Route {
                caller,
                served: None,
            },
            Some((s, u)) => super::call_route::Route {
                caller,
                served: Some(super::call_route::Server {
                    owner: t.owner_name(u.owner),
                    component: u.spec.name.clone(),
                    host: t.supervisor.host_name(u.host).map(str::to_string),
                    timeout_ms: u.spec.heartbeat_ms,
                    calls: t.calls.clone().filter(|_| t.supervisor.is_remote(s)),
                }),
            },
        })
    }

    /// The agent's world and its place in it.
    fn world(&self) -> Option<(SharedWorld, AgentId)> {
        let id = self.team.try_borrow().ok()?.members.get(self.member)?.id?;
        Some((self.world.clone()?, id))
    }

    /// Before the process phase: scripted component events, component supervision, the
    /// messages that reached this instance and the protocol's timers.
    pub fn before_tick(&self, machine: &mut Machine) {
        let Ok(mut team) = self.team.try_borrow_mut() else {
            return;
        };
        let now = machine.now_ms;
        let t = &mut *team;
        if !t.linked {
            t.linked = true;
            t.supervisor.link();
        }
        if let Some(w) = &self.world {
            if let Ok(w) = w.try_borrow() {
                script(t, &w);
            }
        }
        supervise(t, self.member, now);
        if let Some(w) = &self.world {
            if let Ok(w) = w.try_borrow() {
                recruit(t, self.member, &w, machine, now);
            }
        }
    }

    /// Writes the trace lines of the tick that just ran.
    pub fn flush(&self, tick: u64, now: f64, sink: &mut dyn TraceSink) {
        let Ok(mut team) = self.team.try_borrow_mut() else {
            return;
        };
        if team.notes.is_empty() {
            return;
        }
        let mut notes = std::mem::take(&mut team.notes);
        for note in &notes {
            write_note(&team, note, tick, now, sink);
        }
        // The buffer goes back, so a busy radio does not allocate one every tick.
        notes.clear();
        team.notes = notes;
    }

    /// Runs `f` on the instance's first recruitment block (the one its leaves drive) and
    /// sends what it wants sent.
    fn with_block<R>(&self, f: impl FnOnce(&mut Block, &mut Outbox) -> R) -> Option<R> {
        let mut team = self.team.try_borrow_mut().ok()?;
        let w = self.world.as_ref()?.try_borrow().ok()?;
        let t = &mut *team;
        let mut out = Outbox::default();
        let r = f(
            t.members.get_mut(self.member)?.blocks.first_mut()?,
            &mut out,
        );
        deliver(t, self.member, 0, out, &w);
        Some(r)
    }
}

/// The world's scripted `fail C [on A]` / `recover C [on A]` since the last step seen.
fn script(t: &mut Team, w: &World) {
    if t.world_step == Some(w.steps()) {
        return;
    }
    t.world_step = Some(w.steps());
    // Agents of the world that do not run (`--agent`) never receive: drop their copies.
    // (Marked in one pass: a search of the members for each agent made every world step
    // cost robots², 25 s for a run of 1,000 robots.)
    if let Some(bus) = &mut t.bus {
        let mut runs = vec![false; w.agents().len()];
        for id in t.members.iter().filter_map(|m| m.id) {
            if let Some(r) = runs.get_mut(id.0 as usize) {
                *r = true;
            }
        }
        for a in w.agents() {
            if !runs.get(a.id.0 as usize).copied().unwrap_or(false) {
                bus.receive(w, a.id);
            }
        }
    }
    for ev in w.fired_events() {
        let (component, agent, fail) = match &ev.action {
            EventAction::Fail { component, agent } => (component, agent, true),
            EventAction::Recover { component, agent } => (component, agent, false),
            _ => continue,
        };
        let mut units: Vec<usize> = Vec::new();
        match agent {
            // On the named agents: each one's own component of that name, else the shared one.
            Some(_) => {
                for id in w.targets(agent.as_ref()) {
                    let owner = t.members.iter().position(|m| m.id == Some(id));
                    if let Some(u) = owner.and_then(|o| t.supervisor.find(Some(o), &component.name))
                    {
                        units.push(u);
                    }
                }
            }
            // On no agent: the shared component, else every instance's.
            None => {
                units.extend(t.supervisor.find(None, &component.name));
                if units.is_empty() {
                    for o in 0..t.members.len() {
                        units.extend(t.supervisor.find(Some(o), &component.name));
                    }
                }
            }
        }
        units.dedup();
        for u in units {
            if fail {
                t.supervisor.stop(u, ev.at_ms as f64);
            } else {
                t.supervisor.resume(u, ev.at_ms as f64);
            }
        }
    }
}

/// Brings the instance's components and the shared ones up to `now`, and what its code sees
/// of them: a failure or a recovery since its previous tick.
fn supervise(t: &mut Team, member: usize, now: f64) {
    let mut changes = Vec::new();
    let mine = |u: &Unit| u.owner.is_none() || u.owner == Some(member);
    t.supervisor.update(now, &mine, &mut changes);
    for c in changes {
        let (state, to, silence_ms) = match c.change {
            Change::Failed { silence_ms } => ("failed", None, Some(silence_ms)),
            Change::Rebound { to } => ("rebound", Some(to), None),
            Change::Restarted { host } => {
                // Over a network someone must start the new instance: the robot only asks
                // (`restart_asked`), and the process the launcher starts says `restarted`.
                if t.supervisor.is_remote(c.unit) {
                    let u = &t.supervisor.units()[c.unit];
                    t.restarts.push(Restart {
                        owner: u
                            .owner
                            .and_then(|o| t.members.get(o))
                            .map(|m| m.name.clone()),
                        component: u.spec.name.clone(),
                        host: t.supervisor.host_name(host).map(str::to_string),
                    });
                    ("restart_asked", None, None)
                } else {
                    ("restarted", None, None)
                }
            }
            Change::Recovered => ("recovered", None, None),
            Change::Abandoned => ("abandoned", None, None),
        };
        t.notes.push(Note::Component {
            unit: c.unit,
            state,
            host: c.host,
            to,
            silence_ms,
        });
    }
    let Some(m) = t.members.get_mut(member) else {
        return;
    };
    for w in &mut m.watches {
        let counts = t.supervisor.counts(w.unit);
        w.failed_now = counts.0 != w.seen.0;
        w.recovered_now = counts.1 != w.seen.1 && !t.supervisor.failed(w.unit);
        w.seen = counts;
    }
}

/// The instance's messages, then its protocol timers.
fn recruit(t: &mut Team, member: usize, w: &World, machine: &mut Machine, now: f64) {
    let Some(m) = t.members.get_mut(member) else {
        return;
    };
    let Some(me) = m.id else { return };
    if m.blocks.is_empty() {
        return;
    }
    // The blocks leave the team while they run, so that sending can borrow it.
    let mut blocks = std::mem::take(&mut m.blocks);
    let available = m.available.is_none_or(|s| machine.slots[s as usize] != 0.0);
    let here = w.position(me);
    let unit_m = if w.spec().unit_m > 0.0 {
        w.spec().unit_m
    } else {
        1.0
    };
    let inbox = match &mut t.bus {
        Some(bus) => bus.receive(w, me),
        None => Vec::new(),
    };
    for (bi, b) in blocks.iter_mut().enumerate() {
        let mut out = Outbox::default();
        for env in inbox.iter().filter(|e| e.payload.block == b.spec.name) {
            let msg = &env.payload;
            match &msg.body {
                Body::Help { at, percept, .. } => {
                    let has = percept
                        .as_ref()
                        .is_none_or(|p| t.members[member].percepts.contains(p));
                    let distance = here.map_or(f64::INFINITY, |p| p.distance(*at) / unit_m);
                    let view = HelpView {
                        available: available && has && !b.requester.busy(),
                        distance,
                    };
                    let (code, slot) = (b.spec.ignore_cost, b.spec.distance);
                    let mut cost = |d: f64| match slot {
                        Some(s) if !code.is_empty() && (s as usize) < machine.slots.len() => {
                            machine.write(s, d);
                            machine.eval(code)
                        }
                        _ => seed_ignore_cost(d),
                    };
                    b.responder
                        .on_help(now, env.from, msg, view, &mut cost, &mut out);
                }
                _ => {
                    b.requester.receive(env.from, msg, now, &mut out);
                    b.responder.receive(env.from, msg, now, &mut out);
                }
            }
        }
        let rng = &mut t.rng;
        b.requester
            .step(now, &mut |n| rng.below(n as u64) as usize, &mut out);
        b.responder.step(now, &mut out);
        deliver(t, member, bi, out, w);
    }
    t.members[member].blocks = blocks;
}

/// Sends what block `block` of an instance wants sent and keeps its trace notes. Under
/// `messages unicast` a message to everyone goes to each robot separately.
fn deliver(t: &mut Team, member: usize, block: usize, out: Outbox, w: &World) {
    for report in out.reports {
        t.notes.push(Note::Recruit {
            member,
            block,
            report,
        });
    }
    let Some(me) = t.members.get(member).and_then(|m| m.id) else {
        return;
    };
    let Some(bus) = &mut t.bus else { return };
    let unicast = bus.unicast();
    for send in out.sends {
        let (to, msg) = match send {
            Send::All(msg) => (None, msg),
            Send::To(id, msg) => (Some(id), msg),
        };
        let kind = msg.body.kind();
        let mut each = |r: Option<AgentId>, msg: Msg| {
            let copies = bus.send(w, me, r.map_or(Recipient::Broadcast, Recipient::Agent), msg);
            t.notes.push(Note::Msg {
                from: member,
                to: r,
                kind,
            });
            let lost = copies.lost;
            if lost > 0 {
                t.notes.push(Note::Lost {
                    from: member,
                    to: r,
                    kind,
                    copies: lost,
                });
            }
        };
        match (to, unicast) {
            (None, true) => {
                for a in w.agents().iter().filter(|a| a.id != me) {
                    each(Some(a.id), msg.clone());
                }
            }
            (to, _) => each(to, msg),
        }
    }
}

fn write_note(t: &Team, note: &Note, tick: u64, now: f64, sink: &mut dyn TraceSink) {
    let member_name = |m: usize| t.members.get(m).map_or("?", |m| m.name.as_str());
    let to_name = |to: Option<AgentId>| to.map_or_else(|| "*".to_string(), |id| t.name_of(id));
    match note {
        Note::Msg { from, to, kind } => {
            let to = to_name(*to);
            let from = member_name(*from);
            let _ = sink.line(
                tick,
                now,
                from,
                &Event::Msg {
                    from,
                    to: &to,
                    kind,
                },
            );
        }
        Note::Lost {
            from,
            to,
            kind,
            copies,
        } => {
            let to = to_name(*to);
            let from = member_name(*from);
            let ev = Event::Lost {
                from,
                to: &to,
                kind,
                copies: *copies,
            };
            let _ = sink.line(tick, now, from, &ev);
        }
        Note::Recruit {
            member,
            block,
            report,
        } => {
            let peer = report.peer.map(|id| t.name_of(id));
            let block = t
                .members
                .get(*member)
                .and_then(|m| m.blocks.get(*block))
                .map_or("?", |b| b.spec.name.as_str());
            let ev = Event::Recruit {
                block,
                step: report.step,
                peer: peer.as_deref(),
                shame: report.shame,
                distance: report.distance,
                eta_ms: report.eta_ms,
                offers: report.offers,
                lease_ms: report.lease_ms,
                why: report.why,
            };
            let _ = sink.line(tick, now, member_name(*member), &ev);
        }
        Note::Component {
            unit,
            state,
            host,
            to,
            silence_ms,
        } => {
            let units = t.supervisor.units();
            let Some(u) = units.get(*unit) else { return };
            let agent = u.owner.map_or("*", member_name);
            let to = to.and_then(|i| units.get(i)).map(|x| x.spec.name.as_str());
            let ev = Event::Component {
                name: &u.spec.name,
                state,
                host: t.supervisor.host_name(*host),
                to,
                silence_ms: *silence_ms,
            };
            let _ = sink.line(tick, now, agent, &ev);
        }
    }
}

/// Answers the component questions of compiled code; passes everything else on.
struct TeamHost<'p> {
    inner: Option<Box<dyn Host + 'p>>,
    team: SharedTeam,
    member: usize,
}

impl Host for TeamHost<'_> {
    fn call(&mut self, f: HostFn, arg: u32, args: &[f64], lists: &mut Lists) -> f64 {
        let flag = |b: bool| f64::from(u8::from(b));
        match f {
            HostFn::ComponentFailed | HostFn::ComponentRecovered | HostFn::ComponentFailedNow => {
                let Ok(t) = self.team.try_borrow() else {
                    return 0.0;
                };
                let Some(w) = t
                    .members
                    .get(self.member)
                    .and_then(|m| m.watches.iter().find(|w| w.symbol == arg))
                else {
                    return 0.0;
                };
                match f {
                    HostFn::ComponentFailed => flag(t.supervisor.failed(w.unit)),
                    HostFn::ComponentRecovered => flag(w.recovered_now),
                    _ => flag(w.failed_now),
                }
            }
            _ => match &mut self.inner {
                Some(h) => h.call(f, arg, args, lists),
                None => f64::NAN,
            },
        }
    }
}

/// Puts the team in front of the machine's host, for `failed(c)` and its kin.
pub fn wrap_host(machine: &mut Machine, link: &Link) {
    let inner = machine.host.take();
    machine.host = Some(Box::new(TeamHost {
        inner,
        team: link.team.clone(),
        member: link.member,
    }));
}

/// Binds the recruitment leaves, for an agent with a recruitment block in a world.
pub fn bind(info: &LeafInfo, link: &Link) -> Option<Box<dyn Leaf>> {
    let port = |name: &str| info.ports.iter().position(|p| p.name == name);
    let has_block = link
        .team
        .try_borrow()
        .ok()
        .and_then(|t| t.members.get(link.member).map(|m| !m.blocks.is_empty()))
        .unwrap_or(false);
    if !has_block || link.world.is_none() {
        return None;
    }
    match info.name.as_str() {
        "RequestHelp" => Some(Box::new(RequestHelp {
            link: link.clone(),
            at: port("at")?,
            responder: port("responder"),
        })),
        "Recruited" => Some(Box::new(Recruited {
            link: link.clone(),
            requester: port("requester"),
            site: port("site"),
            site_list: None,
        })),
        "Respond" => Some(Box::new(Respond {
            link: link.clone(),
            requester: port("requester")?,
            lease: port("lease"),
            asked: None,
        })),
        _ => None,
    }
}

struct RequestHelp {
    link: Link,
    at: usize,
    responder: Option<usize>,
}

impl Leaf for RequestHelp {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        let now = call.now_ms;
        if call.starting {
            let at = point_from(call.lists.values(call.inputs[self.at])).or_else(|| {
                let (w, id) = self.link.world()?;
                let p = w.try_borrow().ok()?.position(id);
                p
            });
            let Some(at) = at else {
                return Status::Failure;
            };
            let started = self
                .link
                .with_block(|b, out| b.requester.start(now, at, out));
            return if started.is_some() {
                Status::Running
            } else {
                Status::Failure
            };
        }
        let progress = self
            .link
            .with_block(|b, _| b.requester.progress())
            .unwrap_or(Progress::Failed);
        match progress {
            Progress::Running => Status::Running,
            Progress::Done(r) => {
                if let Some(p) = self.responder {
                    call.outputs[p] = Some(f64::from(r.0));
                }
                Status::Success
            }
            Progress::Failed => Status::Failure,
        }
    }

    fn halt(&mut self, _now_ms: f64) {
        self.link.with_block(|b, _| b.requester.cancel());
    }
}

struct Recruited {
    link: Link,
    requester: Option<usize>,
    site: Option<usize>,
    /// The list the `site` output points at, reused call after call.
    site_list: Option<f64>,
}

impl Leaf for Recruited {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        let Some(Some((requester, site))) = self.link.with_block(|b, _| b.responder.recruited())
        else {
            return Status::Failure;
        };
        if let Some(p) = self.requester {
            call.outputs[p] = Some(f64::from(requester.0));
        }
        if let Some(p) = self.site {
            let list = *self.site_list.get_or_insert_with(|| call.lists.alloc(&[]));
            call.lists.set(list, &[site.x, site.y]);
            call.outputs[p] = Some(list);
        }
        Status::Success
    }
}

struct Respond {
    link: Link,
    requester: usize,
    lease: Option<usize>,
    /// The requester this node is handshaking with.
    asked: Option<AgentId>,
}

impl Leaf for Respond {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        let now = call.now_ms;
        if call.starting {
            let r = call.inputs[self.requester];
            if !(r >= 0.0 && r < f64::from(u32::MAX)) {
                return Status::Failure;
            }
            let requester = AgentId(r as u32);
            let lease = self
                .lease
                .map(|i| call.inputs[i])
                .filter(|l| l.is_finite() && *l > 0.0);
            let arrived = self.link.with_block(|b, out| {
                let lease = lease.unwrap_or(b.spec.lease_ms);
                b.responder.arrive(requester, lease, now, out)
            });
            if arrived != Some(true) {
                return Status::Failure;
            }
            self.asked = Some(requester);
            return Status::Running;
        }
        let Some(requester) = self.asked else {
            return Status::Failure;
        };
        match self
            .link
            .with_block(|b, _| b.responder.handshake(requester))
        {
            Some(Progress::Running) => Status::Running,
            Some(Progress::Done(_)) => Status::Success,
            _ => Status::Failure,
        }
    }

    fn halt(&mut self, _now_ms: f64) {
        self.link.with_block(|b, _| b.responder.abandon_arrival());
    }
}
