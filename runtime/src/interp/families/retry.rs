//! `retry(n) { .. }`, BehaviorTree.CPP's RetryUntilSuccessful: ticks a failing child again,
//! up to `n` attempts (-1: forever), reading the port again after each failure.

use super::Family;
use crate::interp::Machine;
use affect_compiler::ir::program::{Decorator, NodeId, Status};

pub(crate) struct Node;

impl Family for Node {
    fn tick(m: &mut Machine, n: NodeId, d: &Decorator) -> Status {
        super::repeat::tick_repeat_retry(m, n, d, Status::Failure)
    }

    fn halt(m: &mut Machine, n: NodeId, d: &Decorator) {
        <super::repeat::Node as Family>::halt(m, n, d);
    }
}

/// The same steps, compiled.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(super) mod compiled {
    use super::Node;
    use crate::interp::families::compiled::{Compiled, Emit};
    use crate::interp::families::repeat::compiled::emit_repeat_retry;
    use affect_compiler::ir::program::{Decorator, NodeId, Status};
    use cranelift_codegen::ir::Block;

    impl Compiled for Node {
        fn emit<'x, E: Emit<'x>>(
            fx: &mut E,
            n: NodeId,
            d: &Decorator,
            out: Block,
        ) -> Result<(), E::Error> {
            emit_repeat_retry(fx, n, d.value(0), Status::Failure, out)
        }

        fn emit_halt<'x, E: Emit<'x>>(fx: &mut E, n: NodeId, _d: &Decorator) -> Result<(), E::Error> {
            fx.store_a_c(n, 0);
            fx.decorator_halt(n)
        }
    }
}
