//! `world Name { settings }` → [`WorldSpec`]. The floor (`grid` or `area`) is read first,
//! because it decides what a bare length means and which other settings make sense; every
//! other setting is then read in written order.

use super::values::{bare_name, literal, to_si, Measure, Reader};
use super::*;
use crate::diagnostic::Diagnostic;
use crate::suggest::closest;
use crate::syntax::ast::{Expr, ExprKind, Ident, Setting, SettingBlock, SettingEntry, WorldDecl};

/// Which worlds a setting belongs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fits {
    Any,
    Grid,
    Area,
}

/// One world setting: its key, the worlds it fits, its shape and an example. The language
/// server and docs/worlds.md list these.
pub struct WorldSetting {
    pub key: &'static str,
    pub fits: Fits,
    pub example: &'static str,
    /// What the setting does, in a few words.
    pub meaning: &'static str,
    form: Form,
}

/// The shape of a setting: how many leading arguments and which keyword pairs it takes, and
/// whether `= value`, `: value` or a block may follow.
#[derive(Clone, Copy)]
struct Form {
    min_args: usize,
    max_args: usize,
    pairs: &'static [&'static str],
    assign: bool,
    value: bool,
    block: bool,
}

const fn form(min_args: usize, max_args: usize, pairs: &'static [&'static str]) -> Form {
    Form {
        min_args,
        max_args,
        pairs,
        assign: false,
        value: false,
        block: false,
    }
}

const fn setting(
    key: &'static str,
    fits: Fits,
    form: Form,
    example: &'static str,
    meaning: &'static str,
) -> WorldSetting {
    WorldSetting {
        key,
        fits,
        example,
        meaning,
        form,
    }
}

const EVENT_PAIRS: &[&str] = &[
    "raise", "fail", "recover", "send", "on", "to", "from", "every", "until",
];

/// Every setting a world block takes.
pub static SETTINGS: &[WorldSetting] = &[
    setting(
        "grid",
        Fits::Any,
        form(1, 1, &["x", "cell", "labels"]),
        "grid 5 x 5 cell 24cm labels \"OITWG / SDA.U / HXKVN / CMFRE / PQLBJ\";", "a label grid, rows separated by `/`, `.` a blank cell"),
    setting("area", Fits::Any, form(1, 1, &["x", "cell"]), "area 50ft x 50ft cell 2ft;", "a continuous floor and the size of one object"),
    setting("move_time", Fits::Grid, form(1, 1, &[]), "move_time 2s;", "how long one step from cell to cell takes"),
    setting(
        "field",
        Fits::Any,
        Form {
            assign: true,
            block: true,
            ..form(1, 1, &[])
        },
        "field light = 50 { near O radius 2: 90; at X: 10; }", "a scalar field a sensor reads: a default, then local values"),
    setting(
        "obstacle",
        Fits::Area,
        form(1, 1, &["at", "size", "x", "radius"]),
        "obstacle food_table at (25ft, 49ft) size 4ft x 2ft;", "a fixed obstacle"),
    setting(
        "guests",
        Fits::Area,
        form(1, 1, &["speed", "duration", "pause"]),
        "guests 100 speed triangular(min: 0.5, mode: 1.5, max: 3) duration triangular(min: 2s, mode: 6s, max: 15s) pause triangular(min: 1s, mode: 4s, max: 20s);", "moving obstacles with triangular distributions"),
    setting("place", Fits::Area, form(1, 1, &["at"]), "place ball at (3.5m, 1m);", "a named object on the floor"),
    setting(
        "person",
        Fits::Area,
        form(1, 1, &["at", "familiarity"]),
        "person Alice at (4.5m, 3.5m) familiarity 90;", "a person a robot may recognise, and how familiar they are"),
    setting(
        "teammate",
        Fits::Area,
        form(1, 1, &["at", "toward"]),
        "teammate Astronaut at (2m, 2m) toward (22m, 25m);", "another robot of the team, and where it heads"),
    setting("mines", Fits::Area, form(1, usize::MAX, &[]), "mines (20, 12), (47, 33);", "hidden mines on the floor"),
    setting(
        "spawn",
        Fits::Any,
        // Any other pair sets an agent variable; `pairs` lists the reserved ones.
        form(1, 1, &["at", "count", "heading"]),
        "spawn Navigator at P;", "where agents start; extra pairs set agent variables"),
    setting("at", Fits::Any, form(1, 1, EVENT_PAIRS), "at 40s raise loud_noise on Navigator;", "a scripted event at a time"),
    setting(
        "raise",
        Fits::Any,
        form(1, 1, &["on", "every", "until"]),
        "raise treat_taken on Butler every exponential(mean: 4s);", "a random recurring event"),
    setting("fail", Fits::Any, form(1, 1, &["on", "every", "until"]), "fail lidar on Rover every exponential(mean: 5min);", "a component failing at random"),
    setting("recover", Fits::Any, form(1, 1, &["on", "every", "until"]), "recover lidar on Rover every 1min;", "a failed component coming back"),
    setting(
        "messages",
        Fits::Any,
        form(1, 1, &["loss", "range", "latency"]),
        "messages broadcast loss 0.1;", "delivery (`broadcast` or `unicast`) and random message loss"),
    setting("host", Fits::Any, form(1, 1, &["runs"]), "host laptop2 runs [speech_recognition, speech_production];", "where components run"),
    setting("log", Fits::Any, form(1, 1, &[]), "log \"cars.log\";", "a log of every state change"),
    setting("ticks", Fits::Any, form(1, 1, &[]), "ticks 600;", "the run length"),
    setting("seed", Fits::Any, form(1, 1, &[]), "seed 7;", "the random seed"),
];

