//! Long-term emotional memory on disk. A robot's memory file can hold weeks of learning, so
//! damage of any kind is detected and the file is never lost by accident:
//!
//! - the format is versioned text with a footer holding the length and CRC-32 of everything
//!   before it: a file cut anywhere (even between two lines), a changed byte, a missing or
//!   extra field, an empty or binary file is an error that says what and where;
//! - a damaged file is left exactly as it is, and the run does not start;
//! - writes are atomic and durable (`affect_files::write_atomic`: temporary file, fsync,
//!   rename, fsync of the directory), keep the file's permissions, refuse a read-only file, and
//!   clean up temporary files a killed write left behind.
//!
//! ```text
//! affect long-term memory v3
//! memory feelings
//! A    63.2    42
//! K    18.5    22
//! A    K
//! end    67    b68ee2b6
//! ```
//!
//! Each line after `memory NAME` is either a trace, three fields separated by tabs (shown as
//! spaces above): a key, its score 0..100 and its familiarity 0..100; or a connection, two
//! keys separated by a tab (they were remembered one after the other). The `end` line gives
//! the number of bytes before it and their CRC-32 in hexadecimal. Version 2 files (no footer)
//! and version 1 files (no connections) are still read; every write is version 3.

use affect_compiler::diagnostic::Diagnostic;
use affect_compiler::ir::program::AgentProgram;
use std::path::{Path, PathBuf};

pub const HEADER: &str = "affect long-term memory v3";

/// The two earlier formats, without the footer (v2) and without connections (v1): still read.
const HEADER_V2: &str = "affect long-term memory v2";
const HEADER_V1: &str = "affect long-term memory v1";

/// Memory files larger than this are refused: far more than any robot remembers.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// A key longer than this is damage (keys are places and labels, a few words long).
pub const MAX_KEY_BYTES: usize = 1024;

/// One memory's traces and connections by key name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stored {
    pub name: String,
    pub traces: Vec<(String, f64, f64)>,
    pub links: Vec<(String, String)>,
}

/// What is wrong with a memory file: the line (1-based) when a line is at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Damage {
    pub line: Option<usize>,
    pub message: String,
}

impl Damage {
    fn at(line: usize, message: impl Into<String>) -> Damage {
        Damage {
            line: Some(line),
            message: message.into(),
        }
    }

    fn file(message: impl Into<String>) -> Damage {
        Damage {
            line: None,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(n) => write!(f, "line {n}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// The file's text in the current format, footer included.
pub fn format(memories: &[Stored]) -> String {
    let mut out = String::from(HEADER);
    out.push('\n');
    for m in memories {
        out.push_str(&format!("memory {}\n", m.name));
        for (k, s, f) in &m.traces {
            out.push_str(&format!("{}\t{s}\t{f}\n", escape(k)));
        }
        for (a, b) in &m.links {
            out.push_str(&format!("{}\t{}\n", escape(a), escape(b)));
        }
    }
    let footer = footer(out.as_bytes());
    out.push_str(&footer);
    out
}

fn footer(body: &[u8]) -> String {
    format!("end\t{}\t{:08x}\n", body.len(), crc32fast::hash(body))
}

fn escape(k: &str) -> String {
    k.replace('\\', "\\\\")
        .replace('\t', "\\t")
        .replace('\n', "\\n")
}

/// The key a field spells, or what is wrong with it.
fn unescape(k: &str, n: usize) -> Result<String, Damage> {
    if k.is_empty() {
        return Err(Damage::at(n, "an empty key"));
    }
    if k.len() > MAX_KEY_BYTES {
        return Err(Damage::at(
            n,
            format!("a key of {} bytes (at most {MAX_KEY_BYTES})", k.len()),
        ));
    }
    let mut out = String::with_capacity(k.len());
    let mut chars = k.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('t') => out.push('\t'),
                Some('n') => out.push('\n'),
                Some('\\') => out.push('\\'),
                _ => return Err(Damage::at(n, "a key with a broken escape")),
            },
            c if c.is_control() => {
                return Err(Damage::at(n, "a key with a control character"));
            }
            c => out.push(c),
        }
    }
    Ok(out)
}

/// Reads the bytes of a memory file (any version); the error says what is wrong and where.
pub fn read(bytes: &[u8]) -> Result<Vec<Stored>, Damage> {
    if bytes.is_empty() {
        return Err(Damage::file(
            "the file is empty (a memory file starts with `affect long-term memory`)",
        ));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        Damage::file(format!(
            "not text (byte {} is not UTF-8): not an affect long-term memory file",
            e.valid_up_to()
        ))
    })?;
    let first = text.split('\n').next().unwrap_or("");
    match first {
        HEADER => parse_body(check_footer(text)?, Version::Checked),
        HEADER_V2 | HEADER_V1 => {
            // No footer in these versions: at least a cut inside a line shows.
            if !text.ends_with('\n') {
                let n = text.split('\n').count();
                return Err(Damage::at(n, "the last line is cut off (no line end)"));
            }
            parse_body(
                text,
                match first {
                    HEADER_V2 => Version::V2,
                    _ => Version::V1,
                },
            )
        }
        h if h.starts_with("affect long-term memory v") => Err(Damage::at(
            1,
            format!(
                "this file is format `{}`; this version of affect reads `{HEADER}` (and v2, v1)",
                h.trim()
            ),
        )),
        _ => Err(Damage::at(
            1,
            format!("not an affect long-term memory file (the first line must be `{HEADER}`)"),
        )),
    }
}

