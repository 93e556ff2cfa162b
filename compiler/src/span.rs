//! Byte spans into one source text, and line/column look-up for rendering.

use serde::Serialize;

/// A half-open byte range `start..end` into a source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub const DUMMY: Span = Span { start: 0, end: 0 };

    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// A span from token locations (byte offsets as the lexer keeps them).
    pub const fn raw(start: u32, end: u32) -> Span {
        Span { start, end }
    }

    pub fn at(offset: usize) -> Span {
        Span::new(offset, offset)
    }

    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    pub fn len(self) -> usize {
        (self.end - self.start) as usize
    }

    pub fn is_empty(self) -> bool {
        self.start == self.end
    }

    pub fn contains(self, offset: usize) -> bool {
        (self.start as usize) <= offset && offset < self.end as usize
    }
}

/// Line starts of a text, for byte offset → (line, column) conversion.
/// Lines and columns are 1-based; columns count characters, not bytes.
#[derive(Clone, Debug)]
pub struct LineIndex {
    starts: Vec<usize>,
    /// The length of an all-ASCII text (a column is then its byte count), else `None`:
    /// counting the characters before each of thousands of diagnostics on one long line
    /// was n².
    ascii_len: Option<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                starts.push(i + 1);
            }
        }
        LineIndex {
            starts,
            ascii_len: text.is_ascii().then_some(text.len()),
        }
    }

    /// 1-based line and character column of a byte offset.
    pub fn line_col(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = offset.min(text.len());
        let line = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.starts[line];
        if self.ascii_len == Some(text.len()) {
            return (line + 1, offset - start + 1);
        }
        let col = text
            .get(start..offset)
            .map(|s| s.chars().count())
            .unwrap_or(offset - start);
        (line + 1, col + 1)
    }

    /// Byte offset of the start of a 1-based line.
    pub fn line_start(&self, line: usize) -> Option<usize> {
        self.starts.get(line.checked_sub(1)?).copied()
    }

    pub fn line_count(&self) -> usize {
        self.starts.len()
    }
}
