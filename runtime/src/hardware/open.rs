//! Opening an agent's devices on the robot, before the first tick.

use super::retry::{Faults, Retry};
use super::HardwareConfig;
use crate::devices::plausible::{Bound, Rate};
use crate::devices::romi_drive::{Geometry, RomiDrive};
use crate::devices::sim::SharedWorld;
use crate::devices::{DeviceError, Direction, EdgeSource, Motor, MotorCommand, MotorStatus};
use crate::devices::{Output, Sensor};
use crate::leaf::Leaf;
use crate::tape::{ReplayTape, Replayed, Tape, Taped, TapedMotor};
use crate::world::AgentId;
use affect_compiler::diagnostic::Diagnostic;
use affect_compiler::ir::program::{
    AgentProgram, Device, DeviceArg, DeviceRole, EnumInfo, LeafInfo, Program, SlotId,
};
use std::cell::RefCell;
use std::rc::Rc;

/// The drivers that have a hardware implementation.
pub const HARDWARE_DRIVERS: &[&str] = &[
    "ads1115",
    "romi32u4",
    "gpio_edge",
    "gpio_out",
    "pwm",
    "soft_pwm",
    "hcsr04",
    "custom_sensor",
    "custom_actuator",
];

/// An actuator with a level (`pwm`, `soft_pwm`, `gpio_out`).
pub struct OutputDevice {
    pub name: String,
    /// The level the program writes (a typed actuator), if it has one.
    pub slot: Option<SlotId>,
    pub device: Box<dyn Output>,
    pub safe: f64,
    /// The level last written.
    pub last: Option<f64>,
}

/// The motor board and the cell-by-cell drive on it.
pub struct Base {
    pub name: String,
    pub drive: Rc<RefCell<dyn Motor>>,
}

/// An agent's devices, open.
pub struct Opened {
    pub sensors: Vec<(SlotId, String, Box<dyn Sensor>)>,
    pub events: Vec<(SlotId, String, Box<dyn EdgeSource>)>,
    pub outputs: Vec<OutputDevice>,
    pub base: Option<Base>,
    /// What `--sim-device` bound to the simulated world: (name, driver or "leaf").
    pub simulated: Vec<(String, String)>,
    /// Failures inside leaves, for `device` trace events.
    pub faults: Faults,
    /// What the run should say at its start (a declared range out of a sensor's reach).
    pub warnings: Vec<String>,
    /// Keeps the GPIO (and with it every pin) open for the run.
    #[cfg(target_os = "linux")]
    _gpio: Option<rppal::gpio::Gpio>,
}

fn num(d: &Device, name: &str) -> Option<f64> {
    d.args.iter().find_map(|(n, v)| match (n.as_str(), v) {
        (k, DeviceArg::Num(x)) if k == name => Some(*x),
        _ => None,
    })
}

fn word<'d>(d: &'d Device, name: &str) -> Option<&'d str> {
    d.args.iter().find_map(|(n, v)| match (n.as_str(), v) {
        (k, DeviceArg::Name(x)) if k == name => Some(x.as_str()),
        _ => None,
    })
}

fn role_word(d: &Device) -> &'static str {
    match d.role {
        DeviceRole::Sensor => "sensor",
        DeviceRole::Event => "event",
        DeviceRole::Actuator => "actuator",
    }
}

/// Where an I2C device is: its bus (1 by default) and address.
fn i2c_address(d: &Device) -> (u8, u8) {
    (
        num(d, "bus").unwrap_or(1.0) as u8,
        num(d, "address").unwrap_or(0.0) as u8,
    )
}

/// The motor board of `agent` (its bus and address) unless `simulated` names it: what the
/// watchdog guards.
pub fn motor_board(agent: &AgentProgram, simulated: &[String]) -> Option<(u8, u8)> {
    agent
        .devices
        .iter()
        .find(|d| d.driver == "romi32u4" && !simulated.contains(&d.name))
        .map(i2c_address)
}

