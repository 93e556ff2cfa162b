//! Simulator implementations of the leaves the CARS waiter and refiller declare (seed 000,
//! `examples/waiter.affect`): commands between robots, where a robot is, walking and driving
//! in an area, speaking. A leaf binds when its name and its ports fit, else it runs as a
//! stand-in. Commands go through the run's post office, [`super::mail`].
//!
//! | leaf | world | does | statuses |
//! |---|---|---|---|
//! | `SendCommand(in robot: str, in command: E)` | any | queues `command` for the running robot of that name (CARS's `setRobotCommand`); before that robot's next tick the run loop sets its root variable `command` (an enum with a variant of the same name) and the trace gets a `msg` (`from`, `to`, `kind` = the variant) | SUCCESS; FAILURE when no running robot has that name or its `command` has no such variant |
//! | `Locate(in robot: str, out position: Point)` | any | writes where that robot is now (`getRobotLocation`) | SUCCESS; FAILURE when no robot has that name |
//! | `Near(in robot: str, in range: length)` | any | is that robot's centre within `range` of this one's? | SUCCESS or FAILURE (also for a name no robot has) |
//! | `Say(in text: str)` | any | the sentence as an `info` `log` line of the trace | SUCCESS |
//! | `RandomWalk(in speed: num)` | area | wanders at `speed`: walks straight for 2–10 s (uniform) in a random direction, then picks a new one; a blocked step is not made and the robot turns to a new direction instead. Directions and times come from the agent's own random stream (`random_walk:NAME` of the run's seed) | RUNNING, never finishing; FAILURE for a negative or non-finite speed |
//! | `GoTo(in goal: Point, in speed: num)` | area | drives toward `goal` at `speed`, steering around robots and obstacles in the way ([`World::steer_toward`]: the straight step, else one turned 30° or 60°, else one sliding along the face of the body in the way, right before left); a guest in the way is waited for, so a crowd can hold it up as in CARS, but after 5 s without a way (`PATIENCE_MS`) it is gone round too | SUCCESS within a foot (0.3048 m) of `goal`, or beside the robot or obstacle that stands on it ([`World::reached`]); RUNNING while on the way (and while blocked); FAILURE for a goal that is not a point or a negative or non-finite speed |
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

use super::env::LeafEnv;
use super::mail::SharedMail;
use crate::devices::sim::SharedWorld;
use crate::leaf::{Leaf, LeafCall};
use crate::rng::Rng;
use crate::world::{point_from, AgentId, Blocked, Point, World};
use affect_compiler::ir::program::PortDir;
use affect_compiler::ir::program::{EnumInfo, LeafInfo, Status, ValueKind};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// One foot in metres: how close `GoTo` must come to its goal.
pub const ARRIVED_M: f64 = 0.3048;

/// How long `GoTo` waits for a guest in its way before it goes round: a moment, as a person
/// would before stepping round someone who does not move.
pub const PATIENCE_MS: f64 = 5000.0;

/// Shortest and longest straight leg of a random walk, in milliseconds.
const LEG_MS: (f64, f64) = (2000.0, 10000.0);

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
        period_ms: f64,
        strings: Rc<Vec<String>>,
        mail: SharedMail,
        seed: u64,
    ) -> AreaAgent {
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
pub fn bind(info: &LeafInfo, env: &LeafEnv, area: &Rc<AreaAgent>) -> Option<Box<dyn Leaf>> {
    let is_grid = env.is_grid;
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
    let area = area.clone();
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
            held_since: None,
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
                mail.say(v as u32);
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

/// `GoTo(goal, speed)`.
struct GoTo {
    world: SharedWorld,
    agent: AgentId,
    area: Rc<AreaAgent>,
    goal: usize,
    speed: usize,
    /// Since when a guest has stood in the way.
    held_since: Option<f64>,
}

impl Leaf for GoTo {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        let Some(goal) = point_from(call.lists.values(call.inputs[self.goal])) else {
            return Status::Failure;
        };
        let Ok(mut w) = self.world.try_borrow_mut() else {
            return Status::Failure;
        };
        let Some(speed) = speed_mps(&w, call.inputs[self.speed]) else {
            return Status::Failure;
        };
        match w.reached(self.agent, goal, ARRIVED_M) {
            None => return Status::Failure,
            Some(true) => return Status::Success,
            Some(false) => {}
        }
        if self.area.claim_move(call.now_ms) {
            // Around what is in the way; with no way round the robot waits for one to open.
            // A guest in the way is waited for, PATIENCE_MS at most; then gone round.
            let patient = self
                .held_since
                .is_none_or(|t| call.now_ms - t < PATIENCE_MS);
            let step = speed * self.area.period_ms / 1000.0;
            match w.steer_toward(self.agent, goal, step, !patient) {
                Err(Blocked::Guest(_)) => {
                    self.held_since.get_or_insert(call.now_ms);
                }
                _ => self.held_since = None,
            }
        }
        if w.reached(self.agent, goal, ARRIVED_M) == Some(true) {
            Status::Success
        } else {
            Status::Running
        }
    }
}

#[cfg(test)]
#[path = "area_leaves_tests.rs"]
mod tests;
