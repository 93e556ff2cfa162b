//! A grid cell's parameter values applied to the checked program and the run's
//! configuration. The program is changed after checking, so a parameter can only set what a
//! valid program could say itself (a strategy, a loss rate, a spawn count, a variable).

use super::spec::{value_text, Spec};
use affect_compiler::ir::program::{Program, Strategy};
use affect_compiler::ir::world::{Delivery, EventAction};
use affect_runtime::run::RunConfig;

/// What a cell sets in a run's configuration. Plain data, shared by the threads that run
/// the cell; each run makes its own [`RunConfig`] from it ([`Settings::config`]).
#[derive(Clone, Debug, Default)]
pub struct Settings {
    pub world: Option<String>,
    pub ticks: u64,
    pub bb: Vec<(String, String)>,
}

impl Settings {
    /// The configuration of one run: the interpreter (the reference engine), no memory
    /// files (every run starts with empty long-term memory), this seed.
    pub fn config(&self, seed: u64) -> RunConfig {
        RunConfig {
            world: self.world.clone(),
            ticks: self.ticks,
            bb: self.bb.clone(),
            seed,
            engine: affect_runtime::jit::EngineKind::Interp,
            persist_dir: None,
            ..RunConfig::default()
        }
    }
}

/// The parameters an experiment may vary, for the error that names an unknown one.
pub const KNOWN: &str =
    "world, ticks, strategy, threshold, loss, delivery, latency, failures, recovery, startup, count.AGENT, bb.NAME";

/// One cell of the grid: the value index of each parameter, in the spec's order.
pub type Cell = Vec<usize>;

/// Every cell, the last parameter varying fastest.
pub fn cells(spec: &Spec) -> Vec<Cell> {
    let mut out = vec![Vec::new()];
    for p in &spec.parameters {
        out = out
            .into_iter()
            .flat_map(|c| {
                (0..p.values.len()).map(move |i| {
                    let mut c = c.clone();
                    c.push(i);
                    c
                })
            })
            .collect();
    }
    out
}

/// The program and configuration of one cell (the seed is set per run).
pub fn cell_setup(spec: &Spec, base: &Program, cell: &Cell) -> Result<(Program, Settings), String> {
    let mut program = base.clone();
    let mut config = Settings {
        world: spec.world.clone(),
        ..Settings::default()
    };
    let named = |name: &str| {
        spec.parameters
            .iter()
            .zip(cell)
            .find(|(p, _)| p.name == name)
            .map(|(p, &i)| &p.values[i])
    };
    // The world first: the other parameters change the world it selects.
    if let Some(w) = named("world") {
        config.world = Some(value_text(w));
    }
    let world = match &config.world {
        Some(w) => program.worlds.iter().position(|x| x.name == *w),
        None => (program.worlds.len() == 1).then_some(0),
    };
    if let (Some(w), None) = (&config.world, world) {
        return Err(format!("the program has no world `{w}`"));
    }
    config.ticks = spec
        .ticks
        .or(world.and_then(|i| program.worlds[i].ticks))
        .unwrap_or(100);
    for (p, &i) in spec.parameters.iter().zip(cell) {
        if p.name != "world" {
            set(&mut program, &mut config, world, &p.name, &p.values[i])
                .map_err(|e| format!("parameter `{}` = {}: {e}", p.name, p.values[i]))?;
        }
    }
    Ok((program, config))
}

fn number(v: &toml::Value) -> Result<f64, String> {
    match v {
        toml::Value::Integer(i) => Ok(*i as f64),
        toml::Value::Float(f) if f.is_finite() => Ok(*f),
        _ => Err("not a number".into()),
    }
}

/// A time with its unit (`"250ms"`, `"2s"`) in milliseconds, read as the program reads one
/// (`ir::value`): a bare number is refused, since nothing says it is milliseconds.
fn time_ms(v: &toml::Value) -> Result<f64, String> {
    use affect_compiler::ir::program::ValueKind;
    use affect_compiler::ir::value::{number_as, parse_number};
    let text = value_text(v);
    let (n, unit) = parse_number(&text).ok_or("not a time (write it like \"250ms\")")?;
    let ms = number_as(n, unit, ValueKind::Duration).map_err(|e| match unit {
        None => format!("a time needs its unit: write it like \"{text}ms\" or \"{text}s\""),
        Some(_) => e.to_string(),
    })?;
    if ms < 0.0 {
        return Err("a time is at least 0".into());
    }
    Ok(ms)
}

