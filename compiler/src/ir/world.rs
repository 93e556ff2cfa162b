//! Worlds: the simulated surroundings a program runs in, as plain data for the runtime.
//!
//! The checker lowers a `world Name { ... }` declaration into a [`WorldSpec`]
//! (`sema/world/`, with the trees and agents: one layer lowers the syntax tree) and reports
//! every setting it cannot use with a positioned, coded diagnostic (E0501..E0511). The spec
//! holds no syntax-tree types: lengths are metres, times are milliseconds, labels are chars.
//! Names the world refers to (agents, events, components) are kept with their spans as
//! [`NameRef`]s, because only the checker knows which of them the program declares.
//! docs/worlds.md describes every setting.

pub use crate::ir::units::Measure;
use crate::span::Span;
use serde::Serialize;

/// A world, ready to simulate.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WorldSpec {
    pub name: String,
    pub kind: WorldKind,
    /// Metres in one unitless length of this world: one cell on a grid; on an area, the unit
    /// its size was written in (`area 50ft x 50ft` makes bare lengths and speeds feet and
    /// feet per second), or 1 when the size had no unit. Leaves that take unitless lengths
    /// or speeds from the program (`GoTo(speed: 1)`) convert with it.
    pub unit_m: f64,
    /// Scalar fields the simulated sensors read, in written order.
    pub fields: Vec<FieldSpec>,
    /// Things in the world that are neither agents nor obstacles: the ball, a charger,
    /// people, mines. Areas only.
    pub landmarks: Vec<Landmark>,
    pub spawns: Vec<SpawnSpec>,
    /// One-off and recurring scripted events, in written order.
    pub events: Vec<ScriptedEvent>,
    pub messages: MessageSpec,
    /// Where components run (`host laptop2 runs [speech_recognition, ...]`).
    pub hosts: Vec<HostSpec>,
    /// A file the runtime writes its state-change log to.
    pub log: Option<String>,
    /// Run length in ticks; `None` runs until stopped.
    pub ticks: Option<u64>,
    /// The seed of every random choice the simulation makes (0 when not given).
    pub seed: u64,
}

impl WorldSpec {
    pub fn grid(&self) -> Option<&GridSpec> {
        match &self.kind {
            WorldKind::Grid(g) => Some(g),
            WorldKind::Area(_) => None,
        }
    }

    pub fn area(&self) -> Option<&AreaSpec> {
        match &self.kind {
            WorldKind::Area(a) => Some(a),
            WorldKind::Grid(_) => None,
        }
    }

    pub fn field(&self, name: &str) -> Option<&FieldSpec> {
        self.fields.iter().find(|f| f.name == name)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum WorldKind {
    /// A floor of labelled cells; agents move one cell at a time.
    Grid(GridSpec),
    /// A continuous rectangle; agents and guests move freely around obstacles.
    Area(AreaSpec),
}

/// `grid 5 x 5 cell 24cm labels "OITWG / SDA.U / HXKVN / CMFRE / PQLBJ";`
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GridSpec {
    pub cols: u32,
    pub rows: u32,
    /// Distance between the centres of neighbouring cells.
    pub cell_m: f64,
    /// Row-major, `rows * cols` entries; row 0 is the first row written (the top). `None`
    /// is a blank cell (`.`): no letter, not a place, not walkable.
    pub labels: Vec<Option<char>>,
    /// How long a one-cell move takes a simulated motor board.
    pub move_time_ms: u64,
}

impl GridSpec {
    /// The label of a cell; `None` for a blank cell or a cell off the grid.
    pub fn label(&self, cell: Cell) -> Option<char> {
        if cell.col >= self.cols || cell.row >= self.rows {
            return None;
        }
        let index = cell.row as usize * self.cols as usize + cell.col as usize;
        self.labels.get(index).copied().flatten()
    }

    /// The cell that carries a label.
    pub fn find(&self, label: char) -> Option<Cell> {
        let i = self.labels.iter().position(|l| *l == Some(label))?;
        let cols = (self.cols as usize).max(1);
        Some(Cell {
            col: (i % cols) as u32,
            row: (i / cols) as u32,
        })
    }

    /// The centre of a cell in metres, x to the right and y up (row 0 is the top row), so
    /// grid and area positions share one frame.
    pub fn centre(&self, cell: Cell) -> Point {
        Point {
            x: (f64::from(cell.col) + 0.5) * self.cell_m,
            y: (f64::from(self.rows.saturating_sub(1).saturating_sub(cell.row)) + 0.5)
                * self.cell_m,
        }
    }
}

/// A cell of a grid: column from the left, row from the top.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Cell {
    pub col: u32,
    pub row: u32,
}

/// A position in metres: x to the right, y up, (0, 0) the bottom-left corner.
#[derive(Clone, Copy, Debug, PartialEq, Default, Serialize)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

impl Point {
    pub fn new(x: f64, y: f64) -> Point {
        Point { x, y }
    }