/// Settings of a `field` block.
pub static FIELD_RULES: &[WorldSetting] = &[
    setting(
        "near",
        Fits::Any,
        Form {
            value: true,
            ..form(1, 1, &["radius"])
        },
        "near O radius 2: 90;",
        "the field's value within a radius of a labelled cell",
    ),
    setting(
        "at",
        Fits::Grid,
        Form {
            value: true,
            ..form(1, 1, &[])
        },
        "at X: 10;",
        "the field's value at a labelled cell",
    ),
    setting(
        "drift",
        Fits::Any,
        form(1, 1, &["every"]),
        "drift 5 every 30s;",
        "a random change of the field's values over time",
    ),
];

/// Settings that may appear once.
const ONCE: &[&str] = &[
    "grid",
    "area",
    "move_time",
    "guests",
    "messages",
    "log",
    "ticks",
    "seed",
];

fn info(table: &'static [WorldSetting], key: &str) -> Option<&'static WorldSetting> {
    table.iter().find(|s| s.key == key)
}

/// Lowers one world declaration. The spec is complete even when there are errors (bad
/// settings are left out), so later phases can keep going; run it only when the
/// diagnostics hold no error.
pub fn lower_world(decl: &WorldDecl) -> (WorldSpec, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let mut cx = Lowering {
        diags: &mut diags,
        spec: WorldSpec {
            name: decl.name.name.clone(),
            kind: WorldKind::Area(AreaSpec {
                width_m: 0.0,
                height_m: 0.0,
                body_m: DEFAULT_BODY_M,
                obstacles: Vec::new(),
                guests: None,
            }),
            unit_m: 1.0,
            fields: Vec::new(),
            landmarks: Vec::new(),
            spawns: Vec::new(),
            events: Vec::new(),
            messages: MessageSpec::default(),
            hosts: Vec::new(),
            log: None,
            ticks: None,
            seed: 0,
        },
        floor: None,
        seen: Vec::new(),
        mine_count: 0,
    };
    let settings = cx.known_settings(&decl.body);
    cx.read_floor(&settings, &decl.name);
    for s in settings {
        if s.key.name != "grid" && s.key.name != "area" {
            cx.read(s);
        }
    }
    cx.check_grid_spawns();
    let spec = cx.spec;
    (spec, diags)
}

/// What the floor turned out to be, once read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Floor {
    Grid,
    Area,
}

struct Lowering<'d> {
    diags: &'d mut Vec<Diagnostic>,
    spec: WorldSpec,
    /// `None` when the world has no usable floor: kind-specific checks are then skipped,
    /// so one missing `grid` does not drown the file in follow-up errors.
    floor: Option<(Floor, Span)>,
    /// Settings seen so far that may appear once, with where.
    seen: Vec<(&'static str, Span)>,
    mine_count: usize,
}

