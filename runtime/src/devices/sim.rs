//! Simulated devices: every device reads or moves the simulated world, for one agent.
//!
//! | device | simulated by | reads / does |
//! |---|---|---|
//! | `ads1115(...)`, any analog sensor | [`SimField`] | the world field of the sensor's name where the agent stands, plus optional seeded noise |
//! | `camera_label()` | [`SimLabel`] | the label of the agent's cell |
//! | `odometry()`, `gps()` | [`SimPosition`] | the agent's position in metres |
//! | `distance_to`, `ball_range`, `ball_detector`, `face_detector`, `face_familiarity`, `metal_detector` | [`SimLocator`] | distance to, presence of, or signal from an agent or landmark |
//! | `gpio_edge(...)` | [`SimEdgeEvent`] | an edge when the world's script raises the event on the agent |
//! | `romi32u4(...)` | [`SimGridMotor`] | a one-cell `try_move`, busy for the grid's `move_time` |
//!
//! [`SimI2c`] goes one level lower: a simulated I2C bus with an ADS1115 on it, so the real
//! driver runs unchanged against the world.
//!
//! The world is shared as `Rc<RefCell<World>>`. A device borrows it only inside one call and
//! reports `DeviceError::Busy` (never a panic) if the runtime happens to hold it then.

use super::{DeviceError, Edge, EdgeSource, Motor, MotorCommand, MotorStatus, Reading, Sensor};
use crate::rng::Rng;
use crate::world::{AgentId, Direction, EventAction, LandmarkKind, World};
use embedded_hal::i2c::{self, ErrorKind, I2c, NoAcknowledgeSource, Operation, SevenBitAddress};
use std::cell::{Ref, RefCell, RefMut};
use std::rc::Rc;

pub type SharedWorld = Rc<RefCell<World>>;

fn world<'w>(w: &'w SharedWorld, device: &str) -> Result<Ref<'w, World>, DeviceError> {
    w.try_borrow().map_err(|_| DeviceError::Busy {
        device: device.to_string(),
    })
}

fn world_mut<'w>(w: &'w SharedWorld, device: &str) -> Result<RefMut<'w, World>, DeviceError> {
    w.try_borrow_mut().map_err(|_| DeviceError::Busy {
        device: device.to_string(),
    })
}

/// An analog sensor that reads a world field where its agent stands.
pub struct SimField {
    world: SharedWorld,
    agent: AgentId,
    field: String,
    /// Uniform noise in `-noise..noise` added to each read.
    noise: f64,
    rng: Rng,
    range: Option<(f64, f64)>,
    name: String,
}

impl SimField {
    pub fn new(world: SharedWorld, agent: AgentId, field: &str) -> SimField {
        let seed = world.try_borrow().map_or(0, |w| w.spec().seed);
        SimField {
            rng: Rng::named(seed, &format!("sensor:{}:{field}", agent.0)),
            world,
            agent,
            field: field.to_string(),
            noise: 0.0,
            range: None,
            name: format!("sim field {field}"),
        }
    }

    /// Adds seeded uniform noise of this amplitude. Each sensor has its own stream, so the
    /// noise of one does not depend on how often the others are read.
    pub fn with_noise(mut self, amplitude: f64) -> SimField {
        self.noise = amplitude.abs();
        self
    }

    /// Clamps reads to the sensor's declared range (`num in 0..100`).
    pub fn clamped(mut self, lo: f64, hi: f64) -> SimField {
        self.range = Some((lo.min(hi), hi.max(lo)));
        self
    }
}

impl Sensor for SimField {
    fn read(&mut self) -> Result<Reading, DeviceError> {
        let w = world(&self.world, &self.name)?;
        let mut v = w.field(&self.field, self.agent).ok_or_else(|| {
            DeviceError::unavailable(
                &self.name,
                format!(
                    "the world has no field `{}` or no agent {}",
                    self.field, self.agent.0
                ),
            )
        })?;
        if self.noise > 0.0 {
            v += self.rng.uniform(-self.noise, self.noise);
        }
        if let Some((lo, hi)) = self.range {
            v = v.clamp(lo, hi);
        }
        Ok(Reading::Num(v))
    }
}

