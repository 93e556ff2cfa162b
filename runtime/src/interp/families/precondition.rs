//! `precondition(if: cond, else: status) { .. }`, BehaviorTree.CPP's Precondition: the
//! child starts only when the condition holds (else the node returns `else`), and runs on
//! once started.

use super::{CHILD_RUNNING, Family};
use crate::interp::Machine;
use affect_compiler::ir::program::{Decorator, NodeId, Status};

pub(crate) struct Node;

impl Family for Node {
    fn tick(m: &mut Machine, n: NodeId, d: &Decorator) -> Status {
        let (cond, otherwise) = (d.code(0), d.status(1));
        let i = n as usize;
        let running = m.state[i].flags & CHILD_RUNNING != 0;
        let go = running || m.eval_bool(cond);
        if !go {
            return otherwise;
        }
        m.state[i].flags |= CHILD_RUNNING;
        let c = m.child(n, 0);
        let s = m.execute_tick(c);
        if s.is_completed() {
            m.reset_child(n);
            m.state[i].flags &= !CHILD_RUNNING;
        }
        s
    }
}

/// The same steps, compiled.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(super) mod compiled {
    use super::Node;
    use crate::interp::families::compiled::{Compiled, Emit};
    use crate::interp::families::{CHILD_RUNNING};
    use affect_compiler::ir::program::{Decorator, NodeId};
    use cranelift_codegen::ir::{Block, InstBuilder};

    impl Compiled for Node {
        fn emit<'x, E: Emit<'x>>(
            fx: &mut E,
            n: NodeId,
            d: &Decorator,
            out: Block,
        ) -> Result<(), E::Error> {
            let running = fx.flag_set(n, CHILD_RUNNING);
            let go = fx.b().create_block();
            let check = fx.b().create_block();
            fx.b().ins().brif(running, go, &[], check, &[]);
            fx.b().switch_to_block(check);
            let v = fx.eval_bool(d.code(0))?;
            let no = fx.b().create_block();
            fx.b().ins().brif(v, go, &[], no, &[]);
            fx.b().switch_to_block(no);
            fx.exit(out, d.status(1));
            fx.b().switch_to_block(go);
            fx.flags_or(n, CHILD_RUNNING);
            let s = fx.tick_only_child(n, out)?;
            fx.reset_child(n)?;
            fx.flags_clear(n, CHILD_RUNNING);
            fx.jump_status(out, s);
            Ok(())
        }
    }
}
