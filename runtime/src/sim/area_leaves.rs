//! Simulator implementations of the leaves the CARS waiter and refiller declare (seed 000,
//! `examples/waiter.affect`): commands between robots, where a robot is, walking and driving
//! in an area, speaking. [`super::leaves::bind`] hands every declared leaf it does not know
//! to [`bind`] here; a leaf binds when its name and its ports fit, else it runs as a
//! stand-in.
//!
//! | leaf | world | does | statuses |
//! |---|---|---|---|
//! | `SendCommand(in robot: str, in command: E)` | any | queues `command` for the running robot of that name (CARS's `setRobotCommand`); before that robot's next tick the run loop sets its root variable `command` (an enum with a variant of the same name) and the trace gets a `msg` (`from`, `to`, `kind` = the variant) | SUCCESS; FAILURE when no running robot has that name or its `command` has no such variant |
//! | `Locate(in robot: str, out position: Point)` | any | writes where that robot is now (`getRobotLocation`) | SUCCESS; FAILURE when no robot has that name |
//! | `Near(in robot: str, in range: length)` | any | is that robot's centre within `range` of this one's? | SUCCESS or FAILURE (also for a name no robot has) |
//! | `Say(in text: str)` | any | the sentence as an `info` `log` line of the trace | SUCCESS |
//! | `RandomWalk(in speed: num)` | area | wanders at `speed`: walks straight for 2–10 s (uniform) in a random direction, then picks a new one; a blocked step is not made and the robot turns to a new direction instead. Directions and times come from the agent's own random stream (`random_walk:NAME` of the run's seed) | RUNNING, never finishing; FAILURE for a negative or non-finite speed |
//! | `GoTo(in goal: Point, in speed: num)` | area | drives straight toward `goal` at `speed`; a step into a body (a guest, a robot, an obstacle) is not made and the robot waits where it is for the way to clear, so a crowd can hold it up | SUCCESS within a foot (0.3048 m) of `goal`; RUNNING while on the way (and while blocked); FAILURE for a goal that is not a point or a negative or non-finite speed |
//! | `Stop()` | area | stands still | SUCCESS |
//!
//! Robots are named as world events name them: by instance name (`Vonda`, `UGV#2`), else the
//! first instance of the program of that name. Positions and lengths are metres, as the
//! compiler stores them (`25ft` is 7.62). A speed is a bare number counted in the world's
//! length unit per second, as guests' speeds are: ft/s in `area 50ft x 50ft`, m/s in an area
//! written in metres or without a unit ([`affect_compiler::ir::world::WorldSpec::unit_m`]).
//! Movement uses simulated time: each tick a moving leaf moves its robot by `speed × dt`,
//! `dt` being the agent's tick period, in one step that the world checks for bodies in the
//! way. A robot moves at most once per tick, so only the first moving leaf of a tick moves it.
//! A world that cannot be read (never in a normal run) or a robot missing from it is a node
//! FAILURE, never a panic.

use super::leaves::LeafEnv;
use crate::devices::sim::SharedWorld;
use crate::interp::Machine;
use crate::leaf::{Leaf, LeafCall};
use crate::rng::Rng;
use crate::trace::{Event, TraceSink};
use crate::world::{AgentId, Point, World};
use affect_compiler::ir::program::{
    AgentProgram, EnumInfo, LeafInfo, Program, SlotId, Status, ValueKind,
};
use affect_compiler::syntax::ast::PortDir;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// One foot in metres: how close `GoTo` must come to its goal.
pub const ARRIVED_M: f64 = 0.3048;

/// Shortest and longest straight leg of a random walk, in milliseconds.
const LEG_MS: (f64, f64) = (2000.0, 10000.0);

/// The root variable a command sets on the robot it is addressed to.
pub const COMMAND_VARIABLE: &str = "command";

/// A running robot that commands can reach.
#[derive(Clone, Debug)]
struct Robot {
    /// Instance name (`Vonda`, `UGV#2`).
    name: String,
    /// The agent declaration it runs.
    program: String,
    /// Its root variable `command` and that variable's enum, when it has one.
    command: Option<(SlotId, u32)>,
    /// It runs in another process (networked runs): commands to it leave by the network.
    remote: bool,
}

/// Something a leaf did that goes to the trace after its agent's tick.
#[derive(Clone, Copy, Debug)]
enum Note {
    /// `Say`: a string symbol.
    Said(u32),
    /// `SendCommand`: (robot index, variant index).
    Sent(usize, usize),
}

