//! The HC-SR04 ultrasonic ranger (`hcsr04(trigger: 23, echo: 24)`), seed 003's obstacle
//! sensor: a 10 µs pulse on the trigger pin sends a burst of ultrasound; the echo pin then
//! stays high for as long as the sound took to come back (the module's data sheet: 150 µs to
//! 25 ms for 2 cm to 4 m, 38 ms when nothing echoes). The distance is half the time times the
//! speed of sound (343 m/s in air at 20 °C).
//!
//! The echo is timed by polling the pin against a monotonic clock, so a read takes as long as
//! the echo (at most about 38 ms). Nothing echoing is not an error: it reads [`MAX_RANGE_M`].
//! An echo that never starts (a disconnected sensor) or a pin that cannot be read is.

use super::{DeviceError, Reading, Sensor};
use embedded_hal::delay::DelayNs;
use embedded_hal::digital::{InputPin, OutputPin};

/// Speed of sound in air at 20 °C, m/s.
pub const SPEED_OF_SOUND: f64 = 343.0;
/// What a read gives when nothing echoes (the module's range is 2 cm to 4 m).
pub const MAX_RANGE_M: f64 = 4.0;
/// The trigger pulse.
pub const TRIGGER_NS: u32 = 10_000;
/// The echo must start within this after the trigger (the module sends its burst in ~0.5 ms).
pub const START_TIMEOUT_NS: u64 = 30_000_000;
/// An echo longer than this means nothing echoed (the module gives up at 38 ms).
pub const ECHO_TIMEOUT_NS: u64 = 38_000_000;

/// A monotonic clock in nanoseconds.
pub trait Clock {
    fn now_ns(&mut self) -> u64;
}

/// The clock of the machine (`CLOCK_MONOTONIC`).
#[derive(Clone, Copy, Debug)]
pub struct MonotonicClock {
    start: std::time::Instant,
}

impl Default for MonotonicClock {
    fn default() -> Self {
        MonotonicClock {
            start: std::time::Instant::now(),
        }
    }
}

impl Clock for MonotonicClock {
    fn now_ns(&mut self) -> u64 {
        self.start.elapsed().as_nanos() as u64
    }
}

pub struct Hcsr04<T, E, C, D> {
    trigger: T,
    echo: E,
    clock: C,
    delay: D,
    name: String,
}

impl<T: OutputPin, E: InputPin, C: Clock, D: DelayNs> Hcsr04<T, E, C, D> {
    pub fn new(trigger: T, echo: E, clock: C, delay: D, name: &str) -> Self {
        Hcsr04 {
            trigger,
            echo,
            clock,
            delay,
            name: name.to_string(),
        }
    }

    fn echo_high(&mut self) -> Result<bool, DeviceError> {
        self.echo
            .is_high()
            .map_err(|e| DeviceError::bus(&self.name, e))
    }

    /// Waits until the echo pin reads `level`; `Ok(false)` after `timeout_ns`.
    fn wait_for(&mut self, level: bool, from: u64, timeout_ns: u64) -> Result<bool, DeviceError> {
        loop {
            if self.echo_high()? == level {
                return Ok(true);
            }
            if self.clock.now_ns().saturating_sub(from) > timeout_ns {
                return Ok(false);
            }
        }
    }

    /// One ping: the distance in metres.
    pub fn range_m(&mut self) -> Result<f64, DeviceError> {
        if self.echo_high()? {
            return Err(DeviceError::Busy {
                device: self.name.clone(),
            });
        }
        let fail = |e| DeviceError::bus(&self.name, e);
        self.trigger.set_high().map_err(fail)?;
        self.delay.delay_ns(TRIGGER_NS);
        self.trigger.set_low().map_err(fail)?;
        let sent = self.clock.now_ns();
        if !self.wait_for(true, sent, START_TIMEOUT_NS)? {
            return Err(DeviceError::Bus {
                device: self.name.clone(),
                detail: "no echo pulse (is the echo pin wired?)".into(),
            });
        }
        let rise = self.clock.now_ns();
        if !self.wait_for(false, rise, ECHO_TIMEOUT_NS)? {
            return Ok(MAX_RANGE_M);
        }
        let width_s = self.clock.now_ns().saturating_sub(rise) as f64 / 1e9;
        Ok((width_s * SPEED_OF_SOUND / 2.0).min(MAX_RANGE_M))
    }
}

