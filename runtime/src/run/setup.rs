//! Setting a run up, before its first tick: refusing what cannot run, building the world,
//! choosing the instances that run, compiling them for the JIT, binding each instance's
//! leaves and devices, and applying `--bb`.

use super::RunConfig;
use crate::devices::sim::SharedWorld;
use crate::jit::{self, EngineKind};
use crate::sim::{build_agent, Setup, SimAgent};
use crate::world::{AgentId, World};
use affect_compiler::diagnostic::Diagnostic;
use affect_compiler::ir::program::{AgentProgram, Program};
use affect_compiler::ir::world::WorldSpec;
use affect_compiler::span::Span;
use std::cell::RefCell;
use std::rc::Rc;

/// Refuses constructs without run-time semantics: each one becomes a coded diagnostic.
pub fn check_runnable(program: &Program, agent: Option<&str>) -> Result<(), Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let mut seen: Vec<(String, Span)> = Vec::new();
    for a in program
        .agents
        .iter()
        .filter(|a| agent.is_none_or(|n| n == a.name))
    {
        for (what, span) in &a.pending {
            if seen.iter().any(|(w, s)| w == what && s == span) {
                continue;
            }
            seen.push((what.clone(), *span));
            diags.push(
                Diagnostic::error("E0601", format!("{what} cannot run yet"), *span)
                    .with_label(format!("agent `{}` uses {what} here", a.name))
                    .with_note("the checker accepts this construct, but the runtime does not implement it yet; it is refused rather than ignored"),
            );
        }
    }
    if diags.is_empty() {
        Ok(())
    } else {
        Err(diags)
    }
}

/// Picks the world to run in: the one named, else the file's only world, else none.
pub(super) fn choose_world<'p>(
    program: &'p Program,
    config: &RunConfig,
) -> Result<Option<&'p WorldSpec>, Vec<Diagnostic>> {
    match &config.world {
        Some(name) => match program.worlds.iter().find(|w| w.name == *name) {
            Some(w) => Ok(Some(w)),
            None => {
                let names: Vec<&str> = program.worlds.iter().map(|w| w.name.as_str()).collect();
                Err(vec![Diagnostic::error(
                    "E0602",
                    format!(
                        "--world {name}: no such world (this program has: {})",
                        if names.is_empty() {
                            "none".to_string()
                        } else {
                            names.join(", ")
                        }
                    ),
                    Span::DUMMY,
                )])
            }
        },
        None => Ok(match program.worlds.as_slice() {
            [only] => Some(only),
            _ => None,
        }),
    }
}

/// What building a run's instances shares: the leaves' defaults, overrides and writes, the
/// seed, memory files the run read, a new post office and team, the leaf wrap, and the `sources` of
/// leaves implemented outside the simulator (the user's nodes, the robot's devices).
pub(super) fn shared<'a>(
    program: &Program,
    config: &'a RunConfig,
    sources: &'a [&'a dyn crate::leaf::LeafSource],
    memory_files: Option<&'a crate::affect::persist::Files>,
) -> Result<Setup<'a>, Vec<Diagnostic>> {
    Ok(Setup {
        leaf_default: config.leaf_default,
        leaves: &config.leaves,
        writes: super::stand_ins::resolve(program, config)?,
        seed: config.seed,
        memory_files,
        mail: crate::sim::mail::Mail::shared(),
        team: crate::sim::team::Team::shared(config.seed),
        wrap: config.wrap_leaves.clone(),
        hook_nodes: config.hook_nodes.clone(),
        sources,
        strings: std::rc::Rc::new(program.strings.clone()),
        enums: std::rc::Rc::new(program.enums.clone()),
    })
}

/// Builds the world the run happens in, if it has one.
pub(super) fn build_world(
    program: &Program,
    config: &RunConfig,
) -> Result<Option<SharedWorld>, Vec<Diagnostic>> {
    let Some(s) = choose_world(program, config)? else {
        return Ok(None);
    };
    // The run's seed drives the world too (guests, scripted random events); it is the
    // world's own `seed` unless the command line gives another.
    match World::new(&WorldSpec {
        seed: config.seed,
        ..s.clone()
    }) {
        Ok(w) => Ok(Some(Rc::new(RefCell::new(w)))),
        Err(e) => Err(vec![Diagnostic::error(
            "E0602",
            format!("world `{}` cannot be built: {e}", s.name),
            Span::DUMMY,
        )]),
    }
}

/// An agent instance the run will tick: the program it runs, its name, its body in the
/// world.
pub(super) struct Instance<'p> {
    pub program: &'p AgentProgram,
    pub name: String,
    pub id: Option<AgentId>,
}

