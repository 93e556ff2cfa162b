//! Seed 001's story, proved from the trace: `examples/failover.affect` runs for 800 ticks (80 s
//! at 10 Hz) through the `affect` binary. At 40 s the network link of Laptop-2 goes down and
//! both speech servers fall silent. Each is found failed within its timeout (plus one tick);
//! the robot's handlers announce it. The registry's reaper takes the silent instances out;
//! speech recognition's users renew their connection to the redundant instance on Laptop-1,
//! speech production (which has none) is restarted there, the first host with a speaker that
//! is up, and comes up after its declared start-up time; both are reported back, and the
//! robot goes on listening and speaking.

mod support;

use serde_json::Value;
use std::path::Path;

/// When the script stops the speech servers, and their heartbeat, timeout and `confirm`
/// (ADE's defaults, as the example declares them).
const FAIL_MS: f64 = 40_000.0;
const HEARTBEAT_MS: f64 = 1500.0;
const TIMEOUT_MS: f64 = 3000.0;
const CONFIRM_MS: f64 = 1000.0;
/// The registry's reaper runs every two of the longest heartbeats.
const REAPER_MS: f64 = 2.0 * HEARTBEAT_MS;
/// The speech servers' declared start-up time (`startup 25s;`).
const STARTUP_MS: f64 = 25_000.0;
/// The Peoplebot ticks at 10 Hz.
const TICK_MS: f64 = 100.0;

fn scratch(name: &str, edit: impl Fn(String) -> String) -> support::Scratch {
    let d = support::scratch("failover_scenario", name);
    let text =
        std::fs::read_to_string(support::workspace().join("examples/failover.affect")).unwrap();
    std::fs::write(d.join("failover.affect"), edit(text)).unwrap();
    d
}

fn run(dir: &Path) -> (String, Vec<Value>) {
    run_for(dir, "800")
}

/// When the registry takes the speech servers out: the first reaper pass more than a reaper
/// period after their last heartbeat, plus its last call to them; and its next pass, when
/// their users hear of it.
fn registry_drop() -> (f64, f64) {
    let last = ((FAIL_MS / HEARTBEAT_MS).ceil() - 1.0) * HEARTBEAT_MS;
    let pass = (((last + REAPER_MS) / REAPER_MS).floor() + 1.0) * REAPER_MS;
    (pass + CONFIRM_MS, pass + REAPER_MS)
}

fn run_for(dir: &Path, ticks: &str) -> (String, Vec<Value>) {
    let (stderr, text) = run_with(dir, &["--ticks", ticks]);
    let lines = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    (stderr, lines)
}

/// Runs the program in `dir` with these options of `affect run`: its stderr and its trace.
fn run_with(dir: &Path, options: &[&str]) -> (String, String) {
    support::run_traced(
        &dir.join("failover.affect"),
        options,
        &dir.join("trace.jsonl"),
    )
}

fn t(l: &Value) -> f64 {
    l["t_ms"].as_f64().unwrap()
}

/// The `component` events of one component: (time, state, line).
fn changes<'a>(trace: &'a [Value], name: &str) -> Vec<(f64, &'a str, &'a Value)> {
    trace
        .iter()
        .filter(|l| l["ev"] == "component" && l["name"] == name)
        .map(|l| (t(l), l["state"].as_str().unwrap(), l))
        .collect()
}

/// When the `line` being spoken becomes `text`.
fn spoken(trace: &[Value], text: &str) -> Option<f64> {
    trace
        .iter()
        .find(|l| l["ev"] == "var" && l["name"] == "line" && l["value"] == text)
        .map(t)
}

/// Statuses `Listen` went to, with their times.
fn listens(trace: &[Value]) -> Vec<(f64, &str)> {
    trace
        .iter()
        .filter(|l| {
            l["ev"] == "node"
                && l["path"].as_str().unwrap().starts_with("Listen")
                && l["to"] != "IDLE"
        })
        .map(|l| (t(l), l["to"].as_str().unwrap()))
        .collect()
}

