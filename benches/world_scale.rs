//! Time per robot per tick of a simulated world as the team grows: seed 002's minefield
//! (`examples/recruitment.affect`) with 100, 1,000 and 10,000 idle UGVs, its UAV recruiting
//! as it scans. The run's schedule and the world's per-step work must stay linear in robots,
//! so the time per robot-tick (criterion's throughput in elements) should hold within a
//! factor of 2 from 100 to 10,000 robots.
//!
//!   cargo bench --bench world_scale

use affect_compiler::ir::program::Program;
use affect_compiler::sema::NoFiles;
use affect_runtime::run::{self, RunConfig};
use affect_runtime::trace::NoTrace;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

/// Ticks per run: enough for the UAV's first HELP broadcasts to reach every UGV.
const TICKS: u64 = 80;

fn program(robots: usize) -> Program {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/recruitment.affect");
    let src = std::fs::read_to_string(path).expect("the example");
    let spawn = "spawn UGV count 10 at random;";
    assert!(
        src.contains(spawn),
        "the example spawns its idle UGVs in one line"
    );
    let src = src.replace(spawn, &format!("spawn UGV count {robots} at random;"));
    affect_compiler::check_source_with(&src, &NoFiles)
        .program
        .expect("the example checks")
}

fn scale(c: &mut Criterion) {
    let mut group = c.benchmark_group("world_scale");
    group.sample_size(10);
    for robots in [100usize, 1_000, 10_000] {
        let program = program(robots);
        let config = RunConfig {
            ticks: TICKS,
            seed: 66,
            ..RunConfig::default()
        };
        // Robot-ticks: every instance (the idle UGVs, two tasked ones and the UAV) ticks once
        // a second.
        group.throughput(Throughput::Elements((robots as u64 + 3) * TICKS));
        group.bench_with_input(BenchmarkId::from_parameter(robots), &robots, |b, _| {
            b.iter(|| run::run(&program, &config, &mut NoTrace, |_| {}).expect("runs"))
        });
    }
    group.finish();
}

criterion_group!(benches, scale);
criterion_main!(benches);
