//! Running agents in a simulated world: each spawned agent gets a machine, its devices are
//! bound to simulated devices that read the world ([`sensors`]), its declared leaves to
//! simulator implementations where there are some ([`bind_leaf`], the one place that knows
//! every leaf family and the order they are tried in), and its memories and world questions
//! to a host.

pub mod area_leaves;
pub mod astronaut;
pub mod call_route;
pub mod calls;
pub mod env;
pub mod grid_leaves;
pub mod host;
pub mod labels;
pub mod mail;
pub mod memories;
pub mod minefield;
pub mod qrio;
pub mod sensors;
pub mod team;

use crate::affect::persist::Stored;
use crate::devices::sim::SharedWorld;
use crate::interp::Machine;
use crate::leaf::{Leaf, LeafSource, LeafTable, StandIn};
use crate::rng::Rng;
use crate::world::AgentId;
use affect_compiler::ir::program::PortDir;
use affect_compiler::ir::program::{
    AgentProgram, EnumInfo, LeafInfo, NodeKind, PortBinding, Program, SlotId, Status, ValueKind,
};
use affect_compiler::ir::world::InitValue;
use area_leaves::AreaAgent;
use env::LeafEnv;
use host::{AgentAffect, AgentHost};
use labels::Labels;
pub use sensors::SenseErrors;
use std::cell::RefCell;
use std::rc::Rc;

/// One agent instance in a run.
pub struct SimAgent<'p> {
    pub machine: Machine<'p>,
    pub program: &'p AgentProgram,
    /// The instance's name (`UGV#2` when a world spawns a program several times).
    pub name: String,
    pub world_id: Option<AgentId>,
    pub affect: Rc<RefCell<AgentAffect>>,
    senses: sensors::Senses,
    /// Declared leaves bound to nothing: they ran as stand-ins.
    pub stand_ins: Vec<String>,
    /// The stand-ins' out ports bound to a variable that no `--leaf-out` sets.
    pub quiet_outputs: Vec<QuietOutput>,
    /// Declared leaves the simulator implements for this instance (`Move` in a grid world).
    pub simulated_leaves: Vec<String>,
    /// Recruitment and components (`team`): call `before_tick` before the process phase
    /// and `flush` after the tick.
    pub team: team::Link,
}

/// An out port of a stand-in that writes nothing to it: the declared leaf, the port and the
/// variable it is bound to.
#[derive(Clone, Debug, PartialEq)]
pub struct QuietOutput {
    pub leaf: String,
    pub port: String,
    pub slot: SlotId,
}

/// A problem found while setting agents up (an unreadable memory file, ...).
pub type SetupError = String;

pub struct Setup<'a> {
    pub leaf_default: Status,
    /// `--leaf` and `--leaf-cycle`.
    pub leaves: &'a [crate::leaf::LeafScript],
    /// `--leaf-out`, checked and read (`run::stand_ins`).
    pub writes: Vec<crate::leaf::StandInWrite>,
    pub seed: u64,
    /// The memory files the run read (`persist`); `None` keeps memories in memory.
    pub memory_files: Option<&'a crate::affect::persist::Files>,
    /// The run's commands between robots (`SendCommand`); every instance built registers.
    pub mail: mail::SharedMail,
    /// What the run's instances share for recruitment and components (`team`).
    pub team: team::SharedTeam,
    /// Wraps every foreign node's implementation (`RunConfig::wrap_leaves`).
    pub wrap: Option<crate::leaf::LeafWrap>,
    /// Hooks around the other nodes (`RunConfig::hook_nodes`).
    pub hook_nodes: Option<crate::node_hooks::NodeHookFn>,
    /// Leaves implemented outside the simulator (the user's own nodes, the robot's
    /// devices), tried in order before the simulator's; `--leaf` still overrides them.
    pub sources: &'a [&'a dyn LeafSource],
    /// The program's strings and enums, one copy for every instance (a copy each made 10,000
    /// robots take gigabytes: the strings name every instance).
    pub strings: Rc<Vec<String>>,
    pub enums: Rc<Vec<EnumInfo>>,
}