/// In a world, the spawned instances run; without one, every agent once. `--agent` keeps
/// one program's instances, or one instance.
pub(super) fn instances<'p>(
    program: &'p Program,
    config: &RunConfig,
    world: Option<&SharedWorld>,
) -> Vec<Instance<'p>> {
    let mut out = Vec::new();
    match world {
        Some(w) => {
            for a in w.borrow().agents() {
                if let Some(p) = program.agents.iter().find(|p| p.name == a.program) {
                    out.push(Instance {
                        program: p,
                        name: a.name.clone(),
                        id: Some(a.id),
                    });
                }
            }
        }
        None => {
            for p in &program.agents {
                out.push(Instance {
                    program: p,
                    name: p.name.clone(),
                    id: None,
                });
            }
        }
    }
    out.retain(|i| {
        config
            .agent
            .as_deref()
            .is_none_or(|a| a == i.program.name || a == i.name)
    });
    out
}

/// The JIT's code for each agent program that runs, or why the interpreter runs instead;
/// with the tiered engine, the compilations under way.
#[derive(Default)]
pub(super) struct Engines {
    compiled: Vec<(*const AgentProgram, Rc<jit::Compiled>)>,
    pub fallback: Option<String>,
    pub tiers: Vec<Tier>,
}

/// An agent program's code being compiled in the background (the tiered engine).
pub(super) struct Tier {
    pub agent: *const AgentProgram,
    pub pending: jit::tier::Pending,
}

/// The JIT compiles each agent program once; its instances share the code. If any program
/// cannot be compiled, every agent runs in the interpreter. The tiered engine starts each
/// program's compilation on a thread of its own instead; the run installs the code when it
/// is ready (`Run::adopt_code`).
pub(super) fn compile(program: &Program, config: &RunConfig, instances: &[Instance]) -> Engines {
    let mut engines = Engines::default();
    let mut agents: Vec<&AgentProgram> = Vec::new();
    for i in instances {
        if !agents.iter().any(|p| std::ptr::eq(*p, i.program)) {
            agents.push(i.program);
        }
    }
    // Hooks on built-in nodes stop the tick where only the interpreter can (`node_hooks`).
    if config.hook_nodes.is_some() && config.engine != EngineKind::Interp {
        engines.fallback = Some(
            "Groot 2 hooks act on every node, and only the interpreter stops at built-in ones"
                .to_string(),
        );
        return engines;
    }
    match config.engine {
        EngineKind::Interp => {}
        EngineKind::Tiered => {
            // Without a backend (armv7) the interpreter is the engine, as it always was.
            if jit::supported().is_err() {
                return engines;
            }
            // What the JIT refuses before generating code (nodes too wide) is known now: the
            // run says so, as the JIT engine does (issue 11: a fallback to the interpreter is
            // told, never silent), and copies nothing for a compiler thread.
            if let Some(e) = agents.iter().find_map(|a| jit::preflight(program, a).err()) {
                engines.fallback = Some(e.to_string());
                return engines;
            }
            // The compiler thread needs a program of its own; the code it makes is linked
            // for this one (the two are equal).
            let shared = std::sync::Arc::new(program.clone());
            for a in agents {
                let Some(k) = program.agents.iter().position(|p| std::ptr::eq(p, a)) else {
                    continue;
                };
                engines.tiers.push(Tier {
                    agent: a,
                    pending: jit::tier::spawn(shared.clone(), k, true, config.code_cache.clone()),
                });
            }
        }
        EngineKind::Jit => {
            for a in agents {
                match jit::compile_cached(program, a, true, config.code_cache.clone()).0 {
                    Ok(code) => engines.compiled.push((a, Rc::new(code))),
                    Err(e) => {
                        engines.fallback = Some(e.to_string());
                        engines.compiled.clear();
                        break;
                    }
                }
            }
        }
    }
    engines
}

fn setup_error(e: String) -> Vec<Diagnostic> {
    vec![Diagnostic::error("E0603", e, Span::DUMMY)]
}

