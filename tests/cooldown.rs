//! `cooldown`, affect's own decorator, through the binary: both engines tick the child once
//! per cooldown; the export declares the node for Groot and BehaviorTree.CPP (which runs the
//! exported file with `cpp/affect_bt.hpp`'s `Cooldown` to the same count); the import reads
//! the file back as the built-in. (Its transitions against BehaviorTree.CPP's, tick by tick,
//! are a case of `btcpp_equivalence.rs`.)

mod support;

use support::btcpp::{self, OracleArgs};

const SOURCE: &str = "main tree Main {
    var greeted: int = 0;
    var tries: int = 0;

    sequence {
        do { tries += 1 }
        fallback {
            cooldown(250ms) { do { greeted += 1 } }
            succeed
        }
    }
}
";

/// The last value the trace gives `name`.
fn last_value(trace: &str, name: &str) -> Option<f64> {
    trace
        .lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["ev"] == "var" && v["name"] == name)
        .find_map(|v| v["value"].as_f64())
}

#[test]
fn each_engine_ticks_the_child_once_per_cooldown() {
    let dir = support::scratch("cooldown", "engines");
    let file = dir.join("greet.affect");
    std::fs::write(&file, SOURCE).unwrap();
    let mut traces = Vec::new();
    for engine in ["interp", "jit"] {
        let trace = dir.join(format!("{engine}.jsonl"));
        let out = support::affect(&[
            "run",
            file.to_str().unwrap(),
            "--ticks",
            "10",
            "--loop",
            "--engine",
            engine,
            "--no-code-cache",
            "--trace",
            trace.to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        traces.push(std::fs::read_to_string(trace).unwrap());
    }
    // Ticks every 100 ms: the child runs at 0, 300, 600 and 900 ms; the fallback's other
    // branch takes the ticks between.
    assert_eq!(
        last_value(&traces[0], "greeted"),
        Some(4.0),
        "{}",
        traces[0]
    );
    assert_eq!(last_value(&traces[0], "tries"), Some(10.0));
    assert_eq!(
        traces[0], traces[1],
        "the JIT's trace differs from the interpreter's"
    );
}

#[test]
fn the_export_declares_it_and_behaviortree_cpp_runs_it() {
    let dir = support::scratch("cooldown", "export");
    let file = dir.join("greet.affect");
    std::fs::write(&file, SOURCE).unwrap();
    let xml = dir.join("greet.xml");
    let out = support::affect(&[
        "build",
        file.to_str().unwrap(),
        "--emit",
        "groot",
        "-o",
        xml.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&xml).unwrap();
    assert!(text.contains(r#"<Cooldown msec="250">"#), "{text}");
    assert!(
        text.contains(r#"<Decorator ID="Cooldown" _affect_node="true""#)
            && text.contains(r#"<input_port name="msec" type="unsigned int"/>"#),
        "no model of Cooldown:\n{text}"
    );
    let run = btcpp::oracle_trace(
        &xml,
        &OracleArgs {
            ticks: 10,
            sleep_ms: Some(100),
            ..Default::default()
        },
    );
    assert!(run.ran(), "BehaviorTree.CPP did not run it: {}", run.stderr);
    assert_eq!(run.blackboard["greeted"], 4, "{}", run.blackboard);
    assert_eq!(run.blackboard["tries"], 10, "{}", run.blackboard);
    let back = support::affect(&["import", xml.to_str().unwrap()]);
    assert!(
        back.status.success(),
        "{}",
        String::from_utf8_lossy(&back.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&back.stdout), SOURCE);
}
