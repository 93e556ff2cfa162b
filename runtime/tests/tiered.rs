//! The tiered engine against the interpreter alone: the interpreter ticks while the JIT
//! compiles in the background, and the compiled code takes over at a tick boundary. Whatever
//! tick that is, the trace and the final blackboard must be bit for bit the interpreter's.
//! `RunConfig::tier_at` forces the switch at a chosen tick (the run waits for the code
//! there), and each program here switches at several: before the first tick, in the middle
//! of running timers and actions, and late.

mod support;

use affect_compiler::ir::program::Program;
use affect_compiler::sema::NoFiles;
use affect_runtime::jit::EngineKind;
use affect_runtime::run::{self, RunConfig};
use affect_runtime::trace::JsonLines;

/// Each agent's final root blackboard: (name, value as text).
type Blackboards = Vec<Vec<(String, String)>>;

/// The trace, the final blackboards and the engine each agent ended in.
fn run_with(program: &Program, config: &RunConfig) -> (String, Blackboards, Vec<EngineKind>) {
    let mut sink = JsonLines::new(Vec::new());
    let summaries = run::run(program, config, &mut sink, |_| {}).expect("runs");
    let text = String::from_utf8(sink.into_inner()).expect("utf-8");
    let engines = summaries.iter().map(|s| s.engine).collect();
    (
        text,
        summaries.into_iter().map(|s| s.variables).collect(),
        engines,
    )
}

fn compile(source: &str) -> Program {
    affect_compiler::check_source_with(source, &NoFiles)
        .program
        .expect("compiles")
}

/// Runs `program` in the interpreter, then tiered with the switch at each tick of `at`:
/// every run must equal the interpreter's, and the JIT must have taken over.
fn switch_anywhere(name: &str, program: &Program, config: &RunConfig, at: &[u64]) {
    let interp = RunConfig {
        engine: EngineKind::Interp,
        ..config.clone()
    };
    let (reference, vars, _) = run_with(program, &interp);
    assert!(reference.lines().count() > 3, "{name}: {reference}");
    let jit = affect_runtime::jit::supported().is_ok();
    for &k in at {
        let tiered = RunConfig {
            engine: EngineKind::Tiered,
            tier_at: Some(k),
            ..config.clone()
        };
        let (trace, v, engines) = run_with(program, &tiered);
        if trace != reference {
            let (a, b): (Vec<&str>, Vec<&str>) =
                (reference.lines().collect(), trace.lines().collect());
            let i = a
                .iter()
                .zip(&b)
                .position(|(x, y)| x != y)
                .unwrap_or(a.len().min(b.len()));
            panic!(
                "{name}, switched at tick {k}: the traces differ at line {}:\n  interp: {}\n  tiered: {}",
                i + 1,
                a.get(i).unwrap_or(&"(end)"),
                b.get(i).unwrap_or(&"(end)")
            );
        }
        assert_eq!(
            v, vars,
            "{name}, switched at tick {k}: the blackboards differ"
        );
        if jit {
            assert!(
                engines.iter().all(|e| *e == EngineKind::Jit),
                "{name}, switched at tick {k}: the JIT did not take over ({engines:?})"
            );
        }
    }
}

/// A reactive sequence over a script, a stand-in and a timeout whose halt writes.
const TREE: &str = include_str!("fixtures/work_and_timeout.affect");

#[test]
fn a_switch_at_any_tick_gives_the_interpreters_trace() {
    let program = compile(TREE);
    let config = RunConfig {
        ticks: 40,
        leaves: vec![run::LeafScript {
            key: "Work".into(),
            statuses: run::parse_statuses("running,success,running,running,running,failure")
                .expect("valid"),
            cycle: true,
        }],
        ..RunConfig::default()
    };
    switch_anywhere(
        "TREE",
        &program,
        &config,
        &[0, 1, 2, 3, 4, 5, 7, 11, 19, 39],
    );
}

