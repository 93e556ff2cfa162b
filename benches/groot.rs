//! Groot XML import and export speed: a generated 10,000-node tree (`affect gen-tree --size
//! 10000 --seed 1`, the tree BehaviorTree.CPP's own load time is measured on: `btcpp_oracle
//! bench` reports it as `create_ms`) and, when the public corpus is there (`AFFECT_CORPUS` or
//! `../shared/corpus`), its largest files. `benches/groot_vs_btcpp.sh` runs both and prints
//! them side by side.
//!
//!   cargo bench --bench groot

use affect_compiler::groot::{self, Dialect};
use affect_compiler::syntax;
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The generated tree.
fn generated(size: usize) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_affect"))
        .args(["gen-tree", "--size", &size.to_string(), "--seed", "1"])
        .output()
        .expect("affect gen-tree runs");
    assert!(out.status.success(), "affect gen-tree failed");
    String::from_utf8(out.stdout).expect("UTF-8 XML")
}

/// The largest corpus files with trees, and the largest model list.
fn corpus() -> Vec<(String, String)> {
    let dir = match std::env::var_os("AFFECT_CORPUS") {
        Some(d) => PathBuf::from(d),
        None => root().join("../shared/corpus"),
    };
    if !dir.join("index.jsonl").is_file() {
        eprintln!(
            "corpus benchmarks: did not run, because there is no corpus at {} (set AFFECT_CORPUS)",
            dir.display()
        );
        return Vec::new();
    }
    let index = std::fs::read_to_string(dir.join("index.jsonl")).expect("the corpus index");
    let mut rows: Vec<serde_json::Value> = index
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    rows.sort_by_key(|r| std::cmp::Reverse(r["bytes"].as_u64().unwrap_or(0)));
    let mut out = Vec::new();
    let with_trees = rows
        .iter()
        .filter(|r| r["trees"].as_u64().unwrap_or(0) > 0)
        .take(2);
    let model_only = rows
        .iter()
        .filter(|r| r["trees"].as_u64().unwrap_or(0) == 0)
        .take(1);
    for r in with_trees.chain(model_only) {
        let path = r["corpus_path"].as_str().unwrap();
        let name = path
            .rsplit('/')
            .next()
            .unwrap()
            .trim_end_matches(".xml")
            .to_string();
        let name = format!("{}/{name}", path.split('/').next().unwrap());
        out.push((name, std::fs::read_to_string(dir.join(path)).unwrap()));
    }
    out
}

fn bench(c: &mut Criterion) {
    let mut inputs = corpus();
    inputs.push(("gen-tree-10000".into(), generated(10_000)));
    for (name, xml) in &inputs {
        let imported = groot::import_str(xml);
        assert!(!imported.has_errors(), "{name} does not import");
        let text = imported.text();
        let file = syntax::parse(&text).file;
        let dialect = imported.dialect;

        let mut g = c.benchmark_group(name.as_str());
        g.sample_size(20);
        g.bench_function("import (XML to syntax tree)", |b| {
            b.iter(|| groot::import_str(black_box(xml)))
        });
        g.bench_function("import and print .affect", |b| {
            b.iter(|| groot::import_str(black_box(xml)).text())
        });
        g.bench_function("export (syntax tree to XML)", |b| {
            b.iter(|| groot::export(black_box(&file), dialect))
        });
        g.bench_function("parse .affect and export", |b| {
            b.iter(|| groot::export(&syntax::parse(black_box(&text)).file, Dialect::V4))
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
