//! `precondition(if: x > 1) { .. }`: BehaviorTree.CPP 4's Precondition (v3's
//! `BlackboardCheck*` lowers to it too, `sema/node_builtin.rs`). Its
//! tick and halt, in both engines: `runtime/src/families/precondition.rs`.

use super::{ArgType, Builtin, arg, decorator};

pub const ROW: Builtin = Builtin {
    args: &[
        arg("if", "if", ArgType::Condition, None),
        arg("else", "else", ArgType::Status, Some("FAILURE")),
    ],
    ..decorator("precondition", "Precondition", None, "Ticks the child only when the condition holds, else returns `else`.")
};