/// The run's post office: the running robots, commands on their way, and the trace notes of
/// the agent ticking now. Deterministic: commands are delivered in the order they were sent.
#[derive(Debug, Default)]
pub struct Mail {
    robots: Vec<Robot>,
    /// (robot index, variant index), in sending order.
    pending: Vec<(usize, usize)>,
    /// Commands to remote robots, (robot index, variant index), waiting for the network.
    outbox: Vec<(usize, usize)>,
    notes: Vec<Note>,
}

pub type SharedMail = Rc<RefCell<Mail>>;

impl Mail {
    pub fn shared() -> SharedMail {
        Rc::new(RefCell::new(Mail::default()))
    }

    /// Makes a running instance reachable by commands.
    pub fn register(&mut self, program: &Program, agent: &AgentProgram, name: &str) {
        self.add(program, agent, name, false);
    }

    /// Makes a robot that runs in another process reachable by commands (networked runs).
    pub fn register_remote(&mut self, program: &Program, agent: &AgentProgram, name: &str) {
        if !self.robots.iter().any(|r| r.name == name) {
            self.add(program, agent, name, true);
        }
    }

    fn add(&mut self, program: &Program, agent: &AgentProgram, name: &str, remote: bool) {
        let command = agent
            .slots
            .iter()
            .position(|s| s.scope == 0 && s.name == COMMAND_VARIABLE)
            .and_then(|i| match agent.slots[i].kind {
                ValueKind::Enum(e) if (e as usize) < program.enums.len() => Some((i as SlotId, e)),
                _ => None,
            });
        self.robots.push(Robot {
            name: name.to_string(),
            program: agent.name.clone(),
            command,
            remote,
        });
    }

    /// The robot a name addresses: the instance of that name, else the first instance of the
    /// program of that name.
    fn resolve(&self, name: &str) -> Option<usize> {
        self.robots
            .iter()
            .position(|r| r.name == name)
            .or_else(|| self.robots.iter().position(|r| r.program == name))
    }

    /// Queues a command: false when no robot has the name or its `command` has no variant
    /// of this name.
    fn send(&mut self, to: &str, variant: &str, enums: &[EnumInfo]) -> bool {
        let Some(r) = self.resolve(to) else {
            return false;
        };
        let Some((_, e)) = self.robots[r].command else {
            return false;
        };
        let Some(v) = enums
            .get(e as usize)
            .and_then(|en| en.variants.iter().position(|x| x == variant))
        else {
            return false;
        };
        if self.robots[r].remote {
            self.outbox.push((r, v));
        } else {
            self.pending.push((r, v));
        }
        self.notes.push(Note::Sent(r, v));
        true
    }

    /// Commands to robots in other processes since the last call: (robot, variant name).
    pub fn take_remote(&mut self, enums: &[EnumInfo]) -> Vec<(String, String)> {
        let robots = &self.robots;
        self.outbox
            .drain(..)
            .filter_map(|(r, v)| {
                let robot = robots.get(r)?;
                let (_, e) = robot.command?;
                let variant = enums.get(e as usize)?.variants.get(v)?;
                Some((robot.name.clone(), variant.clone()))
            })
            .collect()
    }

    /// A command from another process for the robot `to` running here: queued like a local
    /// one; false when no robot here has the name or its `command` no such variant.
    pub fn receive_remote(&mut self, to: &str, variant: &str, enums: &[EnumInfo]) -> bool {
        let Some(r) = self.robots.iter().position(|x| x.name == to && !x.remote) else {
            return false;
        };
        let Some((_, e)) = self.robots[r].command else {
            return false;
        };
        match enums
            .get(e as usize)
            .and_then(|en| en.variants.iter().position(|x| x == variant))
        {
            Some(v) => {
                self.pending.push((r, v));
                true
            }
            None => false,
        }
    }

    /// The robots a world's scripted `send VARIANT [to NAME]` reaches, with the variant's
    /// index in each one's `command` enum: every instance of that name or program (every
    /// robot without `to`) whose `command` has a variant of that name.
    fn scripted_targets(
        &self,
        to: Option<&str>,
        variant: &str,
        enums: &[EnumInfo],
    ) -> Vec<(usize, usize)> {
        self.robots
            .iter()
            .enumerate()
            // A robot elsewhere gets the world's sends from its own copy of the world.
            .filter(|(_, r)| !r.remote && to.is_none_or(|t| r.name == t || r.program == t))
            .filter_map(|(i, r)| {
                let (_, e) = r.command?;
                let v = enums
                    .get(e as usize)?
                    .variants
                    .iter()
                    .position(|x| x == variant)?;
                Some((i, v))
            })
            .collect()
    }

