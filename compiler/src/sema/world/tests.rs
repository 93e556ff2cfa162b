use super::*;
use crate::syntax::ast::ItemKind;

/// Every world of a source text, lowered; the text must parse cleanly.
fn lower_all(src: &str) -> Vec<(WorldSpec, Vec<Diagnostic>)> {
    let parsed = crate::syntax::parse(src);
    assert!(
        parsed.diagnostics.is_empty(),
        "parse errors: {:?}",
        parsed
            .diagnostics
            .iter()
            .map(|d| (&d.code, &d.message))
            .collect::<Vec<_>>()
    );
    parsed
        .file
        .items
        .iter()
        .filter_map(|item| match &item.kind {
            ItemKind::World(w) => Some(lower_world(w)),
            _ => None,
        })
        .collect()
}

use crate::diagnostic::Diagnostic;

fn lower_one(src: &str) -> (WorldSpec, Vec<Diagnostic>) {
    let mut all = lower_all(src);
    assert_eq!(all.len(), 1, "expected one world");
    all.remove(0)
}

fn codes(src: &str) -> Vec<&'static str> {
    lower_one(src).1.iter().map(|d| d.code).collect()
}

fn world(body: &str) -> String {
    format!("world W {{\n{body}\n}}\n")
}

const GRID: &str = "grid 5 x 5 cell 24cm labels \"OITWG / SDA.U / HXKVN / CMFRE / PQLBJ\";";

#[test]
fn every_example_world_lowers_cleanly() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .expect("the examples folder")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "affect"))
        .collect();
    paths.sort();
    let mut worlds = 0;
    for path in paths {
        let src = std::fs::read_to_string(&path).expect("an example");
        let parsed = crate::syntax::parse(&src);
        for item in &parsed.file.items {
            if let ItemKind::World(w) = &item.kind {
                worlds += 1;
                let (_, diags) = lower_world(w);
                let found: Vec<String> = diags
                    .iter()
                    .map(|d| format!("{}: {}", d.code, d.message))
                    .collect();
                assert!(
                    found.is_empty(),
                    "{}: world {}: {found:#?}",
                    path.display(),
                    w.name.name
                );
            }
        }
    }
    assert!(worlds >= 5, "expected a world per example, found {worlds}");
}

#[test]
fn the_letter_grid() {
    let (spec, diags) = lower_one(&world(&format!(
        "{GRID}
        field light = 50 {{ near O radius 2: 90; at X: 10; at K: 10; }}
        field sound = 50 {{ near J radius 1: 80; }}
        spawn Navigator at P;
        at 40s raise loud_noise on Navigator;
        ticks 600;
        seed 7;"
    )));
    assert!(diags.is_empty(), "{diags:?}");
    let grid = spec.grid().expect("a grid");
    assert_eq!((grid.cols, grid.rows), (5, 5));
    assert!((grid.cell_m - 0.24).abs() < 1e-12);
    assert_eq!(grid.label(Cell { col: 0, row: 0 }), Some('O'));
    assert_eq!(grid.label(Cell { col: 3, row: 1 }), None, "the blank cell");
    assert_eq!(grid.find('P'), Some(Cell { col: 0, row: 4 }));
    assert_eq!(grid.move_time_ms, DEFAULT_MOVE_TIME_MS);
    assert_eq!(spec.unit_m, grid.cell_m);
    let light = spec.field("light").expect("light");
    assert_eq!(light.base, 50.0);
    assert_eq!(
        light.rules[0],
        FieldRule::NearCell {
            centre: Cell { col: 0, row: 0 },
            radius: 2.0,
            value: 90.0
        }
    );
    assert_eq!(
        light.rules[1],
        FieldRule::AtCell {
            cell: Cell { col: 1, row: 2 },
            value: 10.0
        }
    );
    assert_eq!(spec.spawns[0].agent.name, "Navigator");
    assert_eq!(spec.spawns[0].at, SpawnAt::Cell(Cell { col: 0, row: 4 }));
    assert_eq!(spec.events[0].at_ms, Some(40_000));
    assert!(
        matches!(&spec.events[0].action, EventAction::Raise { event, agent: Some(a) }
        if event.name == "loud_noise" && a.name == "Navigator")
    );
    assert_eq!((spec.ticks, spec.seed), (Some(600), 7));
}

