//! Initial values: the trace's first lines show each variable as it is before tick 0; a `var`
//! declared without an initial value is `null` until the program writes it.

use super::*;

/// The `var` lines of a trace, as (tick, name, value).
fn vars(trace: &Path) -> Vec<(u64, String, serde_json::Value)> {
    std::fs::read_to_string(trace)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|e| e["ev"] == "var")
        .map(|e| {
            (
                e["tick"].as_u64().unwrap(),
                e["name"].as_str().unwrap().to_string(),
                e["value"].clone(),
            )
        })
        .collect()
}

const PROGRAM: &str = "enum Mode { Idle, Busy }
agent A {
    var x: num;
    var on: bool;
    var mode: Mode;
    var never: num;
    var y = 3.5;
    main {
        do { x = 5; on = true; mode = Busy }
    }
}
";

#[test]
fn a_var_without_an_initial_value_is_null_before_tick_0() {
    let dir = scratch("initial_values");
    write(&dir, "a.affect", PROGRAM);
    let out = affect_in(
        &dir,
        &[
            "run", "a.affect", "--ticks", "1", "--trace", "t.jsonl", "--quiet",
        ],
    );
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    let null = serde_json::Value::Null;
    let v = vars(&dir.join("t.jsonl"));
    let before: Vec<_> = v.iter().take(5).cloned().collect();
    assert_eq!(
        before,
        vec![
            (0, "x".to_string(), null.clone()),
            (0, "on".to_string(), null.clone()),
            (0, "mode".to_string(), null.clone()),
            (0, "never".to_string(), null.clone()),
            (0, "y".to_string(), serde_json::json!(3.5)),
        ]
    );
    // Tick 0 gives each its first value: what the program wrote. A `var` nothing writes
    // stays without one (reading it would be E0605), so it is not reported again.
    let after: Vec<_> = v.iter().skip(5).cloned().collect();
    assert!(
        after.contains(&(0, "x".to_string(), serde_json::json!(5.0))),
        "{after:?}"
    );
    assert!(
        after.contains(&(0, "on".to_string(), serde_json::json!(true))),
        "{after:?}"
    );
    assert!(
        after.contains(&(0, "mode".to_string(), serde_json::json!("Busy"))),
        "{after:?}"
    );
    assert!(!after.iter().any(|(_, n, _)| n == "never"), "{after:?}");
}

#[test]
fn a_value_given_with_bb_is_shown_before_tick_0() {
    let dir = scratch("initial_values_bb");
    write(&dir, "a.affect", PROGRAM);
    let out = affect_in(
        &dir,
        &[
            "run", "a.affect", "--ticks", "1", "--trace", "t.jsonl", "--quiet", "--bb", "x=7",
        ],
    );
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    let v = vars(&dir.join("t.jsonl"));
    assert_eq!(v[0], (0, "x".to_string(), serde_json::json!(7.0)));
    assert_eq!(v[1], (0, "on".to_string(), serde_json::Value::Null));
}
