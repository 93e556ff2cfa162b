//! A device's `retries`: a failed transfer is tried again, at once and within the same tick,
//! that many times before it counts as failed; and the log of device failures that happen
//! inside leaves, which the run writes as `device` trace events.

use crate::devices::romi_drive::Wheels;
use crate::devices::{DeviceError, Edge, EdgeSource, Reading, Sensor};
use std::cell::RefCell;
use std::rc::Rc;

/// Tries an operation `1 + retries` times; the last error if every try failed.
fn attempt<T>(
    retries: u32,
    mut op: impl FnMut() -> Result<T, DeviceError>,
) -> Result<T, DeviceError> {
    let mut last = None;
    for _ in 0..=retries {
        match op() {
            Ok(v) => return Ok(v),
            Err(e) => last = Some(e),
        }
    }
    Err(last.expect("at least one try"))
}

/// A device with its declared retries.
pub struct Retry<D> {
    pub device: D,
    pub retries: u32,
}

impl<S: Sensor> Sensor for Retry<S> {
    fn read(&mut self) -> Result<Reading, DeviceError> {
        let d = &mut self.device;
        attempt(self.retries, || d.read())
    }
}

impl<E: EdgeSource> EdgeSource for Retry<E> {
    fn poll(&mut self) -> Result<Option<Edge>, DeviceError> {
        let d = &mut self.device;
        attempt(self.retries, || d.poll())
    }
}

impl<W: Wheels> Wheels for Retry<W> {
    fn set_speeds(&mut self, left: i16, right: i16) -> Result<(), DeviceError> {
        let d = &mut self.device;
        attempt(self.retries, || d.set_speeds(left, right))
    }

    fn encoders(&mut self) -> Result<(i16, i16), DeviceError> {
        let d = &mut self.device;
        attempt(self.retries, || d.encoders())
    }
}

/// One device failure inside a leaf.
#[derive(Clone, Debug, PartialEq)]
pub struct Fault {
    /// The declaration's name (`base`).
    pub device: String,
    pub error: DeviceError,
}

/// Device failures inside leaves since the run last looked; shared by the leaves that drive
/// devices and the run loop.
#[derive(Clone, Default)]
pub struct Faults(Rc<RefCell<Vec<Fault>>>);

impl Faults {
    pub fn push(&self, device: &str, error: DeviceError) {
        self.0.borrow_mut().push(Fault {
            device: device.to_string(),
            error,
        });
    }

    pub fn drain(&self) -> Vec<Fault> {
        std::mem::take(&mut self.0.borrow_mut())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Flaky {
        fails: u32,
        calls: u32,
    }

    impl Sensor for Flaky {
        fn read(&mut self) -> Result<Reading, DeviceError> {
            self.calls += 1;
            if self.calls <= self.fails {
                Err(DeviceError::Busy { device: "x".into() })
            } else {
                Ok(Reading::Num(1.0))
            }
        }
    }

    #[test]
    fn retries_are_extra_tries_in_the_same_call() {
        let mut none = Retry {
            device: Flaky { fails: 1, calls: 0 },
            retries: 0,
        };
        assert!(none.read().is_err(), "by default a failure is a failure");
        assert_eq!(none.read(), Ok(Reading::Num(1.0)));
        let mut two = Retry {
            device: Flaky { fails: 2, calls: 0 },
            retries: 2,
        };
        assert_eq!(two.read(), Ok(Reading::Num(1.0)));
        assert_eq!(two.device.calls, 3);
        let mut short = Retry {
            device: Flaky { fails: 5, calls: 0 },
            retries: 2,
        };
        assert!(short.read().is_err());
        assert_eq!(short.device.calls, 3);
    }
}
