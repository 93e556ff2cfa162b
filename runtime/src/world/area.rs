//! Continuous areas: agents and guests are squares of the area's body size that move
//! freely, and a move into an occupied spot is not made (CARS). The walls are the area's
//! edges: a body's centre stays inside the area.

use super::geometry::{distance_sq, square_hits_shape, squares_overlap, Direction, Point, Shape};
use super::{AgentId, World, WorldError, PLACEMENT_TRIES};
use crate::rng::Rng;
use affect_compiler::ir::world::{AreaSpec, GuestSpec, WorldKind};

/// Why a move was not made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Blocked {
    /// The edge of the grid or the wall of the area.
    Edge,
    /// A blank grid cell: not a place, nobody stands there.
    Blank,
    /// Another agent is there.
    Agent(AgentId),
    /// A guest is there (its index).
    Guest(usize),
    /// A fixed obstacle (its index in the area's obstacles).
    Obstacle(usize),
    /// A grid move asked of an area agent, or an area move of a grid agent.
    WrongWorld,
    /// No such agent.
    NoAgent,
}

/// What a move toward a target did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveOutcome {
    /// Moved, and stands on the target.
    Arrived,
    /// Moved part of the way.
    Moving,
}

/// A guest as the program's sensors may see it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GuestView {
    pub index: usize,
    pub position: Point,
    pub distance: f64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    Walking {
        dir: (f64, f64),
        speed: f64,
        left_s: f64,
    },
    Pausing {
        left_s: f64,
    },
}

#[derive(Clone, Debug, PartialEq)]
struct Guest {
    position: Point,
    phase: Phase,
}

#[derive(Debug, Default)]
pub(super) struct Guests {
    guests: Vec<Guest>,
    spec: Option<GuestSpec>,
    rng: Option<Rng>,
}

/// Who is moving, so that it does not block itself.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mover {
    Agent(AgentId),
    Guest(usize),
    Nobody,
}

impl Guests {
    /// Places the area's guests at random free spots, after the agents.
    pub(super) fn place(world: &World) -> Result<Guests, WorldError> {
        let Some((area, spec)) = world
            .spec
            .area()
            .and_then(|a| a.guests.clone().map(|g| (a, g)))
        else {
            return Ok(Guests::default());
        };
        let mut rng = Rng::named(world.spec.seed, "guests");
        let half = area.body_m / 2.0;
        let mut out = Guests {
            guests: Vec::with_capacity(spec.count as usize),
            spec: Some(spec.clone()),
            rng: None,
        };
        for i in 0..spec.count {
            let mut placed = None;
            for _ in 0..PLACEMENT_TRIES {
                let p = Point::new(
                    rng.uniform(half, area.width_m - half),
                    rng.uniform(half, area.height_m - half),
                );
                let free = world.spot_is_free(p, None)
                    && !out
                        .guests
                        .iter()
                        .any(|g| squares_overlap(g.position, p, area.body_m));
                if free {
                    placed = Some(p);
                    break;
                }
            }
            let position = placed.ok_or_else(|| WorldError::NoRoom(format!("guest {}", i + 1)))?;
            let phase = walk(&mut rng, &spec);
            out.guests.push(Guest { position, phase });
        }
        out.rng = Some(rng);
        Ok(out)
    }
}

/// A fresh walk: a direction uniform over the circle, a speed and a duration.
fn walk(rng: &mut Rng, spec: &GuestSpec) -> Phase {
    let dir = rng.direction();
    let speed = rng.triangular(spec.speed.min, spec.speed.mode, spec.speed.max);
    let left_s = rng.triangular(spec.walk.min, spec.walk.mode, spec.walk.max);
    Phase::Walking { dir, speed, left_s }
}

impl World {
    fn area_spec(&self) -> Option<&AreaSpec> {
        match &self.spec.kind {
            WorldKind::Area(a) => Some(a),
            WorldKind::Grid(_) => None,
        }
    }

