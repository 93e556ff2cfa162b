//! The references the tick program is made of: slot, node and symbol numbers, and ranges of
//! expression code. Shared by the program (`program.rs`) and the behaviour arbiter
//! (`behavior.rs`), which refer to each other's parts through them.

pub type SlotId = u32;
pub type NodeId = u32;
pub type SymbolId = u32;

/// A range of instructions in `AgentProgram::code`: an expression leaves one value on the
/// stack; a statement block leaves none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Code {
    pub start: u32,
    pub len: u32,
}

impl Code {
    pub fn is_empty(self) -> bool {
        self.len == 0
    }
}

/// An argument a node reads when it ticks: a constant, or an expression over the blackboard
/// (BehaviorTree.CPP reads `{key}` ports at tick time).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arg {
    Const(f64),
    Expr(Code),
}
