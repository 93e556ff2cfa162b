//! `keep_running_until_failure { .. }`: BehaviorTree.CPP's KeepRunningUntilFailure. Its
//! tick and halt, in both engines: `runtime/src/families/keep_running_until_failure.rs`.

use super::{Builtin, decorator};

pub const ROW: Builtin = decorator("keep_running_until_failure", "KeepRunningUntilFailure", Some("KeepRunningUntilFailure"), "Keeps running while the child succeeds; fails when it fails.");