    /// Is a spot free for a new body (no wall, obstacle, agent or guest overlaps it)?
    pub(super) fn spot_is_free(&self, p: Point, except: Option<AgentId>) -> bool {
        let mover = except.map_or(Mover::Nobody, Mover::Agent);
        self.blocker(mover, p, p).is_none()
    }

    /// What stops a body moving from `from` to `to`. A body may not end a move overlapping
    /// something it did not overlap before, nor get closer to something it already
    /// overlaps (so bodies that start on top of each other can still move apart).
    fn blocker(&self, mover: Mover, from: Point, to: Point) -> Option<Blocked> {
        let area = self.area_spec()?;
        let side = area.body_m;
        if !(0.0..=area.width_m).contains(&to.x) || !(0.0..=area.height_m).contains(&to.y) {
            return Some(Blocked::Edge);
        }
        // `from == to` asks whether a spot is free at all: any overlap counts.
        let gets_worse = |other: Point| -> bool {
            squares_overlap(to, other, side)
                && (from == to
                    || !squares_overlap(from, other, side)
                    || distance_sq(to, other) < distance_sq(from, other))
        };
        for (i, o) in area.obstacles.iter().enumerate() {
            if square_hits_shape(to, side, &o.shape)
                && (!square_hits_shape(from, side, &o.shape) || from == to)
            {
                return Some(Blocked::Obstacle(i));
            }
        }
        let mover_airborne =
            matches!(mover, Mover::Agent(id) if self.agent(id).is_some_and(|a| a.airborne));
        if mover_airborne {
            return None;
        }
        // The first in id order, as a scan of the whole team would find.
        let agent = self
            .agents_near(to, side)
            .filter(|a| mover != Mover::Agent(a.id) && !a.airborne && gets_worse(a.position))
            .map(|a| a.id)
            .min();
        if let Some(id) = agent {
            return Some(Blocked::Agent(id));
        }
        for (i, g) in self.guests.guests.iter().enumerate() {
            if mover != Mover::Guest(i) && gets_worse(g.position) {
                return Some(Blocked::Guest(i));
            }
        }
        None
    }

    /// Moves an area agent straight to `to` if nothing is in the way there; a single step,
    /// so callers move at most one tick's travel at a time.
    pub fn try_move_to(&mut self, id: AgentId, to: Point) -> Result<(), Blocked> {
        let agent = self.agent(id).ok_or(Blocked::NoAgent)?;
        if agent.cell.is_some() {
            return Err(Blocked::WrongWorld);
        }
        let from = agent.position;
        if let Some(b) = self.blocker(Mover::Agent(id), from, to) {
            return Err(b);
        }
        let agent = self.agent_mut(id).ok_or(Blocked::NoAgent)?;
        let (dx, dy) = (to.x - from.x, to.y - from.y);
        let len = (dx * dx + dy * dy).sqrt();
        if len > 0.0 {
            agent.heading = (dx / len, dy / len);
        }
        agent.position = to;
        if let Some(near) = &mut self.near {
            near.moved(id, to);
        }
        Ok(())
    }

    /// Moves an area agent toward `target` at `speed_mps` for `dt_ms`, stopping on the
    /// target. A blocked move is not made (the agent stays where it is).
    pub fn move_toward(
        &mut self,
        id: AgentId,
        target: Point,
        speed_mps: f64,
        dt_ms: u64,
    ) -> Result<MoveOutcome, Blocked> {
        let from = self.position(id).ok_or(Blocked::NoAgent)?;
        let step = (speed_mps.max(0.0) * dt_ms as f64 / 1000.0).max(0.0);
        let d = from.distance(target);
        let to = if d <= step {
            target
        } else {
            let f = step / d;
            Point::new(
                from.x + (target.x - from.x) * f,
                from.y + (target.y - from.y) * f,
            )
        };
        if to == from {
            return Ok(if d == 0.0 {
                MoveOutcome::Arrived
            } else {
                MoveOutcome::Moving
            });
        }
        self.try_move_to(id, to)?;
        Ok(if to == target {
            MoveOutcome::Arrived
        } else {
            MoveOutcome::Moving
        })
    }

