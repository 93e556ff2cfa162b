//! The systemd unit that runs a program on the robot at boot and keeps it running, for
//! `affect install-service` and for a user's own binary alike (docs/raspberry-pi.md, "Keeping
//! it running"): the binary's run of the program (`ExecStart=`) and its safe stop after
//! every stop of the unit (`ExecStopPost=`), both the same binary, so that a binary with its
//! own device drivers stops its own actuators too.

use affect_compiler::ir::program::Program;
use std::path::{Path, PathBuf};

/// What a unit runs.
pub struct Unit<'a> {
    /// The unit's name (`affect-navigator`).
    pub name: &'a str,
    /// Who wrote it, for its first line (`affect install-service`).
    pub writer: &'a str,
    /// The binary both commands run.
    pub exe: &'a Path,
    /// The program file (its folder is the working directory).
    pub file: &'a Path,
    /// The user it runs as (`None`, or root: said in the unit, not refused).
    pub user: Option<&'a str>,
    /// The binary's arguments that run the program on the robot.
    pub start: &'a [String],
    /// The binary's arguments that set every actuator to its safe state.
    pub stop_post: &'a [String],
}

impl Unit<'_> {
    /// The unit's text.
    pub fn text(&self) -> String {
        let dir = self.file.parent().unwrap_or(Path::new("/"));
        let command = |args: &[String]| {
            let mut exec = vec![quote(&self.exe.display().to_string())];
            exec.extend(args.iter().map(|a| quote(a)));
            exec.join(" ")
        };
        let exec = command(self.start);
        let stop_post = command(self.stop_post);
        let user = match self.user {
            Some(u) if u != "root" => format!("User={u}\n"),
            // Root can open the devices without the groups, but a program has no business
            // running as root: said, not refused.
            _ => "# User= not set: the program runs as root. Give --user (a member of i2c and gpio).\n"
                .into(),
        };
        format!(
            "# Written by `{writer}` (affect {version}): `{name}` runs {file} on this robot.
[Unit]
Description=affect: {file}
After=multi-user.target
# Restarted at most 5 times a minute: a program that fails at once does not spin.
StartLimitIntervalSec=60
StartLimitBurst=5

[Service]
# The run tells systemd when its first tick is done (READY=1) and, from its tick loop, that
# it is still ticking (WATCHDOG=1): a loop stalled for WatchdogSec= is killed and restarted.
Type=notify
NotifyAccess=main
WatchdogSec=5
{user}WorkingDirectory={dir}
ExecStart={exec}
# SIGTERM stops the run at a tick boundary: nodes halted, actuators at their safe values,
# motors stopped, trace, record and memories flushed (docs/raspberry-pi.md). Only the run
# gets it (KillMode=mixed): its watchdog guards it until it has stopped, and anything left
# after TimeoutStopSec= is killed.
KillSignal=SIGTERM
KillMode=mixed
TimeoutStopSec=5
# Whatever stopped the unit (a crash, the out-of-memory killer, the watchdog above, a stop):
# every actuator to its safe state, on handles of its own.
ExecStopPost={stop_post}
# A run ends after its ticks (exit 0) or fails (the watchdog has stopped the motors):
# either way it starts again, with the memories it saved.
Restart=always
RestartSec=2

[Install]
WantedBy=multi-user.target
",
            writer = self.writer,
            name = self.name,
            version = env!("CARGO_PKG_VERSION"),
            file = self.file.display(),
            dir = dir.display(),
        )
    }
}

/// The user a service runs as by default: who ran `sudo`, else who runs this.
pub fn default_user() -> Option<String> {
    ["SUDO_USER", "USER", "LOGNAME"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|u| !u.is_empty()))
}

const USAGE: &str =
    "install-service FILE [--name NAME] [--user USER] [-o FILE | --dry-run] [-- RUN OPTIONS...]";