#[test]
fn failed_speech_is_detected_announced_and_recovered() {
    let (stderr, trace) = run(&scratch("example", |s| s));
    assert!(
        stderr.contains("Peoplebot: 800 ticks"),
        "a summary: {stderr}"
    );
    assert!(!stderr.contains("E0601"), "components run: {stderr}");

    // Found failed within the timeout of the last heartbeat, at the next tick.
    let sr = changes(&trace, "speech_recognition");
    let (failed_at, state, line) = sr[0];
    assert_eq!(state, "failed");
    assert!(failed_at > FAIL_MS + TIMEOUT_MS - HEARTBEAT_MS);
    assert!(
        failed_at <= FAIL_MS + TIMEOUT_MS + TICK_MS,
        "found at {failed_at}"
    );
    assert!(line["silence_ms"].as_f64().unwrap() > TIMEOUT_MS);
    assert_eq!(line["host"], "laptop2");
    // Nothing failed before the link went down.
    assert!(trace
        .iter()
        .filter(|l| l["ev"] == "component")
        .all(|l| t(l) > FAIL_MS));

    // The registry takes it out at 46 s and tells its users at 48 s; their renewal, asking
    // every heartbeat from one heartbeat after they found it silent, gets the redundant
    // recognizer at its first round after that.
    let (dropped, told) = registry_drop();
    assert_eq!((dropped, told), (46_000.0, 48_000.0));
    let (rebound_at, state, line) = sr[1];
    assert_eq!(state, "rebound");
    assert_eq!(line["to"], "speech_recognition_backup");
    assert!(rebound_at > told && rebound_at <= told + 2.0 * HEARTBEAT_MS);
    assert_eq!((rebound_at - failed_at) % HEARTBEAT_MS, 0.0, "{rebound_at}");

    // Speech production has no backup: restarted on Laptop-1 (first in the world's list, with
    // a speaker, up), up after its start-up time.
    let sp = changes(&trace, "speech_production");
    let states: Vec<&str> = sp.iter().map(|c| c.1).collect();
    assert_eq!(states, ["failed", "restarted", "recovered"]);
    assert_eq!(sp[0].2["host"], "laptop2");
    assert_eq!(sp[1].2["host"], "laptop1");
    assert_eq!(
        sp[1].0, dropped,
        "restarted once the registry has taken it out"
    );
    assert_eq!(sp[2].0, sp[1].0 + STARTUP_MS);

    // The handlers ran: the robot says it cannot hear, then that it can again, once speech
    // production is back.
    let cannot = spoken(&trace, "I cannot hear you right now. Please wait.").unwrap();
    let again = spoken(&trace, "I can hear you again.").unwrap();
    assert!(cannot >= sp[2].0 && again > cannot, "{cannot} {again}");
    assert!(
        trace
            .iter()
            .any(|l| l["ev"] == "var" && l["name"] == "announcements" && t(l) == failed_at),
        "`on failed(speech_recognition)` queued its sentence in the tick of the failure"
    );
    // It could not hear "stop" either: it stops driving (it was going forward).
    let command_at = |at: f64| {
        trace
            .iter()
            .rfind(|l| l["ev"] == "var" && l["name"] == "command" && t(l) <= at)
            .map(|l| l["value"].as_str().unwrap())
    };
    assert_eq!(command_at(failed_at - TICK_MS), Some("Forward"));
    assert_eq!(command_at(failed_at), Some("None"));

    // Listening fails every tick while recognition is failed (`failure_if`), and hears the
    // astronaut again after; before, it heard the astronaut's first directions.
    let heard = listens(&trace);
    assert!(heard
        .iter()
        .any(|(at, s)| *at < failed_at && *s == "SUCCESS"));
    let during: Vec<&(f64, &str)> = heard
        .iter()
        .filter(|(at, _)| *at >= failed_at && *at < rebound_at)
        .collect();
    assert!(!during.is_empty() && during.iter().all(|(_, s)| *s == "FAILURE"));
    // (What it hears after the recovery: the_task_completes_through_the_failure_and_its_recovery.)
    // The run goes on to the end.
    assert!(trace.iter().any(|l| l["ev"] == "node" && t(l) >= 79_900.0));
}

#[test]
fn without_a_redundant_recognizer_it_is_restarted_instead() {
    let dir = scratch("restart", |s| {
        s.replace("        redundant speech_recognition_backup;\n", "")
    });
    let (_, trace) = run(&dir);
    let sr = changes(&trace, "speech_recognition");
    let states: Vec<&str> = sr.iter().map(|c| c.1).collect();
    assert_eq!(states, ["failed", "restarted", "recovered"]);
    assert_eq!(sr[1].2["host"], "laptop1");
    assert!(spoken(&trace, "I can hear you again.").is_some());
}

#[test]
fn without_recovery_the_robot_stays_deaf() {
    // No backup and no restarts: the failure stays, and the robot keeps routing around it.
    let dir = scratch("no_recovery", |s| {
        s.replace("        redundant speech_recognition_backup;\n", "")
            .replace("        restart 3 within 30s;\n", "")
    });
    let (_, trace) = run(&dir);
    let sr = changes(&trace, "speech_recognition");
    let states: Vec<&str> = sr.iter().map(|c| c.1).collect();
    assert_eq!(states, ["failed"]);
    assert!(spoken(&trace, "I can hear you again.").is_none());
    let failed_at = sr[0].0;
    assert!(listens(&trace)
        .iter()
        .filter(|(at, _)| *at >= failed_at)
        .all(|(_, s)| *s == "FAILURE"));
}

