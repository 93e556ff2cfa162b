//! Simulator implementations of the minefield leaves of seed 002's scenario
//! (`examples/recruitment.affect`): a UAV raster-scans the field and flags possible mines, UGVs
//! scan their halves and investigate where they are recruited to. Bound by name in an area
//! world; `GoTo` is [`super::area_leaves`]'.
//!
//! | leaf | does | statuses |
//! |---|---|---|
//! | `TakeOff(in altitude)` | the robot flies: it neither blocks nor is blocked | SUCCESS |
//! | `RasterStep(in x_from, in x_to, in speed, in reverse, out done)` | one tick of a boustrophedon scan of the columns `x_from..x_to`: lanes 10 world units apart along x, from the bottom (from the top when `reverse`), `speed` world units a second; `done` turns true when the last lane is finished, and the next call starts a new pass | SUCCESS each tick (it steers around robots in the way, as `GoTo` does, and waits when there is no way round); FAILURE for bad inputs |
//! | `PossibleMine(out site: Point)` | the camera sees a mine within 6 world units that it has not reported before | SUCCESS with the mine's place, else FAILURE |
//! | `Investigate(in site: Point, out mine: bool)` | sweeps the detector over `site` for 10 s; `mine` when a mine lies within 2 world units of it | RUNNING, then SUCCESS; FAILURE when the robot is more than 2 units from `site` |

use super::env::LeafEnv;
use crate::devices::sim::SharedWorld;
use crate::leaf::{Leaf, LeafCall};
use crate::world::{point_from, AgentId, LandmarkKind, MoveOutcome, Point, World};
use affect_compiler::ir::program::{LeafInfo, Status};

/// Distance between scan lanes, in world units.
const LANE_UNITS: f64 = 10.0;
/// How far the UAV's camera sees a possible mine, in world units.
const CAMERA_UNITS: f64 = 6.0;
/// How close to a site the detector must be, and a mine to it, in world units.
const SWEEP_UNITS: f64 = 2.0;
/// How long one investigation takes.
const INVESTIGATE_MS: f64 = 10_000.0;

/// Binds a minefield leaf when the robot is in an area world and the ports fit.
pub fn bind(info: &LeafInfo, env: &LeafEnv) -> Option<Box<dyn Leaf>> {
    if env.is_grid {
        return None;
    }
    let port = |name: &str| info.ports.iter().position(|p| p.name == name);
    let at = At {
        world: env.world.clone(),
        agent: env.agent,
    };
    match info.name.as_str() {
        "TakeOff" => Some(Box::new(TakeOff { at })),
        "RasterStep" => Some(Box::new(RasterStep {
            at,
            period_ms: env.period_ms,
            x_from: port("x_from")?,
            x_to: port("x_to")?,
            speed: port("speed")?,
            reverse: port("reverse"),
            done: port("done"),
            pass: None,
        })),
        "PossibleMine" => Some(Box::new(PossibleMine {
            at,
            site: port("site")?,
            reported: Vec::new(),
            site_list: None,
        })),
        "Investigate" => Some(Box::new(Investigate {
            at,
            site: port("site")?,
            mine: port("mine"),
            until_ms: f64::NAN,
        })),
        _ => None,
    }
}

/// A robot in its world.
struct At {
    world: SharedWorld,
    agent: AgentId,
}

impl At {
    /// Metres in one world unit.
    fn unit_m(w: &World) -> f64 {
        let u = w.spec().unit_m;
        if u > 0.0 && u.is_finite() {
            u
        } else {
            1.0
        }
    }
}

struct TakeOff {
    at: At,
}

impl Leaf for TakeOff {
    fn tick(&mut self, _: &mut LeafCall) -> Status {
        match self.at.world.try_borrow_mut() {
            Ok(mut w) => {
                w.set_airborne(self.at.agent, true);
                Status::Success
            }
            Err(_) => Status::Failure,
        }
    }
}

/// One pass of a scan: its direction and the next waypoint.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Pass {
    reverse: bool,
    next: usize,
    finished: bool,
}

struct RasterStep {
    at: At,
    period_ms: f64,
    x_from: usize,
    x_to: usize,
    speed: usize,
    reverse: Option<usize>,
    done: Option<usize>,
    pass: Option<Pass>,
}

