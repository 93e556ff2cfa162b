//! The watchdog: a second process that stops the motors when the run stops ticking, and that
//! the run watches in turn. The run starts it (`affect __watchdog ...`, the same executable)
//! with a pipe each way and writes one byte after every tick; the watchdog answers each byte
//! it reads with one of its own.
//!
//! - When no byte comes for the stated bound (a tick overran, the process hangs) the watchdog
//!   sets the Romi's speeds to 0 itself, over its own handle on the I2C bus; when the pipe
//!   closes without the run saying goodbye (the process died: a crash, SIGKILL, the
//!   out-of-memory killer) it does the same and exits.
//! - When the watchdog is told to stop (SIGTERM, SIGINT, SIGHUP) it stops the motors before
//!   it exits.
//! - When the watchdog is gone (its pipe closed: killed, crashed) or stops answering for the
//!   bound (stopped, starved), the run is unguarded: [`Watchdog::beat`] says so, and the run
//!   stops at that tick boundary, sets every safe value itself and exits with an error.
//!
//! A clean stop (the last tick, Ctrl-C, SIGTERM) sets the safe values in the run itself and
//! then says goodbye. What this cannot cover is said in docs/raspberry-pi.md: the Pi losing
//! power or the kernel hanging, which only the board's own firmware can (`firmware/`).

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// What the watchdog guards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WatchdogSpec {
    /// How long without a tick before the motors are stopped.
    pub bound_ms: u64,
    /// The Romi's I2C bus and address (opened when the watchdog starts).
    pub romi: Option<(u8, u8)>,
    /// The program the run runs, for every other actuator: when it must stop the robot, the
    /// watchdog opens the agent's actuators on fresh handles and sets each to its safe state,
    /// as `affect safe-stop` does.
    pub program: Option<ProgramOf>,
}

/// The program file, the agent (`--agent`) and the devices the run simulates (`--sim-device`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProgramOf {
    pub file: std::path::PathBuf,
    pub agent: Option<String>,
    pub simulated: Vec<String>,
}

/// The byte a tick sends, the goodbye of a clean stop, the watchdog's answer to a beat, and
/// what it says when it has been told to stop.
const BEAT: u8 = b'.';
const GOODBYE: u8 = b'q';
const ANSWER: u8 = b'!';
const LEAVING: u8 = b'x';

/// How long a watchdog told to stop waits for the run to end (guarding it meanwhile) before
/// it exits anyway: within systemd's default stop timeout.
const LEAVING_GRACE: Duration = Duration::from_secs(3);

impl WatchdogSpec {
    pub fn to_args(&self) -> Vec<String> {
        let mut args = vec!["--bound-ms".to_string(), self.bound_ms.to_string()];
        if let Some((bus, address)) = self.romi {
            args.extend(["--romi".to_string(), format!("{bus}:{address}")]);
        }
        if let Some(p) = &self.program {
            args.extend(["--program".to_string(), p.file.display().to_string()]);
            if let Some(a) = &p.agent {
                args.extend(["--agent".to_string(), a.clone()]);
            }
            for name in &p.simulated {
                args.extend(["--sim-device".to_string(), name.clone()]);
            }
        }
        args
    }

