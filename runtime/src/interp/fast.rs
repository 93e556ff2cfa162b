//! The fast path of the expression machine, for the code the tick loop runs most (scripts,
//! script conditions, the process phase). Code is translated once, when the machine is
//! built, into `Fop`s: operands folded into the operator that uses them (`x + 2.0` is a load
//! and one `AddK`), the top of the stack kept in a register, and no depth checks at run time.
//!
//! A range is translated only when a static pass proves that it never pops an empty stack,
//! never pushes past the stack's size and reaches every instruction with one depth. Then the
//! unchecked machine computes exactly what the checked one (`eval.rs`) does; everything else
//! (lists, host calls, function calls, malformed code) stays on the checked machine.

use super::{op, Fault, Machine};
use affect_compiler::ir::eval::{binary, bool_f, same, unary};
use affect_compiler::ir::program::{is_unset, Code, Op, SlotId};

/// Stack size of the fast machine (a power of two: indices are masked, not checked).
const DEPTH: usize = 32;
const MASK: usize = DEPTH - 1;

/// Marks the slot of a `Load` (and of every form with a slot operand read) translated from
/// `Op::LoadChecked`: a read that stops the tree when the slot holds no value (`UNSET`).
/// `translate` refuses code with slot numbers this large, so the bit means only that.
const CHECKED: SlotId = 1 << 31;

/// Reads slot `s` (a missing slot reads NaN, as in the checked machine). A checked read of
/// `UNSET` notes the fault (`Fault::note`) and yields 0, as `Op::LoadChecked` does in
/// `eval.rs`. `UNSET` is a NaN, so the hot path tests only for a NaN (one predictable
/// branch); the mark and the exact bits are looked at after that.
#[inline(always)]
fn load(slots: &[f64], s: SlotId, unset: impl FnOnce(SlotId) -> f64) -> f64 {
    let v = slots
        .get((s & !CHECKED) as usize)
        .copied()
        .unwrap_or(f64::NAN);
    if v.is_nan() && s & CHECKED != 0 && is_unset(v) {
        unset(s & !CHECKED)
    } else {
        v
    }
}

/// One translated instruction (16 bytes); `K` forms take a constant right operand, `S`
/// forms a slot, and the `S..K` and `S..S` forms push `slot op constant` and `slot op slot`.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Fop {
    Const(f64),
    Load(SlotId),
    Store(SlotId),
    /// Index into `Machine::clamps`.
    StoreClamped(u32),
    Pop,
    Add,
    Sub,
    Mul,
    Div,
    Lt,
    Le,
    Gt,
    Ge,
    AddK(f64),
    SubK(f64),
    MulK(f64),
    DivK(f64),
    LtK(f64),
    LeK(f64),
    GtK(f64),
    GeK(f64),
    EqK(f64),
    NeK(f64),
    AddS(SlotId),
    SubS(SlotId),
    MulS(SlotId),
    DivS(SlotId),
    LtS(SlotId),
    LeS(SlotId),
    GtS(SlotId),
    GeS(SlotId),
    SAddK(SlotId, f64),
    SSubK(SlotId, f64),
    SMulK(SlotId, f64),
    SDivK(SlotId, f64),
    SLtK(SlotId, f64),
    SLeK(SlotId, f64),
    SGtK(SlotId, f64),
    SGeK(SlotId, f64),
    SAddS(SlotId, SlotId),
    SSubS(SlotId, SlotId),
    SMulS(SlotId, SlotId),
    SDivS(SlotId, SlotId),
    SLtS(SlotId, SlotId),
    SLeS(SlotId, SlotId),
    SGtS(SlotId, SlotId),
    SGeS(SlotId, SlotId),
    /// Any other binary operator (equality, bit operations), through the shared `binary`.
    Bin(Other),
    /// `Neg`, `Not`, `BitNot`, through the shared `unary`.
    Un(Other),
    /// Jumps hold absolute targets in the translated code.
    Jump(u32),
    JumpIfFalse(u32),
    JumpIfFalseKeep(u32),
    JumpIfTrueKeep(u32),
}

/// The operators without a form of their own, by the `Op` they stand for (an `Op` itself
/// would make every instruction 32 bytes).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Other {
    Eq,
    Ne,
    BitAnd,
    BitOr,
    BitXor,
    Neg,
    Not,
    BitNot,
}

impl Other {
    fn of(op: Op) -> Option<Other> {
        Some(match op {
            Op::Eq => Other::Eq,
            Op::Ne => Other::Ne,
            Op::BitAnd => Other::BitAnd,
            Op::BitOr => Other::BitOr,
            Op::BitXor => Other::BitXor,
            Op::Neg => Other::Neg,
            Op::Not => Other::Not,
            Op::BitNot => Other::BitNot,
            _ => return None,
        })
    }

