//! The JIT through the binary: `affect run --engine jit|interp` give the same trace, the JIT
//! is the default, a JIT that cannot run falls back to the interpreter and says so once (a
//! `log` line in the trace, one line on stderr), and `affect bench` reports both engines in
//! the documented JSON shape.

mod support;

use std::path::PathBuf;
use std::process::Output;

fn affect(args: &[&str], env: &[(&str, &str)]) -> Output {
    support::affect_command()
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("affect runs")
}

fn scratch(name: &str) -> PathBuf {
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
fn both_engines_write_the_same_trace_and_the_jit_is_the_default() {
    let dir = scratch("same");
    let (interp, _) = run_trace(&dir, Some("interp"), &[]);
    let (jit, err) = run_trace(&dir, Some("jit"), &[]);
    let (default, _) = run_trace(&dir, None, &[]);
    assert!(interp.lines().count() > 20, "{interp}");
    assert_eq!(interp, jit);
    assert_eq!(interp, default);
    assert!(!err.contains("JIT"), "{err}");
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
fn bench_prints_one_json_object_per_engine() {
    let dir = scratch("bench");
    let file = dir.join("tree.affect");
    std::fs::write(&file, TREE).unwrap();
    let mut seen = Vec::new();
    for engine in ["jit", "interp"] {
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
        assert_eq!(v["engine"], engine);
        for key in ["nodes", "ticks", "compile_ms", "state_bytes"] {
            assert!(v[key].is_number(), "{key} in {v}");
        }
        for key in ["ns_per_tick", "ns_per_node"] {
            for stat in ["min", "median", "max"] {
                assert!(v[key][stat].is_number(), "{key}.{stat} in {v}");
            }
        }
        seen.push(v["blackboard"].clone());
    }
    assert_eq!(
        seen[0], seen[1],
        "both engines end with the same blackboard"
    );
}
