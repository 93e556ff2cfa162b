//! The device drivers a `sensor`, `event` or `actuator` can name, with their arguments and
//! what they give. The runtime implements each one on hardware and in simulation.

use crate::ir::program::DeviceRole;
use crate::ir::units::Measure;

/// The kind of an argument a driver takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    Num,
    /// A quantity that carries its unit (`cell: 24cm`, `frequency: 2kHz`), held in the
    /// runtime's unit of its measure (metres, hertz).
    Quantity(Measure),
    Str,
    /// A bare word from a fixed set (`edge: rising`).
    Word(&'static [&'static str]),
    /// The name of another agent or component.
    Name,
}

pub struct DriverSpec {
    pub name: &'static str,
    pub role: DeviceRole,
    /// What a sensor reads: `num`, `bool`, `str`, `angle`, `length`, `Point`.
    pub gives: &'static str,
    pub params: &'static [(&'static str, ParamKind, bool)],
    pub doc: &'static str,
}

const REQ: bool = true;
const OPT: bool = false;

/// The arguments of a sensor of the user's own crate: the name it registered its driver
/// under, and what a driver commonly needs (its driver reads them; `config` is free text).
const CUSTOM_SENSOR_PARAMS: &[(&str, ParamKind, bool)] = &[
    ("driver", ParamKind::Str, REQ),
    ("bus", ParamKind::Num, OPT),
    ("address", ParamKind::Num, OPT),
    ("channel", ParamKind::Num, OPT),
    ("pin", ParamKind::Num, OPT),
    ("config", ParamKind::Str, OPT),
    ("retries", ParamKind::Num, OPT),
    ("max_rate", ParamKind::Num, OPT),
];

/// An actuator's: the same, and its safe level.
const CUSTOM_ACTUATOR_PARAMS: &[(&str, ParamKind, bool)] = &[
    ("driver", ParamKind::Str, REQ),
    ("bus", ParamKind::Num, OPT),
    ("address", ParamKind::Num, OPT),
    ("channel", ParamKind::Num, OPT),
    ("pin", ParamKind::Num, OPT),
    ("config", ParamKind::Str, OPT),
    ("retries", ParamKind::Num, OPT),
    ("safe", ParamKind::Num, OPT),
];