    fn op(self) -> Op {
        match self {
            Other::Eq => Op::Eq,
            Other::Ne => Op::Ne,
            Other::BitAnd => Op::BitAnd,
            Other::BitOr => Op::BitOr,
            Other::BitXor => Op::BitXor,
            Other::Neg => Op::Neg,
            Other::Not => Op::Not,
            Other::BitNot => Op::BitNot,
        }
    }
}

/// Stack effect of an instruction the fast machine supports: (pops, pushes); `None` for the
/// rest.
fn effect(op: Op) -> Option<(usize, usize)> {
    Some(match op {
        // Taking a value away (`unset_blackboard`) also forgets the entry's write count:
        // the general machine's `write` does that.
        Op::Const(v) if affect_compiler::ir::program::is_unset(v) => return None,
        Op::Const(_) | Op::Load(_) | Op::LoadChecked(_) => (0, 1),
        Op::Store(_) | Op::StoreClamped(..) | Op::Pop | Op::JumpIfFalse(_) => (1, 0),
        Op::Jump(_) => (0, 0),
        Op::JumpIfFalseKeep(_) | Op::JumpIfTrueKeep(_) => (1, 1),
        Op::Neg | Op::Not | Op::BitNot => (1, 1),
        Op::Add
        | Op::Sub
        | Op::Mul
        | Op::Div
        | Op::Eq
        | Op::Ne
        | Op::Lt
        | Op::Le
        | Op::Gt
        | Op::Ge
        | Op::BitAnd
        | Op::BitOr
        | Op::BitXor => (2, 1),
        Op::Call(..)
        | Op::Index
        | Op::Host(..)
        | Op::ListBuild(..)
        | Op::ListSet(_)
        | Op::ListSetAt(_) => return None,
    })
}

fn jump_offset(op: Op) -> Option<u32> {
    match op {
        Op::Jump(o) | Op::JumpIfFalse(o) | Op::JumpIfFalseKeep(o) | Op::JumpIfTrueKeep(o) => {
            Some(o)
        }
        _ => None,
    }
}

