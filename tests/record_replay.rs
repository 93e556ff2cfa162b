//! `affect run --record` and `affect replay` through the binary, in the simulator: the
//! replay's trace is the recorded run's, line for line, in both engines; a record holds
//! several runs, each replayed with the long-term memory it started with; a torn tail is
//! ignored with a warning. (On emulated hardware: tests/hardware_shim.rs. Damage, another
//! program and divergence: the pages of E0612, E0613 and E0614, run by tests/error_codes.rs.)

mod support;

use std::path::Path;
use support::{affect_command, scratch, stderr, workspace};

fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    let out = affect_command()
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "affect {args:?}: {}", stderr(&out));
    out
}

/// A scratch directory with a copy of `examples/NAME`.
fn with_example(test: &str, name: &str) -> std::path::PathBuf {
    let dir = scratch("record_replay", test);
    std::fs::copy(workspace().join("examples").join(name), dir.join(name)).unwrap();
    dir
}

fn text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn runs_replay_to_their_traces_with_the_memories_they_started_with() {
    let dir = with_example("navigator", "navigator.affect");
    // Two runs into one record; the first leaves the long-term memory the second starts with.
    for (n, seed) in [(1, "3"), (2, "4")] {
        let trace = format!("run{n}.jsonl");
        let args = ["run", "navigator.affect", "--quiet", "--seed", seed];
        run(
            &dir,
            &[&args[..], &["--trace", &trace, "--record", "nav.rec"]].concat(),
        );
    }
    assert!(dir.join("feelings.eltm").exists(), "the runs persisted");
    let list = run(&dir, &["replay", "nav.rec", "--list"]);
    let list = String::from_utf8_lossy(&list.stdout).into_owned();
    assert_eq!(list.lines().count(), 2, "{list}");
    assert!(
        list.contains("simulated") && !list.contains("did not end"),
        "{list}"
    );
    // The memory file beside the program is now the second run's result; each replay
    // starts from the copy its run recorded, and leaves the file alone.
    let memory = std::fs::read(dir.join("feelings.eltm")).unwrap();
    for (n, engine) in [(1, "interp"), (2, "jit"), (2, "interp")] {
        let replayed = format!("replay{n}-{engine}.jsonl");
        let out = run(
            &dir,
            &[
                "replay",
                "nav.rec",
                "--run",
                &n.to_string(),
                "--quiet",
                "--engine",
                engine,
                "--trace",
                &replayed,
            ],
        );
        assert!(stderr(&out).contains("line for line"), "{}", stderr(&out));
        assert_eq!(
            text(&dir.join(&replayed)),
            text(&dir.join(format!("run{n}.jsonl"))),
            "run {n} replayed with {engine}"
        );
    }
    assert_eq!(std::fs::read(dir.join("feelings.eltm")).unwrap(), memory);
    // The two runs' traces differ (seeds, memories): the replays are not of one run.
    assert_ne!(text(&dir.join("run1.jsonl")), text(&dir.join("run2.jsonl")));
}

#[test]
fn a_torn_tail_is_ignored_with_a_warning() {
    let dir = with_example("torn", "waiter.affect");
    let args = [
        "run",
        "waiter.affect",
        "--quiet",
        "--no-persist",
        "--ticks",
        "50",
    ];
    run(
        &dir,
        &[&args[..], &["--trace", "run.jsonl", "--record", "w.rec"]].concat(),
    );
    // The last record (the end of the run) half written, as a run killed while writing.
    let mut bytes = std::fs::read(dir.join("w.rec")).unwrap();
    bytes.truncate(bytes.len() - 5);
    std::fs::write(dir.join("w.rec"), &bytes).unwrap();
    let out = run(
        &dir,
        &["replay", "w.rec", "--quiet", "--trace", "replay.jsonl"],
    );
    let err = stderr(&out);
    assert!(
        err.contains("warning:") && err.contains("not a whole record"),
        "{err}"
    );
    assert!(err.contains("did not end"), "{err}");
    // Every tick was recorded: the replay's trace is the run's up to its end lines.
    let recorded = text(&dir.join("run.jsonl"));
    let replayed = text(&dir.join("replay.jsonl"));
    let ticks = |t: &str| {
        t.lines()
            .filter(|l| !l.contains("\"ev\":\"summary\""))
            .count()
    };
    assert!(ticks(&replayed) > 50);
    let cut = recorded
        .lines()
        .take_while(|l| !l.contains("\"ev\":\"summary\""))
        .count();
    let head: Vec<&str> = recorded.lines().take(cut).collect();
    assert_eq!(replayed.lines().take(cut).collect::<Vec<_>>(), head);
}