/// Builds one instance: machine, leaves, devices, memories, its JIT code, and the `--bb`
/// values that apply to it. With it, which slots still have no value: a `var` declared
/// without an initial value that neither the world's spawn nor `--bb` set.
pub(super) fn bind<'p>(
    program: &'p Program,
    config: &RunConfig,
    setup: &Setup,
    world: Option<&SharedWorld>,
    instance: Instance<'p>,
    engines: &Engines,
) -> Result<(SimAgent<'p>, Vec<bool>), Vec<Diagnostic>> {
    let agent = instance.program;
    let mut unset: Vec<bool> = agent.slots.iter().map(|s| s.init.is_nan()).collect();
    if let Some(a) = world.zip(instance.id).and_then(|(w, id)| {
        w.borrow().agent(id).map(|a| {
            a.init
                .iter()
                .map(|(n, _)| n.name.clone())
                .collect::<Vec<_>>()
        })
    }) {
        for (i, s) in agent.slots.iter().enumerate() {
            if s.scope == 0 && a.contains(&s.name) {
                unset[i] = false;
            }
        }
    }
    let bound = world.cloned().zip(instance.id);
    let mut sim = build_agent(program, agent, instance.name, bound, setup).map_err(setup_error)?;
    if let Some((_, code)) = engines
        .compiled
        .iter()
        .find(|(p, _)| std::ptr::eq(*p, agent))
    {
        sim.machine
            .install_jit(code.clone())
            .map_err(|e| setup_error(e.to_string()))?;
    }
    for (key, text) in &config.bb {
        if let Some(i) = set_bb(program, agent, &mut sim, key, text)? {
            unset[i] = false;
        }
    }
    Ok((sim, unset))
}

/// `--bb KEY=VALUE` on one instance. `--bb Butler.refiller=Vonda` sets `refiller` on that
/// agent only; a plain key sets it on every agent that has it. The slot it set, if any.
fn set_bb(
    program: &Program,
    agent: &AgentProgram,
    sim: &mut SimAgent,
    key: &str,
    text: &str,
) -> Result<Option<usize>, Vec<Diagnostic>> {
    let (key, scoped) = match bb_scope(program, agent, key) {
        Some((who, rest)) if who == sim.name || who == agent.name => (rest, true),
        Some(_) => return Ok(None),
        None => (key, false),
    };
    let found = agent
        .slots
        .iter()
        .position(|s| s.scope == 0 && s.name == *key);
    match found {
        Some(i) => match super::values::parse_value(program, &agent.slots[i], text) {
            Ok(v) => {
                sim.machine.write(i as u32, v);
                Ok(Some(i))
            }
            Err(e) => {
                let mut d =
                    Diagnostic::error("E0602", format!("--bb {key}={text}: {e}"), Span::DUMMY);
                if !scoped && program.agents.len() > 1 {
                    d = d.with_help(format!(
                        "agent `{}` has it; to set another agent's `{key}` only, write --bb AGENT.{key}={text}",
                        sim.name
                    ));
                }
                Err(vec![d])
            }
        },
        None if program.agents.len() == 1 || scoped => {
            let names: Vec<&str> = agent
                .slots
                .iter()
                .filter(|s| s.scope == 0 && s.visible)
                .map(|s| s.name.as_str())
                .collect();
            let mut d = Diagnostic::error(
                "E0602",
                format!("--bb {key}: no variable `{key}` on the root blackboard"),
                Span::DUMMY,
            );
            if let Some(b) = affect_compiler::suggest::closest(key, names.iter().copied()) {
                d = d.with_help(format!("did you mean `{b}`?"));
            }
            Err(vec![d])
        }
        None => Ok(None),
    }
}

/// `--bb AGENT.KEY`: the agent (an agent's name or an instance name like `UGV#2`) and the
/// key, unless the whole key names a root variable of `agent` (`refiller.intensity`).
fn bb_scope<'k>(
    program: &Program,
    agent: &AgentProgram,
    key: &'k str,
) -> Option<(&'k str, &'k str)> {
    let (who, rest) = key.split_once('.')?;
    if agent.slots.iter().any(|s| s.scope == 0 && s.name == key) {
        return None;
    }
    let names_agent = program.agents.iter().any(|a| {
        who == a.name
            || who
                .strip_prefix(a.name.as_str())
                .is_some_and(|n| n.starts_with('#'))
    });
    names_agent.then_some((who, rest))
}

/// E0602 when no instance runs: why, in the user's terms.
pub(super) fn nothing_to_run(
    program: &Program,
    config: &RunConfig,
    world: Option<&SharedWorld>,
) -> Vec<Diagnostic> {
    let names: Vec<&str> = program.agents.iter().map(|a| a.name.as_str()).collect();
    vec![Diagnostic::error(
        "E0602",
        match (&config.agent, world) {
            (Some(a), _) => format!(
                "no agent `{a}` in this program (agents: {})",
                names.join(", ")
            ),
            (None, Some(_)) => "the world spawns none of this program's agents".to_string(),
            (None, None) => "this program has no agent and no main tree to run".to_string(),
        },
        Span::DUMMY,
    )]
}