/// The text before a valid footer, or what the footer shows is wrong.
fn check_footer(text: &str) -> Result<&str, Damage> {
    let lines = text.split('\n').count();
    let cut = || {
        Damage::at(
            lines,
            "the file ends without its `end` line: it was cut off (part of it is missing)",
        )
    };
    let body_end = text
        .strip_suffix('\n')
        .ok_or_else(cut)?
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let last = &text[body_end..text.len() - 1];
    let fields: Vec<&str> = last.split('\t').collect();
    let ["end", len, crc] = fields.as_slice() else {
        return Err(cut());
    };
    let n = lines - 1;
    let len: usize = len
        .parse()
        .map_err(|_| Damage::at(n, "the `end` line is damaged (its length is not a number)"))?;
    let crc = u32::from_str_radix(crc, 16).map_err(|_| {
        Damage::at(
            n,
            "the `end` line is damaged (its checksum is not hexadecimal)",
        )
    })?;
    let body = &text[..body_end];
    if len != body.len() {
        return Err(Damage::at(
            n,
            format!(
                "the file holds {} bytes before its `end` line, which says {len}: part of it is missing or was added",
                body.len()
            ),
        ));
    }
    // Only the form `format` writes: another spelling of the same numbers is damage too.
    if crc != crc32fast::hash(body.as_bytes()) || text[body_end..] != footer(body.as_bytes()) {
        return Err(Damage::file(
            "the checksum does not match: a byte of the file was changed after it was written",
        ));
    }
    Ok(body)
}

/// The format of a file's body.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Version {
    /// v3: the footer's checksum vouches for every field.
    Checked,
    /// v2: connections, no footer.
    V2,
    /// v1: no connections, no footer.
    V1,
}

/// The memories of a file's lines after its header. Without a footer (v2) a trace that lost
/// its familiarity (`P<TAB>50`) reads as a connection: there, a connection after which a
/// trace comes, or one to a number no trace has as its key, is damage (every writer put the
/// traces first, and keys are places and labels).
fn parse_body(text: &str, version: Version) -> Result<Vec<Stored>, Damage> {
    let links_allowed = version != Version::V1;
    let mut out: Vec<Stored> = Vec::new();
    for (i, line) in text.split('\n').enumerate().skip(1) {
        let n = i + 1;
        if line.is_empty() {
            continue;
        }
        if let Some(name) = line.strip_prefix("memory ") {
            if name.is_empty() || name.contains(char::is_whitespace) {
                return Err(Damage::at(n, "a `memory` line without a valid name"));
            }
            if out.iter().any(|m| m.name == name) {
                return Err(Damage::at(n, format!("memory `{name}` appears twice")));
            }
            out.push(Stored {
                name: name.to_string(),
                ..Stored::default()
            });
            continue;
        }
        let Some(current) = out.last_mut() else {
            return Err(Damage::at(n, "a trace before any `memory NAME` line"));
        };
        let parts: Vec<&str> = line.split('\t').collect();
        match parts.as_slice() {
            [a, b] if links_allowed => {
                let numeric = |k: &str| k.parse::<f64>().is_ok() && !current.traces.iter().any(|t| t.0 == k);
                if version == Version::V2 && numeric(b) {
                    return Err(Damage::at(
                        n,
                        format!("`{a}` has a score and no familiarity (expected `key<TAB>score<TAB>familiarity`)"),
                    ));
                }
                current.links.push((unescape(a, n)?, unescape(b, n)?))
            }
            [_, _, _] if version == Version::V2 && !current.links.is_empty() => {
                return Err(Damage::at(
                    n,
                    "a trace after the memory's connections (every version writes the traces first)",
                ))
            }
            [k, s, f] => {
                let num = |x: &str, what: &str| -> Result<f64, Damage> {
                    match x.parse::<f64>() {
                        Ok(v) if (0.0..=100.0).contains(&v) => Ok(v),
                        Ok(v) => Err(Damage::at(n, format!("the {what} {v} is outside 0..100"))),
                        Err(_) => Err(Damage::at(n, format!("the {what} `{x}` is not a number"))),
                    }
                };
                current
                    .traces
                    .push((unescape(k, n)?, num(s, "score")?, num(f, "familiarity")?));
            }
            _ => {
                return Err(Damage::at(
                    n,
                    "expected `key<TAB>score<TAB>familiarity` or `key<TAB>key`",
                ))
            }
        }
    }
    Ok(out)
}

