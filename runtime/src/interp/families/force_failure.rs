//! `force_failure { .. }`, BehaviorTree.CPP's ForceFailure: a completed child counts as
//! FAILURE (the steps are ForceSuccess's, `force_success.rs`).

use super::Family;
use crate::interp::Machine;
use affect_compiler::ir::program::{Decorator, NodeId, Status};

pub(crate) struct Node;

impl Family for Node {
    fn tick(m: &mut Machine, n: NodeId, _d: &Decorator) -> Status {
        m.tick_force(n, Status::Failure)
    }
}

/// The same steps, compiled.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(super) mod compiled {
    use super::Node;
    use crate::interp::families::compiled::{Compiled, Emit};
    use crate::interp::families::force_success::compiled::emit_force;
    use affect_compiler::ir::program::{Decorator, NodeId, Status};
    use cranelift_codegen::ir::Block;

    impl Compiled for Node {
        fn emit<'x, E: Emit<'x>>(
            fx: &mut E,
            n: NodeId,
            _d: &Decorator,
            out: Block,
        ) -> Result<(), E::Error> {
            emit_force(fx, n, Status::Failure, out)
        }
    }
}
