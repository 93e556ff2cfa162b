//! An instance's emotional memories across runs: long-term memory as the run read it from
//! the `persist` file before set-up, and what to write back at the end of the run.

use crate::affect::persist::{Files, Stored};
use crate::affect::{Memory, Trace};
use affect_compiler::ir::program::{AgentProgram, Program};

/// The agent's memories, their long-term part as the run's memory `files` held it (`None`
/// keeps every memory in memory only).
pub fn load(program: &Program, agent: &AgentProgram, files: Option<&Files>) -> Vec<Memory> {
    let mut memories = Vec::new();
    for spec in &agent.memories {
        let mut m = Memory::new(spec.clone());
        if let (Some(file), Some(files)) = (&spec.persist, files) {
            if let Some(s) = files.stored(file, &spec.name) {
                restore(program, &mut m, s);
            }
        }
        memories.push(m);
    }
    memories
}

/// Puts a stored memory's traces and links back, those whose places the program knows.
fn restore(program: &Program, m: &mut Memory, s: &Stored) {
    let traces = s
        .traces
        .iter()
        .filter_map(|(k, score, fam)| {
            program.symbol(k).map(|key| Trace {
                key,
                score: *score,
                familiarity: *fam,
            })
        })
        .collect();
    m.set_long_term(traces);
    let links = s
        .links
        .iter()
        .filter_map(|(a, b)| Some((program.symbol(a)?, program.symbol(b)?)))
        .collect();
    m.set_links(links);
}

/// Long-term memories to save: (file, contents) for each `persist`ed memory.
pub fn stored(program: &Program, memories: &[Memory]) -> Vec<(String, Stored)> {
    let name = |k: u32| program.strings.get(k as usize).cloned().unwrap_or_default();
    memories
        .iter()
        .filter_map(|m| {
            let file = m.spec.persist.clone()?;
            let traces = m
                .long_term()
                .iter()
                .map(|t| (name(t.key), t.score, t.familiarity))
                .collect();
            let links = m.links().iter().map(|&(a, b)| (name(a), name(b))).collect();
            Some((
                file,
                Stored {
                    name: m.spec.name.clone(),
                    traces,
                    links,
                },
            ))
        })
        .collect()
}
