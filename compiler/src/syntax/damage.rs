//! Which of the checker's findings in a file with syntax errors stand on their own.
//!
//! A syntax error damages the declaration it is in: the tree holds an error node, or less
//! than was written, and what the checker says of that declaration would only repeat the
//! syntax error. Every other declaration is checked as written, and its errors are the
//! file's as much as the syntax error is: reporting them in the same run is what lets a
//! person fix a file in one pass (before, one syntax error anywhere hid every error the
//! checker found, and the settings' shape errors did too, though they damage nothing).
//!
//! What the checker says is dropped when it
//! - lies in a damaged declaration (or in the text between declarations a recovery skipped);
//! - is at the place of a syntax error (it says the same thing again);
//! - is about a name (unknown, undeclared, unused, an argument) that a damaged declaration
//!   mentions: the declaration of that name may be what the error lost.

use super::ast::File;
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use std::collections::HashSet;

/// The checker's diagnostics `checked` that are independent of the syntax errors: `damage`
/// is where the syntax tree is not what the text says (`Parsed::damage`), `syntax` the
/// syntax diagnostics. Linear in the file and the diagnostics (sorted regions, binary
/// searches, one set of the damaged text's words).
pub fn independent(
    src: &str,
    file: &File,
    damage: &[Span],
    syntax: &[Diagnostic],
    checked: Vec<Diagnostic>,
) -> Vec<Diagnostic> {
    if damage.is_empty() && syntax.is_empty() {
        return checked;
    }
    let regions = Regions::new(damaged_regions(src, file, damage));
    let said = Regions::new(
        syntax
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.primary.span)
            .collect(),
    );
    let lost = regions.words(src);
    checked
        .into_iter()
        .filter(|d| {
            let at = d.primary.span;
            let repeats = regions.overlaps(at) || said.overlaps(at);
            let lost_name = about_a_name(d) && names_lost(d, &lost);
            !repeats && !lost_name
        })
        .collect()
}

/// The declarations a damage span falls in, or, for one between declarations, the text
/// between them (recovery skipped it, and whatever was declared there is lost).
fn damaged_regions(src: &str, file: &File, damage: &[Span]) -> Vec<Span> {
    let items: Vec<Span> = file.items.iter().map(|i| i.span).collect();
    damage
        .iter()
        .map(|d| {
            let at = d.start;
            let k = items.partition_point(|s| s.start <= at);
            match k.checked_sub(1).map(|i| items[i]) {
                Some(s) if at < s.end.max(s.start + 1) => s,
                prev => {
                    let from = prev.map_or(0, |s| s.end);
                    let to = items.get(k).map_or(src.len() as u32, |s| s.start);
                    Span {
                        start: from,
                        end: to.max(d.end),
                    }
                }
            }
        })
        .collect()
}

/// Spans sorted and merged where they overlap or touch.
struct Regions(Vec<Span>);

impl Regions {
    fn new(mut spans: Vec<Span>) -> Regions {
        spans.sort_unstable_by_key(|s| (s.start, s.end));
        let mut merged: Vec<Span> = Vec::with_capacity(spans.len());
        for s in spans {
            match merged.last_mut() {
                Some(last) if s.start <= last.end => last.end = last.end.max(s.end),
                _ => merged.push(s),
            }
        }
        Regions(merged)
    }

    /// Whether `span` (an empty span counts as the byte at its start) meets a region.
    fn overlaps(&self, span: Span) -> bool {
        let end = span.end.max(span.start + 1);
        // The regions ending after `span` starts; the first of them must start before it
        // ends.
        let k = self
            .0
            .partition_point(|r| r.end.max(r.start + 1) <= span.start);
        self.0.get(k).is_some_and(|r| r.start < end)
    }

    /// The words (names as the lexer reads them) written in the regions.
    fn words<'s>(&self, src: &'s str) -> HashSet<&'s str> {
        let mut out = HashSet::new();
        for r in &self.0 {
            let text = src
                .get(r.start as usize..(r.end as usize).min(src.len()))
                .unwrap_or("");
            out.extend(
                text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .filter(|w| !w.is_empty()),
            );
        }
        out
    }
}

/// Diagnostics about names: unknown, undeclared or unused names (E02xx, W02xx), arguments no
/// port takes or ports no argument gives (E0305, E0306, W0204).
fn about_a_name(d: &Diagnostic) -> bool {
    d.code.starts_with("E02")
        || d.code.starts_with("W02")
        || matches!(d.code, "E0305" | "E0306" | "W0204")
}

/// Whether the message names (in backquotes) a word of the damaged text.
fn names_lost(d: &Diagnostic, lost: &HashSet<&str>) -> bool {
    d.message
        .split('`')
        .skip(1)
        .step_by(2)
        .any(|name| lost.contains(name))
}