/// The working tables of [`translate`], kept from one range to the next: a machine
/// translates one range per script, and allocating these for each was most of the
/// allocations of building a machine.
#[derive(Default)]
struct Scratch {
    /// Depth on entry to each instruction (index `n`: the end).
    depth: Vec<Option<usize>>,
    /// Whether a jump lands on each instruction.
    target: Vec<bool>,
    /// New index of each old instruction (and of the end), for jump targets.
    at: Vec<u32>,
    /// Jumps to patch: (index in the new code, old target).
    jumps: Vec<(usize, usize)>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

/// Fills `v` with `n` copies of `x`, reusing its memory.
fn refill<T: Clone>(v: &mut Vec<T>, n: usize, x: T) {
    v.clear();
    v.resize(n, x);
}

/// Proves the range safe for the unchecked machine: every instruction supported, reached
/// with one stack depth, no underflow, no overflow. Fills `target`: which instructions jumps
/// land on.
fn verify(ops: &[Op], depth: &mut Vec<Option<usize>>, target: &mut Vec<bool>) -> Option<()> {
    let n = ops.len();
    // All jumps go forward.
    refill(depth, n + 1, None);
    refill(target, n + 1, false);
    depth[0] = Some(0);
    for pc in 0..n {
        let Some(d) = depth[pc] else {
            // Unreachable: never runs, but translate it only if it is well-formed.
            effect(ops[pc])?;
            continue;
        };
        let op = ops[pc];
        let (pops, pushes) = effect(op)?;
        if d < pops || d - pops + pushes > DEPTH {
            return None;
        }
        let after = d - pops + pushes;
        let mut flow = |at: usize, d: usize| -> Option<()> {
            let at = at.min(n);
            match depth[at] {
                Some(e) if e != d => None,
                _ => {
                    depth[at] = Some(d);
                    Some(())
                }
            }
        };
        if let Some(off) = jump_offset(op) {
            let to = (pc + 1).saturating_add(off as usize);
            target[to.min(n)] = true;
            // A kept condition stays on the stack on the jump; a popped one does not.
            let jumped = match op {
                Op::JumpIfFalse(_) => d - 1,
                _ => d,
            };
            flow(to, jumped)?;
            if matches!(op, Op::Jump(_)) {
                continue;
            }
        }
        flow(pc + 1, after)?;
    }
    Some(())
}

/// Translates `ops` onto the end of `out` (clamp bounds into `clamps`); `None` when the
/// range must stay on the checked machine.
pub(crate) fn translate(
    ops: &[Op],
    out: &mut Vec<Fop>,
    clamps: &mut Vec<(f64, f64)>,
) -> Option<Code> {
    SCRATCH.with(|scratch| {
        let mut scratch = scratch.borrow_mut();
        let base = out.len();
        let code = translate_with(ops, out, clamps, &mut scratch);
        if code.is_none() {
            out.truncate(base);
        }
        code
    })
}

/// A checked read is a `Load` whose slot carries the `CHECKED` mark, so it folds into the
/// operators as a plain one does; `None` for a slot number that large.
fn marked(op: Op) -> Option<Op> {
    match op {
        Op::Load(s) | Op::LoadChecked(s) if s & CHECKED != 0 => None,
        Op::LoadChecked(s) => Some(Op::Load(s | CHECKED)),
        op => Some(op),
    }
}

/// [`translate`] with its tables; on `None`, `out` may hold part of the range.
fn translate_with(
    ops: &[Op],
    out: &mut Vec<Fop>,
    clamps: &mut Vec<(f64, f64)>,
    scratch: &mut Scratch,
) -> Option<Code> {
    let Scratch {
        depth,
        target,
        at,
        jumps,
    } = scratch;
    verify(ops, depth, target)?;
    if ops.iter().any(|&op| marked(op).is_none()) {
        return None;
    }
    let op_at = |i: usize| marked(ops[i]).expect("checked above");
    let base = out.len();
    // The new code is written straight onto the end of `out`; `code_len` is its length.
    let code_len = |out: &Vec<Fop>| out.len() - base;
    refill(at, ops.len() + 1, 0u32);
    jumps.clear();
    let mut pc = 0;
    while pc < ops.len() {
        at[pc] = out.len() as u32;
        let op = op_at(pc);
        // Operands fold into the next operator unless a jump lands between them.
        if pc + 2 < ops.len() && !target[pc + 1] && !target[pc + 2] {
            let fused = match (op, op_at(pc + 1), op_at(pc + 2)) {
                (Op::Load(s), Op::Const(k), Op::Add) => Some(Fop::SAddK(s, k)),
                (Op::Load(s), Op::Const(k), Op::Sub) => Some(Fop::SSubK(s, k)),
                (Op::Load(s), Op::Const(k), Op::Mul) => Some(Fop::SMulK(s, k)),
                (Op::Load(s), Op::Const(k), Op::Div) => Some(Fop::SDivK(s, k)),
                (Op::Load(s), Op::Const(k), Op::Lt) => Some(Fop::SLtK(s, k)),
                (Op::Load(s), Op::Const(k), Op::Le) => Some(Fop::SLeK(s, k)),
                (Op::Load(s), Op::Const(k), Op::Gt) => Some(Fop::SGtK(s, k)),
                (Op::Load(s), Op::Const(k), Op::Ge) => Some(Fop::SGeK(s, k)),
                (Op::Load(s), Op::Load(t), Op::Add) => Some(Fop::SAddS(s, t)),
                (Op::Load(s), Op::Load(t), Op::Sub) => Some(Fop::SSubS(s, t)),
                (Op::Load(s), Op::Load(t), Op::Mul) => Some(Fop::SMulS(s, t)),
                (Op::Load(s), Op::Load(t), Op::Div) => Some(Fop::SDivS(s, t)),
                (Op::Load(s), Op::Load(t), Op::Lt) => Some(Fop::SLtS(s, t)),
                (Op::Load(s), Op::Load(t), Op::Le) => Some(Fop::SLeS(s, t)),
                (Op::Load(s), Op::Load(t), Op::Gt) => Some(Fop::SGtS(s, t)),
                (Op::Load(s), Op::Load(t), Op::Ge) => Some(Fop::SGeS(s, t)),
                _ => None,
            };
            if let Some(f) = fused {
                out.push(f);
                at[pc + 1] = at[pc];
                at[pc + 2] = at[pc];
                pc += 3;
                continue;
            }
        }
        if pc + 1 < ops.len() && !target[pc + 1] {
            let next = op_at(pc + 1);
            let fused = match (op, next) {
                (Op::Const(k), Op::Add) => Some(Fop::AddK(k)),
                (Op::Const(k), Op::Sub) => Some(Fop::SubK(k)),
                (Op::Const(k), Op::Mul) => Some(Fop::MulK(k)),
                (Op::Const(k), Op::Div) => Some(Fop::DivK(k)),
                (Op::Const(k), Op::Lt) => Some(Fop::LtK(k)),
                (Op::Const(k), Op::Le) => Some(Fop::LeK(k)),
                (Op::Const(k), Op::Gt) => Some(Fop::GtK(k)),
                (Op::Const(k), Op::Ge) => Some(Fop::GeK(k)),
                (Op::Const(k), Op::Eq) => Some(Fop::EqK(k)),
                (Op::Const(k), Op::Ne) => Some(Fop::NeK(k)),
                (Op::Load(s), Op::Add) => Some(Fop::AddS(s)),
                (Op::Load(s), Op::Sub) => Some(Fop::SubS(s)),
                (Op::Load(s), Op::Mul) => Some(Fop::MulS(s)),
                (Op::Load(s), Op::Div) => Some(Fop::DivS(s)),
                (Op::Load(s), Op::Lt) => Some(Fop::LtS(s)),
                (Op::Load(s), Op::Le) => Some(Fop::LeS(s)),
                (Op::Load(s), Op::Gt) => Some(Fop::GtS(s)),
                (Op::Load(s), Op::Ge) => Some(Fop::GeS(s)),
                _ => None,
            };
            if let Some(f) = fused {
                out.push(f);
                at[pc + 1] = at[pc];
                pc += 2;
                continue;
            }
        }
        let f = match op {
            Op::Const(k) => Fop::Const(k),
            Op::Load(s) => Fop::Load(s),
            Op::Store(s) => Fop::Store(s),
            Op::StoreClamped(s, lo, hi) => {
                clamps.push((lo, hi));
                // The slot goes in a second instruction-sized cell: see `StoreClamped`.
                out.push(Fop::StoreClamped((clamps.len() - 1) as u32));
                Fop::Store(s)
            }
            Op::Pop => Fop::Pop,
            Op::Add => Fop::Add,
            Op::Sub => Fop::Sub,
            Op::Mul => Fop::Mul,
            Op::Div => Fop::Div,
            Op::Lt => Fop::Lt,
            Op::Le => Fop::Le,
            Op::Gt => Fop::Gt,
            Op::Ge => Fop::Ge,
            Op::Neg | Op::Not | Op::BitNot => Fop::Un(Other::of(op)?),
            Op::Jump(off)
            | Op::JumpIfFalse(off)
            | Op::JumpIfFalseKeep(off)
            | Op::JumpIfTrueKeep(off) => {
                let to = (pc + 1).saturating_add(off as usize).min(ops.len());
                jumps.push((code_len(out), to));
                match op {
                    Op::Jump(_) => Fop::Jump(0),
                    Op::JumpIfFalse(_) => Fop::JumpIfFalse(0),
                    Op::JumpIfFalseKeep(_) => Fop::JumpIfFalseKeep(0),
                    _ => Fop::JumpIfTrueKeep(0),
                }
            }
            _ => Fop::Bin(Other::of(op)?),
        };
        out.push(f);
        pc += 1;
    }
    at[ops.len()] = out.len() as u32;
    for &(i, to) in jumps.iter() {
        let t = at[to];
        let code = &mut out[base..];
        code[i] = match code[i] {
            Fop::Jump(_) => Fop::Jump(t),
            Fop::JumpIfFalse(_) => Fop::JumpIfFalse(t),
            Fop::JumpIfFalseKeep(_) => Fop::JumpIfFalseKeep(t),
            _ => Fop::JumpIfTrueKeep(t),
        };
    }
    let len = code_len(out) as u32;
    Some(Code {
        start: base as u32,
        len,
    })
}

/// The opcode of a script (`op::SCRIPT`) or condition (`op::SCRIPT_CONDITION`) whose
/// translated code has one of the shapes `Machine::tick_short` runs directly; `o` otherwise.
pub(crate) fn short_op(fops: &[Fop], o: u8, code: Code) -> u8 {
    let start = code.start as usize;
    let Some(f) = fops.get(start..start + code.len as usize) else {
        return o;
    };
    match (o, f) {
        (op::SCRIPT, [Fop::SAddK(..), Fop::Store(_)]) => op::SET_ADDK,
        (op::SCRIPT, [Fop::SSubK(..), Fop::Store(_)]) => op::SET_SUBK,
        (op::SCRIPT_CONDITION, [Fop::Load(_), Fop::SAddK(..), c]) => match c {
            Fop::Ge => op::COND_GE_ADDK,
            Fop::Gt => op::COND_GT_ADDK,
            Fop::Lt => op::COND_LT_ADDK,
            Fop::Le => op::COND_LE_ADDK,
            _ => o,
        },
        _ => o,
    }
}

impl Machine<'_> {
    /// The status of a script or condition whose opcode `short_op` chose: what `exec_fast`
    /// computes for its code, without the loop and the dispatch per instruction. The shape is
    /// matched again (a predictable test), so a mismatch can only ever be slower.
    #[inline(always)]
    pub(crate) fn tick_short(&mut self, o: u8, code: Code) -> super::Status {
        use super::Status;
        let i = code.start as usize;
        macro_rules! ld {
            ($s:expr) => {
                load(&self.slots, $s, |s| {
                    let t = self.transitions.len();
                    Fault::note(&mut self.fault, s, t, &self.slots, &self.seq, &self.lists)
                })
            };
        }
        match o {
            op::SET_ADDK | op::SET_SUBK => {
                if let (Some(&a), Some(&Fop::Store(t))) = (self.fops.get(i), self.fops.get(i + 1)) {
                    let v = match a {
                        Fop::SAddK(s, k) if o == op::SET_ADDK => ld!(s) + k,
                        Fop::SSubK(s, k) if o == op::SET_SUBK => ld!(s) - k,
                        _ => {
                            self.exec_fast(code);
                            return Status::Success;
                        }
                    };
                    let t = t as usize;
                    self.slots[t] = v;
                    self.seq[t] = self.seq[t].wrapping_add(1);
                } else {
                    self.exec_fast(code);
                }
                Status::Success
            }
            _ => {
                let r = if let (Some(&Fop::Load(a)), Some(&Fop::SAddK(b, k))) =
                    (self.fops.get(i), self.fops.get(i + 1))
                {
                    let x = ld!(a);
                    let y = ld!(b) + k;
                    match o {
                        op::COND_GE_ADDK => x >= y,
                        op::COND_GT_ADDK => x > y,
                        op::COND_LT_ADDK => x < y,
                        _ => x <= y,
                    }
                } else {
                    self.exec_fast(code) != 0.0
                };
                if r {
                    Status::Success
                } else {
                    Status::Failure
                }
            }
        }
    }

