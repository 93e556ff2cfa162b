//! Groot XML import and export speed: the largest corpus files and a generated 10,000-node
//! tree (`shared/tools/btcpp/treegen.py --size 10000 --seed 1`, the tree BehaviorTree.CPP's
//! own load time is measured on: `btcpp_oracle bench` reports it as `create_ms`).
//! `benches/groot_vs_btcpp.sh` runs both and prints them side by side.
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

/// The generated tree, made once (needs python3, as the kit does).
fn generated(size: usize) -> Option<String> {
    let out = Command::new("python3")
        .arg(root().join("../shared/tools/btcpp/treegen.py"))
        .args(["--size", &size.to_string(), "--seed", "1"])
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The largest corpus files with trees, and the largest model list.
fn corpus() -> Vec<(String, String)> {
    let dir = root().join("../shared/corpus");
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
    match generated(10_000) {
        Some(xml) => inputs.push(("treegen-10000".into(), xml)),
        None => eprintln!("python3 or treegen.py not found: the 10,000-node tree is skipped"),
    }
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
