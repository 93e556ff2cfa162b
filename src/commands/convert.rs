//! `affect convert FILE.xml --to v4|v3 [-o OUT]`: BehaviorTree.CPP 3 XML ↔ 4 XML.

use super::report::Reporter;
use super::{FAILED, OK, USAGE};
use crate::{files, Format};
use affect_compiler::groot::{self, Dialect};
use clap::ValueEnum;
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Target {
    /// BehaviorTree.CPP 4 / Groot 2.
    V4,
    /// BehaviorTree.CPP 3 / Groot 1.
    V3,
}

#[derive(clap::Args)]
pub struct ConvertArgs {
    /// The XML file.
    #[arg(value_name = "FILE.xml")]
    pub file: PathBuf,
    /// The dialect to write.
    #[arg(long, value_enum)]
    pub to: Target,
    /// Write the result here (atomically) instead of to standard output.
    #[arg(short, long, value_name = "OUT.xml")]
    pub output: Option<PathBuf>,
    /// How to print diagnostics.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

pub fn run(args: &ConvertArgs) -> u8 {
    if args.format == Format::Json && args.output.is_none() {
        eprintln!("error: `--format json` prints the diagnostics to standard output; write the result with `-o FILE`");
        return USAGE;
    }
    let text = match files::read_source(&args.file) {
        Ok(t) => t,
        Err(e) => {
            super::report::unreadable(&args.file, &e);
            return USAGE;
        }
    };
    let name = args.file.display().to_string();
    let to = match args.to {
        Target::V4 => Dialect::V4,
        Target::V3 => Dialect::V3,
    };
    let out = groot::convert(&text, to);
    let mut reporter = Reporter::new(args.format);
    reporter.add(&name, &text, &out.diagnostics);
    let failed = reporter.errors > 0;
    reporter.finish(1);
    if failed {
        eprintln!("affect convert: `{name}` was not converted");
        return FAILED;
    }
    match files::write_output(args.output.as_deref(), &out.xml) {
        Ok(()) => {
            if let Some(path) = &args.output {
                files::tell_written(path);
            }
            OK
        }
        Err(e) => {
            eprintln!("error: {e}");
            USAGE
        }
    }
}