#[test]
fn the_reception_hall_is_in_feet() {
    let (spec, diags) = lower_one(&world(
        "area 50ft x 50ft cell 2ft;
        obstacle food_table at (25ft, 49ft) size 4ft x 2ft;
        guests 100 speed triangular(min: 0.5, mode: 1.5, max: 3) duration triangular(min: 2s, mode: 6s, max: 15s) pause triangular(min: 1s, mode: 4s, max: 20s);
        spawn Butler at (25ft, 25ft);
        raise treat_taken on Butler every exponential(mean: 4s);
        log \"cars.log\";",
    ));
    assert!(diags.is_empty(), "{diags:?}");
    let ft = 0.3048;
    assert!((spec.unit_m - ft).abs() < 1e-12);
    let area = spec.area().expect("an area");
    assert!((area.width_m - 50.0 * ft).abs() < 1e-9);
    assert!((area.body_m - 2.0 * ft).abs() < 1e-9);
    let guests = area.guests.as_ref().expect("guests");
    assert_eq!(guests.count, 100);
    assert!(
        (guests.speed.mode - 1.5 * ft).abs() < 1e-12,
        "speeds are feet per second"
    );
    assert_eq!(
        guests.walk,
        Triangular {
            min: 2.0,
            mode: 6.0,
            max: 15.0
        }
    );
    assert_eq!(guests.pause.max, 20.0);
    assert!(
        matches!(area.obstacles[0].shape, Shape::Rect { width, .. } if (width - 4.0 * ft).abs() < 1e-9)
    );
    let ev = &spec.events[0];
    assert_eq!(ev.at_ms, None);
    assert_eq!(ev.every, Some(Interval::Exponential { mean: 4000.0 }));
    assert_eq!(spec.log.as_deref(), Some("cars.log"));
}

#[test]
fn spawns_carry_initial_values() {
    let (spec, diags) = lower_one(&world(
        "area 100 x 100;
        messages unicast loss 0.1 range 30 latency 50ms;
        spawn UGV at (50, 0) tasked true x_from 50 mode Scan name \"g1\" home (1, 2) heading 90deg wait 10s reach 30cm;
        spawn UGV count 10 at random;",
    ));
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(spec.unit_m, 1.0);
    let s = &spec.spawns[0];
    assert_eq!(s.heading_deg, Some(90.0));
    let init: Vec<(&str, &InitValue)> = s.init.iter().map(|(k, v)| (k.name.as_str(), v)).collect();
    let num = |i: usize| match init[i].1 {
        InitValue::Num { value, measure, .. } => (init[i].0, *value, *measure),
        other => panic!("{other:?}"),
    };
    // Numbers in the runtime's units: milliseconds, metres.
    assert_eq!(num(1), ("x_from", 50.0, None));
    assert_eq!(num(5), ("wait", 10_000.0, Some(Measure::Time)));
    assert_eq!(num(6), ("reach", 0.3, Some(Measure::Length)));
    assert_eq!(
        [init[0], init[2], init[3], init[4]],
        [
            ("tasked", &InitValue::Bool(true)),
            ("mode", &InitValue::Name("Scan".into())),
            ("name", &InitValue::Str("g1".into())),
            ("home", &InitValue::Point(Point::new(1.0, 2.0))),
        ]
    );
    assert_eq!(
        (spec.spawns[1].count, spec.spawns[1].at),
        (10, SpawnAt::Random)
    );
    assert_eq!(spec.messages.mode, Delivery::Unicast);
    assert_eq!(spec.messages.range_m, Some(30.0));
    assert_eq!(spec.messages.latency_ms, 50);
}