    /// One step of at most `step_m` toward `goal` that steers around robots and obstacles in
    /// the way (local avoidance): the straight step when it is free; else the first free step
    /// turned 30° or 60° to the right or the left (smaller turns first, right before left),
    /// which still brings the agent closer; else a step sliding along the face of the body in
    /// the way, to the right of the way to the goal first (a robot pressed against a body
    /// goes round it instead of pushing into it). Right before left makes two robots that
    /// meet head-on pass each other, as people do. A guest in the way is waited for instead
    /// (guests move on; CARS leaves a robot held up by a crowd) unless `around_guests`. When
    /// no step is made the agent stays where it is and the straight step's blocker comes
    /// back. Deterministic: no random choice.
    pub fn steer_toward(
        &mut self,
        id: AgentId,
        goal: Point,
        step_m: f64,
        around_guests: bool,
    ) -> Result<MoveOutcome, Blocked> {
        const TURNS_DEG: [f64; 4] = [-30.0, 30.0, -60.0, 60.0];
        let from = self.position(id).ok_or(Blocked::NoAgent)?;
        let d = from.distance(goal);
        if !(d.is_finite() && step_m.is_finite() && step_m > 0.0) || d == 0.0 {
            return Ok(if d == 0.0 {
                MoveOutcome::Arrived
            } else {
                MoveOutcome::Moving
            });
        }
        let (ux, uy) = ((goal.x - from.x) / d, (goal.y - from.y) / d);
        let straight = if step_m >= d {
            goal
        } else {
            Point::new(from.x + ux * step_m, from.y + uy * step_m)
        };
        let blocked = match self.try_move_to(id, straight) {
            Ok(()) if straight == goal => return Ok(MoveOutcome::Arrived),
            Ok(()) => return Ok(MoveOutcome::Moving),
            Err(b) => b,
        };
        let wait = match blocked {
            Blocked::NoAgent | Blocked::WrongWorld => true,
            Blocked::Guest(_) => !around_guests,
            _ => false,
        };
        if wait {
            return Err(blocked);
        }
        let step = step_m.min(d);
        let mut ways: Vec<(f64, f64)> = TURNS_DEG
            .iter()
            .map(|deg| {
                let (s, c) = deg.to_radians().sin_cos();
                (ux * c - uy * s, ux * s + uy * c)
            })
            .collect();
        if let Some((ax, ay)) = self.face_of(blocked, from) {
            // The face's direction on the right of the way to the goal, then the other.
            let right = uy * ax - ux * ay;
            let sign = if right < 0.0 { -1.0 } else { 1.0 };
            ways.push((sign * ax, sign * ay));
            ways.push((-sign * ax, -sign * ay));
        }
        for (vx, vy) in ways {
            let to = Point::new(from.x + vx * step, from.y + vy * step);
            if self.try_move_to(id, to).is_ok() {
                return Ok(MoveOutcome::Moving);
            }
        }
        Err(blocked)
    }

    /// The direction (a unit vector, either way) along the face of the blocking body that a
    /// body at `p` is pressed against: bodies and rectangular obstacles are axis-aligned
    /// boxes, so it slides along x or y; round obstacles have a tangent. `None` for an edge
    /// or anything else.
    fn face_of(&self, blocked: Blocked, p: Point) -> Option<(f64, f64)> {
        let half = self.area_spec()?.body_m / 2.0;
        let (c, hx, hy) = match blocked {
            Blocked::Agent(other) => (self.position(other)?, half, half),
            Blocked::Guest(i) => (self.guests.guests.get(i)?.position, half, half),
            Blocked::Obstacle(i) => match self.area_spec()?.obstacles.get(i)?.shape {
                Shape::Rect {
                    centre,
                    width,
                    height,
                } => (centre, width / 2.0, height / 2.0),
                Shape::Circle { centre, radius } => {
                    let (dx, dy) = (p.x - centre.x, p.y - centre.y);
                    let len = (dx * dx + dy * dy).sqrt();
                    if !(len > 0.0 && radius.is_finite()) {
                        return None;
                    }
                    return Some((-dy / len, dx / len));
                }
            },
            _ => return None,
        };
        // The face it is against: where it is furthest out, in units of the boxes' reach.
        let (dx, dy) = ((p.x - c.x) / (hx + half), (p.y - c.y) / (hy + half));
        Some(if dx.abs() >= dy.abs() {
            (0.0, 1.0)
        } else {
            (1.0, 0.0)
        })
    }

