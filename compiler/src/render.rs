//! Drawing diagnostics: the human form (ariadne, the only place that knows it) and the JSON
//! form of `--format json`. Both take the source text; neither does IO.

use crate::diagnostic::{Diagnostic, Label as DiagLabel, Severity};
use crate::span::{LineIndex, Span};
use ariadne::{CharSet, Config, IndexType, Label, Report, ReportKind, Source};
use serde_json::{json, Value};

/// Source lines longer than this (in bytes) are shown only around what the labels point at.
pub const MAX_LINE_BYTES: usize = 160;

/// Context kept on each side of a labelled place in a long line.
const CONTEXT_BYTES: usize = 48;

/// Secondary labels further than this many lines from the primary one become notes, so an
/// excerpt never reaches across a whole file.
const MAX_LABEL_DISTANCE: usize = 100;

/// Words (runs without spaces) in messages longer than this are shown cut in the middle: a
/// message quotes names and literals, and a 1 MB identifier must not make a 1 MB message.
pub const MAX_WORD_BYTES: usize = 80;

/// `text` with every word longer than [`MAX_WORD_BYTES`] cut to its start and end, `...`
/// marking the cut.
pub fn elide_long_words(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.split(' ').any(|w| w.len() > MAX_WORD_BYTES) {
        return text.into();
    }
    let floor = |w: &str, mut i: usize| {
        while !w.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let words: Vec<String> = text
        .split(' ')
        .map(|w| {
            if w.len() <= MAX_WORD_BYTES {
                return w.to_string();
            }
            let head = floor(w, MAX_WORD_BYTES / 2);
            let tail = floor(w, w.len() - MAX_WORD_BYTES / 4);
            format!("{}...{}", &w[..head], &w[tail..])
        })
        .collect();
    words.join(" ").into()
}

/// Renders one diagnostic with the source lines it points at.
pub fn human(diag: &Diagnostic, file: &str, src: &str, color: bool) -> String {
    Renderer::new(file, src, color).render(diag)
}

/// Renders the diagnostics of one file (its line index is built once). Long lines are elided
/// around the labels and only the lines up to the last label are handed to the drawing, so a
/// diagnostic costs what it shows, not what the file holds.
pub struct Renderer<'a> {
    file: &'a str,
    src: &'a str,
    index: LineIndex,
    color: bool,
}

impl<'a> Renderer<'a> {
    pub fn new(file: &'a str, src: &'a str, color: bool) -> Renderer<'a> {
        Renderer {
            file,
            src,
            index: LineIndex::new(src),
            color,
        }
    }

    fn clamp(&self, s: Span) -> Span {
        let start = (s.start as usize).min(self.src.len());
        let end = (s.end as usize).clamp(start, self.src.len());
        Span::new(start, end)
    }

    /// 0-based line of a byte offset. The end of a text that ends with a line break belongs
    /// to its last line, as the drawing shows it.
    fn line_of(&self, offset: usize) -> usize {
        let offset = if offset > 0 && offset == self.src.len() && self.src.ends_with('\n') {
            offset - 1
        } else {
            offset
        };
        self.index.line_col(self.src, offset).0 - 1
    }

    fn line_range(&self, line: usize) -> (usize, usize) {
        let start = self.index.line_start(line + 1).unwrap_or(self.src.len());
        let end = self
            .index
            .line_start(line + 2)
            .map_or(self.src.len(), |next| next - 1);
        (start, end.max(start))
    }

    pub fn render(&self, diag: &Diagnostic) -> String {
        let kind = match diag.severity {
            Severity::Error => ReportKind::Error,
            Severity::Warning => ReportKind::Warning,
            Severity::Note => ReportKind::Advice,
        };
        let primary = self.clamp(diag.primary.span);
        let primary_line = self.line_of(primary.start as usize);
        let (near, far): (Vec<&DiagLabel>, Vec<&DiagLabel>) =
            diag.secondary.iter().partition(|l| {
                self.line_of(self.clamp(l.span).start as usize)
                    .abs_diff(primary_line)
                    <= MAX_LABEL_DISTANCE
            });
        let spans: Vec<Span> = std::iter::once(primary)
            .chain(near.iter().map(|l| self.clamp(l.span)))
            .collect();
        let excerpt = Excerpt::new(self, &spans);
        let map = |s: Span| excerpt.map(s.start as usize)..excerpt.map(s.end as usize);

        let config = Config::default()
            .with_color(self.color)
            .with_index_type(IndexType::Byte)
            .with_char_set(if self.color {
                CharSet::Unicode
            } else {
                CharSet::Ascii
            });
        let file = self.file;
        let mut report = Report::build(kind, (file, map(primary)))
            .with_config(config)
            .with_code(diag.code)
            .with_message(elide_long_words(&diag.message));
        let primary_msg = if diag.primary.message.is_empty() {
            &diag.message
        } else {
            &diag.primary.message
        };
        // Labels are drawn in source order, so one excerpt shows them all (ariadne starts a
        // new excerpt, headed by the primary location, whenever a label goes back to an
        // earlier line).
        let order = |s: Span| i32::try_from(s.start).unwrap_or(i32::MAX);
        report = report.with_label(
            Label::new((file, map(primary)))
                .with_message(elide_long_words(primary_msg))
                .with_order(order(primary))
                .with_priority(10),
        );
        for l in &near {
            let span = self.clamp(l.span);
            report = report.with_label(
                Label::new((file, map(span)))
                    .with_message(elide_long_words(&l.message))
                    .with_order(order(span)),
            );
        }
        for l in &far {
            let (line, col) = self
                .index
                .line_col(self.src, self.clamp(l.span).start as usize);
            report = report.with_note(format!(
                "{} (line {line}, column {col})",
                elide_long_words(&l.message)
            ));
        }
        for n in &diag.notes {
            report = report.with_note(elide_long_words(n));
        }
        if let Some(h) = &diag.help {
            report = report.with_help(elide_long_words(h));
        }
        let mut out = Vec::new();
        report
            .finish()
            .write((file, Source::from(excerpt.text.as_str())), &mut out)
            .expect("writing to a Vec cannot fail");
        let text = String::from_utf8_lossy(&out).into_owned();
        // The header names the place in the excerpt; where the line was cut before the
        // primary label, say where it is in the file.
        let (line, col) = self.index.line_col(self.src, primary.start as usize);
        let shown = excerpt.position(map(primary).start);
        if shown == (line, col) {
            return text;
        }
        text.replacen(
            &format!("{file}:{}:{} ]", shown.0, shown.1),
            &format!("{file}:{line}:{col} ]"),
            1,
        )
    }
}