    pub fn from_args(args: &[String]) -> Result<WatchdogSpec, String> {
        let mut spec = WatchdogSpec {
            bound_ms: 500,
            romi: None,
            program: None,
        };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let value = it.next().ok_or_else(|| format!("{a} needs a value"))?;
            match a.as_str() {
                "--program" => program(&mut spec).file = value.into(),
                "--agent" => program(&mut spec).agent = Some(value.clone()),
                "--sim-device" => program(&mut spec).simulated.push(value.clone()),
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

/// The spec's program, made empty if it has none yet.
fn program(spec: &mut WatchdogSpec) -> &mut ProgramOf {
    spec.program.get_or_insert_with(Default::default)
}

/// The run's end of the watchdog.
pub struct Watchdog {
    child: Child,
    stdin: Option<ChildStdin>,
    bound: Duration,
    /// What the thread reading the watchdog's answers saw (see [`Answers`]).
    answers: Arc<Answers>,
    /// When the oldest beat sent since the last answer went out (`None`: every beat sent
    /// was answered).
    unanswered_since: Option<Instant>,
}

/// The watchdog's answers as the reading thread sees them: when the last came (nanoseconds
/// since `base`), whether it said it is leaving (told to stop by a signal), and whether its
/// pipe has closed (the watchdog is gone).
struct Answers {
    base: Instant,
    last_ns: AtomicU64,
    leaving: AtomicBool,
    closed: AtomicBool,
}

impl Answers {
    fn last(&self) -> Instant {
        self.base + Duration::from_nanos(self.last_ns.load(Ordering::Acquire))
    }
}

/// Why the run is no longer guarded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unguarded {
    /// The watchdog process is gone (its pipe closed, or a beat could not be written).
    Gone(String),
    /// It has not answered a beat for longer than the bound (stopped, or starved of CPU).
    Silent(u64),
}

impl std::fmt::Display for Unguarded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unguarded::Gone(how) => write!(f, "the watchdog is gone ({how})"),
            Unguarded::Silent(ms) => write!(f, "the watchdog has not answered for {ms} ms"),
        }
    }
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
        let n = read_full(&mut out, &mut line);
        if &line[..n] != b"ready\n" {
            let _ = child.kill();
            let _ = child.wait();
            return Err(std::io::Error::other(
                "the watchdog could not open the motor board",
            ));
        }
        let answers = Arc::new(Answers {
            base: Instant::now(),
            last_ns: AtomicU64::new(0),
            leaving: AtomicBool::new(false),
            closed: AtomicBool::new(false),
        });
        let seen = answers.clone();
        std::thread::Builder::new()
            .name("watchdog answers".into())
            .spawn(move || {
                let mut b = [0u8; 64];
                while let Ok(n @ 1..) = out.read(&mut b) {
                    if b[..n].contains(&LEAVING) {
                        seen.leaving.store(true, Ordering::Release);
                    }
                    if b[..n].contains(&ANSWER) {
                        let ns = seen.base.elapsed().as_nanos() as u64;
                        seen.last_ns.store(ns, Ordering::Release);
                    }
                }
                seen.closed.store(true, Ordering::Release);
            })?;
        let stdin = child.stdin.take();
        Ok(Watchdog {
            child,
            stdin,
            bound: Duration::from_millis(spec.bound_ms.max(1)),
            answers,
            unanswered_since: None,
        })
    }

    /// The watchdog's process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// One tick done. `Err` when the watchdog no longer guards the run: the caller stops
    /// the run (setting the safe values itself) and reports it.
    pub fn beat(&mut self) -> Result<(), Unguarded> {
        let gone = |w: &mut Watchdog| {
            let how = match w.child.try_wait() {
                Ok(Some(status)) => exit_text(status),
                _ => "its pipe closed".to_string(),
            };
            Err(Unguarded::Gone(how))
        };
        if self.answers.leaving.load(Ordering::Acquire) {
            return Err(Unguarded::Gone("it was told to stop".to_string()));
        }
        if self.answers.closed.load(Ordering::Acquire) {
            return gone(self);
        }
        let now = Instant::now();
        if let Some(since) = self.unanswered_since {
            if self.answers.last() >= since {
                self.unanswered_since = None;
            } else if now.duration_since(since) > self.bound {
                return Err(Unguarded::Silent(
                    now.duration_since(since).as_millis() as u64
                ));
            }
        }
        let Some(s) = &mut self.stdin else {
            return gone(self);
        };
        if s.write_all(&[BEAT]).is_err() {
            return gone(self);
        }
        self.unanswered_since.get_or_insert(now);
        Ok(())
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

/// How a process ended, for a message.
fn exit_text(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    if let Some(sig) = std::os::unix::process::ExitStatusExt::signal(&status) {
        return format!("killed by signal {sig}");
    }
    format!("it exited with {status}")
}

/// Reads until `buf` is full or the pipe closes; the bytes read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> usize {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) | Err(_) => break,
            Ok(k) => n += k,
        }
    }
    n
}

/// What the watchdog heard.
enum Heard {
    Beat,
    Goodbye,
    /// The pipe closed: the run is gone.
    Closed,
    /// A signal that ends the watchdog (SIGTERM, SIGINT, SIGHUP).
    Signal(i32),
}

