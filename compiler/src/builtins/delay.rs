//! `delay(1s) { .. }`: BehaviorTree.CPP's Delay. Its
//! tick and halt, in both engines: `runtime/src/families/delay.rs`.

use super::{ArgType, Builtin, arg, decorator};

pub const ROW: Builtin = Builtin {
    args: &[arg("delay_msec", "delay_msec", ArgType::Duration, None)],
    ..decorator("delay", "Delay", Some("Delay"), "Waits for the duration, then ticks the child.")
};
