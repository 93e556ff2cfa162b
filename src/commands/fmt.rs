//! `affect fmt`: rewrite files in the canonical layout, or `--check` that they are.

use super::report::Reporter;
use super::{FAILED, OK, USAGE};
use crate::{files, Format};
use std::path::PathBuf;

pub fn run(paths: &[PathBuf], check: bool, stdout: bool) -> u8 {
    let mut reporter = Reporter::new(Format::Human);
    let mut status = OK;
    let mut unformatted = Vec::new();
    for path in paths {
        let src = match files::read_source(path) {
            Ok(s) => s,
            Err(e) => {
                super::report::unreadable(path, &e);
                status = USAGE;
                continue;
            }
        };
        // A file written with CRLF line endings keeps them: format its LF form, then put
        // the CRLFs back (so `--check` accepts a formatted CRLF file).
        let crlf = src.contains("\r\n");
        let original = src.clone();
        let src = if crlf { src.replace("\r\n", "\n") } else { src };
        let formatted = match affect_compiler::fmt::format_source(&src) {
            Ok(f) if crlf => f.replace('\n', "\r\n"),
            Ok(f) => f,
            Err(diags) => {
                reporter.add(&path.display().to_string(), &src, &diags);
                eprintln!(
                    "affect fmt: `{}` has syntax errors; left unchanged",
                    path.display()
                );
                status = status.max(FAILED);
                continue;
            }
        };
        if stdout {
            print!("{formatted}");
        } else if formatted != original {
            if check {
                unformatted.push(path.display().to_string());
            } else if let Err(e) = files::write_atomic(path, formatted.as_bytes()) {
                eprintln!("error: {e}");
                status = USAGE;
            }
        }
    }
    reporter.finish(paths.len());
    if !unformatted.is_empty() {
        for f in &unformatted {
            eprintln!("not formatted: {f}");
        }
        eprintln!(
            "affect fmt --check: {} of {} file{} would be reformatted; run `affect fmt` on {}",
            unformatted.len(),
            paths.len(),
            if paths.len() == 1 { "" } else { "s" },
            if unformatted.len() == 1 { "it" } else { "them" }
        );
        status = status.max(FAILED);
    }
    status
}
