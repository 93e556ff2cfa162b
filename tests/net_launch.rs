//! Teams on a real network (docs/network.md): `affect launch` starts one process per robot and
//! component host on loopback Zenoh. Each test is bounded (world time runs fast, every launch
//! has a tick limit and the launcher a wall-clock limit here) and checks that no process is
//! left behind.
#![cfg(feature = "net")]

mod support;

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn affect() -> Command {
    Command::new(env!("CARGO_BIN_EXE_affect"))
}

fn example(name: &str) -> PathBuf {
    support::workspace().join("examples").join(name)
}

/// Runs `affect launch` with `args`, killing it after `limit` (a failure).
fn launch(args: &[&str], limit: Duration) -> Output {
    let mut child = affect()
        .arg("launch")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("affect launch starts");
    let began = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if began.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "affect launch {args:?} ran longer than {limit:?}:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

fn events(trace: &Path) -> Vec<Value> {
    std::fs::read_to_string(trace)
        .unwrap_or_else(|e| panic!("{}: {e}", trace.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn pids(events: &[Value]) -> BTreeSet<u64> {
    events.iter().filter_map(|e| e["pid"].as_u64()).collect()
}

/// Every process that wrote to the trace is gone (Linux: no `/proc/PID`).
fn none_left(pids: &BTreeSet<u64>) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left: Vec<&u64> = pids
            .iter()
            .filter(|p| Path::new(&format!("/proc/{p}")).exists())
            .collect();
        if left.is_empty() {
            return;
        }
        assert!(Instant::now() < deadline, "processes left behind: {left:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn steps<'e>(events: &'e [Value], agent: &str, step: &str) -> Vec<&'e Value> {
    events
        .iter()
        .filter(|e| e["ev"] == "recruit" && e["agent"] == agent && e["step"] == step)
        .collect()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The recruitment example across 13 processes (a UAV and 12 UGVs): every possible mine is
/// handed over (the UAV's `helped`), at this loss.
fn recruitment_completes(name: &str, loss: &str, extra: &[&str]) -> Vec<Value> {
    recruitment_completes_in(name, "900", loss, extra)
}

/// As [`recruitment_completes`], in this many ticks (the UAV's 1 Hz: seconds of world time).
fn recruitment_completes_in(name: &str, ticks: &str, loss: &str, extra: &[&str]) -> Vec<Value> {
    let dir = support::scratch("net_launch", name);
    let trace = dir.join("team.jsonl");
    let file = example("recruitment.affect");
    let mut args = vec![
        file.to_str().unwrap(),
        "--speed",
        "60",
        "--ticks",
        ticks,
        "--loss",
        loss,
        "--trace",
        trace.to_str().unwrap(),
        "--quiet",
    ];
    args.extend_from_slice(extra);
    let out = launch(&args, Duration::from_secs(180));
    assert!(out.status.success(), "{}", stderr(&out));
    let evs = events(&trace);
    let helped = steps(&evs, "UAV", "helped");
    assert_eq!(
        helped.len(),
        5,
        "the UAV handed over {} of 5 possible mines:\n{}",
        helped.len(),
        stderr(&out)
    );
    let pids = pids(&evs);
    assert_eq!(pids.len(), 13, "one process per robot: {pids:?}");
    none_left(&pids);
    evs
}

#[test]
fn recruitment_between_processes_completes_without_loss() {
    let evs = recruitment_completes("loss0", "0", &[]);
    // Every protocol message of a robot is signed and verified: none refused.
    assert!(!evs.iter().any(|e| e["ev"] == "rejected"));
}

#[test]
fn recruitment_between_processes_completes_with_ten_percent_loss() {
    // Any message but HELP lost costs a new request (seed 002's protocol): 1,500 ticks, where
    // the simulator's last hand-over at 10 % loss came at 890 s in 20 seeds.
    let evs = recruitment_completes_in("loss10", "1500", "0.1", &[]);
    let lost: u64 = evs
        .iter()
        .filter(|e| e["ev"] == "lost")
        .map(|e| e["copies"].as_u64().unwrap())
        .sum();
    assert!(lost > 0, "10 % loss loses copies");
}

/// Seed 002's protocol completes under a quarter of the messages lost: five launches, each
/// with its own seed, hand over every mine. 3,000 ticks (50 s at `--speed 60`): without loss
/// the last mine is handed over near tick 600; with 25 % loss every message but HELP lost
/// costs a new request, and in the simulator the last hand-over came as late as tick 1,660
/// in 20 seeds.
#[test]
fn recruitment_between_processes_completes_with_a_quarter_lost_in_five_runs_of_five() {
    for seed in ["1", "2", "3", "4", "5"] {
        let evs = recruitment_completes_in(
            &format!("loss25_seed{seed}"),
            "3000",
            "0.25",
            &["--seed", seed],
        );
        let lost = evs.iter().filter(|e| e["ev"] == "lost").count();
        assert!(lost > 0, "seed {seed}: 25 % loss loses copies");
        // The merged trace holds the protocol's steps from the UAV and from its responders.
        let writers: BTreeSet<u64> = evs
            .iter()
            .filter(|e| e["ev"] == "recruit")
            .filter_map(|e| e["pid"].as_u64())
            .collect();
        assert!(
            writers.len() >= 3,
            "seed {seed}: recruit steps from {writers:?}"
        );
    }
}

#[test]
fn a_robot_killed_mid_run_leaves_the_others_to_finish() {
    // UGV#7 answers the first HELP when nothing is lost; killed while on its way, the UAV's
    // lease runs out and another robot is recruited.
    let evs = recruitment_completes("kill", "0", &["--kill", "UGV#7@85s"]);
    assert!(
        evs.iter()
            .filter(|e| e["agent"] == "UGV#7")
            .all(|e| e["t_ms"].as_f64().unwrap() <= 86_000.0),
        "UGV#7 wrote nothing after it was killed"
    );
    assert!(!steps(&evs, "UAV", "helped")
        .iter()
        .any(|e| e["peer"] == "UGV#7" && e["t_ms"].as_f64().unwrap() > 85_000.0));
}

#[test]
fn a_partitioned_robot_is_cut_off_and_comes_back() {
    // The UAV is cut off from 70 s to 130 s of world time: its first HELP (at 82 s) reaches
    // nobody until the partition ends; then the recruitment goes on.
    let evs = recruitment_completes("partition", "0", &["--partition", "UAV@70s+60s"]);
    let decided_meanwhile = evs.iter().any(|e| {
        let t = e["t_ms"].as_f64().unwrap();
        e["ev"] == "recruit"
            && e["agent"] != "UAV"
            && e["step"] == "help_ignored"
            && (72_000.0..128_000.0).contains(&t)
    });
    assert!(
        !decided_meanwhile,
        "a UGV heard the UAV while it was cut off"
    );
    let helped = steps(&evs, "UAV", "helped");
    assert!(helped[0]["t_ms"].as_f64().unwrap() > 130_000.0);
}

/// A component host cut off from 10 s to 15 s: the robot's first call to it waits one
/// heartbeat (1.5 s, ADE's default, as the example declares) and fails, the next ones fail at once until it is heard again, so the
/// robot never stalls (the components it still hears on the other hosts stay alive); the
/// silence is found at the timeout, and the calls go to the redundant instance on Laptop-1.
#[test]
fn calls_to_a_cut_off_host_fail_after_one_wait_and_go_to_the_backup() {
    let dir = support::scratch("net_launch", "call_partition");
    let trace = dir.join("team.jsonl");
    let file = example("failover.affect");
    let out = launch(
        &[
            file.to_str().unwrap(),
            "--speed",
            "4",
            "--ticks",
            "200",
            "--partition",
            "laptop2@10s+5s",
            "--trace",
            trace.to_str().unwrap(),
            "--quiet",
        ],
        Duration::from_secs(90),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let evs = events(&trace);
    let t = |e: &Value| e["t_ms"].as_f64().unwrap();
    let failed: Vec<&Value> = evs
        .iter()
        .filter(|e| e["ev"] == "call" && e["state"] == "failed")
        .collect();
    assert!(!failed.is_empty(), "no call failed");
    assert!(failed
        .iter()
        .all(|e| e["host"] == "laptop2" && t(e) >= 10_000.0));
    let waited: Vec<&&Value> = failed
        .iter()
        .filter(|e| e["why"] == "no answer within 1500 ms")
        .collect();
    assert_eq!(waited.len(), 1, "{failed:?}");
    assert!(failed.iter().all(|e| t(e) >= t(waited[0])));
    let found = evs
        .iter()
        .find(|e| {
            e["ev"] == "component" && e["name"] == "speech_recognition" && e["state"] == "failed"
        })
        .map(t)
        .expect("speech recognition found failed");
    assert!(found - 10_000.0 <= 3000.0 + 100.0, "found at {found}");
    assert!(failed.iter().all(|e| t(e) < found), "{failed:?}");
    for name in ["robot", "laser", "localization"] {
        assert!(
            !evs.iter()
                .any(|e| e["ev"] == "component" && e["name"] == name && e["state"] == "failed"),
            "{name} on the onboard host was found failed"
        );
    }
    assert!(evs.iter().any(|e| e["ev"] == "call"
        && e["agent"] == "laptop1"
        && e["leaf"] == "Listen"
        && t(e) > found));
    none_left(&pids(&evs));
}

/// The failover example with Laptop-2's process killed at 40 s, as in the seed: its users see
/// it within a heartbeat (one tick of the robot's, 100 ms, of tolerance); speech recognition
/// is re-bound to its redundant instance, speech production restarted on Laptop-1; and the
/// astronaut's task completes (the data is sent: `transmitted`).
#[test]
fn a_killed_component_host_is_detected_and_recovered_and_the_task_completes() {
    let dir = support::scratch("net_launch", "failover");
    let trace = dir.join("team.jsonl");
    let file = example("failover.affect");
    let out = launch(
        &[
            file.to_str().unwrap(),
            "--speed",
            "4",
            "--ticks",
            "1300",
            "--kill",
            "laptop2@40s",
            "--trace",
            trace.to_str().unwrap(),
            "--quiet",
        ],
        Duration::from_secs(180),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let evs = events(&trace);
    let component = |name: &str, state: &str| -> Option<f64> {
        evs.iter()
            .find(|e| {
                e["ev"] == "component"
                    && e["name"] == name
                    && e["state"] == state
                    && e["t_ms"].as_f64().unwrap() >= 40_000.0
            })
            .map(|e| e["t_ms"].as_f64().unwrap())
    };
    for (name, heartbeat) in [
        ("speech_recognition", 1500.0),
        ("speech_production", 1500.0),
    ] {
        let failed = component(name, "failed")
            .unwrap_or_else(|| panic!("{name} was never found failed:\n{}", stderr(&out)));
        assert!(
            failed - 40_000.0 <= heartbeat + 100.0,
            "{name} found failed {} ms after the kill",
            failed - 40_000.0
        );
    }
    let rebound = component("speech_recognition", "rebound").expect("re-bound to the backup");
    assert!(rebound >= component("speech_recognition", "failed").unwrap());
    let restarted = component("speech_production", "restarted").expect("restarted");
    let recovered = component("speech_production", "recovered").expect("back after restart");
    // The launcher starts the new process after speech production's `startup 25s`, as a
    // simulated restart takes it.
    assert!(
        recovered - restarted >= 25_000.0,
        "restarted at {restarted} ms, heard at {recovered} ms"
    );
    assert!(
        stderr(&out).contains("restarted speech_production on laptop1"),
        "{}",
        stderr(&out)
    );
    let done = evs
        .iter()
        .find(|e| e["ev"] == "var" && e["name"] == "transmitted" && e["value"] == true)
        .map(|e| e["t_ms"].as_f64().unwrap())
        .unwrap_or_else(|| panic!("the task never completed:\n{}", stderr(&out)));
    assert!(
        done > recovered,
        "done at {done} ms, recovered at {recovered} ms"
    );
    let deaf = component("speech_recognition", "failed").unwrap();
    calls_go_to_the_serving_host(&evs, deaf, recovered);
    // A robot, three hosts, and the restarted component's process.
    let pids = pids(&evs);
    assert_eq!(pids.len(), 5, "{pids:?}");
    none_left(&pids);
}

/// The failover launch's component calls: served by the host processes (their own `pid`s),
/// failing within a heartbeat once Laptop-2 is killed at 40 s, and served afterwards by the
/// redundant instance on Laptop-1 and by the component restarted there.
fn calls_go_to_the_serving_host(evs: &[Value], found_failed: f64, restart_recovered: f64) {
    let pid_of = |agent: &str| -> BTreeSet<u64> {
        evs.iter()
            .filter(|e| e["agent"] == agent)
            .map(|e| e["pid"].as_u64().unwrap())
            .collect()
    };
    let robot = pid_of("Peoplebot");
    assert_eq!(robot.len(), 1, "{robot:?}");
    let calls = |agent: &str, state: &str, leaf: &str| -> Vec<&Value> {
        evs.iter()
            .filter(|e| {
                e["ev"] == "call" && e["agent"] == agent && e["state"] == state && e["leaf"] == leaf
            })
            .collect()
    };
    let t = |e: &Value| e["t_ms"].as_f64().unwrap();
    // Before the kill Laptop-2's process serves speech recognition: each answer the robot
    // got is the host's `served` line of the same call, written by another process.
    let listened = calls("Peoplebot", "answered", "Listen");
    let before: Vec<&&Value> = listened.iter().filter(|e| t(e) < 40_000.0).collect();
    assert!(before.len() > 300, "{} answered calls", before.len());
    assert!(before.iter().all(|e| e["host"] == "laptop2"));
    let served = calls("laptop2", "served", "Listen");
    for e in &before {
        let by = served
            .iter()
            .find(|s| s["id"] == e["id"] && s["caller"] == "Peoplebot")
            .unwrap_or_else(|| panic!("no host served call {e}"));
        assert!(!robot.contains(&by["pid"].as_u64().unwrap()), "{by}");
    }
    // Nearly every call is answered (a loaded machine may miss the odd 125 ms of wall time).
    let failed_before = evs
        .iter()
        .filter(|e| e["ev"] == "call" && e["state"] == "failed" && t(e) < 40_000.0)
        .count();
    assert!(
        failed_before <= 3,
        "{failed_before} calls failed before the kill"
    );
    // After the kill (delivered a little after 40 s of world time: the launcher's clock):
    // no answer from Laptop-2 once it is found failed, a failed call says it waited one
    // heartbeat, and recognition is served by the redundant instance on Laptop-1.
    assert!(
        !served.iter().any(|e| t(e) >= found_failed),
        "a dead host served"
    );
    for e in evs
        .iter()
        .filter(|e| e["ev"] == "call" && e["state"] == "failed" && t(e) >= 40_000.0)
    {
        assert!(t(e) < 42_000.0, "{e}");
        assert_eq!(e["why"], "no answer within 1500 ms", "{e}");
    }
    let laptop1 = pid_of("laptop1");
    let backup = calls("laptop1", "served", "Listen");
    assert!(
        backup.len() > 100,
        "{} calls served by the backup",
        backup.len()
    );
    assert!(backup.iter().all(|e| t(e) > 40_000.0
        && e["component"] == "speech_recognition_backup"
        && laptop1.contains(&e["pid"].as_u64().unwrap())));
    // Speech production answers again from the process restarted on Laptop-1.
    let spoken = calls("laptop1", "served", "Speak");
    assert!(!spoken.is_empty(), "nothing said after the restart");
    let restarted: BTreeSet<u64> = spoken.iter().map(|e| e["pid"].as_u64().unwrap()).collect();
    assert_eq!(restarted.len(), 1, "{restarted:?}");
    assert!(spoken.iter().all(|e| t(e) >= restart_recovered));
    assert!(
        !backup
            .iter()
            .any(|e| restarted.contains(&e["pid"].as_u64().unwrap())),
        "the restarted process runs speech production only"
    );
}

/// Ctrl-C stops the launch and every process it started.
#[test]
fn ctrl_c_stops_every_process() {
    let dir = support::scratch("net_launch", "ctrl_c");
    let trace = dir.join("team.jsonl");
    let file = example("failover.affect");
    let mut child = affect()
        .arg("launch")
        .arg(&file)
        .args(["--trace", trace.to_str().unwrap(), "--quiet"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Running: every process has written its first lines.
    std::thread::sleep(Duration::from_secs(6));
    assert!(child.try_wait().unwrap().is_none(), "still running");
    // SAFETY: kill(2) on our own child.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    let began = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(
            began.elapsed() < Duration::from_secs(20),
            "launch ignored Ctrl-C"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success(), "an interrupted launch fails");
    assert!(stderr(&out).contains("interrupted"), "{}", stderr(&out));
    let pids = pids(&events(&trace));
    assert_eq!(pids.len(), 4, "a robot and three hosts: {pids:?}");
    none_left(&pids);
}

/// A launcher killed with SIGKILL leaves nothing behind: its temporary folder (the launch's
/// fresh secret keys, the processes' traces) is removed by its cleaner, and every process it
/// started stops when the launcher's end of its pipe closes.
#[test]
fn a_killed_launcher_leaves_no_keys_traces_or_processes() {
    let dir = support::scratch("net_launch", "kill_launcher");
    let tmp = dir.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let mut child = affect()
        .arg("launch")
        .arg(example("failover.affect"))
        .args(["--speed", "4", "--quiet"])
        .env("TMPDIR", &tmp)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let launch_dir = || {
        std::fs::read_dir(&tmp)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("affect-launch-")
            })
    };
    // Running: the fresh keys written and every process's trace begun (a robot and three
    // hosts, and the launcher's own).
    let began = Instant::now();
    let running = loop {
        assert!(
            began.elapsed() < Duration::from_secs(60),
            "the launch did not start: {:?}",
            launch_dir()
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the launch ended early"
        );
        if let Some(d) = launch_dir() {
            let traces = std::fs::read_dir(&d)
                .map(|r| {
                    r.filter(|e| {
                        e.as_ref()
                            .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
                    })
                    .count()
                })
                .unwrap_or(0);
            if d.join("keys").join("launch.key").exists() && traces == 5 {
                break d;
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let children = processes_mentioning(&running);
    assert_eq!(
        children.len(),
        5,
        "a robot, three hosts and the cleaner: {children:?}"
    );
    // SAFETY: kill(2) on our own child.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGKILL);
    }
    child.wait().unwrap();
    let began = Instant::now();
    while running.exists() {
        assert!(
            began.elapsed() < Duration::from_secs(15),
            "the launch's folder is still there: {:?}",
            std::fs::read_dir(&running).map(|r| r.count())
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(launch_dir(), None);
    // Orphans now: whoever adopted them may leave them as zombies, which are gone too.
    let began = Instant::now();
    loop {
        let left: Vec<&u64> = children.iter().filter(|p| running_now(**p)).collect();
        if left.is_empty() {
            break;
        }
        assert!(
            began.elapsed() < Duration::from_secs(15),
            "processes left behind: {left:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Whether process `pid` exists and is not a zombie (Linux: `/proc/PID/stat`).
fn running_now(pid: u64) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z'))
    })
}

/// The processes whose command line names `path` (Linux: `/proc/PID/cmdline`).
fn processes_mentioning(path: &Path) -> Vec<u64> {
    let needle = path.to_string_lossy().into_owned();
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u64>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(&needle))
        })
        .collect()
}
