//! `repeat(n) { .. }`: BehaviorTree.CPP's Repeat. Its
//! tick and halt, in both engines: `runtime/src/families/repeat.rs`.

use super::{ArgType, Builtin, arg, decorator};

pub const ROW: Builtin = Builtin {
    args: &[arg("num_cycles", "num_cycles", ArgType::Int, None)],
    ..decorator("repeat", "Repeat", Some("Repeat"), "Repeats a successful child `n` times (-1: forever).")
};
