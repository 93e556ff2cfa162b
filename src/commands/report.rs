//! Printing diagnostics for the commands, in the human or the JSON form.

use crate::Format;
use affect_compiler::diagnostic::{self, MAX_PER_FILE};
use affect_compiler::render;
use affect_compiler::source::SourceError;
use affect_compiler::span::{LineIndex, Span};
use affect_compiler::{Diagnostic, Severity};
use std::io::IsTerminal;
use std::path::Path;

/// Collects the diagnostics of a run and prints them as each command wants.
pub struct Reporter {
    format: Format,
    color: bool,
    json: Vec<serde_json::Value>,
    pub errors: usize,
    pub warnings: usize,
    /// Per file: diagnostics shown, and diagnostics left out beyond the cap.
    shown: Vec<(String, usize, usize)>,
}

impl Reporter {
    pub fn new(format: Format) -> Reporter {
        let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        Reporter {
            format,
            color,
            json: Vec::new(),
            errors: 0,
            warnings: 0,
            shown: Vec::new(),
        }
    }

    /// Reports diagnostics of `file` (every one is counted; the human form prints at most
    /// `diagnostic::MAX_PER_FILE` per file, errors first, the JSON form every one).
    pub fn add(&mut self, file: &str, src: &str, diags: &[Diagnostic]) {
        // A run's option (`--bb`, `--leaf-out`, `--world`) has no place in the file: it is
        // shown against the argument, never at the file's first line.
        let (unplaced, diags): (Vec<Diagnostic>, Vec<Diagnostic>) =
            diags.iter().cloned().partition(is_unplaced);
        for d in &unplaced {
            self.unplaced(file, d);
        }
        let diags = &diags[..];
        for d in diags {
            match d.severity {
                Severity::Error => self.errors += 1,
                Severity::Warning => self.warnings += 1,
                Severity::Note => {}
            }
        }
        let room = match self.shown.iter_mut().find(|(f, _, _)| f == file) {
            Some((_, shown, _)) => MAX_PER_FILE - *shown,
            None => {
                self.shown.push((file.to_string(), 0, 0));
                MAX_PER_FILE
            }
        };
        // JSON is read by programs (editors, CI): every diagnostic, none left out.
        let picked = match self.format {
            Format::Json => diags.iter().collect(),
            Format::Human => diagnostic::pick(diags, room),
        };
        if let Some((_, shown, left_out)) = self.shown.iter_mut().find(|(f, _, _)| f == file) {
            *shown += picked.len();
            *left_out += diags.len() - picked.len();
        }
        if picked.is_empty() {
            return;
        }
        match self.format {
            Format::Human => {
                let r = render::Renderer::new(file, src, self.color);
                for d in picked {
                    eprint!("{}", r.render(d));
                }
            }
            Format::Json => {
                let index = LineIndex::new(src);
                for d in picked {
                    self.json.push(render::json(d, file, src, &index));
                }
            }
        }
    }

    /// A file the command could not use (E0801..E0805): shown in its text when the text is
    /// at fault (bad bytes), else as one line.
    pub fn unreadable(&mut self, file: &str, e: &SourceError) {
        if let Some((text, _)) = &e.at {
            return self.add(file, text, &[e.diagnostic()]);
        }
        self.errors += 1;
        match self.format {
            Format::Human => eprintln!("[{}] Error: {}", e.code, e.message),
            Format::Json => self.json.push(serde_json::json!({
                "code": e.code,
                "severity": "error",
                "message": e.message,
                "file": file,
                "line": null,
                "column": null,
                "end_line": null,
                "end_column": null,
                "labels": [],
                "notes": [],
                "help": null,
            })),
        }
    }

    /// A diagnostic about the run rather than a place in the file: one line, and its help.
    fn unplaced(&mut self, file: &str, d: &Diagnostic) {
        match d.severity {
            Severity::Error => self.errors += 1,
            Severity::Warning => self.warnings += 1,
            Severity::Note => {}
        }
        match self.format {
            Format::Human => {
                eprintln!("[{}] {}: {}", d.code, title(d.severity), d.message);
                for n in &d.notes {
                    eprintln!("    Note: {n}");
                }
                if let Some(h) = &d.help {
                    eprintln!("    Help: {h}");
                }
            }
            Format::Json => self.json.push(serde_json::json!({
                "code": d.code,
                "severity": d.severity.as_str(),
                "message": d.message,
                "file": file,
                "line": null,
                "column": null,
                "end_line": null,
                "end_column": null,
                "labels": [],
                "notes": d.notes,
                "help": d.help,
            })),
        }
    }

    /// Diagnostics counted but not printed, over all files.
    fn left_out(&self) -> usize {
        self.shown.iter().map(|(_, _, n)| n).sum()
    }

    /// Prints the JSON document or the human summary line.
    pub fn finish(self, files: usize) {
        match self.format {
            Format::Json => {
                let doc = serde_json::json!({
                    "diagnostics": self.json,
                    "summary": {
                        "files": files,
                        "errors": self.errors,
                        "warnings": self.warnings,
                        "not_shown": self.left_out(),
                    },
                });
                println!("{doc}");
            }
            Format::Human => {
                for (file, _, n) in self.shown.iter().filter(|(_, _, n)| *n > 0) {
                    eprintln!(
                        "affect: and {n} more diagnostic{} in `{file}` (at most {MAX_PER_FILE} are shown per file)",
                        if *n == 1 { "" } else { "s" }
                    );
                }
                if self.errors + self.warnings > 0 {
                    eprintln!(
                        "affect: {} and {} in {} file{}",
                        plural(self.errors, "error"),
                        plural(self.warnings, "warning"),
                        files,
                        if files == 1 { "" } else { "s" }
                    );
                }
            }
        }
    }
}

/// Reports a file a command was given and could not use (see `Reporter::unreadable`).
pub fn unreadable(path: &Path, e: &SourceError) {
    Reporter::new(Format::Human).unreadable(&path.display().to_string(), e);
}

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// A run's diagnostic with no place in the program (an option, the run as a whole): codes
/// E06xx at no span.
fn is_unplaced(d: &Diagnostic) -> bool {
    d.code.starts_with("E06") && d.primary.span == Span::DUMMY && d.secondary.is_empty()
}

fn title(s: Severity) -> &'static str {
    match s {
        Severity::Error => "Error",
        Severity::Warning => "Warning",
        Severity::Note => "Advice",
    }
}
