//! `retry(n) { .. }`: BehaviorTree.CPP's RetryUntilSuccessful. Its
//! tick and halt, in both engines: `runtime/src/families/retry.rs`.

use super::{ArgType, Builtin, arg, decorator};

pub const ROW: Builtin = Builtin {
    args: &[arg("num_attempts", "num_attempts", ArgType::Int, None)],
    ..decorator("retry", "RetryUntilSuccessful", Some("RetryUntilSuccessful"), "Retries a failing child up to `n` times (-1: forever).")
};
