//! A steady-state interpreter tick allocates nothing: a counting allocator watches ticks of a
//! tree of built-ins, scripts, conditions, decorators and a subtree, and of deep copies of
//! lists of lists (their inner lists are reused).

use affect_compiler::ir::program::{NodeKind, Status};
use affect_compiler::sema::NoFiles;
use affect_runtime::interp::Machine;
use affect_runtime::leaf::{LeafTable, StandIn};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

struct Counting;

static ON: AtomicBool = AtomicBool::new(false);
static ALLOCS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Set on the thread that ticks: the test harness's own threads allocate now and then
    /// (its bookkeeping), and those allocations are not the tick's.
    static TICKING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether an allocation now belongs to the ticks being watched.
fn watched() -> bool {
    ON.load(Ordering::Relaxed) && TICKING.with(|t| t.get())
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if watched() {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if watched() {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const PROGRAM: &str = r#"
action Work();
condition Ready();

tree Count(inout n: int) {
    do { n = n + 1 }
}

main tree Main {
    var x: num = 0.5;
    var n: int = 0;
    var flag: bool = false;
    var xs: [num] = [1, 2];
    var here: Point = (0m, 0m);
    var g: [[num]] = [[1], [2, 3]];
    var item: [num] = [];

    parallel(success: -1, failure: 1) {
        reactive_sequence {
            check x >= 0.0 or flag
            fallback {
                Ready() skip_if n > 1000000
                do { x = x * 0.5 + 1.0 }
            }
        }
        sequence {
            Count(n: n)
            do { xs = [x, 2.0, 3.0]; xs[1] = n; here = (x * 1m, 1m); xs = [4, 5] }
            do { g = [xs, [x, 1.0]]; g[1] = xs; g.push(xs); g = [g[2], g[0]]; here.x = 2m }
            for item in g { do { xs[0] = len(item) } }
            retry(3) { invert { fail } }
            repeat(2) { force_success { Work() } }
            switch n > 10 ? 1 : 0 {
                1 => do { flag = not flag }
                _ => succeed
            }
            Work() on_success { x = max(x, 0.25) } after { flag = x > 1.0 }
        }
        timeout(5s) { Work() }
    }
}
"#;

/// Both engines, one after the other (the counter is global, so never concurrently): the
/// interpreter, and JIT-compiled code on the same state.
#[test]
fn a_steady_state_tick_does_not_allocate() {
    steady_state(false);
    if affect_runtime::jit::supported().is_ok() {
        steady_state(true);
    }
}

fn steady_state(jit: bool) {
    let analysis = affect_compiler::check_source_with(PROGRAM, &NoFiles);
    let program = analysis
        .program
        .unwrap_or_else(|| panic!("{:?}", analysis.diagnostics));
    let agent = &program.agents[0];
    let mut leaves = LeafTable::new(agent.nodes.len());
    for (i, n) in agent.nodes.iter().enumerate() {
        if let NodeKind::Foreign { .. } = n.kind {
            leaves.set(i as u32, Box::new(StandIn::new(vec![Status::Success])));
        }
    }
    let mut m = Machine::new(&program, agent, leaves);
    if jit {
        m.compile_jit(&program)
            .expect("the JIT compiles the program");
    }
    // Warm up: every path of the tree has run once.
    for t in 0..20 {
        m.now_ms = t as f64 * 100.0;
        m.process();
        m.tick_tree();
        m.transitions.clear();
    }
    ALLOCS.store(0, Ordering::Relaxed);
    TICKING.with(|t| t.set(true));
    ON.store(true, Ordering::Relaxed);
    for t in 20..2000 {
        m.advance(t as f64 * 100.0, false);
        m.now_ms = t as f64 * 100.0;
        m.process();
        m.tick_tree();
        m.transitions.clear();
    }
    ON.store(false, Ordering::Relaxed);
    let n = ALLOCS.load(Ordering::Relaxed);
    assert_eq!(
        n, 0,
        "{n} allocations in 1980 steady-state ticks (jit: {jit})"
    );
    assert!(
        m.slots[agent.slots.iter().position(|s| s.name == "n").unwrap()] > 100.0,
        "the tree really ran"
    );
}
