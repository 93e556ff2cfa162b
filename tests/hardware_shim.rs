//! `affect run --hardware` end to end through rppal, on a machine without a Pi: the I2C shim
//! (shim/i2c_shim.c, LD_PRELOAD) answers rppal's calls on /dev/i2c-1 as an ADS1115 and a
//! Romi 32U4 running Pololu's slave demo. The navigator's light and sound come from the
//! emulated ADC, its moves go to the emulated Romi; the camera label and the GPIO edge, which
//! the shim does not emulate, are bound to the simulated world with `--sim-device`.
//!
//! The register transactions are checked byte for byte against the ADS1115 data sheet
//! (SBAS444) and Pololu's buffer layout; the shutdown tests read the Romi's motor speeds from
//! the shim's state after SIGTERM, a hang (SIGSTOP) and a death (SIGKILL).

mod support;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;
use support::shim::{eventually, kill, send, Bus};
use support::{affect_command, stderr};

fn places(trace: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(trace).expect("the trace was written");
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        if v["ev"] == "var" && v["name"] == "place" {
            let p = v["value"].as_str().unwrap().to_string();
            if !p.is_empty() && out.last() != Some(&p) {
                out.push(p);
            }
        }
    }
    out
}

fn last_var(trace: &Path, name: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(trace).unwrap();
    text.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .rfind(|v| v["ev"] == "var" && v["name"] == name)
        .unwrap_or_else(|| panic!("no `{name}` in the trace"))["value"]
        .clone()
}

#[test]
fn the_navigator_on_emulated_hardware_reaches_its_places() {
    let bus = Bus::new("navigator");
    let out = bus.navigator(&["--ticks", "80"]).output().unwrap();
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    // The light sensor's declared 0..100 is out of reach at 3.3 V with gain 4.096.
    let trace = std::fs::read_to_string(bus.trace()).unwrap();
    assert!(
        trace.contains("sensor `light`: an ADS1115 at 3.3 V with gain 4.096 V reads at most 80.6 of its range 0..100"),
        "the range warning is in the trace"
    );
    // The run says which devices it does not read from hardware.
    for name in ["place", "loud_noise"] {
        assert!(
            err.contains(&format!("`{name}` is simulated")),
            "the run says `{name}` is simulated: {err}"
        );
    }
    // From P the itinerary's K by the map's shortest route C H X K, then F on the way to H
    // (LiftMood) and back over K: the moves went to the Romi and its encoder counts brought
    // the robot from cell to cell. (How far it gets in 80 ticks depends on the wall clock;
    // where it goes does not.)
    let visited = places(&bus.trace());
    let route = ["P", "C", "H", "X", "K", "F", "K", "A", "D"];
    assert!(
        visited.len() >= 3
            && route.starts_with(&visited.iter().map(String::as_str).collect::<Vec<_>>()),
        "places visited: {visited:?}"
    );
    let (l, r) = bus.encoders();
    assert!(l != 0 || r != 0, "the wheels turned");
    // The light and sound levels are the emulated ADC's codes, scaled to 0..100.
    let light = last_var(&bus.trace(), "light").as_f64().unwrap();
    let sound = last_var(&bus.trace(), "sound").as_f64().unwrap();
    assert_eq!(light, 8000.0 * 100.0 / 32767.0);
    assert_eq!(sound, 4096.0 * 100.0 / 32767.0);
    // The run ended cleanly: motors stopped.
    assert_eq!(bus.speeds(), (0, 0));
}

