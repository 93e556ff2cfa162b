//! An instance's declared sensors and events bound to simulated devices that read its world
//! (the ADS1115 through its real driver on a simulated I2C bus, the camera's label, the
//! odometry, field meters, distances to other robots, QRIO's senses), and the sense phase
//! that writes their readings to the machine's slots.

use super::host::AgentAffect;
use super::labels::symbol_text;
use super::qrio;
use crate::devices::ads1115::{Ads1115, SharedAdc};
use crate::devices::sim::{
    Locate, NoDelay, SharedWorld, SimEdgeEvent, SimField, SimI2c, SimLabel, SimLocator,
    SimPosition, Target,
};
use crate::devices::{DeviceError, EdgeSource, Reading, Sensor};
use crate::interp::Machine;
use crate::world::{AgentId, EventAction};
use affect_compiler::ir::program::{
    AgentProgram, Device, DeviceArg, DeviceRole, Program, SlotId, ValueKind,
};
use affect_compiler::ir::world::InitValue;
use std::cell::RefCell;
use std::rc::Rc;

/// A sensor bound to a slot.
struct BoundSensor {
    slot: SlotId,
    name: String,
    kind: ValueKind,
    range: Option<(f64, f64)>,
    device: Box<dyn Sensor>,
    /// A label sensor: what it reads marks the place visited.
    marks_visited: bool,
    /// `distance_to(robot: refiller)` with `refiller` a string variable: the variable's slot
    /// and the symbol the sensor is aimed at, re-aimed when the variable changes.
    follows: Option<(SlotId, f64)>,
}

/// An event bound to a slot: a device edge, or the world's `raise` aimed at this agent.
struct BoundEvent {
    slot: SlotId,
    name: String,
    device: Option<Box<dyn EdgeSource>>,
}

/// What went wrong in the sense phase: (device, error), for the trace.
pub type SenseErrors = Vec<(String, DeviceError)>;

/// An instance's bound sensors and events (none outside a world).
#[derive(Default)]
pub struct Senses {
    sensors: Vec<BoundSensor>,
    events: Vec<BoundEvent>,
}

type SimAdc = SharedAdc<SimI2c, NoDelay>;

/// A number argument of a device declaration.
fn num_arg(d: &Device, name: &str) -> Option<f64> {
    d.args
        .iter()
        .find(|(n, _)| n == name)
        .and_then(|(_, v)| match v {
            DeviceArg::Num(x) => Some(*x),
            _ => None,
        })
}

/// The ADS1115 converters the agent's sensors use: channels of one address share one
/// converter on the agent's bus.
fn converters(agent: &AgentProgram, w: &SharedWorld, id: AgentId) -> Vec<(u8, SimAdc)> {
    let mut adcs: Vec<(u8, [Option<String>; 4])> = Vec::new();
    for d in agent
        .devices
        .iter()
        .filter(|d| d.role == DeviceRole::Sensor && d.driver == "ads1115")
    {
        let addr = num_arg(d, "address").unwrap_or(72.0) as u8;
        let ch = num_arg(d, "channel").unwrap_or(0.0) as usize;
        let entry = match adcs.iter_mut().find(|(a, _)| *a == addr) {
            Some(e) => e,
            None => {
                adcs.push((addr, [None, None, None, None]));
                adcs.last_mut().expect("pushed")
            }
        };
        if ch < 4 {
            entry.1[ch] = Some(d.name.clone());
        }
    }
    adcs.iter()
        .map(|(addr, fields)| {
            let refs = [
                fields[0].as_deref(),
                fields[1].as_deref(),
                fields[2].as_deref(),
                fields[3].as_deref(),
            ];
            let bus = SimI2c::new(w.clone(), id).with_ads1115(*addr, refs);
            (*addr, Ads1115::new(bus, NoDelay, *addr).into_shared())
        })
        .collect()
}

/// What a sensor device needs to be built.
struct Site<'a> {
    program: &'a Program,
    agent: &'a AgentProgram,
    machine: &'a Machine<'a>,
    world: &'a SharedWorld,
    id: AgentId,
    body: &'a Rc<qrio::Body>,
    adcs: &'a [(u8, SimAdc)],
}

