//! `affect run --btlog FILE.btlog`: Groot 2's log format (BehaviorTree.CPP's FileLogger2),
//! read back by a reader written here from the format's description (not the writer's code)
//! and matched with the JSON Lines trace of the same run.

mod support;

use std::collections::HashMap;
use std::path::Path;

/// What a `.btlog` file holds.
struct Log {
    xml: String,
    start_us: i64,
    /// (µs since the start, uid, status 0..4).
    records: Vec<(u64, u16, u8)>,
}

fn read_btlog(bytes: &[u8]) -> Log {
    let magic = b"BTCPP4-FileLogger2";
    assert_eq!(&bytes[..18], magic, "magic");
    assert_eq!(bytes[18], 1, "protocol byte");
    let len = i32::from_le_bytes(bytes[19..23].try_into().unwrap()) as usize;
    let xml = String::from_utf8(bytes[23..23 + len].to_vec()).expect("UTF-8 XML");
    let at = 23 + len;
    let start_us = i64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
    let body = &bytes[at + 8..];
    assert_eq!(body.len() % 9, 0, "records are 9 bytes each");
    let records = body
        .chunks(9)
        .map(|r| {
            let mut t = [0u8; 8];
            t[..6].copy_from_slice(&r[..6]);
            (
                u64::from_le_bytes(t),
                u16::from_le_bytes([r[6], r[7]]),
                r[8],
            )
        })
        .collect();
    Log {
        xml,
        start_us,
        records,
    }
}

fn status_number(s: &str) -> u8 {
    ["IDLE", "RUNNING", "SUCCESS", "FAILURE", "SKIPPED"]
        .iter()
        .position(|x| *x == s)
        .unwrap_or_else(|| panic!("status {s}")) as u8
}

/// Records and trace transitions of `agent` must be the same, in the same order.
fn check(dir: &Path, file: &str, agent: &str, extra: &[&str]) -> Log {
    let log = dir.join("run.btlog");
    let trace = dir.join("run.jsonl");
    let mut args = vec![
        "run",
        file,
        "--no-persist",
        "--quiet",
        "--btlog",
        log.to_str().unwrap(),
        "--trace",
        trace.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let out = support::affect(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let read = read_btlog(&std::fs::read(&log).unwrap());
    let now_us = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_micros() as i64;
    assert!((now_us - read.start_us).abs() < 600_000_000, "start time");
    let mut expected = Vec::new();
    let mut paths: HashMap<u16, String> = HashMap::new();
    for line in std::fs::read_to_string(&trace).unwrap().lines() {
        let ev: serde_json::Value = serde_json::from_str(line).unwrap();
        if ev["ev"] != "node" || ev["agent"] != agent {
            continue;
        }
        let uid = ev["uid"].as_u64().unwrap() as u16;
        let micros = (ev["t_ms"].as_f64().unwrap() * 1000.0).round() as u64;
        expected.push((micros, uid, status_number(ev["to"].as_str().unwrap())));
        paths.insert(uid, ev["path"].as_str().unwrap().to_string());
    }
    assert!(!expected.is_empty());
    assert_eq!(read.records.len(), expected.len());
    assert_eq!(read.records, expected);
    // Each recorded uid is a node of the header's tree, named as the trace names it.
    let doc = roxmltree::Document::parse(&read.xml).expect("header XML");
    for (uid, path) in &paths {
        let el = doc
            .descendants()
            .find(|n| n.attribute("_uid") == Some(uid.to_string().as_str()))
            .unwrap_or_else(|| panic!("uid {uid} ({path}) is not in the header's tree"));
        let last = path.rsplit('/').next().unwrap();
        let name = last.split("::").next().unwrap();
        let shown = el.attribute("name").or(el.attribute("ID")).unwrap();
        assert_eq!(shown, name, "uid {uid}: {path}");
    }
    read
}

#[test]
fn the_navigator_run_is_recorded_as_its_trace_says() {
    let dir = support::scratch("btlog_record", "navigator");
    let log = check(
        &dir,
        "examples/navigator.affect",
        "Navigator",
        &["--ticks", "400"],
    );
    // Simulated time: 400 ticks at 10 Hz end before 40 s.
    let last = log.records.last().unwrap().0;
    assert!(last > 1_000_000 && last < 40_000_000, "{last}");
}

#[test]
fn one_agent_of_a_team_is_recorded_with_agent() {
    let dir = support::scratch("btlog_record", "recruitment");
    let log = check(
        &dir,
        "examples/recruitment.affect",
        "UGV#2",
        &["--ticks", "200", "--agent", "UGV#2"],
    );
    assert!(
        log.xml.contains("main_tree_to_execute=\"UGV\""),
        "{}",
        &log.xml[..300]
    );
}

#[test]
fn a_name_groot_does_not_open_is_refused() {
    let dir = support::scratch("btlog_record", "name");
    let bad = dir.join("run.log");
    let out = support::affect(&[
        "run",
        "examples/navigator.affect",
        "--quiet",
        "--no-persist",
        "--btlog",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("*.btlog"));
    assert!(!bad.exists());
}
