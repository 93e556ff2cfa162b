//! Time and memory of every hostile-input class of issue 11 at 1,000, 10,000 and 100,000:
//! nesting depth, stray closers, long programs, declarations, dependency chains, long tokens,
//! wide nodes in the interpreter and in the JIT (compiled, then ticked), trees checked and exported, calls with many ports checked
//! and exported, XML elements with many attributes imported, memory files, and files with an
//! error in each of thousands of small trees (`many_errors`). Each case does what the command does
//! (check, then render the diagnostics it would print), so the numbers are the command's.
//!
//!   cargo bench --bench hostile
//!
//! First a table of each case's peak heap (a counting allocator) and one run's time, then
//! criterion's timings. Both should grow linearly with the size; docs/reliability.md quotes
//! them.

use affect_compiler::diagnostic::{self, MAX_PER_FILE};
use affect_compiler::groot::{self, Dialect};
use affect_compiler::render::Renderer;
use affect_compiler::sema::NoFiles;
use affect_runtime::bench::Engine;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// The system allocator, counting the bytes in use and their peak.
struct Counting;

static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = IN_USE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const SIZES: [usize; 3] = [1_000, 10_000, 100_000];

/// `affect check` of a text: every phase, then the diagnostics it prints.
fn check(src: &str) -> usize {
    let analysis = affect_compiler::check_source_with(src, &NoFiles);
    let r = Renderer::new("bench.affect", src, false);
    let shown = diagnostic::pick(&analysis.diagnostics, MAX_PER_FILE);
    shown.iter().map(|d| r.render(d).len()).sum::<usize>() + analysis.diagnostics.len()
}

fn sequences(n: usize) -> String {
    format!(
        "agent A {{\n    main {{\n{}succeed{}\n    }}\n}}\n",
        "sequence { ".repeat(n),
        " }".repeat(n)
    )
}

fn not_chain(n: usize) -> String {
    format!("const C = {}true;\n", "not ".repeat(n))
}

fn closers(n: usize) -> String {
    format!("tree T() {{\n    succeed\n}}\n{}\n", "}".repeat(n))
}

/// A valid program of `n` lines (about 17 lines per unit).
fn long_program(n: usize) -> String {
    let units = n / 17;
    let mut s = String::new();
    for i in 0..units {
        s.push_str(&format!(
            "enum Mode{i} {{ Idle, Busy }}\nconst LIMIT{i} = {i} + 10;\naction Work{i}(in amount: num);\ntree Task{i}(in level: num) {{\n    var mode: Mode{i} = Idle;\n    sequence {{\n        check level < LIMIT{i}\n        Work{i}(amount: level * 2)\n        do {{ mode = Busy }}\n    }}\n}}\n"
        ));
    }
    s.push_str("agent Robot {\n    var level: num = 1;\n    main {\n        sequence {\n");
    for i in 0..units {
        s.push_str(&format!("            Task{i}(level: level)\n"));
    }
    s.push_str("        }\n    }\n}\n");
    s
}

fn declarations(n: usize) -> String {
    (0..n).map(|i| format!("action Step{i}();\n")).collect()
}

fn const_chain(n: usize) -> String {
    std::iter::once("const C0 = 1;\n".to_string())
        .chain((1..n).map(|i| format!("const C{i} = C{} + 1;\n", i - 1)))
        .collect()
}

fn tree_chain(n: usize) -> String {
    let mut s: String = (0..n)
        .map(|i| format!("tree T{i}() {{ T{}() }}\n", i + 1))
        .collect();
    s.push_str(&format!(
        "tree T{n}() {{ succeed }}\nagent A {{ main {{ T0() }} }}\n"
    ));
    s
}

fn long_token(n: usize) -> String {
    format!("tree {}() {{\n    succeed\n}}\n", "n".repeat(n))
}

fn wide(n: usize) -> String {
    let mut s = String::from("agent A {\n    var x = 0;\n    main {\n        sequence {\n");
    for _ in 0..n {
        s.push_str("            do { x = x + 1 }\n");
    }
    s.push_str("        }\n    }\n}\n");
    s
}

