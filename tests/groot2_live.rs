//! `affect run --groot2`: real clients watch a run over loopback. A pyzmq script that speaks
//! the protocol's documented requests (tests/live/groot2_client.py) and the `btview` monitor
//! from PyPI fetch the tree, see a node's status change between snapshots while the robot
//! runs, and dump the blackboard with the affect state; the served tree loads in the real
//! BehaviorTree.CPP. The Python clients are installed by tests/live/setup.sh (idempotent).

mod support;

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The venv with btview, pyzmq and msgpack.
fn live_venv() -> PathBuf {
    static VENV: OnceLock<PathBuf> = OnceLock::new();
    VENV.get_or_init(|| {
        let dir = support::workspace().join(".tools").join("live");
        let status = Command::new("bash")
            .arg(support::workspace().join("tests/live/setup.sh"))
            .arg(&dir)
            .status()
            .expect("run tests/live/setup.sh");
        assert!(status.success(), "tests/live/setup.sh failed");
        dir
    })
    .clone()
}

/// A port whose next port is free too (the server binds both).
fn free_ports() -> u16 {
    static NEXT: AtomicU16 = AtomicU16::new(0);
    let base = 20000 + (std::process::id() % 2000) as u16 * 10;
    loop {
        let p = base + NEXT.fetch_add(2, Ordering::SeqCst);
        let free = |p: u16| TcpListener::bind(("127.0.0.1", p)).is_ok();
        if free(p) && free(p + 1) {
            return p;
        }
    }
}

/// A run serving Groot 2; killed when dropped.
struct Served(Child);

