//! A GPIO output pin (`gpio_out(pin: 5, safe: 0)`): an LED, a relay. A level below 0.5 drives
//! the pin low, from 0.5 high; NaN is refused.

use super::{DeviceError, Lasting, Output};
use embedded_hal::digital::OutputPin;

pub struct DigitalOutput<P> {
    pin: P,
    name: String,
}

impl<P: OutputPin> DigitalOutput<P> {
    pub fn new(pin: P, name: &str) -> DigitalOutput<P> {
        DigitalOutput {
            pin,
            name: name.to_string(),
        }
    }
}

impl<P: OutputPin + Lasting> Output for DigitalOutput<P> {
    /// The safe level, the pin left driven at it after this handle and its process are gone.
    fn safe_stop(&mut self, safe: f64) -> Result<(), DeviceError> {
        let level = self.pin.lasting(safe);
        self.set_level(level)
    }

    fn set_level(&mut self, level: f64) -> Result<(), DeviceError> {
        if level.is_nan() {
            return Err(DeviceError::InvalidValue {
                device: self.name.clone(),
                detail: "level NaN".into(),
            });
        }
        let r = if level >= 0.5 {
            self.pin.set_high()
        } else {
            self.pin.set_low()
        };
        r.map_err(|e| DeviceError::bus(&self.name, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use embedded_hal::digital::ErrorType;
    use std::convert::Infallible;

    #[derive(Default)]
    struct Pin(Vec<bool>);

    impl ErrorType for Pin {
        type Error = Infallible;
    }

    impl crate::devices::Lasting for Pin {}

    impl OutputPin for Pin {
        fn set_low(&mut self) -> Result<(), Infallible> {
            self.0.push(false);
            Ok(())
        }
        fn set_high(&mut self) -> Result<(), Infallible> {
            self.0.push(true);
            Ok(())
        }
    }

    #[test]
    fn half_is_the_threshold() {
        let mut out = DigitalOutput::new(Pin::default(), "led");
        for l in [0.0, 0.49, 0.5, 1.0, -3.0] {
            out.set_level(l).unwrap();
        }
        assert!(out.set_level(f64::NAN).is_err());
        assert_eq!(out.pin.0, vec![false, false, true, true, false]);
    }
}
