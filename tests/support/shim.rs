//! The emulated I2C bus of the hardware tests: the shim (shim/i2c_shim.c and shim/pi_shim.c, an
//! `LD_PRELOAD` library built once per test binary), a bus of one test (its state file and
//! transfer log, and the emulated Pi's GPIO and PWM files),
//! `affect run --hardware` of the navigator on it, the shim's log read back, and the
//! processes a test starts and signals.

use super::{affect_command, scratch, stderr, workspace};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The shim, built once per test binary into its own folder (`built.rs`).
pub fn shim() -> PathBuf {
    super::built::shim(&workspace())
}

/// The emulated bus of one test: its state file and transfer log, and the Pi's files the
/// shim answers rppal's GPIO and PWM from (`pi/`, laid out as the Pi's root).
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
        let bus = Bus {
            dir: scratch("hardware_shim", name),
        };
        bus.make_pi();
        bus
    }

    /// A Raspberry Pi 4 B (revision c03114: a BCM2711, /dev/gpiomem, PWM chip 0 with two
    /// channels), its GPIO registers all zero (every pin an input, low).
    fn make_pi(&self) {
        let pi = self.pi();
        let write = |path: &str, text: &[u8]| {
            let p = pi.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        write("proc/cpuinfo", b"processor\t: 0\nHardware\t: BCM2835\nRevision\t: c03114\nModel\t\t: Raspberry Pi 4 Model B Rev 1.4\n");
        write(
            "sys/firmware/devicetree/base/model",
            b"Raspberry Pi 4 Model B Rev 1.4\0",
        );
        write(
            "sys/firmware/devicetree/base/compatible",
            b"raspberrypi,4-model-b\0brcm,bcm2711\0",
        );
        write("dev/gpiomem", &[0; 4096]);
        write("sys/class/pwm/pwmchip0/npwm", b"2\n");
        write("sys/class/pwm/pwmchip0/export", b"");
        write("sys/class/pwm/pwmchip0/unexport", b"");
    }

    /// The emulated Pi's root.
    pub fn pi(&self) -> PathBuf {
        self.dir.join("pi")
    }

    /// GPIO `pin`'s level when it is an output (GPFSEL 001), `None` when it is not.
    pub fn output(&self, pin: u32) -> Option<bool> {
        let regs = std::fs::read(self.pi().join("dev/gpiomem")).unwrap();
        let word = |i: usize| u32::from_le_bytes(regs[i * 4..i * 4 + 4].try_into().unwrap());
        let fsel = (word((pin / 10) as usize) >> ((pin % 10) * 3)) & 7;
        let level = word(0x34 / 4 + (pin / 32) as usize) >> (pin % 32) & 1;
        (fsel == 1).then_some(level == 1)
    }

    /// What the processes did to the emulated Pi's outputs, in order (pi_shim.c's gpio.log):
    /// (pid, `G` for a pin's level or `P` for a PWM channel's duty cycle in ns, the pin or
    /// `pwmchip0/pwmN`, the value).
    pub fn gpio_log(&self) -> Vec<(u32, char, String, u64)> {
        let text = std::fs::read_to_string(self.pi().join("gpio.log")).unwrap_or_default();
        text.lines()
            .map(|l| {
                let f: Vec<&str> = l.split(' ').collect();
                assert_eq!(f.len(), 5, "gpio.log line {l:?}");
                let what = f[2].chars().next().unwrap();
                (
                    f[1].parse().unwrap(),
                    what,
                    f[3].to_string(),
                    f[4].parse().unwrap(),
                )
            })
            .collect()
    }

    /// The pings the emulated HC-SR04 has sent (pi_shim.c keeps the count at 0x128).
    pub fn pings(&self) -> u32 {
        let regs = std::fs::read(self.pi().join("dev/gpiomem")).unwrap();
        u32::from_le_bytes(regs[0x128..0x12c].try_into().unwrap())
    }

    /// PWM channel `channel`'s (duty cycle, period) in ns and whether it is enabled; `None`
    /// when it is not exported.
    pub fn pwm(&self, channel: u32) -> Option<(u64, u64, bool)> {
        let dir = self
            .pi()
            .join(format!("sys/class/pwm/pwmchip0/pwm{channel}"));
        let read = |name: &str| std::fs::read_to_string(dir.join(name)).ok();
        // A file being rewritten (truncated, then written) reads empty for a moment.
        let num = |name: &str| read(name)?.trim().parse::<u64>().ok();
        Some((
            num("duty_cycle")?,
            num("period")?,
            read("enable")?.trim() == "1",
        ))
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

    /// `affect` on this bus and this Pi (the shim preloaded).
    pub fn affect(&self) -> Command {
        let mut c = affect_command();
        c.env("LD_PRELOAD", shim())
            .env("AFFECT_SHIM_STATE", self.state())
            .env("AFFECT_SHIM_LOG", self.log())
            .env("AFFECT_SHIM_PI", self.pi())
            .env("AFFECT_SHIM_A0", A0_VOLTS)
            .env("AFFECT_SHIM_A1", A1_VOLTS);
        c
    }

    /// `affect run PROGRAM --hardware` on this bus, without memories, tracing.
    pub fn run(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut c = self.affect();
        c.arg("run")
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