fn count(v: &toml::Value) -> Result<u64, String> {
    match v {
        toml::Value::Integer(i) if *i >= 0 => Ok(*i as u64),
        _ => Err("not a whole number of at least 0".into()),
    }
}

fn world_of(
    program: &mut Program,
    world: Option<usize>,
) -> Result<&mut affect_compiler::ir::world::WorldSpec, String> {
    world
        .map(|i| &mut program.worlds[i])
        .ok_or_else(|| "the program has no world to set it in".to_string())
}

fn set(
    program: &mut Program,
    config: &mut Settings,
    world: Option<usize>,
    name: &str,
    v: &toml::Value,
) -> Result<(), String> {
    match name {
        "ticks" => config.ticks = count(v)?,
        "strategy" => {
            let s = match value_text(v).as_str() {
                "affective" => Strategy::Affective,
                "greedy" => Strategy::Greedy,
                "random" => Strategy::Random,
                _ => return Err("strategy is affective, greedy or random".into()),
            };
            let blocks = program.agents.iter_mut().flat_map(|a| &mut a.recruitments);
            let mut any = false;
            for r in blocks {
                r.strategy = s;
                any = true;
            }
            if !any {
                return Err("the program has no recruitment block".into());
            }
        }
        "threshold" => {
            let t = number(v)?;
            for r in program.agents.iter_mut().flat_map(|a| &mut a.recruitments) {
                r.threshold = t;
            }
        }
        "loss" => {
            let l = number(v)?;
            if !(0.0..=1.0).contains(&l) {
                return Err("loss is between 0 and 1".into());
            }
            world_of(program, world)?.messages.loss = l;
        }
        "latency" => {
            let ms = time_ms(v)?;
            if ms.fract() != 0.0 {
                return Err("latency is whole milliseconds".into());
            }
            world_of(program, world)?.messages.latency_ms = ms as u64;
        }
        "delivery" => {
            world_of(program, world)?.messages.mode = match value_text(v).as_str() {
                "broadcast" => Delivery::Broadcast,
                "unicast" => Delivery::Unicast,
                _ => return Err("delivery is broadcast or unicast".into()),
            }
        }
        "failures" => match value_text(v).as_str() {
            "scripted" => {}
            "none" => world_of(program, world)?
                .events
                .retain(|e| !matches!(e.action, EventAction::Fail { .. })),
            _ => return Err("failures is scripted or none".into()),
        },
        "recovery" => {
            let keep = match value_text(v).as_str() {
                "redundant" => (true, true),
                "restart" => (false, true),
                "none" => (false, false),
                _ => return Err("recovery is redundant, restart or none".into()),
            };
            let agents = program.agents.iter_mut().flat_map(|a| &mut a.components);
            for c in agents.chain(&mut program.components) {
                if !keep.0 {
                    c.redundant.clear();
                }
                if !keep.1 {
                    c.restarts = 0;
                }
            }
        }
        "startup" => {
            // Every component's start-up time, as its `startup` setting would say.
            let ms = time_ms(v)?;
            let agents = program.agents.iter_mut().flat_map(|a| &mut a.components);
            for c in agents.chain(&mut program.components) {
                c.startup_ms = ms;
            }
        }
        _ if name.starts_with("count.") => {
            let agent = &name["count.".len()..];
            let n = u32::try_from(count(v)?).map_err(|_| "too many")?;
            let spawn = world_of(program, world)?
                .spawns
                .iter_mut()
                .rfind(|s| s.agent.name == agent)
                .ok_or_else(|| format!("the world spawns no `{agent}`"))?;
            spawn.count = n;
        }
        _ if name.starts_with("bb.") => {
            config
                .bb
                .push((name["bb.".len()..].to_string(), value_text(v)));
        }
        _ => return Err(format!("unknown parameter (known: {KNOWN})")),
    }
    Ok(())
}
