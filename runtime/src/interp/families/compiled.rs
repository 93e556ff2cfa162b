//! The JIT's side of the decorator families: [`Compiled`], a family's emission, and
//! [`Emit`], the code generator's helpers it emits with (`jit/families.rs` implements it).

use affect_compiler::ir::program::{Arg, Code, Decorator, NodeId, SlotId, Status};
use cranelift_codegen::ir::{Block, Value};
use cranelift_frontend::FunctionBuilder;

/// A set of statuses, one bit per `Status` value: what the JIT knows a node can return
/// (`jit::plan`), so an emitter routes only those.
pub(crate) type StatusSet = u8;

pub(crate) const fn bit(s: Status) -> StatusSet {
    1 << (s as u8)
}

pub(crate) const ALL: StatusSet = 0b1_1111;
pub(crate) const I: StatusSet = bit(Status::Idle);
pub(crate) const R: StatusSet = bit(Status::Running);
pub(crate) const S: StatusSet = bit(Status::Success);
pub(crate) const F: StatusSet = bit(Status::Failure);
pub(crate) const K: StatusSet = bit(Status::Skipped);
pub(crate) const COMPLETED: StatusSet = S | F;

/// Three new blocks.
pub(crate) fn blocks3<'x, E: Emit<'x>>(fx: &mut E) -> (Block, Block, Block) {
    let b = fx.b();
    (b.create_block(), b.create_block(), b.create_block())
}

/// A family's compiled `tick()` and `halt()`, statement for statement as its interpreted
/// ones (`Family`).
pub(crate) trait Compiled {
    /// The JIT's `tick()`: every path ends by jumping to `out` with the status.
    fn emit<'x, E: Emit<'x>>(
        fx: &mut E,
        n: NodeId,
        d: &Decorator,
        out: Block,
    ) -> Result<(), E::Error>;

    /// The JIT's `halt()`.
    fn emit_halt<'x, E: Emit<'x>>(fx: &mut E, n: NodeId, _d: &Decorator) -> Result<(), E::Error> {
        fx.decorator_halt(n)
    }
}

/// What a family's JIT emission asks of the code generator: its helpers, named as the
/// interpreter's steps are, so the two halves of a family file read alike. Statuses are i32
/// values; status sets are `jit::plan`'s bit sets.
pub(crate) trait Emit<'x> {
    type Error;
    /// The function being built, for plain instructions.
    fn b(&mut self) -> &mut FunctionBuilder<'x>;
    /// The node's only child.
    fn child(&self, n: NodeId) -> NodeId;
    /// The statuses node `n`'s `execute_tick` can return.
    fn possible(&self, n: NodeId) -> u8;
    fn execute_tick(&mut self, n: NodeId) -> Result<Value, Self::Error>;
    /// Ticks the only child: a status other than success or failure goes to `out` as it
    /// is; code after it runs where the child completed, with its status.
    fn tick_only_child(&mut self, n: NodeId, out: Block) -> Result<Value, Self::Error>;
    /// `DecoratorNode::resetChild`.
    fn reset_child(&mut self, n: NodeId) -> Result<(), Self::Error>;
    /// `DecoratorNode::halt`: the child reset, then the node.
    fn decorator_halt(&mut self, n: NodeId) -> Result<(), Self::Error>;
    /// Argument `k` of node `n` as an f64 (a shared function reads a differing constant
    /// from its table).
    fn node_arg(&mut self, n: NodeId, k: u16, a: Arg) -> Result<Value, Self::Error>;
    fn eval_bool(&mut self, code: Code) -> Result<Value, Self::Error>;
    /// Branches on status `s` (one of `possible`) to the arm whose set holds it.
    fn route(&mut self, s: Value, possible: u8, arms: &[(u8, Block)]);
    fn exit(&mut self, out: Block, s: Status);
    fn jump_status(&mut self, out: Block, s: Value);
    /// Starts `if cond { .. }`: returns (then, continue) and switches to `then`.
    fn if_then(&mut self, cond: Value) -> (Block, Block);
    fn end_if(&mut self, cont: Block);
    fn status_of(&mut self, n: NodeId) -> Value;
    fn set_status_c(&mut self, n: NodeId, s: Status);
    fn status_c(&mut self, s: Status) -> Value;
    fn is_completed(&mut self, s: Value) -> Value;
    fn eq_imm(&mut self, v: Value, k: i64) -> Value;
    fn i32c(&mut self, v: i64) -> Value;
    fn f64c(&mut self, v: f64) -> Value;
    /// An f64 argument as BehaviorTree.CPP's `int` port reads it.
    fn int32_of(&mut self, x: Value) -> Value;
    /// The node's counter (`NodeState::a`).
    fn load_a(&mut self, n: NodeId) -> Value;
    fn store_a_c(&mut self, n: NodeId, k: i64);
    fn incr_a(&mut self, n: NodeId);
    /// The node's second word (`NodeState::b`).
    fn load_b(&mut self, n: NodeId) -> Value;
    fn store_b(&mut self, n: NodeId, v: Value);
    /// Whether any of `mask`'s bits is set in the node's flags (an i8).
    fn flag_set(&mut self, n: NodeId, mask: u8) -> Value;
    fn flags_or(&mut self, n: NodeId, mask: u8);
    fn flags_clear(&mut self, n: NodeId, mask: u8);
    fn flags_set_to(&mut self, n: NodeId, mask: u8, on: Value);
    /// The tick's time, in ms.
    fn now(&mut self) -> Value;
    /// Arms the node's timer (`Machine::arm`).
    fn store_deadline(&mut self, n: NodeId, at: Value);
    fn disarm(&mut self, n: NodeId);
    /// The tick made progress a parent yields on (`Machine::woken`).
    fn wake(&mut self);
    /// `Machine::entry_updated`: returns (current, previous) sequence numbers.
    fn swap_seen(&mut self, n: NodeId, slot: SlotId) -> (Value, Value);
    /// Pops the queue's first element into `value` (`Machine::pop_into`): an i8, whether
    /// one was there.
    fn pop_front_into(&mut self, queue: SlotId, value: SlotId) -> Value;
    /// Computes `code` (a list) into list slot `slot` (`Machine::store`).
    fn store_code(&mut self, slot: SlotId, code: Code) -> Result<(), Self::Error>;
}
