//! Open documents: their text, what the compiler says about them (parsed once, checked once
//! per version), and positions. LSP positions count UTF-16 code units per line; the
//! compiler's spans are byte offsets.

use affect_compiler::sema::index::{FileId, SemanticIndex, MAIN_FILE};
use affect_compiler::sema::{self, Loader};
use affect_compiler::source::SourceError;
use affect_compiler::syntax::{ast::File, Comment};
use affect_compiler::{Diagnostic, Span};
use lsp_types::{Location, Position, Range, Uri};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// Line starts of a text, for conversions between byte offsets and LSP positions.
#[derive(Clone, Debug, Default)]
pub struct Lines {
    starts: Vec<usize>,
    /// UTF-16 code units before every [`STEP`]th byte of a text that is not all ASCII (empty
    /// when it is), so a column costs at most `STEP` bytes of counting however long its line
    /// is: counting from the line's start made a 6 MB line's 200,000 positions quadratic.
    units: Vec<usize>,
}

const STEP: usize = 1024;

/// The UTF-16 code units of the characters that start in `bytes`: one for each byte that is
/// not a continuation byte, one more for each four-byte character's first byte.
fn units_in(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .map(|&b| usize::from(b & 0xC0 != 0x80) + usize::from(b >= 0xF0))
        .sum()
}

impl Lines {
    pub fn new(text: &str) -> Lines {
        let mut starts = vec![0];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                starts.push(i + 1);
            }
        }
        let mut units = Vec::new();
        if !text.is_ascii() {
            let mut sum = 0;
            for chunk in text.as_bytes().chunks(STEP) {
                units.push(sum);
                sum += units_in(chunk);
            }
            units.push(sum);
        }
        Lines { starts, units }
    }

    /// The UTF-16 code units before byte `offset` (a character boundary) of the text.
    fn units_before(&self, text: &str, offset: usize) -> usize {
        if self.units.is_empty() {
            return offset;
        }
        let k = offset / STEP;
        self.units[k] + units_in(&text.as_bytes()[k * STEP..offset])
    }

    /// The LSP position of a byte offset (clamped to the text, moved back to a character
    /// boundary).
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        let start = self.starts.get(line).copied().unwrap_or(0).min(offset);
        let col = self.units_before(text, offset) - self.units_before(text, start);
        Position::new(line as u32, col as u32)
    }

    /// The byte offset of an LSP position. A line past the end gives the end of the text; a
    /// column past the end of its line gives the end of the line.
    pub fn offset(&self, text: &str, pos: Position) -> usize {
        let Some(&start) = self.starts.get(pos.line as usize) else {
            return text.len();
        };
        let end = self
            .starts
            .get(pos.line as usize + 1)
            .map(|&s| s - 1)
            .unwrap_or(text.len());
        let line = &text[start.min(text.len())..end.min(text.len())];
        let line = line.strip_suffix('\r').unwrap_or(line);
        let mut units = 0usize;
        for (i, c) in line.char_indices() {
            if units >= pos.character as usize {
                return start + i;
            }
            units += c.len_utf16();
        }
        start + line.len()
    }

    pub fn range(&self, text: &str, span: Span) -> Range {
        Range::new(
            self.position(text, span.start as usize),
            self.position(text, span.end as usize),
        )
    }
}

/// The path of a `file:` URI.
pub fn uri_to_path(uri: &Uri) -> Option<PathBuf> {
    let s = uri.as_str();
    let rest = s.strip_prefix("file://")?;
    // `file://host/path`: only local files (empty host or localhost).
    let rest = if let Some(r) = rest.strip_prefix("localhost") {
        r
    } else {
        rest
    };
    if !rest.starts_with('/') {
        return None;
    }
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    let decoded = percent_decode(rest)?;
    // `/C:/dir` on Windows.
    let bytes = decoded.as_bytes();
    if cfg!(windows) && bytes.len() >= 3 && bytes[2] == b':' && bytes[1].is_ascii_alphabetic() {
        return Some(PathBuf::from(&decoded[1..]));
    }
    Some(PathBuf::from(decoded))
}

fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A `file:` URI for a path.
pub fn path_to_uri(path: &Path) -> Option<Uri> {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().ok()?.join(path)
    };
    let text = abs.to_str()?.replace('\\', "/");
    let mut out = String::from("file://");
    if !text.starts_with('/') {
        out.push('/');
    }
    for &c in text.as_bytes() {
        if c.is_ascii_alphanumeric() || b"-._~/:".contains(&c) {
            out.push(c as char);
        } else {
            out.push_str(&format!("%{c:02X}"));
        }
    }
    Uri::from_str(&out).ok()
}

/// A path with `.` and `..` resolved lexically, to compare paths of open documents with
/// paths of `use`d files.
pub fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Reads a file a document `use`s by the rules every command follows (`affect_files`): only
/// a regular file (never a device, a FIFO or a directory, which could block or never end), of
/// at most 64 MiB, UTF-8 text without NUL bytes. The one place the language server reads a
/// source file.
pub fn read_used_file(path: &Path) -> Result<String, SourceError> {
    affect_files::read_source(path)
}

/// Reads the files a document `use`s for the compiler's loader: from the editor's open
/// buffers when they are open, else from disk, relative to the document's folder. Documents
/// that are not files cannot import; a server without disk access (`disk: false`, as in the
/// in-memory sessions of fuzzing) reads open buffers only.
pub struct DocLoader<'a> {
    pub dir: Option<PathBuf>,
    pub open: &'a HashMap<PathBuf, String>,
    pub disk: bool,
}

impl Loader for DocLoader<'_> {
    fn load(&self, path: &str) -> Result<String, SourceError> {
        let Some(dir) = &self.dir else {
            return sema::NoFiles.load(path);
        };
        let full = dir.join(path);
        if let Some(text) = self.open.get(&normalize(&full)) {
            return Ok(text.clone());
        }
        if !self.disk {
            return sema::NoFiles.load(path);
        }
        read_used_file(&full)
    }
}

/// An open document and everything computed from its text.
pub struct Document {
    pub uri: Uri,
    pub path: Option<PathBuf>,
    pub version: i32,
    pub text: String,
    pub lines: Lines,
    pub file: File,
    pub comments: Vec<Comment>,
    /// Whether the text parsed without errors (formatting needs it).
    pub parses: bool,
    pub diagnostics: Vec<Diagnostic>,
    /// Errors inside `use`d files: (file as written, its text, the diagnostic).
    pub imported_diagnostics: Vec<(String, String, Diagnostic)>,
    /// What the checker knows of the document and the files it uses.
    pub index: SemanticIndex,
}

impl Document {
    /// Parses and checks a text. `open` holds the texts of the other open documents, by
    /// path, for the files this one `use`s; `disk` says whether files may be read.
    pub fn new(
        uri: Uri,
        version: i32,
        text: String,
        open: &HashMap<PathBuf, String>,
        disk: bool,
    ) -> Document {
        let path = uri_to_path(&uri);
        let loader = DocLoader {
            dir: path.as_ref().map(|p| folder(p)),
            open,
            disk,
        };
        let checked = affect_compiler::check_text(&text, &loader);
        Document {
            lines: Lines::new(&text),
            uri,
            path,
            version,
            file: checked.file,
            comments: checked.comments,
            parses: checked.parses,
            diagnostics: checked.analysis.diagnostics,
            imported_diagnostics: checked.analysis.imported_diagnostics,
            index: checked.analysis.index,
            text,
        }
    }

    pub fn range(&self, span: Span) -> Range {
        self.lines.range(&self.text, span)
    }

    pub fn offset(&self, pos: Position) -> usize {
        self.lines.offset(&self.text, pos)
    }

    /// The folder `use "..."` paths are relative to.
    pub fn folder(&self) -> Option<PathBuf> {
        self.path.as_ref().map(|p| folder(p))
    }

