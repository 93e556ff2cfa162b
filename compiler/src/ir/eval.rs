//! Evaluating compiled code without a blackboard: constant folding in the checker.

use super::program::Op;

/// Runs code that reads no variables and calls only pure functions; `None` otherwise.
pub fn eval_const(code: &[Op]) -> Option<f64> {
    let mut stack: Vec<f64> = Vec::with_capacity(8);
    let mut pc = 0usize;
    while pc < code.len() {
        let op = code[pc];
        pc += 1;
        match op {
            Op::Const(v) => stack.push(v),
            Op::Load(_)
            | Op::LoadChecked(_)
            | Op::Store(_)
            | Op::StoreClamped(..)
            | Op::Index
            | Op::Host(..)
            | Op::ListBuild(..)
            | Op::ListSet(_)
            | Op::ListSetAt(_) => return None,
            Op::Call(f, argc) => {
                if f == super::functions::Function::Len {
                    return None;
                }
                let n = argc as usize;
                if stack.len() < n {
                    return None;
                }
                let args = stack.split_off(stack.len() - n);
                stack.push(f.apply(&args));
            }
            Op::Pop => {
                stack.pop()?;
            }
            Op::Jump(off) => pc += off as usize,
            Op::JumpIfFalse(off) => {
                if stack.pop()? == 0.0 {
                    pc += off as usize;
                }
            }
            Op::JumpIfFalseKeep(off) => {
                if *stack.last()? == 0.0 {
                    pc += off as usize;
                }
            }
            Op::JumpIfTrueKeep(off) => {
                if *stack.last()? != 0.0 {
                    pc += off as usize;
                }
            }
            Op::Neg | Op::Not | Op::BitNot => {
                let a = stack.pop()?;
                stack.push(unary(op, a));
            }
            _ => {
                let b = stack.pop()?;
                let a = stack.pop()?;
                stack.push(binary(op, a, b));
            }
        }
    }
    if stack.len() == 1 {
        stack.pop()
    } else {
        None
    }
}

/// The value of a unary operator, as every engine computes it.
pub fn unary(op: Op, a: f64) -> f64 {
    match op {
        Op::Neg => -a,
        Op::Not => bool_f(a == 0.0),
        Op::BitNot => !(a as i64) as f64,
        _ => a,
    }
}

/// Equality of numbers as BehaviorTree.CPP's scripts decide it: within a float epsilon.
pub fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= f32::EPSILON as f64
}

/// The value of a binary operator, as every engine computes it.
pub fn binary(op: Op, a: f64, b: f64) -> f64 {
    match op {
        Op::Add => a + b,
        Op::Sub => a - b,
        Op::Mul => a * b,
        Op::Div => a / b,
        Op::Eq => bool_f(same(a, b)),
        Op::Ne => bool_f(!same(a, b)),
        Op::Lt => bool_f(a < b),
        Op::Le => bool_f(a <= b),
        Op::Gt => bool_f(a > b),
        Op::Ge => bool_f(a >= b),
        Op::BitAnd => ((a as i64) & (b as i64)) as f64,
        Op::BitOr => ((a as i64) | (b as i64)) as f64,
        Op::BitXor => ((a as i64) ^ (b as i64)) as f64,
        _ => f64::NAN,
    }
}

pub fn bool_f(b: bool) -> f64 {
    if b {
        1.0
    } else {
        0.0
    }
}
