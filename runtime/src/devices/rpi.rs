//! The Raspberry Pi's peripherals through rppal 0.22 (feature `hal`): the I2C bus
//! (`/dev/i2c-N`), GPIO pins (inputs with interrupt-driven edges, outputs, software PWM) and
//! the hardware PWM channels. Everything a driver needs comes out as an embedded-hal 1.0 type
//! or one of our device traits; every way of failing to open comes out as an [`OpenError`]
//! that says what is missing and what to do, so the runtime can report it before the first
//! tick (E0610).
//!
//! rppal builds on any Linux, so this module does too; without a Pi (or the test shim in
//! `shim/`) every open fails with a clear reason.

use super::bus::SharedI2c;
use super::{DeviceError, Edge, EdgeKind, EdgeSource};
use embedded_hal::i2c::I2c as _;
use embedded_hal::pwm::{ErrorKind, ErrorType, SetDutyCycle};
use rppal::gpio::{Gpio, InputPin, OutputPin, Trigger};
use rppal::i2c::I2c;
use rppal::pwm::{Channel, Polarity, Pwm};
use std::sync::{Arc, Mutex};

pub use super::OpenError;

/// The Pi's I2C bus `bus`, shared by the drivers on it.
pub type Bus = SharedI2c<I2c>;

fn io_reason(e: &std::io::Error) -> &'static str {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such device",
        std::io::ErrorKind::PermissionDenied => "permission denied",
        _ => "cannot be opened",
    }
}

/// Opens `/dev/i2c-{bus}`.
pub fn open_i2c(bus: u8) -> Result<Bus, OpenError> {
    let path = format!("/dev/i2c-{bus}");
    I2c::with_bus(bus).map(SharedI2c::new).map_err(|e| {
        let (detail, help) = match &e {
            rppal::i2c::Error::Io(io) if io.kind() == std::io::ErrorKind::PermissionDenied => (
                format!("permission denied ({io})"),
                "add the user to the `i2c` group (`sudo adduser $USER i2c`, then log in again)"
                    .to_string(),
            ),
            rppal::i2c::Error::Io(io) => (
                format!("{} ({io})", io_reason(io)),
                format!(
                    "enable I2C bus {bus} (`sudo raspi-config nonint do_i2c 0`, or `dtparam=i2c_arm=on` in /boot/firmware/config.txt, then reboot); on a machine that is not a Pi, bind the device to the simulator with --sim-device"
                ),
            ),
            other => (other.to_string(), "see docs/raspberry-pi.md".to_string()),
        };
        OpenError {
            what: path.clone(),
            detail,
            help,
        }
    })
}

/// Checks that a device acknowledges at `address`: writes `write` and reads `read` bytes.
pub fn probe(
    bus: &mut Bus,
    number: u8,
    address: u8,
    write: &[u8],
    read: usize,
) -> Result<(), OpenError> {
    let mut buf = [0u8; 8];
    let r = bus.write(address, write).and_then(|()| match read {
        0 => Ok(()),
        n => bus.read(address, &mut buf[..n.min(8)]),
    });
    r.map_err(|e| OpenError {
        what: format!("address {address:#04x} on /dev/i2c-{number}"),
        detail: format!("no device answers ({e:?})"),
        help: format!(
            "check the wiring, the power and the device's address (`i2cdetect -y {number}` lists the addresses that answer)"
        ),
    })
}

fn gpio_error(what: String, e: rppal::gpio::Error) -> OpenError {
    use rppal::gpio::Error;
    let help = match &e {
        Error::UnknownModel => "GPIO needs a Raspberry Pi; on another machine, bind the device to the simulator with --sim-device".to_string(),
        Error::PinUsed(_) => "each pin can serve one declaration; another declaration (or another part of this program) already uses it".to_string(),
        Error::PinNotAvailable(_) => "use a BCM GPIO number the Pi has (0..27 on the 40-pin header)".to_string(),
        Error::PermissionDenied(_) => "add the user to the `gpio` group (`sudo adduser $USER gpio`, then log in again)".to_string(),
        _ => "see docs/raspberry-pi.md".to_string(),
    };
    let detail = match &e {
        Error::UnknownModel => {
            "this is not a Raspberry Pi (rppal cannot identify the model)".to_string()
        }
        other => other.to_string(),
    };
    OpenError { what, detail, help }
}

/// The Pi's GPIO (one per process, shared by the pins).
pub fn gpio() -> Result<Gpio, OpenError> {
    Gpio::new().map_err(|e| gpio_error("GPIO".into(), e))
}

pub fn input_pin(gpio: &Gpio, pin: u8) -> Result<InputPin, OpenError> {
    gpio.get(pin)
        .map(|p| p.into_input())
        .map_err(|e| gpio_error(format!("GPIO {pin}"), e))
}

/// An output pin, driven at `high` from the moment it is an output: opened at an actuator's
/// safe level, a pin never passes through the other (a brake whose safe level is high is not
/// released for a moment when the watchdog opens it to set it safe).
pub fn output_pin(gpio: &Gpio, pin: u8, high: bool) -> Result<OutputPin, OpenError> {
    gpio.get(pin)
        .map(|p| {
            if high {
                p.into_output_high()
            } else {
                p.into_output_low()
            }
        })
        .map_err(|e| gpio_error(format!("GPIO {pin}"), e))
}

/// Edges on an input pin, caught by rppal's interrupt thread as they happen (so a pulse
/// shorter than a tick is not lost) and handed out at the next poll.
pub struct InterruptEdge {
    _pin: InputPin,
    seen: Arc<Mutex<Option<Edge>>>,
}

