//! The one diagnostic type of the toolchain. Every phase (lexer, parser, checker, XML importer,
//! runtime set-up) reports through it; the CLI, the snapshot tests and the language server
//! render it. Only `render` knows how it is drawn.

use crate::span::Span;
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// A labelled span. The primary label says what is wrong here; secondary labels point at
/// related places (the block that was opened, the earlier declaration, ...).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// A stable code such as `E0101`; `affect explain CODE` prints its page.
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub primary: Label,
    pub secondary: Vec<Label>,
    pub notes: Vec<String>,
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn error(code: &'static str, message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic::new(Severity::Error, code, message, span)
    }

    pub fn warning(code: &'static str, message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic::new(Severity::Warning, code, message, span)
    }

    fn new(severity: Severity, code: &'static str, message: impl Into<String>, span: Span) -> Self {
        debug_assert!(
            crate::codes::lookup(code).is_some(),
            "diagnostic code {code} is not in the code list"
        );
        Diagnostic {
            code,
            severity,
            message: message.into(),
            primary: Label {
                span,
                message: String::new(),
            },
            secondary: Vec::new(),
            notes: Vec::new(),
            help: None,
        }
    }

    /// The text under the primary span.
    pub fn with_label(mut self, message: impl Into<String>) -> Self {
        self.primary.message = message.into();
        self
    }

    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Self {
        self.secondary.push(Label {
            span,
            message: message.into(),
        });
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Help naming the closest candidate ("did you mean `x`?"), or `otherwise` when none is
    /// close.
    pub fn with_suggestion<'a>(
        self,
        word: &str,
        candidates: impl IntoIterator<Item = &'a str>,
        otherwise: impl FnOnce() -> String,
    ) -> Self {
        match crate::suggest::closest(word, candidates) {
            Some(best) => self.with_help(format!("did you mean `{best}`?")),
            None => self.with_help(otherwise()),
        }
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// True when any diagnostic is an error (warnings never fail a command).
pub fn has_errors(diags: &[Diagnostic]) -> bool {
    diags.iter().any(Diagnostic::is_error)
}

/// The most diagnostics shown for one file. One broken line can produce thousands (a line of
/// stray `}`); past this many, more say nothing new and only cost time and output.
pub const MAX_PER_FILE: usize = 100;

/// The diagnostics to show when there is room for `room` of them: errors before warnings and
/// notes, in source order.
pub fn pick(diags: &[Diagnostic], room: usize) -> Vec<&Diagnostic> {
    if diags.len() <= room {
        return diags.iter().collect();
    }
    let mut keep: Vec<usize> = (0..diags.len())
        .filter(|&i| diags[i].is_error())
        .take(room)
        .collect();
    let rest = room - keep.len();
    keep.extend(
        (0..diags.len())
            .filter(|&i| !diags[i].is_error())
            .take(rest),
    );
    keep.sort_unstable();
    keep.into_iter().map(|i| &diags[i]).collect()
}
