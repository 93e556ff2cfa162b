//! The compiler's diagnostics as LSP diagnostics: the same codes and messages as
//! `affect check`, secondary labels as related information, the primary label, notes and
//! help appended to the message.

use crate::documents::{path_to_uri, Document, Lines};
use crate::message::{self, Json};
use affect_compiler::render::elide_long_words;
use affect_compiler::sema::index::{FileId, Target, MAIN_FILE};
use affect_compiler::{Diagnostic, Severity, Span};
use lsp_types::{
    DiagnosticRelatedInformation, DiagnosticSeverity, DiagnosticTag, Location, NumberOrString,
    PublishDiagnosticsParams, Range, Uri,
};
use std::collections::HashMap;

/// The notification that publishes a document's diagnostics.
pub fn publish(doc: &Document) -> Json {
    let params = PublishDiagnosticsParams {
        uri: doc.uri.clone(),
        diagnostics: for_document(doc),
        version: Some(doc.version),
    };
    notify(params)
}

/// The notification that clears a closed document's diagnostics.
pub fn clear(uri: &Uri) -> Json {
    notify(PublishDiagnosticsParams {
        uri: uri.clone(),
        diagnostics: Vec::new(),
        version: None,
    })
}

fn notify(params: PublishDiagnosticsParams) -> Json {
    message::notification("textDocument/publishDiagnostics", &params)
}

/// Every diagnostic of a document, its imported files' errors included (shown on the `use`
/// that brings them in).
///
/// All of them, unlike `affect check`'s human output (100 per file): an editor lists what is
/// wrong everywhere in the file, and a fix in one place should not reveal errors that were
/// there all along. Each costs a binary search for its position and, for an imported
/// file's, a look-up of that file's lines and `use`, made once per file: a file with
/// thousands of errors is converted in time linear in their number.
pub fn for_document(doc: &Document) -> Vec<lsp_types::Diagnostic> {
    let mut out: Vec<lsp_types::Diagnostic> = doc
        .diagnostics
        .iter()
        .map(|d| {
            convert(
                d,
                &doc.uri,
                &doc.text,
                &doc.lines,
                doc.range(d.primary.span),
            )
        })
        .collect();
    // Per imported file: its lines, its location, and the `use` its errors are shown on.
    let mut files: HashMap<&str, (Lines, Option<Uri>, Option<Span>)> = HashMap::new();
    for (file, text, d) in &doc.imported_diagnostics {
        let (lines, file_uri, use_at) = files.entry(file.as_str()).or_insert_with(|| {
            let file_uri = doc
                .path
                .as_ref()
                .and_then(|p| p.parent())
                .and_then(|dir| path_to_uri(&dir.join(file)));
            (Lines::new(text), file_uri, use_span(doc, file))
        });
        let Some(use_span) = *use_at else {
            continue;
        };
        // The imported file's own location, when it is a file on disk.
        let location = file_uri
            .clone()
            .map(|uri| Location::new(uri, lines.range(text, d.primary.span)));
        let mut diag = convert(d, &doc.uri, text, lines, doc.range(use_span));
        diag.message = format!("in `{file}`: {}", diag.message);
        // Secondary labels point into the imported file, not this one.
        diag.related_information = location.map(|l| {
            vec![DiagnosticRelatedInformation {
                location: l,
                message: if d.primary.message.is_empty() {
                    d.message.clone()
                } else {
                    d.primary.message.clone()
                },
            }]
        });
        out.push(diag);
    }
    out
}

/// The span of the `use` that imports `file` (a path as written, or a module name): the
/// document's own `use` of it, else (a file imported by an imported file) its first `use`.
fn use_span(doc: &Document, file: &str) -> Option<Span> {
    let uses: Vec<(Span, FileId)> = doc
        .index
        .refs_in(MAIN_FILE)
        .iter()
        .filter_map(|r| match r.target {
            Target::File(f) => Some((r.span, f)),
            _ => None,
        })
        .collect();
    let named = |f: FileId| {
        doc.index
            .files
            .get(f.index())
            .is_some_and(|x| x.name == file)
    };
    uses.iter()
        .find(|(_, f)| named(*f))
        .or(uses.first())
        .map(|(s, _)| *s)
}

fn convert(
    d: &Diagnostic,
    uri: &Uri,
    text: &str,
    lines: &Lines,
    range: Range,
) -> lsp_types::Diagnostic {
    // Long names and literals are cut in the middle, as `affect check` prints them.
    let mut message = elide_long_words(&d.message).into_owned();
    if !d.primary.message.is_empty() && d.primary.message != d.message {
        message.push('\n');
        message.push_str(&elide_long_words(&d.primary.message));
    }
    for n in &d.notes {
        message.push_str("\nnote: ");
        message.push_str(&elide_long_words(n));
    }
    if let Some(h) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(&elide_long_words(h));
    }
    let related: Vec<DiagnosticRelatedInformation> = d
        .secondary
        .iter()
        .map(|l| DiagnosticRelatedInformation {
            location: Location::new(uri.clone(), lines.range(text, l.span)),
            message: if l.message.is_empty() {
                "related".to_string()
            } else {
                elide_long_words(&l.message).into_owned()
            },
        })
        .collect();
    lsp_types::Diagnostic {
        range,
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
            Severity::Note => DiagnosticSeverity::INFORMATION,
        }),
        code: Some(NumberOrString::String(d.code.to_string())),
        code_description: None,
        source: Some("affect".to_string()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags: matches!(d.code, "W0201" | "W0202").then(|| vec![DiagnosticTag::UNNECESSARY]),
        data: None,
    }
}