/// The memories of the file at `path`: `None` when there is none yet. Only a regular file of
/// at most `MAX_FILE_BYTES` is read.
pub fn load(path: &Path) -> Result<Option<Vec<Stored>>, String> {
    parse(path, read_file(path)?.as_deref())
}

/// The bytes of the memory file at `path`: `None` when there is none yet. Only a regular
/// file of at most `MAX_FILE_BYTES` is read.
pub fn read_file(path: &Path) -> FileBytes {
    // No file yet (or a link to one not written yet): nothing remembered.
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        _ => {}
    }
    let bytes = affect_files::read_bytes(path, MAX_FILE_BYTES).map_err(|e| e.message)?;
    Ok(Some(bytes))
}

/// The memories the bytes of the file at `path` hold (`None`: no file).
fn parse(path: &Path, bytes: Option<&[u8]>) -> Result<Option<Vec<Stored>>, String> {
    let Some(bytes) = bytes else { return Ok(None) };
    read(bytes).map(Some).map_err(|d| {
        format!(
            "`{}` is not a long-term memory this version can read ({d}); it was left untouched: move it away to start afresh",
            path.display()
        )
    })
}

/// Memory files read ahead of a run, each once, as [`read_file`] reads them: `--record`
/// keeps these bytes in its record, and the run takes its memories from the same bytes
/// instead of reading the files again, so the record holds exactly what the run started from
/// (a file changed in between cannot make them disagree).
#[derive(Clone, Debug, Default)]
pub struct ReadAhead(std::sync::Arc<Vec<(PathBuf, FileBytes)>>);

/// A memory file's bytes as [`read_file`] read them.
pub type FileBytes = Result<Option<Vec<u8>>, String>;

impl ReadAhead {
    /// Reads each of `paths` once.
    pub fn read(paths: impl IntoIterator<Item = PathBuf>) -> ReadAhead {
        let files = paths.into_iter().map(|p| {
            let bytes = read_file(&p);
            (p, bytes)
        });
        ReadAhead(std::sync::Arc::new(files.collect()))
    }

    /// Each file read, with its bytes (`Ok(None)`: no file; `Err`: it could not be read).
    pub fn files(&self) -> impl Iterator<Item = (&Path, &FileBytes)> {
        self.0.iter().map(|(p, b)| (p.as_path(), b))
    }

    /// The memories of the file at `path` from the bytes read ahead, or `None` when it was
    /// not read ahead.
    fn load(&self, path: &Path) -> Option<Result<Option<Vec<Stored>>, String>> {
        let (_, bytes) = self.0.iter().find(|(p, _)| p == path)?;
        Some(match bytes {
            Ok(b) => parse(path, b.as_deref()),
            Err(e) => Err(e.clone()),
        })
    }
}

/// The memory files a run keeps its memories in, each read once before the first tick.
#[derive(Clone, Debug)]
pub struct Files {
    /// The directory the files are in (the program's).
    pub dir: PathBuf,
    /// Each file once, in the order the agents' memories name it, with what it held (`None`:
    /// not written yet).
    pub files: Vec<(PathBuf, Option<Vec<Stored>>)>,
}