/// `distance_to(robot: R)`: a string variable `R` names the robot (and may change; the
/// variable's slot and symbol come back to follow it); any other name is the robot's own.
fn distance_to(site: &Site, d: &Device) -> (Box<dyn Sensor>, Option<(SlotId, f64)>) {
    let robot = d.args.iter().find_map(|(n, v)| match (n.as_str(), v) {
        ("robot", DeviceArg::Name(r) | DeviceArg::Str(r)) => Some(r),
        _ => None,
    });
    let var = robot.and_then(|r| {
        site.agent
            .slots
            .iter()
            .position(|s| s.scope == 0 && s.name == *r && s.kind == ValueKind::Str)
    });
    let (target, follows) = match var {
        Some(v) => {
            let sym = site.machine.slots[v];
            (
                symbol_text(site.program, sym).to_string(),
                Some((v as SlotId, sym)),
            )
        }
        None => (robot.cloned().unwrap_or_default(), None),
    };
    let device = SimLocator::new(
        site.world.clone(),
        site.id,
        Target::Agent(target),
        Locate::Distance,
    );
    (Box::new(device), follows)
}

/// The simulated device for a sensor declaration, if the simulator has one for its driver.
#[allow(clippy::type_complexity)]
fn sensor_device(
    site: &Site,
    d: &Device,
) -> Result<Option<(Box<dyn Sensor>, Option<(SlotId, f64)>)>, String> {
    let (w, id) = (site.world, site.id);
    let device: Box<dyn Sensor> = match d.driver.as_str() {
        "distance_to" => return Ok(Some(distance_to(site, d))),
        "ads1115" => {
            let addr = num_arg(d, "address").unwrap_or(72.0) as u8;
            let ch = num_arg(d, "channel").unwrap_or(0.0) as u32;
            let gain = num_arg(d, "gain").unwrap_or(4.096);
            match site
                .adcs
                .iter()
                .find(|(a, _)| *a == addr)
                .map(|(_, adc)| adc.channel(ch, gain))
            {
                Some(Ok(c)) => Box::new(c),
                Some(Err(e)) => return Err(format!("sensor `{}`: {e}", d.name)),
                None => return Ok(None),
            }
        }
        "camera_label" => Box::new(SimLabel::new(w.clone(), id)),
        "gps" | "odometry" => Box::new(SimPosition::new(w.clone(), id)),
        "field_meter" => {
            let field = d.args.iter().find_map(|(n, v)| match (n.as_str(), v) {
                ("field", DeviceArg::Str(f)) => Some(f.clone()),
                _ => None,
            });
            Box::new(SimField::new(
                w.clone(),
                id,
                field.as_deref().unwrap_or(&d.name),
            ))
        }
        other => {
            // The spawn's value for the sensor starts it (`battery 60`).
            let initial = w.borrow().agent(id).and_then(|a| {
                a.init.iter().find_map(|(n, v)| match v {
                    InitValue::Num { value, .. } if n.name == d.name => Some(*value),
                    _ => None,
                })
            });
            match qrio::sensor(other, w.clone(), id, site.body.clone(), initial) {
                Some(s) => s,
                None => return Ok(None),
            }
        }
    };
    Ok(Some((device, None)))
}

/// Binds the agent's sensors and events to simulated devices in its world.
pub fn bind(
    program: &Program,
    agent: &AgentProgram,
    machine: &Machine,
    world: &SharedWorld,
    id: AgentId,
    body: &Rc<qrio::Body>,
) -> Result<Senses, String> {
    let adcs = converters(agent, world, id);
    let site = Site {
        program,
        agent,
        machine,
        world,
        id,
        body,
        adcs: &adcs,
    };
    let mut out = Senses::default();
    for d in &agent.devices {
        let Some(slot) = d.slot else { continue };
        let s = &agent.slots[slot as usize];
        match d.role {
            DeviceRole::Sensor => {
                if let Some((device, follows)) = sensor_device(&site, d)? {
                    out.sensors.push(BoundSensor {
                        slot,
                        name: d.name.clone(),
                        kind: s.kind,
                        range: s.range,
                        marks_visited: d.driver == "camera_label",
                        follows,
                        device,
                    });
                }
            }
            DeviceRole::Event => {
                let device: Option<Box<dyn EdgeSource>> = match d.driver.as_str() {
                    "gpio_edge" => Some(Box::new(SimEdgeEvent::new(world.clone(), id, &d.name))),
                    _ => None,
                };
                out.events.push(BoundEvent {
                    slot,
                    name: d.name.clone(),
                    device,
                });
            }
            DeviceRole::Actuator => {}
        }
    }
    Ok(out)
}

