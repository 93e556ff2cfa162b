//! `affect bench FILE`: times ticks of the program's first agent (or main tree) and prints
//! one JSON object. FILE may be `.affect` or Groot / BehaviorTree.CPP XML (imported first).

use super::report::Reporter;
use super::xml_in::{self, XmlProgram};
use super::{FAILED, OK, USAGE};
use crate::{files, Format};
use affect_compiler::sema::Analysis;
use affect_runtime::bench::{self, Engine};
use affect_runtime::jit;
use clap::ValueEnum;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EngineKind {
    /// The interpreter from the first tick while the JIT compiles in the background, then
    /// the JIT from the tick boundary after its code is ready (the results are the same).
    Tiered,
    /// Native code through Cranelift (x86_64, aarch64), compiled before the first tick; the
    /// interpreter where it cannot run.
    Jit,
    /// The interpreter (the reference semantics).
    Interp,
}

impl EngineKind {
    pub fn runtime(self) -> affect_runtime::jit::EngineKind {
        match self {
            EngineKind::Tiered => affect_runtime::jit::EngineKind::Tiered,
            EngineKind::Jit => affect_runtime::jit::EngineKind::Jit,
            EngineKind::Interp => affect_runtime::jit::EngineKind::Interp,
        }
    }
}

#[derive(clap::Args)]
pub struct BenchArgs {
    /// The program (`.affect`, or `.xml` to import first).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Which engine ticks the program.
    #[arg(long, value_enum, default_value_t = EngineKind::Tiered)]
    pub engine: EngineKind,
    /// Compile every time: neither read nor write the code cache (docs/performance.md).
    #[arg(long)]
    pub no_code_cache: bool,
    /// Ticks per repeat.
    #[arg(long, default_value_t = 2000)]
    pub ticks: u64,
    /// Timed repeats (the statistics are over these).
    #[arg(long, default_value_t = 7)]
    pub repeats: u32,
    /// Set a root-blackboard variable first.
    #[arg(long = "bb", value_name = "KEY=VALUE")]
    pub bb: Vec<String>,
    /// After the timed run, start the program N more times in this process (read, check,
    /// tiered engine, first tick; no code cache) and report those first ticks as
    /// `restart_first_tick_ms`: what a hot reload or a test suite that starts many programs
    /// waits, with the code and allocator already warm.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub starts: u32,
}

/// The program, checked, with the milliseconds its import and its check took.
struct Loaded {
    program: affect_compiler::ir::program::Program,
    import_ms: f64,
    check_ms: f64,
    spent: Spent,
}

/// What the front end made besides the program: the text, the syntax tree (parsed, or the
/// import's), the checker's index and diagnostics. The first tick needs none of it; freeing
/// it (tens of thousands of small blocks at 10,000 nodes) waits until after the ticks.
struct Spent {
    _text: Option<String>,
    _syntax: Option<affect_compiler::syntax::ast::File>,
    _imported: Option<XmlProgram>,
    _analysis: Analysis,
}

