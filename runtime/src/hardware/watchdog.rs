//! The watchdog: a second process that stops the motors when the run stops ticking. The run
//! starts it (`affect __watchdog ...`, the same executable) with a pipe on its standard
//! input and writes one byte after every tick. When no byte comes for the stated bound (a
//! tick overran, the process hangs) the watchdog sets the Romi's speeds to 0 itself, over its
//! own handle on the I2C bus; when the pipe closes without the run saying goodbye (the
//! process died: a crash, SIGKILL, the out-of-memory killer) it does the same and exits.
//! A clean stop (the last tick, Ctrl-C, SIGTERM) sets the safe values in the run itself and
//! then says goodbye.
//!
//! What this cannot cover is said in docs/raspberry-pi.md: the Pi losing power or the kernel
//! hanging. Pololu's firmware keeps the last speeds it was given; a board that must stop on
//! its own needs a motor timeout in its sketch.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// What the watchdog guards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WatchdogSpec {
    /// How long without a tick before the motors are stopped.
    pub bound_ms: u64,
    /// The Romi's I2C bus and address.
    pub romi: Option<(u8, u8)>,
}

/// The byte a tick sends, and the goodbye of a clean stop.
const BEAT: u8 = b'.';
const GOODBYE: u8 = b'q';

impl WatchdogSpec {
    pub fn to_args(&self) -> Vec<String> {
        let mut args = vec!["--bound-ms".to_string(), self.bound_ms.to_string()];
        if let Some((bus, address)) = self.romi {
            args.extend(["--romi".to_string(), format!("{bus}:{address}")]);
        }
        args
    }

    pub fn from_args(args: &[String]) -> Result<WatchdogSpec, String> {
        let mut spec = WatchdogSpec {
            bound_ms: 500,
            romi: None,
        };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let value = it.next().ok_or_else(|| format!("{a} needs a value"))?;
            match a.as_str() {
                "--bound-ms" => {
                    spec.bound_ms = value.parse().map_err(|_| format!("--bound-ms {value}"))?
                }
                "--romi" => {
                    let (b, ad) = value.split_once(':').ok_or("--romi BUS:ADDRESS")?;
                    spec.romi = Some((
                        b.parse().map_err(|_| "--romi BUS:ADDRESS")?,
                        ad.parse().map_err(|_| "--romi BUS:ADDRESS")?,
                    ));
                }
                other => return Err(format!("unknown watchdog option {other}")),
            }
        }
        Ok(spec)
    }
}

/// The run's end of the watchdog.
pub struct Watchdog {
    child: Child,
    stdin: Option<ChildStdin>,
}

impl Watchdog {
    /// Starts `exe __watchdog ...`; it is ready when this returns `Ok` (it has opened the bus).
    pub fn spawn(exe: &Path, spec: &WatchdogSpec) -> std::io::Result<Watchdog> {
        let mut command = Command::new(exe);
        command
            .arg("__watchdog")
            .args(spec.to_args())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped());
        // Its own process group: Ctrl-C at the terminal goes to the run, which stops cleanly,
        // not to the watchdog.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command.spawn()?;
        // It says `ready` once the bus is open (or why it could not open it).
        let mut out = child.stdout.take().expect("piped");
        let mut line = [0u8; 6];
        let n = out.read(&mut line).unwrap_or(0);
        if &line[..n] != b"ready\n" {
            let _ = child.kill();
            let _ = child.wait();
            return Err(std::io::Error::other(
                "the watchdog could not open the motor board",
            ));
        }
        let stdin = child.stdin.take();
        Ok(Watchdog { child, stdin })
    }

    /// One tick done.
    pub fn beat(&mut self) {
        if let Some(s) = &mut self.stdin {
            // A watchdog that went away cannot be helped from here; the run goes on.
            let _ = s.write_all(&[BEAT]);
        }
    }

    /// The run stopped cleanly (safe values set): the watchdog exits without acting.
    pub fn finish(mut self) {
        if let Some(mut s) = self.stdin.take() {
            let _ = s.write_all(&[GOODBYE]);
        }
        for _ in 0..50 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What the watchdog heard.
enum Heard {
    Beat,
    Goodbye,
    /// The pipe closed: the run is gone.
    Closed,
}

/// The watchdog process: waits for beats on standard input; stops the motors through
/// `stop` when they do not come within the bound or the run dies. Returns the exit status.
pub fn watch(spec: &WatchdogSpec, mut stop: impl FnMut() -> Result<(), String>) -> i32 {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut b = [0u8; 64];
        loop {
            let heard = match stdin.read(&mut b) {
                Ok(0) | Err(_) => Heard::Closed,
                Ok(n) if b[..n].contains(&GOODBYE) => Heard::Goodbye,
                Ok(_) => Heard::Beat,
            };
            let done = !matches!(heard, Heard::Beat);
            if tx.send(heard).is_err() || done {
                return;
            }
        }
    });
    let bound = Duration::from_millis(spec.bound_ms.max(1));
    // Stopped already for the silence under way (told once, until beats resume).
    let mut stopped = false;
    loop {
        match rx.recv_timeout(bound) {
            Ok(Heard::Beat) => stopped = false,
            Ok(Heard::Goodbye) => return 0,
            Ok(Heard::Closed) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                let r = stop();
                eprintln!(
                    "affect watchdog: the run ended without stopping; motors stopped{}",
                    r.err().map_or(String::new(), |e| format!(" (failed: {e})"))
                );
                return 1;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if !stopped {
                    let r = stop();
                    eprintln!(
                        "affect watchdog: no tick for {} ms; motors stopped{}",
                        spec.bound_ms,
                        r.err().map_or(String::new(), |e| format!(" (failed: {e})"))
                    );
                    stopped = true;
                }
            }
        }
    }
}

/// `affect __watchdog`: opens the Romi on its own handle of the bus, says `ready`, watches.
#[cfg(target_os = "linux")]
pub fn serve(args: &[String]) -> i32 {
    use crate::devices::bus::StdDelay;
    use crate::devices::romi32u4::Romi32u4;
    let spec = match WatchdogSpec::from_args(args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("affect watchdog: {e}");
            return 2;
        }
    };
    let mut board = match spec.romi {
        Some((bus, address)) => match crate::devices::rpi::open_i2c(bus) {
            Ok(b) => Some(Romi32u4::new(b, StdDelay, address)),
            Err(e) => {
                eprintln!("affect watchdog: {}: {}", e.what, e.detail);
                return 2;
            }
        },
        None => None,
    };
    println!("ready");
    let _ = std::io::stdout().flush();
    watch(&spec, || match &mut board {
        Some(b) => b.set_motors(0, 0).map_err(|e| e.to_string()),
        None => Ok(()),
    })
}

#[cfg(not(target_os = "linux"))]
pub fn serve(_args: &[String]) -> i32 {
    eprintln!("affect watchdog: the hardware drivers need Linux");
    2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spec_survives_the_command_line() {
        let spec = WatchdogSpec {
            bound_ms: 300,
            romi: Some((1, 20)),
        };
        assert_eq!(WatchdogSpec::from_args(&spec.to_args()), Ok(spec));
        assert!(WatchdogSpec::from_args(&["--romi".into(), "x".into()]).is_err());
    }
}