/// Every ADS1115 read is the data sheet's single-shot sequence: config register written
/// (OS=1 start, MUX single-ended channel, PGA gain, MODE=1 single-shot, DR=128 SPS,
/// comparator off), conversion-ready checked no sooner than one conversion time later (OS
/// reads 1), then the conversion register read big-endian.
#[test]
fn ads1115_transactions_follow_the_data_sheet_byte_for_byte() {
    let bus = Bus::new("ads1115");
    let adc = bus.run_transfers_to("12", 0x48);
    // Opening probes the device: the pointer set to the config register, which reads its
    // power-up value 0x8583.
    assert!(adc[0].write && adc[0].bytes == [0x01]);
    assert!(!adc[1].write && adc[1].bytes == [0x85, 0x83]);
    // light: A0 (MUX 100) at 4.096 V (PGA 001): 0xC3 0x83; sound: A1 (MUX 101) at
    // 2.048 V (PGA 010): 0xD5 0x83.
    let expected = [
        ([0x01, 0xC3, 0x83], [0x1F, 0x40]),
        ([0x01, 0xD5, 0x83], [0x10, 0x00]),
    ];
    let mut reads = 0;
    let mut i = 2;
    while i < adc.len() {
        let start = &adc[i];
        assert!(
            start.write,
            "a read starts with the config write: {start:?}"
        );
        let (config, result) = expected
            .iter()
            .find(|(c, _)| start.bytes == c[..])
            .unwrap_or_else(|| panic!("unexpected config write {:02x?}", start.bytes));
        i += 1;
        // Conversion-ready checks: pointer to config, two bytes; OS (bit 15) 1 means done.
        loop {
            assert_eq!(adc[i].bytes, [0x01], "pointer to the config register");
            assert!(adc[i].write);
            let check = &adc[i + 1];
            assert!(!check.write && check.bytes.len() == 2);
            // The rest of the register is what was written.
            assert_eq!(check.bytes[0] & 0x7F, config[1] & 0x7F);
            assert_eq!(check.bytes[1], config[2]);
            i += 2;
            if check.bytes[0] & 0x80 != 0 {
                // Done: a conversion at 128 SPS takes 1/128 s.
                assert!(
                    check.ns - start.ns >= 1_000_000_000 / 128,
                    "waited for the conversion"
                );
                break;
            }
        }
        assert!(
            adc[i].write && adc[i].bytes == [0x00],
            "pointer to the conversion register"
        );
        assert!(
            !adc[i + 1].write && adc[i + 1].bytes == result[..],
            "big-endian code"
        );
        i += 2;
        reads += 1;
    }
    assert!(
        reads >= 2 * 12,
        "a light and a sound read every tick ({reads})"
    );
}

/// The Romi is spoken to in Pololu's slave protocol: a write is [offset, data...], a read is
/// preceded by a one-byte write of its offset; the run writes the motor speeds (offset 6,
/// two little-endian i16) and reads the battery (offset 10) and encoder counts (offset 39,
/// two i16).
#[test]
fn romi_transactions_follow_pololus_buffer_layout() {
    let bus = Bus::new("romi");
    let romi = bus.run_transfers_to("30", 20);
    let mut speeds = Vec::new();
    let mut reads_at = std::collections::BTreeSet::new();
    for (k, t) in romi.iter().enumerate() {
        if t.write {
            match t.bytes[..] {
                [offset] => {
                    let next = &romi[k + 1];
                    assert!(!next.write, "an offset write is followed by its read");
                    let len = match offset {
                        10 => 2,
                        39 => 4,
                        _ => panic!("read at offset {offset}"),
                    };
                    assert_eq!(next.bytes.len(), len);
                    reads_at.insert(offset);
                }
                [6, l0, l1, r0, r1] => {
                    let (l, r) = (i16::from_le_bytes([l0, l1]), i16::from_le_bytes([r0, r1]));
                    assert!(l.abs() <= 300 && r.abs() <= 300, "speeds in -300..300");
                    speeds.push((l, r));
                }
                _ => panic!("unexpected write {:02x?}", t.bytes),
            }
        } else {
            assert!(k > 0 && romi[k - 1].write && romi[k - 1].bytes.len() == 1);
        }
    }
    assert_eq!(reads_at.into_iter().collect::<Vec<_>>(), [10, 39]);
    // Stopped when opened, moved, and stopped at the end.
    assert_eq!(speeds.first(), Some(&(0, 0)));
    assert!(speeds.iter().any(|&(l, r)| l != 0 || r != 0));
    assert_eq!(speeds.last(), Some(&(0, 0)));
}

