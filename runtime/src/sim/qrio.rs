//! Simulator implementations of what QRIO declares (seed 004, `examples/soccer.affect`): a
//! head that pans and a camera that sees what lies in front of it, legs that walk and kick,
//! a microphone array that hears where a voice comes from, and a battery that runs down and
//! charges on the charging station. All of it reads and moves the world of an `area`: the
//! `place ball`, the `place charger` and the `person`s.
//!
//! The camera looks along the robot's heading turned by the head's pan; it sees what lies
//! within [`FOV`] of that direction and within [`CAMERA_RANGE_M`]. People are numbered in
//! the order the world writes them (a face index, the key into long-term memory). Angles the
//! program reads and gives are degrees (the program's unit), counter-clockwise; lengths are
//! metres.
//!
//! | leaf | does | statuses |
//! |---|---|---|
//! | `SeeBall(out ball: Point)` | looks for the ball | SUCCESS with its position when the camera sees it, else FAILURE |
//! | `SeeFace(out user: int, out face: Point)` | looks for a face | SUCCESS with the nearest person in view (index, position), else FAILURE |
//! | `FaceInView(in user: int)` | is that person in view? | SUCCESS or FAILURE |
//! | `TurnHead(in pan: angle)` | turns the head to a pan angle (limited to ±90°) at [`HEAD_SPEED`] | RUNNING while turning, SUCCESS there |
//! | `Turn(in angle: angle)` | turns the body in place by the angle (counter-clockwise) at [`TURN_SPEED`] | RUNNING while turning, SUCCESS when turned |
//! | `WalkTo(in target: Point, in reach: length)` | walks toward the point at [`WALK_SPEED`], facing it, head straight | SUCCESS within `reach`; RUNNING on the way; FAILURE when blocked or the target is not a point |
//! | `KickAt(in target: Point)` | kicks the ball lying at `target` ([`KICK_REACH_M`] from the robot at most): after [`KICK_MS`] the ball flies [`KICK_DISTANCE_M`] along the robot's heading, stopping short of the walls | RUNNING while kicking, then SUCCESS; FAILURE when the ball is not there |
//! | `TrackFace(in user: int)` | keeps that person's face centred, turning the head | RUNNING while the face is in view, FAILURE when it is lost |
//! | `Gesture(in name: str)` | an idle gesture | RUNNING for [`GESTURE_MS`], then SUCCESS |
//!
//! (`Say` is [`super::area_leaves`]'s: the sentence goes to the trace.)
//!
//! | sensor driver | reads |
//! |---|---|
//! | `ball_detector()` | whether the camera sees the ball |
//! | `ball_range()` | the distance to the ball in metres while it is seen, [`UNSEEN_M`] when not |
//! | `face_detector()` | whether the camera sees a face |
//! | `face_range()` | the distance to the nearest face in view in metres, [`UNSEEN_M`] when none |
//! | `face_familiarity()` | the `familiarity` of the nearest person in view, 0 when none |
//! | `voice_direction()` | the pan angle toward the nearest person (whoever calls is heard from there) |
//! | `battery_level()` | the charge, 0..100: it starts at the spawn's value of the sensor (`spawn QRIO .. battery 60`), runs down by [`DRAIN_PER_S`] and charges by [`CHARGE_PER_S`] within [`CHARGER_REACH_M`] of the `charger` |

use super::env::LeafEnv;
use crate::devices::sim::SharedWorld;
use crate::devices::{DeviceError, Reading, Sensor};
use crate::leaf::{Leaf, LeafCall};
use crate::world::{point_from, AgentId, LandmarkKind, Point, World};
use affect_compiler::ir::program::PortDir;
use affect_compiler::ir::program::{LeafInfo, Status, ValueKind};
use std::cell::Cell;
use std::f64::consts::PI;
use std::rc::Rc;