    pub fn distance(self, other: Point) -> f64 {
        let (dx, dy) = (self.x - other.x, self.y - other.y);
        (dx * dx + dy * dy).sqrt()
    }
}

/// `area 50ft x 50ft cell 2ft;` with its obstacles and guests.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AreaSpec {
    pub width_m: f64,
    pub height_m: f64,
    /// The side of the square every agent and guest occupies (`cell`).
    pub body_m: f64,
    pub obstacles: Vec<Obstacle>,
    pub guests: Option<GuestSpec>,
}

/// The footprint of an agent or guest when `area` gives no `cell`.
pub const DEFAULT_BODY_M: f64 = 0.5;
/// How long a one-cell move takes when a grid gives no `move_time` (about two seconds for
/// the Romi32U4 of seed 003).
pub const DEFAULT_MOVE_TIME_MS: u64 = 2000;

/// `obstacle food_table at (25ft, 49ft) size 4ft x 2ft;`
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Obstacle {
    pub name: String,
    pub shape: Shape,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Shape {
    /// Axis-aligned, centred on `centre`.
    Rect {
        centre: Point,
        width: f64,
        height: f64,
    },
    Circle {
        centre: Point,
        radius: f64,
    },
}

/// `guests 100 speed triangular(...) duration triangular(...) pause triangular(...);`:
/// people who walk in a random direction at a random speed for a random time, pause, and
/// start again. A move into an occupied spot is not made.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GuestSpec {
    pub count: u32,
    /// Metres per second.
    pub speed: Triangular,
    /// Seconds of one walk.
    pub walk: Triangular,
    /// Seconds of one pause.
    pub pause: Triangular,
}

/// A triangular distribution; `min <= mode <= max`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Triangular {
    pub min: f64,
    pub mode: f64,
    pub max: f64,
}

impl Triangular {
    pub fn constant(v: f64) -> Triangular {
        Triangular {
            min: v,
            mode: v,
            max: v,
        }
    }
}

/// `field light = 50 { near O radius 2: 90; at X: 10; drift 5 every 30s; }`
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FieldSpec {
    pub name: String,
    pub base: f64,
    /// Applied in order; a later rule that covers a point overrides an earlier one.
    pub rules: Vec<FieldRule>,
    pub drift: Option<Drift>,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum FieldRule {
    /// Grid: every cell whose centre lies within `radius` cells of `centre` (Euclidean).
    NearCell {
        centre: Cell,
        radius: f64,
        value: f64,
    },
    /// Grid: exactly this cell.
    AtCell { cell: Cell, value: f64 },
    /// Area: every point within `radius` metres of `centre`.
    NearPoint {
        centre: Point,
        radius: f64,
        value: f64,
    },
}

/// The whole field moves up or down by a uniform random amount in `-amount..amount` at every
/// multiple of `every_ms` (a random walk of its offset).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Drift {
    pub amount: f64,
    pub every_ms: u64,
}

/// A name the world uses for something the program declares (an agent, an event, a
/// component), with where it was written, so the checker can report unknown ones.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NameRef {
    pub name: String,
    pub span: Span,
}