    /// The variants the `command` of the robots `to` addresses can take, for suggestions.
    pub fn command_variants<'e>(&self, to: Option<&str>, enums: &'e [EnumInfo]) -> Vec<&'e str> {
        let mut names: Vec<&str> = self
            .robots
            .iter()
            .filter(|r| to.is_none_or(|t| r.name == t || r.program == t))
            .filter_map(|r| enums.get(r.command?.1 as usize))
            .flat_map(|en| en.variants.iter().map(String::as_str))
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    /// Whether a scripted `send` reaches any robot (checked before the first tick).
    pub fn can_deliver_scripted(
        &self,
        to: Option<&str>,
        variant: &str,
        enums: &[EnumInfo],
    ) -> bool {
        !self.scripted_targets(to, variant, enums).is_empty()
    }

    /// Queues a world's scripted `send` for every robot it reaches; returns their names, for
    /// the trace.
    pub fn send_scripted(
        &mut self,
        to: Option<&str>,
        variant: &str,
        enums: &[EnumInfo],
    ) -> Vec<String> {
        let targets = self.scripted_targets(to, variant, enums);
        self.pending.extend(targets.iter().copied());
        targets
            .iter()
            .map(|&(r, _)| self.robots[r].name.clone())
            .collect()
    }

    /// Sets the `command` of instance `name` to each command sent to it since its last tick,
    /// in sending order. The run loop calls this just before the instance ticks.
    pub fn deliver(&mut self, name: &str, machine: &mut Machine) {
        if self.pending.is_empty() {
            return;
        }
        let Some(r) = self.robots.iter().position(|x| x.name == name) else {
            return;
        };
        let Some((slot, _)) = self.robots[r].command else {
            return;
        };
        for &(to, v) in &self.pending {
            if to == r && (slot as usize) < machine.slots.len() {
                machine.write(slot, v as f64);
            }
        }
        self.pending.retain(|(to, _)| *to != r);
    }

    /// Writes what the leaves of the agent that just ticked did: a `log` line per sentence
    /// said, a `msg` per command sent.
    pub fn flush(
        &mut self,
        program: &Program,
        tick: u64,
        now: f64,
        agent: &str,
        sink: &mut dyn TraceSink,
    ) {
        for note in self.notes.drain(..) {
            let ev = match note {
                Note::Said(s) => Event::Log {
                    level: "info",
                    text: program.strings.get(s as usize).cloned().unwrap_or_default(),
                },
                Note::Sent(r, v) => {
                    let robot = &self.robots[r];
                    let kind = robot
                        .command
                        .and_then(|(_, e)| program.enums.get(e as usize))
                        .and_then(|en| en.variants.get(v))
                        .map_or("?", String::as_str);
                    Event::Msg {
                        from: agent,
                        to: &robot.name,
                        kind,
                    }
                }
            };
            let _ = sink.line(tick, now, agent, &ev);
        }
    }
}

/// What the area leaves of one agent instance share.
pub struct AreaAgent {
    /// The instance's name.
    pub name: String,
    /// Its tick period: how long one tick's movement lasts.
    pub period_ms: f64,
    /// The program's interned strings (string ports carry symbols).
    pub strings: Rc<Vec<String>>,
    pub mail: SharedMail,
    rng: RefCell<Rng>,
    /// When the robot last moved, so it moves at most once a tick.
    moved_at: Cell<f64>,
}

impl AreaAgent {
    pub fn new(
        name: &str,
        rate_hz: f64,
        strings: Rc<Vec<String>>,
        mail: SharedMail,
        seed: u64,
    ) -> AreaAgent {
        let period_ms = if rate_hz > 0.0 && rate_hz.is_finite() {
            1000.0 / rate_hz
        } else {
            100.0
        };
        AreaAgent {
            name: name.to_string(),
            period_ms,
            strings,
            mail,
            rng: RefCell::new(Rng::named(seed, &format!("random_walk:{name}"))),
            moved_at: Cell::new(f64::NAN),
        }
    }

    fn str_of(&self, v: f64) -> Option<&str> {
        if v.is_nan() || v < 0.0 {
            return None;
        }
        self.strings.get(v as usize).map(String::as_str)
    }

    /// True the first time it is asked in a tick: the robot may move now.
    fn claim_move(&self, now_ms: f64) -> bool {
        if self.moved_at.get() == now_ms {
            return false;
        }
        self.moved_at.set(now_ms);
        true
    }
}

