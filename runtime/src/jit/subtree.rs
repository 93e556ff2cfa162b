//! Subtree instances, emitted as `interp/subtree.rs` runs them; see `tick.rs`. The
//! built-in decorators are families: `interp/families/`.

use super::emit::Fx;
use super::JitError;
use affect_compiler::ir::program::{Code, NodeId, SlotId, Status};
use cranelift_codegen::ir::Block;

impl Fx<'_, '_> {
    /// A subtree instance: its `in` ports are computed when it starts, then its root runs.
    pub(super) fn tick_subtree(
        &mut self,
        n: NodeId,
        inputs: &[(SlotId, Code)],
        out: Block,
    ) -> Result<(), JitError> {
        let st = self.status_of(n);
        let idle = self.eq_imm(st, Status::Idle as i64);
        let (_, cont) = self.if_then(idle);
        for (slot, code) in inputs {
            let v = self.eval(*code)?;
            self.store_value(*slot, v);
        }
        self.set_status_c(n, Status::Running);
        self.end_if(cont);
        self.child_passthrough(n, out)
    }
}
