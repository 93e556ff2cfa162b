//! `delay(1s) { .. }`, BehaviorTree.CPP's Delay: RUNNING until the timer fires, then the
//! child runs.

use super::{Family, STARTED, TIMER_DONE};
use crate::interp::Machine;
use affect_compiler::ir::program::{Decorator, NodeId, Status};

pub(crate) struct Node;

impl Family for Node {
    fn tick(m: &mut Machine, n: NodeId, d: &Decorator) -> Status {
        let ms = m.arg(d.value(0));
        let i = n as usize;
        if m.state[i].flags & STARTED == 0 {
            m.state[i].flags |= STARTED;
            m.state[i].flags &= !TIMER_DONE;
            m.set_status(n, Status::Running);
            m.arm(n, m.now_ms + ms.max(0.0));
        }
        if m.state[i].flags & TIMER_DONE != 0 {
            let c = m.child(n, 0);
            let s = m.execute_tick(c);
            if s.is_completed() {
                m.state[i].flags &= !(STARTED | TIMER_DONE);
                m.reset_child(n);
            }
            return s;
        }
        Status::Running
    }

    fn halt(m: &mut Machine, n: NodeId, _d: &Decorator) {
        m.state[n as usize].flags &= !(STARTED | TIMER_DONE);
        m.disarm(n);
        m.decorator_halt(n);
    }

    /// The delay is over: the next tick runs the child.
    fn fire_timer(m: &mut Machine, n: NodeId) -> bool {
        m.state[n as usize].flags |= TIMER_DONE;
        true
    }
}

/// The same steps, compiled.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(super) mod compiled {
    use super::Node;
    use crate::interp::families::compiled::{Compiled, Emit};
    use crate::interp::families::{STARTED, TIMER_DONE};
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
            let ms = fx.node_arg(n, 0, d.value(0))?;
            let started = fx.flag_set(n, STARTED);
            let not_started = fx.eq_imm(started, 0);
            let (_, cont) = fx.if_then(not_started);
            fx.flags_or(n, STARTED);
            fx.flags_clear(n, TIMER_DONE);
            fx.set_status_c(n, Status::Running);
            // `now + ms.max(0.0)`: a NaN or negative delay is no delay.
            let zero = fx.f64c(0.0);
            let positive = fx.b().ins().fcmp(FloatCC::GreaterThan, ms, zero);
            let wait = fx.b().ins().select(positive, ms, zero);
            let now = fx.now();
            let at = fx.b().ins().fadd(now, wait);
            fx.store_deadline(n, at);
            fx.end_if(cont);
            let fired = fx.flag_set(n, TIMER_DONE);
            let fired_blk = fx.b().create_block();
            let waiting = fx.b().create_block();
            fx.b().ins().brif(fired, fired_blk, &[], waiting, &[]);
            fx.b().switch_to_block(waiting);
            fx.exit(out, Status::Running);
            fx.b().switch_to_block(fired_blk);
            let s = fx.tick_only_child(n, out)?;
            fx.flags_clear(n, STARTED | TIMER_DONE);
            fx.reset_child(n)?;
            fx.jump_status(out, s);
            Ok(())
        }

        fn emit_halt<'x, E: Emit<'x>>(fx: &mut E, n: NodeId, _d: &Decorator) -> Result<(), E::Error> {
            fx.flags_clear(n, STARTED | TIMER_DONE);
            fx.disarm(n);
            fx.decorator_halt(n)
        }
    }
}
