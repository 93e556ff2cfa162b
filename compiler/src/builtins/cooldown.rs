//! `cooldown(5s) { .. }`: after its child completes, the node fails without ticking it until
//! the duration has passed (a greeting, a sound, a recovery not repeated too often).
//! BehaviorTree.CPP has no such node: the export declares it as `Cooldown` and
//! `cpp/affect_bt.hpp` implements it. Its tick and halt, in both engines:
//! `runtime/src/interp/families/cooldown.rs`.

use super::{arg, decorator, ArgType, Builtin};

pub const ROW: Builtin = Builtin {
    args: &[arg("msec", "msec", ArgType::Duration, None)],
    own: true,
    ..decorator(
        "cooldown",
        "Cooldown",
        Some("Cooldown"),
        "After the child completes, FAILURE without ticking it until the duration has passed.",
    )
};
