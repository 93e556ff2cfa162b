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
pub fn snapshot(program: &Program, config: &RunConfig) -> Option<Vec<(String, Option<Vec<u8>>)>> {
    let dir = config.persist_dir.as_ref()?;
    let files = of_run(program, config).into_iter().filter_map(|path| {
        let name = path.strip_prefix(dir).ok()?.to_str()?.to_string();
        // Read as the run reads it: a regular file, bounded.
        let bytes = affect_files::read_bytes(&path, persist::MAX_FILE_BYTES).ok();
        Some((name, bytes))
    });
    Some(files.collect())
}
