//! `force_success { .. }`, BehaviorTree.CPP's ForceSuccess: a completed child counts as
//! SUCCESS. `force_failure.rs` is the same with FAILURE.

use super::Family;
use crate::interp::Machine;
use affect_compiler::ir::program::{Decorator, NodeId, Status};

pub(crate) struct Node;

impl Family for Node {
    fn tick(m: &mut Machine, n: NodeId, _d: &Decorator) -> Status {
        m.tick_force(n, Status::Success)
    }
}

impl Machine<'_> {
    /// ForceSuccess and ForceFailure; inlined into the tick loop's dispatch
    /// (`op::FORCE_SUCCESS`, `op::FORCE_FAILURE`).
    #[inline(always)]
    pub(in crate::interp) fn tick_force(&mut self, n: NodeId, forced: Status) -> Status {
        self.set_status(n, Status::Running);
        let c = self.child(n, 0);
        let s = self.execute_tick(c);
        if s.is_completed() {
            self.reset_child(n);
            forced
        } else {
            s
        }
    }
}

/// The same steps, compiled.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(super) mod compiled {
    use super::Node;
    use crate::interp::families::compiled::{Compiled, Emit};
    use affect_compiler::ir::program::{Decorator, NodeId, Status};
    use cranelift_codegen::ir::Block;

    impl Compiled for Node {
        fn emit<'x, E: Emit<'x>>(
            fx: &mut E,
            n: NodeId,
            _d: &Decorator,
            out: Block,
        ) -> Result<(), E::Error> {
            emit_force(fx, n, Status::Success, out)
        }
    }

    /// ForceSuccess and ForceFailure, compiled: a completed child gives `forced`.
    pub(in crate::interp::families) fn emit_force<'x, E: Emit<'x>>(
        fx: &mut E,
        n: NodeId,
        forced: Status,
        out: Block,
    ) -> Result<(), E::Error> {
        fx.set_status_c(n, Status::Running);
        fx.tick_only_child(n, out)?;
        fx.reset_child(n)?;
        fx.exit(out, forced);
        Ok(())
    }
}
