//! `skip_unless_updated(x) { .. }`, BehaviorTree.CPP's SkipUnlessUpdated: the child runs
//! when the variable was written since the node last looked, else the node is SKIPPED. Its
//! steps serve `wait_update.rs` too (which returns RUNNING instead).

use super::{CHILD_RUNNING, Family};
use crate::interp::Machine;
use affect_compiler::ir::program::{Decorator, NodeId, SlotId, Status};

pub(crate) struct Node;

impl Family for Node {
    fn tick(m: &mut Machine, n: NodeId, d: &Decorator) -> Status {
        m.tick_entry_updated(n, d.slot(0), Status::Skipped)
    }

    /// BehaviorTree.CPP's `EntryUpdatedDecorator::halt` only forgets the running child: it
    /// neither halts the child nor resets itself (its parent resets it).
    fn halt(m: &mut Machine, n: NodeId, _d: &Decorator) {
        m.state[n as usize].flags &= !CHILD_RUNNING;
    }
}

impl Machine<'_> {
    /// SkipUnlessUpdated and WaitValueUpdate: the child runs when `slot` was written since
    /// the last look, and goes on running once started.
    pub(super) fn tick_entry_updated(&mut self, n: NodeId, slot: SlotId, otherwise: Status) -> Status {
        let c = self.child(n, 0);
        if self.state[n as usize].flags & CHILD_RUNNING != 0 {
            let s = self.execute_tick(c);
            self.set_flag(n, CHILD_RUNNING, s == Status::Running);
            return s;
        }
        if !self.entry_updated(n, slot) {
            return otherwise;
        }
        let s = self.execute_tick(c);
        self.set_flag(n, CHILD_RUNNING, s == Status::Running);
        s
    }
}

/// The same steps, compiled.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(super) mod compiled {
    use super::Node;
    use crate::interp::families::compiled::{Compiled, Emit};
    use crate::interp::families::{CHILD_RUNNING};
    use affect_compiler::ir::program::{Decorator, NodeId, SlotId, Status};
    use cranelift_codegen::ir::condcodes::IntCC;
    use cranelift_codegen::ir::{Block, InstBuilder};

    impl Compiled for Node {
        fn emit<'x, E: Emit<'x>>(
            fx: &mut E,
            n: NodeId,
            d: &Decorator,
            out: Block,
        ) -> Result<(), E::Error> {
            emit_entry_updated(fx, n, d.slot(0), Status::Skipped, out)
        }

        fn emit_halt<'x, E: Emit<'x>>(fx: &mut E, n: NodeId, _d: &Decorator) -> Result<(), E::Error> {
            fx.flags_clear(n, CHILD_RUNNING);
            Ok(())
        }
    }

    /// SkipUnlessUpdated and WaitValueUpdate, compiled.
    pub(in crate::interp::families) fn emit_entry_updated<'x, E: Emit<'x>>(
        fx: &mut E,
        n: NodeId,
        slot: SlotId,
        otherwise: Status,
        out: Block,
    ) -> Result<(), E::Error> {
        let running = fx.flag_set(n, CHILD_RUNNING);
        let go = fx.b().create_block();
        let check = fx.b().create_block();
        fx.b().ins().brif(running, go, &[], check, &[]);
        fx.b().switch_to_block(check);
        let (current, previous) = fx.swap_seen(n, slot);
        let same = fx.b().ins().icmp(IntCC::Equal, previous, current);
        let no = fx.b().create_block();
        fx.b().ins().brif(same, no, &[], go, &[]);
        fx.b().switch_to_block(no);
        fx.exit(out, otherwise);
        fx.b().switch_to_block(go);
        let c = fx.child(n);
        let s = fx.execute_tick(c)?;
        let is_running = fx.eq_imm(s, Status::Running as i64);
        fx.flags_set_to(n, CHILD_RUNNING, is_running);
        fx.jump_status(out, s);
        Ok(())
    }
}
