//! Foreign nodes: actions and conditions the program declares but does not define. The
//! runtime binds each instance to an implementation — a simulator leaf, a device, or a
//! stand-in that returns a configured status (what `--leaf` and `--leaf-default` set, and
//! what the BehaviorTree.CPP oracle's custom nodes do).

use crate::devices::sim::SharedWorld;
use crate::world::AgentId;
use affect_compiler::ir::program::{LeafInfo, Node, NodeId, Program, Status};

/// One call of a foreign node.
pub struct LeafCall<'a> {
    pub now_ms: f64,
    /// Ticked from IDLE (BehaviorTree.CPP's `onStart`) rather than while RUNNING
    /// (`onRunning`).
    pub starting: bool,
    /// The value of each declared port, in declaration order (`NaN` when not given).
    pub inputs: &'a [f64],
    /// Set an entry to write the declared port at that position.
    pub outputs: &'a mut [Option<f64>],
    /// Where list values live (a list port's value is a list id).
    pub lists: &'a mut crate::lists::Lists,
}

pub trait Leaf {
    /// Ticks the node; returns SUCCESS, FAILURE or RUNNING.
    fn tick(&mut self, call: &mut LeafCall) -> Status;
    /// The node was halted while RUNNING.
    fn halt(&mut self, _now_ms: f64) {}
}

/// Implementations of declared leaves from outside the simulator: the user's own nodes
/// (`nodes::NodeRegistry`) and the robot's devices (`hardware::Opened`). A run tries its
/// sources in order, before the simulator's leaves.
pub trait LeafSource {
    /// A leaf for one instance of `info`, if this source implements it. `place` is the
    /// instance's world and its place in it, when the run has a world.
    fn bind(
        &self,
        info: &LeafInfo,
        program: &Program,
        place: Option<(&SharedWorld, AgentId)>,
    ) -> Option<Box<dyn Leaf>>;
}

/// Plays a script of statuses, one per call, repeating the last: `running,success` runs
/// for one tick, then succeeds every time after. This is the BehaviorTree.CPP oracle's
/// stand-in for custom nodes, so both sides behave alike. A cycling script
/// (`--leaf-cycle`) starts over after its last status instead; `writes` are the out ports
/// it sets on every call (`--leaf-out`), by position in the declaration.
#[derive(Clone, Debug)]
pub struct StandIn {
    script: Vec<Status>,
    at: usize,
    cycle: bool,
    writes: Vec<(usize, f64)>,
}

impl StandIn {
    pub fn new(script: Vec<Status>) -> StandIn {
        let script = if script.is_empty() {
            vec![Status::Success]
        } else {
            script
        };
        StandIn {
            script,
            at: 0,
            cycle: false,
            writes: Vec::new(),
        }
    }

    /// Plays the script over and over.
    pub fn cycling(mut self, cycle: bool) -> StandIn {
        self.cycle = cycle;
        self
    }

    /// Writes `value` to the declared port at `port` on every call.
    pub fn writing(mut self, writes: Vec<(usize, f64)>) -> StandIn {
        self.writes = writes;
        self
    }
}

impl Leaf for StandIn {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        let last = self.script.len() - 1;
        let s = self.script[self.at.min(last)];
        self.at = match (self.cycle, self.at >= last) {
            (true, true) => 0,
            (false, true) => last,
            _ => self.at + 1,
        };
        for &(port, value) in &self.writes {
            if let Some(out) = call.outputs.get_mut(port) {
                *out = Some(value);
            }
        }
        s
    }
}

/// The statuses one foreign node plays (`--leaf`, `--leaf-cycle`).
#[derive(Clone, Debug, PartialEq)]
pub struct LeafScript {
    /// A node path, a label or a declared leaf name.
    pub key: String,
    pub statuses: Vec<Status>,
    /// Start over after the last status instead of repeating it.
    pub cycle: bool,
}

/// What a stand-in writes to one of its out ports on every call (`--leaf-out`).
#[derive(Clone, Debug, PartialEq)]
pub struct LeafOut {
    /// A node path, a label or a declared leaf name.
    pub node: String,
    pub port: String,
    /// The value as written on the command line, read as the port's variable's type.
    pub value: String,
}

