//! The tick program: what the compiler hands the runtime. A flat node table per agent, a
//! typed blackboard slot layout, expression code, the affect model's update order, and the
//! worlds the program can run in. The runtime depends on this, never on the syntax tree.

pub mod behavior;
pub mod code;
pub mod eval;
pub mod functions;
pub mod print;
pub mod program;
pub mod reads;
pub mod units;
pub mod value;
pub mod world;
