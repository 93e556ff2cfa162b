//! The floor of a world, read first: a label `grid` (bare lengths count cells) or a
//! continuous `area` (bare lengths count its `cell`), and the cells, radii and points other
//! settings give on it.
use super::lower::{info, Floor, Lowering};
use super::values::{bare_name, literal, quantity, Measure};
use super::*;
use crate::diagnostic::Diagnostic;
use crate::syntax::ast::{Expr, ExprKind, Ident, Setting};

impl Lowering<'_> {
    pub(super) fn read_floor(&mut self, settings: &[&Setting], world: &Ident) {
        let floors: Vec<&Setting> = settings
            .iter()
            .copied()
            .filter(|s| s.key.name == "grid" || s.key.name == "area")
            .collect();
        let Some(first) = floors.first() else {
            self.diags.push(
                Diagnostic::error(
                    "E0508",
                    format!("world `{}` has no floor", world.name),
                    world.span,
                )
                .with_label("needs `grid` or `area`")
                .with_help("add `grid 5 x 5 cell 24cm labels \"...\";` or `area 50ft x 50ft;`"),
            );
            return;
        };
        for s in &floors {
            self.once(s);
        }
        let info = info(SETTINGS, &first.key.name).expect("a known setting");
        if !self.check_form(first, info) {
            return;
        }
        let floor = if first.key.name == "grid" {
            self.read_grid(first)
        } else {
            self.read_area(first)
        };
        if floor.is_some() {
            self.floor = floor.map(|f| (f, first.key.span));
        }
    }

    pub(super) fn read_grid(&mut self, s: &Setting) -> Option<Floor> {
        let example = info(SETTINGS, "grid").map_or("", |i| i.example);
        let x = self.require_pair(s, "x", example);
        let cell = self.require_pair(s, "cell", example);
        let labels = self.require_pair(s, "labels", example);
        let mut r = self.reader();
        let cols = r.count(&s.args[0], 1, 10_000);
        let rows = x.and_then(|e| r.count(e, 1, 10_000));
        r.unit_m = 1.0;
        let cell_m = cell.and_then(|e| {
            // A cell size needs a unit: a bare number would be "one cell".
            if literal(e).is_some_and(|(_, u)| u.is_none()) {
                r.diags.push(
                    Diagnostic::error("E0503", "expected a length, found a plain number", e.span)
                        .with_label("the cell size needs a unit")
                        .with_help("write it like `24cm`"),
                );
                return None;
            }
            r.size(e, true)
        });
        let text = labels.and_then(|e| r.string(e));
        let (cols, rows, cell_m, text, labels) = (cols?, rows?, cell_m?, text?, labels?);
        let cells = self.grid_labels(&text, cols as u32, rows as u32, labels.span)?;
        self.spec.unit_m = cell_m;
        self.spec.kind = WorldKind::Grid(GridSpec {
            cols: cols as u32,
            rows: rows as u32,
            cell_m,
            labels: cells,
            move_time_ms: DEFAULT_MOVE_TIME_MS,
        });
        Some(Floor::Grid)
    }

    /// `"OITWG / SDA.U / ..."`: rows split by `/`, spaces ignored, `.` blank.
    pub(super) fn grid_labels(
        &mut self,
        text: &str,
        cols: u32,
        rows: u32,
        span: Span,
    ) -> Option<Vec<Option<char>>> {
        let mut bad = |message: String, label: &str| {
            self.diags.push(
                Diagnostic::error("E0506", message, span)
                    .with_label(label.to_string())
                    .with_note("rows are separated by `/`; each row has one character per cell: a letter or digit, or `.` for a blank cell"),
            );
            None
        };
        let written: Vec<String> = text
            .split('/')
            .map(|row| row.chars().filter(|c| !c.is_whitespace()).collect())
            .collect();
        if written.len() != rows as usize {
            return bad(
                format!("the labels have {} rows, the grid {rows}", written.len()),
                "wrong number of rows",
            );
        }
        // Not preallocated: the size comes from the program, the labels string bounds it.
        let mut cells = Vec::new();
        for (i, row) in written.iter().enumerate() {
            let n = row.chars().count();
            if n != cols as usize {
                return bad(
                    format!(
                        "row {} of the labels has {n} cells, the grid {cols} columns",
                        i + 1
                    ),
                    "wrong row length",
                );
            }
            for c in row.chars() {
                match c {
                    '.' => cells.push(None),
                    c if c.is_alphanumeric() => {
                        if cells.contains(&Some(c)) {
                            return bad(
                                format!("label `{c}` is used twice"),
                                "labels must be unique",
                            );
                        }
                        cells.push(Some(c));
                    }
                    c => {
                        return bad(
                            format!("`{c}` cannot label a cell"),
                            "invalid label character",
                        )
                    }
                }
            }
        }
        Some(cells)
    }

    pub(super) fn read_area(&mut self, s: &Setting) -> Option<Floor> {
        let example = info(SETTINGS, "area").map_or("", |i| i.example);
        let height = self.require_pair(s, "x", example);
        // The unit of the width is the world's unit for bare lengths.
        let unit_m = match literal(&s.args[0]) {
            Some((_, Some(u))) if Measure::of(u) == Measure::Length => quantity(1.0, u),
            _ => 1.0,
        };
        let mut r = self.reader();
        r.unit_m = unit_m;
        let width = r.size(&s.args[0], true);
        let height = height.and_then(|e| r.size(e, true));
        let body = match Self::pair(s, "cell") {
            Some(e) => r.size(e, true),
            None => Some(DEFAULT_BODY_M),
        };
        let (width_m, height_m, body_m) = (width?, height?, body?);
        if body_m > width_m.min(height_m) {
            let span = Self::pair(s, "cell").map_or(s.span, |e| e.span);
            r.out_of_range(
                span,
                "a body does not fit in the area",
                "larger than the area",
            );
            return None;
        }
        self.spec.unit_m = unit_m;
        self.spec.kind = WorldKind::Area(AreaSpec {
            width_m,
            height_m,
            body_m,
            obstacles: Vec::new(),
            guests: None,
        });
        Some(Floor::Area)
    }

    // ------------------------------------------------------------ everything else

    /// A radius on a grid, in cells: a bare number counts cells, a length is divided by the
    /// cell size.
    pub(super) fn grid_radius(&mut self, e: &Expr) -> Option<f64> {
        let cells = match literal(e) {
            Some((v, None)) => v,
            _ => self.reader().length(e)? / self.spec.unit_m,
        };
        if cells < 0.0 || !cells.is_finite() {
            self.reader().out_of_range(
                e.span,
                "a radius must not be negative",
                "must be zero or more",
            );
            return None;
        }
        Some(cells)
    }

    /// A label that must be on the grid; the cell it marks.
    pub(super) fn grid_cell(&mut self, e: &Expr) -> Option<Cell> {
        if matches!(e.kind, ExprKind::Tuple(_)) {
            self.diags.push(
                Diagnostic::error(
                    "E0510",
                    "a grid world places things by label, not by point",
                    e.span,
                )
                .with_label("use a label of the grid, like `P`"),
            );
            return None;
        }
        let label = self.reader().label(e)?;
        let grid = self.spec.grid()?;
        match grid.find(label) {
            Some(cell) => Some(cell),
            None => {
                let mut all: Vec<char> = grid.labels.iter().flatten().copied().collect();
                all.sort_unstable();
                let list: String = all.iter().collect();
                self.diags.push(
                    Diagnostic::error(
                        "E0505",
                        format!("label `{label}` is not on the grid"),
                        e.span,
                    )
                    .with_label("no cell has this label")
                    .with_note(format!("the grid's labels are {list}")),
                );
                None
            }
        }
    }

    /// A point that must lie inside the area.
    pub(super) fn area_point(&mut self, e: &Expr) -> Option<Point> {
        if bare_name(e).is_some() {
            self.diags.push(
                Diagnostic::error(
                    "E0510",
                    "an area world places things by point, not by label",
                    e.span,
                )
                .with_label("use a point like `(3m, 4m)`"),
            );
            return None;
        }
        let p = self.reader().point(e)?;
        let area = self.spec.area()?;
        if !(0.0..=area.width_m).contains(&p.x) || !(0.0..=area.height_m).contains(&p.y) {
            self.diags.push(
                Diagnostic::error("E0509", "this point is outside the area", e.span).with_label(
                    format!(
                        "the area runs from (0, 0) to ({}, {}) in its own units",
                        trim(area.width_m / self.spec.unit_m),
                        trim(area.height_m / self.spec.unit_m)
                    ),
                ),
            );
            return None;
        }
        Some(p)
    }

    /// More agents on a grid than it has cells, counting the random ones.
    pub(super) fn check_grid_spawns(&mut self) {
        let Some(grid) = self.spec.grid() else { return };
        let cells = grid.labels.iter().filter(|l| l.is_some()).count() as u64;
        let agents: u64 = self.spec.spawns.iter().map(|s| u64::from(s.count)).sum();
        if agents > cells {
            let span = self.spec.spawns.last().map_or(Span::DUMMY, |s| s.span);
            self.diags.push(
                Diagnostic::error(
                    "E0509",
                    format!("{agents} agents do not fit on {cells} cells"),
                    span,
                )
                .with_label("one agent too many"),
            );
        }
    }
}

/// A number for a message: `50`, not `50.0000001`.
fn trim(v: f64) -> String {
    let r = (v * 1000.0).round() / 1000.0;
    format!("{r}")
}
