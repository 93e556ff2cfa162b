//! Formatting through `affect fmt`'s formatter. A document with syntax errors gets no edit.
//! The edit replaces only the part that changes (common prefix and suffix kept), so the
//! editor keeps its cursor and folds where the text stays the same.
//!
//! A document without a final newline gets none from formatting: Vim and Neovim hold the
//! final newline outside the buffer's text (`'eol'`) and add it when they write the file
//! (`'fixeol'`), so a newline inserted by the edit became an empty last line and the saved
//! file ended in a blank line. Keeping the document's own state, the editor's write gives
//! exactly `affect fmt`'s text (VS Code does the same with `files.insertFinalNewline`).

use crate::documents::{Document, Lines};
use crate::request::{self, Reply};
use lsp_types::{DocumentFormattingParams, TextEdit};
use serde_json::Value;

/// Formats the newest text of a document: `doc` is its latest analysis, `newest` the text
/// the editor sent last.
pub fn request(doc: Option<&Document>, newest: Option<&str>, params: Value) -> Reply {
    let _: DocumentFormattingParams = request::parse(params)?;
    Ok(request::to_json(format_newest(doc, newest)))
}

/// The edits that format the newest text. The edits must fit the text the editor has, so
/// when the analysis is behind it (not done yet after opening, or a keystroke behind) the
/// newest text is parsed here instead: an editor that formats as it saves right after a
/// change got no edit, or edits made for the previous text.
pub fn format_newest(doc: Option<&Document>, newest: Option<&str>) -> Option<Vec<TextEdit>> {
    match (doc, newest) {
        (Some(doc), Some(text)) if doc.text == text => format(doc),
        (Some(doc), None) => format(doc),
        (_, Some(text)) => {
            let formatted = affect_compiler::fmt::format_source(text).ok()?;
            Some(edits(text, &Lines::new(text), &formatted))
        }
        (None, None) => None,
    }
}

/// The edits that format a document (from its one parse), or `None` when it has syntax
/// errors.
pub fn format(doc: &Document) -> Option<Vec<TextEdit>> {
    if !doc.parses {
        return None;
    }
    let formatted = affect_compiler::fmt::format_file(&doc.file, &doc.comments, Some(&doc.text));
    Some(edits(&doc.text, &doc.lines, &formatted))
}

/// The edits that turn `old` into `formatted` with `old`'s line endings (CRLF documents keep
/// them, as with `affect fmt`) and final-newline state.
fn edits(old: &str, lines: &Lines, formatted: &str) -> Vec<TextEdit> {
    let formatted = if old.contains("\r\n") {
        formatted.replace('\n', "\r\n")
    } else {
        formatted.to_string()
    };
    let formatted = keep_final_newline_state(old, &formatted);
    edit(old, lines, formatted).into_iter().collect()
}

/// `formatted` without its final line ending when `old` has none.
fn keep_final_newline_state<'a>(old: &str, formatted: &'a str) -> &'a str {
    if old.ends_with('\n') {
        return formatted;
    }
    formatted
        .strip_suffix("\r\n")
        .or_else(|| formatted.strip_suffix('\n'))
        .unwrap_or(formatted)
}

fn edit(old: &str, lines: &Lines, new: &str) -> Option<TextEdit> {
    if old == new {
        return None;
    }
    // Common prefix and suffix, on character boundaries of both texts.
    let mut prefix = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(prefix) || !new.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let max_suffix = (old.len() - prefix).min(new.len() - prefix);
    let mut suffix = old
        .bytes()
        .rev()
        .zip(new.bytes().rev())
        .take(max_suffix)
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(old.len() - suffix) || !new.is_char_boundary(new.len() - suffix) {
        suffix -= 1;
    }
    let span = affect_compiler::Span::new(prefix, old.len() - suffix);
    Some(TextEdit {
        range: lines.range(old, span),
        new_text: new[prefix..new.len() - suffix].to_string(),
    })
}
