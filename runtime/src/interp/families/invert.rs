//! `invert { .. }`, BehaviorTree.CPP's Inverter: SUCCESS and FAILURE swapped.

use super::Family;
use crate::interp::Machine;
use affect_compiler::ir::program::{Decorator, NodeId, Status};

pub(crate) struct Node;

impl Family for Node {
    fn tick(m: &mut Machine, n: NodeId, _d: &Decorator) -> Status {
        m.tick_inverter(n)
    }
}

impl Machine<'_> {
    /// Inlined into the tick loop's dispatch (`op::INVERTER`), the hottest decorator.
    #[inline(always)]
    pub(in crate::interp) fn tick_inverter(&mut self, n: NodeId) -> Status {
        self.set_status(n, Status::Running);
        let c = self.child(n, 0);
        match self.execute_tick(c) {
            Status::Success => {
                self.reset_child(n);
                Status::Failure
            }
            Status::Failure => {
                self.reset_child(n);
                Status::Success
            }
            other => other,
        }
    }
}

/// The same steps, compiled.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(super) mod compiled {
    use super::Node;
    use crate::interp::families::compiled::{Compiled, Emit, F, I, K, R, S, blocks3};
    use affect_compiler::ir::program::{Decorator, NodeId, Status};
    use cranelift_codegen::ir::Block;

    impl Compiled for Node {
        fn emit<'x, E: Emit<'x>>(fx: &mut E, n: NodeId, _d: &Decorator, out: Block) -> Result<(), E::Error> {
            fx.set_status_c(n, Status::Running);
            let c = fx.child(n);
            let s = fx.execute_tick(c)?;
            let (succ, fail, other) = blocks3(fx);
            let possible = fx.possible(c);
            fx.route(s, possible, &[(S, succ), (F, fail), (I | R | K, other)]);
            fx.b().switch_to_block(succ);
            fx.reset_child(n)?;
            fx.exit(out, Status::Failure);
            fx.b().switch_to_block(fail);
            fx.reset_child(n)?;
            fx.exit(out, Status::Success);
            fx.b().switch_to_block(other);
            fx.jump_status(out, s);
            Ok(())
        }
    }
}