impl Senses {
    /// Binds the sensor on `slot` to `device` (the robot's, a recording's), in place of the
    /// simulated one if there is one.
    pub fn bind_sensor(
        &mut self,
        slot: SlotId,
        name: &str,
        kind: ValueKind,
        range: Option<(f64, f64)>,
        device: Box<dyn Sensor>,
    ) {
        self.sensors.retain(|s| s.slot != slot);
        self.sensors.push(BoundSensor {
            slot,
            name: name.to_string(),
            kind,
            range,
            device,
            marks_visited: false,
            follows: None,
        });
    }

    /// Binds the event on `slot` to `device`, in place of the simulated one.
    pub fn bind_event(&mut self, slot: SlotId, name: &str, device: Box<dyn EdgeSource>) {
        self.events.retain(|e| e.slot != slot);
        self.events.push(BoundEvent {
            slot,
            name: name.to_string(),
            device: Some(device),
        });
    }

    /// The sense phase: sensors write their slots (only when the reading changes), events
    /// fire for this tick. A failed read keeps the last value and is reported.
    pub fn sense(
        &mut self,
        program: &Program,
        machine: &mut Machine,
        affect: &RefCell<AgentAffect>,
        world: Option<(&SharedWorld, AgentId)>,
        errors: &mut SenseErrors,
    ) {
        for s in &mut self.sensors {
            if let (Some((slot, aimed)), Some((w, id))) = (&mut s.follows, world) {
                let now = machine.slots[*slot as usize];
                if now.to_bits() != aimed.to_bits() {
                    *aimed = now;
                    let target = Target::Agent(symbol_text(program, now).to_string());
                    s.device = Box::new(SimLocator::new(w.clone(), id, target, Locate::Distance));
                }
            }
            match s.device.read() {
                Ok(r) => {
                    let v = match (r, s.kind) {
                        (Reading::Num(x), _) => match s.range {
                            Some((lo, hi)) => x.clamp(lo, hi),
                            None => x,
                        },
                        (Reading::Bool(b), _) => f64::from(u8::from(b)),
                        (Reading::Label(c), _) => {
                            program.symbol(&c.to_string()).map(f64::from).unwrap_or(0.0)
                        }
                        (Reading::Point(x, y), ValueKind::List) => {
                            let id = machine.slots[s.slot as usize];
                            if machine.lists.values(id) != [x, y] {
                                machine.lists.set(id, &[x, y]);
                                machine.write(s.slot, id);
                            }
                            continue;
                        }
                        (Reading::Point(x, _), _) => x,
                    };
                    machine.write_if_changed(s.slot, v);
                    if s.marks_visited {
                        let sym = v as u32;
                        let mut a = affect.borrow_mut();
                        if a.visited.last() != Some(&sym) {
                            a.visited.retain(|x| *x != sym);
                            a.visited.push(sym);
                        }
                    }
                }
                Err(e) => errors.push((s.name.clone(), e)),
            }
        }
        for e in &mut self.events {
            let fired = match (&mut e.device, world) {
                (Some(d), _) => match d.poll() {
                    Ok(edge) => edge.is_some(),
                    Err(err) => {
                        errors.push((e.name.clone(), err));
                        false
                    }
                },
                (None, Some((w, id))) => {
                    let w = w.borrow();
                    w.fired_events().iter().any(|ev| match &ev.action {
                        EventAction::Raise { event, agent } => {
                            event.name == e.name && w.targets(agent.as_ref()).contains(&id)
                        }
                        _ => false,
                    })
                }
                (None, None) => false,
            };
            machine.write_if_changed(e.slot, f64::from(u8::from(fired)));
        }
    }
}