/// Whether `agent` drives an actuator on the robot (a motor board or an output) that
/// `simulated` does not name: what the watchdog must be able to stop.
pub fn has_actuators(agent: &AgentProgram, simulated: &[String]) -> bool {
    agent.devices.iter().any(|d| {
        matches!(kind(d), Some(Kind::Base | Kind::Output(_))) && !simulated.contains(&d.name)
    })
}

/// How fast a sensor's reading may change: its declared `max_rate:` (the reading's units a
/// second, never exceeded; a tenth of a second's worth more for noise and the moment the
/// device sampled), else the driver's own bound, else none (a `custom_sensor`'s units are its
/// driver's).
fn bound(d: &Device, driver: Option<Bound>) -> Option<Bound> {
    match num(d, "max_rate") {
        Some(r) if r >= 0.0 => Some(Bound::Never(Rate {
            per_s: r,
            slack: r * 0.1,
        })),
        _ => driver,
    }
}

/// A sensor checked against its [`bound`], when it has one.
#[cfg(target_os = "linux")]
fn plausible<S: Sensor + 'static>(d: &Device, sensor: S, driver: Option<Bound>) -> Box<dyn Sensor> {
    use crate::devices::hcsr04::MonotonicClock;
    use crate::devices::plausible::PlausibleSensor;
    match bound(d, driver) {
        Some(b) => Box::new(PlausibleSensor::new(
            sensor,
            MonotonicClock::default(),
            b,
            &d.name,
        )),
        None => Box::new(sensor),
    }
}

/// The declaration's `retries` (0 by default).
pub fn retries(d: &Device) -> u32 {
    num(d, "retries").map_or(0, |r| r.max(0.0) as u32)
}

/// The names `--sim-device` may take: the agent's devices and declared leaves.
fn check_simulated(
    program: &Program,
    agent: &AgentProgram,
    cfg: &HardwareConfig,
    has_world: bool,
    diags: &mut Vec<Diagnostic>,
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for name in &cfg.simulated {
        let device = agent.devices.iter().find(|d| d.name == *name);
        let leaf = program.leaves.iter().find(|l| l.name == *name);
        let what = match (device, leaf) {
            (Some(d), _) => d.driver.clone(),
            (None, Some(_)) => "leaf".to_string(),
            (None, None) => {
                let names = agent
                    .devices
                    .iter()
                    .map(|d| d.name.as_str())
                    .chain(program.leaves.iter().map(|l| l.name.as_str()));
                let mut d = Diagnostic::error(
                    "E0602",
                    format!(
                        "--sim-device {name}: agent `{}` has no device or leaf `{name}`",
                        agent.name
                    ),
                    affect_compiler::span::Span::DUMMY,
                );
                if let Some(b) = affect_compiler::suggest::closest(name, names) {
                    d = d.with_help(format!("did you mean `{b}`?"));
                }
                diags.push(d);
                continue;
            }
        };
        if !has_world {
            diags.push(
                Diagnostic::error(
                    "E0602",
                    format!("--sim-device {name}: there is no world to simulate it in"),
                    affect_compiler::span::Span::DUMMY,
                )
                .with_help("add a `world` to the program, or name one with --world"),
            );
            continue;
        }
        out.push((name.clone(), what));
    }
    out
}

/// Opens every device of `agent` that is not simulated; every problem is reported at once.
pub fn open(
    program: &Program,
    agent: &AgentProgram,
    cfg: &HardwareConfig,
    has_world: bool,
) -> Result<Opened, Vec<Diagnostic>> {
    open_with(program, agent, cfg, has_world, |agent, simulated, diags| {
        backend::open_devices(agent, simulated, &cfg.devices, diags, Which::All)
    })
}