/// Reads, imports (XML) and checks the file; `Err` is the exit status, the problem told.
fn load(args: &BenchArgs, t0: Instant) -> Result<Loaded, u8> {
    let text = files::read_source(&args.file).map_err(|e| {
        super::report::unreadable(&args.file, &e);
        USAGE
    })?;
    let name = args.file.display().to_string();
    let failed = |name: &str, text: &str, diags: &[affect_compiler::Diagnostic]| {
        let mut r = Reporter::new(Format::Human);
        r.add(name, text, diags);
        r.finish(1);
        FAILED
    };
    if xml_in::is_xml(&args.file) {
        // Imported XML is checked as the syntax tree the import made (`xml_in`), without
        // printing and parsing `.affect` text again; diagnostics are shown in the XML.
        let program = XmlProgram::import(&args.file, text);
        let import_ms = t0.elapsed().as_secs_f64() * 1000.0;
        let t1 = Instant::now();
        let Some(mut analysis) = program.check() else {
            let mut r = Reporter::new(Format::Human);
            for (file, text, diags) in program.import_diagnostics() {
                r.add(&file, &text, &diags);
            }
            r.finish(1);
            return Err(FAILED);
        };
        let Some(program_ir) = analysis.program.take() else {
            return Err(failed(&name, &program.text, &analysis.diagnostics));
        };
        return Ok(Loaded {
            program: program_ir,
            import_ms,
            check_ms: t1.elapsed().as_secs_f64() * 1000.0,
            spent: Spent {
                _text: None,
                _syntax: None,
                _imported: Some(program),
                _analysis: analysis,
            },
        });
    }
    let import_ms = t0.elapsed().as_secs_f64() * 1000.0;
    let t1 = Instant::now();
    let loader = files::FileLoader::beside(&args.file);
    let mut checked = affect_compiler::check_text(&text, &loader);
    let Some(program) = checked.analysis.program.take() else {
        return Err(failed(&name, &text, &checked.analysis.diagnostics));
    };
    let affect_compiler::Checked { file, analysis, .. } = checked;
    Ok(Loaded {
        program,
        import_ms,
        check_ms: t1.elapsed().as_secs_f64() * 1000.0,
        spent: Spent {
            _text: Some(text),
            _syntax: Some(file),
            _imported: None,
            _analysis: analysis,
        },
    })
}

pub fn run(args: &BenchArgs) -> u8 {
    // `first_tick_ms` counts from here: reading the file to the end of the first tick.
    let t0 = Instant::now();
    let Loaded {
        program,
        import_ms,
        check_ms,
        spent,
    } = match load(args, t0) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let name = args.file.display().to_string();
    let Some(agent) = program.agents.first() else {
        eprintln!("error: `{name}` has no agent and no main tree to benchmark");
        return FAILED;
    };
    let Some(k) = program.agents.iter().position(|a| std::ptr::eq(a, agent)) else {
        return FAILED;
    };
    let program = std::sync::Arc::new(program);
    let agent = &program.agents[k];
    let cache = if args.no_code_cache {
        None
    } else {
        affect_runtime::jit::cache_dir()
    };
    let t2 = Instant::now();
    let mut fallback = None;
    let mut jit_stats = None;
    let mut cache_said = None;
    let mut engine: Box<dyn Engine> = match args.engine {
        EngineKind::Tiered => Box::new(bench::Tiered::new(&program, k, cache)),
        EngineKind::Interp => Box::new(bench::interpreter(&program, agent)),
        EngineKind::Jit => {
            let mut machine = bench::interpreter(&program, agent);
            let (code, said) = jit::compile_cached(&program, agent, machine.record, cache);
            cache_said = said;
            match code.and_then(|c| {
                let c = std::rc::Rc::new(c);
                machine.install_jit(c.clone()).map(|_| c)
            }) {
                Ok(code) => jit_stats = Some(code.stats),
                Err(e) => {
                    eprintln!("warning: the JIT is not available ({e}); running the interpreter");
                    fallback = Some(e.to_string());
                }
            }
            Box::new(machine)
        }
    };
    let jit_ms = t2.elapsed().as_secs_f64() * 1000.0;
    // What the targets compare with BehaviorTree.CPP's XML load: check + lower (+ JIT).
    let compile_ms = check_ms + jit_ms;
    let ms = |x: f64| (x * 1000.0).round() / 1000.0;
    if let Err(code) = set_bb(&mut *engine, &program, agent, &args.bb) {
        return code;
    }
    let r = bench::measure(&mut *engine, agent, args.ticks, args.repeats);
    drop(spent);
    let first_tick_ms = (r.first_tick_done - t0).as_secs_f64() * 1000.0;
    let mut jit_ready_ms =
        (args.engine == EngineKind::Jit && fallback.is_none()).then_some(first_tick_ms);
    let mut engine_name = if jit_stats.is_some() { "jit" } else { "interp" };
    if let Some(t) = engine.tier_report() {
        jit_ready_ms = t.ready_at.map(|at| (at - t0).as_secs_f64() * 1000.0);
        jit_stats = t.stats;
        cache_said = t.cache;
        fallback = t.fallback;
        if t.ready_at.is_some() {
            engine_name = "jit";
        }
    }
    drop(engine);
    let restarts = match restarts(args, k) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let bb: serde_json::Map<String, serde_json::Value> = r
        .blackboard
        .iter()
        .map(|(k, v)| (k.clone(), serde_json::json!(v)))
        .collect();
    let out = serde_json::json!({
        "engine": engine_name,
        "tiered": args.engine == EngineKind::Tiered,
        "first_tick_ms": ms(first_tick_ms),
        "restart_first_tick_ms": restarts.map(|s| s.json()),
        "jit_ready_ms": jit_ready_ms.map(ms),
        "code_cache": cache_said,
        "fallback": fallback,
        "import_ms": ms(import_ms),
        "check_ms": ms(check_ms),
        "jit_ms": ms(jit_ms),
        "code_bytes": jit_stats.map(|s| s.code_bytes),
        "functions": jit_stats.map(|s| s.functions),
        "total_ticks": r.ticks,
        "file": name,
        "nodes": r.nodes,
        "node_ticks_per_tick": r.node_ticks_per_tick,
        "ticks": r.ticks,
        "compile_ms": (compile_ms * 1000.0).round() / 1000.0,
        "state_bytes": r.state_bytes,
        "state_bytes_per_node": (r.state_bytes as f64 / r.nodes.max(1) as f64 * 10.0).round() / 10.0,
        "ns_per_tick": r.ns_per_tick.json(),
        "ns_per_node": r.ns_per_node.json(),
        "blackboard": bb,
    });
    println!("{out}");
    OK
}

