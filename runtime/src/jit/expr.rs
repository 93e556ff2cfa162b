//! Expressions: the stack machine's code turned into SSA values. The stack exists only at
//! compile time; a jump target receives the stack as block parameters. Arithmetic is the
//! interpreter's (`ir::eval::binary`/`unary`): IEEE operations, comparisons with Rust's NaN
//! rules, equality within a float epsilon, saturating integer conversions for bit
//! operators. Functions without a machine instruction call the interpreter's own code.

use super::emit::{Fx, P};
use super::plan::Site;
use super::JitError;
use affect_compiler::ir::functions::{Function, HostFn};
use affect_compiler::ir::program::{Arg, Code, NodeId, Op};
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{
    types, Block, BlockArg, InstBuilder, StackSlotData, StackSlotKind, Value,
};
use std::collections::BTreeMap;

/// The interpreter's stack depth: a push beyond it is dropped, as the interpreter drops it.
const STACK: usize = 32;

/// A value on the compile-time stack: a number, or a comparison result not yet turned into
/// 0.0/1.0 (a condition branches on it directly).
#[derive(Clone, Copy)]
enum Sv {
    F(Value),
    B(Value),
}

/// Where jumps land, with the block made for each once something jumps or falls there.
type Targets = BTreeMap<usize, Option<(Block, usize)>>;

/// The jump targets of some code; a target past the end ends the code.
fn jump_targets(ops: &[Op]) -> Targets {
    let len = ops.len();
    let mut targets = Targets::new();
    for (pc, op) in ops.iter().enumerate() {
        if let Op::Jump(off)
        | Op::JumpIfFalse(off)
        | Op::JumpIfFalseKeep(off)
        | Op::JumpIfTrueKeep(off) = op
        {
            let t = (pc + 1).saturating_add(*off as usize).min(len);
            targets.insert(t, None);
        }
    }
    targets
}

impl Fx<'_, '_> {
    fn num_of(&mut self, v: Sv) -> Value {
        match v {
            Sv::F(x) => x,
            Sv::B(c) => {
                let one = self.f64c(1.0);
                let zero = self.f64c(0.0);
                self.b.ins().select(c, one, zero)
            }
        }
    }

    fn cond_of(&mut self, v: Sv) -> Value {
        match v {
            Sv::B(c) => c,
            Sv::F(x) => {
                let zero = self.f64c(0.0);
                self.b.ins().fcmp(FloatCC::NotEqual, x, zero)
            }
        }
    }

    /// An expression's value (`Machine::eval`).
    pub fn eval(&mut self, code: Code) -> Result<Value, JitError> {
        let v = self.exec(code)?;
        Ok(match v {
            Some(v) => self.num_of(v),
            None => self.f64c(0.0),
        })
    }

    /// A condition (`Machine::eval_bool`): an i8, 1 when the value is not 0.0.
    pub fn eval_bool(&mut self, code: Code) -> Result<Value, JitError> {
        let v = self.exec(code)?;
        Ok(match v {
            Some(v) => self.cond_of(v),
            None => self.b.ins().iconst(types::I8, 0),
        })
    }

    /// A statement block.
    pub fn run(&mut self, code: Code) -> Result<(), JitError> {
        self.exec(code)?;
        Ok(())
    }

    /// Argument `k` of node `n` (`Machine::arg`); a constant may be a parameter of a shared
    /// function (`share.rs`).
    pub fn node_arg(&mut self, n: NodeId, k: u16, a: Arg) -> Result<Value, JitError> {
        match a {
            Arg::Const(v) => Ok(self.konst(Site::Arg(n, k), v)),
            Arg::Expr(code) => self.eval(code),
        }
    }

    /// `x as i32` in Rust: saturating, NaN to 0.
    pub fn int32_of(&mut self, x: Value) -> Value {
        if let Some(c) = self.const_f64(x) {
            return self.b.ins().iconst(types::I32, c as i32 as i64);
        }
        self.b.ins().fcvt_to_sint_sat(types::I32, x)
    }

