//! One device read or write as a record keeps it. These are the format's own types, with
//! one-letter names (MessagePack writes variant names): the runtime's device types may
//! change without changing what a record on disk means.

use crate::devices::{DeviceError, Direction, Edge, MotorCommand, MotorStatus, Reading};
use serde::{Deserialize, Serialize};

/// What one call on a device did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Entry {
    /// A sensor read.
    #[serde(rename = "r")]
    Read(Result<Value, Fail>),
    /// An event polled: `Some(true)` a rising edge, `Some(false)` a falling one.
    #[serde(rename = "p")]
    Poll(Result<Option<bool>, Fail>),
    /// A command to the motor board, and what became of it.
    #[serde(rename = "c")]
    Command(Command, Result<(), Fail>),
    /// The motor board's status: 0 idle, 1 moving, 2 blocked.
    #[serde(rename = "s")]
    Status(Result<u8, Fail>),
    /// An actuator's level set.
    #[serde(rename = "l")]
    Level(f64, Result<(), Fail>),
}

impl Entry {
    /// What kind of call made it, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Entry::Read(_) => "a sensor read",
            Entry::Poll(_) => "an event poll",
            Entry::Command(..) => "a motor command",
            Entry::Status(_) => "a motor status read",
            Entry::Level(..) => "an actuator write",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Value {
    #[serde(rename = "n")]
    Num(f64),
    #[serde(rename = "b")]
    Bool(bool),
    #[serde(rename = "l")]
    Label(char),
    #[serde(rename = "p")]
    Point(f64, f64),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Command {
    /// A step: 0 up, 1 down, 2 left, 3 right.
    #[serde(rename = "g")]
    Step(u8),
    #[serde(rename = "v")]
    Speeds(i16, i16),
    #[serde(rename = "x")]
    Stop,
}

/// A failed call: the kind of [`DeviceError`] (0 bus, 1 busy, 2 config, 3 invalid value,
/// 4 unavailable, 5 implausible), the device and the detail.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fail(pub u8, pub String, pub String);

impl From<&DeviceError> for Fail {
    fn from(e: &DeviceError) -> Fail {
        let (k, detail) = match e {
            DeviceError::Bus { detail, .. } => (0, detail.clone()),
            DeviceError::Busy { .. } => (1, String::new()),
            DeviceError::Config { detail, .. } => (2, detail.clone()),
            DeviceError::InvalidValue { detail, .. } => (3, detail.clone()),
            DeviceError::Unavailable { detail, .. } => (4, detail.clone()),
            DeviceError::Implausible { detail, .. } => (5, detail.clone()),
        };
        Fail(k, e.device().to_string(), detail)
    }
}

impl From<&Fail> for DeviceError {
    fn from(f: &Fail) -> DeviceError {
        let (device, detail) = (f.1.clone(), f.2.clone());
        match f.0 {
            0 => DeviceError::Bus { device, detail },
            1 => DeviceError::Busy { device },
            2 => DeviceError::Config { device, detail },
            3 => DeviceError::InvalidValue { device, detail },
            5 => DeviceError::Implausible { device, detail },
            _ => DeviceError::Unavailable { device, detail },
        }
    }
}

pub fn fail<T: Clone, U>(r: &Result<T, DeviceError>, f: impl FnOnce(T) -> U) -> Result<U, Fail> {
    match r {
        Ok(v) => Ok(f(v.clone())),
        Err(e) => Err(Fail::from(e)),
    }
}

pub fn unfail<T: Clone, U>(r: &Result<T, Fail>, f: impl FnOnce(T) -> U) -> Result<U, DeviceError> {
    match r {
        Ok(v) => Ok(f(v.clone())),
        Err(e) => Err(DeviceError::from(e)),
    }
}

impl From<Reading> for Value {
    fn from(r: Reading) -> Value {
        match r {
            Reading::Num(v) => Value::Num(v),
            Reading::Bool(b) => Value::Bool(b),
            Reading::Label(c) => Value::Label(c),
            Reading::Point(x, y) => Value::Point(x, y),
        }
    }
}

impl From<Value> for Reading {
    fn from(v: Value) -> Reading {
        match v {
            Value::Num(v) => Reading::Num(v),
            Value::Bool(b) => Reading::Bool(b),
            Value::Label(c) => Reading::Label(c),
            Value::Point(x, y) => Reading::Point(x, y),
        }
    }
}

pub fn edge(e: Option<Edge>) -> Option<bool> {
    e.map(|e| e == Edge::Rising)
}

pub fn unedge(e: Option<bool>) -> Option<Edge> {
    e.map(|r| if r { Edge::Rising } else { Edge::Falling })
}

impl From<MotorCommand> for Command {
    fn from(c: MotorCommand) -> Command {
        match c {
            MotorCommand::Step(d) => Command::Step(
                Direction::ALL
                    .iter()
                    .position(|x| *x == d)
                    .unwrap_or_default() as u8,
            ),
            MotorCommand::Speeds { left, right } => Command::Speeds(left, right),
            MotorCommand::Stop => Command::Stop,
        }
    }
}

pub fn status(s: MotorStatus) -> u8 {
    match s {
        MotorStatus::Idle => 0,
        MotorStatus::Moving => 1,
        MotorStatus::Blocked => 2,
    }
}

pub fn unstatus(s: u8) -> MotorStatus {
    match s {
        0 => MotorStatus::Idle,
        1 => MotorStatus::Moving,
        _ => MotorStatus::Blocked,
    }
}