/// Sets the root-blackboard variables of `--bb KEY=VALUE`, each read as `affect run` reads it
/// (`ir::value::parse_text`: `wait=10s` is 10,000 ms); `Err` is the exit status, the problem
/// told.
fn set_bb(
    engine: &mut dyn Engine,
    program: &affect_compiler::ir::program::Program,
    agent: &affect_compiler::ir::program::AgentProgram,
    bb: &[String],
) -> Result<(), u8> {
    for b in bb {
        let Some((k, v)) = b.split_once('=') else {
            eprintln!("error: --bb takes KEY=VALUE, got `{b}`");
            return Err(USAGE);
        };
        let Some(i) = agent.slots.iter().position(|s| s.scope == 0 && s.name == k) else {
            eprintln!("error: --bb {k}: no such variable");
            return Err(USAGE);
        };
        let slot = &agent.slots[i];
        let x = match affect_compiler::ir::value::parse_text(
            program, &slot.name, slot.kind, slot.any, v,
        ) {
            Ok(x) => x,
            Err(e) => {
                eprintln!("error: --bb {k}={v}: {e}");
                return Err(USAGE);
            }
        };
        engine.set_slot(i, x);
    }
    Ok(())
}

/// `--starts N`: N more starts of agent `k` in this process, each timed like `first_tick_ms`
/// (reading the file to the end of the first tick, tiered engine) but without the code
/// cache. Between starts, untimed, the start's compiler thread finishes, so each start
/// begins with no compile running beside it. `None` without `--starts`.
fn restarts(args: &BenchArgs, k: usize) -> Result<Option<bench::Stats>, u8> {
    if args.starts == 0 {
        return Ok(None);
    }
    let mut ms = Vec::with_capacity(args.starts as usize);
    for _ in 0..args.starts {
        let t0 = Instant::now();
        let loaded = load(args, t0)?;
        let program = std::sync::Arc::new(loaded.program);
        let mut engine = bench::Tiered::new(&program, k, None);
        set_bb(&mut engine, &program, &program.agents[k], &args.bb)?;
        engine.tick();
        ms.push(t0.elapsed().as_secs_f64() * 1000.0);
        engine.settle();
        drop(loaded.spent);
    }
    Ok(Some(bench::Stats::of(ms)))
}
