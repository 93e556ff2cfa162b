//! Running agents in a simulated world: each spawned agent gets a machine, its devices are
//! bound to simulated devices that read the world (the ADS1115 through its real driver on a
//! simulated I2C bus), its declared leaves to simulator implementations where there are
//! some, and its memories and world questions to a host.

pub mod area_leaves;
pub mod host;
pub mod leaves;
pub mod minefield;
pub mod qrio;
pub mod team;

use crate::affect::persist::{self, Stored};
use crate::affect::{Memory, Trace};
use crate::devices::ads1115::Ads1115;
use crate::devices::sim::{
    Locate, NoDelay, SharedWorld, SimEdgeEvent, SimField, SimI2c, SimLabel, SimLocator,
    SimPosition, Target,
};
use crate::devices::{DeviceError, EdgeSource, Reading, Sensor};
use crate::interp::Machine;
use crate::leaf::{LeafTable, StandIn};
use crate::rng::Rng;
use crate::world::{AgentId, EventAction, World};
use affect_compiler::ir::program::{
    AgentProgram, DeviceArg, DeviceRole, NodeKind, Program, SlotId, Status, ValueKind,
};
use affect_compiler::ir::world::InitValue;
use host::{AgentAffect, AgentHost};
use std::cell::RefCell;
use std::rc::Rc;

/// Grid labels and their string symbols.
pub struct Labels {
    pairs: Vec<(char, u32)>,
}

impl Labels {
    pub fn new(program: &Program, world: Option<&World>) -> Labels {
        let mut pairs = Vec::new();
        if let Some(g) = world.and_then(|w| w.spec().grid()) {
            for c in g.labels.iter().flatten() {
                if let Some(s) = program.symbol(&c.to_string()) {
                    if !pairs.iter().any(|(x, _)| x == c) {
                        pairs.push((*c, s));
                    }
                }
            }
        }
        Labels { pairs }
    }

    pub fn symbol_of(&self, c: char) -> Option<u32> {
        self.pairs.iter().find(|(x, _)| *x == c).map(|(_, s)| *s)
    }

    pub fn char_of(&self, symbol: f64) -> Option<char> {
        if symbol.is_nan() || symbol < 0.0 {
            return None;
        }
        let s = symbol as u32;
        self.pairs.iter().find(|(_, x)| *x == s).map(|(c, _)| *c)
    }

    pub fn symbols(&self) -> impl Iterator<Item = u32> + '_ {
        self.pairs.iter().map(|(_, s)| *s)
    }
}

/// The text of a string symbol (empty for none).
fn symbol_text(program: &Program, symbol: f64) -> &str {
    if symbol.is_nan() || symbol < 0.0 {
        return "";
    }
    program
        .strings
        .get(symbol as usize)
        .map_or("", String::as_str)
}

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

/// One agent instance in a run.
pub struct SimAgent<'p> {
    pub machine: Machine<'p>,
    pub program: &'p AgentProgram,
    /// The instance's name (`UGV#2` when a world spawns a program several times).
    pub name: String,
    pub world_id: Option<AgentId>,
    pub affect: Rc<RefCell<AgentAffect>>,
    sensors: Vec<BoundSensor>,
    events: Vec<BoundEvent>,
    /// Declared leaves bound to nothing: they ran as stand-ins.
    pub stand_ins: Vec<String>,
    /// Recruitment and components (`team`): call `before_tick` before the process phase
    /// and `flush` after the tick.
    pub team: team::Link,
}

/// A problem found while setting agents up (an unreadable memory file, ...).
pub type SetupError = String;

pub struct Setup<'a> {
    pub leaf_default: Status,
    pub leaves: &'a [(String, Vec<Status>)],
    pub seed: u64,
    /// Where `persist` files live (the program's directory); `None` keeps memories in memory.
    pub persist_dir: Option<std::path::PathBuf>,
    /// The run's commands between robots (`SendCommand`); every instance built registers.
    pub mail: area_leaves::SharedMail,
    /// What the run's instances share for recruitment and components (`team`).
    pub team: team::SharedTeam,
    /// Wraps every foreign node's implementation (`RunConfig::wrap_leaves`).
    pub wrap: Option<crate::leaf::LeafWrap>,
}

fn stand_in_for(
    node: &affect_compiler::ir::program::Node,
    info_name: &str,
    setup: &Setup,
) -> Vec<Status> {
    setup
        .leaves
        .iter()
        .find(|(k, _)| *k == node.path)
        .or_else(|| setup.leaves.iter().find(|(k, _)| *k == node.name))
        .or_else(|| setup.leaves.iter().find(|(k, _)| *k == info_name))
        .map(|(_, s)| s.clone())
        .unwrap_or_else(|| vec![setup.leaf_default])
}

