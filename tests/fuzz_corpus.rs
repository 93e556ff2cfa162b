//! The committed fuzz corpora (`fuzz/corpus/`), replayed through the fuzz targets' own
//! assertions (`fuzz/src/lib.rs`, included here) on the stable toolchain: every input a fuzzer
//! ever found, and every seed, must pass. `scripts/fuzz.sh` adds findings to the corpora.

#[path = "../fuzz/src/lib.rs"]
#[allow(dead_code)]
mod targets;

use std::path::Path;

/// As `affect` itself runs: the phases recurse up to the parser's depth limit.
const STACK_BYTES: usize = 256 * 1024 * 1024;

fn replay(name: &str, dir: &str, target: fn(&[u8])) -> Vec<String> {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(dir);
    let mut entries: Vec<_> = std::fs::read_dir(&corpus)
        .unwrap_or_else(|e| panic!("{}: {e}", corpus.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    assert!(
        entries.len() >= 5,
        "{}: only {} entries",
        corpus.display(),
        entries.len()
    );
    let mut failed = Vec::new();
    for path in entries {
        let data = std::fs::read(&path).unwrap();
        if std::panic::catch_unwind(|| target(&data)).is_err() {
            failed.push(format!("{name}: {}", path.display()));
        }
    }
    failed
}

#[test]
fn every_corpus_entry_passes_its_targets() {
    let failed: Vec<String> = std::thread::Builder::new()
        .stack_size(STACK_BYTES)
        .spawn(|| {
            targets::TARGETS
                .iter()
                .flat_map(|&(name, dir, target)| replay(name, dir, target))
                .collect()
        })
        .unwrap()
        .join()
        .unwrap();
    assert!(
        failed.is_empty(),
        "{} corpus entries fail (the panics are printed above):\n{}",
        failed.len(),
        failed.join("\n")
    );
}
