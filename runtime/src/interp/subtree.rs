//! Subtree instances, as BehaviorTree.CPP 4.8 ticks them (a decorator over the subtree's
//! root). The built-in decorators are families: `families/`.

use super::Machine;
use affect_compiler::ir::program::{NodeId, NodeKind, Status};

impl<'p> Machine<'p> {
    /// A subtree instance: its `in` ports are computed when it starts, then its root runs.
    pub(super) fn tick_subtree(&mut self, n: NodeId) -> Status {
        let i = n as usize;
        if self.status[i] == Status::Idle {
            let prog = self.prog;
            if let NodeKind::SubTree { inputs } = &prog.nodes[i].kind {
                for &(slot, code) in inputs {
                    let v = self.eval(code);
                    self.store(slot, v);
                }
            }
            self.set_status(n, Status::Running);
        }
        let c = self.child(n, 0);
        let s = self.execute_tick(c);
        if s.is_completed() {
            self.reset_child(n);
        }
        s
    }
}