/// The stand-in of a foreign node: the statuses of the most specific `--leaf` or
/// `--leaf-cycle` that names it (by path, then label, then declared name), else
/// `--leaf-default`; and the `--leaf-out` values it writes. With it, the out ports bound to
/// a variable that it leaves alone.
fn stand_in_for(
    agent: &AgentProgram,
    i: usize,
    info: &LeafInfo,
    setup: &Setup,
) -> (StandIn, Vec<QuietOutput>) {
    let node = &agent.nodes[i];
    let script = (setup.leaves.iter())
        .filter_map(|l| crate::leaf::rank(node, info, &l.key).map(|r| (r, l)))
        .min_by_key(|(r, _)| *r)
        .map(|(_, l)| l);
    let writes: Vec<(usize, f64)> = (setup.writes.iter())
        .filter(|w| w.agent == agent.name && w.node as usize == i)
        .map(|w| (w.port, w.value))
        .collect();
    let mut quiet = Vec::new();
    if let NodeKind::Foreign { ports, .. } = &node.kind {
        for (k, (port, binding)) in info.ports.iter().zip(ports).enumerate() {
            if let (true, PortBinding::Slot(slot)) = (port.dir != PortDir::In, binding) {
                if !writes.iter().any(|(p, _)| *p == k) {
                    quiet.push(QuietOutput {
                        leaf: info.name.clone(),
                        port: port.name.clone(),
                        slot: *slot,
                    });
                }
            }
        }
    }
    let stand_in = match script {
        Some(l) => StandIn::new(l.statuses.clone()).cycling(l.cycle),
        None => StandIn::new(vec![setup.leaf_default]),
    };
    (stand_in.writing(writes), quiet)
}

/// What an instance's leaf families keep per instance besides the common [`LeafEnv`].
pub struct Families {
    /// Recruitment (seed 002) and components (seed 001).
    pub link: team::Link,
    /// The CARS leaves' shared state (seed 000).
    pub area: Rc<AreaAgent>,
    /// QRIO's head and camera, shared by its leaves and sensors (seed 004).
    pub body: Rc<qrio::Body>,
    /// The failover task's conversation with the astronaut (seed 001).
    pub mission: Rc<RefCell<astronaut::Mission>>,
}

/// Binds a declared leaf to its simulator implementation: the recruitment protocol, the
/// minefield, the grid, the CARS area, QRIO and the failover task are tried in this order, and the first
/// family that knows the name with fitting ports takes it. `None` leaves it a stand-in.
pub fn bind_leaf(info: &LeafInfo, env: &LeafEnv, families: &Families) -> Option<Box<dyn Leaf>> {
    team::bind(info, &families.link)
        .or_else(|| minefield::bind(info, env))
        .or_else(|| grid_leaves::bind(info, env))
        .or_else(|| area_leaves::bind(info, env, &families.area))
        .or_else(|| qrio::bind(info, env, &families.body))
        .or_else(|| astronaut::bind(info, env, &families.area.strings, &families.mission))
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
    let enums = setup.enums.clone();
    let affect = Rc::new(RefCell::new(AgentAffect {
        memories: memories::load(program, agent, setup.memory_files),
        visited: Vec::new(),
        logs: Vec::new(),
    }));
    setup.mail.borrow_mut().register(program, agent, &name);
    let period_ms = env::period_ms(agent.rate_hz);
    let families = Families {
        link: team::join(&setup.team, program, agent, &name, world.clone()),
        area: Rc::new(AreaAgent::new(
            &name,
            period_ms,
            setup.strings.clone(),
            setup.mail.clone(),
            setup.seed,
        )),
        body: Rc::new(qrio::Body::default()),
        mission: astronaut::Mission::shared(),
    };
    let env = world.as_ref().map(|(w, id)| LeafEnv {
        world: w.clone(),
        agent: *id,
        is_grid: w.borrow().spec().grid().is_some(),
        period_ms,
        labels: labels.clone(),
        enums: enums.clone(),
        affect: affect.clone(),
    });
    let Bound {
        mut table,
        stand_ins,
        quiet_outputs,
        simulated_leaves,
    } = bind_leaves(program, agent, env.as_ref(), &families, setup);
    calls::wrap(&mut table, program, agent, &families.link);
    if let Some(wrap) = &setup.wrap {
        table.wrap_all(|node, leaf| (wrap.0)(&name, node, leaf));
    }
    let mut machine = Machine::new(program, agent, table);
    if let Some(hooks) = setup.hook_nodes.as_ref().and_then(|f| (f.0)(&name)) {
        machine.set_node_hooks(hooks);
    }
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
    team::wrap_host(&mut machine, &families.link);
    let senses = match &world {
        Some((w, id)) => {
            apply_spawn_values(program, agent, &mut machine, w, *id);
            sensors::bind(program, agent, &machine, w, *id, &families.body)?
        }
        None => sensors::Senses::default(),
    };
    Ok(SimAgent {
        machine,
        program: agent,
        name,
        world_id: world.map(|(_, id)| id),
        affect,
        senses,
        stand_ins,
        quiet_outputs,
        simulated_leaves,
        team: families.link,
    })
}

