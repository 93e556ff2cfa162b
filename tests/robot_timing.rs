//! Real-time figures on the emulated robot (docs/raspberry-pi.md, "Real time"): a run stopped
//! for a second (SIGSTOP, then SIGCONT) reports the stall as a missed deadline and the
//! periods it skipped, and goes on a period later with fresh commands, not with a burst of
//! the ticks due while it was stopped.

mod support;

use std::time::Duration;
use support::shim::{kill, Bus};

/// The `timing` events of a trace: (t_ms, missed, skipped), and its `timing_summary`.
fn timings(bus: &Bus) -> (Vec<(f64, bool, u64)>, serde_json::Value) {
    let text = std::fs::read_to_string(bus.trace()).expect("the trace was written");
    let mut ticks = Vec::new();
    let mut summary = serde_json::Value::Null;
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        match v["ev"].as_str() {
            Some("timing") => ticks.push((
                v["t_ms"].as_f64().unwrap(),
                v["missed"].as_bool().unwrap(),
                v["skipped"].as_u64().unwrap(),
            )),
            Some("timing_summary") => summary = v,
            _ => {}
        }
    }
    (ticks, summary)
}

#[test]
fn a_stall_is_reported_as_missed_deadlines_and_not_followed_by_a_burst() {
    let bus = Bus::new("stall");
    // The run's own watchdog would stop the motors during the stall; given longer, it
    // leaves every motor write after the stall to the run under test.
    let mut run = bus.spawn(&["--watchdog-ms", "5000"]);
    bus.wait_until_moving(&mut run);
    std::thread::sleep(Duration::from_millis(300));
    let pid = run.child().id();
    kill(pid, "STOP");
    std::thread::sleep(Duration::from_millis(1080));
    kill(pid, "CONT");
    std::thread::sleep(Duration::from_millis(600));
    run.signal("TERM");
    let out = run.wait();
    let err = support::stderr(&out);
    assert!(out.status.success(), "{err}");

    let (ticks, summary) = timings(&bus);
    // The navigator ticks at 10 Hz: the stall is one tick that started about ten periods
    // late, missed its deadline and says how many periods were skipped.
    let stalled: Vec<_> = ticks.iter().filter(|t| t.2 > 0).collect();
    assert_eq!(stalled.len(), 1, "one tick came after the stall: {ticks:?}");
    let &&(at, missed, skipped) = stalled.first().unwrap();
    assert!(missed, "the stalled tick missed its deadline");
    assert!((8..=11).contains(&skipped), "{skipped} periods skipped");
    assert!(summary["missed"].as_u64().unwrap() >= 1, "{summary}");
    assert_eq!(summary["skipped"].as_u64(), Some(skipped), "{summary}");
    assert!(err.contains("missed deadline"), "{err}");
    assert!(err.contains(&format!("{skipped} periods skipped")), "{err}");
    // No burst: the next tick is a period after the stalled one, not the ticks due
    // during the stall run back to back.
    let after: Vec<f64> = ticks.iter().map(|t| t.0).filter(|&t| t > at).collect();
    assert!(!after.is_empty(), "the run went on after the stall");
    assert!(
        after[0] - at >= 90.0,
        "the tick after the stalled one came {} ms after it",
        after[0] - at
    );
    // On the bus: after the stall the run wrote the motors once (the stalled tick's fresh
    // command), then nothing until the next tick.
    let resumed = bus
        .transfers()
        .into_iter()
        .filter(|t| t.pid == pid && t.address == 0x14)
        .collect::<Vec<_>>();
    let gap = resumed
        .windows(2)
        .position(|w| w[1].ns - w[0].ns > 900_000_000)
        .expect("the bus was silent during the stall");
    let first = resumed[gap + 1].ns;
    let motor_writes = resumed[gap + 1..]
        .iter()
        .filter(|t| t.write && t.bytes.first() == Some(&6) && t.ns < first + 50_000_000)
        .count();
    assert!(
        motor_writes <= 2,
        "{motor_writes} motor commands within 50 ms of the stall's end"
    );
}

/// Runs `c` under limits that refuse `--sched-fifo`: RLIMIT_MEMLOCK 64 KiB and RLIMIT_RTPRIO 0,
/// set in the child; a test run as root also gives up root there, since root's capabilities
/// pass any limit.
fn under_low_limits(c: &mut std::process::Command) -> std::process::Output {
    use std::os::unix::process::CommandExt;
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        c.pre_exec(|| {
            let set = |resource, bytes| {
                let r = libc::rlimit {
                    rlim_cur: bytes,
                    rlim_max: bytes,
                };
                if libc::setrlimit(resource, &r) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            };
            set(libc::RLIMIT_MEMLOCK, 64 * 1024)?;
            set(libc::RLIMIT_RTPRIO, 0)?;
            if libc::geteuid() == 0
                && (libc::setgroups(0, std::ptr::null()) != 0
                    || libc::setgid(65534) != 0
                    || libc::setuid(65534) != 0)
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    c.output().unwrap()
}

/// Both refusals said, each with why and what would grant it.
fn says_both_refused(err: &str) {
    assert!(
        err.contains("warning: SCHED_FIFO priority 10 was refused")
            && err.contains("RLIMIT_RTPRIO is 0")
            && err.contains("LimitRTPRIO=10"),
        "{err}"
    );
    assert!(
        err.contains("warning: memory was not locked")
            && err.contains("RLIMIT_MEMLOCK is 0.1 MiB")
            && err.contains("LimitMEMLOCK=infinity"),
        "{err}"
    );
}

/// `--sched-fifo` without the privilege or the limits it needs: the run says what was
/// refused, why and what would grant it, and goes on.
#[test]
fn sched_fifo_refused_under_low_limits_is_said_and_the_run_goes_on() {
    let mut c = support::affect_command();
    c.args([
        "run",
        "examples/navigator.affect",
        "--realtime",
        "--ticks",
        "3",
    ])
    .args([
        "--no-persist",
        "--no-code-cache",
        "--quiet",
        "--sched-fifo",
        "10",
    ]);
    let out = under_low_limits(&mut c);
    let err = support::stderr(&out);
    assert!(out.status.success(), "{err}");
    says_both_refused(&err);
    assert!(err.contains("timing: 3 ticks"), "the run went on: {err}");
    // Off the wall clock it means nothing, and says so.
    let out = support::affect(&["run", "examples/navigator.affect", "--sched-fifo", "10"]);
    assert_eq!(out.status.code(), Some(2), "{}", support::stderr(&out));
    assert!(support::stderr(&out).contains("--sched-fifo is for runs on the wall clock"));
}

/// A robot on the network ticks on its team's wall clock: `--sched-fifo` applies there too
/// (it was silently ignored with `--net`), refused and said under low limits, and the robot
/// goes on.
#[test]
fn sched_fifo_applies_to_a_robot_on_the_network() {
    let mut c = support::affect_command();
    c.args([
        "run",
        "examples/recruitment.affect",
        "--agent",
        "UAV",
        "--net",
    ])
    .args(["--unsigned", "--listen", "tcp/127.0.0.1:0", "--loss", "0"])
    .args([
        "--ticks",
        "3",
        "--no-persist",
        "--quiet",
        "--sched-fifo",
        "10",
    ]);
    let out = under_low_limits(&mut c);
    let err = support::stderr(&out);
    assert!(out.status.success(), "{err}");
    says_both_refused(&err);
}