impl Served {
    fn wait(mut self) -> std::process::ExitStatus {
        self.0.wait().expect("wait for affect run")
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `affect run FILE --groot2 PORT ARGS..` and waits until it says it serves.
/// `Served::wait` lets it end by itself.
fn serve(file: &Path, port: u16, args: &[&str]) -> Served {
    let mut child = Command::new(env!("CARGO_BIN_EXE_affect"))
        .arg("run")
        .arg(file)
        .args(["--groot2", &port.to_string(), "--no-persist", "--quiet"])
        .args(args)
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("start affect run");
    let stderr = child.stderr.take().expect("piped");
    let mut lines = BufReader::new(stderr).lines();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let line = lines
            .next()
            .expect("affect run ended before serving")
            .expect("read stderr");
        if line.starts_with("groot2: ") {
            assert!(line.contains(&format!("tcp://127.0.0.1:{port}")), "{line}");
            break;
        }
        assert!(Instant::now() < deadline, "no `groot2:` line");
    }
    // Keep draining stderr so the run never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    Served(child)
}

fn navigator() -> PathBuf {
    support::workspace().join("examples/navigator.affect")
}

fn python(venv: &Path, script: &str, args: &[String]) -> serde_json::Value {
    let out = Command::new(venv.join("bin/python"))
        .arg(support::workspace().join(script))
        .args(args)
        .output()
        .expect("run python");
    assert!(
        out.status.success(),
        "{script} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

/// The `_uid`s of a served tree, in document order, with each element's tag.
fn uids_of(xml: &str) -> Vec<(u16, String)> {
    let doc = roxmltree::Document::parse(xml).expect("served XML parses");
    doc.descendants()
        .filter_map(|n| {
            Some((
                n.attribute("_uid")?.parse().ok()?,
                n.tag_name().name().to_string(),
            ))
        })
        .collect()
}

#[test]
fn a_pyzmq_client_watches_the_navigator_run() {
    let venv = live_venv();
    let port = free_ports();
    let _run = serve(&navigator(), port, &["--ticks", "300"]);
    let out = python(
        &venv,
        "tests/live/groot2_client.py",
        &[port.to_string(), "Navigator".into()],
    );
    let xml = out["xml"].as_str().unwrap();
    let served = uids_of(xml);
    // Every node of the tick program is in the tree and in the snapshots, once.
    let mut tree_uids: Vec<u16> = served.iter().map(|(u, _)| *u).collect();
    tree_uids.sort_unstable();
    let status_uids: Vec<u16> = out["uids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u.as_u64().unwrap() as u16)
        .collect();
    assert_eq!(tree_uids, status_uids);
    assert_eq!(tree_uids, (1..=tree_uids.len() as u16).collect::<Vec<_>>());
    assert!(served.contains(&(23, "Move".to_string())), "{served:?}");
    assert!(served.contains(&(16, "SubTree".to_string())), "{served:?}");
    // One node's status changed between two snapshots.
    let changed = out["changed"].as_u64().unwrap();
    assert!(tree_uids.contains(&(changed as u16)));
    assert_ne!(out["before"], out["after"]);
    // The blackboard holds the affect state.
    let board = &out["boards"]["Navigator"];
    let mood = board["mood"].as_f64().expect("mood is a number");
    assert!((0.0..=150.0).contains(&mood), "{mood}");
    assert!(board["cortisol"].is_number() && board["serotonin"].is_number());
    assert!(board["drive"].is_string(), "{board}");
    assert!(
        board["memory"].as_object().is_some_and(|m| !m.is_empty()),
        "{board}"
    );
    assert!(
        out["transitions"].as_u64().unwrap() > 0,
        "nothing recorded in 0.5 s"
    );
    assert_eq!(out["errors"]["Z"], "Request not recognized");
    assert_eq!(out["errors"]["short header"], "wrong request header");
    assert!(out["errors"]["I"]
        .as_str()
        .unwrap()
        .contains("--groot2-hooks"));
    // The served tree loads in BehaviorTree.CPP.
    let dir = support::scratch("groot2_live", "oracle");
    let file = support::write_temp(&dir, "served.xml", xml);
    let load = Command::new(support::oracle())
        .arg("load")
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        load.status.success(),
        "BehaviorTree.CPP refuses the served tree: {}",
        String::from_utf8_lossy(&load.stderr)
    );
}

#[test]
fn btview_shows_the_tree_statuses_and_blackboard() {
    let venv = live_venv();
    let port = free_ports();
    let _run = serve(&navigator(), port, &["--ticks", "300"]);
    let btview = |args: &[&str]| {
        let out = Command::new(venv.join("bin/btview"))
            .args(args)
            .args(["-p", &port.to_string(), "--timeout", "3"])
            .env("NO_COLOR", "1")
            .output()
            .expect("run btview");
        assert!(
            out.status.success(),
            "btview {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let shot = btview(&["snapshot", "--uid", "--no-color", "--ascii"]);
    for want in ["ReactiveSequence #1", "remember", "Move #23", "RUNNING"] {
        assert!(shot.contains(want), "no `{want}` in:\n{shot}");
    }
    let board: serde_json::Value =
        serde_json::from_str(&btview(&["blackboard", "Navigator", "--json"])).unwrap();
    assert!(board["Navigator"]["mood"].is_number(), "{board}");
    // btview's recording: snapshots at 20 Hz for 3 s; some node changes between two.
    let dir = support::scratch("groot2_live", "btview");
    let rec = dir.join("run.btv.jsonl");
    btview(&[
        "record",
        "--duration",
        "3",
        "--poll-hz",
        "20",
        "-o",
        rec.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&rec).unwrap();
    let frames: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|f| f.get("s").is_some())
        .collect();
    assert!(frames.len() > 10, "{} frames", frames.len());
    let status = |f: &serde_json::Value, uid: u64| {
        f["s"]
            .as_array()
            .unwrap()
            .iter()
            .find_map(|p| (p[0].as_u64() == Some(uid)).then(|| p[1].as_u64().unwrap()))
    };
    let changed = (1..=23u64).find(|&u| {
        frames
            .windows(2)
            .any(|w| status(&w[0], u).is_some() && status(&w[0], u) != status(&w[1], u))
    });
    assert!(
        changed.is_some(),
        "no node changed status in btview's frames"
    );
}

/// A breakpoint stops the robot and its unlock decides the result, on every node kind, as
/// BehaviorTree.CPP's `Groot2Publisher` lets Groot 2 set breakpoints on any node: before the
/// `Step` SubTree (uid 16), a Sequence (19), a Timeout decorator (22) and the Move action (23,
/// ticked on every tick while the robot steps), each unlocked with FAILURE, the run stops
/// there and that node fails once without being ticked, where the plain run never fails it.
#[test]
fn breakpoints_stop_the_robot_on_every_node_kind_and_their_unlock_decides() {
    let venv = live_venv();
    let dir = support::scratch("groot2_live", "node_hooks");
    let plain = dir.join("plain.jsonl");
    let plain_run = Command::new(env!("CARGO_BIN_EXE_affect"))
        .arg("run")
        .arg(navigator())
        .args(["--ticks", "60", "--no-persist", "--quiet", "--trace"])
        .arg(&plain)
        .status()
        .unwrap();
    assert!(plain_run.success());
    let failures = |p: &Path, uid: u16| {
        std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .filter(|l| l.contains(&format!("\"uid\":{uid},")) && l.contains("\"to\":\"FAILURE\""))
            .count()
    };
    for (uid, kind) in [
        (16, "SubTree"),
        (19, "Sequence"),
        (22, "Timeout"),
        (23, "Move"),
    ] {
        let port = free_ports();
        let trace = dir.join(format!("hooked-{uid}.jsonl"));
        let run = serve(
            &navigator(),
            port,
            &[
                "--ticks",
                "60",
                "--groot2-hooks",
                "--trace",
                trace.to_str().unwrap(),
            ],
        );
        let out = python(
            &venv,
            "tests/live/groot2_client.py",
            &[
                port.to_string(),
                "Navigator".into(),
                "--hooks".into(),
                uid.to_string(),
            ],
        );
        assert!(
            uids_of(out["xml"].as_str().unwrap()).contains(&(uid, kind.to_string())),
            "uid {uid} is not a {kind}"
        );
        assert_eq!(out["reached"], uid, "the {kind} breakpoint was not reached");
        let dumped: serde_json::Value =
            serde_json::from_str(out["hooks"].as_str().unwrap()).unwrap();
        assert_eq!(
            (&dumped[0]["uid"], &dumped[0]["mode"]),
            (&uid.into(), &0.into())
        );
        assert_eq!(out["hooks_after"], "[]", "{kind}: a once hook is gone");
        assert!(run.wait().success());
        assert_eq!(
            failures(&plain, uid),
            0,
            "{kind} never fails on its own here"
        );
        assert_eq!(
            failures(&trace, uid),
            1,
            "the unlock made the {kind} fail once"
        );
    }
}

/// `--watch` with `--groot2`: a saved edit reloads the program and its tree is served on the
/// same ports under a new tree id. A client connected before the reload stays connected (one
/// REQ socket throughout) and fetches the new tree, with the node the edit added.
#[test]
fn a_groot2_client_stays_connected_across_a_watch_reload() {
    const BEFORE: &str = "action Work();\n\nagent Counter {\n    rate 20Hz;\n    var count: int = 0;\n    main {\n        reactive_sequence {\n            do { count = count + 1 }\n            Work()\n        }\n    }\n}\n";
    let venv = live_venv();
    let port = free_ports();
    let dir = support::scratch("groot2_live", "watch_reload");
    let file = dir.join("counter.affect");
    std::fs::write(&file, BEFORE).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_affect"))
        .arg("run")
        .arg(&file)
        .args([
            "--watch",
            "--groot2",
            &port.to_string(),
            "--no-persist",
            "--quiet",
        ])
        .args(["--ticks", "1200"])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("start affect run --watch --groot2");
    let stderr = child.stderr.take().expect("piped");
    let _run = Served(child);
    let (tx, said) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for l in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    let wait_for = |what: &str| {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = said
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no `{what}` on stderr"));
            if line.contains(what) {
                return;
            }
        }
    };
    wait_for("watching");
    let mut client = Command::new(venv.join("bin/python"))
        .arg(support::workspace().join("tests/live/groot2_reload_client.py"))
        .args([port.to_string(), "2".into(), "60".into()])
        .stdout(Stdio::piped())
        .spawn()
        .expect("run the client");
    let mut trees = BufReader::new(client.stdout.take().unwrap()).lines();
    let first: serde_json::Value =
        serde_json::from_str(&trees.next().expect("a first tree").unwrap()).unwrap();
    let xml = first["xml"].as_str().unwrap();
    assert!(xml.contains("Work") && !xml.contains("Rest"), "{xml}");
    // Saved as editors save: a new file renamed over the old one.
    let edited = BEFORE
        .replace("action Work();", "action Work();\naction Rest();")
        .replace("Work()\n", "Work()\n            Rest()\n");
    let tmp = dir.join("counter.affect.tmp");
    std::fs::write(&tmp, edited).unwrap();
    std::fs::rename(&tmp, &file).unwrap();
    wait_for("groot2: Counter reloaded");
    let second: serde_json::Value =
        serde_json::from_str(&trees.next().expect("the reloaded tree").unwrap()).unwrap();
    assert!(
        client.wait().unwrap().success(),
        "the client lost its server"
    );
    assert_ne!(first["uuid"], second["uuid"], "a new tree id");
    let xml = second["xml"].as_str().unwrap();
    assert!(xml.contains("Rest"), "the reloaded tree: {xml}");
    let uids: Vec<u16> = uids_of(xml).iter().map(|(u, _)| *u).collect();
    assert_eq!(
        uids.len(),
        uids_of(first["xml"].as_str().unwrap()).len() + 1
    );
}

/// A robot of a team on the network, watched live: `affect launch --groot2 UAV=PORT` gives
/// the UAV's own process (`affect run --agent UAV --net`) `--groot2 PORT`, and the pyzmq
/// client fetches its tree and sees its nodes change status while the team runs.
#[cfg(feature = "net")]
#[test]
fn a_pyzmq_client_watches_a_robot_of_a_launched_team() {
    let venv = live_venv();
    let port = free_ports();
    let file = support::workspace().join("examples/recruitment.affect");
    let mut child = Command::new(env!("CARGO_BIN_EXE_affect"))
        .arg("launch")
        .arg(&file)
        .args(["--speed", "60", "--ticks", "1500", "--quiet"])
        .args(["--groot2", &format!("UAV={port}")])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("start affect launch");
    let stderr = child.stderr.take().expect("piped");
    let launch = Launched(child);
    let mut lines = BufReader::new(stderr).lines();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let line = lines
            .next()
            .expect("affect launch ended before serving")
            .expect("read stderr");
        if line.starts_with("groot2: ") {
            assert!(
                line.contains(&format!("UAV on tcp://127.0.0.1:{port}")),
                "{line}"
            );
            break;
        }
        assert!(Instant::now() < deadline, "no `groot2:` line");
    }
    std::thread::spawn(move || for _ in lines {});
    let out = python(
        &venv,
        "tests/live/groot2_client.py",
        &[port.to_string(), "UAV".into()],
    );
    let served = uids_of(out["xml"].as_str().unwrap());
    let mut tree_uids: Vec<u16> = served.iter().map(|(u, _)| *u).collect();
    tree_uids.sort_unstable();
    assert_eq!(tree_uids, (1..=tree_uids.len() as u16).collect::<Vec<_>>());
    assert!(
        served.iter().any(|(_, tag)| tag == "RequestHelp"),
        "{served:?}"
    );
    assert!(tree_uids.contains(&(out["changed"].as_u64().unwrap() as u16)));
    assert_ne!(out["before"], out["after"]);
    drop(launch);
}

/// A launch stopped as Ctrl-C stops it (its children go with it) when dropped.
#[cfg(feature = "net")]
struct Launched(Child);

#[cfg(feature = "net")]
impl Drop for Launched {
    fn drop(&mut self) {
        // SAFETY: kill(2) on our own child, not yet reaped.
        unsafe {
            libc::kill(self.0.id() as libc::pid_t, libc::SIGINT);
        }
        let _ = self.0.wait();
    }
}