/// The ADS1115 channels whose declared range goes above what they can read at their supply
/// and gain (3.3 V with gain 4.096 reads at most 80.6 of 0..100).
fn range_warnings(agent: &AgentProgram, simulated: &[String]) -> Vec<String> {
    use crate::devices::ads1115::{range_warning, Gain, DEFAULT_SUPPLY_V};
    let adcs = agent.devices.iter().filter(|d| d.driver == "ads1115");
    adcs.filter(|d| !simulated.contains(&d.name))
        .filter_map(|d| {
            let gain = Gain::from_volts(num(d, "gain").unwrap_or(4.096)).ok()?;
            let supply = num(d, "supply").unwrap_or(DEFAULT_SUPPLY_V);
            let range = d.slot.and_then(|s| agent.slots.get(s as usize)?.range);
            range_warning(&d.name, supply, gain, range)
        })
        .collect()
}

/// Opens only the actuators of `agent` (its motor board and outputs) on fresh handles, to set
/// each to its safe state with [`Opened::safe_stop`]: what `affect safe-stop` and the watchdog
/// do when the run cannot. Sensors are not touched.
pub fn open_actuators(
    program: &Program,
    agent: &AgentProgram,
    cfg: &HardwareConfig,
) -> Result<Opened, Vec<Diagnostic>> {
    // Devices without a hardware driver are simulated-only sensors or leaves here: not
    // actuators, so not refused.
    let cfg = HardwareConfig {
        simulated: (agent.devices.iter())
            .filter(|d| !HARDWARE_DRIVERS.contains(&d.driver.as_str()) && !d.driver.is_empty())
            .map(|d| d.name.clone())
            .chain(cfg.simulated.iter().cloned())
            .collect(),
        devices: cfg.devices.clone(),
    };
    open_with(program, agent, &cfg, true, |agent, simulated, diags| {
        backend::open_devices(agent, simulated, &cfg.devices, diags, Which::Actuators)
    })
}

/// What to open.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Which {
    All,
    Actuators,
}

/// The devices of `agent` as a replay has them: each one answers what the record holds
/// (`affect replay`). What cannot run on hardware is refused as when the run was recorded.
pub fn replayed(
    program: &Program,
    agent: &AgentProgram,
    cfg: &HardwareConfig,
    has_world: bool,
    tape: &ReplayTape,
) -> Result<Opened, Vec<Diagnostic>> {
    open_with(program, agent, cfg, has_world, |agent, simulated, _| {
        let mut o = Opened::empty();
        for (index, d) in agent.devices.iter().enumerate() {
            if simulated.iter().any(|(n, _)| *n == d.name) {
                continue;
            }
            let device = || Replayed {
                tape: tape.clone(),
                index: index as u16,
                name: d.name.clone(),
            };
            match kind(d) {
                Some(Kind::Sensor(slot)) => {
                    o.sensors.push((slot, d.name.clone(), Box::new(device())));
                }
                Some(Kind::Event(slot)) => {
                    o.events.push((slot, d.name.clone(), Box::new(device())))
                }
                Some(Kind::Base) => {
                    o.base = Some(Base {
                        name: d.name.clone(),
                        drive: Rc::new(RefCell::new(device())),
                    });
                }
                Some(Kind::Output(slot)) => {
                    o.outputs
                        .push(OutputDevice::new(d, slot, Box::new(device())))
                }
                None => {}
            }
        }
        Some(o)
    })
}

/// What a declaration is to the robot.
enum Kind {
    Sensor(SlotId),
    Event(SlotId),
    Base,
    Output(Option<SlotId>),
}

fn kind(d: &Device) -> Option<Kind> {
    match (d.driver.as_str(), d.slot) {
        ("ads1115" | "hcsr04" | "custom_sensor", Some(slot)) => Some(Kind::Sensor(slot)),
        ("gpio_edge", Some(slot)) => Some(Kind::Event(slot)),
        ("romi32u4", _) => Some(Kind::Base),
        ("pwm" | "soft_pwm" | "gpio_out" | "custom_actuator", slot) => Some(Kind::Output(slot)),
        _ => None,
    }
}

