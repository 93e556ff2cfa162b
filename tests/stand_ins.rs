//! Stand-ins through the binary: `--leaf-cycle` plays a status list over and over,
//! `--leaf-out` sets what a stand-in writes to its out ports, both engines run them alike,
//! and a run warns when the program reads a stand-in's output that nothing ever wrote
//! (examples/xml/watch.affect, docs/run.md "Stand-ins").

mod support;

use support::{affect, stderr};

/// The example, as the binary (run in the workspace) finds it.
fn watch() -> String {
    "examples/xml/watch.affect".to_string()
}

fn scratch(name: &str) -> support::Scratch {
    support::scratch("stand_ins", name)
}

/// A variable's value in the summary on stderr.
fn summary_value(err: &str, name: &str) -> String {
    let prefix = format!("  {name} = ");
    err.lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no `{name}` in the summary:\n{err}"))
        .to_string()
}

#[test]
fn an_output_read_and_never_written_is_warned_about_and_leaf_out_writes_it() {
    let file = watch();
    let out = affect(&["run", &file, "--ticks", "9", "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let warned = stderr(&out);
    let given = affect(&[
        "run",
        &file,
        "--ticks",
        "9",
        "--loop",
        "--leaf-out",
        "Detect.seen=true",
        "--leaf-out",
        "Detect.distance=2.5",
    ]);
    let given = stderr(&given);
    assert!(!given.contains("never wrote"), "{given}");
    assert_eq!(summary_value(&given, "seen"), "true");
    assert_eq!(summary_value(&given, "distance"), "2.5");
    // Every tick now gets past the check and approaches.
    assert_eq!(summary_value(&given, "approaches"), "9");
    // A port bound to a variable of another name says which.
    let dir = scratch("renamed");
    let f = dir.join("t.affect");
    std::fs::write(
        &f,
        "action Detect(out found: bool);\nmain tree T {\n    var target_seen: bool = false;\n\n    sequence { Detect(found: target_seen) check target_seen }\n}\n",
    )
    .unwrap();
    let renamed = affect(&["run", f.to_str().unwrap(), "--ticks", "2", "--quiet"]);
    insta::assert_snapshot!(format!(
        "affect run examples/xml/watch.affect --ticks 9 --quiet\n{warned}\naffect run t.affect --ticks 2 --quiet\n{}",
        stderr(&renamed)
    ));
}

#[test]
fn an_output_nobody_reads_or_that_something_else_writes_is_not_warned_about() {
    let dir = scratch("quiet");
    let f = dir.join("t.affect");
    // `seen` is never read; `found` is written by the script after the stand-in.
    std::fs::write(
        &f,
        "action Detect(out found: bool, out seen: num);\nmain tree T {\n    var found: bool = false;\n    var seen: num = 0;\n\n    sequence { Detect(found: found, seen: seen) do { found = !found } check found }\n}\n",
    )
    .unwrap();
    let out = affect(&["run", f.to_str().unwrap(), "--ticks", "4", "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("never wrote"), "{}", stderr(&out));
}

#[test]
fn leaf_cycle_plays_the_list_over_and_over_where_leaf_repeats_its_last() {
    let file = watch();
    let run = |flag: &str| {
        let out = affect(&[
            "run",
            &file,
            "--ticks",
            "9",
            "--loop",
            flag,
            "Scan=running,running,success",
            "--leaf-out",
            "Detect.seen=true",
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        stderr(&out)
    };
    // Once: two ticks scanning, then a sweep on each of the other seven ticks.
    assert_eq!(summary_value(&run("--leaf"), "sweeps"), "7");
    // Over and over: a sweep every third tick.
    assert_eq!(summary_value(&run("--leaf-cycle"), "sweeps"), "3");
}

#[test]
fn both_engines_write_the_same_trace_with_cycling_and_writing_stand_ins() {
    let dir = scratch("engines");
    let file = watch();
    let trace = |engine: &str| {
        let t = dir.join(format!("{engine}.jsonl"));
        let out = affect(&[
            "run",
            &file,
            "--ticks",
            "30",
            "--loop",
            "--engine",
            engine,
            "--leaf-cycle",
            "Scan=running,success",
            "--leaf-cycle",
            "Approach=running,running,failure,success",
            "--leaf-out",
            "Detect.seen=true",
            "--leaf-out",
            "Detect.distance=4",
            "--trace",
            t.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        std::fs::read_to_string(t).unwrap()
    };
    let (interp, jit) = (trace("interp"), trace("jit"));
    assert!(interp.contains("\"distance\""), "{interp}");
    assert!(interp.lines().count() > 30, "{interp}");
    assert!(interp == jit, "the engines' traces differ");
}

#[test]
fn leaf_options_that_name_nothing_or_do_not_fit_are_refused() {
    let file = watch();
    let refused = |args: &[&str]| {
        let mut all = vec!["run", file.as_str(), "--ticks", "2"];
        all.extend(args);
        let out = affect(&all);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        stderr(&out)
    };
    let shown = [
        refused(&["--leaf", "Scna=success"]),
        refused(&["--leaf-cycle", "Watch=success"]),
        refused(&["--leaf-out", "Detect.sen=true"]),
        refused(&["--leaf-out", "Approach.distance=1"]),
        refused(&["--leaf-out", "Detect.seen=maybe"]),
    ];
    insta::assert_snapshot!(shown.join("\n"));
    // Options that cannot be read at all are usage errors.
    let out = affect(&["run", &file, "--leaf-out", "Detect=true"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("NODE.PORT=VALUE"), "{}", stderr(&out));
    let out = affect(&["run", &file, "--leaf-cycle", "Scan=sometimes"]);
    assert_eq!(out.status.code(), Some(2));
}
