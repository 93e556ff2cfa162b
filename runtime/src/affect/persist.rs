//! Long-term emotional memory on disk: a small versioned text format, written atomically
//! (a temporary file, then a rename). A damaged or foreign file is an error that names the
//! file and line, and the file is left as it was.
//!
//! ```text
//! affect long-term memory v2
//! memory feelings
//! A    63.2    42
//! K    18.5    22
//! A    K
//! ```
//!
//! Each line after `memory NAME` is either a trace, three fields separated by tabs (shown as
//! spaces above): a key, its score 0..100 and its familiarity 0..100; or a connection, two
//! keys separated by a tab (they were remembered one after the other). Version 1 files, which
//! have no connections, are read too.

use std::path::Path;

pub const HEADER: &str = "affect long-term memory v2";

/// The previous format, without connections: still read.
const HEADER_V1: &str = "affect long-term memory v1";

/// One memory's traces and connections by key name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stored {
    pub name: String,
    pub traces: Vec<(String, f64, f64)>,
    pub links: Vec<(String, String)>,
}

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
    out
}

fn escape(k: &str) -> String {
    k.replace('\\', "\\\\")
        .replace('\t', "\\t")
        .replace('\n', "\\n")
}

fn unescape(k: &str) -> String {
    let mut out = String::new();
    let mut chars = k.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('t') => out.push('\t'),
                Some('n') => out.push('\n'),
                Some(other) => out.push(other),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Reads a file written by `format`; the error says what is wrong and where.
pub fn parse(text: &str) -> Result<Vec<Stored>, String> {
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, h)) if h.trim_end() == HEADER || h.trim_end() == HEADER_V1 => {}
        Some((_, h)) if h.starts_with("affect long-term memory v") => {
            return Err(format!(
            "line 1: this file is format `{}`; this version of affect reads `{HEADER}` (and v1)",
            h.trim()
        ))
        }
        _ => {
            return Err(format!(
                "line 1: not an affect long-term memory file (the first line must be `{HEADER}`)"
            ))
        }
    }
    let mut out: Vec<Stored> = Vec::new();
    for (i, line) in lines {
        let n = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        if let Some(name) = line.strip_prefix("memory ") {
            out.push(Stored {
                name: name.trim().to_string(),
                ..Stored::default()
            });
            continue;
        }
        let Some(current) = out.last_mut() else {
            return Err(format!("line {n}: a trace before any `memory NAME` line"));
        };
        let parts: Vec<&str> = line.split('\t').collect();
        if let [a, b] = parts.as_slice() {
            current.links.push((unescape(a), unescape(b)));
            continue;
        }
        let [k, s, f] = parts.as_slice() else {
            return Err(format!(
                "line {n}: expected `key<TAB>score<TAB>familiarity` or `key<TAB>key`"
            ));
        };
        let num = |x: &str, what: &str| -> Result<f64, String> {
            match x.trim().parse::<f64>() {
                Ok(v) if (0.0..=100.0).contains(&v) => Ok(v),
                Ok(v) => Err(format!("line {n}: the {what} {v} is outside 0..100")),
                Err(_) => Err(format!("line {n}: the {what} `{x}` is not a number")),
            }
        };
        current
            .traces
            .push((unescape(k), num(s, "score")?, num(f, "familiarity")?));
    }
    Ok(out)
}

/// Writes `text` to `path` atomically.
pub fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "memory".into());
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    let result = (|| {
        use std::io::Write;
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let m = vec![Stored {
            name: "feelings".into(),
            traces: vec![("A".into(), 63.25, 42.0), ("tab\there".into(), 0.0, 100.0)],
            links: vec![("A".into(), "tab\there".into())],
        }];
        assert_eq!(parse(&format(&m)).unwrap(), m);
    }

    #[test]
    fn version_1_files_without_connections_are_read() {
        let m = parse("affect long-term memory v1\nmemory feelings\nK\t18.5\t22\n").unwrap();
        assert_eq!(
            m,
            vec![Stored {
                name: "feelings".into(),
                traces: vec![("K".into(), 18.5, 22.0)],
                links: vec![],
            }]
        );
    }

    #[test]
    fn damaged_and_foreign_files_are_errors_with_a_line() {
        assert!(parse("PK\u{3}\u{4}garbage")
            .unwrap_err()
            .contains("not an affect long-term memory file"));
        assert!(parse("affect long-term memory v9\n")
            .unwrap_err()
            .contains("v9"));
        let e = parse(&format!("{HEADER}\nmemory m\nA\t200\t1\n")).unwrap_err();
        assert!(e.starts_with("line 3"), "{e}");
        assert!(parse(&format!("{HEADER}\nA\t1\t1\n"))
            .unwrap_err()
            .contains("before any"));
    }

    #[test]
    fn atomic_write_replaces_the_file_whole() {
        let dir = std::env::temp_dir().join(format!("affect-persist-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("f.eltm");
        write_atomic(&p, "one").unwrap();
        write_atomic(&p, "two").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "two");
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            1,
            "no temporary file is left"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