/// The devices of an agent, made by `devices` (from the agent, what is simulated, where to
/// report problems) once the declarations are checked.
fn open_with(
    program: &Program,
    agent: &AgentProgram,
    cfg: &HardwareConfig,
    has_world: bool,
    devices: impl FnOnce(&AgentProgram, &[(String, String)], &mut Vec<Diagnostic>) -> Option<Opened>,
) -> Result<Opened, Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let simulated = check_simulated(program, agent, cfg, has_world, &mut diags);
    for d in &agent.devices {
        let is_sim = simulated.iter().any(|(n, _)| *n == d.name);
        // An event without a source is raised by the world or another robot.
        if is_sim || d.driver.is_empty() || HARDWARE_DRIVERS.contains(&d.driver.as_str()) {
            continue;
        }
        diags.push(
            Diagnostic::error(
                "E0611",
                format!(
                    "{} `{}` uses `{}`, which has no hardware driver",
                    role_word(d),
                    d.name,
                    d.driver
                ),
                d.span,
            )
            .with_label("simulated only")
            .with_help(format!(
                "bind it to the program's simulated world with --sim-device {}, or implement it in your own crate (docs/custom-nodes.md)",
                d.name
            )),
        );
    }
    let opened = devices(agent, &simulated, &mut diags);
    match opened {
        Some(mut o) if diags.is_empty() => {
            // Said on the robot and again in its replay, whose trace must be the same.
            o.warnings = range_warnings(agent, &cfg.simulated);
            o.simulated = simulated;
            Ok(o)
        }
        _ => Err(diags),
    }
}

/// E0610 for a device that cannot be opened.
fn cannot_open(d: &Device, where_: &str, what: &str, detail: &str, help: &str) -> Diagnostic {
    Diagnostic::error(
        "E0610",
        format!(
            "{} `{}` ({}{where_}) cannot be used: {what}: {detail}",
            role_word(d),
            d.name,
            d.driver
        ),
        d.span,
    )
    .with_label("declared here")
    .with_help(help.to_string())
}

impl crate::leaf::LeafSource for Opened {
    fn bind(
        &self,
        info: &LeafInfo,
        program: &Program,
        place: Option<(&SharedWorld, AgentId)>,
    ) -> Option<Box<dyn Leaf>> {
        let follow = place.map(|(w, id)| (w.clone(), id));
        self.leaf(info, Rc::new(program.enums.clone()), follow)
    }
}

impl OutputDevice {
    fn new(d: &Device, slot: Option<SlotId>, device: Box<dyn Output>) -> OutputDevice {
        OutputDevice {
            name: d.name.clone(),
            slot,
            device,
            safe: num(d, "safe").unwrap_or(0.0),
            last: None,
        }
    }
}

impl Opened {
    fn empty() -> Opened {
        Opened {
            sensors: Vec::new(),
            events: Vec::new(),
            outputs: Vec::new(),
            base: None,
            simulated: Vec::new(),
            faults: Faults::default(),
            warnings: Vec::new(),
            #[cfg(target_os = "linux")]
            _gpio: None,
        }
    }

    /// Every call on the devices also goes to `tape` (`--record`), tagged with the
    /// declaration's place among `agent`'s devices.
    pub fn record_into(&mut self, agent: &AgentProgram, tape: &Tape) {
        let index = |name: &str| {
            let i = agent.devices.iter().position(|d| d.name == name);
            i.unwrap_or(usize::MAX) as u16
        };
        let taped = |name: &str| (tape.clone(), index(name));
        wrap_each(&mut self.sensors, |name, device| {
            let (tape, index) = taped(name);
            Box::new(Taped {
                tape,
                index,
                device,
            })
        });
        wrap_each(&mut self.events, |name, device| {
            let (tape, index) = taped(name);
            Box::new(Taped {
                tape,
                index,
                device,
            })
        });
        for o in std::mem::take(&mut self.outputs) {
            let (tape, index) = taped(&o.name);
            let device = o.device;
            self.outputs.push(OutputDevice {
                device: Box::new(Taped {
                    tape,
                    index,
                    device,
                }),
                ..o
            });
        }
        if let Some(b) = &mut self.base {
            let (tape, index) = taped(&b.name);
            let drive = b.drive.clone();
            b.drive = Rc::new(RefCell::new(TapedMotor { tape, index, drive }));
        }
    }