/// `install-service FILE [--name NAME] [--user USER] [-o FILE | --dry-run] [-- RUN OPTIONS...]`
/// of a user's own binary, as `affect install-service`: a unit whose `ExecStart=` is this
/// binary with `FILE RUN OPTIONS...` and whose `ExecStopPost=` is this binary's
/// `safe-stop FILE` ([`super::safe_stop_command`], with the run's `--agent` and `--sim-device`),
/// so that the safe stop after every stop of the unit knows the binary's own devices. `writer`
/// names the command in the unit's first line; `load` checks the program (no unit is written
/// for one that would fail at boot). The unit goes to /etc/systemd/system/NAME.service unless
/// `-o` says otherwise (NAME: the binary's name and the program's, `rover-rover`). `None` when
/// `args` do not ask for it, else the exit status.
pub fn install_service_command(
    args: &[String],
    writer: &str,
    load: impl FnOnce(&Path) -> Result<Program, String>,
) -> Option<u8> {
    let ("install-service", rest) = args.split_first().map(|(a, r)| (a.as_str(), r))? else {
        return None;
    };
    let (ours, run) = match rest.iter().position(|a| a == "--") {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let (mut file, mut name, mut user, mut output, mut dry_run) = (None, None, None, None, false);
    let mut it = ours.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--dry-run" => dry_run = true,
            "--name" | "--user" | "-o" | "--output" => {
                let Some(v) = it.next() else {
                    eprintln!("error: {a} needs a value ({USAGE})");
                    return Some(2);
                };
                match a.as_str() {
                    "--name" => name = Some(v.clone()),
                    "--user" => user = Some(v.clone()),
                    _ => output = Some(PathBuf::from(v)),
                }
            }
            f if file.is_none() && !f.starts_with('-') => file = Some(PathBuf::from(f)),
            other => {
                eprintln!("error: install-service: unexpected {other} ({USAGE})");
                return Some(2);
            }
        }
    }
    let Some(file) = file else {
        eprintln!("error: {USAGE}");
        return Some(2);
    };
    Some(
        match install(&file, name, user, output, dry_run, run, writer, load) {
            Ok(()) => 0,
            Err((status, e)) => {
                eprintln!("error: {e}");
                status
            }
        },
    )
}

/// [`install_service_command`]'s work, once its arguments are read.
#[allow(clippy::too_many_arguments)]
fn install(
    file: &Path,
    name: Option<String>,
    user: Option<String>,
    output: Option<PathBuf>,
    dry_run: bool,
    run: &[String],
    writer: &str,
    load: impl FnOnce(&Path) -> Result<Program, String>,
) -> Result<(), (u8, String)> {
    let file = std::fs::canonicalize(file)
        .map_err(|e| (2, format!("cannot find `{}`: {e}", file.display())))?;
    load(&file).map_err(|e| (1, format!("{e}: no unit written")))?;
    let exe = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(|e| (2, format!("cannot find this binary: {e}")))?;
    let stem = |p: &Path| {
        p.file_stem()
            .map_or("robot".into(), |s| s.to_string_lossy().into_owned())
    };
    let name = name.unwrap_or_else(|| format!("{}-{}", stem(&exe), stem(&file)));
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.@".contains(c))
    {
        return Err((
            2,
            format!("--name {name:?}: a unit name is letters, digits and `-_.@`"),
        ));
    }
    let mut start = vec![file.display().to_string()];
    start.extend(run.iter().cloned());
    // The safe stop leaves what the run simulates alone, and stops the run's agent.
    let mut stop_post = vec!["safe-stop".to_string(), file.display().to_string()];
    let mut it = run.iter();
    while let Some(a) = it.next() {
        if let ("--agent" | "--sim-device", Some(v)) = (a.as_str(), it.clone().next()) {
            stop_post.extend([a.clone(), v.clone()]);
            it.next();
        }
    }
    let user = user.or_else(default_user);
    let text = Unit {
        name: &name,
        writer,
        exe: &exe,
        file: &file,
        user: user.as_deref(),
        start: &start,
        stop_post: &stop_post,
    }
    .text();
    if dry_run {
        print!("{text}");
        return Ok(());
    }
    let path = output
        .clone()
        .unwrap_or_else(|| Path::new("/etc/systemd/system").join(format!("{name}.service")));
    affect_files::write_atomic(&path, text.as_bytes()).map_err(|e| {
        let help = if output.is_none() {
            " (install it as root, or write it elsewhere with -o FILE)"
        } else {
            ""
        };
        (2, format!("cannot write `{}`: {e}{help}", path.display()))
    })?;
    eprintln!("wrote {}", path.display());
    Ok(())
}

/// An argument as systemd reads it in `ExecStart=`: quoted when it has spaces or quotes;
/// `%` (specifiers) and `$` (variables) doubled so that they stay themselves.
pub fn quote(arg: &str) -> String {
    let escaped = arg.replace('%', "%%").replace('$', "$$");
    let plain = !escaped.is_empty()
        && !escaped
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, '"' | '\'' | '\\' | ';'));
    if plain {
        return escaped;
    }
    let inner = escaped.replace('\\', "\\\\").replace('"', "\\\"");
    format!("\"{inner}\"")
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn arguments_are_quoted_as_systemd_reads_them() {
        assert_eq!(quote("/home/pi/nav.affect"), "/home/pi/nav.affect");
        assert_eq!(quote("my robot.affect"), "\"my robot.affect\"");
        assert_eq!(quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(quote("50%"), "50%%");
        assert_eq!(quote("$HOME"), "$$HOME");
        assert_eq!(quote(""), "\"\"");
        assert_eq!(quote("a;b"), "\"a;b\"");
    }
}