#[test]
fn a_switch_while_stand_ins_run_and_write_gives_the_interpreters_trace() {
    let source = r#"enum Mode { A, B, C }
action Sense(out level: num, out count: int, out mode: Mode);
action Sweep();
condition Near();

tree Look(out at: num) {
    sequence { Sweep() Sense(level: at) }
}

main tree T {
    var level: num = 0;
    var count: int = 0;
    var mode: Mode = Mode::A;
    var at: num = 0;
    var m: int = 0;

    reactive_sequence {
        Near()
        sequence {
            Sense(level: level, count: count, mode: mode)
            check mode == Mode::C
            Look(at: at)
            do { m = m + count }
            Sweep()
        }
    }
}
"#;
    let leaf = |key: &str, s: &str| run::LeafScript {
        key: key.into(),
        statuses: run::parse_statuses(s).expect("valid"),
        cycle: true,
    };
    let out = |port: &str, value: &str| run::LeafOut {
        node: "Sense".into(),
        port: port.into(),
        value: value.into(),
    };
    let config = RunConfig {
        ticks: 60,
        leaves: vec![
            leaf("Near", "success,success,success,failure"),
            leaf("Sweep", "running,running,success"),
            leaf("Sense", "running,success"),
        ],
        leaf_outs: vec![out("level", "42.5"), out("count", "3"), out("mode", "C")],
        ..RunConfig::default()
    };
    let program = compile(source);
    switch_anywhere("stand-ins", &program, &config, &[0, 1, 2, 3, 6, 13, 29, 59]);
}

/// Every example (hormones, drives, memories, worlds with several robots), switched before
/// the first tick, after it, and a third of the way.
#[test]
fn every_example_switched_at_three_ticks_gives_the_interpreters_trace() {
    let files = support::example_files();
    let mut ran = 0;
    for path in files {
        let source = std::fs::read_to_string(&path).expect("readable");
        let Some(program) = affect_compiler::check_source_with(&source, &NoFiles).program else {
            continue;
        };
        if run::check_runnable(&program, None).is_err() {
            continue;
        }
        let world = program.worlds.first();
        let ticks = world.and_then(|w| w.ticks).unwrap_or(100).min(600);
        let config = RunConfig {
            ticks,
            seed: world.map(|w| w.seed).unwrap_or(0),
            ..RunConfig::default()
        };
        let name = path.display().to_string();
        switch_anywhere(&name, &program, &config, &[0, 1, ticks / 3]);
        ran += 1;
    }
    assert!(ran >= 3, "only {ran} examples ran");
}

/// Without a forced tick the switch happens whenever the code is ready; the run is the
/// interpreter's all the same.
#[test]
fn an_unforced_switch_gives_the_interpreters_trace() {
    let program = compile(TREE);
    let config = RunConfig {
        ticks: 400,
        ..RunConfig::default()
    };
    let (reference, vars, _) = run_with(
        &program,
        &RunConfig {
            engine: EngineKind::Interp,
            ..config.clone()
        },
    );
    let (trace, v, _) = run_with(
        &program,
        &RunConfig {
            engine: EngineKind::Tiered,
            ..config
        },
    );
    assert!(trace == reference, "the traces differ");
    assert_eq!(v, vars);
}

/// A node wider than the JIT unrolls (its compiled code loops over a table of its children's
/// functions), switched while its sleeping child keeps it running, and loaded from the code
/// cache: the interpreter's trace each time.
#[test]
fn a_wide_node_switched_and_loaded_from_the_cache_gives_the_interpreters_trace() {
    let mut source =
        String::from("agent A {\n    var x = 0;\n    main {\n        reactive_fallback {\n");
    for i in 0..300 {
        source.push_str(match i % 4 {
            0 => "            check x < 0\n",
            1 => "            invert { do { x = x + 1 } }\n",
            2 if i == 298 => "            sleep(250ms)\n",
            _ => "            check x > 1000000\n",
        });
    }
    source.push_str("        }\n    }\n}\n");
    let program = compile(&source);
    let config = RunConfig {
        ticks: 12,
        ..RunConfig::default()
    };
    switch_anywhere("wide", &program, &config, &[0, 1, 2, 3, 5, 11]);
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("cache");
        let cached = RunConfig {
            code_cache: Some(dir.clone()),
            ..config.clone()
        };
        // The first run stores the code, the others load it.
        switch_anywhere("wide, cached", &program, &cached, &[0, 4, 7]);
        let (_, said) = affect_runtime::jit::compile_cached(
            &program,
            &program.agents[0],
            true,
            Some(dir.clone()),
        );
        assert_eq!(said, Some("hit"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