impl Files {
    /// The memory `name` as the file `file` (`persist "feelings.eltm"`) held it.
    pub fn stored(&self, file: &str, name: &str) -> Option<&Stored> {
        let path = self.dir.join(file);
        let (_, held) = self.files.iter().find(|(p, _)| *p == path)?;
        held.as_ref()?.iter().find(|s| s.name == name)
    }

    /// The files that were there, with the places (traces) each held.
    pub fn read(&self) -> impl Iterator<Item = (&Path, usize)> {
        (self.files.iter()).filter_map(|(p, held)| Some((p.as_path(), places(held.as_ref()?))))
    }
}

/// The places (traces) the memories of a file hold.
pub fn places(memories: &[Stored]) -> usize {
    memories.iter().map(|m| m.traces.len()).sum()
}

/// Reads, before the first tick, every memory file the agents will read and write: each
/// must be absent or a readable memory file, and writable (a read-only file, or a directory
/// where no file can be created, would otherwise fail only after the whole run). The errors
/// are E0603 at each memory's `persist`. A file in `ahead` is taken from the bytes read
/// there, not read again.
pub fn check_files<'a>(
    agents: impl IntoIterator<Item = &'a AgentProgram>,
    dir: &Path,
    ahead: &ReadAhead,
) -> Result<Files, Vec<Diagnostic>> {
    let mut errors: Vec<Diagnostic> = Vec::new();
    let mut files = Files {
        dir: dir.to_path_buf(),
        files: Vec::new(),
    };
    for spec in agents.into_iter().flat_map(|a| &a.memories) {
        let Some(file) = &spec.persist else { continue };
        let path = dir.join(file);
        if files.files.iter().any(|(p, _)| *p == path) {
            continue;
        }
        let held = ahead.load(&path).unwrap_or_else(|| load(&path));
        let checked = held.and_then(|held| {
            affect_files::check_writable(&path)
                .map_err(|e| format!("{e}; the run did not start, so nothing learned is lost"))?;
            Ok(held)
        });
        match checked {
            Ok(held) => files.files.push((path, held)),
            Err(e) => {
                files.files.push((path, None));
                errors.push(
                    Diagnostic::error("E0603", e, spec.persist_span)
                        .with_label(format!("memory `{}` is kept here", spec.name)),
                );
            }
        }
    }
    if errors.is_empty() {
        Ok(files)
    } else {
        Err(errors)
    }
}

