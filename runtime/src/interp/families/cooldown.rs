//! `cooldown(5s) { .. }`: the child runs as usual; when it completes (SUCCESS or FAILURE,
//! passed on), the node starts a timer, and until it fires every tick returns FAILURE
//! without ticking the child. A halt stops a running child but not the cooldown: what was
//! done stays done. `cpp/affect_bt.hpp`'s `Cooldown` is the same for BehaviorTree.CPP.

use super::Family;
use crate::interp::Machine;
use affect_compiler::ir::program::{Decorator, NodeId, Status};

/// The timer is armed: the child completed less than the duration ago.
const COOLING: u8 = 1;

pub(crate) struct Node;

impl Family for Node {
    fn tick(m: &mut Machine, n: NodeId, d: &Decorator) -> Status {
        let i = n as usize;
        if m.state[i].flags & COOLING != 0 {
            return Status::Failure;
        }
        m.set_status(n, Status::Running);
        let c = m.child(n, 0);
        let s = m.execute_tick(c);
        if s.is_completed() {
            m.reset_child(n);
            let ms = m.arg(d.value(0));
            if ms > 0.0 {
                m.state[i].flags |= COOLING;
                m.arm(n, m.now_ms + ms);
            }
        }
        s
    }

    /// The cooldown is over; nothing waits for it (the tree is not woken).
    fn fire_timer(m: &mut Machine, n: NodeId) -> bool {
        m.state[n as usize].flags &= !COOLING;
        false
    }
}

/// The same steps, compiled.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(super) mod compiled {
    use super::{Node, COOLING};
    use crate::interp::families::compiled::{Compiled, Emit};
    use affect_compiler::ir::program::{Decorator, NodeId, Status};
    use cranelift_codegen::ir::condcodes::FloatCC;
    use cranelift_codegen::ir::{Block, InstBuilder};

    impl Compiled for Node {
        fn emit<'x, E: Emit<'x>>(
            fx: &mut E,
            n: NodeId,
            d: &Decorator,
            out: Block,
        ) -> Result<(), E::Error> {
            let cooling = fx.flag_set(n, COOLING);
            let (_, go) = fx.if_then(cooling);
            fx.exit(out, Status::Failure);
            fx.b().switch_to_block(go);
            fx.set_status_c(n, Status::Running);
            let s = fx.tick_only_child(n, out)?;
            fx.reset_child(n)?;
            let ms = fx.node_arg(n, 0, d.value(0))?;
            let zero = fx.f64c(0.0);
            let positive = fx.b().ins().fcmp(FloatCC::GreaterThan, ms, zero);
            let (_, cont) = fx.if_then(positive);
            fx.flags_or(n, COOLING);
            let now = fx.now();
            let at = fx.b().ins().fadd(now, ms);
            fx.store_deadline(n, at);
            fx.end_if(cont);
            fx.jump_status(out, s);
            Ok(())
        }
    }
}
