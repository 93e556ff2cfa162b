//! `world Name { settings }` → [`WorldSpec`]. The floor (`grid` or `area`) is read first,
//! because it decides what a bare length means and which other settings make sense; every
//! other setting is then read in written order.

use super::values::Reader;
use super::*;
use crate::diagnostic::Diagnostic;
use crate::suggest::closest;
use crate::syntax::ast::{Expr, Ident, Setting, SettingBlock, SettingEntry, WorldDecl};

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

/// The words of a world that make something happen: put an agent in, raise an event, fail
/// or recover a component, send a message (as setting keys, `spawn UAV at (0, 0);`, or in an
/// event's pairs, `at 40s raise loud_noise on Navigator;`). The editor grammars highlight them
/// as keywords; tests/editor_keywords.rs holds their lists to this one.
pub const WORLD_VERBS: &[&str] = &["spawn", "raise", "fail", "recover", "send"];

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
    setting("host", Fits::Any, form(1, 1, &["runs", "has"]), "host laptop2 runs [speech_recognition, speech_production] has [microphone, speaker];", "where components run"),
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

pub(super) fn info(table: &'static [WorldSetting], key: &str) -> Option<&'static WorldSetting> {
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
pub(super) enum Floor {
    Grid,
    Area,
}

pub(super) struct Lowering<'d> {
    pub(super) diags: &'d mut Vec<Diagnostic>,
    pub(super) spec: WorldSpec,
    /// `None` when the world has no usable floor: kind-specific checks are then skipped,
    /// so one missing `grid` does not drown the file in follow-up errors.
    pub(super) floor: Option<(Floor, Span)>,
    /// Settings seen so far that may appear once, with where.
    pub(super) seen: Vec<(&'static str, Span)>,
    pub(super) mine_count: usize,
}

impl Lowering<'_> {
    pub(super) fn reader(&mut self) -> Reader<'_> {
        Reader {
            diags: self.diags,
            unit_m: self.spec.unit_m,
        }
    }

    /// The block's settings whose key is known; unknown keys and entries that are not
    /// settings are reported.
    pub(super) fn known_settings<'a>(&mut self, body: &'a SettingBlock) -> Vec<&'a Setting> {
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

    pub(super) fn unknown(&mut self, key: &Ident, table: &'static [WorldSetting], block: &str) {
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
    pub(super) fn check_form(&mut self, s: &Setting, info: &WorldSetting) -> bool {
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
    pub(super) fn fits(&mut self, s: &Setting, fits: Fits) -> bool {
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

    pub(super) fn once(&mut self, s: &Setting) -> bool {
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

    pub(super) fn pair<'s>(s: &'s Setting, key: &str) -> Option<&'s Expr> {
        s.pairs.iter().find(|(k, _)| k.name == key).map(|(_, v)| v)
    }

    pub(super) fn require_pair<'s>(
        &mut self,
        s: &'s Setting,
        key: &str,
        example: &str,
    ) -> Option<&'s Expr> {
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

    pub(super) fn read(&mut self, s: &Setting) {
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

    pub(super) fn positive_time(&mut self, e: &Expr) -> Option<u64> {
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
    pub(super) fn fresh_name(&mut self, e: &Expr, what: &str, taken: &[String]) -> Option<String> {
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

    pub(super) fn thing_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.spec.landmarks.iter().map(|l| l.name.clone()).collect();
        if let Some(a) = self.spec.area() {
            names.extend(a.obstacles.iter().map(|o| o.name.clone()));
        }
        names
    }
}

#[cfg(test)]
mod verb_tests {
    use super::{EVENT_PAIRS, SETTINGS, WORLD_VERBS};

    /// The verbs the editors highlight are words the world reads: setting keys or event pairs.
    #[test]
    fn world_verbs_are_settings_or_event_pairs() {
        for verb in WORLD_VERBS {
            assert!(
                SETTINGS.iter().any(|s| s.key == *verb) || EVENT_PAIRS.contains(verb),
                "{verb} is neither a world setting nor an event pair"
            );
        }
    }
}
