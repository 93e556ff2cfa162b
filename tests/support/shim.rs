//! The emulated I2C bus of the hardware tests: the shim (shim/i2c_shim.c, an `LD_PRELOAD`
//! library built once per test binary), a bus of one test (its state file and transfer log),
//! `affect run --hardware` of the navigator on it, the shim's log read back, and the
//! processes a test starts and signals.

use super::{affect_command, scratch, stderr, workspace};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The shim, built once for the host with the C compiler (`CC`, else `cc`).
pub fn shim() -> PathBuf {
    static SHIM: OnceLock<PathBuf> = OnceLock::new();
    SHIM.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("shim");
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("libaffect_i2c_shim.so");
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        let status = Command::new(&cc)
            .args(["-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-o"])
            .arg(&out)
            .arg(workspace().join("shim/i2c_shim.c"))
            .args(["-ldl", "-lm"])
            .status()
            .unwrap_or_else(|e| panic!("the C compiler `{cc}` runs: {e}"));
        assert!(status.success(), "the shim builds with {cc}");
        out
    })
    .clone()
}

/// The emulated bus of one test: its state file and transfer log.
pub struct Bus {
    pub dir: super::Scratch,
}

/// The size of the shim's state file (`struct state`).
pub const STATE_SIZE: usize = 864;

// A0 (light, gain 4.096 V): 1.0 V is code 8000 (0x1F40); A1 (sound, gain 2.048 V): 0.256 V
// is code 4096 (0x1000).
pub const A0_VOLTS: &str = "1.0";
pub const A1_VOLTS: &str = "0.256";

impl Bus {
    pub fn new(name: &str) -> Bus {
        Bus {
            dir: scratch("hardware_shim", name),
        }
    }
    pub fn state(&self) -> PathBuf {
        self.dir.join("bus.state")
    }
    pub fn log(&self) -> PathBuf {
        self.dir.join("bus.log")
    }
    pub fn trace(&self) -> PathBuf {
        self.dir.join("trace.jsonl")
    }

    /// `affect run --hardware` of the navigator on this bus.
    pub fn navigator(&self, extra: &[&str]) -> Command {
        let mut c = self.run("examples/navigator.affect");
        c.args(["--sim-device", "place", "--sim-device", "loud_noise"])
            .args(extra);
        c
    }

    /// `affect run PROGRAM --hardware` on this bus, without memories, tracing.
    pub fn run(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut c = affect_command();
        c.env("LD_PRELOAD", shim())
            .env("AFFECT_SHIM_STATE", self.state())
            .env("AFFECT_SHIM_LOG", self.log())
            .env("AFFECT_SHIM_A0", A0_VOLTS)
            .env("AFFECT_SHIM_A1", A1_VOLTS)
            .arg("run")
            .arg(program)
            .arg("--hardware")
            .args(["--no-persist", "--quiet", "--trace"])
            .arg(self.trace());
        c
    }

    /// The Romi's shared buffer as the shim holds it (offset 64 of the state file); zeros
    /// before the run has created the state.
    pub fn romi(&self) -> Vec<u8> {
        match std::fs::read(self.state()) {
            Ok(s) if s.len() == STATE_SIZE => {
                assert_eq!(&s[..8], b"AFSHIM02");
                s[64..64 + 43].to_vec()
            }
            _ => vec![0; 43],
        }
    }

    /// The left and right motor speeds (Pololu's layout: i16 at offsets 6 and 8).
    pub fn speeds(&self) -> (i16, i16) {
        let r = self.romi();
        (
            i16::from_le_bytes([r[6], r[7]]),
            i16::from_le_bytes([r[8], r[9]]),
        )
    }

    pub fn encoders(&self) -> (i16, i16) {
        let r = self.romi();
        (
            i16::from_le_bytes([r[39], r[40]]),
            i16::from_le_bytes([r[41], r[42]]),
        )
    }

    /// Runs the navigator for `ticks` ticks, insisting that it succeeds; the transfers to
    /// the device at `address`.
    pub fn run_transfers_to(&self, ticks: &str, address: u8) -> Vec<Transfer> {
        let out = self.navigator(&["--ticks", ticks]).output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        self.transfers()
            .into_iter()
            .filter(|t| t.address == address)
            .collect()
    }

    pub fn transfers(&self) -> Vec<Transfer> {
        std::fs::read_to_string(self.log())
            .unwrap_or_default()
            .lines()
            .map(Transfer::parse)
            .collect()
    }

    /// Starts a long run of the navigator (ended by the test, or killed when it fails).
    pub fn spawn(&self, extra: &[&str]) -> Running {
        let mut c = self.navigator(&["--ticks", "100000"]);
        c.args(extra).stderr(Stdio::piped());
        Running(Some(c.spawn().unwrap()))
    }

    /// Waits (at most 30 s) until the Romi has been told to move.
    pub fn wait_until_moving(&self, run: &mut Running) {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(30) {
            if self.speeds() != (0, 0) {
                return;
            }
            if let Ok(Some(status)) = run.child().try_wait() {
                panic!("the run ended ({status}) before the Romi moved");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("the Romi was not told to move within 30 s");
    }
}

/// A run under test; killed if the test fails before it ends.
pub struct Running(pub Option<Child>);

impl Running {
    pub fn child(&mut self) -> &mut Child {
        self.0.as_mut().unwrap()
    }
    pub fn signal(&mut self, sig: &str) {
        kill(self.child().id(), sig);
    }
    pub fn wait(mut self) -> std::process::Output {
        self.0.take().unwrap().wait_with_output().unwrap()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(c) = &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// One line of the shim's log: `<ns> <pid> W|R <address> <hex>|-<errno>`.
#[derive(Debug, Clone, PartialEq)]
pub struct Transfer {
    pub ns: i64,
    pub pid: u32,
    pub write: bool,
    pub address: u8,
    pub bytes: Vec<u8>,
    /// The errno's name of a transfer that failed (`EREMOTEIO`: no acknowledge).
    pub error: Option<String>,
}

impl Transfer {
    pub fn parse(line: &str) -> Transfer {
        let f: Vec<&str> = line.split(' ').collect();
        assert_eq!(f.len(), 5, "log line {line:?}");
        let (hex, error) = match f[4].strip_prefix('-') {
            Some(errno) => ("", Some(errno.to_string())),
            None => (f[4], None),
        };
        Transfer {
            ns: f[0].parse().unwrap(),
            pid: f[1].parse().unwrap(),
            write: f[2] == "W",
            address: u8::from_str_radix(f[3], 16).unwrap(),
            bytes: (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect(),
            error,
        }
    }
}

/// Waits at most `secs` for `f` to hold.
pub fn eventually(secs: u64, mut f: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(secs) {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    f()
}

/// Sends `sig` to `pid`; whether it was delivered (the process may be gone).
pub fn send(pid: u32, sig: &str) -> bool {
    Command::new("kill")
        .args([&format!("-{sig}"), &pid.to_string()])
        .status()
        .unwrap()
        .success()
}

pub fn kill(pid: u32, sig: &str) {
    assert!(send(pid, sig), "kill -{sig} {pid}");
}
