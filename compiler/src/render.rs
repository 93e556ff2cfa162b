//! Drawing diagnostics: the human form (ariadne, the only place that knows it) and the JSON
//! form of `--format json`. Both take the source text; neither does IO.

use crate::diagnostic::{Diagnostic, Severity};
use crate::span::{LineIndex, Span};
use ariadne::{CharSet, Config, IndexType, Label, Report, ReportKind, Source};
use serde_json::{json, Value};

/// Renders one diagnostic with the source lines it points at.
pub fn human(diag: &Diagnostic, file: &str, src: &str, color: bool) -> String {
    let kind = match diag.severity {
        Severity::Error => ReportKind::Error,
        Severity::Warning => ReportKind::Warning,
        Severity::Note => ReportKind::Advice,
    };
    let clamp = |s: Span| {
        let start = (s.start as usize).min(src.len());
        let end = (s.end as usize).clamp(start, src.len());
        start..end
    };
    let config = Config::default()
        .with_color(color)
        .with_index_type(IndexType::Byte)
        .with_char_set(if color {
            CharSet::Unicode
        } else {
            CharSet::Ascii
        });
    let mut report = Report::build(kind, (file, clamp(diag.primary.span)))
        .with_config(config)
        .with_code(diag.code)
        .with_message(&diag.message);
    let primary_msg = if diag.primary.message.is_empty() {
        diag.message.clone()
    } else {
        diag.primary.message.clone()
    };
    // Labels are drawn in source order, so one excerpt shows them all (ariadne starts a new
    // excerpt, headed by the primary location, whenever a label goes back to an earlier line).
    let order = |s: Span| i32::try_from(s.start).unwrap_or(i32::MAX);
    report = report.with_label(
        Label::new((file, clamp(diag.primary.span)))
            .with_message(primary_msg)
            .with_order(order(diag.primary.span))
            .with_priority(10),
    );
    for l in &diag.secondary {
        report = report.with_label(
            Label::new((file, clamp(l.span)))
                .with_message(&l.message)
                .with_order(order(l.span)),
        );
    }
    for n in &diag.notes {
        report = report.with_note(n);
    }
    if let Some(h) = &diag.help {
        report = report.with_help(h);
    }
    let mut out = Vec::new();
    report
        .finish()
        .write((file, Source::from(src)), &mut out)
        .expect("writing to a Vec cannot fail");
    String::from_utf8_lossy(&out).into_owned()
}

fn position(index: &LineIndex, src: &str, span: Span) -> Value {
    let (line, column) = index.line_col(src, span.start as usize);
    let (end_line, end_column) = index.line_col(src, span.end as usize);
    json!({
        "line": line,
        "column": column,
        "end_line": end_line,
        "end_column": end_column,
    })
}

/// The machine-readable form: one object per diagnostic. Lines and columns are 1-based;
/// columns count characters.
pub fn json(diag: &Diagnostic, file: &str, src: &str, index: &LineIndex) -> Value {
    let pos = position(index, src, diag.primary.span);
    let mut labels = vec![label_json(
        index,
        src,
        diag.primary.span,
        &diag.primary.message,
        true,
    )];
    labels.extend(
        diag.secondary
            .iter()
            .map(|l| label_json(index, src, l.span, &l.message, false)),
    );
    json!({
        "code": diag.code,
        "severity": diag.severity.as_str(),
        "message": diag.message,
        "file": file,
        "line": pos["line"],
        "column": pos["column"],
        "end_line": pos["end_line"],
        "end_column": pos["end_column"],
        "labels": labels,
        "notes": diag.notes,
        "help": diag.help,
    })
}

fn label_json(index: &LineIndex, src: &str, span: Span, message: &str, primary: bool) -> Value {
    let mut v = position(index, src, span);
    v["message"] = json!(message);
    v["primary"] = json!(primary);
    v
}