/// A camera that reads the label under its agent.
pub struct SimLabel {
    world: SharedWorld,
    agent: AgentId,
}

impl SimLabel {
    pub fn new(world: SharedWorld, agent: AgentId) -> SimLabel {
        SimLabel { world, agent }
    }
}

impl Sensor for SimLabel {
    fn read(&mut self) -> Result<Reading, DeviceError> {
        let w = world(&self.world, "sim camera")?;
        w.label_at(self.agent)
            .map(Reading::Label)
            .ok_or_else(|| DeviceError::unavailable("sim camera", "no label under the agent"))
    }
}

/// Odometry or GPS: the agent's position in metres.
pub struct SimPosition {
    world: SharedWorld,
    agent: AgentId,
}

impl SimPosition {
    pub fn new(world: SharedWorld, agent: AgentId) -> SimPosition {
        SimPosition { world, agent }
    }
}

impl Sensor for SimPosition {
    fn read(&mut self) -> Result<Reading, DeviceError> {
        let w = world(&self.world, "sim position")?;
        let p = w
            .position(self.agent)
            .ok_or_else(|| DeviceError::unavailable("sim position", "no such agent"))?;
        Ok(Reading::Point(p.x, p.y))
    }
}

/// What a [`SimLocator`] looks for.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    /// Another agent, by instance or program name (`distance_to(robot: refiller)`).
    Agent(String),
    /// A landmark by name (`place ball at ..`).
    Landmark(String),
    /// The closest landmark of a kind (the nearest mine, the nearest person).
    Nearest(LandmarkKind),
}

/// What a [`SimLocator`] reports about its target.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Locate {
    /// The distance in metres (`distance_to`, `ball_range`).
    Distance,
    /// Whether the target is within this many metres (`ball_detector`, `face_detector`).
    Within(f64),
    /// A reading that grows from 0 at `range` metres to 100 on top of the target
    /// (`metal_detector` over a mine).
    Strength(f64),
    /// The familiarity of the target person when within `range` metres, else 0
    /// (`face_familiarity`).
    Familiarity(f64),
}

/// A sensor that finds an agent or a landmark relative to its own agent.
pub struct SimLocator {
    world: SharedWorld,
    agent: AgentId,
    target: Target,
    locate: Locate,
}

impl SimLocator {
    pub fn new(world: SharedWorld, agent: AgentId, target: Target, locate: Locate) -> SimLocator {
        SimLocator {
            world,
            agent,
            target,
            locate,
        }
    }

    /// Points the sensor at another target (`distance_to(robot: refiller)` when `refiller`
    /// changes).
    pub fn retarget(&mut self, target: Target) {
        self.target = target;
    }
}

impl Sensor for SimLocator {
    fn read(&mut self) -> Result<Reading, DeviceError> {
        let w = world(&self.world, "sim locator")?;
        let here = w
            .position(self.agent)
            .ok_or_else(|| DeviceError::unavailable("sim locator", "no such agent"))?;
        let found = match &self.target {
            Target::Agent(name) => w
                .agent_by_name(name)
                .and_then(|id| w.position(id))
                .map(|p| (here.distance(p), None)),
            Target::Landmark(name) => w
                .landmark(name)
                .map(|l| (here.distance(l.position), l.familiarity)),
            Target::Nearest(kind) => w
                .nearest_landmark(self.agent, *kind)
                .map(|(l, d)| (d, l.familiarity)),
        };
        let Some((distance, familiarity)) = found else {
            return match self.locate {
                Locate::Distance => Err(DeviceError::unavailable(
                    "sim locator",
                    format!("{:?} is not in the world", self.target),
                )),
                Locate::Within(_) => Ok(Reading::Bool(false)),
                Locate::Strength(_) | Locate::Familiarity(_) => Ok(Reading::Num(0.0)),
            };
        };
        Ok(match self.locate {
            Locate::Distance => Reading::Num(distance),
            Locate::Within(range) => Reading::Bool(distance <= range),
            Locate::Strength(range) if range > 0.0 => {
                Reading::Num((100.0 * (1.0 - distance / range)).clamp(0.0, 100.0))
            }
            Locate::Strength(_) => Reading::Num(if distance == 0.0 { 100.0 } else { 0.0 }),
            Locate::Familiarity(range) => Reading::Num(if distance <= range {
                familiarity.unwrap_or(0.0)
            } else {
                0.0
            }),
        })
    }
}

