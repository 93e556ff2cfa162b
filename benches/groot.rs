//! Groot XML import and export speed: a generated 10,000-node tree (`affect gen-tree --size
//! 10000 --seed 1`, the tree BehaviorTree.CPP's own load time is measured on: `btcpp_oracle
//! bench` reports it as `create_ms`) and, when the public corpus is there (`AFFECT_CORPUS` or
//! `../shared/corpus`), its largest files. `benches/groot_vs_btcpp.sh` runs both and prints
//! them side by side.
//!
//!   cargo bench --bench groot

#[path = "../tests/support/mod.rs"]
mod support;

use affect_compiler::groot::{self, Dialect};
use affect_compiler::syntax;
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use std::process::Command;

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
    let Some(dir) = support::corpus_if_present() else {
        eprintln!(
            "corpus benchmarks: did not run, because there is no corpus at {} (set AFFECT_CORPUS)",
            support::corpus_location().display()
        );
        return Vec::new();
    };
    let mut rows = support::corpus_index(&dir);
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

/// The hostile sizes of issue 11, each at 1k, 10k and 100k (200k attributes, 50k
/// declarations): an element with N attributes imported, a script nested N deep refused
/// (E0406), and a program of N declarations exported. Linear time shows as 10x per row.
fn limits(c: &mut Criterion) {
    let tree = |body: &str| {
        format!(r#"<root BTCPP_format="4"><BehaviorTree ID="Main">{body}</BehaviorTree></root>"#)
    };
    let mut g = c.benchmark_group("limits");
    g.sample_size(10);
    for n in [1_000usize, 10_000, 100_000, 200_000] {
        let attrs: String = (0..n).map(|i| format!(r#" p{i}="{i}""#)).collect();
        let xml = tree(&format!("<Wide{attrs}/>"));
        g.bench_function(format!("import an element with {n} attributes"), |b| {
            b.iter(|| groot::import_str(black_box(&xml)))
        });
    }
    for n in [1_000usize, 10_000, 100_000] {
        let code = format!("x := {}1{}", "(".repeat(n), ")".repeat(n));
        let xml = tree(&format!(r#"<Script code="{code}"/>"#));
        g.bench_function(format!("refuse a script nested {n} deep"), |b| {
            b.iter(|| groot::import_str(black_box(&xml)))
        });
        let xml = tree(&("<Sequence>".repeat(n) + "<AlwaysSuccess/>" + &"</Sequence>".repeat(n)));
        g.bench_function(format!("refuse elements nested {n} deep"), |b| {
            b.iter(|| groot::import_str(black_box(&xml)))
        });
    }
    for n in [1_000usize, 10_000, 50_000] {
        let mut src: String = (0..n)
            .map(|i| format!("action A{i}(in x: num);\n"))
            .collect();
        src.push_str("main tree Main {\n    sequence {\n");
        for i in (0..n).step_by(100) {
            src.push_str(&format!("        A{i}(x: 1)\n"));
        }
        src.push_str("    }\n}\n");
        let file = syntax::parse(&src).file;
        g.bench_function(format!("export {n} declarations"), |b| {
            b.iter(|| groot::export(black_box(&file), Dialect::V4))
        });
    }
    g.finish();
}

criterion_group!(benches, bench, limits);
criterion_main!(benches);
