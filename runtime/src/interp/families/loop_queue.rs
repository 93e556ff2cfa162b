//! `for value in queue { .. }`, BehaviorTree.CPP's `Loop<T>` (LoopInt, LoopDouble, ...):
//! pops the queue's first element into `value` and ticks the child, RUNNING until the queue
//! is empty (then `if_empty`) or the child fails. A literal queue (`queue="1;2;3"`) has a
//! hidden list, filled with a copy of the literal each time the loop starts (argument 3, the
//! literal's code), as BehaviorTree.CPP copies its static queue.

use super::{CHILD_RUNNING, Family};
use crate::interp::Machine;
use affect_compiler::ir::program::{Decorator, DecoratorArg, NodeId, SlotId, Status};

pub(crate) struct Node;

impl Family for Node {
    fn tick(m: &mut Machine, n: NodeId, d: &Decorator) -> Status {
        let (queue, value, if_empty) = (d.slot(0), d.slot(1), d.status(2));
        let i = n as usize;
        let mut popped = false;
        if m.status[i] == Status::Idle {
            m.state[i].flags &= !CHILD_RUNNING;
            if let Some(DecoratorArg::Code(fill)) = d.args.get(3) {
                let v = m.eval(*fill);
                m.store(queue, v);
            }
        }
        if m.state[i].flags & CHILD_RUNNING == 0 {
            popped = m.pop_into(queue, value);
        }
        if !popped && m.state[i].flags & CHILD_RUNNING == 0 {
            return if_empty;
        }
        if m.status[i] == Status::Idle {
            m.set_status(n, Status::Running);
        }
        let c = m.child(n, 0);
        let s = m.execute_tick(c);
        m.set_flag(n, CHILD_RUNNING, s == Status::Running);
        if s.is_completed() {
            m.reset_child(n);
        }
        if s == Status::Failure {
            Status::Failure
        } else {
            Status::Running
        }
    }
}

impl Machine<'_> {
    /// Pops the queue's first element into `value`; whether there was one. A queue that
    /// holds no value stops the tick (BehaviorTree.CPP's LoopNode throws casting the empty
    /// entry); a pop is a write of the queue.
    fn pop_into(&mut self, queue: SlotId, value: SlotId) -> bool {
        let list = self.list_checked(queue);
        let Some(v) = self.lists.pop_front(list) else {
            return false;
        };
        self.write(value, v);
        self.seq[queue as usize] = self.seq[queue as usize].wrapping_add(1);
        true
    }
}

/// The same steps, compiled.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(super) mod compiled {
    use super::Node;
    use crate::interp::families::compiled::{Compiled, Emit};
    use crate::interp::families::{CHILD_RUNNING};
    use affect_compiler::ir::program::{Decorator, DecoratorArg, NodeId, Status};
    use cranelift_codegen::ir::{types, Block, BlockArg, InstBuilder};

    impl Compiled for Node {
        fn emit<'x, E: Emit<'x>>(
            fx: &mut E,
            n: NodeId,
            d: &Decorator,
            out: Block,
        ) -> Result<(), E::Error> {
            let (queue, value, if_empty) = (d.slot(0), d.slot(1), d.status(2));
            let st = fx.status_of(n);
            let idle = fx.eq_imm(st, Status::Idle as i64);
            let (_, cont) = fx.if_then(idle);
            fx.flags_clear(n, CHILD_RUNNING);
            if let Some(DecoratorArg::Code(fill)) = d.args.get(3) {
                fx.store_code(queue, *fill)?;
            }
            fx.end_if(cont);
            let running = fx.flag_set(n, CHILD_RUNNING);
            let take = fx.b().create_block();
            let after = fx.b().create_block();
            fx.b().append_block_param(after, types::I8);
            let no = fx.b().ins().iconst(types::I8, 0);
            fx.b()
                .ins()
                .brif(running, after, &[BlockArg::Value(no)], take, &[]);
            fx.b().switch_to_block(take);
            let popped = fx.pop_front_into(queue, value);
            fx.b().ins().jump(after, &[BlockArg::Value(popped)]);
            fx.b().switch_to_block(after);
            let popped = fx.b().block_params(after)[0];
            let running = fx.flag_set(n, CHILD_RUNNING);
            let either = fx.b().ins().bor(popped, running);
            let empty = fx.b().create_block();
            let go = fx.b().create_block();
            fx.b().ins().brif(either, go, &[], empty, &[]);
            fx.b().switch_to_block(empty);
            fx.exit(out, if_empty);
            fx.b().switch_to_block(go);
            let st = fx.status_of(n);
            let idle = fx.eq_imm(st, Status::Idle as i64);
            let (_, cont) = fx.if_then(idle);
            fx.set_status_c(n, Status::Running);
            fx.end_if(cont);
            let c = fx.child(n);
            let s = fx.execute_tick(c)?;
            let is_running = fx.eq_imm(s, Status::Running as i64);
            fx.flags_set_to(n, CHILD_RUNNING, is_running);
            let completed = fx.is_completed(s);
            let (_, cont) = fx.if_then(completed);
            fx.reset_child(n)?;
            fx.end_if(cont);
            let failed = fx.eq_imm(s, Status::Failure as i64);
            let f = fx.status_c(Status::Failure);
            let r = fx.status_c(Status::Running);
            let res = fx.b().ins().select(failed, f, r);
            fx.jump_status(out, res);
            Ok(())
        }
    }
}
