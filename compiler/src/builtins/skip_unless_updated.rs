//! `skip_unless_updated(x) { .. }`: BehaviorTree.CPP 4's SkipUnlessUpdated. Its
//! tick and halt, in both engines: `runtime/src/families/skip_unless_updated.rs`.

use super::{ArgType, Builtin, arg, decorator};

pub const ROW: Builtin = Builtin {
    args: &[arg("entry", "entry", ArgType::Variable, None)],
    ..decorator("skip_unless_updated", "SkipUnlessUpdated", None, "Ticks the child only when the variable changed since the last check, else SKIPPED.")
};
