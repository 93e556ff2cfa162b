//! The world's scripted component faults on a component host (`at 40s fail speech_recognition
//! on Peoplebot;`, `recover C`): in simulation the supervisor stops a failed component's
//! heartbeat in-process; over the network the component runs in a host's process, so the
//! host itself applies the script to the components it runs. A failed component stays
//! declared alive (its process lives, as a hung ADEServer's does) but stops beating and
//! answering calls, so its users find it at its `timeout`, as in simulation; `recover` makes
//! it beat and answer again.
//!
//! The host builds its own copy of the world from the program and the run's seed, so a
//! recurring or random fault (`fail C every exponential(mean: 60s)`) happens at the same world
//! times in every process and in simulation.

use affect_compiler::ir::program::Program;
use affect_compiler::ir::world::{EventAction, NameRef, WorldSpec};
use affect_runtime::world::World;

/// What one scripted event did to a served component.
#[derive(Clone, Debug, PartialEq)]
pub struct Applied {
    /// Index into the host's served components.
    pub served: usize,
    pub at_ms: f64,
    pub failed: bool,
}

/// The scripted faults of a world, as seen by one host.
pub struct Script {
    world: World,
    /// World ms up to which the script has been read.
    cursor: u64,
}

impl Script {
    /// The script of `spec` run with `seed`, read from world time `from_ms` on (a component
    /// restarted later does not replay the faults that came before it).
    pub fn new(spec: &WorldSpec, seed: u64, from_ms: f64) -> Result<Script, String> {
        let spec = WorldSpec {
            seed,
            ..spec.clone()
        };
        let world =
            World::new(&spec).map_err(|e| format!("world `{}` cannot be built: {e}", spec.name))?;
        Ok(Script {
            world,
            cursor: from_ms.max(0.0) as u64,
        })
    }

    /// The fail and recover events due up to world time `now_ms` (inclusive) for the
    /// components in `served` (owner, or `None` for a top-level one; name), in order.
    pub fn due(
        &mut self,
        now_ms: f64,
        program: &Program,
        served: &[(Option<String>, String)],
    ) -> Vec<Applied> {
        if now_ms < 0.0 {
            return Vec::new();
        }
        let until = now_ms as u64 + 1;
        if until <= self.cursor {
            return Vec::new();
        }
        let events = self.world.events_between(self.cursor, until);
        self.cursor = until;
        let mut out = Vec::new();
        for ev in events {
            let (component, agent, failed) = match &ev.action {
                EventAction::Fail { component, agent } => (component, agent, true),
                EventAction::Recover { component, agent } => (component, agent, false),
                _ => continue,
            };
            for i in self.targets(program, served, &component.name, agent.as_ref()) {
                out.push(Applied {
                    served: i,
                    at_ms: ev.at_ms as f64,
                    failed,
                });
            }
        }
        out
    }

    /// The served components a `fail C [on A]` names, as the simulated supervisor picks them:
    /// on named agents, each one's own component of that name, else the shared one; on no
    /// agent, the shared one, else every instance's.
    fn targets(
        &self,
        program: &Program,
        served: &[(Option<String>, String)],
        component: &str,
        agent: Option<&NameRef>,
    ) -> Vec<usize> {
        let index = |owner: Option<&str>| {
            served
                .iter()
                .position(|(o, name)| o.as_deref() == owner && name == component)
        };
        let shared = program.components.iter().any(|c| c.name == component);
        let mut out = Vec::new();
        match agent {
            Some(_) => {
                for id in self.world.targets(agent) {
                    let Some(a) = self.world.agent(id) else {
                        continue;
                    };
                    let own = program
                        .agents
                        .iter()
                        .find(|p| p.name == a.program)
                        .is_some_and(|p| p.components.iter().any(|c| c.name == component));
                    let owner = if own { Some(a.name.as_str()) } else { None };
                    out.extend(index(owner));
                }
            }
            None if shared => out.extend(index(None)),
            None => out.extend(
                (served.iter().enumerate())
                    .filter(|(_, (o, name))| o.is_some() && name == component)
                    .map(|(i, _)| i),
            ),
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}
