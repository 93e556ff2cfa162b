//! Simulator implementations of the grid leaves the navigator declares (seed 003). A
//! declared `action`/`condition` is bound to one of these by name when its ports fit
//! ([`super::bind_leaf`] tries every family in turn); anything else runs as a stand-in (and
//! the run's summary names it).
//!
//! | leaf | world | does |
//! |---|---|---|
//! | `Move(in direction)` | grid | one cell through the motor; RUNNING for the grid's `move_time`, FAILURE when blocked |
//! | `ObstacleAhead(in direction, ..)` | grid | SUCCESS when the next cell that way is taken, blank or off the grid |
//! | `TracePaths(in from, in to, in source, out paths)` | grid | candidate paths, shortest first; `source` `Memory` keeps the paths through remembered places and connections only |

use super::env::LeafEnv;
use super::host::AgentAffect;
use super::labels::Labels;
use crate::devices::sim::{SharedWorld, SimGridMotor};
use crate::devices::{Motor, MotorCommand, MotorStatus};
use crate::leaf::{Leaf, LeafCall};
use crate::world::{AgentId, Direction, World};
use affect_compiler::ir::program::{EnumInfo, LeafInfo, Status, ValueKind};
use std::cell::RefCell;
use std::rc::Rc;

/// The enum variant at `v` as a direction, when the variant is named like one.
fn direction(enums: &[EnumInfo], kind: Option<ValueKind>, v: f64) -> Option<Direction> {
    let Some(ValueKind::Enum(e)) = kind else {
        return None;
    };
    if v.is_nan() || v < 0.0 {
        return None;
    }
    let name = enums.get(e as usize)?.variants.get(v as usize)?;
    Direction::from_name(name)
}

/// Binds a declared leaf to its grid implementation when its name and ports fit (on a grid
/// only).
pub fn bind(info: &LeafInfo, env: &LeafEnv) -> Option<Box<dyn Leaf>> {
    if !env.is_grid {
        return None;
    }
    let port = |name: &str| info.ports.iter().position(|p| p.name == name);
    match info.name.as_str() {
        "Move" => grid_move(
            Box::new(SimGridMotor::new(env.world.clone(), env.agent)),
            info,
            env.enums.clone(),
        ),
        "ObstacleAhead" => {
            let d = port("direction")?;
            Some(Box::new(ObstacleAhead {
                world: env.world.clone(),
                agent: env.agent,
                port: d,
                kind: info.ports[d].kind,
                enums: env.enums.clone(),
            }))
        }
        "TracePaths" => Some(Box::new(TracePaths {
            world: env.world.clone(),
            labels: env.labels.clone(),
            enums: env.enums.clone(),
            affect: env.affect.clone(),
            from: port("from")?,
            to: port("to")?,
            source: port("source"),
            source_kind: port("source").and_then(|i| info.ports[i].kind),
            paths: port("paths")?,
            outer: None,
            pool: Vec::new(),
        })),
        _ => None,
    }
}

/// `Move(in direction)` on a motor board that makes grid steps: the simulated one here, the
/// Romi on the robot (`hardware`).
pub(crate) fn grid_move(
    motor: Box<dyn Motor>,
    info: &LeafInfo,
    enums: Rc<Vec<EnumInfo>>,
) -> Option<Box<dyn Leaf>> {
    let port = info.ports.iter().position(|p| p.name == "direction")?;
    Some(Box::new(GridMove {
        motor,
        port,
        kind: info.ports[port].kind,
        enums,
    }))
}

struct GridMove {
    motor: Box<dyn Motor>,
    port: usize,
    kind: Option<ValueKind>,
    enums: Rc<Vec<EnumInfo>>,
}

impl Leaf for GridMove {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        if call.starting {
            let Some(d) = direction(&self.enums, self.kind, call.inputs[self.port]) else {
                return Status::Failure;
            };
            if self.motor.command(MotorCommand::Step(d)).is_err() {
                return Status::Failure;
            }
        }
        match self.motor.status() {
            Ok(MotorStatus::Moving) => Status::Running,
            Ok(MotorStatus::Idle) => Status::Success,
            _ => Status::Failure,
        }
    }

    fn halt(&mut self, _now_ms: f64) {
        let _ = self.motor.command(MotorCommand::Stop);
    }
}

struct ObstacleAhead {
    world: SharedWorld,
    agent: AgentId,
    port: usize,
    kind: Option<ValueKind>,
    enums: Rc<Vec<EnumInfo>>,
}

impl Leaf for ObstacleAhead {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        let Some(d) = direction(&self.enums, self.kind, call.inputs[self.port]) else {
            return Status::Failure;
        };
        let Ok(w) = self.world.try_borrow() else {
            return Status::Failure;
        };
        let Some(here) = w.cell_of(self.agent) else {
            return Status::Failure;
        };
        let free = w
            .neighbours(here)
            .into_iter()
            .any(|(dir, cell)| dir == d && w.occupant(cell).is_none());
        if free {
            Status::Failure
        } else {
            Status::Success
        }
    }
}