    /// Binds the robot's sensors and events to the agent, in place of simulated ones.
    pub fn attach(&mut self, sim: &mut crate::sim::SimAgent) {
        let p = sim.program;
        for (slot, name, device) in self.sensors.drain(..) {
            let s = &p.slots[slot as usize];
            sim.senses_mut()
                .bind_sensor(slot, &name, s.kind, s.range, device);
        }
        for (slot, name, device) in self.events.drain(..) {
            sim.senses_mut().bind_event(slot, &name, device);
        }
    }

    /// The implementation of a declared leaf on this robot: `Move(direction)` on the motor
    /// board. `follow`, when the run has a world, moves the robot there as its steps finish,
    /// so devices and leaves bound to the world (`--sim-device`) see where it is.
    pub fn leaf(
        &self,
        info: &LeafInfo,
        enums: Rc<Vec<EnumInfo>>,
        follow: Option<(SharedWorld, AgentId)>,
    ) -> Option<Box<dyn Leaf>> {
        let base = self.base.as_ref()?;
        if info.name != "Move" {
            return None;
        }
        let motor = Followed {
            name: base.name.clone(),
            drive: base.drive.clone(),
            faults: self.faults.clone(),
            follow,
            step: None,
        };
        crate::sim::grid_leaves::grid_move(Box::new(motor), info, enums)
    }

    /// The act phase's last step: every actuator whose level changed is set.
    pub fn write_outputs(&mut self, slots: &[f64]) {
        for o in &mut self.outputs {
            let Some(slot) = o.slot else { continue };
            let level = slots[slot as usize];
            if o.last.is_some_and(|l| crate::trace::same_value(l, level)) {
                continue;
            }
            o.last = Some(level);
            if let Err(e) = o.device.set_level(level) {
                self.faults.push(&o.name, e);
            }
        }
    }

    /// How many actuators there are (outputs, and the motor board).
    pub fn actuators(&self) -> usize {
        self.outputs.len() + usize::from(self.base.is_some())
    }

    /// Every actuator to its safe value and the motors stopped; failures are in `faults`.
    pub fn safe_stop(&mut self) {
        for o in &mut self.outputs {
            if let Err(e) = o.device.safe_stop(o.safe) {
                self.faults.push(&o.name, e);
            }
            o.last = Some(o.safe);
        }
        if let Some(b) = &self.base {
            let r = b.drive.borrow_mut().command(MotorCommand::Stop);
            if let Err(e) = r {
                self.faults.push(&b.name, e);
            }
        }
    }
}

/// Each device of a list, wrapped.
fn wrap_each<D: ?Sized>(
    list: &mut Vec<(SlotId, String, Box<D>)>,
    wrap: impl Fn(&str, Box<D>) -> Box<D>,
) {
    *list = std::mem::take(list)
        .into_iter()
        .map(|(slot, name, device)| {
            let device = wrap(&name, device);
            (slot, name, device)
        })
        .collect();
}

/// The motor board as a `Move` leaf drives it: failures go to the fault log, and finished
/// steps move the robot in the followed world.
struct Followed {
    name: String,
    drive: Rc<RefCell<dyn Motor>>,
    faults: Faults,
    follow: Option<(SharedWorld, AgentId)>,
    step: Option<Direction>,
}

impl Followed {
    fn logged<T>(&self, r: Result<T, DeviceError>) -> Result<T, DeviceError> {
        if let Err(e) = &r {
            self.faults.push(&self.name, e.clone());
        }
        r
    }
}

impl Motor for Followed {
    fn command(&mut self, command: MotorCommand) -> Result<(), DeviceError> {
        self.step = match command {
            MotorCommand::Step(d) => Some(d),
            _ => None,
        };
        let r = self.drive.borrow_mut().command(command);
        self.logged(r)
    }