/// Builds one agent instance: machine, leaves, devices, memories.
pub fn build_agent<'p>(
    program: &'p Program,
    agent: &'p AgentProgram,
    name: String,
    world: Option<(SharedWorld, AgentId)>,
    setup: &Setup,
) -> Result<SimAgent<'p>, SetupError> {
    let labels = Rc::new(match &world {
        Some((w, _)) => Labels::new(program, Some(&w.borrow())),
        None => Labels::new(program, None),
    });
    let enums = Rc::new(program.enums.clone());
    let mut memories = Vec::new();
    for spec in &agent.memories {
        let mut m = Memory::new(spec.clone());
        if let (Some(file), Some(dir)) = (&spec.persist, &setup.persist_dir) {
            let path = dir.join(file);
            if path.exists() {
                let text = std::fs::read_to_string(&path).map_err(|e| {
                    format!("cannot read long-term memory `{}`: {e}", path.display())
                })?;
                let stored = persist::parse(&text).map_err(|e| {
                    format!("`{}` is not a long-term memory this version can read ({e}); it was left untouched — move it away to start afresh", path.display())
                })?;
                if let Some(s) = stored.iter().find(|s| s.name == spec.name) {
                    let traces = s
                        .traces
                        .iter()
                        .filter_map(|(k, score, fam)| {
                            program.symbol(k).map(|key| Trace {
                                key,
                                score: *score,
                                familiarity: *fam,
                            })
                        })
                        .collect();
                    m.set_long_term(traces);
                    let links = s
                        .links
                        .iter()
                        .filter_map(|(a, b)| Some((program.symbol(a)?, program.symbol(b)?)))
                        .collect();
                    m.set_links(links);
                }
            }
        }
        memories.push(m);
    }
    let affect = Rc::new(RefCell::new(AgentAffect {
        memories,
        visited: Vec::new(),
        logs: Vec::new(),
    }));

    setup.mail.borrow_mut().register(program, agent, &name);
    // QRIO's head and camera, shared by its leaves and sensors (`qrio`).
    let body = Rc::new(qrio::Body::default());
    let area = Rc::new(area_leaves::AreaAgent::new(
        &name,
        agent.rate_hz,
        Rc::new(program.strings.clone()),
        setup.mail.clone(),
        setup.seed,
    ));
    let link = team::join(&setup.team, program, agent, &name, world.clone());
    let mut table = LeafTable::new(agent.nodes.len());
    let mut stand_ins: Vec<String> = Vec::new();
    for (i, node) in agent.nodes.iter().enumerate() {
        let NodeKind::Foreign { leaf, .. } = &node.kind else {
            continue;
        };
        let info = &program.leaves[*leaf as usize];
        let overridden = setup
            .leaves
            .iter()
            .any(|(k, _)| *k == node.path || *k == node.name || *k == info.name);
        let simulated = match (&world, overridden) {
            (Some((w, id)), false) => team::bind(info, &link).or_else(|| {
                leaves::bind(
                    info,
                    &leaves::LeafEnv {
                        world: w.clone(),
                        agent: *id,
                        labels: labels.clone(),
                        enums: enums.clone(),
                        affect: affect.clone(),
                        area: area.clone(),
                        body: body.clone(),
                    },
                )
            }),
            _ => None,
        };
        let bound: Box<dyn crate::leaf::Leaf> = match simulated {
            Some(l) => l,
            None => {
                if !stand_ins.contains(&info.name) {
                    stand_ins.push(info.name.clone());
                }
                Box::new(StandIn::new(stand_in_for(node, &info.name, setup)))
            }
        };
        match &setup.wrap {
            Some(wrap) => table.set(i as u32, (wrap.0)(&name, i as u32, bound)),
            None => table.set(i as u32, bound),
        }
    }
    let mut machine = Machine::new(program, agent, table);
    machine.default_leaf = setup.leaf_default;
    let seed = setup.seed
        ^ (world.as_ref().map_or(0, |(_, id)| id.0 as u64 + 1)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    machine.host = Some(Box::new(AgentHost {
        affect: affect.clone(),
        world: world.clone(),
        labels: labels.clone(),
        enums: enums.clone(),
        rng: Rng::named(seed, "unvisited"),
    }));
    team::wrap_host(&mut machine, &link);

    let mut sensors = Vec::new();
    let mut events = Vec::new();
    if let Some((w, id)) = &world {
        // The world's spawn sets initial values (`spawn QRIO at (1m, 2m) battery 60`).
        let inits = w
            .borrow()
            .agent(*id)
            .map(|a| a.init.clone())
            .unwrap_or_default();
        for (name, value) in inits {
            let Some(slot) = agent
                .slots
                .iter()
                .position(|s| s.scope == 0 && s.name == name.name)
            else {
                continue;
            };
            let v = match value {
                InitValue::Num { value, .. } => value,
                InitValue::Bool(b) => f64::from(u8::from(b)),
                InitValue::Str(s) | InitValue::Name(s) => match agent.slots[slot].kind {
                    ValueKind::Enum(e) => program.enums[e as usize]
                        .variants
                        .iter()
                        .position(|v| *v == s)
                        .map(|i| i as f64)
                        .unwrap_or(0.0),
                    _ => program.symbol(&s).map(f64::from).unwrap_or(0.0),
                },
                InitValue::Point(p) => {
                    let id = machine.slots[slot];
                    machine.lists.set(id, &[p.x, p.y]);
                    continue;
                }
            };
            machine.write(slot as SlotId, v);
        }
        // ADS1115 channels of one address share one converter on the agent's bus.
        let mut adcs: Vec<(u8, [Option<String>; 4])> = Vec::new();
        for d in agent
            .devices
            .iter()
            .filter(|d| d.role == DeviceRole::Sensor && d.driver == "ads1115")
        {
            let num = |k: &str| {
                d.args
                    .iter()
                    .find(|(n, _)| n == k)
                    .and_then(|(_, v)| match v {
                        DeviceArg::Num(x) => Some(*x),
                        _ => None,
                    })
            };
            let (addr, ch) = (
                num("address").unwrap_or(72.0) as u8,
                num("channel").unwrap_or(0.0) as usize,
            );
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
        let mut shared_adcs = Vec::new();
        for (addr, fields) in &adcs {
            let refs = [
                fields[0].as_deref(),
                fields[1].as_deref(),
                fields[2].as_deref(),
                fields[3].as_deref(),
            ];
            let bus = SimI2c::new(w.clone(), *id).with_ads1115(*addr, refs);
            shared_adcs.push((*addr, Ads1115::new(bus, NoDelay, *addr).into_shared()));
        }
        for d in &agent.devices {
            let Some(slot) = d.slot else { continue };
            let s = &agent.slots[slot as usize];
            match d.role {
                DeviceRole::Sensor => {
                    let mut follows = None;
                    let device: Option<Box<dyn Sensor>> = match d.driver.as_str() {
                        "distance_to" => {
                            let robot = d.args.iter().find_map(|(n, v)| match (n.as_str(), v) {
                                ("robot", DeviceArg::Name(r) | DeviceArg::Str(r)) => Some(r),
                                _ => None,
                            });
                            // A string variable names the robot (and may change); any other
                            // name is the robot's own.
                            let var = robot.and_then(|r| {
                                agent.slots.iter().position(|s| {
                                    s.scope == 0 && s.name == *r && s.kind == ValueKind::Str
                                })
                            });
                            let target = match var {
                                Some(v) => {
                                    let sym = machine.slots[v];
                                    follows = Some((v as SlotId, sym));
                                    symbol_text(program, sym).to_string()
                                }
                                None => robot.cloned().unwrap_or_default(),
                            };
                            Some(Box::new(SimLocator::new(
                                w.clone(),
                                *id,
                                Target::Agent(target),
                                Locate::Distance,
                            )))
                        }
                        "ads1115" => {
                            let num = |k: &str| {
                                d.args
                                    .iter()
                                    .find(|(n, _)| n == k)
                                    .and_then(|(_, v)| match v {
                                        DeviceArg::Num(x) => Some(*x),
                                        _ => None,
                                    })
                            };
                            let addr = num("address").unwrap_or(72.0) as u8;
                            let ch = num("channel").unwrap_or(0.0) as u32;
                            let gain = num("gain").unwrap_or(4.096);
                            match shared_adcs
                                .iter()
                                .find(|(a, _)| *a == addr)
                                .map(|(_, adc)| adc.channel(ch, gain))
                            {
                                Some(Ok(c)) => Some(Box::new(c) as Box<dyn Sensor>),
                                Some(Err(e)) => return Err(format!("sensor `{}`: {e}", d.name)),
                                None => None,
                            }
                        }
                        "camera_label" => Some(Box::new(SimLabel::new(w.clone(), *id))),
                        "gps" | "odometry" => Some(Box::new(SimPosition::new(w.clone(), *id))),
                        "field_meter" => {
                            let field = d.args.iter().find_map(|(n, v)| match (n.as_str(), v) {
                                ("field", DeviceArg::Str(f)) => Some(f.clone()),
                                _ => None,
                            });
                            Some(Box::new(SimField::new(
                                w.clone(),
                                *id,
                                field.as_deref().unwrap_or(&d.name),
                            )))
                        }
                        other => {
                            // The spawn's value for the sensor starts it (`battery 60`).
                            let initial = w.borrow().agent(*id).and_then(|a| {
                                a.init.iter().find_map(|(n, v)| match v {
                                    InitValue::Num { value, .. } if n.name == d.name => {
                                        Some(*value)
                                    }
                                    _ => None,
                                })
                            });
                            qrio::sensor(other, w.clone(), *id, body.clone(), initial)
                        }
                    };
                    if let Some(device) = device {
                        sensors.push(BoundSensor {
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
                        "gpio_edge" => Some(Box::new(SimEdgeEvent::new(w.clone(), *id, &d.name))),
                        _ => None,
                    };
                    events.push(BoundEvent {
                        slot,
                        name: d.name.clone(),
                        device,
                    });
                }
                DeviceRole::Actuator => {}
            }
        }
    }
    Ok(SimAgent {
        machine,
        program: agent,
        name,
        world_id: world.map(|(_, id)| id),
        affect,
        sensors,
        events,
        stand_ins,
        team: link,
    })
}

/// What went wrong in the sense phase: (device, error), for the trace.
pub type SenseErrors = Vec<(String, DeviceError)>;

impl SimAgent<'_> {
    /// The sense phase: sensors write their slots (only when the reading changes), events
    /// fire for this tick. A failed read keeps the last value and is reported.
    pub fn sense(
        &mut self,
        program: &Program,
        world: Option<&SharedWorld>,
        errors: &mut SenseErrors,
    ) {
        for s in &mut self.sensors {
            if let (Some((slot, aimed)), Some(w), Some(id)) = (&mut s.follows, world, self.world_id)
            {
                let now = self.machine.slots[*slot as usize];
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
                            let id = self.machine.slots[s.slot as usize];
                            if self.machine.lists.values(id) != [x, y] {
                                self.machine.lists.set(id, &[x, y]);
                                self.machine.write(s.slot, id);
                            }
                            continue;
                        }
                        (Reading::Point(x, _), _) => x,
                    };
                    self.machine.write_if_changed(s.slot, v);
                    if s.marks_visited {
                        let sym = v as u32;
                        let mut a = self.affect.borrow_mut();
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
            let mut fired = match &mut e.device {
                Some(d) => match d.poll() {
                    Ok(edge) => edge.is_some(),
                    Err(err) => {
                        errors.push((e.name.clone(), err));
                        false
                    }
                },
                None => false,
            };
            if e.device.is_none() {
                if let (Some(w), Some(id)) = (world, self.world_id) {
                    let w = w.borrow();
                    fired = w.fired_events().iter().any(|ev| match &ev.action {
                        EventAction::Raise { event, agent } => {
                            event.name == e.name && w.targets(agent.as_ref()).contains(&id)
                        }
                        _ => false,
                    });
                }
            }
            self.machine
                .write_if_changed(e.slot, f64::from(u8::from(fired)));
        }
    }

    /// Long-term memories to save: (file, contents) for each `persist`ed memory.
    pub fn stored_memories(&self, program: &Program) -> Vec<(String, Stored)> {
        let affect = self.affect.borrow();
        affect
            .memories
            .iter()
            .filter_map(|m| {
                let file = m.spec.persist.clone()?;
                let traces = m
                    .long_term()
                    .iter()
                    .map(|t| {
                        (
                            program
                                .strings
                                .get(t.key as usize)
                                .cloned()
                                .unwrap_or_default(),
                            t.score,
                            t.familiarity,
                        )
                    })
                    .collect();
                let name = |k: u32| program.strings.get(k as usize).cloned().unwrap_or_default();
                let links = m.links().iter().map(|&(a, b)| (name(a), name(b))).collect();
                Some((
                    file,
                    Stored {
                        name: m.spec.name.clone(),
                        traces,
                        links,
                    },
                ))
            })
            .collect()
    }
}