/// An edge event raised by the world's script (`at 40s raise loud_noise on Navigator`): a
/// rising edge in the step whose window holds the scripted time, reported once.
pub struct SimEdgeEvent {
    world: SharedWorld,
    agent: AgentId,
    event: String,
    seen_step: Option<u64>,
}

impl SimEdgeEvent {
    pub fn new(world: SharedWorld, agent: AgentId, event: &str) -> SimEdgeEvent {
        SimEdgeEvent {
            world,
            agent,
            event: event.to_string(),
            seen_step: None,
        }
    }
}

impl EdgeSource for SimEdgeEvent {
    fn poll(&mut self) -> Result<Option<Edge>, DeviceError> {
        let w = world(&self.world, "sim edge")?;
        let step = w.steps();
        if self.seen_step == Some(step) {
            return Ok(None);
        }
        self.seen_step = Some(step);
        let raised = w.fired_events().iter().any(|e| match &e.action {
            EventAction::Raise { event, agent } => {
                event.name == self.event && w.targets(agent.as_ref()).contains(&self.agent)
            }
            _ => false,
        });
        Ok(raised.then_some(Edge::Rising))
    }
}

/// A grid robot's motor board: a step moves the agent one cell at once (the world's
/// occupancy sees it on the new cell), and the board reports `Moving` for the grid's
/// `move_time`, as the real board is busy while it travels.
pub struct SimGridMotor {
    world: SharedWorld,
    agent: AgentId,
    busy_until_ms: u64,
    blocked: bool,
    /// The step under way: the robot reaches the next cell when the move time is over, so
    /// until then it stands (and its camera reads) where it was.
    pending: Option<Direction>,
}

impl SimGridMotor {
    pub fn new(world: SharedWorld, agent: AgentId) -> SimGridMotor {
        SimGridMotor {
            world,
            agent,
            busy_until_ms: 0,
            blocked: false,
            pending: None,
        }
    }
}

impl SimGridMotor {
    /// Ends the step under way: the robot moves onto the next cell, unless another robot got
    /// there first.
    fn arrive(&mut self) -> Result<(), DeviceError> {
        let Some(d) = self.pending.take() else {
            return Ok(());
        };
        let mut w = world_mut(&self.world, "sim motor")?;
        self.blocked = w.try_move(self.agent, d).is_err();
        Ok(())
    }
}

impl Motor for SimGridMotor {
    fn command(&mut self, command: MotorCommand) -> Result<(), DeviceError> {
        let w = world_mut(&self.world, "sim motor")?;
        match command {
            MotorCommand::Step(d) => {
                if w.now_ms() < self.busy_until_ms {
                    return Err(DeviceError::Busy {
                        device: "sim motor".into(),
                    });
                }
                let move_time = w.spec().grid().map_or(0, |g| g.move_time_ms);
                // A step that cannot be made now (an edge, a blank cell, another robot) is
                // refused at once; otherwise the robot arrives when the move time is over.
                match w.can_move(self.agent, d) {
                    Ok(_) => {
                        self.blocked = false;
                        self.pending = Some(d);
                        self.busy_until_ms = w.now_ms().saturating_add(move_time);
                        if move_time == 0 {
                            drop(w);
                            self.arrive()?;
                        }
                    }
                    Err(_) => self.blocked = true,
                }
                Ok(())
            }
            MotorCommand::Stop => {
                // Stopped on the way: the robot stays on the cell it left.
                self.pending = None;
                self.busy_until_ms = w.now_ms();
                Ok(())
            }
            MotorCommand::Speeds { .. } => Err(DeviceError::config(
                "sim motor",
                "wheel speeds need an area world; a grid robot moves by steps",
            )),
        }
    }

