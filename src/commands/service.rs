//! `affect install-service FILE`: a systemd unit that runs the program on the robot at boot
//! and keeps it running (docs/raspberry-pi.md, "Keeping it running"). The unit runs `affect
//! run FILE --hardware` with the options given after `--`, which are checked here as `affect
//! run` would check them, as is the program: a unit that would fail at boot is not written.

use super::{FAILED, OK, USAGE};
use affect_runtime::robot::service::{default_user, Unit};
use clap::Parser;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct ServiceArgs {
    /// The program the robot runs.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// The unit's name (default: `affect-` and the program's file name without extension).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// The user the program runs as: a member of the `i2c` and `gpio` groups, not root
    /// (default: the user who ran sudo, else this user).
    #[arg(long, value_name = "USER")]
    pub user: Option<String>,
    /// The `affect` binary the unit starts (default: this one).
    #[arg(long, value_name = "PATH")]
    pub affect: Option<PathBuf>,
    /// Print the unit instead of installing it.
    #[arg(long, conflicts_with = "output")]
    pub dry_run: bool,
    /// Write the unit to this file instead of /etc/systemd/system/NAME.service (no root
    /// needed).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Options of `affect run` for the robot's run (after `--`), as `-- --sim-device place
    /// --record /home/pi/robot/runs.rec`. `--hardware` is always given; without `--ticks` the
    /// run makes 864000 ticks (a day at 10 Hz), then ends and is started again.
    #[arg(last = true, value_name = "RUN OPTIONS")]
    pub run: Vec<String>,
}

/// `affect run`'s options, parsed to check them.
#[derive(Parser)]
#[command(name = "affect run", no_binary_name = true)]
struct RunLine {
    #[command(flatten)]
    run: super::run::RunArgs,
}

/// Ticks per run when the options do not say.
const DEFAULT_TICKS: &str = "864000";

pub fn install(args: &ServiceArgs) -> u8 {
    let file = match std::fs::canonicalize(&args.file) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: cannot find `{}`: {e}", args.file.display());
            return USAGE;
        }
    };
    let given = |o: &str| (args.run.iter()).any(|a| a == o || a.starts_with(&format!("{o}=")));
    let mut run: Vec<String> = vec![file.display().to_string()];
    if !given("--hardware") {
        run.push("--hardware".into());
    }
    run.extend(args.run.iter().cloned());
    if !given("--ticks") {
        run.extend(["--ticks".into(), DEFAULT_TICKS.into()]);
    }
    // The options as `affect run` reads them, and the program as it checks it.
    let line = match RunLine::try_parse_from(&run) {
        Ok(line) => line,
        Err(e) => {
            eprintln!("error: the options for `affect run` are not valid:\n{e}");
            return USAGE;
        }
    };
    // After the unit stopped, whatever stopped it: the same agent's actuators to their safe
    // states, the simulated devices left alone.
    let mut safe_stop: Vec<String> = vec!["safe-stop".into(), file.display().to_string()];
    if let Some(a) = &line.run.agent {
        safe_stop.extend(["--agent".into(), a.clone()]);
    }
    for name in &line.run.sim_devices {
        safe_stop.extend(["--sim-device".into(), name.clone()]);
    }
    match super::source::load(&file) {
        Ok(l) if l.analysis.program.is_some() => {}
        Ok(_) => {
            eprintln!(
                "error: `{}` does not check (`affect check` shows why): no unit written",
                file.display()
            );
            return FAILED;
        }
        Err(status) => return status,
    }
    let affect = match args.affect.clone().map_or_else(std::env::current_exe, Ok) {
        Ok(a) => std::fs::canonicalize(&a).unwrap_or(a),
        Err(e) => {
            eprintln!("error: cannot find the affect binary: {e} (give it with --affect)");
            return USAGE;
        }
    };
    let stem = file
        .file_stem()
        .map_or("robot".into(), |s| s.to_string_lossy());
    let name = args
        .name
        .clone()
        .unwrap_or_else(|| format!("affect-{stem}"));
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.@".contains(c))
    {
        eprintln!("error: --name {name:?}: a unit name is letters, digits and `-_.@`");
        return USAGE;
    }
    let user = args.user.clone().or_else(default_user);
    let start = [&["run".to_string()], run.as_slice()].concat();
    let unit = Unit {
        name: &name,
        writer: "affect install-service",
        exe: &affect,
        file: &file,
        user: user.as_deref(),
        start: &start,
        stop_post: &safe_stop,
    }
    .text();
    if args.dry_run {
        print!("{unit}");
        return OK;
    }
    let path = args
        .output
        .clone()
        .unwrap_or_else(|| Path::new("/etc/systemd/system").join(format!("{name}.service")));
    if let Err(e) = affect_files::write_atomic(&path, unit.as_bytes()) {
        eprintln!("error: cannot write `{}`: {e}", path.display());
        if args.output.is_none() {
            eprintln!("help: install it as root (sudo), or write it elsewhere with -o FILE, or print it with --dry-run");
        }
        return USAGE;
    }
    eprintln!("wrote {}", path.display());
    if args.output.is_none() {
        eprintln!("start it now and at every boot:\n  sudo systemctl daemon-reload\n  sudo systemctl enable --now {name}\nfollow it: journalctl -u {name} -f");
    }
    OK
}
