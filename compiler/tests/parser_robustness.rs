//! The parser and formatter never panic: mutated versions of every example (characters
//! deleted and inserted, truncation, swapped lines, random bytes) must parse to a tree and
//! diagnostics. 10,000 variants by default; `AFFECT_FUZZ_CASES` changes the count.

use affect_compiler::fmt::format_source;
use affect_compiler::syntax::parse;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::path::Path;

fn corpus() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut texts = Vec::new();
    for dir in ["examples", "tests/fixtures/syntax/pass"] {
        if let Ok(entries) = std::fs::read_dir(root.join(dir)) {
            let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
            paths.sort();
            for p in paths {
                if p.extension().is_some_and(|x| x == "affect") {
                    texts.push(std::fs::read_to_string(p).unwrap());
                }
            }
        }
    }
    assert!(!texts.is_empty());
    texts
}

#[derive(Clone, Debug)]
enum Mutation {
    Delete { at: usize, len: usize },
    Insert { at: usize, text: String },
    Truncate { at: usize },
    SwapLines { a: usize, b: usize },
    RandomBytes { at: usize, bytes: Vec<u8> },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    // Insertions favour the language's own punctuation and keywords: they reach deeper
    // into the grammar than random letters.
    let snippets = prop::sample::select(vec![
        "{",
        "}",
        "(",
        ")",
        "[",
        "]",
        ";",
        ",",
        ":",
        "::",
        "..",
        "=>",
        "->",
        "=",
        "==",
        "\"",
        "/*",
        "*/",
        "///",
        "//",
        "#[",
        "@",
        "`",
        "0x",
        "9ms",
        "1e",
        "agent ",
        "tree ",
        "sequence ",
        "do ",
        "check ",
        "switch ",
        "skip_if ",
        "on_success ",
        "var ",
        "let ",
        "drive ",
        "memory ",
        "emotions ",
        "not ",
        "and ",
        "?",
        "\\",
        "\n",
        "é",
        "\u{0}",
    ]);
    prop_oneof![
        (any::<prop::sample::Index>(), 1usize..40).prop_map(|(i, len)| Mutation::Delete {
            at: i.index(usize::MAX),
            len
        }),
        (
            any::<prop::sample::Index>(),
            prop::collection::vec(snippets, 1..4)
        )
            .prop_map(|(i, s)| Mutation::Insert {
                at: i.index(usize::MAX),
                text: s.concat()
            }),
        any::<prop::sample::Index>().prop_map(|i| Mutation::Truncate {
            at: i.index(usize::MAX)
        }),
        (any::<prop::sample::Index>(), any::<prop::sample::Index>()).prop_map(|(a, b)| {
            Mutation::SwapLines {
                a: a.index(usize::MAX),
                b: b.index(usize::MAX),
            }
        }),
        (
            any::<prop::sample::Index>(),
            prop::collection::vec(any::<u8>(), 1..8)
        )
            .prop_map(|(i, bytes)| Mutation::RandomBytes {
                at: i.index(usize::MAX),
                bytes
            }),
    ]
}

fn boundary(s: &str, at: usize) -> usize {
    let mut i = at % (s.len() + 1);
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn apply(src: &str, m: &Mutation) -> String {
    match m {
        Mutation::Delete { at, len } => {
            let a = boundary(src, *at);
            let b = boundary(src, a + len);
            format!("{}{}", &src[..a], &src[b.max(a)..])
        }
        Mutation::Insert { at, text } => {
            let a = boundary(src, *at);
            format!("{}{}{}", &src[..a], text, &src[a..])
        }
        Mutation::Truncate { at } => src[..boundary(src, *at)].to_string(),
        Mutation::SwapLines { a, b } => {
            let mut lines: Vec<&str> = src.lines().collect();
            if !lines.is_empty() {
                let (i, j) = (a % lines.len(), b % lines.len());
                lines.swap(i, j);
            }
            lines.join("\n")
        }
        Mutation::RandomBytes { at, bytes } => {
            let a = boundary(src, *at);
            let junk = String::from_utf8_lossy(bytes);
            format!("{}{}{}", &src[..a], junk, &src[a..])
        }
    }
}

#[test]
fn mutated_examples_never_panic() {
    let texts = corpus();
    let cases = std::env::var("AFFECT_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (0..texts.len(), prop::collection::vec(mutation(), 1..4));
    runner
        .run(&strategy, |(which, mutations)| {
            let mut src = texts[which].clone();
            for m in &mutations {
                src = apply(&src, m);
            }
            let parsed = parse(&src);
            for d in &parsed.diagnostics {
                prop_assert!(!d.code.is_empty());
                prop_assert!(d.primary.span.end as usize <= src.len());
                prop_assert!(d.primary.span.start <= d.primary.span.end);
            }
            // A variant that still parses cleanly must format, and format stably.
            if let Ok(once) = format_source(&src) {
                let twice = format_source(&once);
                prop_assert!(
                    twice.as_deref() == Ok(once.as_str()),
                    "formatting is not stable"
                );
            }
            Ok(())
        })
        .unwrap();
}