    fn status(&mut self) -> Result<MotorStatus, DeviceError> {
        let due = world(&self.world, "sim motor")?.now_ms() >= self.busy_until_ms;
        if due && self.pending.is_some() {
            self.arrive()?;
        }
        let w = world(&self.world, "sim motor")?;
        Ok(if self.blocked {
            MotorStatus::Blocked
        } else if w.now_ms() < self.busy_until_ms {
            MotorStatus::Moving
        } else {
            MotorStatus::Idle
        })
    }
}

/// An ADS1115 on the simulated bus: each channel reads a world field (0..100 scaled to the
/// converter's 0..32767).
struct SimAdc {
    address: u8,
    fields: [Option<String>; 4],
    pointer: u8,
    /// The config register as last written, read back with OS = 1 (the simulated
    /// conversion is done at once).
    config: [u8; 2],
    conversion: i16,
}

/// A simulated I2C bus for one agent, with devices that answer the real drivers' protocols.
pub struct SimI2c {
    world: SharedWorld,
    agent: AgentId,
    adcs: Vec<SimAdc>,
}

/// The error of the simulated bus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimBusError(pub ErrorKind);

impl i2c::Error for SimBusError {
    fn kind(&self) -> ErrorKind {
        self.0
    }
}

impl SimI2c {
    pub fn new(world: SharedWorld, agent: AgentId) -> SimI2c {
        SimI2c {
            world,
            agent,
            adcs: Vec::new(),
        }
    }

    /// An ADS1115 at `address` whose channel n reads field `fields[n]`.
    pub fn with_ads1115(mut self, address: u8, fields: [Option<&str>; 4]) -> SimI2c {
        self.adcs.push(SimAdc {
            address,
            fields: fields.map(|f| f.map(str::to_string)),
            pointer: 0,
            config: [0x85, 0x83],
            conversion: 0,
        });
        self
    }

    fn adc_write(&mut self, i: usize, bytes: &[u8]) -> Result<(), SimBusError> {
        match bytes {
            [0x01, msb, lsb] => {
                let mux = (msb >> 4) & 0x07;
                let channel = usize::from(mux.checked_sub(4).ok_or(SimBusError(ErrorKind::Other))?);
                let value = match &self.adcs[i].fields[channel] {
                    Some(f) => {
                        let w = self
                            .world
                            .try_borrow()
                            .map_err(|_| SimBusError(ErrorKind::Other))?;
                        w.field(f, self.agent)
                            .ok_or(SimBusError(ErrorKind::Other))?
                    }
                    None => 0.0,
                };
                self.adcs[i].conversion =
                    (value.clamp(0.0, 100.0) / 100.0 * 32767.0).round() as i16;
                self.adcs[i].pointer = 0x01;
                self.adcs[i].config = [*msb, *lsb];
                Ok(())
            }
            [register] => {
                self.adcs[i].pointer = *register;
                Ok(())
            }
            _ => Err(SimBusError(ErrorKind::NoAcknowledge(
                NoAcknowledgeSource::Data,
            ))),
        }
    }
}

impl i2c::ErrorType for SimI2c {
    type Error = SimBusError;
}

impl I2c<SevenBitAddress> for SimI2c {
    fn transaction(
        &mut self,
        address: u8,
        operations: &mut [Operation<'_>],
    ) -> Result<(), Self::Error> {
        if let Some(i) = self.adcs.iter().position(|a| a.address == address) {
            for op in operations.iter_mut() {
                match op {
                    Operation::Write(bytes) => self.adc_write(i, bytes)?,
                    Operation::Read(buf) => {
                        let adc = &self.adcs[i];
                        let register = match adc.pointer {
                            0x00 => adc.conversion.to_be_bytes(),
                            0x01 => [adc.config[0] | 0x80, adc.config[1]],
                            _ => [0, 0],
                        };
                        if adc.pointer > 0x01 || buf.len() != 2 {
                            return Err(SimBusError(ErrorKind::NoAcknowledge(
                                NoAcknowledgeSource::Data,
                            )));
                        }
                        buf.copy_from_slice(&register);
                    }
                }
            }
            return Ok(());
        }
        Err(SimBusError(ErrorKind::NoAcknowledge(
            NoAcknowledgeSource::Address,
        )))
    }
}

/// A delay that does nothing: in simulation time moves only with the world's steps.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoDelay;

impl embedded_hal::delay::DelayNs for NoDelay {
    fn delay_ns(&mut self, _ns: u32) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::devices::ads1115::{Ads1115, Channel, Gain};
    use crate::world::Point;