impl InterruptEdge {
    pub fn new(mut pin: InputPin, kind: EdgeKind) -> Result<InterruptEdge, OpenError> {
        let number = pin.pin();
        let trigger = match kind {
            EdgeKind::Rising => Trigger::RisingEdge,
            EdgeKind::Falling => Trigger::FallingEdge,
            EdgeKind::Both => Trigger::Both,
        };
        let seen = Arc::new(Mutex::new(None));
        let sink = seen.clone();
        pin.set_async_interrupt(trigger, None, move |event| {
            let edge = match event.trigger {
                Trigger::FallingEdge => Edge::Falling,
                _ => Edge::Rising,
            };
            if let Ok(mut s) = sink.lock() {
                *s = Some(edge);
            }
        })
        .map_err(|e| gpio_error(format!("GPIO {number}"), e))?;
        Ok(InterruptEdge { _pin: pin, seen })
    }
}

impl EdgeSource for InterruptEdge {
    fn poll(&mut self) -> Result<Option<Edge>, DeviceError> {
        match self.seen.lock() {
            Ok(mut s) => Ok(s.take()),
            Err(_) => Err(DeviceError::Bus {
                device: "gpio_edge".into(),
                detail: "the interrupt thread panicked".into(),
            }),
        }
    }
}

/// The PWM error of rppal, for embedded-hal.
#[derive(Debug)]
pub struct PwmError(pub String);

impl embedded_hal::pwm::Error for PwmError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Other
    }
}

/// Duty-cycle steps of the PWM adapters (rppal takes a fraction).
const DUTY_STEPS: u16 = 10_000;

/// A hardware PWM channel behind embedded-hal's `SetDutyCycle` (rppal does not implement it).
pub struct HardPwm(Pwm);

impl HardPwm {
    /// The channel, enabled at `duty` (0..=1: the actuator's safe level, so that opening it
    /// never passes through another).
    pub fn open(channel: u8, frequency_hz: f64, duty: f64) -> Result<HardPwm, OpenError> {
        let what = format!("PWM channel {channel}");
        let ch = match channel {
            0 => Channel::Pwm0,
            1 => Channel::Pwm1,
            2 => Channel::Pwm2,
            3 => Channel::Pwm3,
            _ => {
                return Err(OpenError {
                    what,
                    detail: "no such channel".into(),
                    help: "the Pi has PWM channels 0 and 1 (2 and 3 on a Pi 5); for another pin use soft_pwm(pin: ..)".into(),
                })
            }
        };
        Pwm::with_frequency(ch, frequency_hz, duty.clamp(0.0, 1.0), Polarity::Normal, true)
            .map(HardPwm)
            .map_err(|e| OpenError {
                what,
                detail: e.to_string(),
                help: "enable the channel (`dtoverlay=pwm-2chan` in /boot/firmware/config.txt, then reboot); without a Pi, bind the device to the simulator with --sim-device".into(),
            })
    }
}

impl ErrorType for HardPwm {
    type Error = PwmError;
}

/// A channel left enabled at its duty cycle when the handle is dropped (the kernel keeps it).
impl super::Lasting for HardPwm {
    fn lasting(&mut self, level: f64) -> f64 {
        self.0.set_reset_on_drop(false);
        level
    }
}

/// A pin left an output at its level when the handle is dropped.
impl super::Lasting for OutputPin {
    fn lasting(&mut self, level: f64) -> f64 {
        self.set_reset_on_drop(false);
        level
    }
}

impl SetDutyCycle for HardPwm {
    fn max_duty_cycle(&self) -> u16 {
        DUTY_STEPS
    }

    fn set_duty_cycle(&mut self, duty: u16) -> Result<(), PwmError> {
        self.0
            .set_duty_cycle(f64::from(duty) / f64::from(DUTY_STEPS))
            .map_err(|e| PwmError(e.to_string()))
    }
}

/// Software PWM on any output pin (rppal's timing thread).
pub struct SoftPwm {
    pin: OutputPin,
    frequency_hz: f64,
}

impl SoftPwm {
    pub fn new(pin: OutputPin, frequency_hz: f64) -> SoftPwm {
        SoftPwm { pin, frequency_hz }
    }
}

impl ErrorType for SoftPwm {
    type Error = PwmError;
}

impl SetDutyCycle for SoftPwm {
    fn max_duty_cycle(&self) -> u16 {
        DUTY_STEPS
    }

    /// Fully off and fully on are the pin's level, without the timing thread.
    fn set_duty_cycle(&mut self, duty: u16) -> Result<(), PwmError> {
        let fail = |e: rppal::gpio::Error| PwmError(e.to_string());
        match duty {
            0 | DUTY_STEPS.. => {
                self.pin.clear_pwm().map_err(fail)?;
                if duty == 0 {
                    self.pin.set_low();
                } else {
                    self.pin.set_high();
                }
                Ok(())
            }
            _ => self
                .pin
                .set_pwm_frequency(self.frequency_hz, f64::from(duty) / f64::from(DUTY_STEPS))
                .map_err(fail),
        }
    }
}

/// Software PWM needs its thread, which ends with the process: what outlasts the handle is
/// the pin's level, fully on from half the duty cycle, else off.
impl super::Lasting for SoftPwm {
    fn lasting(&mut self, level: f64) -> f64 {
        self.pin.set_reset_on_drop(false);
        if level >= 0.5 {
            1.0
        } else {
            0.0
        }
    }
}
