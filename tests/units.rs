//! A value never loses its unit (issue 31): every way a value enters a program, through the
//! binary, with a duration, a length, an angle and a rate, and the run sees what the unit
//! means (`10s` is 10,000 where the runtime counts milliseconds, `1000cm` is 10 metres, `2kHz`
//! is 2,000 hertz); a number without its unit where the type needs one is an error at each
//! of them. (Hot-reload carry-over: runtime/tests/reload.rs; literals and component
//! settings: the compiler's unit tests and fixtures/types.)

mod support;

use std::path::Path;
use support::{affect, affect_command, scratch, stderr, write_temp};

/// What the run must see, as the trace shows it: milliseconds, metres, degrees, hertz.
const SEEN: [(&str, f64); 4] = [("d", 10_000.0), ("l", 10.0), ("a", 10.0), ("r", 2_000.0)];

/// The values as written, for `.affect` text and the command line.
const WRITTEN: [(&str, &str); 4] = [("d", "10s"), ("l", "1000cm"), ("a", "10deg"), ("r", "2kHz")];

/// The four variables, declared without values (the entry point under test gives them).
const VARS: &str = "var d: duration; var l: length; var a: angle; var r: rate;";

/// The last value of each variable in a trace, by name.
fn values(trace: &str) -> Vec<(String, serde_json::Value)> {
    let mut out: Vec<(String, serde_json::Value)> = Vec::new();
    for line in trace.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        if v["ev"] != "var" {
            continue;
        }
        let name = v["name"].as_str().unwrap().to_string();
        out.retain(|(n, _)| *n != name);
        out.push((name, v["value"].clone()));
    }
    out
}

fn assert_seen(trace: &str, what: &str) {
    let vals = values(trace);
    for (name, want) in SEEN {
        let got = vals
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_f64());
        assert_eq!(got, Some(Some(want)), "{what}: `{name}` in {vals:?}");
    }
}

/// Runs `program` with `options` and a trace, to success; the trace.
fn run(dir: &Path, program: &str, options: &[&str]) -> String {
    let file = write_temp(dir, "p.affect", program);
    let trace = dir.join("t.jsonl");
    let mut args = vec!["run", file.to_str().unwrap(), "--quiet"];
    if !options.contains(&"--ticks") {
        args.extend(["--ticks", "3"]);
    }
    args.extend_from_slice(options);
    args.extend_from_slice(&["--trace", trace.to_str().unwrap()]);
    let out = affect(&args);
    assert!(out.status.success(), "{program}\n{}", stderr(&out));
    std::fs::read_to_string(trace).unwrap()
}

/// Whether standard error reports `message` against the argument: on a line of its own,
/// not followed by a place in the file.
fn unplaced(e: &str, message: &str) -> bool {
    let mut lines = e.lines();
    lines.any(|l| l.starts_with(message)) && !lines.next().is_some_and(|l| l.contains(",-["))
}

/// Runs `program` with `options`, which must fail; standard error.
fn refused(dir: &Path, program: &str, options: &[&str]) -> String {
    let file = write_temp(dir, "p.affect", program);
    let mut args = vec!["run", file.to_str().unwrap(), "--quiet", "--ticks", "3"];
    args.extend_from_slice(options);
    let out = affect(&args);
    assert!(!out.status.success(), "{program} {options:?} ran");
    stderr(&out)
}

fn agent(members: &str, main: &str) -> String {
    format!("agent Rover {{\n    rate 10Hz;\n    {members}\n    main {{ {main} }}\n}}\n")
}

#[test]
fn declarations_and_spawn_values_keep_their_units() {
    let dir = scratch("units", "declarations_spawn");
    let declared = WRITTEN
        .iter()
        .zip(["duration", "length", "angle", "rate"])
        .map(|((n, v), t)| format!("var {n}: {t} = {v};"))
        .collect::<String>();
    assert_seen(&run(&dir, &agent(&declared, "succeed"), &[]), "declared");
    // The seen bug: `spawn Rover at (2, 2) wait 10s;` started `wait` at 10 ms.
    let pairs: String = WRITTEN.iter().map(|(n, v)| format!(" {n} {v}")).collect();
    let spawned = format!(
        "{}world Yard {{\n    area 10m x 10m;\n    spawn Rover at (2, 2){pairs};\n}}\n",
        agent(VARS, "succeed")
    );
    assert_seen(&run(&dir, &spawned, &[]), "spawn");
    // Without its unit, or with another, a spawn value is refused where it is written.
    for (name, bad) in [("d", "10"), ("l", "10s"), ("a", "10"), ("r", "10")] {
        let written = WRITTEN.iter().find(|(n, _)| *n == name).unwrap().1;
        let program = spawned.replace(&format!(" {name} {written}"), &format!(" {name} {bad}"));
        let e = refused(&dir, &program, &[]);
        assert!(
            e.contains("[E0303]") && e.contains("p.affect:"),
            "{name} {bad}: {e}"
        );
    }
}