    const FLOOR: &str = r#"world FloorGrid {
        grid 5 x 5 cell 24cm labels "OITWG / SDA.U / HXKVN / CMFRE / PQLBJ";
        field light = 50 { near O radius 2: 90; at X: 10; at K: 10; }
        field sound = 50 { near J radius 1: 80; }
        spawn Navigator at P;
        at 40s raise loud_noise on Navigator;
        seed 7;
    }"#;

    fn shared(src: &str) -> SharedWorld {
        Rc::new(RefCell::new(crate::test_support::world(src)))
    }

    const NAV: AgentId = AgentId(0);

    #[test]
    fn sensors_read_the_world_under_the_agent() {
        let w = shared(FLOOR);
        let mut light = SimField::new(w.clone(), NAV, "light");
        let mut camera = SimLabel::new(w.clone(), NAV);
        let mut motor = SimGridMotor::new(w.clone(), NAV);
        assert_eq!(camera.read(), Ok(Reading::Label('P')));
        assert_eq!(light.read(), Ok(Reading::Num(50.0)));
        // P -> C -> H: H is within two cells of O. On the way the robot is still where it
        // was; it reaches the next cell when the move time is over.
        motor.command(MotorCommand::Step(Direction::Up)).unwrap();
        assert_eq!(motor.status(), Ok(MotorStatus::Moving));
        assert_eq!(camera.read(), Ok(Reading::Label('P')));
        assert!(matches!(
            motor.command(MotorCommand::Step(Direction::Up)),
            Err(DeviceError::Busy { .. })
        ));
        w.borrow_mut().step(2000);
        assert_eq!(motor.status(), Ok(MotorStatus::Idle));
        assert_eq!(camera.read(), Ok(Reading::Label('C')));
        motor.command(MotorCommand::Step(Direction::Up)).unwrap();
        w.borrow_mut().step(2000);
        assert_eq!(motor.status(), Ok(MotorStatus::Idle));
        assert_eq!(camera.read(), Ok(Reading::Label('H')));
        assert_eq!(light.read(), Ok(Reading::Num(90.0)));
        // Into the left edge: the board reports the step was not made.
        motor.command(MotorCommand::Step(Direction::Left)).unwrap();
        assert_eq!(motor.status(), Ok(MotorStatus::Blocked));
        let mut pos = SimPosition::new(w.clone(), NAV);
        assert!(matches!(pos.read(), Ok(Reading::Point(x, _)) if (x - 0.12).abs() < 1e-12));
        assert!(matches!(
            SimField::new(w, NAV, "smell").read(),
            Err(DeviceError::Unavailable { .. })
        ));
    }

    #[test]
    fn noise_is_seeded_and_bounded() {
        let w = shared(FLOOR);
        let reads = |w: &SharedWorld| {
            let mut s = SimField::new(w.clone(), NAV, "sound")
                .with_noise(5.0)
                .clamped(0.0, 100.0);
            (0..100)
                .map(|_| s.read().unwrap().as_num().unwrap())
                .collect::<Vec<f64>>()
        };
        let a = reads(&w);
        assert_eq!(a, reads(&w));
        assert!(a.iter().all(|v| (45.0..=55.0).contains(v)));
        assert!(a.iter().any(|v| *v != 50.0));
    }