/// The watchdog process: waits for beats on standard input and answers each on standard
/// output; stops the motors through `stop` when they do not come within the bound, when the
/// run dies, or when the watchdog itself is told to stop. Returns the exit status.
pub fn watch(spec: &WatchdogSpec, mut stop: impl FnMut() -> Result<(), String>) -> i32 {
    let (tx, rx) = mpsc::channel();
    let signals = tx.clone();
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
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        match signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP]) {
            Ok(mut it) => {
                std::thread::spawn(move || {
                    if let Some(sig) = it.forever().next() {
                        let _ = signals.send(Heard::Signal(sig));
                    }
                });
            }
            Err(e) => eprintln!("affect watchdog: cannot handle signals: {e}"),
        }
    }
    #[cfg(not(unix))]
    drop(signals);
    let told = |what: &str, r: Result<(), String>| {
        eprintln!(
            "affect watchdog: {what}; motors stopped{}",
            r.err().map_or(String::new(), |e| format!(" (failed: {e})"))
        );
    };
    let bound = Duration::from_millis(spec.bound_ms.max(1));
    let mut answer = std::io::stdout();
    // Stopped already for the silence under way (told once, until beats resume).
    let mut stopped = false;
    loop {
        match rx.recv_timeout(bound) {
            Ok(Heard::Beat) => {
                stopped = false;
                // The run reads the answers; when it cannot, it is gone, and the pipe from
                // it closes too.
                let _ = answer.write_all(&[ANSWER]).and_then(|()| answer.flush());
            }
            Ok(Heard::Goodbye) => return 0,
            Ok(Heard::Signal(sig)) => {
                told(&format!("stopped by signal {sig}"), stop());
                leave(&rx, &mut answer, &mut stop);
                return 128 + sig;
            }
            Ok(Heard::Closed) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                told("the run ended without stopping", stop());
                return 1;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if !stopped {
                    told(&format!("no tick for {} ms", spec.bound_ms), stop());
                    stopped = true;
                }
            }
        }
    }
}

/// A watchdog told to stop (its motors stopped already) tells the run, which then stops and
/// says goodbye, and guards it until it has: the motors are stopped again at each beat the run
/// still sends (a tick under way may have moved them), when the run dies, and when it has not
/// ended within [`LEAVING_GRACE`].
fn leave(
    rx: &mpsc::Receiver<Heard>,
    answer: &mut impl Write,
    stop: &mut impl FnMut() -> Result<(), String>,
) {
    let _ = answer.write_all(&[LEAVING]).and_then(|()| answer.flush());
    let until = Instant::now() + LEAVING_GRACE;
    loop {
        let left = until.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(Heard::Goodbye) => return,
            Ok(Heard::Beat | Heard::Signal(_)) => {
                let _ = stop();
            }
            Ok(Heard::Closed) | Err(_) => {
                let _ = stop();
                return;
            }
        }
    }
}

/// What stops the program's actuators on fresh handles (`affect safe-stop`'s work), when the
/// spec names the program; the command line provides it, as it reads programs.
pub type StopActuators = Box<dyn FnMut() -> Result<(), String>>;

/// `affect __watchdog`: opens the Romi on its own handle of the bus, says `ready`, watches;
/// when it must stop the robot it stops the Romi on that handle, then every actuator through
/// `actuators`.
#[cfg(target_os = "linux")]
pub fn serve(spec: &WatchdogSpec, mut actuators: Option<StopActuators>) -> i32 {
    use crate::devices::bus::StdDelay;
    use crate::devices::romi32u4::Romi32u4;
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
    watch(spec, || {
        // The motors first, on the handle held since the start; then the rest.
        let motors = match &mut board {
            Some(b) => b.set_motors(0, 0).map_err(|e| e.to_string()),
            None => Ok(()),
        };
        let rest = actuators.as_mut().map_or(Ok(()), |stop| stop());
        match (motors, rest) {
            (Ok(()), Ok(())) => Ok(()),
            (Err(a), Ok(())) | (Ok(()), Err(a)) => Err(a),
            (Err(a), Err(b)) => Err(format!("{a}; {b}")),
        }
    })
}

#[cfg(not(target_os = "linux"))]
pub fn serve(_spec: &WatchdogSpec, _actuators: Option<StopActuators>) -> i32 {
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
            program: Some(ProgramOf {
                file: "/home/pi/robot/my robot.affect".into(),
                agent: Some("UGV#2".into()),
                simulated: vec!["place".into(), "loud_noise".into()],
            }),
        };
        assert_eq!(WatchdogSpec::from_args(&spec.to_args()), Ok(spec));
        assert!(WatchdogSpec::from_args(&["--romi".into(), "x".into()]).is_err());
    }
}