/// Binds a declared leaf to its simulator implementation when its name and ports fit.
pub fn bind(info: &LeafInfo, env: &LeafEnv, is_grid: bool) -> Option<Box<dyn Leaf>> {
    let port = |name: &str, fits: fn(Option<ValueKind>, PortDir) -> bool| {
        info.ports
            .iter()
            .position(|p| p.name == name && fits(p.kind, p.dir))
    };
    let text = |k: Option<ValueKind>, d: PortDir| k == Some(ValueKind::Str) && d != PortDir::Out;
    let number = |k: Option<ValueKind>, d: PortDir| {
        matches!(k, Some(ValueKind::Num | ValueKind::Int | ValueKind::Length)) && d != PortDir::Out
    };
    let point_in =
        |k: Option<ValueKind>, d: PortDir| k == Some(ValueKind::List) && d != PortDir::Out;
    let point_out =
        |k: Option<ValueKind>, d: PortDir| k == Some(ValueKind::List) && d != PortDir::In;
    let variant = |k: Option<ValueKind>, d: PortDir| {
        matches!(k, Some(ValueKind::Enum(_))) && d != PortDir::Out
    };
    let area = env.area.clone();
    let (world, agent) = (env.world.clone(), env.agent);
    let leaf: Box<dyn Leaf> = match info.name.as_str() {
        "SendCommand" => {
            let command = port("command", variant)?;
            let Some(ValueKind::Enum(e)) = info.ports[command].kind else {
                return None;
            };
            Box::new(SendCommand {
                area,
                enums: env.enums.clone(),
                robot: port("robot", text)?,
                command,
                enum_id: e,
            })
        }
        "Locate" => Box::new(Locate {
            world,
            area,
            robot: port("robot", text)?,
            position: port("position", point_out)?,
            list: None,
        }),
        "Near" => Box::new(Near {
            world,
            agent,
            area,
            robot: port("robot", text)?,
            range: port("range", number)?,
        }),
        "Say" => Box::new(Say {
            area,
            text: port("text", text)?,
        }),
        "RandomWalk" if !is_grid => Box::new(RandomWalk {
            world,
            agent,
            area,
            speed: port("speed", number)?,
            heading: (1.0, 0.0),
            leg_left_ms: 0.0,
        }),
        "GoTo" if !is_grid => Box::new(GoTo {
            world,
            agent,
            area,
            goal: port("goal", point_in)?,
            speed: port("speed", number)?,
        }),
        "Stop" if !is_grid && info.ports.is_empty() => Box::new(Stop),
        _ => return None,
    };
    Some(leaf)
}

/// `SendCommand(robot, command)`.
struct SendCommand {
    area: Rc<AreaAgent>,
    enums: Rc<Vec<EnumInfo>>,
    robot: usize,
    command: usize,
    enum_id: u32,
}

impl Leaf for SendCommand {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        let Some(to) = self.area.str_of(call.inputs[self.robot]) else {
            return Status::Failure;
        };
        let v = call.inputs[self.command];
        let name = match self.enums.get(self.enum_id as usize) {
            Some(en) if v >= 0.0 => en.variants.get(v as usize),
            _ => None,
        };
        let Some(name) = name else {
            return Status::Failure;
        };
        let Ok(mut mail) = self.area.mail.try_borrow_mut() else {
            return Status::Failure;
        };
        if mail.send(to, name, &self.enums) {
            Status::Success
        } else {
            Status::Failure
        }
    }
}

/// The position of the robot a name addresses, read from the world.
fn robot_position(world: &World, name: &str) -> Option<Point> {
    world.position(world.agent_by_name(name)?)
}

/// `Locate(robot, out position)`.
struct Locate {
    world: SharedWorld,
    area: Rc<AreaAgent>,
    robot: usize,
    position: usize,
    /// The list this leaf writes, allocated on the first call and reused.
    list: Option<f64>,
}

impl Leaf for Locate {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        let Some(name) = self.area.str_of(call.inputs[self.robot]) else {
            return Status::Failure;
        };
        let found = match self.world.try_borrow() {
            Ok(w) => robot_position(&w, name),
            Err(_) => None,
        };
        let Some(p) = found else {
            return Status::Failure;
        };
        let list = *self.list.get_or_insert_with(|| call.lists.alloc(&[]));
        call.lists.set(list, &[p.x, p.y]);
        call.outputs[self.position] = Some(list);
        Status::Success
    }
}

/// `Near(robot, range)`.
struct Near {
    world: SharedWorld,
    agent: AgentId,
    area: Rc<AreaAgent>,
    robot: usize,
    range: usize,
}

