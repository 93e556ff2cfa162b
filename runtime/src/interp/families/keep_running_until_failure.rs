//! `keep_running_until_failure { .. }`, BehaviorTree.CPP's KeepRunningUntilFailure: RUNNING
//! while the child succeeds, FAILURE when it fails.

use super::Family;
use crate::interp::Machine;
use affect_compiler::ir::program::{Decorator, NodeId, Status};

pub(crate) struct Node;

impl Family for Node {
    fn tick(m: &mut Machine, n: NodeId, _d: &Decorator) -> Status {
        m.set_status(n, Status::Running);
        let c = m.child(n, 0);
        match m.execute_tick(c) {
            Status::Failure => {
                m.reset_child(n);
                Status::Failure
            }
            Status::Success => {
                m.reset_child(n);
                Status::Running
            }
            Status::Running => Status::Running,
            _ => m.status[n as usize],
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
        fn emit<'x, E: Emit<'x>>(
            fx: &mut E,
            n: NodeId,
            _d: &Decorator,
            out: Block,
        ) -> Result<(), E::Error> {
            fx.set_status_c(n, Status::Running);
            let c = fx.child(n);
            let s = fx.execute_tick(c)?;
            let (fail, succ, run) = blocks3(fx);
            let other = fx.b().create_block();
            let possible = fx.possible(c);
            fx.route(
                s,
                possible,
                &[(F, fail), (S, succ), (R, run), (I | K, other)],
            );
            fx.b().switch_to_block(fail);
            fx.reset_child(n)?;
            fx.exit(out, Status::Failure);
            fx.b().switch_to_block(succ);
            fx.reset_child(n)?;
            fx.exit(out, Status::Running);
            fx.b().switch_to_block(run);
            fx.exit(out, Status::Running);
            fx.b().switch_to_block(other);
            let st = fx.status_of(n);
            fx.jump_status(out, st);
            Ok(())
        }
    }
}