impl Lowering<'_> {
    fn reader(&mut self) -> Reader<'_> {
        Reader {
            diags: self.diags,
            unit_m: self.spec.unit_m,
        }
    }

    /// The block's settings whose key is known; unknown keys and entries that are not
    /// settings are reported.
    fn known_settings<'a>(&mut self, body: &'a SettingBlock) -> Vec<&'a Setting> {
        let mut out = Vec::new();
        for entry in &body.entries {
            match entry {
                SettingEntry::Setting(s) => {
                    if info(SETTINGS, &s.key.name).is_some() {
                        out.push(s);
                    } else {
                        self.unknown(&s.key, SETTINGS, "a world");
                    }
                }
                SettingEntry::Transition(t) => self.diags.push(
                    Diagnostic::error("E0501", "a transition is not a world setting", t.span)
                        .with_label("transitions belong in an `emotions` block"),
                ),
                SettingEntry::Behavior(b, span) => self.diags.push(
                    Diagnostic::error(
                        "E0501",
                        format!("behaviour module `{}` in a world", b.name.name),
                        *span,
                    )
                    .with_label("behaviour modules belong in an agent"),
                ),
                // The parser has reported it.
                SettingEntry::Error(_) => {}
            }
        }
        out
    }

    fn unknown(&mut self, key: &Ident, table: &'static [WorldSetting], block: &str) {
        let mut d = Diagnostic::error(
            "E0501",
            format!("unknown setting `{}` in {block}", key.name),
            key.span,
        )
        .with_label("not a setting here");
        match closest(&key.name, table.iter().map(|s| s.key)) {
            Some(c) => d = d.with_help(format!("did you mean `{c}`?")),
            None => {
                let keys: Vec<&str> = table.iter().map(|s| s.key).collect();
                d = d.with_note(format!("{block} takes: {}", keys.join(", ")));
            }
        }
        self.diags.push(d);
    }

    /// Checks a setting's shape against its table entry; false when it is unusable.
    fn check_form(&mut self, s: &Setting, info: &WorldSetting) -> bool {
        let f = info.form;
        let key = &s.key.name;
        let mut ok = true;
        let mut push = |d: Diagnostic| {
            ok = false;
            d.with_help(format!("write it like `{}`", info.example))
        };
        let mut found = Vec::new();
        if s.args.len() < f.min_args {
            found.push(push(
                Diagnostic::error("E0502", format!("`{key}` is missing its value"), s.key.span)
                    .with_label("a value should follow"),
            ));
        }
        for extra in s.args.iter().skip(f.max_args) {
            found.push(push(
                Diagnostic::error("E0502", format!("`{key}` takes one value"), extra.span)
                    .with_label("one too many"),
            ));
        }
        for (i, (k, _)) in s.pairs.iter().enumerate() {
            let allowed = f.pairs.contains(&k.name.as_str()) || key == "spawn";
            if !allowed {
                let mut d = Diagnostic::error(
                    "E0502",
                    format!("`{key}` does not take `{}`", k.name),
                    k.span,
                )
                .with_label("not known here");
                if let Some(c) = closest(&k.name, f.pairs.iter().copied()) {
                    d = d.with_note(format!("did you mean `{c}`?"));
                }
                found.push(push(d));
            } else if s.pairs[..i].iter().any(|(p, _)| p.name == k.name) {
                found.push(push(
                    Diagnostic::error("E0502", format!("`{}` is given twice", k.name), k.span)
                        .with_label("given again here"),
                ));
            }
        }
        if let (Some(e), false) = (&s.assign, f.assign) {
            found.push(push(
                Diagnostic::error("E0502", format!("`{key}` takes no `= value`"), e.span)
                    .with_label("not expected"),
            ));
        }
        if let (None, true) = (&s.assign, f.assign) {
            found.push(push(
                Diagnostic::error("E0502", format!("`{key}` needs `= value`"), s.span)
                    .with_label("the base value is missing"),
            ));
        }
        if let (Some(e), false) = (&s.value, f.value) {
            found.push(push(
                Diagnostic::error("E0502", format!("`{key}` takes no `: value`"), e.span)
                    .with_label("not expected"),
            ));
        }
        if let (None, true) = (&s.value, f.value) {
            found.push(push(
                Diagnostic::error("E0502", format!("`{key}` needs `: value`"), s.span)
                    .with_label("the value is missing"),
            ));
        }
        if let (Some(b), false) = (&s.block, f.block) {
            found.push(push(
                Diagnostic::error("E0502", format!("`{key}` takes no block"), b.span)
                    .with_label("not expected"),
            ));
        }
        self.diags.extend(found);
        ok
    }

    /// Reports a setting that does not fit the world's floor; true when it fits.
    fn fits(&mut self, s: &Setting, fits: Fits) -> bool {
        let Some((floor, floor_span)) = self.floor else {
            return true;
        };
        let (wanted, have) = match (fits, floor) {
            (Fits::Grid, Floor::Area) => ("a grid", "an area"),
            (Fits::Area, Floor::Grid) => ("an area", "a grid"),
            _ => return true,
        };
        self.diags.push(
            Diagnostic::error(
                "E0510",
                format!("`{}` needs {wanted}, and this world is {have}", s.key.name),
                s.key.span,
            )
            .with_label(format!("only in {wanted} world"))
            .with_secondary(floor_span, format!("the world is {have} here")),
        );
        false
    }

    fn once(&mut self, s: &Setting) -> bool {
        let Some(key) = ONCE.iter().find(|k| **k == s.key.name) else {
            return true;
        };
        // `grid` and `area` are one setting: the floor.
        let slot: &'static str = if *key == "area" { "grid" } else { key };
        if let Some((_, first)) = self.seen.iter().find(|(k, _)| *k == slot) {
            let what = if slot == "grid" {
                "a floor (`grid` or `area`)".to_string()
            } else {
                format!("`{key}`")
            };
            self.diags.push(
                Diagnostic::error("E0507", format!("the world already has {what}"), s.key.span)
                    .with_label("given again here")
                    .with_secondary(*first, "first given here"),
            );
            return false;
        }
        self.seen.push((slot, s.key.span));
        true
    }

    fn pair<'s>(s: &'s Setting, key: &str) -> Option<&'s Expr> {
        s.pairs.iter().find(|(k, _)| k.name == key).map(|(_, v)| v)
    }

    fn require_pair<'s>(&mut self, s: &'s Setting, key: &str, example: &str) -> Option<&'s Expr> {
        let v = Self::pair(s, key);
        if v.is_none() {
            self.diags.push(
                Diagnostic::error("E0502", format!("`{}` needs `{key}`", s.key.name), s.span)
                    .with_label(format!("`{key} ...` is missing"))
                    .with_help(format!("write it like `{example}`")),
            );
        }
        v
    }

    // ------------------------------------------------------------ the floor

    fn read_floor(&mut self, settings: &[&Setting], world: &Ident) {
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

    fn read_grid(&mut self, s: &Setting) -> Option<Floor> {
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
    fn grid_labels(
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

    fn read_area(&mut self, s: &Setting) -> Option<Floor> {
        let example = info(SETTINGS, "area").map_or("", |i| i.example);
        let height = self.require_pair(s, "x", example);
        // The unit of the width is the world's unit for bare lengths.
        let unit_m = match literal(&s.args[0]) {
            Some((_, Some(u))) if Measure::of(u) == Measure::Length => to_si(1.0, u),
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

    fn read(&mut self, s: &Setting) {
        let info = info(SETTINGS, &s.key.name).expect("only known settings get here");
        if !self.once(s) || !self.fits(s, info.fits) || !self.check_form(s, info) {
            return;
        }
        match info.key {
            "move_time" => {
                if let Some(ms) = self.positive_time(&s.args[0]) {
                    if let WorldKind::Grid(g) = &mut self.spec.kind {
                        g.move_time_ms = ms;
                    }
                }
            }
            "field" => self.read_field(s),
            "obstacle" => self.read_obstacle(s),
            "guests" => self.read_guests(s),
            "place" | "person" | "teammate" => self.read_landmark(s),
            "mines" => self.read_mines(s),
            "spawn" => self.read_spawn(s),
            "at" => self.read_at(s),
            "raise" | "fail" | "recover" => self.read_recurring(s),
            "messages" => self.read_messages(s),
            "host" => self.read_host(s),
            "log" => self.spec.log = self.reader().string(&s.args[0]),
            "ticks" => self.spec.ticks = self.reader().count(&s.args[0], 1, u64::MAX >> 11),
            "seed" => {
                if let Some(seed) = self.reader().count(&s.args[0], 0, u64::MAX >> 11) {
                    self.spec.seed = seed;
                }
            }
            _ => {}
        }
    }

    fn positive_time(&mut self, e: &Expr) -> Option<u64> {
        let mut r = self.reader();
        let ms = r.time_ms(e)?;
        if ms == 0 {
            r.out_of_range(
                e.span,
                "the time must be longer than zero",
                "must be greater than zero",
            );
            return None;
        }
        Some(ms)
    }

    /// A name not used by another thing of the same namespace.
    fn fresh_name(&mut self, e: &Expr, what: &str, taken: &[String]) -> Option<String> {
        let name = self.reader().name(e, what)?;
        if taken.contains(&name.name) {
            self.diags.push(
                Diagnostic::error(
                    "E0511",
                    format!("`{}` is already defined in this world", name.name),
                    name.span,
                )
                .with_label("defined again here"),
            );
            return None;
        }
        Some(name.name)
    }

    fn thing_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.spec.landmarks.iter().map(|l| l.name.clone()).collect();
        if let Some(a) = self.spec.area() {
            names.extend(a.obstacles.iter().map(|o| o.name.clone()));
        }
        names
    }

    fn read_field(&mut self, s: &Setting) {
        let taken: Vec<String> = self.spec.fields.iter().map(|f| f.name.clone()).collect();
        let name = self.fresh_name(&s.args[0], "a field name", &taken);
        let base = s.assign.as_ref().and_then(|e| self.reader().plain(e));
        let mut field = FieldSpec {
            name: name.clone().unwrap_or_default(),
            base: base.unwrap_or(0.0),
            rules: Vec::new(),
            drift: None,
        };
        for entry in s.block.iter().flat_map(|b| &b.entries) {
            match entry {
                SettingEntry::Setting(rule) => self.read_field_rule(rule, &mut field),
                SettingEntry::Error(_) => {}
                other => self.diags.push(
                    Diagnostic::error("E0501", "this is not a field rule", other.span())
                        .with_label("a field block takes `near`, `at` and `drift`"),
                ),
            }
        }
        if name.is_some() && base.is_some() {
            self.spec.fields.push(field);
        }
    }

    fn read_field_rule(&mut self, s: &Setting, field: &mut FieldSpec) {
        let Some(info) = info(FIELD_RULES, &s.key.name) else {
            self.unknown(&s.key, FIELD_RULES, "a field block");
            return;
        };
        if !self.fits(s, info.fits) || !self.check_form(s, info) {
            return;
        }
        match info.key {
            "drift" => {
                if field.drift.is_some() {
                    self.diags.push(
                        Diagnostic::error("E0507", "the field already drifts", s.key.span)
                            .with_label("given again here"),
                    );
                    return;
                }
                let every = self.require_pair(s, "every", info.example);
                let amount = self.reader().plain(&s.args[0]);
                let every = every.and_then(|e| self.positive_time(e));
                if let (Some(amount), Some(every_ms)) = (amount, every) {
                    if amount < 0.0 {
                        self.reader().out_of_range(
                            s.args[0].span,
                            "a drift must not be negative",
                            "must be zero or more",
                        );
                        return;
                    }
                    field.drift = Some(Drift { amount, every_ms });
                }
            }
            "at" => {
                let value = s.value.as_ref().and_then(|e| self.reader().plain(e));
                let cell = self.grid_cell(&s.args[0]);
                if let (Some(cell), Some(value)) = (cell, value) {
                    field.rules.push(FieldRule::AtCell { cell, value });
                }
            }
            _ => {
                let radius = self.require_pair(s, "radius", info.example);
                let value = s.value.as_ref().and_then(|e| self.reader().plain(e));
                match self.floor {
                    Some((Floor::Grid, _)) => {
                        let centre = self.grid_cell(&s.args[0]);
                        let radius = radius.and_then(|e| self.grid_radius(e));
                        if let (Some(centre), Some(radius), Some(value)) = (centre, radius, value) {
                            field.rules.push(FieldRule::NearCell {
                                centre,
                                radius,
                                value,
                            });
                        }
                    }
                    Some((Floor::Area, _)) => {
                        let centre = self.area_point(&s.args[0]);
                        let radius = radius.and_then(|e| self.reader().size(e, false));
                        if let (Some(centre), Some(radius), Some(value)) = (centre, radius, value) {
                            field.rules.push(FieldRule::NearPoint {
                                centre,
                                radius,
                                value,
                            });
                        }
                    }
                    None => {}
                }
            }
        }
    }

    /// A radius on a grid, in cells: a bare number counts cells, a length is divided by the
    /// cell size.
    fn grid_radius(&mut self, e: &Expr) -> Option<f64> {
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
    fn grid_cell(&mut self, e: &Expr) -> Option<Cell> {
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
    fn area_point(&mut self, e: &Expr) -> Option<Point> {
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

    fn read_obstacle(&mut self, s: &Setting) {
        let example = "obstacle food_table at (25ft, 49ft) size 4ft x 2ft;";
        let taken = self.thing_names();
        let name = self.fresh_name(&s.args[0], "an obstacle name", &taken);
        let at = self
            .require_pair(s, "at", example)
            .and_then(|e| self.area_point(e));
        let shape = match (Self::pair(s, "size"), Self::pair(s, "radius")) {
            (Some(w), None) => {
                let mut r = self.reader();
                let width = r.size(w, true);
                let height = match Self::pair(s, "x") {
                    Some(h) => r.size(h, true),
                    None => width,
                };
                at.zip(width.zip(height))
                    .map(|(centre, (width, height))| Shape::Rect {
                        centre,
                        width,
                        height,
                    })
            }
            (None, Some(rad)) => {
                if let Some((x, _)) = s.pairs.iter().find(|(k, _)| k.name == "x") {
                    self.diags.push(
                        Diagnostic::error("E0502", "a round obstacle takes no `x`", x.span)
                            .with_label("only with `size`"),
                    );
                    return;
                }
                let radius = self.reader().size(rad, true);
                at.zip(radius)
                    .map(|(centre, radius)| Shape::Circle { centre, radius })
            }
            _ => {
                self.diags.push(
                    Diagnostic::error(
                        "E0502",
                        "an obstacle needs either `size W x H` or `radius R`",
                        s.span,
                    )
                    .with_label("give its size or its radius")
                    .with_help(format!("write it like `{example}`")),
                );
                return;
            }
        };
        if let (Some(name), Some(shape), WorldKind::Area(a)) = (name, shape, &mut self.spec.kind) {
            a.obstacles.push(Obstacle { name, shape });
        }
    }

    fn read_guests(&mut self, s: &Setting) {
        let example = info(SETTINGS, "guests").map_or("", |i| i.example);
        let speed_e = self.require_pair(s, "speed", example);
        let walk_e = self.require_pair(s, "duration", example);
        let mut r = self.reader();
        let count = r.count(&s.args[0], 0, 100_000);
        let unit_m = r.unit_m;
        // Speeds are bare numbers: world units per second.
        let mut speed_of = |r: &mut Reader, e: &Expr| {
            let v = r.plain(e)?;
            Some(v * unit_m)
        };
        let secs = |r: &mut Reader, e: &Expr| r.duration_ms(e).map(|ms| ms / 1000.0);
        let speed = speed_e.and_then(|e| distribution(&mut r, e, &mut speed_of));
        let walk = walk_e.and_then(|e| distribution(&mut r, e, &mut { secs }));
        let pause = match Self::pair(s, "pause") {
            Some(e) => distribution(&mut r, e, &mut { secs }),
            None => Some(Triangular::constant(0.0)),
        };
        let (Some(count), Some(speed), Some(walk), Some(pause)) = (count, speed, walk, pause)
        else {
            return;
        };
        let Some(area) = self.spec.area() else { return };
        // Random placement needs room: beyond about 40 % of the floor it may never finish.
        let footprint = count as f64 * area.body_m * area.body_m;
        if footprint > 0.4 * area.width_m * area.height_m {
            self.reader().out_of_range(
                s.args[0].span,
                format!("{count} guests do not fit in the area"),
                "their bodies would cover more than 40 % of the floor",
            );
            return;
        }
        if walk.max <= 0.0 && count > 0 {
            self.reader().out_of_range(
                walk_e.map_or(s.span, |e| e.span),
                "guests must walk for some time",
                "the longest walk must be longer than zero",
            );
            return;
        }
        if let WorldKind::Area(a) = &mut self.spec.kind {
            a.guests = Some(GuestSpec {
                count: count as u32,
                speed,
                walk,
                pause,
            });
        }
    }

    fn read_landmark(&mut self, s: &Setting) {
        let kind = match s.key.name.as_str() {
            "person" => LandmarkKind::Person,
            "teammate" => LandmarkKind::Teammate,
            _ => LandmarkKind::Place,
        };
        let example = info(SETTINGS, &s.key.name).map_or("", |i| i.example);
        let taken = self.thing_names();
        let name = self.fresh_name(&s.args[0], "a name", &taken);
        let at = self
            .require_pair(s, "at", example)
            .and_then(|e| self.area_point(e));
        let familiarity = match Self::pair(s, "familiarity") {
            Some(e) => self.reader().plain_in(e, 0.0, 100.0).map(Some),
            None => Some(None),
        };
        let toward = match Self::pair(s, "toward") {
            Some(e) => self.area_point(e).map(Some),
            None => Some(None),
        };
        if let (Some(name), Some(position), Some(familiarity), Some(toward)) =
            (name, at, familiarity, toward)
        {
            self.spec.landmarks.push(Landmark {
                kind,
                name,
                position,
                familiarity,
                toward,
            });
        }
    }

    fn read_mines(&mut self, s: &Setting) {
        for e in &s.args {
            if let Some(position) = self.area_point(e) {
                self.mine_count += 1;
                self.spec.landmarks.push(Landmark {
                    kind: LandmarkKind::Mine,
                    name: format!("mine{}", self.mine_count),
                    position,
                    familiarity: None,
                    toward: None,
                });
            }
        }
    }

    fn read_spawn(&mut self, s: &Setting) {
        let agent = self.reader().name(&s.args[0], "an agent name");
        let count = match Self::pair(s, "count") {
            Some(e) => self.reader().count(e, 1, 100_000),
            None => Some(1),
        };
        let at = self
            .require_pair(s, "at", "spawn Navigator at P;")
            .and_then(|e| self.spawn_place(e));
        let heading = match Self::pair(s, "heading") {
            Some(e) => self.reader().heading_deg(e).map(Some),
            None => Some(None),
        };
        let mut init = Vec::new();
        let mut init_ok = true;
        for (k, v) in &s.pairs {
            if ["at", "count", "heading"].contains(&k.name.as_str()) {
                continue;
            }
            match self.init_value(v) {
                Some(value) => init.push((
                    NameRef {
                        name: k.name.clone(),
                        span: k.span,
                    },
                    value,
                )),
                None => init_ok = false,
            }
        }
        let (Some(agent), Some(count), Some(at), Some(heading_deg), true) =
            (agent, count, at, heading, init_ok)
        else {
            return;
        };
        if count > 1 && at != SpawnAt::Random {
            let span = Self::pair(s, "count").map_or(s.span, |e| e.span);
            self.diags.push(
                Diagnostic::error(
                    "E0509",
                    format!("{count} agents cannot start on one spot"),
                    span,
                )
                .with_label("several agents need `at random`"),
            );
            return;
        }
        if let SpawnAt::Point(p) = at {
            if let Some(o) = self
                .spec
                .area()
                .and_then(|a| a.obstacles.iter().find(|o| inside(o.shape, p)))
            {
                let name = o.name.clone();
                self.diags.push(
                    Diagnostic::error(
                        "E0509",
                        format!("`{}` would start inside obstacle `{name}`", agent.name),
                        s.span,
                    )
                    .with_label("this spot is taken by an obstacle"),
                );
                return;
            }
        }
        if let SpawnAt::Cell(cell) = at {
            if let Some(other) = self
                .spec
                .spawns
                .iter()
                .find(|o| o.at == SpawnAt::Cell(cell))
            {
                let (name, first) = (other.agent.name.clone(), other.span);
                self.diags.push(
                    Diagnostic::error(
                        "E0509",
                        format!(
                            "`{}` would start on the cell `{name}` starts on",
                            agent.name
                        ),
                        s.span,
                    )
                    .with_label("this cell is taken")
                    .with_secondary(first, "taken here"),
                );
                return;
            }
        }
        self.spec.spawns.push(SpawnSpec {
            agent,
            count: count as u32,
            at,
            heading_deg,
            init,
            span: s.span,
        });
    }

    fn spawn_place(&mut self, e: &Expr) -> Option<SpawnAt> {
        if bare_name(e) == Some("random") {
            return Some(SpawnAt::Random);
        }
        match self.floor {
            Some((Floor::Grid, _)) => self.grid_cell(e).map(SpawnAt::Cell),
            Some((Floor::Area, _)) => self.area_point(e).map(SpawnAt::Point),
            None => None,
        }
    }

    fn init_value(&mut self, e: &Expr) -> Option<InitValue> {
        if let Some((v, unit)) = literal(e) {
            let (value, dim) = match unit {
                None => (v, Dim::None),
                Some(u) => {
                    let dim = match Measure::of(u) {
                        Measure::Length => Dim::Length,
                        Measure::Time => Dim::Time,
                        Measure::Frequency => Dim::Frequency,
                        Measure::Angle => Dim::Angle,
                    };
                    (to_si(v, u), dim)
                }
            };
            return Some(InitValue::Num { value, dim });
        }
        match &e.kind {
            ExprKind::Bool(b) => Some(InitValue::Bool(*b)),
            ExprKind::Str(s) => Some(InitValue::Str(s.clone())),
            ExprKind::Tuple(_) => self.reader().point(e).map(InitValue::Point),
            _ => match bare_name(e) {
                Some(n) => Some(InitValue::Name(n.to_string())),
                None => {
                    self.diags.push(
                        Diagnostic::error("E0502", "an initial value must be a literal", e.span)
                            .with_label(
                                "write a number, `true`/`false`, a string, a point or a name",
                            ),
                    );
                    None
                }
            },
        }
    }

    fn read_at(&mut self, s: &Setting) {
        let at = self.reader().time_ms(&s.args[0]);
        let action = self.event_action(s, None);
        let every = match Self::pair(s, "every") {
            Some(e) => self.reader().interval(e).map(Some),
            None => Some(None),
        };
        let until = self.until(s);
        if let (Some(at), Some(action), Some(every), Some(until_ms)) = (at, action, every, until) {
            self.spec.events.push(ScriptedEvent {
                action,
                at_ms: Some(at),
                every,
                until_ms,
                span: s.span,
            });
        }
    }

    fn read_recurring(&mut self, s: &Setting) {
        let action = self.event_action(s, Some(&s.args[0]));
        let every = self
            .require_pair(
                s,
                "every",
                "raise treat_taken on Butler every exponential(mean: 4s);",
            )
            .and_then(|e| self.reader().interval(e));
        let until = self.until(s);
        if let (Some(action), Some(every), Some(until_ms)) = (action, every, until) {
            self.spec.events.push(ScriptedEvent {
                action,
                at_ms: None,
                every: Some(every),
                until_ms,
                span: s.span,
            });
        }
    }

    fn until(&mut self, s: &Setting) -> Option<Option<u64>> {
        match Self::pair(s, "until") {
            Some(e) => self.reader().time_ms(e).map(Some),
            None => Some(None),
        }
    }

    /// What a scripted event does. For `at` the verb is one of the pairs; for `raise E ...`
    /// (`verb_arg`) the verb is the key and its object the argument.
    fn event_action(&mut self, s: &Setting, verb_arg: Option<&Expr>) -> Option<EventAction> {
        let verbs: Vec<&(Ident, Expr)> = match verb_arg {
            Some(_) => Vec::new(),
            None => s
                .pairs
                .iter()
                .filter(|(k, _)| ["raise", "fail", "recover", "send"].contains(&k.name.as_str()))
                .collect(),
        };
        let (verb, object) = match verb_arg {
            Some(arg) => (s.key.name.as_str(), arg),
            None => match verbs.as_slice() {
                [(k, v)] => (k.name.as_str(), v),
                [] => {
                    self.diags.push(
                        Diagnostic::error("E0502", "the scripted event does nothing", s.span)
                            .with_label("say what happens at this time")
                            .with_help("write `raise EVENT on AGENT`, `fail COMPONENT on AGENT`, `recover COMPONENT on AGENT` or `send \"message\" to AGENT`"),
                    );
                    return None;
                }
                [_, (second, _), ..] => {
                    self.diags.push(
                        Diagnostic::error(
                            "E0502",
                            "one scripted event does one thing",
                            second.span,
                        )
                        .with_label("a second action")
                        .with_help("write one `at` setting per action"),
                    );
                    return None;
                }
            },
        };
        let (wrong, right): (&[&str], &str) = if verb == "send" {
            (&["on"], "to")
        } else {
            (&["to", "from"], "on")
        };
        if let Some((k, _)) = s
            .pairs
            .iter()
            .find(|(k, _)| wrong.contains(&k.name.as_str()))
        {
            self.diags.push(
                Diagnostic::error(
                    "E0502",
                    format!("`{verb}` takes `{right}`, not `{}`", k.name),
                    k.span,
                )
                .with_label(format!("use `{right}`")),
            );
            return None;
        }
        let on = |cx: &mut Self, key: &str| match Self::pair(s, key) {
            Some(e) => cx.reader().name(e, "an agent name").map(Some),
            None => Some(None),
        };
        match verb {
            "send" => {
                let message = match &object.kind {
                    ExprKind::Str(m) => Some(m.clone()),
                    _ => self.reader().name(object, "a message").map(|n| n.name),
                };
                let (to, from) = (on(self, "to"), on(self, "from"));
                Some(EventAction::Send {
                    message: message?,
                    from: from?,
                    to: to?,
                })
            }
            _ => {
                let what = if verb == "raise" {
                    "an event name"
                } else {
                    "a component name"
                };
                let name = self.reader().name(object, what);
                let agent = on(self, "on");
                let (name, agent) = (name?, agent?);
                Some(match verb {
                    "raise" => EventAction::Raise { event: name, agent },
                    "fail" => EventAction::Fail {
                        component: name,
                        agent,
                    },
                    _ => EventAction::Recover {
                        component: name,
                        agent,
                    },
                })
            }
        }
    }

    fn read_messages(&mut self, s: &Setting) {
        let mode = match bare_name(&s.args[0]) {
            Some("broadcast") => Delivery::Broadcast,
            Some("unicast") => Delivery::Unicast,
            _ => {
                self.diags.push(
                    Diagnostic::error(
                        "E0502",
                        "messages are `broadcast` or `unicast`",
                        s.args[0].span,
                    )
                    .with_label("expected `broadcast` or `unicast`"),
                );
                return;
            }
        };
        let mut m = MessageSpec {
            mode,
            ..MessageSpec::default()
        };
        let mut ok = true;
        if let Some(e) = Self::pair(s, "loss") {
            match self.reader().plain_in(e, 0.0, 1.0) {
                Some(p) => m.loss = p,
                None => ok = false,
            }
        }
        if let Some(e) = Self::pair(s, "range") {
            match self.reader().size(e, true) {
                Some(r) => m.range_m = Some(r),
                None => ok = false,
            }
        }
        if let Some(e) = Self::pair(s, "latency") {
            match self.reader().time_ms(e) {
                Some(ms) => m.latency_ms = ms,
                None => ok = false,
            }
        }
        if ok {
            self.spec.messages = m;
        }
    }

    fn read_host(&mut self, s: &Setting) {
        let taken: Vec<String> = self.spec.hosts.iter().map(|h| h.name.clone()).collect();
        let name = self.fresh_name(&s.args[0], "a host name", &taken);
        let runs = self.require_pair(
            s,
            "runs",
            "host laptop2 runs [speech_recognition, speech_production];",
        );
        let components = runs.and_then(|e| match &e.kind {
            ExprKind::List(items) => {
                let names: Vec<Option<NameRef>> = items
                    .iter()
                    .map(|i| self.reader().name(i, "a component name"))
                    .collect();
                names.into_iter().collect::<Option<Vec<_>>>()
            }
            _ => self
                .reader()
                .name(e, "a list of components like `[robot, laser]`")
                .map(|n| vec![n]),
        });
        if let (Some(name), Some(components)) = (name, components) {
            self.spec.hosts.push(HostSpec { name, components });
        }
    }

    /// More agents on a grid than it has cells, counting the random ones.
    fn check_grid_spawns(&mut self) {
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

/// A point inside an obstacle's shape.
fn inside(shape: Shape, p: Point) -> bool {
    match shape {
        Shape::Rect {
            centre,
            width,
            height,
        } => (p.x - centre.x).abs() < width / 2.0 && (p.y - centre.y).abs() < height / 2.0,
        Shape::Circle { centre, radius } => p.distance(centre) < radius,
    }
}

/// A triangular distribution, or a single value meaning a constant.
fn distribution(
    r: &mut Reader,
    e: &Expr,
    read: &mut dyn FnMut(&mut Reader, &Expr) -> Option<f64>,
) -> Option<Triangular> {
    if literal(e).is_some() {
        let v = read(r, e)?;
        if v < 0.0 {
            r.out_of_range(
                e.span,
                "the value must not be negative",
                "must be zero or more",
            );
            return None;
        }
        return Some(Triangular::constant(v));
    }
    r.triangular(e, read)
}

/// A number for a message: `50`, not `50.0000001`.
fn trim(v: f64) -> String {
    let r = (v * 1000.0).round() / 1000.0;
    format!("{r}")
}
