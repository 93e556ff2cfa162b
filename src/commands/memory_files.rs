//! The long-term memory files (`persist "feelings.eltm";`) a program names. (What a record
//! keeps of them, their bytes before the run, is the runtime's `robot::memory_snapshot`.)

use affect_compiler::ir::program::Program;

/// Every `persist` name of the program's memories.
pub fn persist_names(program: &Program) -> Vec<String> {
    let all = program.agents.iter().flat_map(|a| a.memories.iter());
    all.filter_map(|m| m.persist.clone()).collect()
}
