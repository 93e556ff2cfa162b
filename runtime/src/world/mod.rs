//! The simulated world: agents on a grid or in an area, guests walking about, scalar fields
//! the sensors read, scripted events and a message bus. Built from the compiler's
//! [`WorldSpec`]; deterministic bit for bit for a spec and its seed: every collection is a
//! `Vec` walked in index order, time is an integer count of milliseconds, and every random
//! choice comes from a named stream of [`crate::rng::Rng`].
//!
//! The runtime drives it once per tick: [`World::step`] first (time moves on, guests walk,
//! fields drift, the scripted events of the tick fire), then every agent senses, thinks and
//! acts against the world as it now is.

mod area;
mod events;
mod fields;
pub mod geometry;
mod grid;
mod index;
pub mod messages;

#[cfg(test)]
mod tests;

pub use affect_compiler::ir::world::{
    EventAction, InitValue, Landmark, LandmarkKind, NameRef, WorldSpec,
};
pub use area::{Blocked, GuestView, MoveOutcome};
pub use events::WorldEvent;
pub use geometry::{point_from, Cell, Direction, Point};
pub use messages::{Envelope, MessageBus, Recipient};

use crate::rng::Rng;
use affect_compiler::ir::world::{SpawnAt, WorldKind};
use std::fmt;

/// An agent in a world: its index in spawn order (a spawn with `count 10` makes ten).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AgentId(pub u32);

impl AgentId {
    fn index(self) -> usize {
        self.0 as usize
    }
}

/// One agent instance in the world.
#[derive(Clone, Debug, PartialEq)]
pub struct Agent {
    pub id: AgentId,
    /// The `agent` declaration it runs (`UGV`).
    pub program: String,
    /// Its own name: the program's name, or `UGV#1`, `UGV#2`, ... when the world spawns
    /// that program more than once.
    pub name: String,
    /// The spawn's initial values for its variables (`tasked true`), for the runtime to apply.
    pub init: Vec<(NameRef, InitValue)>,
    /// Its cell on a grid; `None` in an area.
    pub cell: Option<Cell>,
    /// Its centre in metres (a grid agent stands on its cell's centre).
    pub position: Point,
    /// The way it faces, as a unit vector.
    pub heading: (f64, f64),
    /// Flying agents (a UAV) neither block nor are blocked.
    pub airborne: bool,
}

/// Why a world cannot be built from a spec.
#[derive(Clone, Debug, PartialEq)]
pub enum WorldError {
    /// Random placement found no free spot for an agent or a guest.
    NoRoom(String),
    /// The spec contradicts itself (a hand-built spec; `lower_world` reports these).
    Invalid(String),
}

impl fmt::Display for WorldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorldError::NoRoom(what) => write!(f, "no free room for {what}"),
            WorldError::Invalid(why) => write!(f, "invalid world: {why}"),
        }
    }
}

impl std::error::Error for WorldError {}

/// True for a number greater than zero (and so not NaN).
fn positive(v: f64) -> bool {
    v > 0.0
}

/// How many random spots to try before giving up on placing one body.
const PLACEMENT_TRIES: u32 = 10_000;

#[derive(Debug)]
pub struct World {
    spec: WorldSpec,
    now_ms: u64,
    steps: u64,
    agents: Vec<Agent>,
    /// Where an area's agents stand, for neighbour queries; `None` on a grid.
    near: Option<index::Buckets>,
    /// The spec's landmarks, which leaves may move (a kicked ball).
    landmarks: Vec<Landmark>,
    guests: area::Guests,
    fields: fields::FieldState,
    schedule: events::Schedule,
    /// The scripted events of the last step.
    fired: Vec<WorldEvent>,
    /// Scripted events before this time have fired.
    event_cursor: u64,
}