/// What binding an instance's leaves made: its leaf table, the declared leaves that run as
/// stand-ins, the stand-ins' outputs nothing sets, and the leaves the simulator implements.
struct Bound {
    table: LeafTable,
    stand_ins: Vec<String>,
    quiet_outputs: Vec<QuietOutput>,
    simulated_leaves: Vec<String>,
}

/// The leaf table of an instance: each declared leaf bound to its simulator implementation
/// (in a world, unless `--leaf`, `--leaf-cycle` or `--leaf-out` name it), else to a
/// stand-in.
fn bind_leaves(
    program: &Program,
    agent: &AgentProgram,
    env: Option<&LeafEnv>,
    families: &Families,
    setup: &Setup,
) -> Bound {
    let mut b = Bound {
        table: LeafTable::new(agent.nodes.len()),
        stand_ins: Vec::new(),
        quiet_outputs: Vec::new(),
        simulated_leaves: Vec::new(),
    };
    for (i, node) in agent.nodes.iter().enumerate() {
        let NodeKind::Foreign { leaf, .. } = &node.kind else {
            continue;
        };
        let info = &program.leaves[*leaf as usize];
        let overridden = (setup.leaves.iter())
            .any(|l| crate::leaf::rank(node, info, &l.key).is_some())
            || (setup.writes.iter()).any(|w| w.agent == agent.name && w.node as usize == i);
        let place = env.map(|e| (&e.world, e.agent));
        let registered = match overridden {
            false => setup
                .sources
                .iter()
                .find_map(|s| s.bind(info, program, place)),
            true => None,
        };
        let from_world = match (&registered, env) {
            (None, Some(env)) if !overridden => bind_leaf(info, env, families),
            _ => None,
        };
        if from_world.is_some() && !b.simulated_leaves.contains(&info.name) {
            b.simulated_leaves.push(info.name.clone());
        }
        match registered.or(from_world) {
            Some(l) => b.table.set(i as u32, l),
            None => {
                let (stand_in, quiet) = stand_in_for(agent, i, info, setup);
                b.table.set(i as u32, Box::new(stand_in));
                b.quiet_outputs.extend(quiet);
                if !b.stand_ins.contains(&info.name) {
                    b.stand_ins.push(info.name.clone());
                }
            }
        }
    }
    b
}

/// The world's spawn sets initial values (`spawn QRIO at (1m, 2m) battery 60`).
fn apply_spawn_values(
    program: &Program,
    agent: &AgentProgram,
    machine: &mut Machine,
    w: &SharedWorld,
    id: AgentId,
) {
    let inits = w
        .borrow()
        .agent(id)
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
                let list = machine.slots[slot];
                machine.lists.set(list, &[p.x, p.y]);
                continue;
            }
        };
        machine.write(slot as SlotId, v);
    }
}

impl SimAgent<'_> {
    /// The sense phase: sensors write their slots (only when the reading changes), events
    /// fire for this tick. A failed read keeps the last value and is reported.
    pub fn sense(
        &mut self,
        program: &Program,
        world: Option<&SharedWorld>,
        errors: &mut SenseErrors,
    ) {
        let placed = world.zip(self.world_id);
        self.senses
            .sense(program, &mut self.machine, &self.affect, placed, errors);
    }

    /// The instance's bound sensors and events (to bind some to other devices).
    pub fn senses_mut(&mut self) -> &mut sensors::Senses {
        &mut self.senses
    }

    /// Long-term memories to save: (file, contents) for each `persist`ed memory.
    pub fn stored_memories(&self, program: &Program) -> Vec<(String, Stored)> {
        memories::stored(program, &self.affect.borrow().memories)
    }
}