impl Leaf for Near {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        let Some(name) = self.area.str_of(call.inputs[self.robot]) else {
            return Status::Failure;
        };
        let range = call.inputs[self.range];
        let Ok(w) = self.world.try_borrow() else {
            return Status::Failure;
        };
        let near = match (w.position(self.agent), robot_position(&w, name)) {
            (Some(a), Some(b)) => a.distance(b) <= range,
            _ => false,
        };
        if near {
            Status::Success
        } else {
            Status::Failure
        }
    }
}

/// `Say(text)`.
struct Say {
    area: Rc<AreaAgent>,
    text: usize,
}

impl Leaf for Say {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        let v = call.inputs[self.text];
        if self.area.str_of(v).is_none() {
            return Status::Failure;
        }
        match self.area.mail.try_borrow_mut() {
            Ok(mut mail) => {
                mail.notes.push(Note::Said(v as u32));
                Status::Success
            }
            Err(_) => Status::Failure,
        }
    }
}

/// `Stop()`: the robot stands still (simulated robots move only when a leaf moves them).
struct Stop;

impl Leaf for Stop {
    fn tick(&mut self, _: &mut LeafCall) -> Status {
        Status::Success
    }
}

/// A speed port's value in metres per second, or `None` when it is not a usable speed.
fn speed_mps(world: &World, speed: f64) -> Option<f64> {
    if !speed.is_finite() || speed < 0.0 {
        return None;
    }
    let unit = world.spec().unit_m;
    let unit = if unit > 0.0 && unit.is_finite() {
        unit
    } else {
        1.0
    };
    Some(speed * unit)
}

/// `RandomWalk(speed)`.
struct RandomWalk {
    world: SharedWorld,
    agent: AgentId,
    area: Rc<AreaAgent>,
    speed: usize,
    /// The current leg: a unit vector and how long it has left.
    heading: (f64, f64),
    leg_left_ms: f64,
}

impl RandomWalk {
    fn new_leg(&mut self) {
        let mut rng = self.area.rng.borrow_mut();
        self.heading = rng.direction();
        self.leg_left_ms = rng.uniform(LEG_MS.0, LEG_MS.1);
    }
}

impl Leaf for RandomWalk {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        let world = self.world.clone();
        let Ok(mut w) = world.try_borrow_mut() else {
            return Status::Failure;
        };
        let Some(speed) = speed_mps(&w, call.inputs[self.speed]) else {
            return Status::Failure;
        };
        let Some(here) = w.position(self.agent) else {
            return Status::Failure;
        };
        if call.starting || self.leg_left_ms <= 0.0 {
            self.new_leg();
        }
        let dt = self.area.period_ms;
        let step = speed * dt / 1000.0;
        if step > 0.0 && self.area.claim_move(call.now_ms) {
            let to = Point::new(
                here.x + self.heading.0 * step,
                here.y + self.heading.1 * step,
            );
            if w.try_move_to(self.agent, to).is_err() {
                // Not made: turn and try the new way on the next tick.
                self.new_leg();
            }
        }
        self.leg_left_ms -= dt;
        Status::Running
    }
}

/// One straight step of `step_m` toward `goal` (onto it when it is that close). A step into
/// a body is not made: false, and the robot stays where it is.
fn step_toward(w: &mut World, id: AgentId, goal: Point, step_m: f64) -> bool {
    let Some(from) = w.position(id) else {
        return false;
    };
    let d = from.distance(goal);
    if d.is_nan() || d <= 0.0 || step_m.is_nan() || step_m <= 0.0 {
        return false;
    }
    let to = if step_m >= d {
        goal
    } else {
        let f = step_m / d;
        Point::new(
            from.x + (goal.x - from.x) * f,
            from.y + (goal.y - from.y) * f,
        )
    };
    w.try_move_to(id, to).is_ok()
}

/// `GoTo(goal, speed)`.
struct GoTo {
    world: SharedWorld,
    agent: AgentId,
    area: Rc<AreaAgent>,
    goal: usize,
    speed: usize,
}