#[test]
fn tree_parameters_and_defaults_keep_their_units() {
    let dir = scratch("units", "trees");
    let copy = "do { @d = d; @l = l; @a = a; @r = r }";
    let params = |defaults: bool| {
        let v = |i: usize| {
            if defaults {
                format!(" = {}", WRITTEN[i].1)
            } else {
                String::new()
            }
        };
        format!(
            "tree Hold(in d: duration{}, in l: length{}, in a: angle{}, in r: rate{}) {{ {copy} }}\n",
            v(0),
            v(1),
            v(2),
            v(3)
        )
    };
    let args: Vec<String> = WRITTEN.iter().map(|(n, v)| format!("{n}: {v}")).collect();
    let given = format!(
        "{}{}",
        params(false),
        agent(VARS, &format!("Hold({})", args.join(", ")))
    );
    assert_seen(&run(&dir, &given, &[]), "tree arguments");
    let defaulted = format!("{}{}", params(true), agent(VARS, "Hold()"));
    assert_seen(&run(&dir, &defaulted, &[]), "tree defaults");
    let bare = given.replace("d: 10s", "d: 10");
    let e = refused(&dir, &bare, &[]);
    assert!(e.contains("[E0303]") && e.contains("p.affect:"), "{e}");
    let bare = defaulted.replace("duration = 10s", "duration = 10");
    let e = refused(&dir, &bare, &[]);
    assert!(e.contains("[E0303]") && e.contains("p.affect:"), "{e}");
}

#[test]
fn world_settings_keep_their_units() {
    let dir = scratch("units", "world");
    // `at 10s` raises the event at 10,000 ms of world time.
    let program = format!(
        "{}world Yard {{\n    area 10m x 10m;\n    spawn Rover at (2, 2);\n    at 10s raise ping on Rover;\n}}\n",
        agent("event ping;", "succeed")
    );
    let trace = run(&dir, &program, &["--ticks", "120"]);
    let fired = trace
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["ev"] == "var" && v["name"] == "ping" && v["value"] == true)
        .expect("the event fired");
    assert_eq!(fired["t_ms"].as_f64(), Some(10_000.0), "{fired}");
    let e = refused(&dir, &program.replace("at 10s", "at 10"), &[]);
    assert!(e.contains("[E0503]") && e.contains("p.affect:"), "{e}");
    let e = refused(&dir, &program.replace("(2, 2);", "(2, 2) heading 90;"), &[]);
    assert!(e.contains("[E0503]") && e.contains("p.affect:"), "{e}");
}

#[test]
fn blackboard_and_stand_in_values_on_the_command_line_keep_their_units() {
    let dir = scratch("units", "command_line");
    let program = agent(VARS, "succeed");
    let bb: Vec<String> = WRITTEN.iter().map(|(n, v)| format!("{n}={v}")).collect();
    let options: Vec<&str> = bb.iter().flat_map(|kv| ["--bb", kv.as_str()]).collect();
    assert_seen(&run(&dir, &program, &options), "--bb");
    // A stand-in's out ports, bound to the variables.
    let probe = format!(
        "action Probe(out d: duration, out l: length, out a: angle, out r: rate);\n{}",
        agent(VARS, "Probe(d: d, l: l, a: a, r: r)")
    );
    let outs: Vec<String> = WRITTEN
        .iter()
        .map(|(n, v)| format!("Probe.{n}={v}"))
        .collect();
    let options: Vec<&str> = outs
        .iter()
        .flat_map(|kv| ["--leaf-out", kv.as_str()])
        .collect();
    assert_seen(&run(&dir, &probe, &options), "--leaf-out");
    // A number without its unit is refused against the argument, not at a line of the file.
    for (flag, program, arg) in [
        ("--bb", &program, "d=10"),
        ("--bb", &program, "l=10s"),
        ("--bb", &program, "a=10"),
        ("--bb", &program, "r=10"),
        ("--leaf-out", &probe, "Probe.d=10"),
        ("--leaf-out", &probe, "Probe.l=10"),
    ] {
        let e = refused(&dir, program, &[flag, arg]);
        assert!(
            unplaced(&e, &format!("[E0602] Error: {flag} {arg}: ")),
            "{flag} {arg}: {e}"
        );
    }
}

