//! The device layer: what the program's `sensor`, `event` and `actuator` declarations read
//! and drive. Three kinds of implementation sit behind the same traits:
//!
//! - drivers written against the embedded-hal 1.0 traits ([`ads1115`], [`gpio_edge`],
//!   [`pwm`], [`romi32u4`]): on the robot they take rppal's I2C bus and GPIO pins (rppal
//!   implements embedded-hal 1.0 with its `hal` feature); in tests they take [`mock`]'s
//!   doubles;
//! - simulated devices ([`sim`]) that read and move the simulated world;
//! - test doubles ([`mock`]).
//!
//! A device never panics on bad input or a failed transfer: every operation returns a
//! `Result`, and the runtime turns an `Err(DeviceError)` into a FAILURE of the node that
//! asked and a diagnostic trace event (docs/devices.md).

pub mod ads1115;
pub mod bus;
pub mod gpio_edge;
pub mod gpio_out;
pub mod hcsr04;
pub mod mock;
pub mod plausible;
pub mod pwm;
pub mod romi32u4;
pub mod romi_drive;
pub mod romi_model;
#[cfg(target_os = "linux")]
pub mod rpi;
pub mod sim;

pub use crate::world::geometry::Direction;

use std::fmt;

/// Why a device operation failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceError {
    /// A transfer on the bus or pin failed (no acknowledge, arbitration lost, ...).
    Bus { device: String, detail: String },
    /// The device is in use by another read: reads of one device never overlap, a second
    /// one is refused instead of interleaved.
    Busy { device: String },
    /// The declaration asks for something the device cannot do (ADC channel 7, gain 3 V).
    Config { device: String, detail: String },
    /// A value that cannot be written (a NaN duty cycle).
    InvalidValue { device: String, detail: String },
    /// The device has nothing to read: a simulated sensor whose agent or field is not in
    /// the world, a camera over a blank cell.
    Unavailable { device: String, detail: String },
    /// A read the device could not have given (an encoder faster than its wheel), read
    /// again and still so: a corrupted transfer ([`plausible`]).
    Implausible { device: String, detail: String },
}

impl DeviceError {
    pub fn device(&self) -> &str {
        match self {
            DeviceError::Bus { device, .. }
            | DeviceError::Busy { device }
            | DeviceError::Config { device, .. }
            | DeviceError::InvalidValue { device, .. }
            | DeviceError::Unavailable { device, .. }
            | DeviceError::Implausible { device, .. } => device,
        }
    }

    pub(crate) fn bus(device: &str, detail: impl fmt::Debug) -> DeviceError {
        DeviceError::Bus {
            device: device.to_string(),
            detail: format!("{detail:?}"),
        }
    }

    pub(crate) fn config(device: &str, detail: impl Into<String>) -> DeviceError {
        DeviceError::Config {
            device: device.to_string(),
            detail: detail.into(),
        }
    }

    pub(crate) fn unavailable(device: &str, detail: impl Into<String>) -> DeviceError {
        DeviceError::Unavailable {
            device: device.to_string(),
            detail: detail.into(),
        }
    }
}

impl fmt::Display for DeviceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceError::Bus { device, detail } => {
                write!(f, "{device}: bus transfer failed ({detail})")
            }
            DeviceError::Busy { device } => write!(f, "{device}: busy with another read"),
            DeviceError::Config { device, detail } => write!(f, "{device}: {detail}"),
            DeviceError::InvalidValue { device, detail } => {
                write!(f, "{device}: invalid value ({detail})")
            }
            DeviceError::Unavailable { device, detail } => {
                write!(f, "{device}: unavailable ({detail})")
            }
            DeviceError::Implausible { device, detail } => {
                write!(f, "{device}: implausible read ({detail})")
            }
        }
    }
}

impl std::error::Error for DeviceError {}

/// What a sensor reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reading {
    Num(f64),
    Bool(bool),
    /// A grid label, as the camera reads it.
    Label(char),
    /// A position in metres.
    Point(f64, f64),
}

impl Reading {
    pub fn as_num(self) -> Option<f64> {
        match self {
            Reading::Num(v) => Some(v),
            _ => None,
        }
    }
}

/// A `sensor` declaration's source: read once per tick, in the sense phase.
pub trait Sensor {
    fn read(&mut self) -> Result<Reading, DeviceError>;
}

/// A level change on a digital line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edge {
    Rising,
    Falling,
}

/// Which edges an `event` declaration listens for (`gpio_edge(pin: 17, edge: rising)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeKind {
    Rising,
    Falling,
    Both,
}

impl EdgeKind {
    pub fn from_name(name: &str) -> Option<EdgeKind> {
        match name {
            "rising" => Some(EdgeKind::Rising),
            "falling" => Some(EdgeKind::Falling),
            "both" => Some(EdgeKind::Both),
            _ => None,
        }
    }

    pub fn accepts(self, edge: Edge) -> bool {
        matches!(
            (self, edge),
            (EdgeKind::Both, _)
                | (EdgeKind::Rising, Edge::Rising)
                | (EdgeKind::Falling, Edge::Falling)
        )
    }
}

/// An `event` declaration's source, polled once per tick: `Some` when the event happened
/// since the last poll. embedded-hal has no edge-event trait, so this is the project's own;
/// an interrupt-driven implementation (rppal's async interrupts) fits behind it as well as
/// the polling one here.
pub trait EdgeSource {
    fn poll(&mut self) -> Result<Option<Edge>, DeviceError>;
}

/// A command to a motor board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MotorCommand {
    /// Travel exactly one grid cell in this direction (the board turns as needed).
    Step(Direction),
    /// Drive the wheels at these speeds, millimetres per second, forward positive.
    Speeds {
        left: i16,
        right: i16,
    },
    Stop,
}

/// What a motor board reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MotorStatus {
    /// Ready for a command; the last step, if any, is complete.
    Idle,
    /// Executing a step or driving.
    Moving,
    /// The last step could not be made (blocked, or the wheels stalled).
    Blocked,
}

/// An `actuator` that moves the robot (`romi32u4(bus: 1, address: 0x14)`).
pub trait Motor {
    fn command(&mut self, command: MotorCommand) -> Result<(), DeviceError>;
    fn status(&mut self) -> Result<MotorStatus, DeviceError>;
}

/// An `actuator` with one output level (`pwm(channel: 0, frequency: 2kHz)`: a buzzer, a lamp).
pub trait Output {
    /// Sets the level, 0..=1 (0 off, 1 fully on).
    fn set_level(&mut self, level: f64) -> Result<(), DeviceError>;
}