#[test]
fn sigterm_stops_the_motors_and_flushes_the_trace() {
    let bus = Bus::new("sigterm");
    let mut run = bus.spawn(&[]);
    bus.wait_until_moving(&mut run);
    let pid = run.child().id();
    run.signal("TERM");
    let out = run.wait();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(bus.speeds(), (0, 0), "the run set the motors' safe value");
    // The run itself stopped them (not its watchdog), and the trace ends with the summary.
    let last = bus
        .transfers()
        .into_iter()
        .rfind(|t| t.write && t.address == 20 && t.bytes.first() == Some(&6))
        .unwrap();
    assert_eq!(last.pid, pid);
    let text = std::fs::read_to_string(bus.trace()).unwrap();
    assert!(
        text.lines().any(|l| l.contains("\"ev\":\"summary\"")),
        "trace flushed"
    );
}

#[test]
fn a_hung_run_has_its_motors_stopped_by_the_watchdog() {
    let bus = Bus::new("hang");
    let mut run = bus.spawn(&["--watchdog-ms", "300"]);
    bus.wait_until_moving(&mut run);
    let pid = run.child().id();
    // A hang: the run stops ticking (and stays alive).
    run.signal("STOP");
    let stopped = eventually(10, || bus.speeds() == (0, 0));
    let zeroed_by = bus
        .transfers()
        .into_iter()
        .rfind(|t| t.write && t.address == 20 && t.bytes == [6, 0, 0, 0, 0])
        .map(|t| t.pid);
    run.signal("KILL");
    drop(run);
    assert!(stopped, "the motors stopped while the run hung");
    assert!(
        zeroed_by.is_some_and(|p| p != pid),
        "by the watchdog, not the run"
    );
}

#[test]
fn a_killed_run_has_its_motors_stopped_by_the_watchdog() {
    let bus = Bus::new("kill");
    let mut run = bus.spawn(&["--watchdog-ms", "300"]);
    bus.wait_until_moving(&mut run);
    run.signal("KILL");
    drop(run);
    assert!(
        eventually(10, || bus.speeds() == (0, 0)),
        "the watchdog stopped the motors when the run died"
    );
}

/// The run's watchdog (its one child process).
fn watchdog_of(run: u32) -> u32 {
    let out = Command::new("pgrep")
        .args(["-P", &run.to_string()])
        .output()
        .expect("pgrep runs");
    let pids: Vec<u32> = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    assert_eq!(
        pids.len(),
        1,
        "the run has one child, its watchdog: {pids:?}"
    );
    pids[0]
}

/// SIGTERM to the watchdog: it stops the motors, and the run, unguarded, stops too (with an
/// error); a `kill -9` of the run right after cannot leave them running.
#[test]
fn a_watchdog_told_to_stop_stops_the_motors_and_the_run() {
    let bus = Bus::new("watchdog-term");
    let mut run = bus.spawn(&["--watchdog-ms", "300"]);
    bus.wait_until_moving(&mut run);
    let watchdog = watchdog_of(run.child().id());
    kill(watchdog, "TERM");
    // The run notices at its next tick boundary and ends with an error.
    let ended = eventually(10, || run.child().try_wait().unwrap().is_some());
    assert!(ended, "the run went on without its watchdog");
    let out = run.wait();
    assert!(!out.status.success(), "an unguarded run is an error");
    let err = stderr(&out);
    assert!(err.contains("the watchdog is gone"), "{err}");
    assert_eq!(bus.speeds(), (0, 0), "the motors stopped");
}

/// The same, with the run killed at once (before it could notice): the watchdog, told to
/// stop, guards the run until it is gone, so the motors end at 0 whoever moved them last.
#[test]
fn sigterm_to_the_watchdog_then_kill_9_of_the_run_leaves_the_motors_stopped() {
    for round in 0..3 {
        let bus = Bus::new(&format!("watchdog-term-kill-{round}"));
        let mut run = bus.spawn(&["--watchdog-ms", "300"]);
        bus.wait_until_moving(&mut run);
        let watchdog = watchdog_of(run.child().id());
        kill(watchdog, "TERM");
        // A few ticks' worth later, within the time the run takes to notice or not.
        std::thread::sleep(Duration::from_millis(round * 40));
        send(run.child().id(), "KILL");
        drop(run);
        assert!(
            eventually(10, || bus.speeds() == (0, 0)),
            "round {round}: the motors were left at {:?}",
            bus.speeds()
        );
        // And they stay stopped: nothing is left to move them.
        std::thread::sleep(Duration::from_millis(400));
        assert_eq!(bus.speeds(), (0, 0), "round {round}");
    }
}

