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

mod open;
mod retry;

pub use open::{open, Opened};
pub use retry::{Faults, Retry};

/// `--hardware` and what goes with it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HardwareConfig {
    /// Devices (and leaves) bound to the simulated world instead of hardware
    /// (`--sim-device place`).
    pub simulated: Vec<String>,
}