#[test]
fn an_untyped_variable_takes_text_from_the_command_line() {
    let dir = scratch("units", "untyped");
    let program = agent("var object_pose: any; var n: num = 0;", "succeed");
    let trace = run(&dir, &program, &["--bb", "object_pose=shelf"]);
    assert!(
        values(&trace).iter().any(|(n, _)| n == "object_pose"),
        "{trace}"
    );
    let e = refused(&dir, &program, &["--bb", "n=shelf"]);
    assert!(
        unplaced(&e, "[E0602] Error: --bb n=shelf: `n` is a number"),
        "{e}"
    );
}

#[test]
fn a_record_replays_its_values_with_their_units() {
    let dir = scratch("units", "record");
    let file = write_temp(&dir, "p.affect", &agent(VARS, "succeed"));
    let bb: Vec<String> = WRITTEN.iter().map(|(n, v)| format!("{n}={v}")).collect();
    let mut args = vec!["run", file.to_str().unwrap(), "--quiet", "--ticks", "3"];
    args.extend(bb.iter().flat_map(|kv| ["--bb", kv.as_str()]));
    args.extend(["--trace", "run.jsonl", "--record", "p.rec"]);
    let out = affect_command()
        .current_dir(&dir)
        .args(&args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let out = affect_command()
        .current_dir(&dir)
        .args(["replay", "p.rec", "--quiet", "--trace", "replay.jsonl"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let replayed = std::fs::read_to_string(dir.join("replay.jsonl")).unwrap();
    assert_seen(&replayed, "replay");
}

#[test]
fn experiment_parameters_keep_their_units() {
    let dir = scratch("units", "experiment");
    write_temp(&dir, "p.affect", &agent(VARS, "succeed"));
    let measures: String = SEEN
        .iter()
        .map(|(n, _)| format!("[[measure]]\nname = \"{n}\"\nvar = \"{n}\"\nagent = \"Rover\"\n\n"))
        .collect();
    let spec = |values: [&str; 4]| {
        let params: String = WRITTEN
            .iter()
            .zip(values)
            .map(|((n, _), v)| format!("[[parameter]]\nname = \"bb.{n}\"\nvalues = [\"{v}\"]\n\n"))
            .collect();
        format!(
            "title = \"units\"\nprogram = \"p.affect\"\nseeds = 1\nticks = 3\n\n{params}{measures}[[table]]\nrows = \"bb.d\"\nmeasures = [\"d\", \"l\", \"a\", \"r\"]\n"
        )
    };
    let toml = write_temp(&dir, "x.toml", &spec(WRITTEN.map(|(_, v)| v)));
    let out = affect(&["experiment", toml.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let table = String::from_utf8_lossy(&out.stdout).into_owned();
    for (name, want) in SEEN {
        let cell = format!("| {want:.1} ± ");
        let section = table
            .split(&format!("## {name}\n"))
            .nth(1)
            .unwrap_or_default();
        assert!(section.contains(&cell), "`{name}`: {cell} in {table}");
    }
    let toml = write_temp(&dir, "bare.toml", &spec(["10", "1000cm", "10deg", "2kHz"]));
    let out = affect(&["experiment", toml.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("--bb d=10: `d` is a duration"),
        "{}",
        stderr(&out)
    );
    // A time parameter of the experiment itself takes its unit too.
    let latency = spec(WRITTEN.map(|(_, v)| v)).replacen(
        "[[measure]]",
        "[[parameter]]\nname = \"latency\"\nvalues = [50]\n\n[[measure]]",
        1,
    );
    let toml = write_temp(&dir, "latency.toml", &latency);
    let out = affect(&["experiment", toml.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("`latency` = 50: a time needs its unit"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn bench_reads_blackboard_values_with_their_units() {
    let dir = scratch("units", "bench");
    let file = write_temp(&dir, "p.affect", &agent(VARS, "succeed"));
    let bb: Vec<String> = WRITTEN.iter().map(|(n, v)| format!("{n}={v}")).collect();
    let mut args = vec![
        "bench",
        file.to_str().unwrap(),
        "--ticks",
        "2",
        "--repeats",
        "1",
    ];
    args.extend(bb.iter().flat_map(|kv| ["--bb", kv.as_str()]));
    let out = affect(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let report: serde_json::Value =
        serde_json::from_str(stdout.lines().next().unwrap_or_default()).unwrap();
    for (name, want) in SEEN {
        assert_eq!(
            report["blackboard"][name].as_f64(),
            Some(want),
            "{name}: {report}"
        );
    }
    let out = affect(&["bench", file.to_str().unwrap(), "--bb", "d=10"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--bb d=10: `d` is a duration"),
        "{}",
        stderr(&out)
    );
}