/// Half the camera's field of view (30°).
pub const FOV: f64 = PI / 6.0;
/// How far the camera recognises the ball and faces: across a living room.
pub const CAMERA_RANGE_M: f64 = 6.5;
/// What `ball_range` and `face_range` read when nothing is seen.
pub const UNSEEN_M: f64 = 99.0;
/// The head pans this far either way (90°).
pub const HEAD_LIMIT: f64 = PI / 2.0;
/// Head turning speed: 180° per second.
pub const HEAD_SPEED: f64 = PI;
/// Turning in place: 90° per second.
pub const TURN_SPEED: f64 = PI / 2.0;
/// Walking speed, metres per second.
pub const WALK_SPEED: f64 = 0.25;
/// The ball must lie this close to kick it.
pub const KICK_REACH_M: f64 = 0.35;
/// A kick takes this long.
pub const KICK_MS: f64 = 600.0;
/// How far a kick sends the ball.
pub const KICK_DISTANCE_M: f64 = 1.5;
/// An idle gesture takes this long.
pub const GESTURE_MS: f64 = 2000.0;
/// Battery drain while awake, % per second (a real QRIO runs about an hour; the living room
/// runs it down about forty times faster, so a run shows hunger).
pub const DRAIN_PER_S: f64 = 0.5;
/// Charging on the station, % per second.
pub const CHARGE_PER_S: f64 = 2.0;
/// The robot charges within this distance of the `charger`.
pub const CHARGER_REACH_M: f64 = 0.5;

/// The robot's body state its leaves and sensors share.
#[derive(Debug, Default)]
pub struct Body {
    /// The head's pan in radians, counter-clockwise from the heading.
    pub head_pan: Cell<f64>,
}

/// `a - b` wrapped into -π..π.
fn angle_diff(a: f64, b: f64) -> f64 {
    let mut d = (a - b) % (2.0 * PI);
    if d > PI {
        d -= 2.0 * PI;
    } else if d < -PI {
        d += 2.0 * PI;
    }
    d
}

fn heading_angle(w: &World, id: AgentId) -> Option<f64> {
    let a = w.agent(id)?;
    Some(libm::atan2(a.heading.1, a.heading.0))
}

/// Whether the camera of `id` sees the point `p`.
fn in_view(w: &World, id: AgentId, body: &Body, p: Point) -> bool {
    let (Some(here), Some(h)) = (w.position(id), heading_angle(w, id)) else {
        return false;
    };
    let d = here.distance(p);
    if d > CAMERA_RANGE_M {
        return false;
    }
    // What lies at the robot's feet is seen whichever way the head turns.
    if d < 0.05 {
        return true;
    }
    let bearing = libm::atan2(p.y - here.y, p.x - here.x);
    angle_diff(bearing, h + body.head_pan.get()).abs() <= FOV
}

fn ball(w: &World) -> Option<Point> {
    w.landmark("ball")
        .filter(|l| l.kind == LandmarkKind::Place)
        .map(|l| l.position)
}

/// The people of the world in written order: (face index, position, familiarity).
fn people(w: &World) -> impl Iterator<Item = (usize, Point, f64)> + '_ {
    w.landmarks()
        .iter()
        .filter(|l| l.kind == LandmarkKind::Person)
        .enumerate()
        .map(|(i, l)| (i, l.position, l.familiarity.unwrap_or(0.0)))
}

/// The nearest person the camera sees: (index, position, familiarity, distance).
fn face_in_view(w: &World, id: AgentId, body: &Body) -> Option<(usize, Point, f64, f64)> {
    let here = w.position(id)?;
    let mut best: Option<(usize, Point, f64, f64)> = None;
    for (i, p, fam) in people(w) {
        if !in_view(w, id, body, p) {
            continue;
        }
        let d = here.distance(p);
        if best.is_none_or(|(_, _, _, bd)| d < bd) {
            best = Some((i, p, fam, d));
        }
    }
    best
}

fn person(w: &World, index: f64) -> Option<Point> {
    if index.is_nan() || index < 0.0 {
        return None;
    }
    people(w)
        .find(|(i, _, _)| *i == index as usize)
        .map(|(_, p, _)| p)
}

fn point(call: &LeafCall, port: usize) -> Option<Point> {
    point_from(call.lists.values(call.inputs[port]))
}

/// Writes a point to an output port, through a list the leaf keeps.
fn write_point(call: &mut LeafCall, port: usize, list: &mut Option<f64>, p: Point) {
    let id = *list.get_or_insert_with(|| call.lists.alloc(&[]));
    call.lists.set(id, &[p.x, p.y]);
    call.outputs[port] = Some(id);
}

