//! `affect fmt`: rewrite files in the canonical layout, or `--check` that they are.

use super::report::Reporter;
use super::{FAILED, OK, USAGE};
use crate::{files, Format};
use std::path::PathBuf;

pub fn run(paths: &[PathBuf], check: bool, stdout: bool) -> u8 {
    let mut reporter = Reporter::new(Format::Human);
    let mut status = OK;
    let mut unformatted = Vec::new();
    // What happened to each file, for the closing line.
    let (mut formatted_n, mut unchanged, mut broken) = (0usize, 0usize, 0usize);
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
                broken += 1;
                continue;
            }
        };
        if stdout {
            print!("{formatted}");
        } else if formatted == original {
            unchanged += 1;
        } else if check {
            unformatted.push(path.display().to_string());
        } else if let Err(e) = files::write_atomic(path, formatted.as_bytes()) {
            eprintln!("error: {e}");
            status = USAGE;
        } else {
            formatted_n += 1;
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
    } else if !stdout && formatted_n + unchanged > 0 {
        eprintln!("{}", outcome(check, formatted_n, unchanged, broken));
    }
    status
}

/// The closing line of `affect fmt`: `1 file formatted, 2 unchanged`; with `--check`
/// (every file formatted, else the lines above said which are not) `3 files already
/// formatted`. Files with syntax errors are counted apart; unreadable ones were reported
/// above. Nothing is said when no file could be formatted at all (the errors said why).
fn outcome(check: bool, formatted: usize, unchanged: usize, broken: usize) -> String {
    let files = |n: usize| format!("{n} file{}", if n == 1 { "" } else { "s" });
    let mut parts = if check {
        vec![format!("{} already formatted", files(unchanged))]
    } else if formatted > 0 {
        vec![
            format!("{} formatted", files(formatted)),
            format!("{unchanged} unchanged"),
        ]
    } else {
        vec![format!("{} unchanged", files(unchanged))]
    };
    if broken > 0 {
        parts.push(format!("{broken} not formatted (syntax errors)"));
    }
    parts.join(", ")
}
