//! `wait_update(x) { .. }`: BehaviorTree.CPP 4's WaitValueUpdate. Its
//! tick and halt, in both engines: `runtime/src/families/wait_update.rs`.

use super::{ArgType, Builtin, arg, decorator};

pub const ROW: Builtin = Builtin {
    args: &[arg("entry", "entry", ArgType::Variable, None)],
    ..decorator("wait_update", "WaitValueUpdate", None, "RUNNING until the variable changes, then ticks the child.")
};