impl Leaf for GoTo {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        let goal = match call.lists.values(call.inputs[self.goal]) {
            &[x, y] if x.is_finite() && y.is_finite() => Point::new(x, y),
            _ => return Status::Failure,
        };
        let Ok(mut w) = self.world.try_borrow_mut() else {
            return Status::Failure;
        };
        let Some(speed) = speed_mps(&w, call.inputs[self.speed]) else {
            return Status::Failure;
        };
        let arrived = |w: &World| {
            w.position(self.agent)
                .map(|p| p.distance(goal) <= ARRIVED_M)
        };
        match arrived(&w) {
            None => return Status::Failure,
            Some(true) => return Status::Success,
            Some(false) => {}
        }
        if self.area.claim_move(call.now_ms) {
            // A blocked step is not made: the robot waits for the way to clear.
            step_toward(
                &mut w,
                self.agent,
                goal,
                speed * self.area.period_ms / 1000.0,
            );
        }
        if arrived(&w) == Some(true) {
            Status::Success
        } else {
            Status::Running
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::run::{run, RunConfig};
    use crate::trace::JsonLines;
    use affect_compiler::sema::NoFiles;
    use serde_json::Value;

    /// The leaves, two robots and a clone nobody addresses, in a 50 × 50 ft hall.
    const HALL: &str = r#"
enum Command { Idle, Refill, Hurry, GoHome }

action SendCommand(in robot: str, in command: Command);
action Locate(in robot: str, out position: Point);
action RandomWalk(in speed: num);
action GoTo(in goal: Point, in speed: num);
action Stop();
action Say(in text: str);
condition Near(in robot: str, in range: length = 4ft);

agent Boss {
    rate 10Hz;
    var sent: bool = false;
    var helper: str = "Helper";
    sensor position: Point = odometry();
    sensor gap: length = distance_to(robot: helper);

    main {
        sequence {
            SendCommand(robot: helper, command: Command::Refill) skip_if sent on_success {
                sent = true;
            }
            Say(text: "hello")
            RandomWalk(speed: 1)
        }
    }
}

agent Helper {
    rate 10Hz;
    var command: Command = Command::Idle;
    var target: Point = (0m, 0m);
    sensor position: Point = odometry();

    main {
        switch command {
            Command::Idle => Stop()
            Command::Refill => sequence {
                Locate(robot: "Boss", position: target)
                GoTo(goal: target, speed: 2)
            }
            _ => Stop()
        }
    }
}

agent Twin = Helper;

world Hall {
    area 50ft x 50ft cell 2ft;
    obstacle table at (25ft, 49ft) size 4ft x 2ft;
    spawn Boss at (25ft, 25ft);
    spawn Helper at (25ft, 45ft);
    spawn Twin at (5ft, 45ft);
    ticks 300;
    seed 1;
}
"#;

    const FT: f64 = 0.3048;

    fn trace_of(src: &str, config: &RunConfig) -> (String, Vec<Value>) {
        let analysis = affect_compiler::check_source_with(src, &NoFiles);
        let program = analysis
            .program
            .unwrap_or_else(|| panic!("{:#?}", analysis.diagnostics));
        let mut sink = JsonLines::new(Vec::new());
        run(&program, config, &mut sink, |_| {}).unwrap_or_else(|d| panic!("{d:#?}"));
        let text = String::from_utf8(sink.into_inner()).unwrap();
        let lines = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        (text, lines)
    }

    fn config(ticks: u64) -> RunConfig {
        RunConfig {
            ticks,
            seed: 1,
            ..RunConfig::default()
        }
    }

    /// Every value `name` of `agent` took, in order, with its time (the first is the value
    /// before the first tick).
    fn var<'a>(lines: &'a [Value], agent: &str, name: &str) -> Vec<(f64, &'a Value)> {
        lines
            .iter()
            .filter(|l| l["ev"] == "var" && l["agent"] == agent && l["name"] == name)
            .map(|l| (l["t_ms"].as_f64().unwrap(), &l["value"]))
            .collect()
    }

    fn point(v: &Value) -> (f64, f64) {
        (v[0].as_f64().unwrap(), v[1].as_f64().unwrap())
    }

    fn dist(a: (f64, f64), b: (f64, f64)) -> f64 {
        ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt()
    }

    #[test]
    fn a_command_reaches_the_robot_it_names_and_no_other() {
        let (_, lines) = trace_of(HALL, &config(300));
        let msgs: Vec<&Value> = lines.iter().filter(|l| l["ev"] == "msg").collect();
        assert_eq!(msgs.len(), 1, "{msgs:?}");
        assert_eq!(msgs[0]["agent"], "Boss");
        assert_eq!(msgs[0]["from"], "Boss");
        assert_eq!(msgs[0]["to"], "Helper");
        assert_eq!(msgs[0]["kind"], "Refill");
        // Delivered before the helper's tick of the same time (it ticks after Boss).
        let cmd = var(&lines, "Helper", "command");
        assert_eq!(cmd.len(), 2, "the initial value, then Refill: {cmd:?}");
        assert_eq!(cmd[1].1, "Refill");
        assert_eq!(cmd[1].0, msgs[0]["t_ms"].as_f64().unwrap());
        // The clone answers only to her own name: never commanded, never moving.
        assert_eq!(var(&lines, "Twin", "command").len(), 1);
        assert_eq!(
            var(&lines, "Twin", "position").len(),
            2,
            "before and at the first tick"
        );
        // Say writes its sentence.
        assert!(lines
            .iter()
            .any(|l| l["ev"] == "log" && l["agent"] == "Boss" && l["text"] == "hello"));
    }