    /// Whether an agent has reached `goal`: it stands within `within_m` of it, or another
    /// robot or an obstacle covers the goal and the agent stands beside it, within a body and
    /// `within_m` (it can come no closer). A guest on the goal is waited for. `None` for no
    /// such agent.
    pub fn reached(&self, id: AgentId, goal: Point, within_m: f64) -> Option<bool> {
        let d = self.position(id)?.distance(goal);
        if d <= within_m {
            return Some(true);
        }
        let Some(area) = self.area_spec() else {
            return Some(false);
        };
        let half = area.body_m / 2.0;
        // The goal point itself lies in another robot's square or in an obstacle.
        let taken = self.agents_near(goal, half).any(|a| {
            a.id != id
                && !a.airborne
                && (a.position.x - goal.x).abs() < half
                && (a.position.y - goal.y).abs() < half
        }) || area
            .obstacles
            .iter()
            .any(|o| square_hits_shape(goal, 0.0, &o.shape));
        Some(d <= area.body_m + within_m && taken)
    }

    /// The agents whose centres may be within `reach` of `p` along both axes (a superset, in
    /// no particular order; every agent where the world keeps no index).
    /// Called by every move's collision check, so it allocates nothing (no boxed iterator).
    fn agents_near(&self, p: Point, reach: f64) -> impl Iterator<Item = &super::Agent> + '_ {
        let (indexed, all) = match &self.near {
            Some(near) => (Some(near.around(p, reach)), None),
            None => (None, Some(self.agents.iter())),
        };
        let indexed = indexed
            .into_iter()
            .flatten()
            .filter_map(|id| self.agent(id));
        indexed.chain(all.into_iter().flatten())
    }

    /// The guests, by index.
    pub fn guests(&self) -> Vec<Point> {
        self.guests.guests.iter().map(|g| g.position).collect()
    }

    /// The guest closest to an agent (the lowest index among equals).
    pub fn nearest_guest(&self, id: AgentId) -> Option<GuestView> {
        let p = self.position(id)?;
        let mut best: Option<(usize, f64)> = None;
        for (i, g) in self.guests.guests.iter().enumerate() {
            let d = distance_sq(p, g.position);
            if best.is_none_or(|(_, bd)| d < bd) {
                best = Some((i, d));
            }
        }
        best.map(|(index, d)| GuestView {
            index,
            position: self.guests.guests[index].position,
            distance: d.sqrt(),
        })
    }

    /// Would something be within `range_m` of the agent's front in this direction? On a grid:
    /// another agent within that many cells (the adjacent cell always counts; edges and
    /// blank cells are not obstacles a range sensor sees). In an area: a wall, an obstacle,
    /// an agent or a guest in the corridor as wide as the agent ahead of it.
    pub fn obstacle_ahead(&self, id: AgentId, dir: Direction, range_m: f64) -> bool {
        if self.agent(id).is_some_and(|a| a.cell.is_some()) {
            return self.grid_obstacle_ahead(id, dir, range_m);
        }
        self.obstacle_ahead_toward(id, dir.unit(), range_m)
    }

    /// `obstacle_ahead` in an area along any direction (a unit vector).
    pub fn obstacle_ahead_toward(&self, id: AgentId, dir: (f64, f64), range_m: f64) -> bool {
        let (Some(area), Some(agent)) = (self.area_spec(), self.agent(id)) else {
            return false;
        };
        let len = (dir.0 * dir.0 + dir.1 * dir.1).sqrt();
        if len.is_nan() || len <= 0.0 {
            return false;
        }
        let (ux, uy) = (dir.0 / len, dir.1 / len);
        let p = agent.position;
        let half = area.body_m / 2.0;
        let reach = half + range_m.max(0.0);
        let tip = Point::new(p.x + ux * reach, p.y + uy * reach);
        if tip.x < 0.0 || tip.y < 0.0 || tip.x > area.width_m || tip.y > area.height_m {
            return true;
        }
        // A body is ahead when its centre is in front (along the direction, within reach
        // plus its own half size) and within the corridor's half width plus its half size.
        let ahead = |c: Point, other_half: f64| {
            let (vx, vy) = (c.x - p.x, c.y - p.y);
            let along = vx * ux + vy * uy;
            let across = (vx * uy - vy * ux).abs();
            along > 0.0 && along <= reach + other_half && across < half + other_half
        };
        // Any body ahead lies within reach, its half size and the corridor's of `p`.
        let agents = self
            .agents_near(p, reach + 3.0 * half)
            .filter(|a| a.id != id && !a.airborne)
            .map(|a| a.position);
        if agents
            .chain(self.guests.guests.iter().map(|g| g.position))
            .any(|c| ahead(c, half))
        {
            return true;
        }
        // Obstacles: sample the corridor's centre line at steps of a quarter body.
        let samples = ((reach / (half / 2.0)).ceil() as usize).clamp(1, 10_000);
        (1..=samples).any(|k| {
            let t = reach * k as f64 / samples as f64;
            let q = Point::new(p.x + ux * t, p.y + uy * t);
            area.obstacles.iter().any(|o| {
                square_hits_shape(q, area.body_m, &o.shape)
                    && !square_hits_shape(p, area.body_m, &o.shape)
            })
        })
    }

    /// One step of every guest, in index order: walk (a blocked move is not made, and the
    /// guest turns to a new direction), or pause; a finished walk becomes a pause and a
    /// finished pause a new walk.
    pub(super) fn move_guests(&mut self, dt_ms: u64) {
        let (Some(spec), Some(mut rng)) = (self.guests.spec.clone(), self.guests.rng.take()) else {
            return;
        };
        let dt = dt_ms as f64 / 1000.0;
        for i in 0..self.guests.guests.len() {
            let Guest { position, phase } = self.guests.guests[i].clone();
            let phase = match phase {
                Phase::Walking { dir, speed, left_s } => {
                    let to = Point::new(
                        position.x + dir.0 * speed * dt,
                        position.y + dir.1 * speed * dt,
                    );
                    let mut dir = dir;
                    if self.blocker(Mover::Guest(i), position, to).is_none() {
                        self.guests.guests[i].position = to;
                    } else {
                        dir = rng.direction();
                    }
                    let left_s = left_s - dt;
                    if left_s > 0.0 {
                        Phase::Walking { dir, speed, left_s }
                    } else {
                        Phase::Pausing {
                            left_s: rng.triangular(spec.pause.min, spec.pause.mode, spec.pause.max),
                        }
                    }
                }
                Phase::Pausing { left_s } => {
                    let left_s = left_s - dt;
                    if left_s > 0.0 {
                        Phase::Pausing { left_s }
                    } else {
                        walk(&mut rng, &spec)
                    }
                }
            };
            self.guests.guests[i].phase = phase;
        }
        self.guests.rng = Some(rng);
    }

    /// The current walk of each guest: `(speed m/s, seconds left)` for walkers, `None` for
    /// those pausing. For tests and the monitor.
    pub fn guest_walks(&self) -> Vec<Option<(f64, f64)>> {
        self.guests
            .guests
            .iter()
            .map(|g| match g.phase {
                Phase::Walking { speed, left_s, .. } => Some((speed, left_s)),
                Phase::Pausing { .. } => None,
            })
            .collect()
    }
}