    /// Where a span of one of the index's files is: this document, or a file it uses (on
    /// disk; the standard library has no location).
    pub fn location(&self, file: FileId, span: Span) -> Option<Location> {
        if file == MAIN_FILE {
            return Some(Location::new(self.uri.clone(), self.range(span)));
        }
        let f = self.index.files.get(file.index())?;
        let uri = self.file_uri(file)?;
        let lines = Lines::new(&f.text);
        Some(Location::new(uri, lines.range(&f.text, span)))
    }

    /// The URI of one of the index's files, when it is a file.
    pub fn file_uri(&self, file: FileId) -> Option<Uri> {
        if file == MAIN_FILE {
            return Some(self.uri.clone());
        }
        let f = self.index.files.get(file.index())?;
        if f.stdlib {
            return None;
        }
        path_to_uri(&normalize(&self.folder()?.join(&f.name)))
    }

    /// The paths of the files this document uses.
    pub fn used_paths(&self) -> Vec<PathBuf> {
        let Some(dir) = self.folder() else {
            return Vec::new();
        };
        self.index
            .files
            .iter()
            .skip(1)
            .filter(|f| !f.stdlib)
            .map(|f| normalize(&dir.join(&f.name)))
            .collect()
    }
}

fn folder(p: &Path) -> PathBuf {
    p.parent().map(Path::to_path_buf).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_positions_round_trip() {
        let text = "a\u{e9}\u{1F600}b\r\nsecond\n";
        let lines = Lines::new(text);
        // `b` is after a (1), é (1), 😀 (2 units).
        let b = text.find('b').unwrap();
        assert_eq!(lines.position(text, b), Position::new(0, 4));
        assert_eq!(lines.offset(text, Position::new(0, 4)), b);
        // Past the end of the line: before the `\r\n`.
        assert_eq!(lines.offset(text, Position::new(0, 99)), b + 1);
        assert_eq!(
            lines.offset(text, Position::new(1, 3)),
            text.find("ond").unwrap()
        );
        assert_eq!(lines.offset(text, Position::new(9, 0)), text.len());
        // Inside a character: the start of the character.
        let smile = text.find('\u{1F600}').unwrap();
        assert_eq!(lines.position(text, smile + 1), Position::new(0, 2));
    }

    #[test]
    fn columns_of_a_long_mixed_line_count_utf16_units() {
        // Checkpoints every STEP bytes fall inside characters and lines: every column must
        // still be the plain count from the line's start.
        let line: String = "a\u{e9}\u{1F600}\u{4e2d}".repeat(3 * STEP / 10 + 7);
        let text = format!("first\n{line}\n{line}");
        let lines = Lines::new(&text);
        for (offset, _) in text.char_indices().step_by(13) {
            let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
            let want: usize = text[start..offset].chars().map(char::len_utf16).sum();
            let row = text[..offset].matches('\n').count() as u32;
            assert_eq!(
                lines.position(&text, offset),
                Position::new(row, want as u32)
            );
            assert_eq!(lines.offset(&text, Position::new(row, want as u32)), offset);
        }
    }

    #[test]
    fn file_uris() {
        let uri = Uri::from_str("file:///tmp/my%20dir/a.affect").unwrap();
        assert_eq!(
            uri_to_path(&uri),
            Some(PathBuf::from("/tmp/my dir/a.affect"))
        );
        let back = path_to_uri(Path::new("/tmp/my dir/a.affect")).unwrap();
        assert_eq!(back.as_str(), "file:///tmp/my%20dir/a.affect");
        assert_eq!(
            uri_to_path(&Uri::from_str("untitled:Untitled-1").unwrap()),
            None
        );
        assert_eq!(percent_decode("/bad%zz"), None);
        assert_eq!(percent_decode("/a%2"), Some("/a%2".to_string()));
    }

    #[test]
    fn only_regular_files_are_read() {
        let e = read_used_file(Path::new("/dev/zero")).unwrap_err();
        assert_eq!(e.code, "E0801", "{e}");
        let e = read_used_file(Path::new("/")).unwrap_err();
        assert_eq!(e.code, "E0801", "{e}");
        let e = read_used_file(Path::new("/nowhere/at/all.affect")).unwrap_err();
        assert_eq!(e.code, "E0805", "{e}");
    }
}
