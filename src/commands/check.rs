//! `affect check`: every diagnostic of every file, exit 1 on any error; a summary line on
//! success.

use super::report::Reporter;
use super::{FAILED, OK, USAGE};
use crate::{files, Format};
use std::path::PathBuf;

pub fn run(paths: &[PathBuf], format: Format) -> u8 {
    let mut reporter = Reporter::new(format);
    let mut io_failed = false;
    for path in paths {
        let src = match files::read_source(path) {
            Ok(s) => s,
            Err(e) => {
                reporter.unreadable(&path.display().to_string(), &e);
                io_failed = true;
                continue;
            }
        };
        let analysis = affect_compiler::check_source_with(&src, &files::FileLoader::beside(path));
        reporter.add(&path.display().to_string(), &src, &analysis.diagnostics);
        for (file, text, d) in &analysis.imported_diagnostics {
            reporter.add(file, text, std::slice::from_ref(d));
        }
    }
    let (errors, warnings) = (reporter.errors, reporter.warnings);
    reporter.finish(paths.len());
    // Silence after success leaves a newcomer unsure anything was checked.
    if matches!(format, Format::Human) && !io_failed && errors + warnings == 0 {
        let n = paths.len();
        eprintln!(
            "affect: {n} file{} checked, no errors",
            if n == 1 { "" } else { "s" }
        );
    }
    if io_failed {
        USAGE
    } else if errors > 0 {
        FAILED
    } else {
        OK
    }
}
