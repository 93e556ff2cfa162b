//! `invert { .. }`: BehaviorTree.CPP's Inverter. Its
//! tick and halt, in both engines: `runtime/src/families/invert.rs`.

use super::{Builtin, decorator};

pub const ROW: Builtin = decorator("invert", "Inverter", Some("Inverter"), "Turns SUCCESS into FAILURE and back.");