    fn status(&mut self) -> Result<MotorStatus, DeviceError> {
        let r = self.drive.borrow_mut().status();
        let status = self.logged(r)?;
        if status == MotorStatus::Idle {
            if let (Some(d), Some((w, id))) = (self.step.take(), &self.follow) {
                // The world follows the robot; a world that disagrees (a blank cell where the
                // robot drove) keeps its place, and the simulated devices read it there.
                if let Ok(mut w) = w.try_borrow_mut() {
                    let _ = w.try_move(*id, d);
                }
            }
        }
        Ok(status)
    }
}

#[cfg(target_os = "linux")]
mod backend {
    use super::*;
    use crate::devices::ads1115::{Ads1115, SharedAdc};
    use crate::devices::bus::StdDelay;
    use crate::devices::gpio_out::DigitalOutput;
    use crate::devices::hcsr04::{Hcsr04, MonotonicClock};
    use crate::devices::plausible::{Plausible, ADS1115_CHANNEL, HCSR04_RANGE, ROMI_ENCODER};
    use crate::devices::pwm::PwmOutput;
    use crate::devices::romi32u4::Romi32u4;
    use crate::devices::rpi::{self, Bus, HardPwm, InterruptEdge, OpenError, SoftPwm};
    use crate::devices::EdgeKind;
    use crate::hardware::custom::{DeviceRegistry, DeviceSite};

