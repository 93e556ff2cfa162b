//! Which blackboard slots an agent's program reads: by an expression (a `check`, a script,
//! a condition, an argument, the process phase) or by a node that watches an entry
//! (`skip_unless_updated`, `wait_value_update`, `loop`). The runtime asks this to tell a
//! stand-in's output that something waits for from one nobody looks at.

use super::program::{AgentProgram, NodeKind, Op};

/// For each slot of `agent`, whether the program reads it.
pub fn slots_read(agent: &AgentProgram) -> Vec<bool> {
    let mut read = vec![false; agent.slots.len()];
    let mut mark = |s: u32| {
        if let Some(r) = read.get_mut(s as usize) {
            *r = true;
        }
    };
    for op in &agent.code {
        if let Op::Load(s) | Op::LoadChecked(s) = op {
            mark(*s);
        }
    }
    for node in &agent.nodes {
        match &node.kind {
            NodeKind::WasEntryUpdated { slot } => mark(*slot),
            NodeKind::Decorator(d) => d.slots(false).for_each(&mut mark),
            _ => {}
        }
    }
    read
}

#[cfg(test)]
mod tests {
    use super::slots_read;
    use crate::ir::program::AgentProgram;

    fn agent(src: &str) -> AgentProgram {
        let a = crate::check_source_with(src, &crate::sema::NoFiles);
        assert!(a.diagnostics.is_empty(), "{:?}", a.diagnostics);
        a.program.unwrap().agents.remove(0)
    }

    fn read_names(agent: &AgentProgram) -> Vec<&str> {
        let read = slots_read(agent);
        agent
            .slots
            .iter()
            .zip(read)
            .filter(|(s, r)| *r && s.visible)
            .map(|(s, _)| s.name.as_str())
            .collect()
    }

    #[test]
    fn a_checked_variable_is_read_and_an_output_only_written_is_not() {
        let a = agent(
            "action Detect(out found: bool, out seen: num);\nmain tree T {\n    var found: bool = false;\n    var seen: num = 0;\n    var n: num = 0;\n\n    sequence { Detect(found: found, seen: seen) check found do { n = n + 1 } }\n}\n",
        );
        assert_eq!(read_names(&a), ["found", "n"]);
    }
}
