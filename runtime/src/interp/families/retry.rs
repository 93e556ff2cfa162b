//! `retry(n) { .. }`, BehaviorTree.CPP's RetryUntilSuccessful: ticks a failing child again,
//! up to `n` attempts (-1: forever), reading the port again after each failure.

use super::Family;
use crate::interp::Machine;
use affect_compiler::ir::program::{Decorator, NodeId, Status};

pub(crate) struct Node;

impl Family for Node {
    fn tick(m: &mut Machine, n: NodeId, d: &Decorator) -> Status {
        let attempts = d.value(0);
        let i = n as usize;
        let mut max = m.arg(attempts) as i32;
        let mut again = m.state[i].a < max || max == -1;
        m.set_status(n, Status::Running);
        while again {
            let c = m.child(n, 0);
            let prev = m.status[c as usize];
            match m.execute_tick(c) {
                Status::Success => {
                    m.state[i].a = 0;
                    m.reset_child(n);
                    return Status::Success;
                }
                Status::Failure => {
                    m.state[i].a += 1;
                    // BehaviorTree.CPP reads the port again here.
                    max = m.arg(attempts) as i32;
                    again = m.state[i].a < max || max == -1;
                    m.reset_child(n);
                    if prev == Status::Idle && again {
                        m.woken = true;
                        return Status::Running;
                    }
                }
                Status::Running => return Status::Running,
                _ => {
                    m.reset_child(n);
                    return Status::Skipped;
                }
            }
        }
        m.state[i].a = 0;
        Status::Failure
    }

    fn halt(m: &mut Machine, n: NodeId, _d: &Decorator) {
        m.state[n as usize].a = 0;
        m.decorator_halt(n);
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