/// The waypoints of a pass over columns `x0..x1` (metres) of a field `height` metres high:
/// along each lane, then over to the next one.
fn waypoint(x0: f64, x1: f64, lane_m: f64, lanes: usize, reverse: bool, i: usize) -> Point {
    let k = i / 2;
    let lane = if reverse { lanes - 1 - k } else { k };
    let y = (lane as f64 + 0.5) * lane_m;
    // Even lanes (of the pass) go from x0 to x1, odd ones back.
    let (first, second) = if k.is_multiple_of(2) {
        (x0, x1)
    } else {
        (x1, x0)
    };
    Point::new(if i.is_multiple_of(2) { first } else { second }, y)
}

impl Leaf for RasterStep {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        let (x_from, x_to, speed) = (
            call.inputs[self.x_from],
            call.inputs[self.x_to],
            call.inputs[self.speed],
        );
        if !(x_from.is_finite() && x_to.is_finite() && speed.is_finite() && speed >= 0.0) {
            return Status::Failure;
        }
        let reverse = self.reverse.is_some_and(|i| call.inputs[i] != 0.0);
        let Ok(mut w) = self.at.world.try_borrow_mut() else {
            return Status::Failure;
        };
        let unit_m = At::unit_m(&w);
        let Some(height) = w.spec().area().map(|a| a.height_m) else {
            return Status::Failure;
        };
        let lane_m = LANE_UNITS * unit_m;
        let lanes = ((height / lane_m).ceil() as usize).max(1);
        let points = lanes * 2;
        // A call after a finished pass starts the next one, the way `reverse` says.
        let mut pass = match self.pass {
            Some(p) if !p.finished => p,
            _ => Pass {
                reverse,
                next: 0,
                finished: false,
            },
        };
        let (x0, x1) = (x_from * unit_m, x_to * unit_m);
        let target = waypoint(x0, x1, lane_m, lanes, pass.reverse, pass.next);
        let step_m = speed * unit_m * self.period_ms / 1000.0;
        // Around robots in the way; with no way round, wait for one to open. A waypoint
        // another body stands on counts as reached from beside it.
        let arrived = match w.steer_toward(self.at.agent, target, step_m, true) {
            Ok(MoveOutcome::Arrived) => true,
            _ => w.reached(self.at.agent, target, 0.0) == Some(true),
        };
        if arrived {
            pass.next += 1;
            pass.finished = pass.next >= points;
        }
        drop(w);
        self.pass = Some(pass);
        if let Some(d) = self.done {
            call.outputs[d] = Some(f64::from(u8::from(pass.finished)));
        }
        Status::Success
    }
}

struct PossibleMine {
    at: At,
    site: usize,
    /// Mines already reported, by landmark name.
    reported: Vec<String>,
    site_list: Option<f64>,
}

impl Leaf for PossibleMine {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        let Ok(w) = self.at.world.try_borrow() else {
            return Status::Failure;
        };
        let Some(here) = w.position(self.at.agent) else {
            return Status::Failure;
        };
        let reach = CAMERA_UNITS * At::unit_m(&w);
        let seen = w.landmarks().iter().find(|l| {
            l.kind == LandmarkKind::Mine
                && l.position.distance(here) <= reach
                && !self.reported.contains(&l.name)
        });
        let Some(mine) = seen else {
            return Status::Failure;
        };
        self.reported.push(mine.name.clone());
        let p = mine.position;
        drop(w);
        let list = *self.site_list.get_or_insert_with(|| call.lists.alloc(&[]));
        call.lists.set(list, &[p.x, p.y]);
        call.outputs[self.site] = Some(list);
        Status::Success
    }
}

struct Investigate {
    at: At,
    site: usize,
    mine: Option<usize>,
    /// When the sweep ends.
    until_ms: f64,
}

impl Leaf for Investigate {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        let Some(site) = point_from(call.lists.values(call.inputs[self.site])) else {
            return Status::Failure;
        };
        let Ok(w) = self.at.world.try_borrow() else {
            return Status::Failure;
        };
        let reach = SWEEP_UNITS * At::unit_m(&w);
        if w.position(self.at.agent)
            .is_none_or(|p| p.distance(site) > reach)
        {
            return Status::Failure;
        }
        if call.starting {
            self.until_ms = call.now_ms + INVESTIGATE_MS;
        }
        if call.now_ms < self.until_ms {
            return Status::Running;
        }
        let found = w
            .landmarks()
            .iter()
            .any(|l| l.kind == LandmarkKind::Mine && l.position.distance(site) <= reach);
        if let Some(m) = self.mine {
            call.outputs[m] = Some(f64::from(u8::from(found)));
        }
        Status::Success
    }
}
