//! `run_once { .. }`: BehaviorTree.CPP 4's RunOnce. Its
//! tick and halt, in both engines: `runtime/src/families/run_once.rs`.

use super::{ArgType, Builtin, arg, decorator};

pub const ROW: Builtin = Builtin {
    args: &[arg("then_skip", "then_skip", ArgType::Bool, Some("true"))],
    ..decorator("run_once", "RunOnce", None, "Runs the child to completion once; afterwards it is skipped (or repeats the result).")
};