    #[test]
    fn a_helper_drives_toward_the_robot_it_locates_and_the_walker_keeps_walking() {
        let (_, lines) = trace_of(HALL, &config(300));
        // Positions as sensed from the first tick on.
        let helper = var(&lines, "Helper", "position")[1..].to_vec();
        let boss = var(&lines, "Boss", "position")[1..].to_vec();
        assert!(helper.len() > 50 && boss.len() > 50);
        let start = point(helper[0].1);
        assert!(dist(start, (25.0 * FT, 45.0 * FT)) < 1e-9);
        // Never faster than 2 ft/s: 0.2 ft a tick.
        for w in helper.windows(2) {
            let step = dist(point(w[0].1), point(w[1].1));
            assert!(step <= 0.2 * FT + 1e-9, "a step of {step} m");
        }
        for w in boss.windows(2) {
            let step = dist(point(w[0].1), point(w[1].1));
            assert!(step <= 0.1 * FT + 1e-9, "a step of {step} m");
        }
        // The helper ends up near the walker: within a body and a bit.
        let (h, b) = (
            point(helper.last().unwrap().1),
            point(boss.last().unwrap().1),
        );
        assert!(dist(h, b) < 4.0 * FT, "helper {h:?} boss {b:?}");
        // RandomWalk never finishes: the boss's root keeps running.
        let walk_done = lines.iter().any(|l| {
            l["ev"] == "node"
                && l["agent"] == "Boss"
                && l["path"].as_str().unwrap().starts_with("RandomWalk")
                && (l["to"] == "SUCCESS" || l["to"] == "FAILURE")
        });
        assert!(!walk_done);
        // Everybody stays in the hall.
        for (_, p) in boss.iter().chain(&helper) {
            let (x, y) = point(p);
            assert!((0.0..=50.0 * FT).contains(&x) && (0.0..=50.0 * FT).contains(&y));
        }
        // The distance sensor follows the helper.
        let gaps = var(&lines, "Boss", "gap");
        assert!(gaps.last().unwrap().1.as_f64().unwrap() < 4.0 * FT);
    }

    #[test]
    fn the_same_seed_gives_the_same_trace_and_another_seed_another() {
        let (a, _) = trace_of(HALL, &config(200));
        let (b, _) = trace_of(HALL, &config(200));
        assert_eq!(a, b);
        let (c, _) = trace_of(
            HALL,
            &RunConfig {
                seed: 2,
                ..config(200)
            },
        );
        assert_ne!(a, c, "the random walk follows the seed");
    }

    #[test]
    fn a_command_line_variable_can_be_set_on_one_agent_only() {
        let analysis = affect_compiler::check_source_with(HALL, &NoFiles);
        let program = analysis.program.unwrap();
        let run_with = |bb: &[(&str, &str)]| {
            let cfg = RunConfig {
                bb: bb
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                // No tick: the values as set, before Boss sends its command.
                ..config(0)
            };
            run(&program, &cfg, &mut crate::trace::NoTrace, |_| {})
        };
        let value = |out: &[crate::run::AgentSummary], agent: &str, var: &str| {
            let a = out.iter().find(|s| s.agent == agent).unwrap();
            a.variables
                .iter()
                .find(|(n, _)| n == var)
                .unwrap()
                .1
                .clone()
        };
        // Plain: every agent with the key (Helper and its clone Twin).
        let out = run_with(&[("target", "x")]);
        assert!(out.is_err(), "a point cannot be set from the command line");
        let out = run_with(&[("command", "Hurry")]).unwrap();
        assert_eq!(value(&out, "Helper", "command"), "Hurry");
        assert_eq!(value(&out, "Twin", "command"), "Hurry");
        // Scoped: that agent only, by program or instance name.
        let out = run_with(&[("Twin.command", "GoHome")]).unwrap();
        assert_eq!(value(&out, "Helper", "command"), "Idle");
        assert_eq!(value(&out, "Twin", "command"), "GoHome");
        // A scoped key the agent does not have is an error, with a suggestion.
        let err = run_with(&[("Twin.comand", "GoHome")]).unwrap_err();
        assert_eq!(err[0].code, "E0602");
        // A dotted key that names no agent is a key like any other.
        assert!(run_with(&[("nobody.x", "1")]).is_ok());
    }

