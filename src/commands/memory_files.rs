//! The long-term memory files (`persist "feelings.eltm";`) a run reads and writes, as a
//! record (`--record`) keeps them: their bytes before the run. (The run itself tells what it
//! read and wrote through its observers.)

use affect_compiler::ir::program::Program;
use affect_runtime::affect::persist;
use affect_runtime::run::RunConfig;
use std::path::PathBuf;

/// The memory files of the agents this run runs, each once, in declaration order.
pub fn of_run(program: &Program, config: &RunConfig) -> Vec<PathBuf> {
    let Some(dir) = &config.persist_dir else {
        return Vec::new();
    };
    // `--agent UGV#2` runs the instances of `UGV`.
    let wanted = config
        .agent
        .as_deref()
        .map(|a| a.split('#').next().unwrap_or(a));
    let mut files: Vec<PathBuf> = Vec::new();
    for agent in &program.agents {
        if wanted.is_some_and(|w| w != agent.name) {
            continue;
        }
        for file in agent.memories.iter().filter_map(|m| m.persist.as_ref()) {
            let path = dir.join(file);
            if !files.contains(&path) {
                files.push(path);
            }
        }
    }
    files
}

/// Every `persist` name of the program's memories.
pub fn persist_names(program: &Program) -> Vec<String> {
    let all = program.agents.iter().flat_map(|a| a.memories.iter());
    all.filter_map(|m| m.persist.clone()).collect()
}

/// The memory files of the run as they are before it, by `persist` name (`None`: not there
/// yet), for its record; `None` when the run keeps its memories in memory (`--no-persist`).
/// Each file is read once, here: the run is handed the same bytes (`config.memories_read`),
/// so the record holds exactly what the run starts from.
pub fn snapshot(
    program: &Program,
    config: &mut RunConfig,
) -> Option<Vec<(String, Option<Vec<u8>>)>> {
    let dir = config.persist_dir.clone()?;
    let ahead = persist::ReadAhead::read(of_run(program, config));
    let files = ahead.files().filter_map(|(path, bytes)| {
        let name = path.strip_prefix(&dir).ok()?.to_str()?.to_string();
        // A file that cannot be read stops the run (E0603) before its first tick.
        Some((name, bytes.as_ref().ok().cloned().flatten()))
    });
    let files = files.collect();
    config.memories_read = ahead;
    Some(files)
}