/// Candidate paths from the map, shortest first; when the source is `Memory`, only those
/// made of places long-term memory knows and of connections the robot has travelled (the
/// seed's "learning by experience" versus "by being told").
struct TracePaths {
    world: SharedWorld,
    labels: Rc<Labels>,
    enums: Rc<Vec<EnumInfo>>,
    affect: Rc<RefCell<AgentAffect>>,
    from: usize,
    to: usize,
    source: Option<usize>,
    source_kind: Option<ValueKind>,
    paths: usize,
    /// The output list and the path lists it holds, reused from call to call.
    outer: Option<f64>,
    pool: Vec<f64>,
}

const EXTRA_STEPS: usize = 2;
const MAX_PATHS: usize = 8;

/// What `TracePaths` hands out: the map's paths from `from` to `to` at most `EXTRA_STEPS`
/// longer than the shortest, shortest first, that `keep` accepts, at most `MAX_PATHS` of
/// them. `keep` chooses before the limit applies, so a remembered detour is not crowded out
/// by shorter paths through places the robot has never been.
fn candidate_paths(
    world: &World,
    from: char,
    to: char,
    keep: impl Fn(&[char]) -> bool,
) -> Vec<Vec<char>> {
    world
        .paths_between(from, to, EXTRA_STEPS, usize::MAX)
        .into_iter()
        .filter(|p| keep(p))
        .take(MAX_PATHS)
        .collect()
}

impl Leaf for TracePaths {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        let (Some(a), Some(b)) = (
            self.labels.char_of(call.inputs[self.from]),
            self.labels.char_of(call.inputs[self.to]),
        ) else {
            return Status::Failure;
        };
        let from_memory = match (self.source, self.source_kind) {
            (Some(i), Some(ValueKind::Enum(e))) => {
                let v = call.inputs[i];
                self.enums
                    .get(e as usize)
                    .and_then(|en| en.variants.get(v as usize))
                    .is_some_and(|n| n == "Memory")
            }
            _ => false,
        };
        let affect = self.affect.borrow();
        let recalled = |p: &[char]| {
            let (Some(m), Some(start)) = (affect.memories.first(), self.labels.symbol_of(a)) else {
                return false;
            };
            let route: Option<Vec<u32>> = p.iter().map(|c| self.labels.symbol_of(*c)).collect();
            route.is_some_and(|r| m.knows_route(start, &r))
        };
        let found = match self.world.try_borrow() {
            Ok(w) => candidate_paths(&w, a, b, |p| !from_memory || recalled(p)),
            Err(_) => return Status::Failure,
        };
        let keep: Vec<Vec<f64>> = found
            .into_iter()
            .map(|p| {
                p.iter()
                    .filter_map(|c| self.labels.symbol_of(*c))
                    .map(f64::from)
                    .collect()
            })
            .collect();
        drop(affect);
        while self.pool.len() < keep.len() {
            self.pool.push(call.lists.alloc(&[]));
        }
        for (i, p) in keep.iter().enumerate() {
            call.lists.set(self.pool[i], p);
        }
        let outer = *self.outer.get_or_insert_with(|| call.lists.alloc(&[]));
        call.lists.set(outer, &self.pool[..keep.len()]);
        call.outputs[self.paths] = Some(outer);
        if keep.is_empty() {
            Status::Failure
        } else {
            Status::Success
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed's floor (Fig. 23).
    fn floor() -> World {
        let src = r#"world Floor {
            grid 5 x 5 cell 24cm labels "OITWG / SDA.U / HXKVN / CMFRE / PQLBJ";
            spawn Navigator at P;
        }"#;
        crate::test_support::world(src)
    }

    fn path(s: &str) -> Vec<char> {
        s.chars().filter(|c| !c.is_whitespace()).collect()
    }

    #[test]
    fn remembered_detours_are_not_crowded_out_by_unknown_shorter_paths() {
        let w = floor();
        // Seed 003, Fig. 55: the robot knows the dark way P C H X K A and the bright way
        // P C H S O I D A. The map has more than `MAX_PATHS` paths of up to seven steps from
        // P to A, the bright one among the longest: filtering after the limit lost it.
        let (dark, bright) = (path("C H X K A"), path("C H S O I D A"));
        assert!(w.paths_between('P', 'A', EXTRA_STEPS, usize::MAX).len() > MAX_PATHS);
        let known = |p: &[char]| p == dark.as_slice() || p == bright.as_slice();
        assert_eq!(candidate_paths(&w, 'P', 'A', known), vec![dark, bright]);
        // From the map, the shortest come first and at most `MAX_PATHS` of them.
        let all = candidate_paths(&w, 'P', 'A', |_| true);
        assert_eq!(all.len(), MAX_PATHS);
        assert_eq!(
            all[0],
            path("C H S D A"),
            "ties break Up, Down, Left, Right"
        );
        assert!(all.iter().all(|p| p.len() == 5));
    }
}
