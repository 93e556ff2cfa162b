//! Two devices of this crate's own, next to affect's built-in drivers: both live on the Romi
//! 32U4 board's I2C buffer (docs/devices.md), which affect's `romi32u4` driver uses only for
//! the motors and encoders.
//!
//! - `custom_sensor(driver: "romi_battery", bus: 1, address: 20)`: the battery voltage the
//!   board measures, in volts;
//! - `custom_actuator(driver: "romi_led", bus: 1, address: 20, config: "yellow", safe: 0)`: one
//!   of the board's three LEDs (`config`: yellow, green or red), on from level 0.5. Its safe
//!   state is the declaration's `safe:` level (off by default), which the run sets when it
//!   stops, and the watchdog (this binary again) on a fresh handle when the run dies.
//!
//! Each is written against embedded-hal 1.0's `I2c`, here the runtime's `Romi32u4` on the bus
//! the run shares with its other devices ([`DeviceSite::i2c`]).

use affect_runtime::devices::bus::StdDelay;
use affect_runtime::devices::romi32u4::{layout, Romi32u4};
use affect_runtime::devices::{DeviceError, OpenError, Output, Reading, Sensor};
use affect_runtime::hardware::custom::I2cBus;
use affect_runtime::hardware::{DeviceRegistry, DeviceSite};

/// The drivers this crate registers.
pub fn registry() -> DeviceRegistry {
    let mut devices = DeviceRegistry::new();
    devices
        .sensor("romi_battery", |site| {
            Ok(Box::new(Battery {
                board: board(site)?,
            }))
        })
        .actuator("romi_led", |site| {
            let offset = match site.text("config").unwrap_or("yellow") {
                "yellow" => layout::YELLOW,
                "green" => layout::GREEN,
                "red" => layout::RED,
                other => {
                    return Err(site.error(
                        format!("config \"{other}\""),
                        "no such LED",
                        "config: \"yellow\", \"green\" or \"red\"",
                    ))
                }
            };
            Ok(Box::new(Led {
                board: board(site)?,
                offset,
            }))
        });
    devices
}

/// The board at the declaration's address, checked to answer before the first tick.
fn board(site: &mut DeviceSite) -> Result<Romi32u4<I2cBus, StdDelay>, OpenError> {
    let address = site.address().unwrap_or(20);
    let bus = site.i2c()?;
    let mut board = Romi32u4::new(bus, StdDelay, address);
    board.battery_millivolts().map_err(|e| {
        site.error(
            format!("address {address:#04x} on /dev/i2c-{}", site.bus_number()),
            format!("the board does not answer ({e})"),
            "check that the Romi is powered and flashed (docs/raspberry-pi.md)",
        )
    })?;
    Ok(board)
}

struct Battery {
    board: Romi32u4<I2cBus, StdDelay>,
}

impl Sensor for Battery {
    fn read(&mut self) -> Result<Reading, DeviceError> {
        let mv = self.board.battery_millivolts()?;
        Ok(Reading::Num(f64::from(mv) / 1000.0))
    }
}

struct Led {
    board: Romi32u4<I2cBus, StdDelay>,
    offset: u8,
}

impl Output for Led {
    fn set_level(&mut self, level: f64) -> Result<(), DeviceError> {
        if level.is_nan() {
            return Err(DeviceError::InvalidValue {
                device: "romi_led".into(),
                detail: "level NaN".into(),
            });
        }
        self.board.write_at(self.offset, &[u8::from(level >= 0.5)])
    }
}
