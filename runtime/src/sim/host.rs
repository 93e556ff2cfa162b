//! What compiled code asks the runtime for an agent: its emotional memories and questions
//! about its world (`unvisited()`, `toward(a, b)`).

use super::labels::Labels;
use crate::affect::Memory;
use crate::devices::sim::SharedWorld;
use crate::interp::{Host, Lists};
use crate::rng::Rng;
use crate::world::AgentId;
use affect_compiler::ir::functions::HostFn;
use affect_compiler::ir::program::EnumInfo;
use std::cell::RefCell;
use std::rc::Rc;

/// An agent's affect state, shared by its host (inside its machine) and the run loop that
/// reports memory processes and saves long-term memory.
pub struct AgentAffect {
    pub memories: Vec<Memory>,
    /// Labels the agent has stood on (for `unvisited()`).
    pub visited: Vec<u32>,
    /// `log` lines for the trace since the run loop last drained them (the emotional decision
    /// overriding the shortest path, ...).
    pub logs: Vec<String>,
}

pub struct AgentHost {
    pub affect: Rc<RefCell<AgentAffect>>,
    pub world: Option<(SharedWorld, AgentId)>,
    pub labels: Rc<Labels>,
    pub enums: Rc<Vec<EnumInfo>>,
    pub rng: Rng,
}

impl AgentHost {
    fn unvisited(&mut self) -> f64 {
        let affect = self.affect.borrow();
        let candidates: Vec<u32> = self
            .labels
            .symbols()
            .filter(|s| !affect.visited.contains(s))
            .collect();
        let pool: Vec<u32> = if candidates.is_empty() {
            // Everything visited: any place but the current one.
            let here = affect.visited.last().copied();
            self.labels.symbols().filter(|s| Some(*s) != here).collect()
        } else {
            candidates
        };
        drop(affect);
        if pool.is_empty() {
            return 0.0;
        }
        let i = self.rng.below(pool.len() as u64) as usize;
        pool[i] as f64
    }

    /// A path's places by label, separated by spaces (`#12` for a key that is no label).
    fn names(&self, path: &[f64]) -> String {
        let mut out = String::new();
        for (i, k) in path.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            match self.labels.char_of(*k) {
                Some(c) => out.push(c),
                None => out.push_str(&format!("#{k}")),
            }
        }
        out
    }

    fn toward(&self, enum_index: u32, from: f64, to: f64) -> f64 {
        let Some((world, _)) = &self.world else {
            return f64::NAN;
        };
        let (Some(a), Some(b)) = (self.labels.char_of(from), self.labels.char_of(to)) else {
            return f64::NAN;
        };
        let Ok(w) = world.try_borrow() else {
            return f64::NAN;
        };
        let first = match w.shortest_path(a, b) {
            Some(p) if !p.is_empty() => p[0],
            _ => return f64::NAN,
        };
        let (Some(ca), Some(cb)) = (w.cell_of_label(a), w.cell_of_label(first)) else {
            return f64::NAN;
        };
        let Some(d) = w.direction_between(ca, cb) else {
            return f64::NAN;
        };
        self.enums
            .get(enum_index as usize)
            .and_then(|e| e.variants.iter().position(|v| v == d.name()))
            .map(|i| i as f64)
            .unwrap_or(f64::NAN)
    }
}

impl Host for AgentHost {
    fn call(&mut self, f: HostFn, arg: u32, args: &[f64], lists: &mut Lists) -> f64 {
        let a = |i: usize| args.get(i).copied().unwrap_or(f64::NAN);
        match f {
            HostFn::Unvisited => return self.unvisited(),
            HostFn::Toward => return self.toward(arg, a(0), a(1)),
            HostFn::ListPush => return 0.0,
            _ => {}
        }
        let mut affect = self.affect.borrow_mut();
        let Some(m) = affect.memories.get_mut(arg as usize) else {
            return f64::NAN;
        };
        match f {
            HostFn::MemRecent => m.recent(),
            HostFn::MemRemember => m.remember(a(0) as u32, a(1)),
            HostFn::MemScore => m.score(a(0) as u32),
            HostFn::MemFamiliarity => m.familiarity(a(0) as u32),
            HostFn::MemBest => {
                if let Some(best) = m.best() {
                    return f64::from(best);
                }
                // Nothing in long-term memory yet (a first run): the best place felt so far,
                // from short-term memory, and the trace says where the intention came from.
                let felt = m
                    .short_term()
                    .fold(None, |b: Option<(u32, f64)>, &(k, s)| match b {
                        Some((_, bs)) if bs >= s => b,
                        _ => Some((k, s)),
                    });
                let text = match felt {
                    Some((k, s)) => format!(
                        "best: long-term memory is empty; the best felt so far is {} (score {s:.2}, short-term memory)",
                        self.names(&[f64::from(k)])
                    ),
                    None => "best: nothing is remembered yet".to_string(),
                };
                affect.logs.push(text);
                felt.map_or(0.0, |(k, _)| f64::from(k))
            }
            HostFn::MemPathScore => m.path_score(lists.values(a(0))),
            HostFn::MemSuitable => f64::from(u8::from(m.suitable(lists.values(a(0))))),
            HostFn::MemBestPath => {
                let paths = lists.values(a(0)).to_vec();
                let mut best: Option<(usize, f64)> = None;
                for (i, p) in paths.iter().enumerate() {
                    let s = m.path_score(lists.values(*p));
                    if best.is_none_or(|(_, b)| s > b) {
                        best = Some((i, s));
                    }
                }
                let Some((i, score)) = best else {
                    return f64::NAN;
                };
                if i > 0 {
                    // The candidates come shortest first (TracePaths): the emotional decision
                    // overrides the physical one, as in the seed's Fig. 56.
                    let first = lists.values(paths[0]);
                    let text = format!(
                        "best_path: {} (score {score:.2}) instead of the first candidate {} (score {:.2})",
                        self.names(lists.values(paths[i])),
                        self.names(first),
                        m.path_score(first),
                    );
                    affect.logs.push(text);
                }
                paths[i]
            }
            _ => f64::NAN,
        }
    }
}