/// Checks the wide program and ticks it in the interpreter 10 times.
fn run_wide(src: &str) -> usize {
    let program = affect_compiler::check_source_with(src, &NoFiles)
        .program
        .expect("the wide program checks");
    let mut m = affect_runtime::bench::interpreter(&program, &program.agents[0]);
    for _ in 0..10 {
        m.tick();
    }
    program.agents[0].nodes.len()
}

/// Checks the wide program, compiles it with the JIT and ticks it 10 times. (The peak heap
/// leaves out the executable pages Cranelift maps for the code: about 100 bytes a node.)
fn run_wide_jit(src: &str) -> usize {
    let program = affect_compiler::check_source_with(src, &NoFiles)
        .program
        .expect("the wide program checks");
    jit_ticks(&program)
}

/// Compiles a checked program with the JIT and ticks it 10 times.
fn jit_ticks(program: &affect_compiler::ir::program::Program) -> usize {
    let mut m = affect_runtime::bench::interpreter(program, &program.agents[0]);
    m.compile_jit(program)
        .expect("the JIT compiles a wide node");
    for _ in 0..10 {
        m.tick();
    }
    program.agents[0].nodes.len()
}

fn memory_file(n: usize) -> Vec<u8> {
    use affect_runtime::affect::persist::{format, Stored};
    let m = Stored {
        name: "feelings".into(),
        traces: (0..n).map(|i| (format!("place{i}"), 50.0, 20.0)).collect(),
        links: (1..n)
            .map(|i| (format!("place{}", i - 1), format!("place{i}")))
            .collect(),
    };
    format(&[m]).into_bytes()
}

/// `affect build --emit groot`: check, then export with the files it uses.
fn export(src: &str) -> usize {
    let checked = affect_compiler::check_text(src, &NoFiles);
    let program = groot::export_program(&checked.file, Dialect::V4, &NoFiles);
    program.main.xml.len() + checked.analysis.diagnostics.len()
}

/// `affect import`: XML to the `.affect` text.
fn import(xml: &str) -> usize {
    groot::import_str(xml).text().len()
}

/// An action with `n` ports called with every one (the exporter writes `n` attributes).
fn ports(n: usize) -> String {
    let ports: Vec<String> = (0..n).map(|i| format!("in p{i}: num")).collect();
    let args: Vec<String> = (0..n).map(|i| format!("p{i}: {i}")).collect();
    format!(
        "action Wide({});\nmain tree Main {{\n    Wide({})\n}}\n",
        ports.join(", "),
        args.join(", ")
    )
}

/// `n` trees, each called from `main`.
fn trees(n: usize) -> String {
    let mut s: String = (0..n)
        .map(|i| format!("tree T{i}() {{\n    succeed\n}}\n"))
        .collect();
    s.push_str("main tree Main {\n    sequence {\n");
    s.extend((0..n).map(|i| format!("        T{i}()\n")));
    s.push_str("    }\n}\n");
    s
}

/// One element with `n` attributes.
fn xml_attributes(n: usize) -> String {
    let attrs: String = (0..n).map(|i| format!(" p{i}=\"{i}\"")).collect();
    format!(
        "<root BTCPP_format=\"4\"><BehaviorTree ID=\"Main\"><Wide{attrs}/></BehaviorTree></root>"
    )
}

/// `n` small trees after one action, each calling it once: with `broken`, each call is a
/// syntax error (`reached: _`), one per tree.
fn small_trees(n: usize, broken: bool) -> String {
    let value = if broken { "_" } else { "true" };
    let mut s = String::from("action Go(in reached: bool);\n\n");
    for i in 0..n {
        s.push_str(&format!("tree T{i}() {{\n    Go(reached: {value})\n}}\n"));
    }
    s
}

/// `affect check --format json`: every phase, then every diagnostic as JSON (that form
/// reports them all).
fn check_json(src: &str) -> usize {
    let analysis = affect_compiler::check_source_with(src, &NoFiles);
    let lines = affect_compiler::span::LineIndex::new(src);
    analysis
        .diagnostics
        .iter()
        .map(|d| {
            affect_compiler::render::json(d, "bench.affect", src, &lines)
                .to_string()
                .len()
        })
        .sum()
}

