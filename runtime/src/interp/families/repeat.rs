//! `repeat(n) { .. }`, BehaviorTree.CPP's Repeat: ticks a successful child again, `n` times
//! in all (-1: forever). Its loop, interpreted and compiled, serves `retry.rs` too.

use super::Family;
use crate::interp::Machine;
use affect_compiler::ir::program::{Decorator, NodeId, Status};

pub(crate) struct Node;

impl Family for Node {
    fn tick(m: &mut Machine, n: NodeId, d: &Decorator) -> Status {
        tick_repeat_retry(m, n, d, Status::Success)
    }

    fn halt(m: &mut Machine, n: NodeId, _d: &Decorator) {
        m.state[n as usize].a = 0;
        m.decorator_halt(n);
    }
}

/// `repeat` and `retry`: tick the child again while it ends with `again_on` (success for
/// repeat, failure for retry) and the count allows; the other outcome ends the loop. Retry
/// reads its port again after each failure, as BehaviorTree.CPP does; repeat reads it once per
/// tick (as `compiled::emit_repeat_retry` does).
pub(super) fn tick_repeat_retry(m: &mut Machine, n: NodeId, d: &Decorator, again_on: Status) -> Status {
    let count = d.value(0);
    let i = n as usize;
    let mut max = m.arg(count) as i32;
    let mut again = m.state[i].a < max || max == -1;
    m.set_status(n, Status::Running);
    while again {
        let c = m.child(n, 0);
        let prev = m.status[c as usize];
        match m.execute_tick(c) {
            s if s == again_on => {
                m.state[i].a += 1;
                if again_on == Status::Failure {
                    max = m.arg(count) as i32;
                }
                again = m.state[i].a < max || max == -1;
                m.reset_child(n);
                if prev == Status::Idle && again {
                    m.woken = true;
                    return Status::Running;
                }
            }
            s @ (Status::Success | Status::Failure) => {
                m.state[i].a = 0;
                m.reset_child(n);
                return s;
            }
            Status::Running => return Status::Running,
            _ => {
                m.reset_child(n);
                return Status::Skipped;
            }
        }
    }
    m.state[i].a = 0;
    again_on
}

/// The same steps, compiled.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(super) mod compiled {
    use super::Node;
    use crate::interp::families::compiled::{Compiled, Emit, F, I, K, R, S, blocks3};
    use affect_compiler::ir::program::{Arg, Decorator, NodeId, Status};
    use cranelift_codegen::ir::{types, Block, BlockArg, InstBuilder, Value};
    use cranelift_codegen::ir::condcodes::IntCC;

    impl Compiled for Node {
        fn emit<'x, E: Emit<'x>>(
            fx: &mut E,
            n: NodeId,
            d: &Decorator,
            out: Block,
        ) -> Result<(), E::Error> {
            emit_repeat_retry(fx, n, d.value(0), Status::Success, out)
        }

        fn emit_halt<'x, E: Emit<'x>>(fx: &mut E, n: NodeId, _d: &Decorator) -> Result<(), E::Error> {
            fx.store_a_c(n, 0);
            fx.decorator_halt(n)
        }
    }

    /// `repeat` and `retry`, compiled: tick the child again while it ends with `again_on`
    /// (success for repeat, failure for retry) and the count allows; the other outcome ends the
    /// loop. Retry reads its port again after each failure, as BehaviorTree.CPP does; repeat
    /// reads it once per tick.
    pub(in crate::interp::families) fn emit_repeat_retry<'x, E: Emit<'x>>(
        fx: &mut E,
        n: NodeId,
        limit: Arg,
        again_on: Status,
        out: Block,
    ) -> Result<(), E::Error> {
        let retry = again_on == Status::Failure;
        let (done, other_end) = if retry {
            (Status::Failure, Status::Success)
        } else {
            (Status::Success, Status::Failure)
        };
        let max = fx.node_arg(n, 0, limit)?;
        let mut max = fx.int32_of(max);
        let again = repeat_again(fx, n, max);
        fx.set_status_c(n, Status::Running);
        let head = fx.b().create_block();
        fx.b().append_block_param(head, types::I8);
        let body = fx.b().create_block();
        let exit = fx.b().create_block();
        fx.b().ins().jump(head, &[BlockArg::Value(again)]);
        fx.b().switch_to_block(head);
        let again = fx.b().block_params(head)[0];
        fx.b().ins().brif(again, body, &[], exit, &[]);
        fx.b().switch_to_block(body);
        let c = fx.child(n);
        let prev = fx.status_of(c);
        let s = fx.execute_tick(c)?;
        let (repeat, stop, run) = blocks3(fx);
        let other = fx.b().create_block();
        let (rb, sb) = if retry { (F, S) } else { (S, F) };
        let possible = fx.possible(c);
        fx.route(
            s,
            possible,
            &[(rb, repeat), (sb, stop), (R, run), (I | K, other)],
        );
        fx.b().switch_to_block(stop);
        fx.store_a_c(n, 0);
        fx.reset_child(n)?;
        fx.exit(out, other_end);
        fx.b().switch_to_block(repeat);
        fx.incr_a(n);
        if retry {
            let m = fx.node_arg(n, 0, limit)?;
            max = fx.int32_of(m);
        }
        let again = repeat_again(fx, n, max);
        fx.reset_child(n)?;
        let was_idle = fx.eq_imm(prev, Status::Idle as i64);
        let yield_ = fx.b().ins().band(was_idle, again);
        let y = fx.b().create_block();
        fx.b()
            .ins()
            .brif(yield_, y, &[], head, &[BlockArg::Value(again)]);
        fx.b().switch_to_block(y);
        fx.wake();
        fx.exit(out, Status::Running);
        fx.b().switch_to_block(run);
        fx.exit(out, Status::Running);
        fx.b().switch_to_block(other);
        fx.reset_child(n)?;
        fx.exit(out, Status::Skipped);
        fx.b().switch_to_block(exit);
        fx.store_a_c(n, 0);
        fx.exit(out, done);
        Ok(())
    }

    /// `a < limit || limit == -1`.
    fn repeat_again<'x, E: Emit<'x>>(fx: &mut E, n: NodeId, limit: Value) -> Value {
        let a = fx.load_a(n);
        let below = fx.b().ins().icmp(IntCC::SignedLessThan, a, limit);
        let forever = fx.eq_imm(limit, -1);
        fx.b().ins().bor(below, forever)
    }
}