    #[test]
    fn a_variable_set_on_the_command_line_redirects_commands_and_the_distance_sensor() {
        let cfg = RunConfig {
            bb: vec![("helper".into(), "Twin".into())],
            ..config(100)
        };
        let (_, lines) = trace_of(HALL, &cfg);
        let msg = lines.iter().find(|l| l["ev"] == "msg").unwrap();
        assert_eq!(msg["to"], "Twin");
        assert_eq!(var(&lines, "Twin", "command")[1].1, "Refill");
        assert_eq!(var(&lines, "Helper", "command").len(), 1);
        let gap = var(&lines, "Boss", "gap")[1].1.as_f64().unwrap();
        assert!(
            (gap - dist((25.0, 25.0), (5.0, 45.0)) * FT).abs() < 1e-6,
            "{gap}"
        );
    }

    #[test]
    fn addressing_nobody_fails_and_a_bad_goal_or_speed_fails() {
        let src = r#"
enum Command { Idle, Go }
action SendCommand(in robot: str, in command: Command);
action GoTo(in goal: Point, in speed: num);
action Locate(in robot: str, out position: Point);
condition Near(in robot: str, in range: length);
action RandomWalk(in speed: num);

agent A {
    rate 10Hz;
    var empty: Point = (1m, 1m);
    var corner: Point = (1m, 1m);
    var n: int = 0;

    main {
        sequence {
            invert { SendCommand(robot: "Nobody", command: Command::Go) }
            invert { Locate(robot: "Nobody", position: empty) }
            invert { Near(robot: "Nobody", range: 100m) }
            invert { GoTo(goal: corner, speed: -1) }
            invert { RandomWalk(speed: -1) }
            do { n = n + 1 }
        }
    }
}

world W {
    area 10m x 10m;
    spawn A at (5m, 5m);
    ticks 3;
}
"#;
        let (_, lines) = trace_of(src, &config(3));
        let n = var(&lines, "A", "n");
        assert_eq!(
            n.last().unwrap().1,
            3,
            "every tick: five failures: {lines:#?}"
        );
    }

    #[test]
    fn go_to_arrives_within_a_foot_and_a_blocked_goal_keeps_it_running() {
        let src = r#"
action GoTo(in goal: Point, in speed: num);
action Stop();

agent A {
    rate 10Hz;
    var arrived: int = 0;
    var left: Point = (2m, 5m);
    var wall: Point = (8m, 5m);
    sensor position: Point = odometry();

    main {
        sequence {
            GoTo(goal: left, speed: 1)
            do { arrived = arrived + 1 }
            GoTo(goal: wall, speed: 1)
            Stop()
        }
    }
}

world W {
    area 10m x 10m;
    obstacle wall at (8m, 5m) size 1m;
    spawn A at (5m, 5m);
    ticks 200;
}
"#;
        let (_, lines) = trace_of(src, &config(200));
        let arrived = var(&lines, "A", "arrived");
        assert_eq!(arrived.len(), 2, "arrives once: {arrived:?}");
        // 3 m at 1 m/s, within 0.3 m: 27 ticks or so.
        let t = arrived[1].0;
        assert!((2600.0..=2800.0).contains(&t), "arrived at {t} ms");
        let pos = var(&lines, "A", "position");
        let last = point(pos.last().unwrap().1);
        // The wall's edge is at 7.5 m, the body half a metre wide: stuck at 7.25 m at most.
        assert!(last.0 <= 7.25 + 1e-9 && last.0 > 7.0, "{last:?}");
        let still_running = lines
            .iter()
            .filter(|l| l["ev"] == "node" && l["path"].as_str().unwrap().starts_with("GoTo"))
            .filter(|l| l["to"] == "SUCCESS")
            .count();
        assert_eq!(still_running, 1, "the blocked GoTo never succeeds");
    }

    #[test]
    fn leaves_with_ports_that_do_not_fit_run_as_stand_ins() {
        let src = r#"
action GoTo(in goal: num);
action Say(in words: str);

agent A {
    rate 10Hz;

    main { sequence { GoTo(goal: 1) Say(words: "x") } }
}

world W {
    area 10m x 10m;
    spawn A at (5m, 5m);
    ticks 2;
}
"#;
        let analysis = affect_compiler::check_source_with(src, &NoFiles);
        let program = analysis.program.unwrap();
        let mut sink = crate::trace::NoTrace;
        let out = run(&program, &config(2), &mut sink, |_| {}).unwrap();
        assert_eq!(
            out[0].stand_ins,
            vec!["GoTo".to_string(), "Say".to_string()]
        );
    }
}