/// The sizes of the many-errors case: the 2,000 errors, and twice as many.
const ERRORS: [usize; 2] = [2_000, 4_000];

type Case = (&'static str, fn(usize) -> String, fn(&str) -> usize);

const CASES: &[Case] = &[
    ("depth/sequence", sequences, check),
    ("depth/not", not_chain, check),
    ("closers", closers, check),
    ("long_program_lines", long_program, check),
    ("declarations", declarations, check),
    ("chain/const", const_chain, check),
    ("chain/tree_calls", tree_chain, check),
    ("token_bytes", long_token, check),
    ("wide_node_interp", wide, run_wide),
    ("wide_node_jit", wide, run_wide_jit),
    ("trees_check", trees, check),
    ("trees_export", trees, export),
    ("ports_check", ports, check),
    ("ports_export", ports, export),
    ("xml_attributes_import", xml_attributes, import),
];

fn read_memory(bytes: &[u8]) -> usize {
    affect_runtime::affect::persist::read(bytes)
        .expect("a valid file")
        .len()
}

/// The benchmark filter given on the command line (`cargo bench --bench hostile -- NAME`):
/// the table measures only the cases whose name holds it, as criterion does.
fn wanted(name: &str) -> bool {
    std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .is_none_or(|f| name.contains(&f))
}

/// One run of each case: its time and peak heap, as a table on standard error.
fn table() {
    eprintln!(
        "{:<22} {:>8} {:>10} {:>10}",
        "case", "size", "ms", "peak MB"
    );
    let row = |name: &str, n: usize, f: &mut dyn FnMut() -> usize| {
        if !wanted(name) {
            return;
        }
        let base = IN_USE.load(Ordering::Relaxed);
        PEAK.store(base, Ordering::Relaxed);
        let t = Instant::now();
        black_box(f());
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let peak = (PEAK.load(Ordering::Relaxed) - base) as f64 / (1024.0 * 1024.0);
        eprintln!("{name:<22} {n:>8} {ms:>10.1} {peak:>10.1}");
    };
    for &(name, make, f) in CASES {
        for n in SIZES {
            let src = make(n);
            row(name, n, &mut || f(&src));
        }
    }
    for n in SIZES {
        let bytes = memory_file(n);
        row("memory_file_traces", n, &mut || read_memory(&bytes));
    }
    for n in ERRORS {
        let (broken, fixed) = (small_trees(n, true), small_trees(n, false));
        row("many_errors/broken", n, &mut || check_json(&broken));
        row("many_errors/fixed", n, &mut || check_json(&fixed));
    }
    // The JIT's own share of `wide_node_jit`: compiling and ticking a checked program.
    for n in SIZES.into_iter().filter(|_| wanted("wide_node_jit_only")) {
        let program = affect_compiler::check_source_with(&wide(n), &NoFiles)
            .program
            .expect("the wide program checks");
        row("wide_node_jit_only", n, &mut || jit_ticks(&program));
    }
}

fn hostile(c: &mut Criterion) {
    table();
    let mut group = c.benchmark_group("hostile");
    group.sample_size(10);
    for &(name, make, f) in CASES {
        for n in SIZES {
            let src = make(n);
            group.bench_function(BenchmarkId::new(name, n), |b| b.iter(|| f(black_box(&src))));
        }
    }
    for n in SIZES {
        let bytes = memory_file(n);
        group.bench_function(BenchmarkId::new("memory_file_traces", n), |b| {
            b.iter(|| read_memory(black_box(&bytes)))
        });
    }
    group.finish();
    // Recovery costs time linear in the file whatever the number of errors: a file with an
    // error in each of its 2,000 trees is checked in at most twice the time of the same
    // file without them, and 4,000 errors take at most 2.2 times as long as 2,000.
    let mut group = c.benchmark_group("many_errors");
    group.sample_size(10);
    for n in ERRORS {
        for (name, broken) in [("broken", true), ("fixed", false)] {
            let src = small_trees(n, broken);
            group.bench_function(BenchmarkId::new(name, n), |b| {
                b.iter(|| check_json(black_box(&src)))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, hostile);
criterion_main!(benches);