pub static DRIVERS: &[DriverSpec] = &[
    DriverSpec {
        name: "ads1115",
        role: DeviceRole::Sensor,
        gives: "num",
        params: &[
            ("bus", ParamKind::Num, REQ),
            ("address", ParamKind::Num, REQ),
            ("channel", ParamKind::Num, REQ),
            ("gain", ParamKind::Num, OPT),
            ("supply", ParamKind::Num, OPT),
            ("retries", ParamKind::Num, OPT),
            ("max_rate", ParamKind::Num, OPT),
        ],
        doc: "A channel of a TI ADS1115 ADC on I2C, scaled to 0..100 (seed 003); `supply:` its VDD in volts (3.3 by default); `max_rate:` how fast the reading can change, a second (a faster read is refused).",
    },
    DriverSpec {
        name: "camera_label",
        role: DeviceRole::Sensor,
        gives: "str",
        params: &[],
        doc: "The letter label under the robot, read by the camera.",
    },
    DriverSpec {
        name: "field_meter",
        role: DeviceRole::Sensor,
        gives: "num",
        params: &[("field", ParamKind::Str, OPT)],
        doc: "A world field's value at the agent (radio strength, light, ...), 0..100.",
    },
    DriverSpec {
        name: "metal_detector",
        role: DeviceRole::Sensor,
        gives: "num",
        params: &[("channel", ParamKind::Num, OPT)],
        doc: "Mine-detector signal strength, 0..100.",
    },
    DriverSpec {
        name: "battery_level",
        role: DeviceRole::Sensor,
        gives: "num",
        params: &[],
        doc: "Battery charge, 0..100.",
    },
    DriverSpec {
        name: "ball_range",
        role: DeviceRole::Sensor,
        gives: "num",
        params: &[],
        doc: "Distance to the ball in metres (a large value when unseen).",
    },
    DriverSpec {
        name: "ball_detector",
        role: DeviceRole::Sensor,
        gives: "bool",
        params: &[],
        doc: "True while the ball is in view.",
    },
    DriverSpec {
        name: "face_detector",
        role: DeviceRole::Sensor,
        gives: "bool",
        params: &[],
        doc: "True while a face is in view.",
    },
    DriverSpec {
        name: "face_range",
        role: DeviceRole::Sensor,
        gives: "num",
        params: &[],
        doc: "Distance to the nearest face in view in metres (a large value when none).",
    },
    DriverSpec {
        name: "face_familiarity",
        role: DeviceRole::Sensor,
        gives: "num",
        params: &[],
        doc: "How familiar the face in view is, 0..100.",
    },
    DriverSpec {
        name: "voice_direction",
        role: DeviceRole::Sensor,
        gives: "angle",
        params: &[],
        doc: "Direction of the last voice heard.",
    },
    DriverSpec {
        name: "gps",
        role: DeviceRole::Sensor,
        gives: "Point",
        params: &[],
        doc: "Position in the world, in metres.",
    },
    DriverSpec {
        name: "odometry",
        role: DeviceRole::Sensor,
        gives: "Point",
        params: &[],
        doc: "Position by dead reckoning, in metres.",
    },
    DriverSpec {
        name: "distance_to",
        role: DeviceRole::Sensor,
        gives: "length",
        params: &[("robot", ParamKind::Name, REQ)],
        doc: "Distance to another agent.",
    },
    DriverSpec {
        name: "hcsr04",
        role: DeviceRole::Sensor,
        gives: "length",
        params: &[
            ("trigger", ParamKind::Num, REQ),
            ("echo", ParamKind::Num, REQ),
            ("retries", ParamKind::Num, OPT),
        ],
        doc: "An HC-SR04 ultrasonic ranger on two GPIO pins: the distance ahead (4 m when nothing echoes).",
    },
    DriverSpec {
        name: "gpio_edge",
        role: DeviceRole::Event,
        gives: "event",
        params: &[
            ("pin", ParamKind::Num, REQ),
            ("edge", ParamKind::Word(&["rising", "falling", "both"]), OPT),
        ],
        doc: "An edge on a GPIO pin (the sound comparator of seed 003).",
    },
    DriverSpec {
        name: "voice_detected",
        role: DeviceRole::Event,
        gives: "event",
        params: &[],
        doc: "Fires when a voice is heard.",
    },
    DriverSpec {
        name: "romi32u4",
        role: DeviceRole::Actuator,
        gives: "",
        params: &[
            ("bus", ParamKind::Num, REQ),
            ("address", ParamKind::Num, REQ),
            ("retries", ParamKind::Num, OPT),
            ("cell", ParamKind::Quantity(Measure::Length), OPT),
            ("heading", ParamKind::Word(&["up", "down", "left", "right"]), OPT),
        ],
        doc: "The Pololu Romi 32U4 control board on I2C, running Pololu's Raspberry Pi slave demo: one-cell moves made on the Pi from its encoders (seed 003). Its safe value is stopped.",
    },
    DriverSpec {
        name: "pwm",
        role: DeviceRole::Actuator,
        gives: "",
        params: &[
            ("channel", ParamKind::Num, REQ),
            ("frequency", ParamKind::Quantity(Measure::Frequency), OPT),
            ("safe", ParamKind::Num, OPT),
        ],
        doc: "A hardware PWM output, channel 0 or 1 of the Pi (a buzzer, a lamp); level 0..1.",
    },
    DriverSpec {
        name: "soft_pwm",
        role: DeviceRole::Actuator,
        gives: "",
        params: &[
            ("pin", ParamKind::Num, REQ),
            ("frequency", ParamKind::Quantity(Measure::Frequency), OPT),
            ("safe", ParamKind::Num, OPT),
        ],
        doc: "Software PWM on any GPIO pin (for pins without hardware PWM); level 0..1.",
    },
    DriverSpec {
        name: "gpio_out",
        role: DeviceRole::Actuator,
        gives: "",
        params: &[
            ("pin", ParamKind::Num, REQ),
            ("safe", ParamKind::Num, OPT),
        ],
        doc: "A GPIO output pin (an LED, a relay): low below level 0.5, high from it.",
    },
    DriverSpec {
        name: "custom_sensor",
        role: DeviceRole::Sensor,
        gives: "num",
        params: CUSTOM_SENSOR_PARAMS,
        doc: "A sensor read by a driver of your own crate, registered under `driver` (docs/custom-nodes.md): an IMU, another ADC. The other arguments are the driver's to read.",
    },
    DriverSpec {
        name: "custom_actuator",
        role: DeviceRole::Actuator,
        gives: "",
        params: CUSTOM_ACTUATOR_PARAMS,
        doc: "An actuator driven by a driver of your own crate, registered under `driver` (docs/custom-nodes.md); level 0..1, set to `safe` whenever the run stops, by the watchdog too.",
    },
    DriverSpec {
        name: "motors",
        role: DeviceRole::Actuator,
        gives: "",
        params: &[],
        doc: "The drive motors of a simulated robot.",
    },
];

pub fn lookup(name: &str) -> Option<&'static DriverSpec> {
    DRIVERS.iter().find(|d| d.name == name)
}
