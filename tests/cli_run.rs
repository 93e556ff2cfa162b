//! `affect run` end to end through the binary: determinism, the summary, stand-ins and their
//! overrides, `--bb`, constructs that cannot run yet, long-term memory files.

mod support;

use std::path::{Path, PathBuf};
use support::affect;

fn scratch(name: &str) -> support::Scratch {
    support::scratch("cli_run", name)
}

fn copy_example(dir: &Path, name: &str) -> PathBuf {
    let to = dir.join(name);
    std::fs::copy(support::workspace().join("examples").join(name), &to).unwrap();
    to
}

#[test]
fn same_program_world_and_seed_give_byte_identical_traces() {
    let dir = scratch("determinism");
    let nav = copy_example(&dir, "navigator.affect");
    let (a, b) = (dir.join("a.jsonl"), dir.join("b.jsonl"));
    for t in [&a, &b] {
        let out = affect(&[
            "run",
            nav.to_str().unwrap(),
            "--ticks",
            "500",
            "--no-persist",
            "--quiet",
            "--trace",
            t.to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let (ta, tb) = (
        std::fs::read_to_string(&a).unwrap(),
        std::fs::read_to_string(&b).unwrap(),
    );
    assert!(ta.len() > 10_000, "a real trace");
    if let Some((i, (x, y))) = ta
        .lines()
        .zip(tb.lines())
        .enumerate()
        .find(|(_, (x, y))| x != y)
    {
        panic!(
            "two runs with the same seed differ at line {}:\n  {x}\n  {y}",
            i + 1
        );
    }
    assert_eq!(
        ta.len(),
        tb.len(),
        "two runs with the same seed must write the same bytes"
    );
    assert!(
        !dir.join("feelings.eltm").exists(),
        "--no-persist writes no memory file"
    );
    // A different seed changes the run (the navigator picks unvisited places at random).
    let c = dir.join("c.jsonl");
    let out = affect(&[
        "run",
        nav.to_str().unwrap(),
        "--ticks",
        "500",
        "--no-persist",
        "--quiet",
        "--seed",
        "99",
        "--trace",
        c.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    assert_ne!(std::fs::read_to_string(&c).unwrap(), ta);
}

#[test]
fn every_trace_line_has_the_common_fields() {
    let dir = scratch("fields");
    let nav = copy_example(&dir, "navigator.affect");
    let t = dir.join("t.jsonl");
    let out = affect(&[
        "run",
        nav.to_str().unwrap(),
        "--ticks",
        "450",
        "--no-persist",
        "--quiet",
        "--trace",
        t.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let text = std::fs::read_to_string(&t).unwrap();
    let mut kinds = std::collections::BTreeSet::new();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        for k in ["tick", "t_ms", "agent", "ev"] {
            assert!(v.get(k).is_some(), "`{k}` missing in {line}");
        }
        kinds.insert(v["ev"].as_str().unwrap().to_string());
    }
    for k in ["node", "var", "drive", "memory", "summary"] {
        assert!(
            kinds.contains(k),
            "no `{k}` event in the navigator's trace: {kinds:?}"
        );
    }
}

#[test]
fn a_plain_tree_runs_with_stand_ins_overrides_and_bb() {
    let dir = scratch("plain");
    let f = dir.join("t.affect");
    std::fs::write(
        &f,
        "action MoveTo(in goal: num);\nmain tree T {\n    var goal: num = 0;\n    var done: int = 0;\n\n    sequence { MoveTo(goal: goal) do { done = done + 1 } }\n}\n",
    )
    .unwrap();
    let t = dir.join("t.jsonl");
    let run = |more: &[&str]| {
        let mut args = vec![
            "run",
            f.to_str().unwrap(),
            "--ticks",
            "5",
            "--leaf",
            "MoveTo=running,running,success",
            "--bb",
            "goal=3",
            "--trace",
            t.to_str().unwrap(),
        ];
        args.extend_from_slice(more);
        let out = affect(&args);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{stderr}");
        stderr
    };
    // --loop ticks the tree again after it finishes: three ticks to finish the first MoveTo,
    // then one per tick: done = 3 after five ticks.
    let stderr = run(&["--loop"]);
    assert!(
        stderr.contains("stand-in") && stderr.contains("MoveTo"),
        "the summary names stand-ins: {stderr}"
    );
    assert!(stderr.contains("done = 3"), "{stderr}");
    assert!(stderr.contains("T: 5 ticks, root SUCCESS"), "{stderr}");
    // Without it the run ends when the tree returns SUCCESS, as tickWhileRunning does.
    let stderr = run(&[]);
    assert!(stderr.contains("done = 1"), "{stderr}");
    assert!(stderr.contains("T: 3 ticks, root SUCCESS"), "{stderr}");
    assert!(
        stderr.contains("ran 3 ticks (1 agent)")
            && stderr.contains("the tree returned SUCCESS (--loop ticks it again)"),
        "{stderr}"
    );
    let trace = std::fs::read_to_string(&t).unwrap();
    assert!(
        trace
            .lines()
            .last()
            .unwrap()
            .contains(r#""ev":"summary","ticks":3"#),
        "{trace}"
    );
    assert!(
        stderr.contains("goal = 3"),
        "--bb sets the variable: {stderr}"
    );
    // --leaf-default failure makes the sequence fail at once, which ends the run too.
    let out = affect(&[
        "run",
        f.to_str().unwrap(),
        "--ticks",
        "2",
        "--leaf-default",
        "failure",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("done = 0"), "{stderr}");
    assert!(stderr.contains("T: 1 tick, root FAILURE"), "{stderr}");
    // Bad options are usage errors.
    let out = affect(&["run", f.to_str().unwrap(), "--leaf", "MoveTo=maybe"]);
    assert_eq!(out.status.code(), Some(2));
    let out = affect(&["run", f.to_str().unwrap(), "--bb", "gaol=3"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("did you mean `goal`"));
}

/// A tree `var` without an initial value is an input: `--bb` sets it; unset, its first
/// trace line is `null`, and reading it stops the tree with E0605 and an `error` line naming
/// it, in both engines, with the same trace; `unset_blackboard` takes a value away again.
#[test]
fn reading_a_variable_without_a_value_stops_the_tree() {
    let dir = scratch("unset");
    let f = dir.join("t.affect");
    std::fs::write(
        &f,
        "main tree T {\n    var goal: num;\n    var done: int = 0;\n\n    sequence {\n        do { done = done + 1 }\n        check goal > 1\n        unset_blackboard(\"goal\")\n    }\n}\n",
    )
    .unwrap();
    let run = |engine: &str, bb: &[&str]| {
        let t = dir.join(format!("{engine}{}.jsonl", bb.len()));
        let file = f.to_str().unwrap();
        let trace = t.to_str().unwrap();
        // The tree is ticked again after it succeeds (--loop), to read the value it removed.
        let mut args = vec![
            "run", file, "--ticks", "4", "--loop", "--engine", engine, "--trace", trace,
        ];
        args.extend_from_slice(bb);
        let out = affect(&args);
        let text = std::fs::read_to_string(&t).unwrap();
        (out, text)
    };
    for engine in ["interp", "jit"] {
        let (out, trace) = run(engine, &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains("error[E0605]") && stderr.contains("`goal`"),
            "{stderr}"
        );
        let first = trace.lines().next().unwrap();
        assert!(first.contains(r#""name":"goal","value":null"#), "{first}");
        assert!(
            trace.contains(r#""ev":"error","var":"goal""#),
            "the trace names the variable: {trace}"
        );
        // The script before the read ran; the check never completed, and tick 0 was the last.
        assert!(trace.contains(r#""path":"Script::2","from":"IDLE","to":"SUCCESS""#));
        assert!(!trace.contains("ScriptCondition::3"), "{trace}");
        assert!(
            !trace
                .lines()
                .any(|l| l.contains(r#""tick":1,"#) && l.contains(r#""ev":"node""#)),
            "no tick after the error: {trace}"
        );
        // Set with --bb, the check passes; `unset_blackboard` then removes the value, and
        // the next tick's read stops the tree.
        let (out, trace) = run(engine, &["--bb", "goal=3"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("tick 1"), "{stderr}");
        assert!(trace.contains(r#""tick":0,"t_ms":0.0,"agent":"T","ev":"node","uid":4,"path":"UnsetBlackboard::4","from":"IDLE","to":"SUCCESS""#), "{trace}");
        assert!(
            trace.contains(r#""tick":1,"t_ms":100.0,"agent":"T","ev":"error","var":"goal""#),
            "{trace}"
        );
    }
    let (_, a) = run("interp", &["--bb", "goal=3"]);
    let (_, b) = run("jit", &["--bb", "goal=3"]);
    assert_eq!(a, b, "both engines write the same trace");
}

/// `unset_blackboard` of a list variable: the trace shows it as `null`, a later read stops
/// the tree with E0605 naming it, and the writes after that read in the same script are
/// undone (list writes too), through the binary in both engines alike.
#[test]
fn an_unset_list_is_null_and_reading_it_stops_the_tree() {
    let dir = scratch("unset_list");
    let f = dir.join("t.affect");
    std::fs::write(
        &f,
        "main tree T {\n    var route: [num] = [1, 2];\n    var kept: [num] = [];\n\n    sequence {\n        do { kept = route }\n        unset_blackboard(\"route\")\n        do { kept.push(3); kept = route }\n    }\n}\n",
    )
    .unwrap();
    let mut traces = Vec::new();
    for engine in ["interp", "jit"] {
        let t = dir.join(format!("{engine}.jsonl"));
        let out = affect(&[
            "run",
            f.to_str().unwrap(),
            "--ticks",
            "3",
            "--engine",
            engine,
            "--trace",
            t.to_str().unwrap(),
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains("error[E0605]") && stderr.contains("`route`"),
            "{stderr}"
        );
        // The push before the read stays; the copy that read the unset list never happened.
        assert!(stderr.contains("kept = [1.0, 2.0, 3.0]"), "{stderr}");
        let trace = std::fs::read_to_string(&t).unwrap();
        assert!(trace.contains(r#""name":"route","value":null"#), "{trace}");
        assert!(trace.contains(r#""ev":"error","var":"route""#), "{trace}");
        traces.push(trace);
    }
    assert_eq!(traces[0], traces[1], "both engines write the same trace");
}

/// A tendency arm that names a `tendency` (whose behaviours are listed per role) has no
/// run-time semantics yet.
const PENDING: &str = r#"
enum Mood { Happy, Sad }
tree Serve() { succeed }
tendency Approach { function: "permit consummatory activity" }

agent Butler {
    var progress: num = 0;
    emotions waiter: Mood = Happy {
        from progress;
        Happy -> Sad when progress < 0;
    }
    tendencies waiter {
        Happy => Serve;
        Sad => Approach;
    }
    main { tendencies(waiter) }
}
"#;

#[test]
fn a_construct_without_runtime_semantics_is_refused_with_a_code() {
    let dir = scratch("pending");
    let f = dir.join("butler.affect");
    std::fs::write(&f, PENDING).unwrap();
    let out = affect(&["run", f.to_str().unwrap(), "--ticks", "10"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("E0601"), "{stderr}");
}

#[test]
fn long_term_memory_persists_and_a_damaged_file_is_kept() {
    let dir = scratch("persist");
    let nav = copy_example(&dir, "navigator.affect");
    let out = affect(&["run", nav.to_str().unwrap(), "--ticks", "200", "--quiet"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = dir.join("feelings.eltm");
    let text = std::fs::read_to_string(&file).expect("the memory file is written");
    assert!(
        text.starts_with("affect long-term memory v3\nmemory feelings\n"),
        "{text}"
    );
    assert!(text.lines().count() > 3, "places were remembered: {text}");
    // A damaged file: a clear error, exit 1, and the file is left exactly as it was.
    std::fs::write(&file, "garbage\u{0}\u{1}").unwrap();
    let out = affect(&["run", nav.to_str().unwrap(), "--ticks", "10"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("E0603") && stderr.contains("left untouched"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&file).unwrap(), b"garbage\x00\x01");
}

const HALL: &str = r#"enum Command { Idle, Home, Refill }
action Noop();

agent Helper {
    var command: Command = Idle;
    var refills: int = 0;
    main {
        sequence {
            check command == Refill
            do { refills = refills + 1; command = Idle }
        }
    }
}

agent Guard {
    var command: Command = Idle;
    main { Noop() }
}

world Hall {
    grid 3 x 3 cell 1m labels "ABC / DEF / GHI";
    spawn Helper at A;
    spawn Guard at I;
    SENDS
}
"#;

#[test]
fn world_messages_are_commands_and_undeliverable_ones_are_refused() {
    let dir = scratch("world_send");
    let program = dir.join("hall.affect");
    let trace = dir.join("t.jsonl");
    std::fs::write(
        &program,
        HALL.replace(
            "SENDS",
            "at 1s send Refill to Helper;\n    at 2s send Home from Helper;",
        ),
    )
    .unwrap();
    let out = affect(&[
        "run",
        program.to_str().unwrap(),
        "--ticks",
        "30",
        "--trace",
        trace.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let msgs: Vec<(u64, String, String, String)> = lines
        .iter()
        .filter(|l| l["ev"] == "msg")
        .map(|l| {
            (
                l["tick"].as_u64().unwrap(),
                l["from"].as_str().unwrap().to_string(),
                l["to"].as_str().unwrap().to_string(),
                l["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let m = |t: u64, f: &str, to: &str, k: &str| (t, f.to_string(), to.to_string(), k.to_string());
    // A broadcast reaches every robot whose `command` has the variant.
    assert_eq!(
        msgs,
        vec![
            m(10, "world", "Helper", "Refill"),
            m(20, "Helper", "Helper", "Home"),
            m(20, "Helper", "Guard", "Home"),
        ]
    );
    // The command arrived before Helper's tick at 1 s: its tree counted the refill then.
    let refills: Vec<(u64, f64)> = lines
        .iter()
        .filter(|l| l["ev"] == "var" && l["agent"] == "Helper" && l["name"] == "refills")
        .map(|l| (l["tick"].as_u64().unwrap(), l["value"].as_f64().unwrap()))
        .collect();
    assert_eq!(refills, vec![(0, 0.0), (10, 1.0)]);

    // A message that no robot can receive stops the run before the first tick.
    std::fs::write(
        &program,
        HALL.replace("SENDS", "at 1s send Refil to Helper;"),
    )
    .unwrap();
    let out = affect(&["run", program.to_str().unwrap(), "--ticks", "30"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("E0604") && err.contains("did you mean `Refill`?"),
        "{err}"
    );
}

/// A run says which long-term memory files it read and wrote, with how many places each
/// holds: a second run that starts from memory then says why (issue 18).
#[test]
fn memory_files_read_and_written_are_told() {
    let dir = scratch("memory-lines");
    let nav = copy_example(&dir, "navigator.affect");
    let lines = || {
        let out = affect(&["run", nav.to_str().unwrap(), "--ticks", "500"]);
        assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
        let prefix = format!("{}/", dir.display());
        support::stderr(&out)
            .lines()
            .filter(|l| l.starts_with("read ") || l.starts_with("wrote "))
            .map(|l| l.replace(&prefix, "DIR/"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let first = lines();
    let second = lines();
    insta::assert_snapshot!(format!("first run:\n{first}\nsecond run:\n{second}"));
    let quiet = affect(&["run", nav.to_str().unwrap(), "--ticks", "10", "--quiet"]);
    assert!(
        !support::stderr(&quiet).contains("feelings.eltm"),
        "--quiet tells nothing: {}",
        support::stderr(&quiet)
    );
}

/// The summary rounds numbers to what they mean, shows quantities in their units and lists
/// every variable of each agent (issue 18: `89.99908444471572`, "… and 4 more variables").
#[test]
fn summary_rounds_and_shows_every_variable() {
    let dir = scratch("summary-format");
    let mut vars = String::new();
    for i in 0..14 {
        vars.push_str(&format!("    var v{i:02}: int = {i};\n"));
    }
    let text = format!(
        "agent Robot {{\n    var level: num = 0;\n    var wait: duration = 2500ms;\n    \
         var short: duration = 40ms;\n    var reach: length = 1.23456m;\n    \
         var pan: angle = -30deg;\n{vars}    main {{ do {{ level = level + 0.333333 }} }}\n}}\n"
    );
    let file = support::write_temp(&dir, "summary.affect", &text);
    let out = affect(&[
        "run",
        file.to_str().unwrap(),
        "--ticks",
        "10",
        "--no-persist",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    let err = support::stderr(&out);
    let summary: String = err
        .split_inclusive('\n')
        .skip_while(|l| !l.starts_with("Robot: "))
        .collect();
    insta::assert_snapshot!(summary);
}

/// A world without `ticks` runs 100 ticks per agent, as docs/worlds.md and `run --help` say.
#[test]
fn a_world_without_ticks_runs_100_ticks() {
    let dir = scratch("world-without-ticks");
    let text = "agent Robot {\n    main { succeed }\n}\n\nworld Plain {\n    area 10m x 10m;\n    spawn Robot at (1m, 1m);\n}\n";
    let file = support::write_temp(&dir, "plain.affect", text);
    let out = affect(&["run", file.to_str().unwrap(), "--no-persist"]);
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    assert!(
        support::stderr(&out).contains("Robot: 100 ticks,"),
        "{}",
        support::stderr(&out)
    );
    let help = String::from_utf8_lossy(&affect(&["run", "--help"]).stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(help.contains("a world without `ticks` runs 100"), "{help}");
}

/// A subtree's `var` without an initial value that nothing ever writes, read by a condition:
/// in `.affect` the checker proves the read can only fail (E0323, `affect check` and `run`
/// refuse it); the same tree imported from BehaviorTree.CPP XML keeps the library's
/// semantics and stops at run time (E0605), as BehaviorTree.CPP throws there.
#[test]
fn a_subtree_variable_nothing_writes_is_refused_in_affect_and_stops_in_xml() {
    let dir = scratch("never_written");
    let src = support::write_temp(
        &dir,
        "t.affect",
        "tree Sub() {\n    var level: num;\n    sequence { check level > 0.5 }\n}\n\nmain tree Main {\n    sequence { Sub() }\n}\n",
    );
    let out = affect(&["check", src.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("E0323") && stderr.contains("`level`"),
        "{stderr}"
    );
    let xml = support::write_temp(
        &dir,
        "t.xml",
        "<root BTCPP_format=\"4\" main_tree_to_execute=\"Main\">\n<BehaviorTree ID=\"Main\"><Sequence><SubTree ID=\"Sub\"/></Sequence></BehaviorTree>\n<BehaviorTree ID=\"Sub\"><Sequence><ScriptCondition code=\"level &gt; 0.5\"/></Sequence></BehaviorTree>\n</root>\n",
    );
    let out = affect(&["run", xml.to_str().unwrap(), "--ticks", "2"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("error[E0605]") && stderr.contains("level") && !stderr.contains("E0323"),
        "{stderr}"
    );
}

/// The network flags mean something only to a robot on the network: a simulated run refuses
/// them instead of ignoring them (`--loss` used to be accepted and had no effect).
#[cfg(feature = "net")]
#[test]
fn network_flags_without_net_are_refused_not_ignored() {
    let dir = scratch("link_flags");
    let nav = copy_example(&dir, "navigator.affect");
    for flags in [
        &["--loss", "0.25"][..],
        &["--speed", "60"],
        &["--team", "t"],
        &["--unsigned"],
        &["--freshness", "5000"],
    ] {
        let mut argv = vec!["run", nav.to_str().unwrap(), "--ticks", "3", "--quiet"];
        argv.extend_from_slice(flags);
        let out = affect(&argv);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "error: {} applies to a robot on the network",
                flags[0]
            )),
            "{flags:?}: {stderr}"
        );
    }
    let out = affect(&[
        "run",
        nav.to_str().unwrap(),
        "--ticks",
        "3",
        "--quiet",
        "--no-persist",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// What the commands that write files say on stderr (stdout stays empty, for pipes): `fmt`
/// counts what it did, `--check` what it found; a run names each file it wrote with its
/// size; the summary tells what a memory holds.
#[test]
fn commands_say_what_they_wrote() {
    let dir = scratch("said");
    let formatted = "main tree T {\n    succeed\n}\n";
    let write = |name: &str, text: &str| support::write_temp(&dir, name, text);
    let a = write("a.affect", "main tree T { succeed }\n");
    let b = write("b.affect", formatted);
    let c = write("c.affect", formatted);
    let broken = write("d.affect", "main tree T { succeed \n");
    let said = |args: &[&str]| {
        let out = affect(args);
        assert!(
            out.stdout.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
        let err = String::from_utf8_lossy(&out.stderr).replace(&format!("{}/", dir.display()), "");
        format!("$ affect {}\n{err}", args.join(" ")).replace(&format!("{}/", dir.display()), "")
    };
    let p = |f: &PathBuf| f.to_str().unwrap().to_string();
    let check = said(&["fmt", "--check", &p(&b), &p(&c)]);
    let fmt = said(&["fmt", &p(&a), &p(&b), &p(&c)]);
    // The diagnostics of the broken file (the parser's to word) aside: the last line.
    let with_broken = said(&["fmt", &p(&a), &p(&broken)]);
    let with_broken = with_broken.lines().last().unwrap_or_default();
    assert_eq!(std::fs::read_to_string(&a).unwrap(), formatted);
    insta::assert_snapshot!(format!("{check}\n{fmt}\n{with_broken}"));
    // A run: the files it wrote, last, with their sizes; the memory's line in the summary.
    let trace = dir.join("nav.jsonl.zst");
    let plot = dir.join("nav.svg");
    let nav = support::workspace().join("examples/navigator.affect");
    let out = affect(&[
        "run",
        nav.to_str().unwrap(),
        "--ticks",
        "300",
        "--no-persist",
        "--trace",
        trace.to_str().unwrap(),
        "--plot",
        plot.to_str().unwrap(),
    ]);
    assert!(out.status.success() && out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    let last: Vec<&str> = err.lines().rev().take(2).collect();
    let size = regex_free_size(last[1], &trace);
    assert!(size > 0, "{err}");
    assert!(regex_free_size(last[0], &plot) > 0, "{err}");
    let places = err
        .lines()
        .find_map(|l| l.strip_prefix("  feelings = "))
        .unwrap_or_else(|| panic!("no memory line: {err}"));
    let n: usize = places.trim_end_matches(" places").parse().expect(places);
    assert!(n > 1, "{places}");
}

/// The size a `wrote PATH (SIZE)` line gives for `path`, in bytes (roughly: KB and MB are
/// read as 1024 and 1024²); 0 when the line is not about it.
fn regex_free_size(line: &str, path: &Path) -> u64 {
    let Some(rest) = line.strip_prefix(&format!("wrote {} (", path.display())) else {
        return 0;
    };
    let (number, unit) = rest
        .trim_end_matches(')')
        .split_once(' ')
        .unwrap_or(("0", ""));
    let x: f64 = number.parse().unwrap_or(0.0);
    let scale = match unit {
        "KB" => 1024.0,
        "MB" => 1024.0 * 1024.0,
        _ => 1.0,
    };
    (x * scale) as u64
}