/// Binds a declared leaf to its QRIO implementation when its name and ports fit (in an
/// area only).
pub fn bind(info: &LeafInfo, env: &LeafEnv, body: &Rc<Body>) -> Option<Box<dyn Leaf>> {
    if env.is_grid {
        return None;
    }
    let port = |name: &str, fits: fn(Option<ValueKind>, PortDir) -> bool| {
        info.ports
            .iter()
            .position(|p| p.name == name && fits(p.kind, p.dir))
    };
    let point_in =
        |k: Option<ValueKind>, d: PortDir| k == Some(ValueKind::List) && d != PortDir::Out;
    let point_out =
        |k: Option<ValueKind>, d: PortDir| k == Some(ValueKind::List) && d != PortDir::In;
    let index_in = |k: Option<ValueKind>, d: PortDir| {
        matches!(k, Some(ValueKind::Int | ValueKind::Num)) && d != PortDir::Out
    };
    let index_out = |k: Option<ValueKind>, d: PortDir| {
        matches!(k, Some(ValueKind::Int | ValueKind::Num)) && d != PortDir::In
    };
    let number = |k: Option<ValueKind>, d: PortDir| {
        matches!(
            k,
            Some(ValueKind::Num | ValueKind::Angle | ValueKind::Length)
        ) && d != PortDir::Out
    };
    let text = |k: Option<ValueKind>, d: PortDir| k == Some(ValueKind::Str) && d != PortDir::Out;
    let world = env.world.clone();
    let agent = env.agent;
    let body = body.clone();
    // Movements last one tick each.
    let period_s = env.period_ms / 1000.0;
    let leaf: Box<dyn Leaf> = match info.name.as_str() {
        "SeeBall" => Box::new(SeeBall {
            world,
            agent,
            body,
            ball: port("ball", point_out)?,
            list: None,
        }),
        "SeeFace" => Box::new(SeeFace {
            world,
            agent,
            body,
            user: port("user", index_out)?,
            face: port("face", point_out)?,
            list: None,
        }),
        "FaceInView" => Box::new(FaceInView {
            world,
            agent,
            body,
            user: port("user", index_in)?,
        }),
        "TurnHead" => Box::new(TurnHead {
            body,
            pan: port("pan", number)?,
            target: 0.0,
            period_s,
        }),
        "Turn" => Box::new(Turn {
            world,
            agent,
            angle: port("angle", number)?,
            left: 0.0,
            period_s,
        }),
        "WalkTo" => Box::new(WalkTo {
            world,
            agent,
            body,
            target: port("target", point_in)?,
            reach: port("reach", number),
            period_s,
        }),
        "KickAt" => Box::new(KickAt {
            world,
            agent,
            target: port("target", point_in)?,
            until_ms: 0.0,
        }),
        "TrackFace" => Box::new(TrackFace {
            world,
            agent,
            body,
            user: port("user", index_in)?,
        }),
        "Gesture" => {
            port("name", text)?;
            Box::new(Gesture { until_ms: 0.0 })
        }
        _ => return None,
    };
    Some(leaf)
}

fn status(ok: bool) -> Status {
    if ok {
        Status::Success
    } else {
        Status::Failure
    }
}

struct SeeBall {
    world: SharedWorld,
    agent: AgentId,
    body: Rc<Body>,
    ball: usize,
    list: Option<f64>,
}

impl Leaf for SeeBall {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        let seen = match self.world.try_borrow() {
            Ok(w) => ball(&w).filter(|&b| in_view(&w, self.agent, &self.body, b)),
            Err(_) => None,
        };
        match seen {
            Some(b) => {
                write_point(call, self.ball, &mut self.list, b);
                Status::Success
            }
            None => Status::Failure,
        }
    }
}

struct SeeFace {
    world: SharedWorld,
    agent: AgentId,
    body: Rc<Body>,
    user: usize,
    face: usize,
    list: Option<f64>,
}

impl Leaf for SeeFace {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        let seen = match self.world.try_borrow() {
            Ok(w) => face_in_view(&w, self.agent, &self.body),
            Err(_) => None,
        };
        match seen {
            Some((i, p, _, _)) => {
                call.outputs[self.user] = Some(i as f64);
                write_point(call, self.face, &mut self.list, p);
                Status::Success
            }
            None => Status::Failure,
        }
    }
}

struct FaceInView {
    world: SharedWorld,
    agent: AgentId,
    body: Rc<Body>,
    user: usize,
}

impl Leaf for FaceInView {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        let Ok(w) = self.world.try_borrow() else {
            return Status::Failure;
        };
        status(
            person(&w, call.inputs[self.user])
                .is_some_and(|p| in_view(&w, self.agent, &self.body, p)),
        )
    }
}

struct TurnHead {
    body: Rc<Body>,
    pan: usize,
    target: f64,
    period_s: f64,
}

