//! The example crate's own leaf runs: `Charge` is RUNNING while it raises the level and
//! SUCCESS at the target, and the program goes on after it.

use std::process::Command;

fn run(ticks: &str) -> (Vec<serde_json::Value>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_charger"))
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/charger.affect"))
        .arg(ticks)
        .output()
        .expect("the example runs");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    let lines = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    (lines, err)
}

fn values(trace: &[serde_json::Value], name: &str) -> Vec<serde_json::Value> {
    trace
        .iter()
        .filter(|v| v["ev"] == "var" && v["name"] == name)
        .map(|v| v["value"].clone())
        .collect()
}

#[test]
fn charge_is_implemented_in_rust_and_runs_until_its_target() {
    let (trace, err) = run("20");
    // 20 % + 7.5 % a tick: 27.5, 35, ... 80 in eight ticks.
    let levels: Vec<f64> = values(&trace, "level")
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let expected: Vec<f64> = (0..=8).map(|k| 20.0 + 7.5 * f64::from(k)).collect();
    assert_eq!(levels, expected);
    assert_eq!(
        values(&trace, "charged").last(),
        Some(&serde_json::json!(true))
    );
    // RUNNING while charging (not a stand-in, which would succeed at once).
    let charge: Vec<&str> = trace
        .iter()
        .filter(|v| v["ev"] == "node" && v["path"].as_str().unwrap().starts_with("Charge"))
        .map(|v| v["to"].as_str().unwrap())
        .collect();
    assert_eq!(
        charge.iter().filter(|s| **s == "RUNNING").count(),
        1,
        "{charge:?}"
    );
    assert!(charge.contains(&"SUCCESS"), "{charge:?}");
    assert!(err.contains("Charger: 20 ticks"), "{err}");
}

#[test]
fn a_short_run_stops_while_charging() {
    let (trace, _) = run("3");
    let last = values(&trace, "level").last().cloned().unwrap();
    assert_eq!(last, serde_json::json!(42.5));
    assert!(values(&trace, "charged")
        .iter()
        .all(|v| v == &serde_json::json!(false)));
}
