//! List and point literals end to end through the binary: a point literal given to `GoTo`
//! reaches the simulator as that point (the robot drives there), in both engines, and the
//! trace's `var` events carry the values scripts build from literals.

mod support;

use serde_json::Value;

const PROGRAM: &str = r#"action GoTo(in goal: Point, in speed: num);

agent A {
    rate 10Hz;
    var leg: int = 0;
    var east: length = 8m;
    var xs: [num] = [1, 2, 3];
    var ys: [num] = [];
    sensor position: Point = odometry();

    main {
        sequence {
            GoTo(goal: (2m, 5m), speed: 1)
            do { leg = 1 }
            GoTo(goal: (east, 3m), speed: 1)
            do { leg = 2; ys = xs; xs = [7, 8]; xs[0] += 10; ys.push(4) }
        } skip_if leg == 2
    }
}

world W {
    area 10m x 10m;
    spawn A at (5m, 5m);
    ticks 150;
}
"#;

fn scratch(name: &str) -> support::Scratch {
    support::scratch("list_literals", name)
}

/// The trace of a run of `PROGRAM` with `engine`, as JSON lines.
fn trace(engine: &str) -> Vec<Value> {
    trace_of(PROGRAM, engine, engine)
}

/// The trace of a run of `program` with `engine` (in scratch directory `name`).
fn trace_of(program: &str, name: &str, engine: &str) -> Vec<Value> {
    let dir = scratch(name);
    let file = dir.join("robot.affect");
    std::fs::write(&file, program).unwrap();
    let out_file = dir.join("trace.jsonl");
    let out = support::affect(&[
        "run",
        file.to_str().unwrap(),
        "--engine",
        engine,
        "--trace",
        out_file.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(out_file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// Every value a variable took, with the time.
fn values(lines: &[Value], name: &str) -> Vec<(f64, Value)> {
    lines
        .iter()
        .filter(|l| l["ev"] == "var" && l["name"] == name)
        .map(|l| (l["t_ms"].as_f64().unwrap(), l["value"].clone()))
        .collect()
}

fn point(v: &Value) -> (f64, f64) {
    let a = v.as_array().expect("a point is a list");
    (a[0].as_f64().unwrap(), a[1].as_f64().unwrap())
}

#[test]
fn go_to_a_point_literal_drives_to_that_point_in_both_engines() {
    let mut traces = Vec::new();
    for engine in ["interp", "jit"] {
        let lines = trace(engine);
        let legs = values(&lines, "leg");
        assert_eq!(
            legs.iter()
                .map(|(_, v)| v.as_f64().unwrap())
                .collect::<Vec<_>>(),
            vec![0.0, 1.0, 2.0],
            "{engine}: both legs arrive"
        );
        let positions = values(&lines, "position");
        // Where the robot was when the first leg ended: (2 m, 5 m), within GoTo's 0.3 m and
        // the tick the position sensor lags behind.
        let t1 = legs[1].0;
        let at1 = positions
            .iter()
            .rfind(|(t, _)| *t <= t1)
            .map(|(_, v)| point(v))
            .unwrap();
        assert!(
            (at1.0 - 2.0).abs() <= 0.5 && (at1.1 - 5.0).abs() <= 0.5,
            "{engine}: the first leg ends at {at1:?}, not at (2, 5)"
        );
        // The second goal is computed: (east, 3 m).
        let at2 = point(&positions.last().unwrap().1);
        assert!(
            (at2.0 - 8.0).abs() <= 0.5 && (at2.1 - 3.0).abs() <= 0.5,
            "{engine}: the second leg ends at {at2:?}, not at (8, 3)"
        );
        let last = |name: &str| values(&lines, name).last().unwrap().1.clone();
        assert_eq!(last("xs"), serde_json::json!([17.0, 8.0]), "{engine}");
        assert_eq!(
            last("ys"),
            serde_json::json!([1.0, 2.0, 3.0, 4.0]),
            "{engine}"
        );
        traces.push(lines);
    }
    assert_eq!(traces[0], traces[1], "the engines' traces differ");
}

/// The codes of a program's errors.
fn codes(src: &str) -> Vec<String> {
    affect_compiler::check_source_with(src, &affect_compiler::sema::NoFiles)
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.code.to_string())
        .collect()
}

#[test]
fn what_cannot_be_assigned_is_reported() {
    let tree = |body: &str| {
        format!(
            "action Show(in v: num);\nmain tree Main {{\n    var p: Point = (1m, 2m);\n    var xs: [num] = [1];\n    sequence {{ do {{ {body} }} Show(v: len(xs)) }}\n}}\n"
        )
    };
    // A point variable's fields are places, and carry its unit.
    assert!(codes(&tree("p.x = 3m; p.y += p.x * 2; p.x /= 2")).is_empty());
    assert_eq!(codes(&tree("p.x = 3")), vec!["E0303"]);
    assert_eq!(codes(&tree("p.z = 3m")), vec!["E0201"]);
    // A field of something that is not a variable is not a place.
    assert_eq!(codes(&tree("(1m, 2m).x = 3m")), vec!["E0110"]);
    // Only a named list variable's elements.
    assert_eq!(codes(&tree("[1, 2][0] = 3")), vec!["E0110"]);
    // A point is not indexed.
    assert_eq!(codes(&tree("p[0] = 3m")), vec!["E0301"]);
    // The element's type.
    assert_eq!(codes(&tree("xs[0] = \"a\"")), vec!["E0301"]);
    assert!(codes(&tree("xs[0] = 3; xs[0] *= 2; p = (3m, 4m)")).is_empty());
}

const FIELDS: &str = r#"action GoTo(in goal: Point, in speed: num);

agent A {
    rate 10Hz;
    var goal: Point = (0m, 0m);
    var east: num = 0;
    var set: bool = false;
    sensor position: Point = odometry();

    main {
        sequence {
            do { goal = position; goal.x += 3m; goal.y -= 1m; east = goal.x / 1m; set = true } skip_if set
            GoTo(goal: goal, speed: 1)
        }
    }
}

world W {
    area 10m x 10m;
    spawn A at (5m, 5m);
    ticks 150;
}
"#;

/// `goal.x += 3m` and `goal.y -= 1m` on a copy of the robot's position: the robot drives to
/// the point 3 m east and 1 m south of where it started, in both engines alike, and the
/// position it copied is not changed by the writes to the copy's fields.
#[test]
fn point_fields_are_read_and_written_in_both_engines() {
    let mut traces = Vec::new();
    for engine in ["interp", "jit"] {
        let lines = trace_of(FIELDS, &format!("fields_{engine}"), engine);
        let goal = point(&values(&lines, "goal").last().unwrap().1);
        assert_eq!(goal, (8.0, 4.0), "{engine}: the goal's fields");
        let east = values(&lines, "east").last().unwrap().1.as_f64().unwrap();
        assert_eq!(east, 8.0, "{engine}: `goal.x / 1m` reads the field");
        let at = point(&values(&lines, "position").last().unwrap().1);
        assert!(
            (at.0 - 8.0).abs() <= 0.5 && (at.1 - 4.0).abs() <= 0.5,
            "{engine}: the robot ends at {at:?}, not at (8, 4)"
        );
        traces.push(lines);
    }
    assert_eq!(traces[0], traces[1], "the engines' traces differ");
}

/// BehaviorTree.CPP scripts have no fields (a point is one entry of a C++ type): the export
/// carries a field read or write as an entry the affect runtime provides, with W0451 naming it.
#[test]
fn point_fields_are_carried_into_xml_with_a_warning() {
    let dir = scratch("fields_export");
    let file = support::write_temp(&dir, "fields.affect", FIELDS);
    let xml = dir.join("fields.xml");
    let out = support::affect(&[
        "build",
        "--emit",
        "groot",
        file.to_str().unwrap(),
        "-o",
        xml.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", support::stderr(&out));
    let err = support::stderr(&out);
    assert!(
        err.contains("W0451") && err.contains("cannot evaluate `goal.x += 3m`"),
        "{err}"
    );
    let text = std::fs::read_to_string(xml).unwrap();
    assert!(
        text.contains("goal.x += 3m"),
        "the source is carried: {text}"
    );
}
