//! The source with its lines measured once, so that every question the delimiter pass and
//! the parse errors ask about the line of a token (which line, where it starts, how it is
//! indented, whether the token starts it) costs a binary search, never a scan through the
//! line: a file can be one line of any length, with an error every few bytes.

pub struct Text<'a> {
    src: &'a str,
    /// Byte offset of each line's start.
    starts: Vec<usize>,
    /// Per line: the byte offset of its first character other than a space or a tab.
    first: Vec<usize>,
    /// Per line: its indentation in characters (spaces and tabs).
    indent: Vec<usize>,
}

impl<'a> Text<'a> {
    pub fn new(src: &'a str) -> Text<'a> {
        let starts: Vec<usize> = std::iter::once(0)
            .chain(src.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        let bytes = src.as_bytes();
        let mut first = Vec::with_capacity(starts.len());
        let mut indent = Vec::with_capacity(starts.len());
        for &s in &starts {
            let n = bytes[s..]
                .iter()
                .take_while(|b| **b == b' ' || **b == b'\t')
                .count();
            first.push(s + n);
            indent.push(n);
        }
        Text {
            src,
            starts,
            first,
            indent,
        }
    }

    pub fn src(&self) -> &'a str {
        self.src
    }

    /// 0-based line holding byte `offset`.
    pub fn line(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|&s| s <= offset.min(self.src.len()))
            - 1
    }

    /// Start of the line holding byte `offset`.
    pub fn line_start(&self, offset: usize) -> usize {
        self.starts[self.line(offset)]
    }

    /// The end of the line holding byte `offset` (its `\n`, or the end of the file).
    pub fn line_end(&self, offset: usize) -> usize {
        self.starts
            .get(self.line(offset) + 1)
            .map_or(self.src.len(), |s| s - 1)
    }

    /// Indentation (in characters) of the line holding byte `offset`.
    pub fn indent_of(&self, offset: usize) -> usize {
        self.indent[self.line(offset)]
    }

    /// True when only spaces and tabs stand between the start of its line and `offset`.
    pub fn first_on_line(&self, offset: usize) -> bool {
        offset.min(self.src.len()) <= self.first[self.line(offset)]
    }
}

#[cfg(test)]
mod tests {
    use super::Text;

    #[test]
    fn lines_starts_and_indents() {
        let t = Text::new("a\n  b c\n\tx\n");
        assert_eq!(t.line(0), 0);
        assert_eq!(t.line(2), 1);
        assert_eq!(t.line(100), 3);
        assert_eq!(t.line_start(5), 2);
        assert_eq!(t.line_end(5), 7);
        assert_eq!(t.line_end(10), 10);
        assert_eq!(t.indent_of(6), 2);
        assert!(t.first_on_line(4));
        assert!(!t.first_on_line(6));
        assert!(t.first_on_line(9));
        assert_eq!(t.indent_of(9), 1);
    }
}