#[test]
fn scripted_events_of_every_kind() {
    let (spec, diags) = lower_one(&world(
        "area 30m x 30m;
        at 40s fail speech_recognition on Peoplebot;
        at 1min recover speech_recognition on Peoplebot;
        at 10s send \"hello\" to UGV from UAV;
        at 5s raise tick every 5s until 1min;
        fail registry every uniform(min: 10s, max: 20s);",
    ));
    assert!(diags.is_empty(), "{diags:?}");
    assert!(
        matches!(&spec.events[0].action, EventAction::Fail { component, .. } if component.name == "speech_recognition")
    );
    assert_eq!(spec.events[1].at_ms, Some(60_000));
    assert!(
        matches!(&spec.events[2].action, EventAction::Send { message, to: Some(t), from: Some(f) }
        if message == "hello" && t.name == "UGV" && f.name == "UAV")
    );
    assert_eq!(spec.events[3].every, Some(Interval::Fixed(5000.0)));
    assert_eq!(spec.events[3].until_ms, Some(60_000));
    assert!(matches!(
        &spec.events[3].action,
        EventAction::Raise { agent: None, .. }
    ));
    assert_eq!(
        spec.events[4].every,
        Some(Interval::Uniform {
            min: 10_000.0,
            max: 20_000.0
        })
    );
}

#[test]
fn hosts_run_components_and_have_hardware() {
    let (spec, diags) = lower_one(&world(
        "area 30m x 30m;
        host laptop2 runs [speech_recognition, speech_production] has [microphone, speaker];
        host onboard runs robot has sick_laser;
        host spare runs [];",
    ));
    assert!(diags.is_empty(), "{diags:?}");
    let names = |h: &HostSpec| {
        h.components
            .iter()
            .map(|c| c.name.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        names(&spec.hosts[0]),
        ["speech_recognition", "speech_production"]
    );
    assert_eq!(spec.hosts[0].hardware, ["microphone", "speaker"]);
    assert_eq!(spec.hosts[1].hardware, ["sick_laser"]);
    assert!(spec.hosts[2].hardware.is_empty(), "no `has`: no hardware");
    // A device name is a name, not a number.
    assert!(!codes(&world("host laptop1 runs [a] has [3];")).is_empty());
}

#[test]
fn an_area_field_with_drift_and_people() {
    let (spec, diags) = lower_one(&world(
        "area 5m x 4m;
        field strength = 20 { near (2m, 2m) radius 1m: 90; drift 5 every 30s; }
        place ball at (3.5m, 1m);
        person Alice at (4.5m, 3.5m) familiarity 90;
        teammate Astronaut at (0.5m, 0.5m) toward (4m, 3m);
        obstacle pillar at (2.5m, 2m) radius 30cm;",
    ));
    assert!(diags.is_empty(), "{diags:?}");
    let f = &spec.fields[0];
    assert_eq!(
        f.drift,
        Some(Drift {
            amount: 5.0,
            every_ms: 30_000
        })
    );
    assert_eq!(
        f.rules[0],
        FieldRule::NearPoint {
            centre: Point::new(2.0, 2.0),
            radius: 1.0,
            value: 90.0
        }
    );
    assert_eq!(spec.landmarks[0].kind, LandmarkKind::Place);
    assert_eq!(spec.landmarks[1].familiarity, Some(90.0));
    assert_eq!(spec.landmarks[2].toward, Some(Point::new(4.0, 3.0)));
    assert!(
        matches!(spec.area().unwrap().obstacles[0].shape, Shape::Circle { radius, .. } if (radius - 0.3).abs() < 1e-12)
    );
}

#[test]
fn unknown_settings_suggest_the_closest() {
    let (_, diags) = lower_one(&world(&format!("{GRID}\nspwan Navigator at P;")));
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].code, "E0501");
    assert_eq!(diags[0].help.as_deref(), Some("did you mean `spawn`?"));
    let src = world(&format!(
        "{GRID}\nfield light = 50 {{ naer O radius 1: 9; }}"
    ));
    let (_, diags) = lower_one(&src);
    assert_eq!(diags[0].code, "E0501");
    assert_eq!(diags[0].help.as_deref(), Some("did you mean `near`?"));
    assert_eq!(&src[diags[0].primary.span.range()], "naer");
}