    fn int64_of(&mut self, x: Value) -> Value {
        self.b.ins().fcvt_to_sint_sat(types::I64, x)
    }

    /// Stores values into a fresh stack slot; returns its address.
    pub fn spill(&mut self, values: &[Value]) -> Value {
        let size = (values.len().max(1) * 8) as u32;
        let ss = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            size,
            3,
        ));
        for (k, v) in values.iter().enumerate() {
            self.b.ins().stack_store(P, *v, ss, (k * 8) as i32);
        }
        self.b.ins().stack_addr(P, ss, 0)
    }

    /// Runs code; returns what is left on top of the stack.
    fn exec(&mut self, code: Code) -> Result<Option<Sv>, JitError> {
        let start = code.start as usize;
        let end = start + code.len as usize;
        let Some(ops) = self.plan.agent.code.get(start..end) else {
            let nan = self.f64c(f64::NAN);
            return Ok(Some(Sv::F(nan)));
        };
        if ops.is_empty() {
            return Ok(None);
        }
        let len = ops.len();
        let mut targets = jump_targets(ops);
        self.checked.clear();
        let mut stack: Vec<Sv> = Vec::with_capacity(8);
        let mut open = true;
        // `pc` runs one past the end: a jump may target the end of the code.
        #[allow(clippy::needless_range_loop)]
        for pc in 0..=len {
            if targets.contains_key(&pc) {
                // Paths meet here: what one of them read dominates nothing.
                self.checked.clear();
                if open {
                    self.jump_to(&mut targets, pc, &mut stack)?;
                }
                match targets.get(&pc).copied().flatten() {
                    Some((blk, _)) => {
                        self.b.switch_to_block(blk);
                        stack = self.b.block_params(blk).iter().map(|v| Sv::F(*v)).collect();
                        open = true;
                    }
                    // Nothing jumps here and nothing falls through: dead code follows.
                    None => open = false,
                }
            }
            if pc == len {
                break;
            }
            if open {
                let target = |off: u32| (pc + 1).saturating_add(off as usize).min(len);
                let site = Site::Op((start + pc) as u32);
                open = self.op(ops[pc], site, target, &mut targets, &mut stack)?;
            }
        }
        self.checked.clear();
        Ok(stack.last().copied())
    }

    /// Emits one instruction; false when control does not fall through it (a jump).
    fn op(
        &mut self,
        op: Op,
        site: Site,
        target: impl Fn(u32) -> usize,
        targets: &mut Targets,
        stack: &mut Vec<Sv>,
    ) -> Result<bool, JitError> {
        match op {
            Op::Const(v) => {
                let c = self.konst(site, v);
                push(stack, Sv::F(c));
            }
            Op::Jump(off) => {
                self.jump_to(targets, target(off), stack)?;
                return Ok(false);
            }
            Op::JumpIfFalse(off) => {
                let c = pop(stack);
                let c = match c {
                    Some(v) => self.cond_of(v),
                    None => self.b.ins().iconst(types::I8, 0),
                };
                self.branch(targets, target(off), c, false, stack)?;
            }
            Op::JumpIfFalseKeep(off) | Op::JumpIfTrueKeep(off) => {
                let c = match stack.last().copied() {
                    Some(v) => self.cond_of(v),
                    None => self.b.ins().iconst(types::I8, 0),
                };
                let on_true = matches!(op, Op::JumpIfTrueKeep(_));
                self.branch(targets, target(off), c, on_true, stack)?;
            }
            Op::Call(..)
            | Op::Host(..)
            | Op::Index
            | Op::ListBuild(..)
            | Op::ListSet(_)
            | Op::ListSetAt(_) => self.call_op(op, stack)?,
            _ => self.value_op(op, stack),
        }
        Ok(true)
    }

    /// Emits an instruction that computes on the stack or the blackboard.
    fn value_op(&mut self, op: Op, stack: &mut Vec<Sv>) {
        match op {
            Op::Const(v) => {
                let c = self.f64c(v);
                push(stack, Sv::F(c));
            }
            Op::Load(s) => {
                let v = self.read_slot(s);
                push(stack, Sv::F(v));
            }
            Op::LoadChecked(s) => {
                let v = self.read_slot_checked(s);
                push(stack, Sv::F(v));
            }
            Op::Store(s) => {
                let v = self.pop_f(stack);
                self.write_slot(s, v);
                self.forget_checked(s);
            }
            Op::StoreClamped(s, lo, hi) => {
                self.forget_checked(s);
                // `f64::clamp`: below `lo` gives `lo`, above `hi` gives `hi`, NaN stays.
                let v = self.pop_f(stack);
                let lo_v = self.f64c(lo);
                let hi_v = self.f64c(hi);
                let below = self.b.ins().fcmp(FloatCC::LessThan, v, lo_v);
                let v = self.b.ins().select(below, lo_v, v);
                let above = self.b.ins().fcmp(FloatCC::GreaterThan, v, hi_v);
                let v = self.b.ins().select(above, hi_v, v);
                self.write_slot(s, v);
            }
            Op::Add | Op::Sub | Op::Mul | Op::Div => {
                let b = self.pop_f(stack);
                let a = self.pop_f(stack);
                let r = match op {
                    Op::Add => self.b.ins().fadd(a, b),
                    Op::Sub => self.b.ins().fsub(a, b),
                    Op::Mul => self.b.ins().fmul(a, b),
                    _ => self.b.ins().fdiv(a, b),
                };
                push(stack, Sv::F(r));
            }
            Op::Neg => {
                let a = self.pop_f(stack);
                let r = self.b.ins().fneg(a);
                push(stack, Sv::F(r));
            }
            Op::Not => {
                let a = pop(stack);
                let r = match a {
                    Some(Sv::B(c)) => self.b.ins().icmp_imm_s(
                        cranelift_codegen::ir::condcodes::IntCC::Equal,
                        c,
                        0,
                    ),
                    Some(Sv::F(x)) => {
                        let zero = self.f64c(0.0);
                        self.b.ins().fcmp(FloatCC::Equal, x, zero)
                    }
                    // Not of an empty stack's 0.0.
                    None => self.b.ins().iconst(types::I8, 1),
                };
                push(stack, Sv::B(r));
            }
            Op::BitNot => {
                let a = self.pop_f(stack);
                let i = self.int64_of(a);
                let i = self.b.ins().bnot(i);
                let r = self.b.ins().fcvt_from_sint(types::F64, i);
                push(stack, Sv::F(r));
            }
            Op::Eq | Op::Ne => {
                let b = self.pop_f(stack);
                let a = self.pop_f(stack);
                let d = self.b.ins().fsub(a, b);
                let d = self.b.ins().fabs(d);
                let eps = self.f64c(f32::EPSILON as f64);
                let cc = if op == Op::Eq {
                    FloatCC::LessThanOrEqual
                } else {
                    // The negation of an ordered `<=`: NaN differs from everything.
                    FloatCC::UnorderedOrGreaterThan
                };
                let r = self.b.ins().fcmp(cc, d, eps);
                push(stack, Sv::B(r));
            }
            Op::Lt | Op::Le | Op::Gt | Op::Ge => {
                let b = self.pop_f(stack);
                let a = self.pop_f(stack);
                let cc = match op {
                    Op::Lt => FloatCC::LessThan,
                    Op::Le => FloatCC::LessThanOrEqual,
                    Op::Gt => FloatCC::GreaterThan,
                    _ => FloatCC::GreaterThanOrEqual,
                };
                let r = self.b.ins().fcmp(cc, a, b);
                push(stack, Sv::B(r));
            }
            Op::BitAnd | Op::BitOr | Op::BitXor => {
                let b = self.pop_f(stack);
                let a = self.pop_f(stack);
                let (a, b) = (self.int64_of(a), self.int64_of(b));
                let r = match op {
                    Op::BitAnd => self.b.ins().band(a, b),
                    Op::BitOr => self.b.ins().bor(a, b),
                    _ => self.b.ins().bxor(a, b),
                };
                let r = self.b.ins().fcvt_from_sint(types::F64, r);
                push(stack, Sv::F(r));
            }
            Op::Pop => {
                pop(stack);
            }
            _ => unreachable!("`op` handles jumps and calls"),
        }
    }

    /// Emits a call: a built-in function, a runtime service, a list operation.
    fn call_op(&mut self, op: Op, stack: &mut Vec<Sv>) -> Result<(), JitError> {
        // Rust code may write any slot.
        self.checked.clear();
        match op {
            Op::Call(f, argc) => {
                let n = (argc as usize).min(stack.len());
                let args: Vec<Sv> = stack.split_off(stack.len() - n);
                let args: Vec<Value> = args.into_iter().map(|v| self.num_of(v)).collect();
                let r = self.call_function(f, &args)?;
                push(stack, Sv::F(r));
            }
            Op::Host(f, arg, argc) => {
                let n = (argc as usize).min(stack.len());
                let args: Vec<Sv> = stack.split_off(stack.len() - n);
                let args: Vec<Value> = args.into_iter().map(|v| self.num_of(v)).collect();
                let r = self.host(f, arg, &args);
                push(stack, Sv::F(r));
            }
            Op::Index => {
                let i = self.pop_f(stack);
                let list = self.pop_f(stack);
                let f = self.callees.list_get;
                let r = self.call(f, &[self.at.view, list, i]).expect("returns");
                push(stack, Sv::F(r));
            }
            Op::ListBuild(s, n) => {
                let n = (n as usize).min(stack.len());
                let vals: Vec<Sv> = stack.split_off(stack.len() - n);
                let vals: Vec<Value> = vals.into_iter().map(|v| self.num_of(v)).collect();
                let id = self.read_slot(s);
                let ptr = self.spill(&vals);
                let cnt = self.b.ins().iconst(types::I32, n as i64);
                let f = self.callees.list_build;
                self.call(f, &[self.at.view, id, ptr, cnt]);
                push(stack, Sv::F(id));
            }
            Op::ListSet(s) => {
                let from = self.pop_f(stack);
                if (s as usize) < self.plan.agent.slots.len() {
                    self.copy_list(s, from);
                }
            }
            Op::ListSetAt(s) => {
                let v = self.pop_f(stack);
                let i = self.pop_f(stack);
                if (s as usize) < self.plan.agent.slots.len() {
                    let id = self.read_slot(s);
                    let f = self.callees.list_set_at;
                    let slot = self.slot_number(s);
                    self.call(f, &[self.at.view, id, i, v, slot]);
                    self.count_write(s);
                }
            }
            _ => unreachable!("`op` hands it calls only"),
        }
        Ok(())
    }

    fn pop_f(&mut self, stack: &mut Vec<Sv>) -> Value {
        match pop(stack) {
            Some(v) => self.num_of(v),
            None => self.f64c(0.0),
        }
    }

    /// The block of jump target `pc`, created for the current stack depth.
    fn target_block(
        &mut self,
        targets: &mut Targets,
        pc: usize,
        depth: usize,
    ) -> Result<Block, JitError> {
        match targets.get(&pc).copied().flatten() {
            Some((blk, d)) if d == depth => Ok(blk),
            Some(_) => Err(JitError::Unsupported(
                "an expression's stack depth differs where two paths meet".into(),
            )),
            None => {
                let blk = self.b.create_block();
                for _ in 0..depth {
                    self.b.append_block_param(blk, types::F64);
                }
                targets.insert(pc, Some((blk, depth)));
                Ok(blk)
            }
        }
    }

    fn stack_args(&mut self, stack: &mut [Sv]) -> Vec<BlockArg> {
        let mut args = Vec::with_capacity(stack.len());
        for v in stack.iter_mut() {
            let f = self.num_of(*v);
            *v = Sv::F(f);
            args.push(BlockArg::Value(f));
        }
        args
    }

    fn jump_to(
        &mut self,
        targets: &mut Targets,
        pc: usize,
        stack: &mut [Sv],
    ) -> Result<(), JitError> {
        let blk = self.target_block(targets, pc, stack.len())?;
        let args = self.stack_args(stack);
        self.b.ins().jump(blk, &args);
        Ok(())
    }

    /// A conditional jump to `pc` (taken when `c` is `when`), falling through otherwise.
    fn branch(
        &mut self,
        targets: &mut Targets,
        pc: usize,
        c: Value,
        when: bool,
        stack: &mut [Sv],
    ) -> Result<(), JitError> {
        let blk = self.target_block(targets, pc, stack.len())?;
        let args = self.stack_args(stack);
        let next = self.b.create_block();
        if when {
            self.b.ins().brif(c, blk, &args, next, &[]);
        } else {
            self.b.ins().brif(c, next, &[], blk, &args);
        }
        self.b.switch_to_block(next);
        Ok(())
    }

    fn call_function(&mut self, f: Function, args: &[Value]) -> Result<Value, JitError> {
        let arg = |fx: &mut Self, k: usize| match args.get(k) {
            Some(v) => *v,
            None => fx.f64c(0.0),
        };
        Ok(match f {
            Function::Abs => {
                let x = arg(self, 0);
                self.b.ins().fabs(x)
            }
            Function::Sqrt => {
                let x = arg(self, 0);
                self.b.ins().sqrt(x)
            }
            Function::Fold => {
                // `x > c ? 2c - x : x`, computed as Rust computes it (no fused multiply-add).
                let (x, c) = (arg(self, 0), arg(self, 1));
                let two = self.f64c(2.0);
                let twice = self.b.ins().fmul(two, c);
                let folded = self.b.ins().fsub(twice, x);
                let above = self.b.ins().fcmp(FloatCC::GreaterThan, x, c);
                self.b.ins().select(above, folded, x)
            }
            Function::Len => {
                if args.is_empty() {
                    return Err(JitError::Unsupported("len() without a list".into()));
                }
                let fid = self.callees.list_len;
                self.call(fid, &[self.at.view, args[0]]).expect("returns")
            }
            _ => {
                let idx = self.plan.function_index(f);
                let idx = self.b.ins().iconst(types::I32, idx as i64);
                let ptr = self.spill(args);
                let n = self.b.ins().iconst(types::I32, args.len() as i64);
                let fid = self.callees.call_function;
                self.call(fid, &[self.at.view, idx, ptr, n])
                    .expect("returns")
            }
        })
    }

    fn host(&mut self, f: HostFn, arg: u32, args: &[Value]) -> Value {
        match f {
            HostFn::ListPush => {
                let id = self.read_slot(arg);
                let x = match args.first() {
                    Some(v) => *v,
                    None => self.f64c(0.0),
                };
                let fid = self.callees.list_push;
                let slot = self.slot_number(arg);
                self.call(fid, &[self.at.view, id, x, slot]);
                self.f64c(0.0)
            }
            _ => {
                let idx = self.plan.host_index(f);
                let idx = self.b.ins().iconst(types::I32, idx as i64);
                let a = self.b.ins().iconst(types::I32, arg as i64);
                let ptr = self.spill(args);
                let n = self.b.ins().iconst(types::I32, args.len() as i64);
                let fid = self.callees.host_call;
                self.call(fid, &[self.at.view, idx, a, ptr, n])
                    .expect("returns")
            }
        }
    }
}

fn push(stack: &mut Vec<Sv>, v: Sv) {
    if stack.len() < STACK {
        stack.push(v);
    }
}

fn pop(stack: &mut Vec<Sv>) -> Option<Sv> {
    stack.pop()
}
