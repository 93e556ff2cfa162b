//! Directions, bodies and the small geometry the simulation needs. Positions are metres in
//! one frame for grids and areas: x to the right, y up, (0, 0) the bottom-left corner.

pub use affect_compiler::ir::world::{Cell, Point, Shape};

/// The four moves of a grid robot, and the four compass directions of an area.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Direction {
    Up,
    Down,
    Left,
    Right,
}

impl Direction {
    /// The order every search tries directions in, so ties break the same way every run.
    pub const ALL: [Direction; 4] = [
        Direction::Up,
        Direction::Down,
        Direction::Left,
        Direction::Right,
    ];

    /// Column and row steps on a grid (row 0 is the top row, so Up is one row less).
    pub fn grid_step(self) -> (i64, i64) {
        match self {
            Direction::Up => (0, -1),
            Direction::Down => (0, 1),
            Direction::Left => (-1, 0),
            Direction::Right => (1, 0),
        }
    }

    /// The unit vector in the world frame (y up).
    pub fn unit(self) -> (f64, f64) {
        match self {
            Direction::Up => (0.0, 1.0),
            Direction::Down => (0.0, -1.0),
            Direction::Left => (-1.0, 0.0),
            Direction::Right => (1.0, 0.0),
        }
    }

    /// The name the language's `Direction` enum uses.
    pub fn name(self) -> &'static str {
        match self {
            Direction::Up => "Up",
            Direction::Down => "Down",
            Direction::Left => "Left",
            Direction::Right => "Right",
        }
    }

    pub fn from_name(name: &str) -> Option<Direction> {
        Direction::ALL.into_iter().find(|d| d.name() == name)
    }
}

/// The cell one step away, if it is on a grid of `cols` x `rows`.
pub fn step_cell(cell: Cell, dir: Direction, cols: u32, rows: u32) -> Option<Cell> {
    let (dc, dr) = dir.grid_step();
    let col = i64::from(cell.col) + dc;
    let row = i64::from(cell.row) + dr;
    if col < 0 || row < 0 || col >= i64::from(cols) || row >= i64::from(rows) {
        return None;
    }
    Some(Cell {
        col: col as u32,
        row: row as u32,
    })
}

/// Do two squares of side `side` centred on `a` and `b` overlap? Touching is not overlap.
pub fn squares_overlap(a: Point, b: Point, side: f64) -> bool {
    (a.x - b.x).abs() < side && (a.y - b.y).abs() < side
}

/// Does a square of side `side` centred on `p` overlap an obstacle's shape?
pub fn square_hits_shape(p: Point, side: f64, shape: &Shape) -> bool {
    let half = side / 2.0;
    match *shape {
        Shape::Rect {
            centre,
            width,
            height,
        } => {
            (p.x - centre.x).abs() < (width / 2.0 + half)
                && (p.y - centre.y).abs() < (height / 2.0 + half)
        }
        Shape::Circle { centre, radius } => {
            // The square's closest point to the circle's centre.
            let cx = centre.x.clamp(p.x - half, p.x + half);
            let cy = centre.y.clamp(p.y - half, p.y + half);
            let (dx, dy) = (cx - centre.x, cy - centre.y);
            dx * dx + dy * dy < radius * radius
        }
    }
}

/// Squared distance, which compares without a square root.
pub fn distance_sq(a: Point, b: Point) -> f64 {
    let (dx, dy) = (a.x - b.x, a.y - b.y);
    dx * dx + dy * dy
}

/// A point from a list value's elements (`[x, y]`, as the language stores a `Point`): `None`
/// unless there are exactly two finite coordinates.
pub fn point_from(values: &[f64]) -> Option<Point> {
    match *values {
        [x, y] if x.is_finite() && y.is_finite() => Some(Point::new(x, y)),
        _ => None,
    }
}