#[test]
fn diagnostics_point_at_the_bad_value() {
    let src = world(&format!("{GRID}\nspawn Navigator at Z;"));
    let (_, diags) = lower_one(&src);
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].code, "E0505");
    assert_eq!(&src[diags[0].primary.span.range()], "Z");

    let src = world("area 10m x 10m;\nat 40 raise e on A;");
    let (_, diags) = lower_one(&src);
    assert_eq!(diags[0].code, "E0503");
    assert_eq!(&src[diags[0].primary.span.range()], "40");

    let src = world("area 10m x 10m cell 2s;");
    assert_eq!(codes(&src), ["E0503"]);
}

#[test]
fn shapes_and_ranges() {
    assert_eq!(
        codes(&world("grid 5 x 5 cell 24cm;")),
        ["E0502"],
        "labels missing"
    );
    assert_eq!(codes(&world("area -3m x 4m;")), ["E0504"]);
    assert_eq!(
        codes(&world("grid 2 x 2 cell 24 labels \"AB/CD\";")),
        ["E0503"]
    );
    assert_eq!(
        codes(&world("grid 2 x 2 cell 24cm labels \"AB/CA\";")),
        ["E0506"],
        "duplicate label"
    );
    assert_eq!(
        codes(&world("grid 2 x 2 cell 24cm labels \"AB/C-\";")),
        ["E0506"]
    );
    assert_eq!(
        codes(&world("area 10m x 10m;\nspawn A at (1m, 1m) at (2m, 2m);")),
        ["E0502"]
    );
    assert_eq!(
        codes(&world(
            "area 10m x 10m;\nguests 2 speed triangular(min: 3, mode: 1, max: 2) duration 5s;"
        )),
        ["E0504"]
    );
    assert_eq!(
        codes(&world(
            "area 10m x 10m;\nguests 2 speed triangular(1, 2) duration 5s;"
        )),
        ["E0502"]
    );
    assert_eq!(
        codes(&world(
            "area 4m x 4m cell 1m;\nguests 100 speed 1 duration 5s;"
        )),
        ["E0504"],
        "too crowded"
    );
    assert_eq!(
        codes(&world("area 10m x 10m;\nat 1s;")),
        ["E0502"],
        "does nothing"
    );
    assert_eq!(
        codes(&world("area 10m x 10m;\nat 1s raise e on A fail c;")),
        ["E0502"]
    );
    assert_eq!(
        codes(&world("area 10m x 10m;\nraise e on A;")),
        ["E0502"],
        "needs every"
    );
    assert_eq!(codes(&world("area 10m x 10m;\nmessages shout;")), ["E0502"]);
    assert_eq!(codes(&world("area 10m x 10m;\nticks 0;")), ["E0504"]);
    assert_eq!(codes(&world("area 10m x 10m;\nlog 3;")), ["E0502"]);
    assert_eq!(
        codes(&world(
            "area 10m x 10m;\nraise e every exponential(rate: 0Hz);"
        )),
        ["E0504"]
    );
    assert_eq!(
        codes(&world(
            "area 10m x 10m;\nraise e every exponential(rate: 2s);"
        )),
        ["E0503"]
    );
    assert_eq!(
        codes(&world(
            "area 10m x 10m;\nraise e every exponential(rate: x);"
        )),
        ["E0502"]
    );
    let (spec, _) = lower_one(&world(
        "area 10m x 10m;\nraise e every exponential(rate: 0.25Hz);",
    ));
    assert_eq!(
        spec.events[0].every,
        Some(Interval::Exponential { mean: 4000.0 })
    );
}