impl World {
    pub fn new(spec: &WorldSpec) -> Result<World, WorldError> {
        let mut world = World {
            spec: spec.clone(),
            now_ms: 0,
            steps: 0,
            agents: Vec::new(),
            near: match &spec.kind {
                WorldKind::Area(a)
                    if [a.width_m, a.height_m, a.body_m].into_iter().all(positive) =>
                {
                    Some(index::Buckets::new(a.width_m, a.height_m, a.body_m))
                }
                _ => None,
            },
            landmarks: spec.landmarks.clone(),
            guests: area::Guests::default(),
            fields: fields::FieldState::new(spec),
            schedule: events::Schedule::new(spec),
            fired: Vec::new(),
            event_cursor: 0,
        };
        world.check_spec()?;
        world.spawn_agents()?;
        world.guests = area::Guests::place(&world)?;
        Ok(world)
    }

    fn check_spec(&self) -> Result<(), WorldError> {
        match &self.spec.kind {
            WorldKind::Grid(g) => {
                if g.cols == 0
                    || g.rows == 0
                    || Some(g.labels.len()) != (g.cols as usize).checked_mul(g.rows as usize)
                {
                    return Err(WorldError::Invalid(
                        "the grid's labels do not match its size".into(),
                    ));
                }
                if !positive(g.cell_m) {
                    return Err(WorldError::Invalid("the cell size must be positive".into()));
                }
            }
            WorldKind::Area(a) => {
                if ![a.width_m, a.height_m, a.body_m].into_iter().all(positive) {
                    return Err(WorldError::Invalid(
                        "the area and its bodies must have a size".into(),
                    ));
                }
            }
        }
        Ok(())
    }

    fn spawn_agents(&mut self) -> Result<(), WorldError> {
        let mut rng = Rng::named(self.spec.seed, "spawn");
        let spawns = self.spec.spawns.clone();
        // Instances so far of each program, for their names (counted as they are made: a
        // search of the agents for each one cost robots²).
        let mut made: std::collections::HashMap<String, usize> = Default::default();
        for spawn in &spawns {
            let program = spawn.agent.name.clone();
            let total: u32 = spawns
                .iter()
                .filter(|s| s.agent.name == program)
                .map(|s| s.count)
                .sum();
            let heading = match spawn.heading_deg {
                Some(deg) => {
                    let r = deg.to_radians();
                    (libm::cos(r), libm::sin(r))
                }
                None => (0.0, 1.0),
            };
            for _ in 0..spawn.count {
                let id = AgentId(self.agents.len() as u32);
                let nth = made.entry(program.clone()).or_default();
                *nth += 1;
                let nth = *nth;
                let name = if total > 1 {
                    format!("{program}#{nth}")
                } else {
                    program.clone()
                };
                let (cell, position) = self.spawn_place(spawn.at, &mut rng, &name)?;
                if let Some(near) = &mut self.near {
                    near.insert(id, position);
                }
                self.agents.push(Agent {
                    id,
                    program: program.clone(),
                    name,
                    init: spawn.init.clone(),
                    cell,
                    position,
                    heading,
                    airborne: false,
                });
            }
        }
        Ok(())
    }

