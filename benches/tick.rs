//! Tick speed of the interpreter and the JIT on BehaviorTree.CPP's benchmark trees
//! (`affect gen-tree --size N --seed 1`, imported from XML), with the blackboard preset as
//! `--bb-args` gives it; and the time to compile each tree (check and
//! lower, then JIT). Throughput is in node ticks: every node of these trees ticks once per
//! root tick. `scripts/compare.py` compares the same trees with BehaviorTree.CPP and
//! py_trees.
//!
//!   cargo bench --bench tick

use affect_compiler::ir::program::Program;
use affect_compiler::sema::NoFiles;
use affect_runtime::bench::{self, Engine};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::process::Command;

fn treegen(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_affect"))
        .arg("gen-tree")
        .args(args)
        .output()
        .expect("affect gen-tree runs");
    assert!(out.status.success(), "affect gen-tree failed");
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// The tree as affect source, and its initial blackboard (`--bb-args`).
fn tree(size: usize) -> (String, Vec<(String, f64)>) {
    let n = size.to_string();
    let xml = treegen(&["--size", &n, "--seed", "1"]);
    let args = treegen(&["--size", &n, "--seed", "1", "--bb-args"]);
    let bb = args
        .split_whitespace()
        .filter(|a| *a != "--bb")
        .filter_map(|kv| {
            let (k, v) = kv.split_once('=')?;
            Some((k.to_string(), v.parse().ok()?))
        })
        .collect();
    let imported = affect_compiler::groot::import_str(&xml);
    (imported.text(), bb)
}

fn check(source: &str) -> Program {
    affect_compiler::check_source_with(source, &NoFiles)
        .program
        .expect("the imported tree checks")
}

fn machine<'p>(
    program: &'p Program,
    bb: &[(String, f64)],
    jit: bool,
) -> affect_runtime::interp::Machine<'p> {
    let agent = &program.agents[0];
    let mut m = bench::interpreter(program, agent);
    if jit {
        m.compile_jit(program).expect("the JIT compiles the tree");
    }
    for (k, v) in bb {
        if let Some(i) = agent
            .slots
            .iter()
            .position(|s| s.scope == 0 && s.name == *k)
        {
            m.set_slot(i, *v);
        }
    }
    m
}

fn ticks(c: &mut Criterion) {
    let mut group = c.benchmark_group("tick");
    for size in [100usize, 1000, 10_000] {
        let (source, bb) = tree(size);
        let program = check(&source);
        group.throughput(Throughput::Elements(size as u64));
        for (name, jit) in [("interp", false), ("jit", true)] {
            let mut m = machine(&program, &bb, jit);
            group.bench_function(BenchmarkId::new(name, size), |b| {
                b.iter(|| {
                    m.tick();
                })
            });
        }
    }
    group.finish();
}

fn compile(c: &mut Criterion) {
    let mut group = c.benchmark_group("compile");
    group.sample_size(10);
    for size in [1000usize, 10_000] {
        let (source, _) = tree(size);
        group.bench_function(BenchmarkId::new("check+lower", size), |b| {
            b.iter(|| black_box(check(black_box(&source))))
        });
        let program = check(&source);
        group.bench_function(BenchmarkId::new("jit", size), |b| {
            b.iter(|| {
                affect_runtime::jit::compile_with(&program, &program.agents[0], false)
                    .expect("compiles")
            })
        });
    }
    group.finish();
}

criterion_group!(benches, ticks, compile);
criterion_main!(benches);