#[test]
fn positions_and_kinds() {
    assert_eq!(
        codes(&world("area 10m x 10m;\nspawn A at (11m, 1m);")),
        ["E0509"]
    );
    assert_eq!(
        codes(&world(
            "area 10m x 10m;\nobstacle t at (5m, 5m) size 2m;\nspawn A at (5m, 5m);"
        )),
        ["E0509"]
    );
    assert_eq!(
        codes(&world(&format!("{GRID}\nspawn A at P;\nspawn B at P;"))),
        ["E0509"]
    );
    assert_eq!(
        codes(&world(&format!("{GRID}\nspawn A count 2 at P;"))),
        ["E0509"]
    );
    assert_eq!(
        codes(&world(
            "grid 1 x 2 cell 1m labels \"A/B\";\nspawn A count 3 at random;"
        )),
        ["E0509"]
    );
    assert_eq!(
        codes(&world(&format!("{GRID}\nspawn A at (1m, 1m);"))),
        ["E0510"]
    );
    assert_eq!(codes(&world("area 10m x 10m;\nspawn A at P;")), ["E0510"]);
    assert_eq!(codes(&world("area 10m x 10m;\nmove_time 2s;")), ["E0510"]);
    assert_eq!(
        codes(&world("area 10m x 10m;\nfield f = 1 { at X: 2; }")),
        ["E0510"]
    );
    assert_eq!(
        codes(&world(&format!(
            "{GRID}\nfield f = 1 {{ near (1m, 1m) radius 1: 2; }}"
        ))),
        ["E0510"]
    );
    assert_eq!(
        codes(&world("area 10m x 10m;\nfield f = 1;\nfield f = 2;")),
        ["E0511"]
    );
    assert_eq!(codes(&world("area 10m x 10m;\narea 10m x 10m;")), ["E0507"]);
    assert_eq!(
        codes(&world(&format!("{GRID}\narea 10m x 10m;"))),
        ["E0507"]
    );
    assert_eq!(codes(&world("seed 3;")), ["E0508"]);
}

/// The `affect` code blocks of a section of an error page.
fn section_examples(page: &str, heading: &str) -> Vec<String> {
    let Some(start) = page.find(heading) else {
        return Vec::new();
    };
    let rest = &page[start + heading.len()..];
    let rest = &rest[..rest.find("\n## ").unwrap_or(rest.len())];
    rest.split("```affect\n")
        .skip(1)
        .filter_map(|block| block.split("```").next().map(str::to_string))
        .collect()
}

#[test]
fn every_world_error_page_shows_its_code() {
    let world_codes: Vec<&crate::codes::CodeInfo> = crate::codes::CODES
        .iter()
        .filter(|c| c.code.starts_with("E05"))
        .collect();
    assert!(world_codes.len() >= 11);
    for info in world_codes {
        let wrong = section_examples(info.page, "## Wrong");
        let right = section_examples(info.page, "## Corrected");
        assert!(
            !wrong.is_empty() && !right.is_empty(),
            "{}: needs Wrong and Corrected examples",
            info.code
        );
        assert!(
            info.page
                .starts_with(&format!("# {}: {}", info.code, info.title)),
            "{}: heading",
            info.code
        );
        for src in wrong {
            let found: Vec<&str> = lower_all(&src)
                .iter()
                .flat_map(|(_, d)| d.iter().map(|d| d.code))
                .collect();
            assert_eq!(found, [info.code], "{}: the wrong example", info.code);
        }
        for src in right {
            let found: Vec<&str> = lower_all(&src)
                .iter()
                .flat_map(|(_, d)| d.iter().map(|d| d.code))
                .collect();
            assert!(
                found.is_empty(),
                "{}: the corrected example reports {found:?}",
                info.code
            );
        }
    }
}

#[test]
fn every_setting_is_documented() {
    let doc = include_str!("../../../../docs/worlds.md");
    for s in SETTINGS {
        assert!(
            doc.contains(&format!("`{}`", s.key)),
            "docs/worlds.md does not describe `{}`",
            s.key
        );
    }
}

/// Cut every example world short at many points and lower what the parser recovers: bad
/// input gives diagnostics, never a panic.
#[test]
fn truncated_worlds_never_panic() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples");
    let mut lowered = 0;
    for entry in std::fs::read_dir(dir).expect("the examples folder") {
        let path = entry.expect("an entry").path();
        if path.extension().is_none_or(|x| x != "affect") {
            continue;
        }
        let src = std::fs::read_to_string(&path).expect("an example");
        let Some(start) = src.find("\nworld ") else {
            continue;
        };
        let mut cut = start + 8;
        while cut < src.len() {
            if src.is_char_boundary(cut) {
                let text = format!("{}\n}}\n", &src[..cut]);
                let parsed = crate::syntax::parse(&text);
                let (specs, _) = lower_worlds(&parsed.file);
                lowered += specs.len();
            }
            cut += 5;
        }
    }
    assert!(lowered > 100);
}