/// `place ball at (3.5m, 1m);`, `person Alice at (4.5m, 3.5m) familiarity 90;`, `mines (20, 12);`
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Landmark {
    pub kind: LandmarkKind,
    /// The written name (`ball`, `Alice`); mines are `mine1`, `mine2`, ... in written order.
    pub name: String,
    pub position: Point,
    /// How well the agents know this person, 0..100 (`person .. familiarity 90`).
    pub familiarity: Option<f64>,
    /// Where a teammate is heading (`teammate .. toward (22m, 25m)`).
    pub toward: Option<Point>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum LandmarkKind {
    /// A named place or object: `place ball at ..`, `place charger at ..`.
    Place,
    Person,
    Teammate,
    Mine,
}

/// `spawn UGV at (0, 0) tasked true x_from 0;`, `spawn UGV count 10 at random;`
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SpawnSpec {
    pub agent: NameRef,
    pub count: u32,
    pub at: SpawnAt,
    /// Degrees, counter-clockwise from the +x axis (`heading 90deg` or `heading Up`).
    pub heading_deg: Option<f64>,
    /// Every other pair: the initial value of an agent variable (or of a simulated sensor,
    /// such as `battery 60`), for the checker to match against the agent.
    pub init: Vec<(NameRef, InitValue)>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum SpawnAt {
    Cell(Cell),
    Point(Point),
    /// A free spot chosen with the world's seed.
    Random,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum InitValue {
    /// A number in the runtime's unit of its measure (milliseconds, hertz, metres, degrees:
    /// `ir::units::quantity`), and the measure its unit gave (`None`: a plain number). The
    /// checker refuses a measure the variable's type does not hold.
    Num {
        value: f64,
        measure: Option<Measure>,
        span: Span,
    },
    Bool(bool),
    Str(String),
    /// A bare name, such as an enum variant.
    Name(String),
    /// `(x, y)`, in metres.
    Point(Point),
}

/// `at 40s raise loud_noise on Navigator;`, `raise treat_taken on Butler every exponential(mean: 4s);`
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScriptedEvent {
    pub action: EventAction,
    /// The first occurrence; `None` for a recurring event without `at`, whose first
    /// occurrence is one interval after the start.
    pub at_ms: Option<u64>,
    /// `every ...`: the event recurs.
    pub every: Option<Interval>,
    /// `until 5min`: no occurrence at or after this time.
    pub until_ms: Option<u64>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum EventAction {
    /// Raise a declared event on an agent (`None`: on every agent).
    Raise {
        event: NameRef,
        agent: Option<NameRef>,
    },
    /// Make a component stop sending heartbeats.
    Fail {
        component: NameRef,
        agent: Option<NameRef>,
    },
    /// Bring a failed component back.
    Recover {
        component: NameRef,
        agent: Option<NameRef>,
    },
    /// Put a message on the bus as if `from` sent it (`None`: from the world) to `to`
    /// (`None`: broadcast).
    Send {
        message: String,
        from: Option<NameRef>,
        to: Option<NameRef>,
    },
}

/// Time between occurrences of a recurring event, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Interval {
    Fixed(f64),
    Exponential { mean: f64 },
    Uniform { min: f64, max: f64 },
    Triangular(Triangular),
}

/// `messages broadcast loss 0.1 range 30m latency 50ms;`
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MessageSpec {
    /// How the program's protocols address each other: `broadcast` (one message reaches
    /// every robot in range) or `unicast` (one message per recipient).
    pub mode: Delivery,
    /// The chance that one copy of a message is silently lost, 0..1.
    pub loss: f64,
    /// Copies beyond this distance are not delivered; `None`: no limit.
    pub range_m: Option<f64>,
    pub latency_ms: u64,
}

impl Default for MessageSpec {
    fn default() -> Self {
        MessageSpec {
            mode: Delivery::Broadcast,
            loss: 0.0,
            range_m: None,
            latency_ms: 0,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Delivery {
    Broadcast,
    Unicast,
}

/// `host laptop2 runs [speech_recognition, speech_production] has [microphone, speaker];`
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HostSpec {
    pub name: String,
    pub components: Vec<NameRef>,
    /// The hardware it offers (`has [microphone, speaker]`): a component declaring a `device`
    /// is only restarted on a host that has it. Empty: no hardware at all.
    pub hardware: Vec<String>,
}
