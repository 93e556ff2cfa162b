//! The code generator as the decorator families see it (`interp::families::Emit`): each
//! method is the emitter's own helper, and list pops are here.

use super::emit::{Fx, STATE_A};
use super::JitError;
use crate::interp::families::compiled::Emit;
use affect_compiler::ir::program::{Arg, Code, NodeId, SlotId, Status};
use cranelift_codegen::ir::{types, Block, InstBuilder, StackSlotData, StackSlotKind, Value};
use cranelift_frontend::FunctionBuilder;

impl<'b> Emit<'b> for Fx<'_, 'b> {
    type Error = JitError;

    fn b(&mut self) -> &mut FunctionBuilder<'b> {
        &mut self.b
    }
    fn child(&self, n: NodeId) -> NodeId {
        self.plan.children(n)[0]
    }
    fn possible(&self, n: NodeId) -> u8 {
        Fx::possible(self, n)
    }
    fn execute_tick(&mut self, n: NodeId) -> Result<Value, JitError> {
        Fx::execute_tick(self, n)
    }
    fn tick_only_child(&mut self, n: NodeId, out: Block) -> Result<Value, JitError> {
        Fx::tick_only_child(self, n, out)
    }
    fn reset_child(&mut self, n: NodeId) -> Result<(), JitError> {
        Fx::reset_child(self, n)
    }
    fn decorator_halt(&mut self, n: NodeId) -> Result<(), JitError> {
        Fx::decorator_halt(self, n)
    }
    fn node_arg(&mut self, n: NodeId, k: u16, a: Arg) -> Result<Value, JitError> {
        Fx::node_arg(self, n, k, a)
    }
    fn eval_bool(&mut self, code: Code) -> Result<Value, JitError> {
        Fx::eval_bool(self, code)
    }
    fn route(&mut self, s: Value, possible: u8, arms: &[(u8, Block)]) {
        Fx::route(self, s, possible, arms)
    }
    fn exit(&mut self, out: Block, s: Status) {
        Fx::exit(self, out, s)
    }
    fn jump_status(&mut self, out: Block, s: Value) {
        Fx::jump_status(self, out, s)
    }
    fn if_then(&mut self, cond: Value) -> (Block, Block) {
        Fx::if_then(self, cond)
    }
    fn end_if(&mut self, cont: Block) {
        Fx::end_if(self, cont)
    }
    fn status_of(&mut self, n: NodeId) -> Value {
        Fx::status_of(self, n)
    }
    fn set_status_c(&mut self, n: NodeId, s: Status) {
        Fx::set_status_c(self, n, s)
    }
    fn status_c(&mut self, s: Status) -> Value {
        Fx::status_c(self, s)
    }
    fn is_completed(&mut self, s: Value) -> Value {
        Fx::is_completed(self, s)
    }
    fn eq_imm(&mut self, v: Value, k: i64) -> Value {
        Fx::eq_imm(self, v, k)
    }
    fn i32c(&mut self, v: i64) -> Value {
        Fx::i32c(self, v)
    }
    fn f64c(&mut self, v: f64) -> Value {
        Fx::f64c(self, v)
    }
    fn int32_of(&mut self, x: Value) -> Value {
        Fx::int32_of(self, x)
    }
    fn load_a(&mut self, n: NodeId) -> Value {
        Fx::load_a(self, n)
    }
    fn store_a_c(&mut self, n: NodeId, k: i64) {
        Fx::store_a_c(self, n, k)
    }
    fn incr_a(&mut self, n: NodeId) {
        Fx::incr(self, n, STATE_A)
    }
    fn load_b(&mut self, n: NodeId) -> Value {
        Fx::load_b(self, n)
    }
    fn store_b(&mut self, n: NodeId, v: Value) {
        Fx::store_b(self, n, v)
    }
    fn flag_set(&mut self, n: NodeId, mask: u8) -> Value {
        Fx::flag_set(self, n, mask)
    }
    fn flags_or(&mut self, n: NodeId, mask: u8) {
        Fx::flags_or(self, n, mask)
    }
    fn flags_clear(&mut self, n: NodeId, mask: u8) {
        Fx::flags_clear(self, n, mask)
    }
    fn flags_set_to(&mut self, n: NodeId, mask: u8, on: Value) {
        Fx::flags_set_to(self, n, mask, on)
    }
    fn now(&mut self) -> Value {
        Fx::now(self)
    }
    fn store_deadline(&mut self, n: NodeId, at: Value) {
        Fx::store_deadline(self, n, at)
    }
    fn disarm(&mut self, n: NodeId) {
        Fx::disarm(self, n)
    }
    fn wake(&mut self) {
        Fx::wake(self)
    }
    fn swap_seen(&mut self, n: NodeId, slot: SlotId) -> (Value, Value) {
        Fx::swap_seen(self, n, slot)
    }

    /// The list's first element into a stack slot (`list_pop_front` in Rust), then, when
    /// there was one, into `value`, counting a write of the queue.
    fn store_code(&mut self, slot: SlotId, code: Code) -> Result<(), JitError> {
        let v = self.eval(code)?;
        self.store_value(slot, v);
        Ok(())
    }
    fn pop_front_into(&mut self, queue: SlotId, value: SlotId) -> Value {
        let list = self.read_slot(queue);
        let ss =
            self.b
                .create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 8, 3));
        let ptr = self.b.ins().stack_addr(super::emit::P, ss, 0);
        let f = self.callees.list_pop_front;
        let slot = self.slot_number(queue);
        let got = self
            .call(f, &[self.at.view, list, ptr, slot])
            .expect("returns");
        let popped = self.ne_imm(got, 0);
        let (_, cont) = self.if_then(popped);
        let v = self.b.ins().stack_load(super::emit::P, types::F64, ss, 0);
        self.write_slot(value, v);
        self.count_write(queue);
        self.end_if(cont);
        popped
    }
}