/// A killed watchdog (`kill -9`: no chance to stop anything) leaves the run unguarded: the
/// run stops the motors itself and ends with an error.
#[test]
fn a_killed_watchdog_makes_the_run_stop_the_motors_and_fail() {
    let bus = Bus::new("watchdog-kill");
    let mut run = bus.spawn(&["--watchdog-ms", "300"]);
    bus.wait_until_moving(&mut run);
    let pid = run.child().id();
    kill(watchdog_of(pid), "KILL");
    assert!(
        eventually(10, || run.child().try_wait().unwrap().is_some()),
        "the run went on without its watchdog"
    );
    let out = run.wait();
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("killed by signal 9"),
        "{}",
        stderr(&out)
    );
    assert_eq!(bus.speeds(), (0, 0));
    let last = bus
        .transfers()
        .into_iter()
        .rfind(|t| t.write && t.address == 20 && t.bytes.first() == Some(&6))
        .unwrap();
    assert_eq!(last.pid, pid, "the run itself stopped them");
}

/// A stopped watchdog (SIGSTOP: alive, silent) is as good as none: the run stops.
#[test]
fn a_silent_watchdog_makes_the_run_stop() {
    let bus = Bus::new("watchdog-stop");
    let mut run = bus.spawn(&["--watchdog-ms", "300"]);
    bus.wait_until_moving(&mut run);
    let watchdog = watchdog_of(run.child().id());
    kill(watchdog, "STOP");
    let ended = eventually(10, || run.child().try_wait().unwrap().is_some());
    // The run, ending, kills it; if not, let it go on.
    send(watchdog, "CONT");
    assert!(ended, "the run went on with a silent watchdog");
    let out = run.wait();
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("the watchdog has not answered"),
        "{}",
        stderr(&out)
    );
    assert_eq!(bus.speeds(), (0, 0));
}

