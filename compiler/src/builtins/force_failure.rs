//! `force_failure { .. }`: BehaviorTree.CPP's ForceFailure. Its
//! tick and halt, in both engines: `runtime/src/families/force_failure.rs`.

use super::{Builtin, decorator};

pub const ROW: Builtin = decorator("force_failure", "ForceFailure", Some("ForceFailure"), "A completed child counts as FAILURE.");
