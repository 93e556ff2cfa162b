//! `affect check`: every diagnostic of every file (`.affect`, or Groot / BehaviorTree.CPP XML
//! checked as imported), exit 1 on any error; a summary line on success.

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
        if super::xml_in::is_xml(path) {
            // Checked as imported, every diagnostic in the XML.
            let program = super::xml_in::XmlProgram::import(path, src);
            match program.check() {
                Some(analysis) => {
                    reporter.add(&program.name, &program.text, &analysis.diagnostics);
                    for (file, text, d) in &analysis.imported_diagnostics {
                        reporter.add(file, text, std::slice::from_ref(d));
                    }
                }
                None => {
                    for (file, text, diags) in program.import_diagnostics() {
                        reporter.add(&file, &text, &diags);
                    }
                }
            }
            continue;
        }
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
