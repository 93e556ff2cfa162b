//! The compiler library does no IO: the CLI reads files and hands the compiler text (a
//! `Loader` for `use`d files), so the compiler can run in an editor, a test or a browser. This
//! test reads the library's source and refuses file, network, process and environment access
//! outside test code.

use std::path::{Path, PathBuf};

/// What library code must not use.
const FORBIDDEN: &[&str] = &[
    "std::fs",
    "std::net",
    "std::process",
    "std::env",
    "File::open",
    "File::create",
    "OpenOptions",
    "stdin()",
    "stdout()",
    "stderr()",
    "println!",
    "eprintln!",
    "print!(",
    "eprint!(",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a source folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The library part of a file: test modules (`#[cfg(test)]` to the end, as this code base
/// writes them) and whole test files are left out.
fn library_part(path: &Path, src: &str) -> Option<String> {
    let name = path.file_name()?.to_string_lossy();
    if name == "tests.rs" || name.ends_with("_tests.rs") {
        return None;
    }
    let end = src.find("#[cfg(test)]").unwrap_or(src.len());
    Some(src[..end].to_string())
}

#[test]
fn the_compiler_library_does_no_io() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("compiler/src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    files.sort();
    assert!(files.len() > 30, "the compiler's sources were found");
    let mut found = Vec::new();
    for path in &files {
        let src = std::fs::read_to_string(path).expect("a source file");
        let Some(lib) = library_part(path, &src) else {
            continue;
        };
        for (n, line) in lib.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for f in FORBIDDEN {
                if code.contains(f) {
                    found.push(format!("{}:{}: {f}", path.display(), n + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "IO in the compiler library:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scan_sees_io_when_there_is_some() {
    let lib = library_part(
        Path::new("x.rs"),
        "fn f() { let _ = std::fs::read(\"a\"); }\n#[cfg(test)]\nmod t { fn g() { println!(); } }",
    );
    let lib = lib.expect("library code");
    assert!(lib.contains("std::fs"));
    assert!(!lib.contains("println!"));
    assert!(library_part(Path::new("tests.rs"), "std::fs").is_none());
}
