//! `affect build FILE.affect --emit KIND [-o OUT]`: the artefacts a program compiles to.

use super::report::Reporter;
use super::{FAILED, OK, USAGE};
use crate::{files, Format};
use affect_compiler::groot::{self, Dialect};
use clap::ValueEnum;
use std::path::PathBuf;

/// What `affect build` writes. New kinds are new variants here and a branch in `run`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Emit {
    /// BehaviorTree.CPP 4 / Groot 2 XML (`BTCPP_format="4"`, compact form).
    Groot,
    /// BehaviorTree.CPP 3 / Groot 1 XML (built-ins compact, custom nodes explicit).
    GrootV3,
    /// The tick program, readably: slots, the node table in uid order, code.
    Ir,
}

#[derive(clap::Args)]
pub struct BuildArgs {
    /// The program.
    #[arg(value_name = "FILE.affect")]
    pub file: PathBuf,
    /// What to produce.
    #[arg(long, value_enum)]
    pub emit: Emit,
    /// Write the result here (atomically) instead of to standard output.
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// How to print diagnostics.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

pub fn run(args: &BuildArgs) -> u8 {
    if args.format == Format::Json && args.output.is_none() {
        eprintln!("error: `--format json` prints the diagnostics to standard output; write the result with `-o FILE`");
        return USAGE;
    }
    let src = match files::read_source(&args.file) {
        Ok(s) => s,
        Err(e) => {
            super::report::unreadable(&args.file, &e);
            return USAGE;
        }
    };
    let name = args.file.display().to_string();
    let mut reporter = Reporter::new(args.format);
    let parsed = affect_compiler::syntax::parse(&src);
    if affect_compiler::diagnostic::has_errors(&parsed.diagnostics) {
        reporter.add(&name, &src, &parsed.diagnostics);
        reporter.finish(1);
        eprintln!("affect build: `{name}` has syntax errors; nothing written");
        return FAILED;
    }
    if args.emit == Emit::Ir {
        let analysis =
            affect_compiler::check_source_with(&src, &files::FileLoader::beside(&args.file));
        reporter.add(&name, &src, &analysis.diagnostics);
        let Some(program) = analysis.program else {
            reporter.finish(1);
            eprintln!("affect build: nothing written");
            return FAILED;
        };
        reporter.finish(1);
        let text = affect_compiler::ir::print::print_program(&program);
        return match files::write_output(args.output.as_deref(), &text) {
            Ok(()) => OK,
            Err(e) => {
                eprintln!("error: {e}");
                USAGE
            }
        };
    }
    let (text, diags) = match args.emit {
        Emit::Ir => unreachable!("handled above"),
        Emit::Groot | Emit::GrootV3 => {
            let dialect = if args.emit == Emit::Groot {
                Dialect::V4
            } else {
                Dialect::V3
            };
            let out = groot::export(&parsed.file, dialect);
            (out.xml, out.diagnostics)
        }
    };
    reporter.add(&name, &src, &diags);
    let failed = reporter.errors > 0;
    reporter.finish(1);
    if failed {
        eprintln!("affect build: nothing written");
        return FAILED;
    }
    match files::write_output(args.output.as_deref(), &text) {
        Ok(()) => OK,
        Err(e) => {
            eprintln!("error: {e}");
            USAGE
        }
    }
}
