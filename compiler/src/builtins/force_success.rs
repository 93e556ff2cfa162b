//! `force_success { .. }`: BehaviorTree.CPP's ForceSuccess. Its
//! tick and halt, in both engines: `runtime/src/families/force_success.rs`.

use super::{Builtin, decorator};

pub const ROW: Builtin = decorator("force_success", "ForceSuccess", Some("ForceSuccess"), "A completed child counts as SUCCESS.");