impl Leaf for TurnHead {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        if call.starting {
            // The program counts angles in degrees.
            let pan = call.inputs[self.pan].to_radians();
            if !pan.is_finite() {
                return Status::Failure;
            }
            self.target = pan.clamp(-HEAD_LIMIT, HEAD_LIMIT);
        }
        let now = self.body.head_pan.get();
        let step = HEAD_SPEED * self.period_s;
        let next = if (self.target - now).abs() <= step {
            self.target
        } else {
            now + step * (self.target - now).signum()
        };
        self.body.head_pan.set(next);
        if next == self.target {
            Status::Success
        } else {
            Status::Running
        }
    }
}

struct Turn {
    world: SharedWorld,
    agent: AgentId,
    angle: usize,
    /// What is left to turn, in radians (signed).
    left: f64,
    period_s: f64,
}

impl Leaf for Turn {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        if call.starting {
            let a = call.inputs[self.angle].to_radians();
            if !a.is_finite() {
                return Status::Failure;
            }
            self.left = a;
        }
        let Ok(mut w) = self.world.try_borrow_mut() else {
            return Status::Failure;
        };
        let Some(h) = heading_angle(&w, self.agent) else {
            return Status::Failure;
        };
        let step = (TURN_SPEED * self.period_s).min(self.left.abs()) * self.left.signum();
        if step != 0.0 {
            let to = h + step;
            w.set_heading(self.agent, (libm::cos(to), libm::sin(to)));
            self.left -= step;
        }
        if self.left.abs() < 1e-9 {
            Status::Success
        } else {
            Status::Running
        }
    }
}

struct WalkTo {
    world: SharedWorld,
    agent: AgentId,
    body: Rc<Body>,
    target: usize,
    reach: Option<usize>,
    period_s: f64,
}

impl Leaf for WalkTo {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        let Some(goal) = point(call, self.target) else {
            return Status::Failure;
        };
        let reach = self
            .reach
            .map(|r| call.inputs[r])
            .filter(|r| r.is_finite() && *r >= 0.0)
            .unwrap_or(0.15);
        let Ok(mut w) = self.world.try_borrow_mut() else {
            return Status::Failure;
        };
        let Some(here) = w.position(self.agent) else {
            return Status::Failure;
        };
        let d = here.distance(goal);
        if d <= reach {
            return Status::Success;
        }
        // Looking where it walks: the step turns the body toward the goal.
        self.body.head_pan.set(0.0);
        let step = (WALK_SPEED * self.period_s).min(d);
        if step > 0.0 {
            let f = step / d;
            let to = Point::new(
                here.x + (goal.x - here.x) * f,
                here.y + (goal.y - here.y) * f,
            );
            if w.try_move_to(self.agent, to).is_err() {
                return Status::Failure;
            }
        }
        if d - step <= reach {
            Status::Success
        } else {
            Status::Running
        }
    }
}

struct KickAt {
    world: SharedWorld,
    agent: AgentId,
    target: usize,
    until_ms: f64,
}

impl Leaf for KickAt {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        let Some(target) = point(call, self.target) else {
            return Status::Failure;
        };
        let Ok(mut w) = self.world.try_borrow_mut() else {
            return Status::Failure;
        };
        let (Some(here), Some(b)) = (w.position(self.agent), ball(&w)) else {
            return Status::Failure;
        };
        // The ball must still be where the kick aims, and within the leg's reach.
        if b.distance(target) > KICK_REACH_M || here.distance(b) > KICK_REACH_M {
            return Status::Failure;
        }
        if call.starting {
            self.until_ms = call.now_ms + KICK_MS;
            return Status::Running;
        }
        if call.now_ms < self.until_ms {
            return Status::Running;
        }
        let Some(h) = heading_angle(&w, self.agent) else {
            return Status::Failure;
        };
        let (wd, ht) = w
            .spec()
            .area()
            .map_or((f64::INFINITY, f64::INFINITY), |a| (a.width_m, a.height_m));
        let margin = 0.2;
        let to = Point::new(
            (b.x + KICK_DISTANCE_M * libm::cos(h)).clamp(margin, (wd - margin).max(margin)),
            (b.y + KICK_DISTANCE_M * libm::sin(h)).clamp(margin, (ht - margin).max(margin)),
        );
        w.set_landmark_position("ball", to);
        Status::Success
    }
}

struct TrackFace {
    world: SharedWorld,
    agent: AgentId,
    body: Rc<Body>,
    user: usize,
}

impl Leaf for TrackFace {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        let Ok(w) = self.world.try_borrow() else {
            return Status::Failure;
        };
        let Some(p) = person(&w, call.inputs[self.user]) else {
            return Status::Failure;
        };
        if !in_view(&w, self.agent, &self.body, p) {
            return Status::Failure;
        }
        let (Some(here), Some(h)) = (w.position(self.agent), heading_angle(&w, self.agent)) else {
            return Status::Failure;
        };
        let bearing = libm::atan2(p.y - here.y, p.x - here.x);
        self.body
            .head_pan
            .set(angle_diff(bearing, h).clamp(-HEAD_LIMIT, HEAD_LIMIT));
        Status::Running
    }
}

