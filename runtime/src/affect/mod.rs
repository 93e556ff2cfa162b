//! The affect model's run-time state: emotional memories (and, with them, the processes the
//! trace reports).

pub mod behavior;
pub mod component;
pub mod memory;
pub mod persist;
pub mod recruit;
pub mod renewal;

pub use memory::{MemEvent, MemOp, Memory, Trace};
