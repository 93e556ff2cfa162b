//! Running an agent on its robot (`affect run FILE --hardware`): every device its
//! declarations name opens through rppal ([`crate::devices::rpi`]) before the first tick, or
//! the run stops with a coded error naming the declaration, the bus and the address (E0610),
//! or the device's lack of a hardware driver (E0611). A device named with `--sim-device` is
//! bound to the program's simulated world instead, and the run says so.
//!
//! In the language, a device states its retries (`retries: 2`: a failed transfer is tried
//! again that many times within the same tick before it counts as failed; default 0) and an
//! actuator its safe value (`safe: 0`, what it is set to when the run stops for any reason;
//! default 0; motors always stop). See docs/raspberry-pi.md.

use crate::tape::Recording;
use affect_compiler::diagnostic::Diagnostic;
use affect_compiler::ir::program::{AgentProgram, Program};

mod open;
mod retry;
pub mod watchdog;

pub use open::{has_actuators, motor_board, open, open_actuators, replayed, retries, Opened};
pub use retry::{Faults, Retry};

/// Opens the devices of the one agent a run on hardware runs (`agent`: the run's `--agent`;
/// `instances`: the programs of the instances the run would make). Recording, every device
/// call also goes to the tape; replaying, the devices are the record's stand-ins.
pub fn open_for_run<'p>(
    program: &Program,
    agent: Option<&str>,
    hardware: &HardwareConfig,
    has_world: bool,
    instances: impl Iterator<Item = &'p AgentProgram>,
    recording: Option<&Recording>,
) -> Result<Opened, Vec<Diagnostic>> {
    let agents: Vec<&AgentProgram> = instances.collect();
    match agents.as_slice() {
        [one] => match recording {
            Some(Recording::Replay(tape)) => replayed(program, one, hardware, has_world, tape),
            Some(Recording::Record(tape)) => {
                let mut opened = open(program, one, hardware, has_world)?;
                opened.record_into(one, tape);
                Ok(opened)
            }
            None => open(program, one, hardware, has_world),
        },
        _ => Err(vec![Diagnostic::error(
            "E0602",
            match agent {
                Some(a) => format!(
                    "--hardware runs one robot, but `{a}` names {} instances",
                    agents.len()
                ),
                None => format!(
                    "--hardware runs one robot, and this run has {} agent instances",
                    agents.len()
                ),
            },
            affect_compiler::span::Span::DUMMY,
        )
        .with_help("choose the robot's agent with --agent")]),
    }
}

/// `--hardware` and what goes with it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HardwareConfig {
    /// Devices (and leaves) bound to the simulated world instead of hardware
    /// (`--sim-device place`).
    pub simulated: Vec<String>,
}
