//! Devices of the user's own crate, next to the built-in ones: a program declares
//! `sensor tilt: num = custom_sensor(driver: "mpu6050", bus: 1, address: 0x68)` or
//! `actuator fan = custom_actuator(driver: "fan_hat", address: 0x30, safe: 0)`, and the crate
//! that runs it registers a driver under that name in a [`DeviceRegistry`]
//! (`HardwareConfig::devices`). On the robot the driver's function opens the device before
//! the first tick, given a [`DeviceSite`]: the declaration's arguments and the robot's I2C
//! buses, shared with the built-in drivers on them. A sensor is read once a tick and retried
//! as the built-ins are (`retries:`); an actuator gets its levels from the program and, when
//! the run stops for any reason, its safe state ([`Output::safe_stop`], from `safe:`), from
//! the run, the watchdog and `safe-stop` alike, each on handles of its own. Recording and
//! replay treat them as the built-ins. See docs/custom-nodes.md.

use crate::devices::{OpenError, Output, Sensor};
use affect_compiler::ir::program::{Device, DeviceArg};
use std::fmt;
use std::sync::Arc;

type OpenSensor = dyn Fn(&mut DeviceSite) -> Result<Box<dyn Sensor>, OpenError> + Send + Sync;
type OpenActuator = dyn Fn(&mut DeviceSite) -> Result<Box<dyn Output>, OpenError> + Send + Sync;

/// The device drivers a crate brings, by the names its programs give as `driver:`.
#[derive(Clone, Default)]
pub struct DeviceRegistry {
    sensors: Vec<(String, Arc<OpenSensor>)>,
    actuators: Vec<(String, Arc<OpenActuator>)>,
}

impl DeviceRegistry {
    pub fn new() -> DeviceRegistry {
        DeviceRegistry::default()
    }

    /// Registers the driver of `custom_sensor(driver: "<driver>", ...)`: `open` opens one
    /// such sensor on the robot (a later registration of the name replaces it).
    pub fn sensor(
        &mut self,
        driver: &str,
        open: impl Fn(&mut DeviceSite) -> Result<Box<dyn Sensor>, OpenError> + Send + Sync + 'static,
    ) -> &mut DeviceRegistry {
        self.sensors.retain(|(n, _)| n != driver);
        self.sensors.push((driver.to_string(), Arc::new(open)));
        self
    }

    /// Registers the driver of `custom_actuator(driver: "<driver>", ...)`. Its device's
    /// [`Output::safe_stop`] is its safe state: by default the level `safe:` (0 unless
    /// declared), which the driver may replace with its own.
    pub fn actuator(
        &mut self,
        driver: &str,
        open: impl Fn(&mut DeviceSite) -> Result<Box<dyn Output>, OpenError> + Send + Sync + 'static,
    ) -> &mut DeviceRegistry {
        self.actuators.retain(|(n, _)| n != driver);
        self.actuators.push((driver.to_string(), Arc::new(open)));
        self
    }

    /// The names registered, sensors first.
    pub fn drivers(&self) -> impl Iterator<Item = &str> {
        (self.sensors.iter().map(|(n, _)| n.as_str()))
            .chain(self.actuators.iter().map(|(n, _)| n.as_str()))
    }

    pub(crate) fn open_sensor(&self, site: &mut DeviceSite) -> Result<Box<dyn Sensor>, OpenError> {
        let driver = site.driver_name();
        match self.sensors.iter().find(|(n, _)| *n == driver) {
            Some((_, open)) => open(site),
            None => Err(site.unregistered(&driver, "sensor")),
        }
    }

    pub(crate) fn open_actuator(
        &self,
        site: &mut DeviceSite,
    ) -> Result<Box<dyn Output>, OpenError> {
        let driver = site.driver_name();
        match self.actuators.iter().find(|(n, _)| *n == driver) {
            Some((_, open)) => open(site),
            None => Err(site.unregistered(&driver, "actuator")),
        }
    }
}

impl fmt::Debug for DeviceRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.drivers()).finish()
    }
}

/// Two registries are the same when they hold the same drivers (the same functions).
impl PartialEq for DeviceRegistry {
    fn eq(&self, other: &DeviceRegistry) -> bool {
        fn same<T: ?Sized>(a: &[(String, Arc<T>)], b: &[(String, Arc<T>)]) -> bool {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|((n, f), (m, g))| n == m && Arc::ptr_eq(f, g))
        }
        same(&self.sensors, &other.sensors) && same(&self.actuators, &other.actuators)
    }
}

impl Eq for DeviceRegistry {}

/// The I2C bus a driver gets: rppal's `/dev/i2c-N`, shared with every device on it, behind
/// embedded-hal 1.0's `I2c`.
#[cfg(target_os = "linux")]
pub type I2cBus = crate::devices::rpi::Bus;

/// What a driver sees when it opens its device.
pub struct DeviceSite<'a> {
    device: &'a Device,
    #[cfg(target_os = "linux")]
    buses: &'a mut dyn FnMut(u8) -> Result<I2cBus, OpenError>,
}

impl<'a> DeviceSite<'a> {
    #[cfg(target_os = "linux")]
    pub(crate) fn new(
        device: &'a Device,
        buses: &'a mut dyn FnMut(u8) -> Result<I2cBus, OpenError>,
    ) -> DeviceSite<'a> {
        DeviceSite { device, buses }
    }

    /// The declaration's name (`tilt` of `sensor tilt: num = ...`).
    pub fn name(&self) -> &str {
        &self.device.name
    }

    /// A number argument of the declaration (`address`, `channel`, `pin`, `retries`, `safe`).
    pub fn num(&self, arg: &str) -> Option<f64> {
        self.device.args.iter().find_map(|(n, v)| match v {
            DeviceArg::Num(x) if n == arg => Some(*x),
            _ => None,
        })
    }

    /// A text argument of the declaration (`driver`, `config`).
    pub fn text(&self, arg: &str) -> Option<&str> {
        self.device.args.iter().find_map(|(n, v)| match v {
            DeviceArg::Str(x) if n == arg => Some(x.as_str()),
            _ => None,
        })
    }

    /// The declaration's `bus:` (1 unless it says otherwise).
    pub fn bus_number(&self) -> u8 {
        self.num("bus").map_or(1, |b| b as u8)
    }

    /// The declaration's `address:`, if it gives one.
    pub fn address(&self) -> Option<u8> {
        self.num("address").map(|a| a as u8)
    }

    /// The I2C bus `bus:` names, opened once for every device on it.
    #[cfg(target_os = "linux")]
    pub fn i2c(&mut self) -> Result<I2cBus, OpenError> {
        let n = self.bus_number();
        (self.buses)(n)
    }

    /// An error that names this device, for a driver that cannot open it: `what` was being
    /// opened (`address 0x68 on /dev/i2c-1`), `detail` what went wrong, `help` what to do.
    pub fn error(
        &self,
        what: impl Into<String>,
        detail: impl Into<String>,
        help: impl Into<String>,
    ) -> OpenError {
        OpenError {
            what: what.into(),
            detail: detail.into(),
            help: help.into(),
        }
    }

    fn driver_name(&self) -> String {
        self.text("driver").unwrap_or_default().to_string()
    }

    fn unregistered(&self, driver: &str, role: &str) -> OpenError {
        self.error(
            format!("driver `{driver}`"),
            format!("no {role} driver of that name is registered"),
            "register it in your crate's DeviceRegistry and run the program with your crate's binary (docs/custom-nodes.md); `affect run` knows only the built-in drivers, or bind the device to the simulator with --sim-device",
        )
    }
}
