//! `affect safe-stop FILE`: every actuator of the robot's agent to its safe state (motors
//! stopped, each output at its `safe:` level), on handles of its own, then exit. It is what
//! systemd runs after the robot's unit stopped for any reason (`ExecStopPost=`, written by
//! `affect install-service`: after a crash, an out-of-memory kill, a systemd watchdog kill)
//! and what the run's watchdog does for the actuators besides the motor board.

use super::{FAILED, OK, USAGE};
use affect_compiler::ir::program::Program;
use affect_runtime::hardware::{open_actuators, HardwareConfig};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct SafeStopArgs {
    /// The program the robot runs.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// The agent that runs on the robot (as `affect run --agent`; default: the first).
    #[arg(long, value_name = "AGENT")]
    pub agent: Option<String>,
    /// A device the robot's run simulates (as `affect run --sim-device`): not touched.
    #[arg(long = "sim-device", value_name = "NAME")]
    pub sim_device: Vec<String>,
}

pub fn run(args: &SafeStopArgs) -> u8 {
    let mut stop = match actuators(&args.file, args.agent.as_deref(), &args.sim_device) {
        Ok(stop) => stop,
        Err(status) => return status,
    };
    match stop() {
        Ok(n) => {
            eprintln!(
                "safe: {n} actuator{} of `{}` at {} safe state{}",
                if n == 1 { "" } else { "s" },
                args.file.display(),
                if n == 1 { "its" } else { "their" },
                if n == 1 { "" } else { "s" },
            );
            OK
        }
        Err(e) => {
            eprintln!("error: {e}");
            FAILED
        }
    }
}

/// `affect __watchdog ARGS` (started by `affect run --hardware`): the watchdog of
/// `affect_runtime::hardware::watchdog`, stopping the program's actuators as `safe-stop` does
/// when the spec names the program.
pub fn watchdog(args: &[String]) -> u8 {
    use affect_runtime::hardware::watchdog::{serve, WatchdogSpec};
    let spec = match WatchdogSpec::from_args(args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("affect watchdog: {e}");
            return USAGE;
        }
    };
    let actuators = match &spec.program {
        Some(p) => match actuators(&p.file, p.agent.as_deref(), &p.simulated) {
            Ok(mut stop) => Some(Box::new(move || stop().map(drop)) as Box<_>),
            Err(status) => return status,
        },
        None => None,
    };
    serve(&spec, actuators).clamp(0, 255) as u8
}

/// Reads and checks `file` once; the function it returns opens the agent's actuators on fresh
/// handles and sets each to its safe state, as often as it is called (each call opens them
/// anew: a handle held since the start could be the broken one). `Ok(n)`: the number of
/// actuators; `Err`: which could not be opened or set. `Err` of this function is the exit
/// status, the problem told.
pub fn actuators(
    file: &Path,
    agent: Option<&str>,
    simulated: &[String],
) -> Result<impl FnMut() -> Result<usize, String>, u8> {
    let loaded = super::source::load(file)?;
    let Some(program) = loaded.analysis.program else {
        eprintln!(
            "error: `{}` does not check (`affect check` shows why)",
            file.display()
        );
        return Err(FAILED);
    };
    if agent_of(&program, agent).is_none() {
        eprintln!(
            "error: `{}` has no agent{}",
            file.display(),
            agent.map_or(String::new(), |a| format!(" `{a}`"))
        );
        return Err(USAGE);
    }
    let cfg = HardwareConfig {
        simulated: simulated.to_vec(),
    };
    let agent = agent.map(str::to_string);
    Ok(move || stop_once(&program, agent.as_deref(), &cfg))
}

fn agent_of<'p>(
    program: &'p Program,
    agent: Option<&str>,
) -> Option<&'p affect_compiler::ir::program::AgentProgram> {
    match agent {
        Some(a) => program.agents.iter().find(|p| p.name == a),
        None => program.agents.first(),
    }
}

fn stop_once(
    program: &Program,
    agent: Option<&str>,
    cfg: &HardwareConfig,
) -> Result<usize, String> {
    let agent = agent_of(program, agent).expect("checked when made");
    let mut opened = open_actuators(program, agent, cfg).map_err(|diags| {
        diags
            .iter()
            .map(|d| format!("[{}] {}", d.code, d.message))
            .collect::<Vec<_>>()
            .join("; ")
    })?;
    opened.safe_stop();
    let failed: Vec<String> = opened
        .faults
        .drain()
        .into_iter()
        .map(|f| format!("`{}`: {}", f.device, f.error))
        .collect();
    if failed.is_empty() {
        Ok(opened.actuators())
    } else {
        Err(failed.join("; "))
    }
}