impl<T: OutputPin, E: InputPin, C: Clock, D: DelayNs> Sensor for Hcsr04<T, E, C, D> {
    fn read(&mut self) -> Result<Reading, DeviceError> {
        self.range_m().map(Reading::Num)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::devices::sim::NoDelay;
    use embedded_hal::digital::{ErrorType, OutputPin};
    use std::cell::Cell;
    use std::convert::Infallible;
    use std::rc::Rc;

    /// A clock that moves 1 µs each time it is read, shared with the fake echo.
    #[derive(Clone, Default)]
    struct Ticks(Rc<Cell<u64>>);

    impl Clock for Ticks {
        fn now_ns(&mut self) -> u64 {
            self.0.set(self.0.get() + 1_000);
            self.0.get()
        }
    }

    /// The echo of an obstacle: high from `start` to `start + width` after the trigger falls
    /// (`None`: never high).
    struct Echo {
        clock: Ticks,
        triggered_at: Rc<Cell<Option<u64>>>,
        start_ns: u64,
        width_ns: Option<u64>,
    }

    impl ErrorType for Echo {
        type Error = Infallible;
    }

    impl InputPin for Echo {
        fn is_high(&mut self) -> Result<bool, Infallible> {
            let now = self.clock.now_ns();
            Ok(match (self.triggered_at.get(), self.width_ns) {
                (Some(t), Some(w)) => now >= t + self.start_ns && now < t + self.start_ns + w,
                _ => false,
            })
        }

        fn is_low(&mut self) -> Result<bool, Infallible> {
            self.is_high().map(|h| !h)
        }
    }

    struct Trigger {
        clock: Ticks,
        at: Rc<Cell<Option<u64>>>,
        pulses: Rc<Cell<u32>>,
    }

    impl ErrorType for Trigger {
        type Error = Infallible;
    }

    impl OutputPin for Trigger {
        fn set_low(&mut self) -> Result<(), Infallible> {
            self.at.set(Some(self.clock.0.get()));
            Ok(())
        }

        fn set_high(&mut self) -> Result<(), Infallible> {
            self.pulses.set(self.pulses.get() + 1);
            Ok(())
        }
    }

    fn ranger(width_ns: Option<u64>) -> (Hcsr04<Trigger, Echo, Ticks, NoDelay>, Rc<Cell<u32>>) {
        let clock = Ticks::default();
        let at = Rc::new(Cell::new(None));
        let pulses = Rc::new(Cell::new(0));
        let trigger = Trigger {
            clock: clock.clone(),
            at: at.clone(),
            pulses: pulses.clone(),
        };
        let echo = Echo {
            clock: clock.clone(),
            triggered_at: at,
            start_ns: 500_000,
            width_ns,
        };
        (Hcsr04::new(trigger, echo, clock, NoDelay, "range"), pulses)
    }

    #[test]
    fn the_echo_width_is_the_round_trip() {
        // 20 cm: 0.4 m / 343 m/s = 1166 µs.
        let (mut r, pulses) = ranger(Some(1_166_000));
        let d = r.range_m().unwrap();
        assert!((d - 0.2).abs() < 0.002, "{d}");
        assert_eq!(pulses.get(), 1);
    }

    #[test]
    fn nothing_echoing_is_the_maximum_range_and_no_pulse_is_an_error() {
        let (mut r, _) = ranger(Some(60_000_000));
        assert_eq!(r.range_m(), Ok(MAX_RANGE_M));
        let (mut r, _) = ranger(None);
        assert!(
            matches!(r.read(), Err(DeviceError::Bus { ref detail, .. }) if detail.contains("no echo"))
        );
    }
}
