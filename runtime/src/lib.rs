//! The affect runtime: interpreter, JIT, affect model, devices and simulated worlds.
pub mod interp;
pub mod leaf;
pub mod run;
pub mod trace;
pub mod devices;
pub mod rng;
pub mod world;
