//! A PWM output (`pwm(channel: 0, frequency: 2kHz)`): a buzzer or a lamp driven by its duty
//! cycle. embedded-hal's `SetDutyCycle` has no frequency, so the frequency belongs to the
//! backend that builds the channel (rppal's `Pwm::with_frequency`, wrapped in a small
//! `SetDutyCycle` adapter since rppal does not implement that trait); this driver keeps it
//! for the trace and turns levels into duty cycles.

use super::{DeviceError, Lasting, Output};
use embedded_hal::pwm::{Error as _, SetDutyCycle};

pub struct PwmOutput<P> {
    pwm: P,
    frequency_hz: f64,
    name: String,
}

impl<P: SetDutyCycle> PwmOutput<P> {
    pub fn new(pwm: P, channel: u32, frequency_hz: f64) -> PwmOutput<P> {
        PwmOutput {
            pwm,
            frequency_hz,
            name: format!("pwm{channel}"),
        }
    }

    pub fn frequency_hz(&self) -> f64 {
        self.frequency_hz
    }

    /// The duty cycle for a level in 0..=1, rounded to the nearest step.
    pub fn duty_for(&self, level: f64) -> Result<u16, DeviceError> {
        if !level.is_finite() {
            return Err(DeviceError::InvalidValue {
                device: self.name.clone(),
                detail: format!("level {level}"),
            });
        }
        let max = f64::from(self.pwm.max_duty_cycle());
        Ok((level.clamp(0.0, 1.0) * max).round() as u16)
    }
}

impl<P: SetDutyCycle + Lasting> Output for PwmOutput<P> {
    /// Levels outside 0..=1 are clamped; NaN and infinities are refused.
    fn set_level(&mut self, level: f64) -> Result<(), DeviceError> {
        let duty = self.duty_for(level)?;
        self.pwm
            .set_duty_cycle(duty)
            .map_err(|e| DeviceError::bus(&self.name, e.kind()))
    }

    /// The safe level, set to stay after this handle and its process are gone.
    fn safe_stop(&mut self, safe: f64) -> Result<(), DeviceError> {
        self.duty_for(safe)?;
        let level = self.pwm.lasting(safe);
        self.set_level(level)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::devices::mock::FakePwm;

    #[test]
    fn levels_become_duty_cycles() {
        let pwm = FakePwm::new(1000);
        let mut out = PwmOutput::new(pwm.clone(), 0, 2000.0);
        for level in [0.0, 0.5, 1.0, 1.7, -0.2, 0.3333] {
            out.set_level(level).unwrap();
        }
        assert_eq!(pwm.duties(), vec![0, 500, 1000, 1000, 0, 333]);
        assert_eq!(out.frequency_hz(), 2000.0);
    }

    #[test]
    fn bad_levels_and_failures_are_errors() {
        let pwm = FakePwm::new(255);
        let mut out = PwmOutput::new(pwm.clone(), 1, 50.0);
        assert!(matches!(
            out.set_level(f64::NAN),
            Err(DeviceError::InvalidValue { .. })
        ));
        pwm.fail();
        assert!(
            matches!(out.set_level(0.5), Err(DeviceError::Bus { ref device, .. }) if device == "pwm1")
        );
        assert!(pwm.duties().is_empty());
    }

    #[test]
    fn the_safe_state_outlasts_the_handle() {
        let pwm = FakePwm::new(1000);
        let mut out = PwmOutput::new(pwm.clone(), 0, 2000.0);
        out.set_level(0.7).unwrap();
        assert!(!pwm.lasting());
        out.safe_stop(0.2).unwrap();
        assert!(
            pwm.lasting(),
            "the channel stays as set when the handle goes"
        );
        assert_eq!(pwm.duties(), vec![700, 200]);
        // A software PWM keeps only off or on: 0.2 is off, 0.6 on.
        let soft = FakePwm::new(1000);
        soft.software();
        let mut out = PwmOutput::new(soft.clone(), 5, 2000.0);
        out.safe_stop(0.2).unwrap();
        out.safe_stop(0.6).unwrap();
        assert_eq!(soft.duties(), vec![0, 1000]);
        assert!(out.safe_stop(f64::NAN).is_err());
    }
}