struct Gesture {
    until_ms: f64,
}

impl Leaf for Gesture {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        if call.starting {
            self.until_ms = call.now_ms + GESTURE_MS;
        }
        if call.now_ms < self.until_ms {
            Status::Running
        } else {
            Status::Success
        }
    }
}

/// A QRIO sensor for a driver, if it is one of them. `initial` is the spawn's value for the
/// sensor (the battery's starting charge).
pub fn sensor(
    driver: &str,
    world: SharedWorld,
    agent: AgentId,
    body: Rc<Body>,
    initial: Option<f64>,
) -> Option<Box<dyn Sensor>> {
    let what = match driver {
        "ball_detector" => Sight::BallSeen,
        "ball_range" => Sight::BallRange,
        "face_detector" => Sight::FaceSeen,
        "face_range" => Sight::FaceRange,
        "face_familiarity" => Sight::Familiarity,
        "voice_direction" => Sight::Voice,
        "battery_level" => {
            return Some(Box::new(Battery {
                world,
                agent,
                level: initial.unwrap_or(100.0).clamp(0.0, 100.0),
                last_ms: None,
            }))
        }
        _ => return None,
    };
    Some(Box::new(Senses {
        world,
        agent,
        body,
        what,
    }))
}

#[derive(Clone, Copy, Debug)]
enum Sight {
    BallSeen,
    BallRange,
    FaceSeen,
    FaceRange,
    Familiarity,
    Voice,
}

struct Senses {
    world: SharedWorld,
    agent: AgentId,
    body: Rc<Body>,
    what: Sight,
}

impl Sensor for Senses {
    fn read(&mut self) -> Result<Reading, DeviceError> {
        let w = self.world.try_borrow().map_err(|_| DeviceError::Busy {
            device: "sim camera".into(),
        })?;
        let here = w
            .position(self.agent)
            .ok_or_else(|| DeviceError::unavailable("sim camera", "no such agent"))?;
        let seen_ball = ball(&w).filter(|&b| in_view(&w, self.agent, &self.body, b));
        Ok(match self.what {
            Sight::BallSeen => Reading::Bool(seen_ball.is_some()),
            Sight::BallRange => Reading::Num(seen_ball.map_or(UNSEEN_M, |b| here.distance(b))),
            Sight::FaceSeen => Reading::Bool(face_in_view(&w, self.agent, &self.body).is_some()),
            Sight::FaceRange => Reading::Num(
                face_in_view(&w, self.agent, &self.body).map_or(UNSEEN_M, |(_, _, _, d)| d),
            ),
            Sight::Familiarity => {
                Reading::Num(face_in_view(&w, self.agent, &self.body).map_or(0.0, |(_, _, f, _)| f))
            }
            Sight::Voice => {
                let h = heading_angle(&w, self.agent).unwrap_or(0.0);
                let nearest = people(&w).min_by(|a, b| {
                    here.distance(a.1)
                        .total_cmp(&here.distance(b.1))
                        .then(a.0.cmp(&b.0))
                });
                Reading::Num(nearest.map_or(0.0, |(_, p, _)| {
                    angle_diff(libm::atan2(p.y - here.y, p.x - here.x), h).to_degrees()
                }))
            }
        })
    }
}

/// The battery: integrated over world time at every read.
struct Battery {
    world: SharedWorld,
    agent: AgentId,
    level: f64,
    last_ms: Option<u64>,
}

impl Sensor for Battery {
    fn read(&mut self) -> Result<Reading, DeviceError> {
        let w = self.world.try_borrow().map_err(|_| DeviceError::Busy {
            device: "sim battery".into(),
        })?;
        let now = w.now_ms();
        let dt = self.last_ms.map_or(0, |l| now.saturating_sub(l)) as f64 / 1000.0;
        self.last_ms = Some(now);
        let docked = match (w.position(self.agent), w.landmark("charger")) {
            (Some(p), Some(c)) => p.distance(c.position) <= CHARGER_REACH_M,
            _ => false,
        };
        let rate = if docked { CHARGE_PER_S } else { -DRAIN_PER_S };
        self.level = (self.level + rate * dt).clamp(0.0, 100.0);
        Ok(Reading::Num(self.level))
    }
}