/// A component serves the leaves that call it (`serves Listen, ChatBot;`): with no guard in
/// the tree, `Listen` fails from the moment speech recognition is found failed, because the
/// call has nobody to answer it; a leaf no component serves would go on as before.
#[test]
fn a_call_to_a_component_without_service_fails_even_unguarded() {
    let unguarded = |serves: bool| {
        move |s: String| {
            let s = s
                .replace(" failure_if failed(speech_recognition)", "")
                .replace("        redundant speech_recognition_backup;\n", "")
                .replace("        restart 3 within 30s;\n", "");
            if serves {
                s
            } else {
                s.replace("        serves Listen, ChatBot;\n", "")
            }
        }
    };
    // 90 s: the astronaut speaks again at 81 s.
    let dir = scratch("unguarded", unguarded(true));
    let (_, trace) = run_for(&dir, "900");
    let failed_at = changes(&trace, "speech_recognition")[0].0;
    let heard = |trace: &[Value], after: bool| {
        listens(trace)
            .iter()
            .filter(|(at, s)| (*at >= failed_at) == after && *s == "SUCCESS")
            .count()
    };
    assert!(heard(&trace, false) > 0, "heard nothing before the failure");
    assert_eq!(
        heard(&trace, true),
        0,
        "a call to a failed component was served"
    );
    let dir = scratch("unguarded_unserved", unguarded(false));
    let (_, trace) = run_for(&dir, "900");
    assert!(
        heard(&trace, true) > 0,
        "without `serves`, Listen is no call"
    );
}

/// When the robot's `transmitted` became true: the task's end.
fn done_at(trace: &[Value]) -> Option<f64> {
    trace
        .iter()
        .find(|l| l["ev"] == "var" && l["name"] == "transmitted" && l["value"] == true)
        .map(t)
}

/// The words the robot understood, in order (a word repeated while it is obeyed counts once).
fn commands(trace: &[Value]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for l in trace
        .iter()
        .filter(|l| l["ev"] == "var" && l["name"] == "command")
    {
        let c = l["value"].as_str().unwrap().to_string();
        if out.last() != Some(&c) {
            out.push(c);
        }
    }
    out
}

#[test]
fn the_astronaut_directs_the_robot_to_a_strong_field_and_the_data_is_sent() {
    // Without a failure: right along x, forward along y, stop, a report, the transmission.
    let dir = scratch("task", |s| {
        s.replace("    at 40s fail speech_recognition on Peoplebot;\n", "")
            .replace("    at 40s fail speech_production on Peoplebot;\n", "")
            .replace("    at 40s fail registry;\n", "")
    });
    let (_, trace) = run_for(&dir, "1500");
    let done = done_at(&trace).expect("the task completes");
    // "stop" and "report" are done within the tick they are heard in (`command` goes back
    // to `None` before the tick ends), so the trace shows the moves and the transmission.
    assert_eq!(
        commands(&trace),
        ["None", "Right", "Forward", "None", "Transmit", "None"]
    );
    let words: Vec<&str> = trace
        .iter()
        .filter(|l| l["ev"] == "var" && l["name"] == "utterance")
        .map(|l| l["value"].as_str().unwrap())
        .collect();
    assert_eq!(
        words,
        ["", "right", "forward", "stop", "report", "transmit"]
    );
    // 19 m and 22 m at 0.5 m/s, then the report and a 5 s uplink.
    assert!((85_000.0..100_000.0).contains(&done), "done at {done} ms");
    assert!(trace.iter().all(|l| l["ev"] != "component"));
}

#[test]
fn the_task_completes_through_the_failure_and_its_recovery() {
    let (_, with_failure) = run_for(&scratch("task_failover", |s| s), "1500");
    let done = done_at(&with_failure).expect("the task completes after Laptop-2 fails");
    let rebound_at = changes(&with_failure, "speech_recognition")
        .into_iter()
        .find(|c| c.1 == "rebound")
        .expect("re-bound to the backup")
        .0;
    assert!(rebound_at < done);
    // The backup hears the astronaut's later words.
    assert!(listens(&with_failure)
        .iter()
        .any(|(at, s)| *at > rebound_at && *s == "SUCCESS"));
    // Recovery by restart alone (no redundant recognizer) completes it too.
    let (_, restarted) = run_for(
        &scratch("task_restart", |s| {
            s.replace("        redundant speech_recognition_backup;\n", "")
        }),
        "1500",
    );
    assert!(done_at(&restarted).is_some(), "completes after a restart");
}

#[test]
fn without_recovery_the_task_never_completes() {
    // Seed 001 Table I: no recovery, no completion. Deaf from 40 s, the robot never hears
    // "forward", "stop", "report" or "transmit".
    let dir = scratch("task_no_recovery", |s| {
        s.replace("        redundant speech_recognition_backup;\n", "")
            .replace("        restart 3 within 30s;\n", "")
    });
    let (_, trace) = run_for(&dir, "1500");
    assert_eq!(done_at(&trace), None);
}

#[test]
fn the_task_gives_the_same_trace_in_both_engines() {
    // The astronaut's words and the robot's steps are decided by the simulation alone: the
    // interpreter and the JIT write the same trace, bit for bit.
    let dir = scratch("engines", |s| s);
    let trace = |engine: &str| run_with(&dir, &["--ticks", "1000", "--engine", engine]).1;
    let interp = trace("interp");
    assert!(interp.contains(r#""name":"transmitted","value":true"#));
    assert!(interp == trace("jit"), "the engines' traces differ");
}
