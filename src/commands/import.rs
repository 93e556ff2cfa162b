//! `affect import FILE.xml [-o OUT.affect]`: a Groot / BehaviorTree.CPP XML file as `.affect`.

use super::report::Reporter;
use super::{FAILED, OK, USAGE};
use crate::{files, Format};
use affect_compiler::groot::{self, IncludeLoader};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct ImportArgs {
    /// The XML file (BehaviorTree.CPP 3 or 4, any Groot version).
    #[arg(value_name = "FILE.xml")]
    pub file: PathBuf,
    /// Write the `.affect` text here (atomically) instead of to standard output.
    #[arg(short, long, value_name = "OUT.affect")]
    pub output: Option<PathBuf>,
    /// How to print diagnostics.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// Reads `<include>`d files relative to the including file, as BehaviorTree.CPP does.
pub struct IncludeFiles;

impl IncludeLoader for IncludeFiles {
    fn load(&mut self, from: &str, path: &str) -> Result<(String, String), String> {
        let base = Path::new(from).parent().unwrap_or(Path::new(""));
        let full = base.join(path);
        let text = files::read_source(&full)?;
        Ok((full.display().to_string(), text))
    }
}

pub fn run(args: &ImportArgs) -> u8 {
    if args.format == Format::Json && args.output.is_none() {
        eprintln!("error: `--format json` prints the diagnostics to standard output; write the result with `-o FILE`");
        return USAGE;
    }
    let text = match files::read_source(&args.file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return USAGE;
        }
    };
    let name = args.file.display().to_string();
    let imported = groot::import(&text, &name, &mut IncludeFiles);
    let mut reporter = Reporter::new(args.format);
    reporter.add(&name, &text, &imported.diagnostics);
    for f in &imported.included {
        reporter.add(&f.name, &f.text, &f.diagnostics);
    }
    let failed = imported.has_errors();
    reporter.finish(1 + imported.included.len());
    if failed {
        eprintln!("affect import: `{name}` was not imported");
        return FAILED;
    }
    match files::write_output(args.output.as_deref(), &imported.text()) {
        Ok(()) => OK,
        Err(e) => {
            eprintln!("error: {e}");
            USAGE
        }
    }
}
