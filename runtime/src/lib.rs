//! The affect runtime: interpreter, JIT, affect model, devices and simulated worlds.
