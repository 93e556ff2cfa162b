//! The affect runtime: interpreter, JIT, affect model, devices and simulated worlds.
pub mod affect;
pub mod bench;
pub mod devices;
pub mod hardware;
pub mod interp;
pub mod jit;
pub mod leaf;
pub mod lists;
pub mod network;
pub mod node_hooks;
pub mod nodes;
pub mod radio;
pub mod realtime;
pub mod record;
pub mod rng;
pub mod robot;
pub mod run;
pub mod sched;
pub mod sim;
pub mod tape;
pub mod trace;
pub mod world;

#[cfg(test)]
mod test_support;
