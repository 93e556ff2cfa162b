//! The expression machine: runs compiled code over the slots with a preallocated stack.
//! No allocation, no string look-ups.

use super::Machine;
use affect_compiler::ir::eval::{binary, unary};
use affect_compiler::ir::functions::{Function, HostFn};
use affect_compiler::ir::program::{Code, Op};

impl Machine<'_> {
    /// Runs a statement block (scripts, handlers, post-conditions).
    pub(crate) fn run(&mut self, code: Code) {
        self.exec(code);
        self.stack.clear();
    }

    /// Evaluates an expression.
    pub(crate) fn eval(&mut self, code: Code) -> f64 {
        self.exec(code);
        let v = self.stack.pop().unwrap_or(0.0);
        self.stack.clear();
        v
    }

    pub(crate) fn eval_bool(&mut self, code: Code) -> bool {
        self.eval(code) != 0.0
    }

    fn exec(&mut self, code: Code) {
        let ops = &self.prog.code[code.start as usize..(code.start + code.len) as usize];
        let mut pc = 0usize;
        while pc < ops.len() {
            let op = ops[pc];
            pc += 1;
            match op {
                Op::Const(v) => self.stack.push(v),
                Op::Load(s) => self.stack.push(self.slots[s as usize]),
                Op::Store(s) => {
                    let v = self.stack.pop().unwrap_or(0.0);
                    self.write(s, v);
                }
                Op::StoreClamped(s, lo, hi) => {
                    let v = self.stack.pop().unwrap_or(0.0);
                    self.write(s, v.clamp(lo, hi));
                }
                Op::Pop => {
                    self.stack.pop();
                }
                Op::Jump(off) => pc += off as usize,
                Op::JumpIfFalse(off) => {
                    if self.stack.pop().unwrap_or(0.0) == 0.0 {
                        pc += off as usize;
                    }
                }
                Op::JumpIfFalseKeep(off) => {
                    if self.stack.last().copied().unwrap_or(0.0) == 0.0 {
                        pc += off as usize;
                    }
                }
                Op::JumpIfTrueKeep(off) => {
                    if self.stack.last().copied().unwrap_or(0.0) != 0.0 {
                        pc += off as usize;
                    }
                }
                Op::Neg | Op::Not | Op::BitNot => {
                    let a = self.stack.pop().unwrap_or(0.0);
                    self.stack.push(unary(op, a));
                }
                Op::Call(f, argc) => {
                    let n = argc as usize;
                    let at = self.stack.len().saturating_sub(n);
                    let v = match f {
                        Function::Len => {
                            let id = self.stack.get(at).copied().unwrap_or(0.0);
                            self.lists.len_of(id) as f64
                        }
                        _ => f.apply(&self.stack[at..]),
                    };
                    self.stack.truncate(at);
                    self.stack.push(v);
                }
                Op::Host(f, arg, argc) => {
                    let at = self.stack.len().saturating_sub(argc as usize);
                    let v = match f {
                        HostFn::ListPush => {
                            let id = self.slots.get(arg as usize).copied().unwrap_or(f64::NAN);
                            let x = self.stack.get(at).copied().unwrap_or(0.0);
                            self.lists.push(id, x);
                            0.0
                        }
                        _ => match self.host.as_mut() {
                            Some(h) => h.call(f, arg, &self.stack[at..], &mut self.lists),
                            None => f64::NAN,
                        },
                    };
                    self.stack.truncate(at);
                    self.stack.push(v);
                }
                Op::Index => {
                    let i = self.stack.pop().unwrap_or(0.0);
                    let list = self.stack.pop().unwrap_or(0.0);
                    self.stack.push(self.lists.get(list, i));
                }
                _ => {
                    let b = self.stack.pop().unwrap_or(0.0);
                    let a = self.stack.pop().unwrap_or(0.0);
                    self.stack.push(binary(op, a, b));
                }
            }
        }
    }
}