    fn spawn_place(
        &self,
        at: SpawnAt,
        rng: &mut Rng,
        who: &str,
    ) -> Result<(Option<Cell>, Point), WorldError> {
        match (&self.spec.kind, at) {
            (WorldKind::Grid(g), SpawnAt::Cell(cell)) => {
                if g.label(cell).is_none() {
                    return Err(WorldError::Invalid(format!(
                        "{who} would start off the grid's places"
                    )));
                }
                if self.agents.iter().any(|a| a.cell == Some(cell)) {
                    return Err(WorldError::NoRoom(who.to_string()));
                }
                Ok((Some(cell), g.centre(cell)))
            }
            (WorldKind::Grid(g), SpawnAt::Random) => {
                let free: Vec<Cell> = self
                    .grid_cells()
                    .filter(|c| !self.agents.iter().any(|a| a.cell == Some(*c)))
                    .collect();
                if free.is_empty() {
                    return Err(WorldError::NoRoom(who.to_string()));
                }
                let cell = free[rng.below(free.len() as u64) as usize];
                Ok((Some(cell), g.centre(cell)))
            }
            (WorldKind::Area(_), SpawnAt::Point(p)) => Ok((None, p)),
            (WorldKind::Area(a), SpawnAt::Random) => {
                let half = a.body_m / 2.0;
                for _ in 0..PLACEMENT_TRIES {
                    let p = Point::new(
                        rng.uniform(half, a.width_m - half),
                        rng.uniform(half, a.height_m - half),
                    );
                    if self.spot_is_free(p, None) {
                        return Ok((None, p));
                    }
                }
                Err(WorldError::NoRoom(who.to_string()))
            }
            (WorldKind::Grid(_), SpawnAt::Point(_)) | (WorldKind::Area(_), SpawnAt::Cell(_)) => {
                Err(WorldError::Invalid(format!(
                    "{who}'s start does not fit the kind of world"
                )))
            }
        }
    }

    pub fn spec(&self) -> &WorldSpec {
        &self.spec
    }

    /// Simulated time in milliseconds since the start.
    pub fn now_ms(&self) -> u64 {
        self.now_ms
    }

    /// How many steps have run.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Advances the world by `dt_ms` to `now + dt`: the scripted events due since the last
    /// step, up to and including the new time, fire (see [`World::fired_events`]), so an event
    /// `at 40s` fires in the step that brings the world to 40 s and the agents ticking then
    /// see it; `step(0)` first fires the events due at 0. Fields drift and guests walk; then
    /// the clock moves on.
    pub fn step(&mut self, dt_ms: u64) {
        let t0 = self.now_ms;
        let t1 = t0.saturating_add(dt_ms);
        let until = t1.saturating_add(1);
        self.fired = self.schedule.between(self.event_cursor, until);
        self.event_cursor = until;
        self.fields.drift(&self.spec, t0, t1);
        self.move_guests(dt_ms);
        self.now_ms = t1;
        self.steps += 1;
    }

    /// The scripted events that fired in the last step, by time and then written order.
    pub fn fired_events(&self) -> &[WorldEvent] {
        &self.fired
    }

    /// The scripted events due in `[t0_ms, t1_ms)`. Occurrences of recurring events are drawn
    /// as the windows advance, so windows must not go backwards: one before the last window
    /// sees nothing that was already drawn past. [`World::step`] calls this; call it directly
    /// only when driving time yourself.
    pub fn events_between(&mut self, t0_ms: u64, t1_ms: u64) -> Vec<WorldEvent> {
        self.schedule.between(t0_ms, t1_ms)
    }

    pub fn agents(&self) -> &[Agent] {
        &self.agents
    }

    pub fn agent(&self, id: AgentId) -> Option<&Agent> {
        self.agents.get(id.index())
    }

    fn agent_mut(&mut self, id: AgentId) -> Option<&mut Agent> {
        self.agents.get_mut(id.index())
    }

    /// The agent with this instance name (`UGV#3`), or else the first instance of the program
    /// of this name (`Leguin`).
    pub fn agent_by_name(&self, name: &str) -> Option<AgentId> {
        self.agents
            .iter()
            .find(|a| a.name == name)
            .or_else(|| self.agents.iter().find(|a| a.program == name))
            .map(|a| a.id)
    }

    /// Every instance a scripted event addresses: by instance name, else every instance of
    /// the program; every agent when the event names none.
    pub fn targets(&self, agent: Option<&NameRef>) -> Vec<AgentId> {
        match agent {
            None => self.agents.iter().map(|a| a.id).collect(),
            Some(n) => match self.agents.iter().find(|a| a.name == n.name) {
                Some(a) => vec![a.id],
                None => self
                    .agents
                    .iter()
                    .filter(|a| a.program == n.name)
                    .map(|a| a.id)
                    .collect(),
            },
        }
    }

