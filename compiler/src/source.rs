//! What a source file must be before it is parsed: UTF-8 text without NUL bytes, of bounded
//! size, read from a regular file. The reading itself is IO and lives in the `affect-files`
//! crate (used by the CLI, the language server and the XML `<include>` loader); this module
//! holds the rules that need no IO, and the one error type every loader reports with.

use crate::diagnostic::Diagnostic;
use crate::span::{LineIndex, Span};

/// Source files larger than this are refused (E0802) before they are read: no program is
/// this large, and reading `/dev/zero` or a mistaken log file must not exhaust memory.
pub const MAX_SOURCE_BYTES: u64 = 64 * 1024 * 1024;

/// Why a source file cannot be used. `code` is E0801..E0805 (E0206 for loaders that may not
/// read files at all); `at` is set for problems inside the text: the file as read (invalid
/// bytes replaced by U+FFFD, which keeps the offsets before them) and the place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceError {
    pub code: &'static str,
    pub message: String,
    pub at: Option<(String, Span)>,
}

impl SourceError {
    pub fn new(code: &'static str, message: impl Into<String>) -> SourceError {
        SourceError {
            code,
            message: message.into(),
            at: None,
        }
    }

    /// The error as a diagnostic in the file itself (positioned when `at` is set).
    pub fn diagnostic(&self) -> Diagnostic {
        let span = self.at.as_ref().map_or(Span::DUMMY, |(_, s)| *s);
        let label = match self.code {
            "E0803" => "not UTF-8",
            "E0804" => "NUL byte",
            _ => "",
        };
        Diagnostic::error(self.code, self.message.clone(), span).with_label(label)
    }
}

/// A loader's own refusal (no file access, a missing test fixture): E0206.
impl From<String> for SourceError {
    fn from(message: String) -> SourceError {
        SourceError::new("E0206", message)
    }
}

impl std::fmt::Display for SourceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.message)
    }
}

/// The bytes of a file named `name` as source text: E0803 at the first invalid UTF-8
/// sequence, E0804 at the first NUL byte, with line and column in the message.
pub fn decode(name: &str, bytes: Vec<u8>) -> Result<String, SourceError> {
    match String::from_utf8(bytes) {
        Ok(text) => match text.find('\0') {
            None => Ok(text),
            Some(at) => {
                let (line, col) = LineIndex::new(&text).line_col(&text, at);
                Err(SourceError {
                    code: "E0804",
                    message: format!(
                        "`{name}` contains a NUL byte at line {line}, column {col}: it is not a text file"
                    ),
                    at: Some((text, Span::new(at, at + 1))),
                })
            }
        },
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let bad = e.as_bytes()[at];
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let (line, col) = LineIndex::new(&text).line_col(&text, at);
            // The replacement character is 3 bytes wherever the invalid sequence was.
            let end = (at + '\u{FFFD}'.len_utf8()).min(text.len());
            Err(SourceError {
                code: "E0803",
                message: format!(
                    "`{name}` is not UTF-8 text: invalid byte 0x{bad:02X} at line {line}, column {col}"
                ),
                at: Some((text, Span::new(at, end))),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_passes() {
        assert_eq!(decode("a", b"x = 1\n".to_vec()).unwrap(), "x = 1\n");
    }

    #[test]
    fn invalid_utf8_is_e0703_with_line_and_column() {
        let e = decode("a.affect", b"ok\nab\xFFc\n".to_vec()).unwrap_err();
        assert_eq!(e.code, "E0803");
        assert!(e.message.contains("line 2, column 3"), "{}", e.message);
        let (text, span) = e.at.unwrap();
        assert_eq!(span.start, 5);
        assert_eq!(&text[span.range()], "\u{FFFD}");
    }

    #[test]
    fn nul_is_e0704_with_line_and_column() {
        let e = decode("a.affect", b"tree T() {\n  su\0cceed }".to_vec()).unwrap_err();
        assert_eq!(e.code, "E0804");
        assert!(e.message.contains("line 2, column 5"), "{}", e.message);
        assert_eq!(e.diagnostic().primary.span, Span::new(15, 16));
    }
}
