//! Names that link declarations once everything is checked: the agent a clone copies
//! (`agent Vonda = Leguin;`), and the agents, variables, events and components a world names
//! (`spawn Navigator at P battery 60;`, `at 40s raise loud_noise on Navigator;`). A clone's
//! members are its base's, so a world naming a clone's event uses the base's declaration.

use super::index::{DefId, DefKind, MAIN_FILE};
use super::Checker;
use crate::ir::world::{EventAction, NameRef, WorldSpec};
use crate::syntax::ast::{File, ItemKind};

impl Checker {
    /// Records the clone bases of the main file's agents and the names its worlds use.
    pub(super) fn link_names(&mut self, main: &File, worlds: &[WorldSpec]) {
        self.index.current = MAIN_FILE;
        for item in &main.items {
            let ItemKind::Agent(a) = &item.kind else {
                continue;
            };
            let (Some(base), Some(agent)) = (&a.base, self.index.declared_at(a.name.span)) else {
                continue;
            };
            if let Some(b) = self.agent_def(&base.name) {
                self.index.defs[agent.index()].base = Some(b);
                self.index.refer_def(base.span, Some(b));
            }
        }
        for w in worlds {
            self.link_world(w);
        }
    }

    fn agent_def(&self, name: &str) -> Option<DefId> {
        self.index
            .global(name)
            .filter(|(_, d)| d.kind == DefKind::Agent)
            .map(|(i, _)| i)
    }

    /// The member of an agent (or of the agent it clones) a world names.
    fn refer_member(&mut self, agent: DefId, r: &NameRef) {
        let member = self
            .index
            .members(agent)
            .into_iter()
            .find(|&m| self.index.def(m).name == r.name);
        self.index.refer_def(r.span, member);
    }

    fn link_world(&mut self, w: &WorldSpec) {
        let mut spawned = Vec::new();
        for s in &w.spawns {
            let Some(agent) = self.agent_def(&s.agent.name) else {
                continue;
            };
            self.index.refer_def(s.agent.span, Some(agent));
            spawned.push(agent);
            for (name, _) in &s.init {
                self.refer_member(agent, name);
            }
        }
        for e in &w.events {
            let (target, agent) = match &e.action {
                EventAction::Raise { event, agent } => (event, agent),
                EventAction::Fail { component, agent }
                | EventAction::Recover { component, agent } => (component, agent),
                _ => continue,
            };
            let agents = match agent {
                Some(a) => {
                    let def = self.agent_def(&a.name);
                    self.index.refer_def(a.span, def);
                    def.into_iter().collect()
                }
                None => spawned.clone(),
            };
            // On every spawned agent: the first that has the member.
            let before = self.index.refs.len();
            for a in agents {
                self.refer_member(a, target);
                if self.index.refs.len() > before {
                    break;
                }
            }
            if self.index.refs.len() == before {
                // A component of the file.
                let component = self
                    .index
                    .global(&target.name)
                    .filter(|(_, d)| d.kind == DefKind::Component)
                    .map(|(i, _)| i);
                self.index.refer_def(target.span, component);
            }
        }
    }
}
