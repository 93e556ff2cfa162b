//! Extra roots of the node table: the trees behaviour modules run (seed 004). The arbiter
//! ticks each one while its module runs, halts it when the module stops, and forgets what it
//! kept when the module starts afresh.

use super::{Machine, NodeState};
use affect_compiler::ir::program::{NodeId, NodeKind, Status};

impl Machine<'_> {
    /// Ticks the tree rooted at `root` once, as [`Machine::tick_tree`] ticks `main`: the root
    /// is reset when it completes.
    pub fn tick_root(&mut self, root: NodeId) -> Status {
        if let Some(native) = self.native.clone() {
            if let Some(s) = native.tick_root(self, root) {
                return s;
            }
        }
        let s = self.execute_tick(root);
        if s.is_completed() {
            self.reset_status(root);
        }
        s
    }

    /// Halts the tree rooted at `root` (BehaviorTree.CPP's `haltTree`): running nodes are
    /// halted and reset. What nodes keep across a halt stays, so the tree can resume: a
    /// `sequence_with_memory` keeps its place, the blackboard its values.
    pub fn halt_root(&mut self, root: NodeId) {
        if self.status[root as usize] == Status::Running {
            self.halt_node(root);
        }
        self.reset_status(root);
    }

    /// Forgets what the nodes `root..end` kept (cursors, counters, timers, a
    /// `sequence_with_memory`'s place), so the tree starts afresh; call on a halted tree.
    pub fn reset_nodes(&mut self, root: NodeId, end: NodeId) {
        for n in root..end {
            let i = n as usize;
            if i >= self.state.len() {
                break;
            }
            if self.status[i] != Status::Idle {
                self.reset_status(n);
            }
            let reactive = matches!(
                self.prog.nodes[i].kind,
                NodeKind::Switch { .. } | NodeKind::ReactiveSequence | NodeKind::ReactiveFallback
            );
            self.state[i] = NodeState {
                a: if reactive { -1 } else { 0 },
                b: 0,
                deadline: f64::NAN,
                flags: 0,
            };
            let (first, count) = self.prog.nodes[i].children;
            for e in first..first + count {
                if let Some(d) = self.done.get_mut(e as usize) {
                    *d = false;
                }
            }
        }
    }
}