    struct Site<'a> {
        diags: &'a mut Vec<Diagnostic>,
        registry: &'a DeviceRegistry,
        buses: Vec<(u8, Result<Bus, OpenError>)>,
        adcs: Vec<((u8, u8), SharedAdc<Bus, StdDelay>)>,
        gpio: Option<Result<rppal::gpio::Gpio, OpenError>>,
    }

    impl Site<'_> {
        fn fail(&mut self, d: &Device, where_: &str, e: &OpenError) {
            self.diags
                .push(cannot_open(d, where_, &e.what, &e.detail, &e.help));
        }

        fn bus(&mut self, n: u8) -> Result<Bus, OpenError> {
            if !self.buses.iter().any(|(b, _)| *b == n) {
                self.buses.push((n, rpi::open_i2c(n)));
            }
            let (_, r) = self.buses.iter().find(|(b, _)| *b == n).expect("opened");
            r.clone()
        }

        fn gpio(&mut self) -> Result<rppal::gpio::Gpio, OpenError> {
            self.gpio.get_or_insert_with(rpi::gpio).clone()
        }
    }

    fn i2c_place(d: &Device) -> (u8, u8, String) {
        let (bus, address) = i2c_address(d);
        (
            bus,
            address,
            format!(" on bus {bus} at address {address:#04x}"),
        )
    }

    fn pin(d: &Device, arg: &str) -> u8 {
        num(d, arg).unwrap_or(0.0) as u8
    }

    fn adc_channel(site: &mut Site, d: &Device) -> Option<Box<dyn Sensor>> {
        let (bus, address, place) = i2c_place(d);
        let adc = match site.adcs.iter().find(|(k, _)| *k == (bus, address)) {
            Some((_, adc)) => adc.clone(),
            None => {
                let mut b = match site.bus(bus) {
                    Ok(b) => b,
                    Err(e) => {
                        site.fail(d, &place, &e);
                        return None;
                    }
                };
                // The config register answers on any ADS1115.
                if let Err(e) = rpi::probe(&mut b, bus, address, &[0x01], 2) {
                    site.fail(d, &place, &e);
                    return None;
                }
                let adc = Ads1115::new(b, StdDelay, address).into_shared();
                site.adcs.push(((bus, address), adc.clone()));
                adc
            }
        };
        let channel = num(d, "channel").unwrap_or(0.0) as u32;
        match adc.channel(channel, num(d, "gain").unwrap_or(4.096)) {
            Ok(c) => Some(Box::new(Retry {
                device: plausible(d, c, Some(ADS1115_CHANNEL)),
                retries: retries(d),
            })),
            Err(e) => {
                let e = OpenError {
                    what: format!("channel {channel}"),
                    detail: e.to_string(),
                    help: "the ADS1115 has channels 0 to 3 and gains 6.144, 4.096, 2.048, 1.024, 0.512 and 0.256".into(),
                };
                site.fail(d, &place, &e);
                None
            }
        }
    }

    fn romi(site: &mut Site, d: &Device) -> Option<Base> {
        let (bus, address, place) = i2c_place(d);
        let b = match site.bus(bus) {
            Ok(b) => b,
            Err(e) => {
                site.fail(d, &place, &e);
                return None;
            }
        };
        let mut board = Romi32u4::new(b, StdDelay, address);
        if let Err(e) = board.probe() {
            let e = OpenError {
                what: format!("address {address:#04x} on /dev/i2c-{bus}"),
                detail: format!("the board does not answer ({e})"),
                help: "check that the Romi is powered and flashed with Pololu's RomiRPiSlaveDemo, and its address (`i2cdetect -y 1` shows 14)".into(),
            };
            site.fail(d, &place, &e);
            return None;
        }
        let mut geometry = Geometry::default();
        if let Some(cell) = num(d, "cell") {
            geometry.cell_mm = cell * 1000.0;
        }
        if let Some(h) = word(d, "heading").and_then(|w| {
            let mut name = w.to_string();
            name[..1].make_ascii_uppercase();
            Direction::from_name(&name)
        }) {
            geometry.heading = h;
        }
        // Encoder counts faster than the wheels can turn are a corrupted transfer.
        let name = board.name().to_string();
        let wheels = Retry {
            device: Plausible::new(board, MonotonicClock::default(), ROMI_ENCODER, &name),
            retries: retries(d),
        };
        let drive: Rc<RefCell<dyn Motor>> = Rc::new(RefCell::new(RomiDrive::new(wheels, geometry)));
        // Stopped before the first tick, whatever the board held.
        let _ = drive.borrow_mut().command(MotorCommand::Stop);
        Some(Base {
            name: d.name.clone(),
            drive,
        })
    }

    /// A device of the user's own crate, opened by its registered driver.
    fn custom<T>(
        site: &mut Site,
        d: &Device,
        open: impl FnOnce(&DeviceRegistry, &mut DeviceSite) -> Result<T, OpenError>,
    ) -> Option<T> {
        let registry = site.registry;
        let mut buses = |n: u8| site.bus(n);
        let mut device_site = DeviceSite::new(d, &mut buses);
        let r = open(registry, &mut device_site);
        match r {
            Ok(t) => Some(t),
            Err(e) => {
                site.fail(d, "", &e);
                None
            }
        }
    }

    /// An output, opened at its safe level (a finite one; else off).
    fn output(site: &mut Site, d: &Device) -> Option<Box<dyn Output>> {
        let freq = num(d, "frequency").unwrap_or(1000.0);
        let safe = num(d, "safe").filter(|s| s.is_finite()).unwrap_or(0.0);
        match d.driver.as_str() {
            "custom_actuator" => custom(site, d, |r, s| r.open_actuator(s)),
            "pwm" => {
                let ch = pin(d, "channel");
                match HardPwm::open(ch, freq, safe) {
                    Ok(p) => Some(Box::new(PwmOutput::new(p, u32::from(ch), freq))),
                    Err(e) => {
                        site.fail(d, &format!(" channel {ch}"), &e);
                        None
                    }
                }
            }
            "soft_pwm" | "gpio_out" => {
                let p = pin(d, "pin");
                let gpio = site
                    .gpio()
                    .and_then(|g| rpi::output_pin(&g, p, safe >= 0.5));
                match gpio {
                    Ok(out) if d.driver == "gpio_out" => {
                        Some(Box::new(DigitalOutput::new(out, &d.name)))
                    }
                    Ok(out) => Some(Box::new(PwmOutput::new(
                        SoftPwm::new(out, freq),
                        u32::from(p),
                        freq,
                    ))),
                    Err(e) => {
                        site.fail(d, &format!(" on GPIO {p}"), &e);
                        None
                    }
                }
            }
            _ => None,
        }
    }

    fn edge(site: &mut Site, d: &Device) -> Option<Box<dyn EdgeSource>> {
        let p = pin(d, "pin");
        let kind = word(d, "edge")
            .and_then(EdgeKind::from_name)
            .unwrap_or(EdgeKind::Rising);
        let r = site
            .gpio()
            .and_then(|g| rpi::input_pin(&g, p))
            .and_then(|pin| InterruptEdge::new(pin, kind));
        match r {
            Ok(e) => Some(Box::new(e)),
            Err(e) => {
                site.fail(d, &format!(" on GPIO {p}"), &e);
                None
            }
        }
    }

    fn ranger(site: &mut Site, d: &Device) -> Option<Box<dyn Sensor>> {
        let (t, e) = (pin(d, "trigger"), pin(d, "echo"));
        let r = site
            .gpio()
            .and_then(|g| Ok((rpi::output_pin(&g, t, false)?, rpi::input_pin(&g, e)?)));
        match r {
            Ok((trigger, echo)) => {
                let ranger =
                    Hcsr04::new(trigger, echo, MonotonicClock::default(), StdDelay, &d.name);
                Some(Box::new(Retry {
                    device: plausible(d, ranger, Some(HCSR04_RANGE)),
                    retries: retries(d),
                }))
            }
            Err(err) => {
                site.fail(d, &format!(" on GPIO {t} and {e}"), &err);
                None
            }
        }
    }

    pub(super) fn open_devices(
        agent: &AgentProgram,
        simulated: &[(String, String)],
        registry: &DeviceRegistry,
        diags: &mut Vec<Diagnostic>,
        which: Which,
    ) -> Option<Opened> {
        let mut site = Site {
            diags,
            registry,
            buses: Vec::new(),
            adcs: Vec::new(),
            gpio: None,
        };
        let mut o = Opened::empty();
        for d in &agent.devices {
            if simulated.iter().any(|(n, _)| *n == d.name) {
                continue;
            }
            match kind(d) {
                Some(Kind::Sensor(_) | Kind::Event(_)) if which == Which::Actuators => {}
                Some(Kind::Sensor(slot)) => {
                    let s = match d.driver.as_str() {
                        "ads1115" => adc_channel(&mut site, d),
                        "custom_sensor" => custom(&mut site, d, |r, s| r.open_sensor(s)).map(
                            |device| -> Box<dyn Sensor> {
                                Box::new(Retry {
                                    device: plausible(d, device, None),
                                    retries: retries(d),
                                })
                            },
                        ),
                        _ => ranger(&mut site, d),
                    };
                    if let Some(s) = s {
                        o.sensors.push((slot, d.name.clone(), s));
                    }
                }
                Some(Kind::Event(slot)) => {
                    if let Some(e) = edge(&mut site, d) {
                        o.events.push((slot, d.name.clone(), e));
                    }
                }
                Some(Kind::Base) => o.base = romi(&mut site, d).or(o.base.take()),
                Some(Kind::Output(slot)) => {
                    if let Some(device) = output(&mut site, d) {
                        o.outputs.push(OutputDevice::new(d, slot, device));
                    }
                }
                None => {}
            }
        }
        if let Some(Ok(g)) = site.gpio {
            o._gpio = Some(g);
        }
        Some(o)
    }
}

#[cfg(not(target_os = "linux"))]
mod backend {
    use super::*;

    pub(super) fn open_devices(
        agent: &AgentProgram,
        simulated: &[(String, String)],
        _registry: &crate::hardware::custom::DeviceRegistry,
        diags: &mut Vec<Diagnostic>,
        _which: Which,
    ) -> Option<Opened> {
        for d in &agent.devices {
            if simulated.iter().any(|(n, _)| *n == d.name) || d.driver.is_empty() {
                continue;
            }
            diags.push(cannot_open(
                d,
                "",
                "this system",
                "the hardware drivers need Linux (rppal)",
                "run on the Raspberry Pi, or bind the device to the simulator with --sim-device",
            ));
        }
        None
    }
}