/// Writes `memories` into the file at `path` (a later one of the same name replacing an
/// earlier), keeping the other memories it holds; the places the file then holds. The file
/// is read and written once, whatever the number of memories. A file that is damaged by now
/// is not overwritten.
pub fn save(path: &Path, memories: impl IntoIterator<Item = Stored>) -> Result<usize, String> {
    let mut all = load(path)?.unwrap_or_default();
    for memory in memories {
        if let Some(k) = memory
            .traces
            .iter()
            .map(|t| &t.0)
            .chain(memory.links.iter().flat_map(|(a, b)| [a, b]))
            .find(|k| k.is_empty() || escape(k).len() > MAX_KEY_BYTES)
        {
            return Err(format!(
                "cannot save memory `{}` to `{}`: the key `{:.40}` cannot be kept (keys are 1 to {MAX_KEY_BYTES} bytes)",
                memory.name,
                path.display(),
                k
            ));
        }
        all.retain(|m| m.name != memory.name);
        all.push(memory);
    }
    affect_files::write_atomic(path, format(&all).as_bytes())?;
    Ok(places(&all))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<Stored> {
        vec![Stored {
            name: "feelings".into(),
            traces: vec![("A".into(), 63.25, 42.0), ("tab\there".into(), 0.0, 100.0)],
            links: vec![("A".into(), "tab\there".into())],
        }]
    }

    #[test]
    fn round_trip() {
        let text = format(&sample());
        assert!(text.starts_with(HEADER));
        assert_eq!(read(text.as_bytes()).unwrap(), sample());
    }

    #[test]
    fn earlier_versions_are_read() {
        let m = read(b"affect long-term memory v1\nmemory feelings\nK\t18.5\t22\n").unwrap();
        assert_eq!(m[0].traces, vec![("K".to_string(), 18.5, 22.0)]);
        let m = read(b"affect long-term memory v2\nmemory f\nK\t18.5\t22\nK\tK\n").unwrap();
        assert_eq!(m[0].links, vec![("K".to_string(), "K".to_string())]);
        // A v2 file cut inside its last line.
        assert!(read(b"affect long-term memory v2\nmemory f\nK\t18").is_err());
    }

    /// A v2 file has no checksum: a trace that lost its familiarity would read as a
    /// connection to a key `50`. It is damage, as a missing field is in the current format.
    #[test]
    fn a_legacy_trace_without_its_familiarity_is_damage() {
        for text in [
            "affect long-term memory v2\nmemory f\nP\t50\n",
            "affect long-term memory v2\nmemory f\nK\t18.5\t22\nP\t50\n",
            "affect long-term memory v2\nmemory f\nP\t50\nK\t18.5\t22\n",
            "affect long-term memory v2\nmemory f\nK\t18.5\t22\nK\tP\nP\t50\t3\n",
        ] {
            let e = read(text.as_bytes()).expect_err(text);
            assert!(e.line.is_some(), "{text}: {e}");
        }
        let e = read(b"affect long-term memory v2\nmemory f\nK\t18.5\t22\nP\t50\n").unwrap_err();
        assert_eq!(e.line, Some(4));
        assert!(e.message.contains("no familiarity"), "{e}");
        // A connection to a key that has a trace, even one spelled as a number, is one.
        let m = read(b"affect long-term memory v2\nmemory f\n7\t18.5\t22\nK\t7\n").unwrap();
        assert_eq!(m[0].links, vec![("K".to_string(), "7".to_string())]);
        // The same damage in the current format: the checksum finds it.
        let mut text = format(&[Stored {
            name: "f".into(),
            traces: vec![("P".into(), 50.0, 3.0)],
            links: vec![],
        }]);
        text = text.replace("P\t50\t3\n", "P\t50\n");
        assert!(read(text.as_bytes()).is_err());
    }

    /// Every way a file can be damaged is found: cut at every byte, every byte changed, each
    /// line removed.
    #[test]
    fn every_truncation_flip_and_missing_line_is_detected() {
        let text = format(&sample());
        let bytes = text.as_bytes();
        for cut in 0..bytes.len() {
            assert!(read(&bytes[..cut]).is_err(), "cut at {cut} was read");
        }
        for i in 0..bytes.len() {
            for flip in [0x01u8, 0x20, 0x80] {
                let mut b = bytes.to_vec();
                b[i] ^= flip;
                assert!(read(&b).is_err(), "byte {i} ^ {flip:#x} was read");
            }
        }
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        for skip in 0..lines.len() {
            let without: String = lines
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != skip)
                .map(|(_, l)| *l)
                .collect();
            assert!(
                read(without.as_bytes()).is_err(),
                "line {skip} removed was read"
            );
        }
    }

    #[test]
    fn damage_says_what_and_where() {
        assert!(read(b"").unwrap_err().message.contains("empty"));
        assert!(read(b"PK\x03\x04\xff\xfe")
            .unwrap_err()
            .message
            .contains("not text"));
        assert!(read(b"affect long-term memory v9\n")
            .unwrap_err()
            .message
            .contains("v9"));
        let e = read(b"affect long-term memory v2\nmemory m\nA\t200\t1\n").unwrap_err();
        assert_eq!(e.line, Some(3));
        let big = format!(
            "affect long-term memory v2\nmemory m\n{}\t1\t1\n",
            "k".repeat(1 << 20)
        );
        assert!(read(big.as_bytes()).unwrap_err().message.contains("key of"));
        let text = format(&sample());
        let cut = &text[..text.len() - 20];
        assert!(read(cut.as_bytes())
            .unwrap_err()
            .message
            .contains("cut off"));
    }

    #[test]
    fn save_keeps_other_memories_and_refuses_damage() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let p = dir.join("f.eltm");
        save(&p, [sample()[0].clone()]).unwrap();
        let other = Stored {
            name: "other".into(),
            traces: vec![("B".into(), 1.0, 2.0)],
            links: vec![],
        };
        save(&p, [other.clone()]).unwrap();
        let both = load(&p).unwrap().unwrap();
        assert_eq!(both, vec![sample()[0].clone(), other.clone()]);
        std::fs::write(&p, "garbage").unwrap();
        assert!(save(&p, [other]).is_err());
        assert_eq!(std::fs::read(&p).unwrap(), b"garbage", "left untouched");
    }
}