/// The text handed to the drawing: the file's lines up to the last labelled one, lines without
/// labels left empty, long labelled lines cut down to the labelled places (`...` marks a cut).
struct Excerpt {
    text: String,
    /// (byte offset in the file, byte offset in `text`, length) of every piece kept.
    pieces: Vec<(usize, usize, usize)>,
}

impl Excerpt {
    fn new(r: &Renderer, spans: &[Span]) -> Excerpt {
        let mut points: Vec<usize> = spans
            .iter()
            .flat_map(|s| [s.start as usize, s.end as usize])
            .collect();
        points.sort_unstable();
        let last_line = points.last().map_or(0, |&p| r.line_of(p));
        let mut lines: Vec<usize> = spans
            .iter()
            .flat_map(|s| r.line_of(s.start as usize)..=r.line_of(s.end as usize))
            .collect();
        lines.sort_unstable();
        lines.dedup();
        let mut ex = Excerpt {
            text: String::new(),
            pieces: Vec::new(),
        };
        let mut wanted = lines.iter().peekable();
        for line in 0..=last_line {
            let (start, end) = r.line_range(line);
            if wanted.next_if_eq(&&line).is_some() {
                if end - start <= MAX_LINE_BYTES {
                    ex.keep(r.src, start, end);
                } else {
                    let on_line: Vec<usize> = points
                        .iter()
                        .copied()
                        .filter(|&p| p >= start && p <= end)
                        .collect();
                    ex.keep_around(r.src, start, end, &on_line);
                }
            }
            ex.text.push('\n');
        }
        ex
    }

    fn keep(&mut self, src: &str, from: usize, to: usize) {
        self.pieces.push((from, self.text.len(), to - from));
        self.text.push_str(&src[from..to]);
    }

    /// Keeps windows around `points` of the line `start..end`, joined by `...`.
    fn keep_around(&mut self, src: &str, start: usize, end: usize, points: &[usize]) {
        let floor = |mut i: usize| {
            while !src.is_char_boundary(i) {
                i -= 1;
            }
            i
        };
        let ceil = |mut i: usize| {
            while !src.is_char_boundary(i) {
                i += 1;
            }
            i
        };
        let mut windows: Vec<(usize, usize)> = Vec::new();
        for &p in points {
            let w = (
                floor(p.saturating_sub(CONTEXT_BYTES).max(start)),
                ceil((p + CONTEXT_BYTES).min(end)),
            );
            match windows.last_mut() {
                Some(last) if w.0 <= last.1 => last.1 = last.1.max(w.1),
                _ => windows.push(w),
            }
        }
        if windows.is_empty() {
            windows.push((start, ceil((start + MAX_LINE_BYTES).min(end))));
        }
        let mut at = start;
        for (from, to) in windows {
            if from > at {
                self.text.push_str("...");
            }
            self.keep(src, from, to);
            at = to;
        }
        if at < end {
            self.text.push_str("...");
        }
    }

    /// Where a byte offset of the file is in the excerpt: inside a kept piece, or at the start
    /// of the next one (a place in a cut-out part shows at the cut).
    fn map(&self, offset: usize) -> usize {
        let i = self.pieces.partition_point(|&(from, _, _)| from <= offset);
        match i.checked_sub(1).map(|k| self.pieces[k]) {
            Some((from, to, len)) if offset <= from + len => to + (offset - from),
            _ => self.pieces.get(i).map_or(self.text.len(), |&(_, to, _)| to),
        }
    }

    /// 1-based line and character column of an excerpt offset, as the drawing shows it.
    fn position(&self, offset: usize) -> (usize, usize) {
        let before = &self.text[..offset.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        (line, before[line_start..].chars().count() + 1)
    }
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
        "message": elide_long_words(&diag.message),
        "file": file,
        "line": pos["line"],
        "column": pos["column"],
        "end_line": pos["end_line"],
        "end_column": pos["end_column"],
        "labels": labels,
        "notes": diag.notes.iter().map(|n| elide_long_words(n)).collect::<Vec<_>>(),
        "help": diag.help.as_deref().map(elide_long_words),
    })
}

fn label_json(index: &LineIndex, src: &str, span: Span, message: &str, primary: bool) -> Value {
    let mut v = position(index, src, span);
    v["message"] = json!(elide_long_words(message));
    v["primary"] = json!(primary);
    v
}
