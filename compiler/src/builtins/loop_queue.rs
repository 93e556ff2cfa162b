//! `for value in queue { .. }` (or `loop(queue: q, value: v)`): BehaviorTree.CPP 4's
//! `Loop<T>` nodes (`LoopInt`, `LoopDouble`, `LoopString`, `LoopBool`; `sema/tree.rs` picks
//! the ID by the variable's type). Its
//! tick and halt, in both engines: `runtime/src/families/loop_queue.rs`.

use super::{Access, ArgType, Builtin, BuiltinArg, arg, decorator};

pub const ROW: Builtin = Builtin {
    args: &[
        BuiltinArg { access: Access::ReadWrite, ..arg("queue", "queue", ArgType::Variable, None) },
        BuiltinArg { access: Access::Write, ..arg("value", "value", ArgType::Variable, None) },
        arg("if_empty", "if_empty", ArgType::Status, Some("SUCCESS")),
    ],
    ..decorator("loop", "LoopDouble", None, "Pops each element of a queue into `value` and ticks the child (written `for value in queue { .. }`).")
};