    pub fn position(&self, id: AgentId) -> Option<Point> {
        self.agent(id).map(|a| a.position)
    }

    /// Distance between two agents' centres in metres.
    pub fn distance(&self, a: AgentId, b: AgentId) -> Option<f64> {
        Some(self.position(a)?.distance(self.position(b)?))
    }

    /// Puts an area agent at `to` without asking what is in the way: where a robot running in
    /// another process says it is (networked runs keep their copy of the world's other
    /// robots up to date so). False for a grid agent or an unknown one.
    pub fn place(&mut self, id: AgentId, to: Point, airborne: bool) -> bool {
        match self.agent_mut(id) {
            Some(a) if a.cell.is_none() && to.x.is_finite() && to.y.is_finite() => {
                a.position = to;
                a.airborne = airborne;
                if let Some(near) = &mut self.near {
                    near.moved(id, to);
                }
                true
            }
            _ => false,
        }
    }

    /// A flying agent neither blocks nor is blocked (the UAV over the minefield).
    pub fn set_airborne(&mut self, id: AgentId, airborne: bool) {
        if let Some(a) = self.agent_mut(id) {
            a.airborne = airborne;
        }
    }

    /// Turns an agent in place to face along `heading` (any length but zero; QRIO turning
    /// to look around). False when there is no such agent or no direction.
    pub fn set_heading(&mut self, id: AgentId, heading: (f64, f64)) -> bool {
        let len = (heading.0 * heading.0 + heading.1 * heading.1).sqrt();
        if !len.is_finite() || len <= 0.0 {
            return false;
        }
        match self.agent_mut(id) {
            Some(a) => {
                a.heading = (heading.0 / len, heading.1 / len);
                true
            }
            None => false,
        }
    }

    /// The value of a field where an agent stands.
    pub fn field(&self, name: &str, id: AgentId) -> Option<f64> {
        let agent = self.agent(id)?;
        match agent.cell {
            Some(cell) => self.fields.at_cell(&self.spec, name, cell),
            None => self.fields.at_point(&self.spec, name, agent.position),
        }
    }

    pub fn landmarks(&self) -> &[Landmark] {
        &self.landmarks
    }

    pub fn landmark(&self, name: &str) -> Option<&Landmark> {
        self.landmarks.iter().find(|l| l.name == name)
    }

    /// Moves a landmark (a kicked ball); false when there is none of that name.
    pub fn set_landmark_position(&mut self, name: &str, p: Point) -> bool {
        match self.landmarks.iter_mut().find(|l| l.name == name) {
            Some(l) => {
                l.position = p;
                true
            }
            None => false,
        }
    }

    /// The landmark of a kind closest to an agent (the first written among equals), with its
    /// distance in metres.
    pub fn nearest_landmark(&self, id: AgentId, kind: LandmarkKind) -> Option<(&Landmark, f64)> {
        let p = self.position(id)?;
        let mut best: Option<(&Landmark, f64)> = None;
        for l in self.landmarks.iter().filter(|l| l.kind == kind) {
            let d = p.distance(l.position);
            if best.is_none_or(|(_, bd)| d < bd) {
                best = Some((l, d));
            }
        }
        best
    }

    /// The value of a field at a point (on a grid: at the cell the point falls in).
    pub fn field_at(&self, name: &str, p: Point) -> Option<f64> {
        match self.spec.grid() {
            Some(g) => {
                let col = (p.x / g.cell_m).floor();
                let row_from_bottom = (p.y / g.cell_m).floor();
                if col < 0.0
                    || row_from_bottom < 0.0
                    || col >= f64::from(g.cols)
                    || row_from_bottom >= f64::from(g.rows)
                {
                    return None;
                }
                let cell = Cell {
                    col: col as u32,
                    row: g.rows - 1 - row_from_bottom as u32,
                };
                self.fields.at_cell(&self.spec, name, cell)
            }
            None => self.fields.at_point(&self.spec, name, p),
        }
    }
}
