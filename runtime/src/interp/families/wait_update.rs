//! `wait_update(x) { .. }`, BehaviorTree.CPP's WaitValueUpdate: RUNNING until the variable
//! is written, then the child runs (the steps are SkipUnlessUpdated's,
//! `skip_unless_updated.rs`).

use super::{CHILD_RUNNING, Family};
use crate::interp::Machine;
use affect_compiler::ir::program::{Decorator, NodeId, Status};

pub(crate) struct Node;

impl Family for Node {
    fn tick(m: &mut Machine, n: NodeId, d: &Decorator) -> Status {
        m.tick_entry_updated(n, d.slot(0), Status::Running)
    }

    /// As SkipUnlessUpdated's: only the running child is forgotten.
    fn halt(m: &mut Machine, n: NodeId, _d: &Decorator) {
        m.state[n as usize].flags &= !CHILD_RUNNING;
    }
}

/// The same steps, compiled.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(super) mod compiled {
    use super::Node;
    use crate::interp::families::compiled::{Compiled, Emit};
    use crate::interp::families::{CHILD_RUNNING};
    use crate::interp::families::skip_unless_updated::compiled::emit_entry_updated;
    use affect_compiler::ir::program::{Decorator, NodeId, Status};
    use cranelift_codegen::ir::Block;

    impl Compiled for Node {
        fn emit<'x, E: Emit<'x>>(
            fx: &mut E,
            n: NodeId,
            d: &Decorator,
            out: Block,
        ) -> Result<(), E::Error> {
            emit_entry_updated(fx, n, d.slot(0), Status::Running, out)
        }

        fn emit_halt<'x, E: Emit<'x>>(fx: &mut E, n: NodeId, _d: &Decorator) -> Result<(), E::Error> {
            fx.flags_clear(n, CHILD_RUNNING);
            Ok(())
        }
    }
}
