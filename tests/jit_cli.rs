//! The JIT through the binary: `affect run --engine tiered|jit|interp` give the same trace,
//! the tiered engine is the default, a JIT that cannot run falls back to the interpreter and
//! says so once (a `log` line in the trace, one line on stderr), the code cache fills and is
//! used unless `--no-code-cache`, and `affect bench` reports every engine in the documented
//! JSON shape.

mod support;

use std::path::Path;
use std::process::Output;

/// Runs `affect`; the code cache is a scratch directory unless `env` names one.
fn affect(args: &[&str], env: &[(&str, &str)]) -> Output {
    let cache = scratch("cache");
    support::affect_command()
        .env("AFFECT_CODE_CACHE", &cache)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("affect runs")
}

fn scratch(name: &str) -> support::Scratch {
    support::scratch("jit_cli", name)
}

const TREE: &str = r#"action Work();
condition Ready();

main tree Main {
    var x: num = 0.5;
    var n: int = 0;

    reactive_sequence {
        check x < 1000
        sequence {
            do { x = x * 1.5 + 1; n += 1 }
            Work()
            timeout(300ms) { Work() } on_halted { n = n + 100 }
        }
    }
}
"#;

/// `affect bench FILE --ticks 20 --repeats 1 EXTRA...`, which must succeed: its JSON.
fn bench_json(file: &Path, extra: &[&str], env: &[(&str, &str)]) -> serde_json::Value {
    let mut args = vec![
        "bench",
        file.to_str().unwrap(),
        "--ticks",
        "20",
        "--repeats",
        "1",
    ];
    args.extend(extra);
    let out = affect(&args, env);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

fn run_trace(
    dir: &std::path::Path,
    engine: Option<&str>,
    env: &[(&str, &str)],
) -> (String, String) {
    let file = dir.join("tree.affect");
    std::fs::write(&file, TREE).unwrap();
    let trace = dir.join(format!(
        "{}.jsonl",
        engine.unwrap_or("default").replace(' ', "_")
    ));
    let mut args = vec![
        "run",
        file.to_str().unwrap(),
        "--ticks",
        "20",
        "--loop",
        "--leaf",
        "Work=running,success,running,running,running,failure",
        "--trace",
        trace.to_str().unwrap(),
    ];
    if let Some(e) = engine {
        args.push("--engine");
        args.extend(e.split(' '));
    }
    let out = affect(&args, env);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        std::fs::read_to_string(trace).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn every_engine_writes_the_same_trace_and_tiered_is_the_default() {
    let dir = scratch("same");
    let (interp, _) = run_trace(&dir, Some("interp"), &[]);
    let (jit, err) = run_trace(&dir, Some("jit"), &[]);
    let (tiered, _) = run_trace(&dir, Some("tiered"), &[]);
    let (default, _) = run_trace(&dir, None, &[]);
    assert!(interp.lines().count() > 20, "{interp}");
    assert_eq!(interp, jit);
    assert_eq!(interp, tiered);
    assert_eq!(interp, default);
    assert!(!err.contains("JIT"), "{err}");
    let help = affect(&["run", "--help"], &[]);
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("[default: tiered]"), "{help}");
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn the_code_cache_fills_is_used_and_is_off_with_no_code_cache() {
    let dir = scratch("code_cache");
    let cache = dir.join("cache");
    let _ = std::fs::remove_dir_all(&cache);
    let env = [("AFFECT_CODE_CACHE", cache.to_str().unwrap())];
    let entries = || {
        std::fs::read_dir(&cache)
            .map(|d| d.filter_map(|e| e.ok()).count())
            .unwrap_or(0)
    };
    let (reference, _) = run_trace(&dir, Some("interp"), &env);
    let (off, _) = run_trace(&dir, Some("jit --no-code-cache"), &env);
    assert_eq!(off, reference);
    assert_eq!(entries(), 0, "--no-code-cache wrote to the cache");
    let (first, _) = run_trace(&dir, Some("jit"), &env);
    assert_eq!(first, reference);
    assert_eq!(entries(), 1, "the first run stores its code");
    let (second, _) = run_trace(&dir, Some("jit"), &env);
    assert_eq!(second, reference);
    assert_eq!(entries(), 1);
    // bench says what the cache did, and the tiered engine reports when its code was ready.
    let file = dir.join("tree.affect");
    let bench = |extra: &[&str]| bench_json(&file, extra, &env);
    // A benchmark's code does not record status changes: an entry of its own.
    let miss = bench(&["--engine", "jit"]);
    assert_eq!(miss["code_cache"], "miss", "{miss}");
    assert_eq!(entries(), 2);
    let hit = bench(&["--engine", "jit"]);
    assert_eq!(hit["code_cache"], "hit", "{hit}");
    assert_eq!(hit["blackboard"], miss["blackboard"]);
    let off = bench(&["--engine", "jit", "--no-code-cache"]);
    assert_eq!(off["code_cache"], serde_json::Value::Null, "{off}");
    let tiered = bench(&[]);
    assert_eq!(tiered["tiered"], true, "{tiered}");
    assert_eq!(tiered["engine"], "jit", "{tiered}");
    assert_eq!(tiered["code_cache"], "hit", "{tiered}");
    let first = tiered["first_tick_ms"].as_f64().expect("first_tick_ms");
    let ready = tiered["jit_ready_ms"].as_f64().expect("jit_ready_ms");
    assert!(first > 0.0 && ready > 0.0, "{tiered}");
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn a_jit_that_cannot_run_falls_back_and_says_so_once() {
    let dir = scratch("fallback");
    let (reference, _) = run_trace(&dir, Some("interp"), &[]);
    let (trace, err) = run_trace(&dir, Some("jit"), &[("AFFECT_JIT_FAIL", "1")]);
    let (_, quiet_err) = run_trace(&dir, Some("jit --quiet"), &[("AFFECT_JIT_FAIL", "1")]);
    for err in [&err, &quiet_err] {
        let warnings: Vec<&str> = err
            .lines()
            .filter(|l| l.contains("the JIT is not available"))
            .collect();
        assert_eq!(warnings.len(), 1, "{err}");
        assert!(warnings[0].contains("running the interpreter"), "{err}");
    }
    let logs: Vec<&str> = trace
        .lines()
        .filter(|l| l.contains("\"ev\":\"log\""))
        .collect();
    assert_eq!(logs.len(), 1, "{trace}");
    // Apart from that line, the run is the interpreter's.
    let rest: Vec<&str> = trace
        .lines()
        .filter(|l| !l.contains("\"ev\":\"log\""))
        .collect();
    assert_eq!(rest, reference.lines().collect::<Vec<_>>());
}

#[test]
fn bench_starts_the_program_again_in_process_when_asked() {
    let dir = scratch("bench-starts");
    let file = dir.join("tree.affect");
    std::fs::write(&file, TREE).unwrap();
    let bench = |extra: &[&str]| bench_json(&file, &[&["--no-code-cache"], extra].concat(), &[]);
    let plain = bench(&[]);
    assert_eq!(plain["restart_first_tick_ms"], serde_json::Value::Null);
    let again = bench(&["--starts", "3"]);
    let r = &again["restart_first_tick_ms"];
    let (min, median, max) = (
        r["min"].as_f64().expect("min"),
        r["median"].as_f64().expect("median"),
        r["max"].as_f64().expect("max"),
    );
    assert!(0.0 < min && min <= median && median <= max, "{again}");
    // The restarts change nothing the timed run reports.
    assert_eq!(again["blackboard"], plain["blackboard"]);
    // An unknown --bb variable is a usage error, with or without restarts.
    let out = affect(
        &[
            "bench",
            file.to_str().unwrap(),
            "--starts",
            "2",
            "--bb",
            "nosuch=1",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

#[test]
fn bench_prints_one_json_object_per_engine() {
    let dir = scratch("bench");
    let file = dir.join("tree.affect");
    std::fs::write(&file, TREE).unwrap();
    let mut seen = Vec::new();
    for engine in ["jit", "interp", "tiered"] {
        let out = affect(
            &[
                "bench",
                file.to_str().unwrap(),
                "--engine",
                engine,
                "--ticks",
                "50",
                "--repeats",
                "3",
            ],
            &[],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
        if engine == "tiered" {
            // What ran the timed ticks: the JIT, once its code was ready.
            assert_eq!(v["tiered"], true);
            let jit = affect_runtime::jit::supported().is_ok();
            assert_eq!(v["engine"], if jit { "jit" } else { "interp" }, "{v}");
        } else {
            assert_eq!(v["engine"], engine);
        }
        for key in [
            "nodes",
            "ticks",
            "compile_ms",
            "state_bytes",
            "first_tick_ms",
        ] {
            assert!(v[key].is_number(), "{key} in {v}");
        }
        for key in ["ns_per_tick", "ns_per_node"] {
            for stat in ["min", "median", "max"] {
                assert!(v[key][stat].is_number(), "{key}.{stat} in {v}");
            }
        }
        seen.push(v["blackboard"].clone());
    }
    assert!(
        seen.iter().all(|b| *b == seen[0]),
        "every engine ends with the same blackboard: {seen:?}"
    );
}
