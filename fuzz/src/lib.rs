//! What each fuzz target asserts, as plain functions of the input bytes. The cargo-fuzz
//! targets (`fuzz_targets/*.rs`, run by `scripts/fuzz.sh`) call them under libFuzzer; the
//! workspace's `tests/fuzz_corpus.rs` includes this file and replays every committed corpus
//! entry (`fuzz/corpus/`) through the same functions on stable Rust, so each finding
//! stays fixed.
//!
//! Every target: no panic, no stack overflow, every diagnostic inside the text it is about.

use affect_compiler::diagnostic::{has_errors, Diagnostic};
use affect_compiler::groot::{self, Dialect};
use affect_compiler::sema::NoFiles;
use affect_compiler::{fmt, syntax};

/// A target: its name, its corpus directory under `fuzz/corpus/` (the three targets that
/// read `.affect` text share one), and what it asserts.
pub type Target = (&'static str, &'static str, fn(&[u8]));

pub const TARGETS: &[Target] = &[
    ("parse", "affect", parse),
    ("check", "affect", check),
    ("fmt", "affect", format),
    ("import_xml", "import_xml", import_xml),
    ("memory_file", "memory_file", memory_file),
    ("lsp_messages", "lsp", lsp_messages),
];

fn in_bounds(diags: &[Diagnostic], len: usize) {
    for d in diags {
        assert!(
            d.primary.span.start <= d.primary.span.end && d.primary.span.end as usize <= len,
            "{} {} at {:?} outside a text of {len} bytes",
            d.code,
            d.message,
            d.primary.span
        );
        for l in &d.secondary {
            assert!(
                l.span.end as usize <= len,
                "{} secondary label outside",
                d.code
            );
        }
    }
}

/// Any bytes: the parser returns a tree and in-bounds diagnostics, and renders them.
pub fn parse(data: &[u8]) {
    let src = String::from_utf8_lossy(data);
    let parsed = syntax::parse(&src);
    in_bounds(&parsed.diagnostics, src.len());
    for d in parsed.diagnostics.iter().take(3) {
        let _ = affect_compiler::render::human(d, "fuzz.affect", &src, false);
    }
}

/// Any bytes: the whole checker (names, types, lowering) runs without panicking.
pub fn check(data: &[u8]) {
    let src = String::from_utf8_lossy(data);
    let analysis = affect_compiler::check_source_with(&src, &NoFiles);
    in_bounds(&analysis.diagnostics, src.len());
    if analysis.program.is_some() {
        assert!(
            !has_errors(&analysis.diagnostics),
            "a program was built from a text with errors"
        );
    }
}

/// Any bytes: a text that formats formats to a fixed point, and formatting keeps its tree.
pub fn format(data: &[u8]) {
    let src = String::from_utf8_lossy(data);
    let Ok(once) = fmt::format_source(&src) else {
        return;
    };
    let twice = fmt::format_source(&once).unwrap_or_else(|d| {
        panic!("the formatter's output does not parse: {d:?}\n{once}");
    });
    assert_eq!(twice, once, "formatting is not a fixed point");
    assert_eq!(
        syntax::debug_without_spans(&syntax::parse(&src).file),
        syntax::debug_without_spans(&syntax::parse(&once).file),
        "formatting changed the tree"
    );
}

/// Any bytes as Groot / BehaviorTree.CPP XML: the importer, the converter and, for what
/// imports cleanly, the parser and the exporter never panic, and an import parses.
pub fn import_xml(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let imported = groot::import_str(&text);
    in_bounds(&imported.diagnostics, text.len());
    if !imported.has_errors() {
        let affect = imported.text();
        let parsed = syntax::parse(&affect);
        assert!(
            !has_errors(&parsed.diagnostics),
            "an import does not parse:\n{affect}"
        );
        let _ = groot::export(&parsed.file, imported.dialect);
    }
    let _ = groot::convert(&text, Dialect::V4);
    let _ = groot::convert(&text, Dialect::V3);
}

/// Any bytes as a long-term memory file: read or refused, never a panic; what is read
/// writes back to the same memories.
pub fn memory_file(data: &[u8]) {
    use affect_runtime::affect::persist;
    if let Ok(memories) = persist::read(data) {
        let again = persist::read(persist::format(&memories).as_bytes())
            .unwrap_or_else(|e| panic!("a written memory file does not read back: {e}"));
        assert_eq!(again, memories);
    }
}

/// Any bytes as what an editor sends the language server: a whole session in memory
/// (`affect_lsp::serve_bytes`) never panics, and everything it answers is framed JSON-RPC
/// (a `Content-Length` header, then a JSON object with `"jsonrpc": "2.0"`), whatever the
/// framing, JSON or fields it was sent.
pub fn lsp_messages(data: &[u8]) {
    let out = affect_lsp::serve_bytes(data);
    let mut rest = &out[..];
    while !rest.is_empty() {
        let end = rest
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .unwrap_or_else(|| panic!("an answer without a header end: {rest:?}"));
        let header = std::str::from_utf8(&rest[..end]).expect("an ASCII header");
        let length: usize = header
            .strip_prefix("Content-Length: ")
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or_else(|| panic!("an answer's header is {header:?}"));
        let body = &rest[end + 4..end + 4 + length];
        let msg: serde_json::Value = serde_json::from_slice(body)
            .unwrap_or_else(|e| panic!("an answer is not JSON ({e}): {body:?}"));
        assert_eq!(msg["jsonrpc"], "2.0", "an answer is not JSON-RPC: {msg}");
        rest = &rest[end + 4 + length..];
    }
}
