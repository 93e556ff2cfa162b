//! The expression machine: runs compiled code over the slots with a fixed stack on the
//! native stack. No allocation, no string look-ups.

use super::Machine;
use affect_compiler::ir::eval::{binary, unary};
use affect_compiler::ir::functions::{Function, HostFn};
use affect_compiler::ir::program::{is_unset, Code, Op};

/// Deeper expressions than this do not occur in practice (the parser's own recursion
/// limits nesting long before); an overflowing push is dropped rather than a panic.
const STACK: usize = 32;

/// The expression stack; one per machine, reused by every evaluation.
pub(crate) struct Stack {
    v: [f64; STACK],
    sp: usize,
}

impl Default for Stack {
    fn default() -> Self {
        Stack {
            v: [0.0; STACK],
            sp: 0,
        }
    }
}

impl Stack {
    #[inline(always)]
    fn push(&mut self, x: f64) {
        if let Some(slot) = self.v.get_mut(self.sp) {
            *slot = x;
            self.sp += 1;
        }
    }

    #[inline(always)]
    fn pop(&mut self) -> f64 {
        if self.sp == 0 {
            return 0.0;
        }
        self.sp -= 1;
        self.v[self.sp]
    }

    #[inline(always)]
    fn top(&self) -> f64 {
        if self.sp == 0 {
            0.0
        } else {
            self.v[self.sp - 1]
        }
    }
}

impl Machine<'_> {
    /// Runs a statement block (scripts, handlers, post-conditions).
    pub(crate) fn run(&mut self, code: Code) {
        self.exec(code);
    }

    /// Evaluates an expression.
    pub(crate) fn eval(&mut self, code: Code) -> f64 {
        self.exec(code)
    }

    pub(crate) fn eval_bool(&mut self, code: Code) -> bool {
        self.exec(code) != 0.0
    }

    /// Runs code; returns what is left on top of the stack (an expression's value).
    pub(crate) fn exec(&mut self, code: Code) -> f64 {
        let start = code.start as usize;
        let end = start + code.len as usize;
        let prog = self.prog;
        let Some(ops) = prog.code.get(start..end) else {
            return f64::NAN;
        };
        // The stack is taken out of the machine for the run (a box moves, nothing is copied)
        // so that slots can be written while it is in use.
        let mut st = self.stk.take().unwrap_or_default();
        st.sp = 0;
        let v = self.exec_on(ops, &mut st);
        self.stk = Some(st);
        v
    }

    fn exec_on(&mut self, ops: &[Op], st: &mut Stack) -> f64 {
        let mut pc = 0usize;
        while let Some(&op) = ops.get(pc) {
            pc += 1;
            match op {
                Op::Const(v) => st.push(v),
                Op::Load(s) => st.push(self.slots.get(s as usize).copied().unwrap_or(f64::NAN)),
                Op::LoadChecked(s) => {
                    let v = self.slots.get(s as usize).copied().unwrap_or(f64::NAN);
                    let list = (self.prog.slots.get(s as usize))
                        .is_some_and(|x| x.kind == affect_compiler::ir::program::ValueKind::List);
                    st.push(if list {
                        self.list_checked(s)
                    } else if is_unset(v) {
                        self.unset_read(s)
                    } else {
                        v
                    });
                }
                Op::Store(s) => {
                    let v = st.pop();
                    self.write(s, v);
                }
                Op::StoreClamped(s, lo, hi) => {
                    let v = st.pop();
                    self.write(s, v.clamp(lo, hi));
                }
                Op::Add => {
                    let b = st.pop();
                    let a = st.pop();
                    st.push(a + b);
                }
                Op::Sub => {
                    let b = st.pop();
                    let a = st.pop();
                    st.push(a - b);
                }
                Op::Mul => {
                    let b = st.pop();
                    let a = st.pop();
                    st.push(a * b);
                }
                Op::Div => {
                    let b = st.pop();
                    let a = st.pop();
                    st.push(a / b);
                }
                Op::Pop => {
                    st.pop();
                }
                Op::Jump(off) => pc += off as usize,
                Op::JumpIfFalse(off) => {
                    if st.pop() == 0.0 {
                        pc += off as usize;
                    }
                }
                Op::JumpIfFalseKeep(off) => {
                    if st.top() == 0.0 {
                        pc += off as usize;
                    }
                }
                Op::JumpIfTrueKeep(off) => {
                    if st.top() != 0.0 {
                        pc += off as usize;
                    }
                }
                Op::Neg | Op::Not | Op::BitNot => {
                    let a = st.pop();
                    st.push(unary(op, a));
                }
                Op::Call(f, argc) => {
                    let n = (argc as usize).min(st.sp);
                    let at = st.sp - n;
                    let v = match f {
                        Function::Len => self.lists.len_of(st.v[at]) as f64,
                        _ => f.apply(&st.v[at..st.sp]),
                    };
                    st.sp = at;
                    st.push(v);
                }
                Op::Host(f, arg, argc) => {
                    let n = (argc as usize).min(st.sp);
                    let at = st.sp - n;
                    let v = match f {
                        HostFn::ListPush => {
                            // Growing a list reads it: an unset one is the tick's fault.
                            let id = self.list_checked(arg);
                            let x = if n > 0 { st.v[at] } else { 0.0 };
                            self.lists.push(id, x);
                            0.0
                        }
                        _ => match self.host.as_mut() {
                            Some(h) => h.call(f, arg, &st.v[at..st.sp], &mut self.lists),
                            None => f64::NAN,
                        },
                    };
                    st.sp = at;
                    st.push(v);
                }
                Op::Index => {
                    let i = st.pop();
                    let list = st.pop();
                    st.push(self.lists.get(list, i));
                }
                Op::ListBuild(s, n) => {
                    let n = (n as usize).min(st.sp);
                    let at = st.sp - n;
                    let id = self.slots.get(s as usize).copied().unwrap_or(f64::NAN);
                    self.lists.set(id, &st.v[at..st.sp]);
                    st.sp = at;
                    st.push(id);
                }
                Op::ListSet(s) => {
                    let from = st.pop();
                    self.copy_list(s, from);
                }
                Op::ListSetAt(s) => {
                    let v = st.pop();
                    let i = st.pop();
                    if (s as usize) < self.slots.len() {
                        let id = self.list_checked(s);
                        self.lists.set_at(id, i, v);
                        self.seq[s as usize] = self.seq[s as usize].wrapping_add(1);
                    }
                }
                _ => {
                    let b = st.pop();
                    let a = st.pop();
                    st.push(binary(op, a, b));
                }
            }
        }
        st.top()
    }
}
