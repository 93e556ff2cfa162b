//! Running one tree in the BehaviorTree.CPP oracle (`btcpp_oracle trace`) and in `affect run`,
//! and comparing their status transitions: the steps `btcpp_equivalence.rs`,
//! `groot_run_equivalence.rs` and the XML judge (`xmljudge.rs`) share. Both sides tick the same
//! way: the oracle's `tickExactlyOnce()` loop, affect with `--loop --sleep-between-ticks 1`
//! (on past a finished tree, as the oracle).

use super::{affect_command, oracle};
use std::path::Path;
use std::process::Command;

/// Transition lines as (tick, uid, path, from, to).
pub type Trace = Vec<(u64, u64, String, String, String)>;

/// What to give the oracle besides the file.
#[derive(Default)]
pub struct OracleArgs<'a> {
    pub ticks: u32,
    /// Milliseconds slept between ticks (`--sleep-ms`, BehaviorTree.CPP's `tree.sleep`).
    pub sleep_ms: Option<u32>,
    /// Every unmodelled node a stand-in (`--stand-ins`).
    pub stand_ins: bool,
    /// Root blackboard entries: (key, C++ type as the oracle spells it, value).
    pub bb: Vec<(&'a str, &'a str, &'a str)>,
    /// Stand-in statuses (`--custom-result KEY=S1,S2`).
    pub leaves: &'a [(String, String)],
}

/// The oracle's run: its exit status, transitions (with each node's ID), the exception a tick
/// threw (its tick and text), the final root blackboard and stderr.
#[derive(Debug)]
pub struct OracleRun {
    pub code: Option<i32>,
    pub trace: Trace,
    pub ids: Vec<String>,
    pub thrown: Option<(u64, String)>,
    pub blackboard: serde_json::Value,
    pub stderr: String,
}

impl OracleRun {
    /// Exit status 2: BehaviorTree.CPP refused to create the tree (stderr says why).
    pub fn refused(&self) -> bool {
        self.code == Some(2)
    }

    /// Exit status 0, or 3 (a tick threw; `thrown` says what).
    pub fn ran(&self) -> bool {
        matches!(self.code, Some(0 | 3))
    }
}

/// `btcpp_oracle trace FILE ...`, its JSON lines read.
pub fn oracle_trace(xml: &Path, args: &OracleArgs) -> OracleRun {
    let mut cmd = Command::new(oracle());
    cmd.arg("trace")
        .arg(xml)
        .arg("--ticks")
        .arg(args.ticks.to_string());
    if let Some(ms) = args.sleep_ms {
        cmd.arg("--sleep-ms").arg(ms.to_string());
    }
    if args.stand_ins {
        cmd.arg("--stand-ins");
    }
    for (k, ty, v) in &args.bb {
        cmd.arg("--bb").arg(format!("{k}:{ty}={v}"));
    }
    for (k, v) in args.leaves {
        cmd.arg("--custom-result").arg(format!("{k}={v}"));
    }
    let out = cmd.output().expect("the oracle runs");
    let mut run = OracleRun {
        code: out.status.code(),
        trace: Trace::new(),
        ids: Vec::new(),
        thrown: None,
        blackboard: serde_json::Value::Null,
        stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
    };
    if !run.ran() {
        return run;
    }
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let v: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        if let Some(uid) = v["uid"].as_u64() {
            run.trace.push(transition(&v, uid));
            run.ids
                .push(v["id"].as_str().unwrap_or_default().to_string());
        } else if let Some(e) = v.get("error") {
            let text = e.as_str().unwrap_or_default().to_string();
            run.thrown = Some((v["tick"].as_u64().unwrap_or_default(), text));
        } else if let Some(bb) = v.get("blackboard") {
            run.blackboard = bb.clone();
        }
    }
    run
}

fn transition(v: &serde_json::Value, uid: u64) -> (u64, u64, String, String, String) {
    (
        v["tick"].as_u64().unwrap(),
        uid,
        v["path"].as_str().unwrap().to_string(),
        v["from"].as_str().unwrap().to_string(),
        v["to"].as_str().unwrap().to_string(),
    )
}

/// The transitions of an affect trace (JSON lines), and the last `error` that stopped a tick
/// (its tick and the variable read while it held no value), if one did.
pub fn affect_transitions(jsonl: &str) -> (Trace, Option<(u64, String)>) {
    let mut trace = Trace::new();
    let mut stop = None;
    for line in jsonl.lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if v["ev"] == "error" {
            stop = Some((v["tick"].as_u64().unwrap_or_default(), v["var"].to_string()));
        }
        if v["ev"] == "node" {
            trace.push(transition(&v, v["uid"].as_u64().unwrap()));
        }
    }
    (trace, stop)
}

/// `affect run FILE --ticks N --loop --sleep-between-ticks 1 --quiet --trace TRACE`, with
/// `--bb KEY=VALUE` and `--leaf KEY=statuses`: its transitions, and its stderr when it failed.
pub fn affect_trace(
    file: &Path,
    ticks: u32,
    leaves: &[(String, String)],
    bb: &[(&str, &str)],
    jsonl: &Path,
) -> (Trace, Option<String>) {
    let mut cmd = affect_command();
    cmd.arg("run")
        .arg(file)
        .args(["--ticks", &ticks.to_string()])
        .args(["--loop", "--sleep-between-ticks", "1", "--quiet"])
        .arg("--trace")
        .arg(jsonl);
    for (k, v) in bb {
        cmd.arg("--bb").arg(format!("{k}={v}"));
    }
    for (k, v) in leaves {
        cmd.arg("--leaf").arg(format!("{k}={}", v.to_lowercase()));
    }
    let out = cmd.output().expect("affect runs");
    let failed = (!out.status.success()).then(|| String::from_utf8_lossy(&out.stderr).into_owned());
    let text = std::fs::read_to_string(jsonl).unwrap_or_default();
    (affect_transitions(&text).0, failed)
}

/// Where two traces first differ, or `None` when they are equal.
pub fn diff(ours: &Trace, theirs: &Trace) -> Option<String> {
    if ours == theirs {
        return None;
    }
    let first = ours
        .iter()
        .zip(theirs)
        .position(|(a, b)| a != b)
        .unwrap_or(ours.len().min(theirs.len()));
    Some(format!(
        "traces differ at transition {first} (affect {} lines, BehaviorTree.CPP {}):\n    affect: {:?}\n    btcpp:  {:?}",
        ours.len(),
        theirs.len(),
        ours.get(first),
        theirs.get(first)
    ))
}