    #[test]
    fn scripted_events_fire_the_edge_once() {
        let w = shared(FLOOR);
        let mut edge = SimEdgeEvent::new(w.clone(), NAV, "loud_noise");
        let mut other = SimEdgeEvent::new(w.clone(), NAV, "bell");
        let mut edges = Vec::new();
        for _ in 0..600 {
            w.borrow_mut().step(100);
            if edge.poll().unwrap().is_some() {
                edges.push(w.borrow().now_ms());
            }
            assert_eq!(edge.poll(), Ok(None), "once per step");
            assert_eq!(other.poll(), Ok(None));
        }
        assert_eq!(edges, vec![40_000]);
    }

    #[test]
    fn locators_find_agents_and_landmarks() {
        let w = shared(
            r#"world LivingRoom {
            area 5m x 4m;
            place ball at (3.5m, 1m);
            person Alice at (4.5m, 3.5m) familiarity 90;
            mines (1m, 3m);
            spawn QRIO at (1m, 1m);
            spawn Other at (1m, 2m);
        }"#,
        );
        let q = AgentId(0);
        let read =
            |target: Target, locate: Locate| SimLocator::new(w.clone(), q, target, locate).read();
        assert_eq!(
            read(Target::Landmark("ball".into()), Locate::Distance),
            Ok(Reading::Num(2.5))
        );
        assert_eq!(
            read(Target::Landmark("ball".into()), Locate::Within(2.0)),
            Ok(Reading::Bool(false))
        );
        assert_eq!(
            read(Target::Agent("Other".into()), Locate::Distance),
            Ok(Reading::Num(1.0))
        );
        assert_eq!(
            read(Target::Nearest(LandmarkKind::Mine), Locate::Strength(4.0)),
            Ok(Reading::Num(50.0))
        );
        assert_eq!(
            read(
                Target::Nearest(LandmarkKind::Person),
                Locate::Familiarity(5.0)
            ),
            Ok(Reading::Num(90.0))
        );
        assert_eq!(
            read(
                Target::Nearest(LandmarkKind::Person),
                Locate::Familiarity(1.0)
            ),
            Ok(Reading::Num(0.0))
        );
        assert!(read(Target::Agent("Nobody".into()), Locate::Distance).is_err());
        assert_eq!(
            read(Target::Landmark("charger".into()), Locate::Within(9.0)),
            Ok(Reading::Bool(false))
        );
        assert!(w
            .borrow_mut()
            .set_landmark_position("ball", Point::new(1.0, 1.5)));
        assert_eq!(
            read(Target::Landmark("ball".into()), Locate::Within(2.0)),
            Ok(Reading::Bool(true))
        );
    }

    #[test]
    fn a_held_world_is_busy_not_a_panic() {
        let w = shared(FLOOR);
        let mut camera = SimLabel::new(w.clone(), NAV);
        let _held = w.borrow_mut();
        assert!(matches!(camera.read(), Err(DeviceError::Busy { .. })));
    }

    #[test]
    fn the_real_adc_driver_runs_on_the_simulated_bus() {
        let w = shared(FLOOR);
        let bus = SimI2c::new(w.clone(), NAV)
            .with_ads1115(0x48, [Some("light"), Some("sound"), None, None]);
        let mut adc = Ads1115::new(bus, NoDelay, 0x48);
        let mut motor = SimGridMotor::new(w.clone(), NAV);
        let light =
            |adc: &mut Ads1115<_, _>| adc.read(Channel::new(0).unwrap(), Gain::V4_096).unwrap();
        assert!((light(&mut adc) - 50.0).abs() < 0.01);
        for _ in 0..2 {
            motor.command(MotorCommand::Step(Direction::Up)).unwrap();
            w.borrow_mut().step(2000);
            assert_eq!(motor.status(), Ok(MotorStatus::Idle));
        }
        assert!((light(&mut adc) - 90.0).abs() < 0.01, "H is bright");
        let sound = adc.read(Channel::new(1).unwrap(), Gain::V2_048).unwrap();
        assert!((sound - 50.0).abs() < 0.01);
        let mut absent = Ads1115::new(SimI2c::new(w, NAV), NoDelay, 0x49);
        assert!(matches!(
            absent.read(Channel::new(0).unwrap(), Gain::V4_096),
            Err(DeviceError::Bus { .. })
        ));
    }
}
