//! `timeout(2s) { .. }`: BehaviorTree.CPP's Timeout. Its
//! tick and halt, in both engines: `runtime/src/families/timeout.rs`.

use super::{ArgType, Builtin, arg, decorator};

pub const ROW: Builtin = Builtin {
    args: &[arg("msec", "msec", ArgType::Duration, None)],
    ..decorator("timeout", "Timeout", Some("Timeout"), "Halts the child and fails when it runs longer than the duration.")
};
