//! The example's own binary runs a program on the robot with its own devices, under the
//! watchdog, on the I2C shim's emulated Romi (shim/i2c_shim.c, LD_PRELOAD): the battery is read
//! through its `romi_battery` driver, the yellow LED driven through its `romi_led` driver, and
//! when the watchdog is told to stop and the run is then killed, the watchdog (this binary
//! again) leaves the motors stopped and the LED at its safe state.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The workspace's shim, built once per test binary into its own folder.
#[path = "../../../tests/support/built.rs"]
mod built;

fn shim() -> PathBuf {
    built::shim(&workspace())
}

const ROVER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/rover.affect");

/// The emulated bus of one test, in a folder of its own.
struct Bus {
    dir: tempfile::TempDir,
}

impl Bus {
    fn new() -> Bus {
        Bus {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `PROGRAM` (the rover, or what a unit runs) on this bus.
    fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut c = Command::new(program);
        c.env("LD_PRELOAD", shim())
            .env("AFFECT_SHIM_STATE", self.path("bus.state"))
            .env("AFFECT_SHIM_LOG", self.path("bus.log"));
        c
    }

    /// `rover rover.affect ARGS` on this bus.
    fn rover(&self, args: &[&str]) -> Command {
        let mut c = self.command(env!("CARGO_BIN_EXE_rover"));
        c.arg(ROVER)
            .args(["--trace"])
            .arg(self.path("trace.jsonl"))
            .args(args);
        c
    }

    /// The Romi's buffer as the shim holds it (offset 64 of its state file, after the magic
    /// "AFSHIM" and its version); `None` before the run has made the state.
    fn romi(&self) -> Option<Vec<u8>> {
        let s = std::fs::read(self.path("bus.state")).ok()?;
        assert!(
            s.starts_with(b"AFSHIM") && s.len() >= 64 + 43,
            "a shim state file"
        );
        Some(s[64..64 + 43].to_vec())
    }

    fn speeds(&self) -> (i16, i16) {
        let r = self.romi().expect("the shim's state");
        (
            i16::from_le_bytes([r[6], r[7]]),
            i16::from_le_bytes([r[8], r[9]]),
        )
    }

    /// The yellow LED (offset 0).
    fn lamp(&self) -> u8 {
        self.romi().expect("the shim's state")[0]
    }

    /// The values the trace gives the variable `name`, in order.
    fn values(&self, name: &str) -> Vec<f64> {
        let text = std::fs::read_to_string(self.path("trace.jsonl")).unwrap_or_default();
        text.lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("a JSON line"))
            .filter(|v| v["ev"] == "var" && v["name"] == name)
            .filter_map(|v| v["value"].as_f64())
            .collect()
    }
}

/// A run under test; killed if the test fails before it ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn signal(pid: u32, sig: &str) {
    let status = Command::new("kill")
        .args([&format!("-{sig}"), &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill -{sig} {pid}");
}

/// The watchdog the run started: its child process `rover __watchdog ...`.
fn watchdog_of(run: u32) -> Option<u32> {
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // pid (comm) state ppid ...: the fields after the last ')'.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if ppid == Some(run) && cmdline.windows(10).any(|w| w == b"__watchdog") {
            return Some(pid);
        }
    }
    None
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit_once(')')
            .is_some_and(|(_, r)| !r.trim_start().starts_with('Z'))
    })
}

