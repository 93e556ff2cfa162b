//! `affect memory show FILE`: a long-term emotional memory file (`persist "feelings.eltm";`)
//! as a table, or as JSON.

use super::{FAILED, OK, USAGE};
use affect_runtime::affect::persist::{self, Stored};
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(clap::Subcommand)]
pub enum MemoryCommand {
    /// Print a long-term memory file: each memory's traces (key, score, familiarity), most
    /// pleasant first, and the connections between keys.
    ///
    /// Exit status: 0 when the file was shown, 1 when it is not a long-term memory file this
    /// version of affect reads (E0603), 2 when it cannot be read.
    Show(ShowArgs),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Sort {
    /// Highest score first (ties by key).
    Score,
    /// By key.
    Key,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Output {
    /// A table for people.
    Table,
    /// One JSON document, for tools.
    Json,
}

#[derive(clap::Args)]
pub struct ShowArgs {
    /// The memory file (for example `feelings.eltm` beside the program).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// The order of the traces.
    #[arg(long, value_enum, default_value_t = Sort::Score)]
    pub sort: Sort,
    /// How to print.
    #[arg(long, value_enum, default_value_t = Output::Table)]
    pub format: Output,
}

pub fn run(cmd: &MemoryCommand) -> u8 {
    match cmd {
        MemoryCommand::Show(args) => show(args),
    }
}

fn show(args: &ShowArgs) -> u8 {
    let path = args.file.display().to_string();
    let bytes = match affect_files::read_bytes(&args.file, persist::MAX_FILE_BYTES) {
        Ok(b) => b,
        Err(e) => {
            super::report::unreadable(&args.file, &e);
            return USAGE;
        }
    };
    let parsed = persist::read(&bytes).map(|m| {
        let header = String::from_utf8_lossy(bytes.split(|&b| b == b'\n').next().unwrap_or(&[]));
        (header.trim().to_string(), m)
    });
    let (header, mut memories) = match parsed {
        Ok(x) => x,
        Err(e) => {
            eprintln!("error[E0603]: `{path}` cannot be used as a long-term memory: {e}");
            eprintln!("  = help: `affect explain E0603` tells more; the file was not changed");
            return FAILED;
        }
    };
    for m in &mut memories {
        match args.sort {
            Sort::Score => m
                .traces
                .sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0))),
            Sort::Key => m.traces.sort_by(|a, b| a.0.cmp(&b.0)),
        }
    }
    let text = match args.format {
        Output::Table => table(&path, &header, &memories),
        Output::Json => json(&path, &header, &memories),
    };
    print!("{text}");
    OK
}

/// A key as the table shows it: control characters escaped, so a row stays one line.
fn shown(k: &str) -> String {
    if k.is_empty() {
        return "\"\"".into();
    }
    k.escape_debug().to_string()
}

fn table(path: &str, header: &str, memories: &[Stored]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{path}: {header}");
    if memories.is_empty() {
        let _ = writeln!(out, "(no memories)");
    }
    for m in memories {
        let _ = writeln!(
            out,
            "\nmemory {}: {} trace{}, {} connection{}",
            m.name,
            m.traces.len(),
            if m.traces.len() == 1 { "" } else { "s" },
            m.links.len(),
            if m.links.len() == 1 { "" } else { "s" }
        );
        if m.traces.is_empty() {
            continue;
        }
        let keys: Vec<String> = m.traces.iter().map(|t| shown(&t.0)).collect();
        let w = keys
            .iter()
            .map(|k| k.chars().count())
            .max()
            .unwrap_or(0)
            .max(3);
        let _ = writeln!(
            out,
            "  {:<w$}  {:>6}  {:>11}  feeling",
            "key", "score", "familiarity"
        );
        for (k, (_, score, fam)) in keys.iter().zip(&m.traces) {
            let feeling = if *score > 60.0 {
                "positive"
            } else if *score < 40.0 {
                "negative"
            } else {
                "neutral"
            };
            let _ = writeln!(out, "  {k:<w$}  {score:>6.1}  {fam:>11.0}  {feeling}");
        }
        if !m.links.is_empty() {
            let links: Vec<String> = m
                .links
                .iter()
                .map(|(a, b)| format!("{}–{}", shown(a), shown(b)))
                .collect();
            let _ = writeln!(out, "  connections: {}", links.join(" "));
        }
    }
    out
}

fn json(path: &str, header: &str, memories: &[Stored]) -> String {
    let doc = serde_json::json!({
        "file": path,
        "format": header,
        "memories": memories.iter().map(|m| serde_json::json!({
            "name": m.name,
            "traces": m.traces.iter().map(|(k, s, f)| serde_json::json!({
                "key": k, "score": s, "familiarity": f,
            })).collect::<Vec<_>>(),
            "connections": m.links.iter().map(|(a, b)| [a, b]).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    });
    format!("{doc}\n")
}