/// How closely `key` names a foreign node: by its path (0), its label (1) or its declared
/// name (2); a more specific key wins over a less specific one.
pub fn rank(node: &Node, info: &LeafInfo, key: &str) -> Option<u8> {
    if key == node.path {
        Some(0)
    } else if key == node.name {
        Some(1)
    } else if key == info.name {
        Some(2)
    } else {
        None
    }
}

/// What one stand-in writes on every call (`--leaf-out`): the value of the declared port at
/// `port` of node `node` in agent program `agent`.
#[derive(Clone, Debug, PartialEq)]
pub struct StandInWrite {
    pub agent: String,
    pub node: NodeId,
    pub port: usize,
    pub value: f64,
}

/// Wraps the implementation of each foreign node as agents are built: `(instance, node,
/// implementation) -> implementation`. `affect run --groot2-hooks` puts Groot 2's hooks
/// around actions and conditions this way, in both engines.
#[derive(Clone)]
pub struct LeafWrap(pub std::rc::Rc<WrapFn>);

/// `(instance, node, implementation) -> implementation`.
pub type WrapFn = dyn Fn(&str, NodeId, Box<dyn Leaf>) -> Box<dyn Leaf>;

impl std::fmt::Debug for LeafWrap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LeafWrap")
    }
}

/// The implementation of each foreign node instance, by node id.
#[derive(Default)]
pub struct LeafTable {
    leaves: Vec<Option<Box<dyn Leaf>>>,
}

impl LeafTable {
    pub fn new(nodes: usize) -> LeafTable {
        LeafTable {
            leaves: (0..nodes).map(|_| None).collect(),
        }
    }

    pub fn set(&mut self, node: NodeId, leaf: Box<dyn Leaf>) {
        let i = node as usize;
        if i >= self.leaves.len() {
            self.leaves.resize_with(i + 1, || None);
        }
        self.leaves[i] = Some(leaf);
    }

    /// Replaces every bound implementation by what `f` makes of it.
    pub fn wrap_all(&mut self, mut f: impl FnMut(NodeId, Box<dyn Leaf>) -> Box<dyn Leaf>) {
        for (i, slot) in self.leaves.iter_mut().enumerate() {
            if let Some(leaf) = slot.take() {
                *slot = Some(f(i as NodeId, leaf));
            }
        }
    }

    pub fn get_mut(&mut self, node: NodeId) -> Option<&mut dyn Leaf> {
        match self.leaves.get_mut(node as usize) {
            Some(Some(l)) => Some(l.as_mut()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Leaf, LeafCall, StandIn};
    use affect_compiler::ir::program::Status::{self, Failure, Running, Success};

    /// The statuses a stand-in plays in `n` calls, and what it wrote to two ports.
    fn play(mut s: StandIn, n: usize) -> (Vec<Status>, Vec<Option<f64>>) {
        let mut lists = crate::lists::Lists::default();
        let mut outputs = vec![None, None];
        let statuses = (0..n)
            .map(|_| {
                let mut call = LeafCall {
                    now_ms: 0.0,
                    starting: true,
                    inputs: &[f64::NAN, f64::NAN],
                    outputs: &mut outputs,
                    lists: &mut lists,
                };
                s.tick(&mut call)
            })
            .collect();
        (statuses, outputs)
    }

    #[test]
    fn a_script_repeats_its_last_status_and_a_cycling_one_starts_over() {
        let script = vec![Running, Running, Success];
        let (once, _) = play(StandIn::new(script.clone()), 7);
        assert_eq!(
            once,
            [Running, Running, Success, Success, Success, Success, Success]
        );
        let (cycled, _) = play(StandIn::new(script).cycling(true), 7);
        assert_eq!(
            cycled,
            [Running, Running, Success, Running, Running, Success, Running]
        );
        let (single, _) = play(StandIn::new(vec![Failure]).cycling(true), 3);
        assert_eq!(single, [Failure, Failure, Failure]);
    }

    #[test]
    fn a_stand_in_writes_the_ports_it_is_given_and_no_others() {
        let (_, written) = play(StandIn::new(vec![Success]).writing(vec![(1, 2.5)]), 1);
        assert_eq!(written, [None, Some(2.5)]);
        let (_, written) = play(StandIn::new(vec![Success]), 1);
        assert_eq!(written, [None, None]);
    }
}