fn wait_for(what: &str, mut ok: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ok() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{what}: not within 30 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_crates_own_devices_run_on_the_robot_and_stop_safe() {
    let bus = Bus::new();
    let out = bus.rover(&["--ticks", "30"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("Rover: 30 ticks"), "{err}");
    assert!(err.contains("timing: 30 ticks"), "the timing line: {err}");
    // The battery the shim's Romi reports (7,400 mV), read by the crate's own driver...
    // (the trace's first value of a variable is its declared one, 0).
    assert_eq!(bus.values("battery"), vec![0.0, 7.4]);
    // ... lit the lamp through the other (7.4 V is below 7.5 V), and the end of the run set
    // it to its safe state and stopped the motors.
    assert_eq!(bus.values("lamp"), vec![0.0, 1.0]);
    let log = std::fs::read_to_string(bus.path("bus.log")).unwrap();
    // Address 20 is 14 in hex; the LED's offset 0, then the level.
    assert!(
        log.lines().any(|l| l.ends_with(" W 14 0001")),
        "the LED was lit over I2C: {log}"
    );
    assert_eq!(bus.lamp(), 0, "the LED at its safe state");
    assert_eq!(bus.speeds(), (0, 0));
}

#[test]
fn the_watchdog_is_this_binary_and_stops_its_devices_when_the_run_dies() {
    let bus = Bus::new();
    let mut run = Running(
        bus.rover(&["--ticks", "100000", "--record"])
            .arg(bus.path("run.rec"))
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let pid = run.0.id();
    wait_for("the Romi moving and the lamp lit", || {
        assert!(
            run.0.try_wait().unwrap().is_none(),
            "the run ended before it moved"
        );
        bus.romi().is_some() && bus.speeds() != (0, 0) && bus.lamp() == 1
    });
    let watchdog = watchdog_of(pid).expect("the run started its watchdog, this binary");
    // The watchdog is told to stop, and the run is killed at once: the watchdog stops the
    // motors on its own handle and sets the crate's LED to its safe state through the crate's
    // driver, on a fresh handle, before it exits.
    signal(watchdog, "TERM");
    signal(pid, "KILL");
    let _ = run.0.wait();
    wait_for("the watchdog exiting", || !alive(watchdog));
    assert_eq!(bus.speeds(), (0, 0), "the motors stopped");
    assert_eq!(bus.lamp(), 0, "the crate's LED at its safe state");
    let record = std::fs::metadata(bus.path("run.rec")).unwrap();
    assert!(record.len() > 0, "the run was recorded");
}

/// The unit `rover install-service` writes runs this binary, and after every stop of the unit
/// this binary's `safe-stop`, which knows the crate's own devices: a run killed without its
/// watchdog (as the out-of-memory killer kills a unit) leaves the motors running and the LED
/// lit, and the unit's `ExecStopPost=` line, run as systemd runs it, stops both.
#[test]
fn the_units_safe_stop_is_this_binary_and_stops_its_devices() {
    let bus = Bus::new();
    let unit = bus.path("rover.service");
    let out = Command::new(env!("CARGO_BIN_EXE_rover"))
        .args(["install-service", ROVER, "--user", "pi", "-o"])
        .arg(&unit)
        .args(["--", "--ticks", "864000"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&unit).unwrap();
    let line = |key: &str| -> Vec<String> {
        let l = text
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .unwrap_or_else(|| panic!("{key} in {text}"));
        assert!(!l.contains('"'), "no quoting needed here: {l}");
        l.split_whitespace().map(str::to_string).collect()
    };
    let rover = std::fs::canonicalize(env!("CARGO_BIN_EXE_rover")).unwrap();
    let file = std::fs::canonicalize(ROVER).unwrap();
    let (rover, file) = (rover.display().to_string(), file.display().to_string());
    assert_eq!(line("ExecStart="), [&rover, &file, "--ticks", "864000"]);
    let stop_post = line("ExecStopPost=");
    assert_eq!(stop_post, [&rover, "safe-stop", &file]);
    assert!(text.contains("User=pi\n"), "{text}");
    // What the run simulates, the safe stop leaves alone.
    let out = Command::new(env!("CARGO_BIN_EXE_rover"))
        .args([
            "install-service",
            ROVER,
            "--dry-run",
            "--",
            "--sim-device",
            "battery",
        ])
        .output()
        .unwrap();
    let dry = String::from_utf8_lossy(&out.stdout);
    assert!(
        dry.contains(&format!(
            "ExecStopPost={rover} safe-stop {file} --sim-device battery\n"
        )),
        "{dry}"
    );
    // A run without its watchdog, killed: nothing stops anything.
    let mut run = Running(
        bus.rover(&["--ticks", "100000", "--watchdog-ms", "0"])
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    wait_for("the Romi moving and the lamp lit", || {
        assert!(run.0.try_wait().unwrap().is_none(), "the run ended early");
        bus.romi().is_some() && bus.speeds() != (0, 0) && bus.lamp() == 1
    });
    signal(run.0.id(), "KILL");
    let _ = run.0.wait();
    std::thread::sleep(Duration::from_millis(200));
    assert!(bus.speeds() != (0, 0) && bus.lamp() == 1, "left running");
    // systemd's ExecStopPost=.
    let out = bus
        .command(&stop_post[0])
        .args(&stop_post[1..])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("safe: 2 actuators"), "{err}");
    assert_eq!(bus.speeds(), (0, 0), "the motors stopped");
    assert_eq!(bus.lamp(), 0, "the crate's LED at its safe state");
}

/// The battery read through the crate's own driver is checked against its declared
/// `max_rate: 0.5` (volts a second): a read the shim corrupts (bit 3 of its high byte: 7.4 V
/// read as 5.35 V) is read again at once, and the program never sees it.
#[test]
fn a_corrupted_battery_read_is_read_again_and_never_reaches_the_program() {
    let bus = Bus::new();
    // The Romi's reads: three at open, then each tick the battery and the encoders (twice in
    // the first tick); the ninth (from 0: 8) is the third tick's battery.
    let out = bus
        .rover(&["--ticks", "6", "--watchdog-ms", "0"])
        .env("AFFECT_SHIM_FLIP", "20,8,1,1,3")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log = std::fs::read_to_string(bus.path("bus.log")).unwrap();
    let lines: Vec<&str> = log.lines().filter(|l| l.contains(" 14 ")).collect();
    let reads: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains(" R "))
        .collect();
    let (flipped, next) = (reads[8], reads[9]);
    assert!(
        lines[flipped].ends_with(" R 14 e814") && lines[flipped - 1].ends_with(" W 14 0a"),
        "the ninth read was the battery's, corrupted: {lines:#?}"
    );
    assert!(
        lines[next].ends_with(" R 14 e81c") && lines[next - 1].ends_with(" W 14 0a"),
        "and it was read again at once: {lines:#?}"
    );
    assert_eq!(bus.values("battery"), vec![0.0, 7.4], "never 5.352");
}