/// A run killed without a watchdog leaves the motors running (the case of a unit killed with
/// its watchdog); `affect safe-stop`, systemd's `ExecStopPost=`, stops them from a process of
/// its own.
#[test]
fn safe_stop_stops_the_motors_a_killed_run_left_running() {
    let bus = Bus::new("safe-stop");
    let mut run = bus.spawn(&["--watchdog-ms", "0"]);
    bus.wait_until_moving(&mut run);
    run.signal("KILL");
    drop(run);
    std::thread::sleep(Duration::from_millis(200));
    assert_ne!(bus.speeds(), (0, 0), "nothing stopped them");
    let out = bus
        .affect()
        .args(["safe-stop", "examples/navigator.affect"])
        .args(["--sim-device", "place", "--sim-device", "loud_noise"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("safe: 1 actuator"),
        "{}",
        stderr(&out)
    );
    assert_eq!(bus.speeds(), (0, 0));
}

/// Under systemd (`Type=notify`, `WatchdogSec=`) the run says READY=1 after its first tick and
/// WATCHDOG=1 from its tick loop, and STOPPING=1 at the end: read here from the notification
/// socket, as systemd reads it.
#[test]
fn the_run_notifies_systemd_from_its_tick_loop() {
    use std::os::unix::net::UnixDatagram;
    let bus = Bus::new("sd-notify");
    let socket_path = bus.dir.join("notify.sock");
    let socket = UnixDatagram::bind(&socket_path).unwrap();
    // Read as systemd does, while the run goes on.
    socket
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let reader = std::thread::spawn(move || {
        let mut said = Vec::new();
        let mut b = [0u8; 256];
        while let Ok(n) = socket.recv(&mut b) {
            said.extend(String::from_utf8_lossy(&b[..n]).lines().map(str::to_string));
            if said.last().is_some_and(|l| l == "STOPPING=1") {
                break;
            }
        }
        said
    });
    let mut c = bus.navigator(&["--ticks", "30", "--watchdog-ms", "300"]);
    c.env("NOTIFY_SOCKET", &socket_path)
        .env("WATCHDOG_USEC", "200000");
    let out = c.stderr(Stdio::piped()).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let said = reader.join().unwrap();
    assert_eq!(
        said.first().map(String::as_str),
        Some("READY=1"),
        "{said:?}"
    );
    assert_eq!(
        said.last().map(String::as_str),
        Some("STOPPING=1"),
        "{said:?}"
    );
    // 30 ticks at 10 Hz are 3 s: a ping every 100 ms at most, and more than a few.
    let pings = said.iter().filter(|l| *l == "WATCHDOG=1").count();
    assert!((5..=31).contains(&pings), "{pings} pings: {said:?}");
}

/// Absent hardware is a coded error before the first tick: no ADC at the address.
#[test]
fn an_absent_adc_is_e0610_naming_the_declaration_bus_and_address() {
    let bus = Bus::new("absent");
    let out = bus
        .navigator(&["--ticks", "5"])
        .env("AFFECT_SHIM_ADS1115", "none")
        .output()
        .unwrap();
    let err = stderr(&out);
    assert!(!out.status.success());
    assert!(err.contains("E0610"), "{err}");
    assert!(err.contains("light"), "names the declaration: {err}");
    assert!(err.contains("0x48"), "names the address: {err}");
    assert!(
        !bus.trace().exists() || places(&bus.trace()).is_empty(),
        "no tick ran"
    );
}

/// The trace without its wall-clock lines (`timing`, `timing_summary`), which no two runs
/// share.
fn without_timing(trace: &Path) -> Vec<String> {
    std::fs::read_to_string(trace)
        .unwrap()
        .lines()
        .filter(|l| !l.contains("\"ev\":\"timing"))
        .map(String::from)
        .collect()
}

/// `affect replay RECORD --quiet --engine ENGINE EXTRA..`, without the shim: a replay reads
/// no hardware.
fn replay(record: &Path, engine: &str, extra: &[&str]) -> std::process::Output {
    affect_command()
        .args([
            "replay",
            record.to_str().unwrap(),
            "--quiet",
            "--engine",
            engine,
        ])
        .args(extra)
        .output()
        .unwrap()
}

/// `--record` on the emulated robot, then `affect replay` in the simulator (no shim: no
/// hardware is read): the recorded trace, line for line but for the timing lines, with the
/// interpreter and with the JIT.
#[test]
fn a_recorded_run_replays_to_its_trace_in_both_engines() {
    let bus = Bus::new("record");
    let record = bus.dir.join("run.rec");
    let out = bus
        .navigator(&["--ticks", "40", "--record", record.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let recorded = without_timing(&bus.trace());
    assert!(places(&bus.trace()).len() >= 2, "the robot moved");
    for engine in ["interp", "jit"] {
        let replayed = bus.dir.join(format!("replay-{engine}.jsonl"));
        let out = replay(&record, engine, &["--trace", replayed.to_str().unwrap()]);
        let err = stderr(&out);
        assert!(out.status.success(), "{engine}: {err}");
        assert!(err.contains("40 ticks"), "{err}");
        assert_eq!(without_timing(&replayed), recorded, "{engine}");
    }
}

/// A run killed while recording (no end record) replays up to its last recorded tick.
#[test]
fn a_killed_recording_replays_to_where_it_stopped() {
    let bus = Bus::new("record-killed");
    let record = bus.dir.join("run.rec");
    let mut run = bus.spawn(&["--record", record.to_str().unwrap(), "--watchdog-ms", "0"]);
    bus.wait_until_moving(&mut run);
    std::thread::sleep(Duration::from_millis(300));
    run.signal("KILL");
    drop(run);
    let out = replay(&record, "interp", &[]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("did not end"), "{err}");
}
