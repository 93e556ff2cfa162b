//! `run_once { .. }`, BehaviorTree.CPP's RunOnce: the child runs to completion once; after
//! that the node is SKIPPED (`then_skip`) or returns the child's status again.

use super::{Family, RAN_ONCE};
use crate::interp::Machine;
use affect_compiler::ir::program::{Decorator, NodeId, Status};

pub(crate) struct Node;

impl Family for Node {
    fn tick(m: &mut Machine, n: NodeId, d: &Decorator) -> Status {
        let i = n as usize;
        if m.state[i].flags & RAN_ONCE != 0 {
            return if d.flag(0) {
                Status::Skipped
            } else {
                Status::from_index(m.state[i].b as u8)
            };
        }
        m.set_status(n, Status::Running);
        let c = m.child(n, 0);
        let s = m.execute_tick(c);
        if s.is_completed() {
            m.state[i].flags |= RAN_ONCE;
            m.state[i].b = s as i32;
            m.reset_child(n);
        }
        s
    }
}

/// The same steps, compiled.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(super) mod compiled {
    use super::Node;
    use crate::interp::families::compiled::{Compiled, Emit};
    use crate::interp::families::{RAN_ONCE};
    use affect_compiler::ir::program::{Decorator, NodeId, Status};
    use cranelift_codegen::ir::condcodes::IntCC;
    use cranelift_codegen::ir::{Block, InstBuilder};

    impl Compiled for Node {
        fn emit<'x, E: Emit<'x>>(
            fx: &mut E,
            n: NodeId,
            d: &Decorator,
            out: Block,
        ) -> Result<(), E::Error> {
            let ran = fx.flag_set(n, RAN_ONCE);
            let (_, go) = fx.if_then(ran);
            if d.flag(0) {
                fx.exit(out, Status::Skipped);
            } else {
                // `Status::from_index(b as u8)`: 1..=4 are statuses, anything else IDLE.
                let b = fx.load_b(n);
                let low = fx.b().ins().band_imm_s(b, 0xff);
                let above = fx
                    .b()
                    .ins()
                    .icmp_imm_s(IntCC::UnsignedGreaterThan, low, 4);
                let zero = fx.i32c(0);
                let r = fx.b().ins().select(above, zero, low);
                fx.jump_status(out, r);
            }
            fx.b().switch_to_block(go);
            fx.set_status_c(n, Status::Running);
            let s = fx.tick_only_child(n, out)?;
            fx.flags_or(n, RAN_ONCE);
            fx.store_b(n, s);
            fx.reset_child(n)?;
            fx.jump_status(out, s);
            Ok(())
        }
    }
}