    /// Runs translated code; returns the top of the stack (0 when empty), as `exec` does.
    // `top = below + top` keeps the checked machine's operand order (`a + b`).
    #[allow(clippy::assign_op_pattern)]
    pub(crate) fn exec_fast(&mut self, code: Code) -> f64 {
        let start = code.start as usize;
        let end = start + code.len as usize;
        let Machine {
            fops,
            fstack: st,
            slots,
            seq,
            clamps,
            fault,
            transitions,
            lists,
            ..
        } = self;
        let Some(ops) = fops.get(..end) else {
            return f64::NAN;
        };
        let trans = transitions.len();
        macro_rules! load {
            ($slots:expr, $s:expr) => {
                load($slots, $s, |s| {
                    Fault::note(fault, s, trans, slots, seq, lists)
                })
            };
        }
        // The stack holds the values below the top; `top` is the top when `sp > 0`. A push
        // onto an empty stack parks the stale `top` in cell 0, so `sp` is always the depth.
        let mut top = 0.0f64;
        let mut sp = 0usize;
        let mut pc = start;
        macro_rules! push {
            ($v:expr) => {{
                let v = $v;
                st[sp & MASK] = top;
                sp += 1;
                top = v;
            }};
        }
        // Pops the value below the top (the top itself stays in `top`).
        macro_rules! below {
            () => {{
                sp -= 1;
                st[sp & MASK]
            }};
        }
        while let Some(&op) = ops.get(pc) {
            pc += 1;
            match op {
                Fop::Const(k) => push!(k),
                Fop::Load(s) => push!(load!(slots, s)),
                Fop::Store(s) => {
                    let i = s as usize;
                    slots[i] = top;
                    seq[i] = seq[i].wrapping_add(1);
                    sp -= 1;
                    top = st[sp & MASK];
                }
                Fop::StoreClamped(c) => {
                    // The next cell is the `Store` of the clamped value.
                    let (lo, hi) = clamps[c as usize];
                    top = top.clamp(lo, hi);
                }
                Fop::Pop => top = below!(),
                Fop::Add => top = below!() + top,
                Fop::Sub => top = below!() - top,
                Fop::Mul => top = below!() * top,
                Fop::Div => top = below!() / top,
                Fop::Lt => top = bool_f(below!() < top),
                Fop::Le => top = bool_f(below!() <= top),
                Fop::Gt => top = bool_f(below!() > top),
                Fop::Ge => top = bool_f(below!() >= top),
                Fop::AddK(k) => top += k,
                Fop::SubK(k) => top -= k,
                Fop::MulK(k) => top *= k,
                Fop::DivK(k) => top /= k,
                Fop::LtK(k) => top = bool_f(top < k),
                Fop::LeK(k) => top = bool_f(top <= k),
                Fop::GtK(k) => top = bool_f(top > k),
                Fop::GeK(k) => top = bool_f(top >= k),
                Fop::EqK(k) => top = bool_f(same(top, k)),
                Fop::NeK(k) => top = bool_f(!same(top, k)),
                Fop::AddS(s) => top += load!(slots, s),
                Fop::SubS(s) => top -= load!(slots, s),
                Fop::MulS(s) => top *= load!(slots, s),
                Fop::DivS(s) => top /= load!(slots, s),
                Fop::LtS(s) => top = bool_f(top < load!(slots, s)),
                Fop::LeS(s) => top = bool_f(top <= load!(slots, s)),
                Fop::GtS(s) => top = bool_f(top > load!(slots, s)),
                Fop::GeS(s) => top = bool_f(top >= load!(slots, s)),
                Fop::SAddK(s, k) => push!(load!(slots, s) + k),
                Fop::SSubK(s, k) => push!(load!(slots, s) - k),
                Fop::SMulK(s, k) => push!(load!(slots, s) * k),
                Fop::SDivK(s, k) => push!(load!(slots, s) / k),
                Fop::SLtK(s, k) => push!(bool_f(load!(slots, s) < k)),
                Fop::SLeK(s, k) => push!(bool_f(load!(slots, s) <= k)),
                Fop::SGtK(s, k) => push!(bool_f(load!(slots, s) > k)),
                Fop::SGeK(s, k) => push!(bool_f(load!(slots, s) >= k)),
                Fop::SAddS(s, t) => push!(load!(slots, s) + load!(slots, t)),
                Fop::SSubS(s, t) => push!(load!(slots, s) - load!(slots, t)),
                Fop::SMulS(s, t) => push!(load!(slots, s) * load!(slots, t)),
                Fop::SDivS(s, t) => push!(load!(slots, s) / load!(slots, t)),
                Fop::SLtS(s, t) => push!(bool_f(load!(slots, s) < load!(slots, t))),
                Fop::SLeS(s, t) => push!(bool_f(load!(slots, s) <= load!(slots, t))),
                Fop::SGtS(s, t) => push!(bool_f(load!(slots, s) > load!(slots, t))),
                Fop::SGeS(s, t) => push!(bool_f(load!(slots, s) >= load!(slots, t))),
                Fop::Bin(o) => top = binary(o.op(), below!(), top),
                Fop::Un(o) => top = unary(o.op(), top),
                Fop::Jump(t) => pc = t as usize,
                Fop::JumpIfFalse(t) => {
                    let c = top;
                    sp -= 1;
                    top = st[sp & MASK];
                    if c == 0.0 {
                        pc = t as usize;
                    }
                }
                Fop::JumpIfFalseKeep(t) => {
                    if top == 0.0 {
                        pc = t as usize;
                    }
                }
                Fop::JumpIfTrueKeep(t) => {
                    if top != 0.0 {
                        pc = t as usize;
                    }
                }
            }
        }
        if sp == 0 {
            0.0
        } else {
            top
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instructions_are_16_bytes() {
        assert_eq!(std::mem::size_of::<Fop>(), 16);
    }

    fn tr(ops: &[Op]) -> Option<Vec<Fop>> {
        let mut out = Vec::new();
        translate(ops, &mut out, &mut Vec::new())?;
        Some(out)
    }

    #[test]
    fn short_shapes_get_their_opcodes_and_nothing_else() {
        let code = |f: &[Fop]| Code {
            start: 0,
            len: f.len() as u32,
        };
        let set = [Fop::SAddK(0, 1.0), Fop::Store(1)];
        assert_eq!(short_op(&set, op::SCRIPT, code(&set)), op::SET_ADDK);
        let set = [Fop::SSubK(0, 1.0), Fop::Store(1)];
        assert_eq!(short_op(&set, op::SCRIPT, code(&set)), op::SET_SUBK);
        // Only scripts take the store forms, only conditions the comparisons.
        assert_eq!(
            short_op(&set, op::SCRIPT_CONDITION, code(&set)),
            op::SCRIPT_CONDITION
        );
        let cond = [Fop::Load(0), Fop::SAddK(1, 0.5), Fop::Ge];
        assert_eq!(
            short_op(&cond, op::SCRIPT_CONDITION, code(&cond)),
            op::COND_GE_ADDK
        );
        assert_eq!(short_op(&cond, op::SCRIPT, code(&cond)), op::SCRIPT);
        let cond = [Fop::Load(0), Fop::SAddK(1, 0.5), Fop::Bin(Other::Eq)];
        assert_eq!(
            short_op(&cond, op::SCRIPT_CONDITION, code(&cond)),
            op::SCRIPT_CONDITION
        );
        // Longer code, or a range past the end, keeps the general opcode.
        let long = [Fop::SAddK(0, 1.0), Fop::Store(1), Fop::Pop];
        assert_eq!(short_op(&long, op::SCRIPT, code(&long)), op::SCRIPT);
        let past = Code { start: 2, len: 2 };
        assert_eq!(short_op(&long, op::SCRIPT, past), op::SCRIPT);
    }

    #[test]
    fn rejects_what_the_checked_machine_must_run() {
        // Underflow, unsupported instructions, and depths that differ where paths meet.
        assert!(tr(&[Op::Add]).is_none());
        assert!(tr(&[Op::Const(1.0), Op::Index]).is_none());
        assert!(tr(&[Op::Const(1.0), Op::JumpIfFalse(1), Op::Const(2.0)]).is_none());
        let deep: Vec<Op> = (0..33).map(|_| Op::Const(1.0)).collect();
        assert!(tr(&deep).is_none());
        assert!(tr(&deep[..32]).is_some());
    }

    #[test]
    fn folds_operands_but_not_across_jump_targets() {
        let ops = [Op::Load(0), Op::Const(2.0), Op::Add, Op::Store(1)];
        assert!(matches!(
            tr(&ops).unwrap()[..],
            [Fop::SAddK(0, _), Fop::Store(1)]
        ));
        // `a and b < 1`: the jump lands on the end, after the folded comparison.
        let ops = [
            Op::Load(0),
            Op::JumpIfFalseKeep(4),
            Op::Pop,
            Op::Load(1),
            Op::Const(1.0),
            Op::Lt,
        ];
        let f = tr(&ops).unwrap();
        assert!(matches!(
            f[..],
            [
                Fop::Load(0),
                Fop::JumpIfFalseKeep(4),
                Fop::Pop,
                Fop::SLtK(1, _)
            ]
        ));
        // `(c ? x : y) + 2`: the join lands on the constant, so `y` is not folded into it.
        let ops = [
            Op::Load(0),
            Op::JumpIfFalse(2),
            Op::Load(1),
            Op::Jump(1),
            Op::Load(2),
            Op::Const(2.0),
            Op::Add,
        ];
        let f = tr(&ops).unwrap();
        assert!(matches!(
            f[..],
            [
                Fop::Load(0),
                Fop::JumpIfFalse(4),
                Fop::Load(1),
                Fop::Jump(5),
                Fop::Load(2),
                Fop::AddK(_)
            ]
        ));
    }

    /// A small deterministic generator (tests need no randomness crate).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    const CONSTS: [f64; 6] = [0.0, 1.0, -2.5, 0.25, 3.0, f64::NAN];

    /// An expression as the compiler emits it: one value left on the stack.
    fn expr(r: &mut Rng, depth: u32, out: &mut Vec<Op>) {
        let leaf = depth == 0 || r.below(3) == 0;
        if leaf {
            match r.below(3) {
                0 => out.push(Op::Load(r.below(4) as u32)),
                1 => out.push(Op::LoadChecked(r.below(4) as u32)),
                _ => out.push(Op::Const(CONSTS[r.below(6) as usize])),
            }
            return;
        }
        match r.below(6) {
            0 => {
                expr(r, depth - 1, out);
                out.push([Op::Neg, Op::Not, Op::BitNot][r.below(3) as usize]);
            }
            1 => {
                // `and` / `or`.
                expr(r, depth - 1, out);
                let j = out.len();
                out.push(Op::Pop);
                out.push(Op::Pop);
                expr(r, depth - 1, out);
                let off = (out.len() - j - 1) as u32;
                out[j] = if r.below(2) == 0 {
                    Op::JumpIfFalseKeep(off)
                } else {
                    Op::JumpIfTrueKeep(off)
                };
            }
            2 => {
                // `c ? a : b`.
                expr(r, depth - 1, out);
                let j = out.len();
                out.push(Op::Pop);
                expr(r, depth - 1, out);
                let k = out.len();
                out.push(Op::Pop);
                out[j] = Op::JumpIfFalse((out.len() - j - 1) as u32);
                expr(r, depth - 1, out);
                out[k] = Op::Jump((out.len() - k - 1) as u32);
            }
            _ => {
                expr(r, depth - 1, out);
                expr(r, depth - 1, out);
                let ops = [
                    Op::Add,
                    Op::Sub,
                    Op::Mul,
                    Op::Div,
                    Op::Eq,
                    Op::Ne,
                    Op::Lt,
                    Op::Le,
                    Op::Gt,
                    Op::Ge,
                    Op::BitAnd,
                    Op::BitOr,
                    Op::BitXor,
                ];
                out.push(ops[r.below(ops.len() as u64) as usize]);
            }
        }
    }

    /// Statements, sometimes ending in an expression (a condition's value).
    fn block(r: &mut Rng) -> Vec<Op> {
        let mut out = Vec::new();
        for _ in 0..r.below(4) {
            expr(r, 3, &mut out);
            let s = r.below(4) as u32;
            match r.below(3) {
                0 => out.push(Op::StoreClamped(s, -1.0, 2.0)),
                1 => out.push(Op::Pop),
                _ => out.push(Op::Store(s)),
            }
        }
        if r.below(2) == 0 {
            expr(r, 3, &mut out);
        }
        out
    }

    /// Any instructions at all: most are rejected, and what is accepted must agree.
    fn noise(r: &mut Rng) -> Vec<Op> {
        let pick = [
            Op::Const(1.5),
            Op::Load(1),
            Op::LoadChecked(3),
            Op::Store(2),
            Op::Add,
            Op::Lt,
            Op::Pop,
            Op::Jump(1),
            Op::JumpIfFalse(2),
            Op::JumpIfFalseKeep(1),
            Op::JumpIfTrueKeep(3),
            Op::Not,
            Op::Eq,
        ];
        (0..r.below(9))
            .map(|_| pick[r.below(pick.len() as u64) as usize])
            .collect()
    }

    #[test]
    fn agrees_with_the_checked_machine() {
        use crate::leaf::LeafTable;
        use affect_compiler::ir::program::{AgentProgram, Program, Role, Slot, ValueKind};
        let program = Program::default();
        let mut r = Rng(0x9e37_79b9_7f4a_7c15);
        let mut accepted = 0;
        let mut faults = 0;
        for case in 0..4000 {
            let code = if case % 4 == 3 {
                noise(&mut r)
            } else {
                block(&mut r)
            };
            let slots: Vec<Slot> = (0..4)
                .map(|i| Slot {
                    name: format!("s{i}"),
                    role: Role::Var,
                    kind: ValueKind::Num,
                    // Some variables hold no value: a checked read of one stops the tree.
                    init: match r.below(8) {
                        0 => affect_compiler::ir::program::UNSET,
                        k => CONSTS[k as usize % 6] + i as f64,
                    },
                    range: None,
                    visible: true,
                    scope: 0,
                    elems: Vec::new(),
                    any: false,
                })
                .collect();
            // As the compiler lowers them: every read of a variable that holds no value is
            // a checked read (a plain read of one is never translated code's).
            let code: Vec<Op> = code
                .into_iter()
                .map(|op| match op {
                    Op::Load(s)
                        if affect_compiler::ir::program::is_unset(slots[s as usize].init) =>
                    {
                        Op::LoadChecked(s)
                    }
                    op => op,
                })
                .collect();
            let agent = AgentProgram {
                slots,
                code: code.clone(),
                ..AgentProgram::default()
            };
            let whole = Code {
                start: 0,
                len: code.len() as u32,
            };
            let mut fops = Vec::new();
            let mut clamps = Vec::new();
            let Some(f) = translate(&code, &mut fops, &mut clamps) else {
                continue;
            };
            accepted += 1;
            let mut checked = Machine::new(&program, &agent, LeafTable::new(0));
            let mut fast = Machine::new(&program, &agent, LeafTable::new(0));
            fast.fops = fops;
            fast.clamps = clamps;
            let a = checked.exec(whole);
            let b = fast.exec_fast(f);
            // Bit for bit, except the sign and payload of a NaN that is not `UNSET`: which
            // operand's NaN an addition keeps is the code generator's choice (Rust does
            // not fix it), in either machine.
            let canon = |v: f64| {
                if v.is_nan() && !affect_compiler::ir::program::is_unset(v) {
                    f64::NAN.to_bits()
                } else {
                    v.to_bits()
                }
            };
            assert_eq!(canon(a), canon(b), "{code:?}");
            let bits = |m: &Machine| m.slots.iter().map(|&v| canon(v)).collect::<Vec<_>>();
            assert_eq!(bits(&checked), bits(&fast), "{code:?}");
            assert_eq!(checked.seq, fast.seq, "{code:?}");
            // The state a fault keeps, bit for bit (NaN is not equal to itself).
            let fault = |m: &Machine| {
                m.fault.as_ref().map(|f| {
                    let bits: Vec<u64> = f.slots.iter().map(|&v| canon(v)).collect();
                    (f.slot, f.transitions, bits, f.seq.clone())
                })
            };
            assert_eq!(fault(&checked), fault(&fast), "{code:?}");
            faults += usize::from(fast.fault.is_some());
        }
        assert!(faults > 100, "only {faults} reads of unset variables");
        assert!(accepted > 2500, "only {accepted} accepted");
    }
}
