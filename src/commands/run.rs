//! `affect run`: check a program, then run it in simulation and report what happened. The
//! steps: load the source (importing XML), check it, read the options into a run
//! configuration, set up the observers the options ask for (`observers/`), run, and tell
//! the user how it went.

use super::source::{self, Loaded};
use super::{FAILED, OK, USAGE};
use crate::observers::btlog::BtLog;
use crate::observers::groot2::{self, Groot2};
use crate::observers::plot::PlotFile;
use crate::observers::progress::Progress;
use crate::observers::story::Narrator;
use crate::observers::trace_file::TraceFile;
use crate::observers::until_done::UntilDone;
use crate::observers::views::{self, AgentView};
use crate::observers::Fanout;
use affect_compiler::groot::Dialect;
use affect_compiler::ir::program::Program;
use affect_runtime::run::{self, AgentSummary, Pacing, Run, RunConfig, SimClock};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct RunArgs {
    /// The program to run: a `.affect` file, or Groot / BehaviorTree.CPP XML (imported in
    /// memory, `<include>`d files too).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// The world to run in (default: the file's only world, or none).
    #[arg(long, value_name = "W")]
    pub world: Option<String>,
    /// Run only this agent.
    #[arg(long, value_name = "A")]
    pub agent: Option<String>,
    /// Ticks per agent (default: the world's `ticks`, else 100: a world without `ticks`
    /// runs 100).
    #[arg(long, value_name = "N")]
    pub ticks: Option<u64>,
    /// A file without agents: tick its main tree again after it returns SUCCESS or FAILURE,
    /// until --ticks runs out (a loop of BehaviorTree.CPP's `tickExactlyOnce`). Without it
    /// the run ends when the tree finishes, as `tickWhileRunning` does. `--watch` loops.
    #[arg(long = "loop")]
    pub loop_ticks: bool,
    /// Seed of the random generators (default: the world's `seed`, else 0).
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Write the trace as JSON Lines (see docs/trace.md); a name ending in `.zst` is
    /// compressed with Zstandard (`affect report` reads it as it is).
    #[arg(long, value_name = "FILE.jsonl")]
    pub trace: Option<PathBuf>,
    /// Draw levels, `let` values, hormones, emotions and drives over simulated time into an
    /// SVG file, one block of panels per agent (see docs/run.md).
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Set a root-blackboard variable before the first tick, on every agent that has it;
    /// `AGENT.KEY=VALUE` sets it on that agent (or instance, `UGV#2`) only.
    #[arg(long = "bb", value_name = "KEY=VALUE")]
    pub bb: Vec<String>,
    /// What one foreign node returns: ID is its path, its label or its declared name. A
    /// list (`running,success`) is played one status per tick, the last one repeating.
    #[arg(long = "leaf", value_name = "ID=success|failure|running")]
    pub leaves: Vec<String>,
    /// Like --leaf, but the list is played over and over: `--leaf-cycle
    /// Scan=running,running,success` succeeds every third tick.
    #[arg(long = "leaf-cycle", value_name = "ID=STATUS,..")]
    pub leaf_cycles: Vec<String>,
    /// What a stand-in writes to one of its out ports on every call, read as the type of
    /// the variable the port is bound to: `--leaf-out Detect.found=true`. NODE is its path,
    /// its label or its declared name; the node runs as a stand-in.
    #[arg(long = "leaf-out", value_name = "NODE.PORT=VALUE")]
    pub leaf_outs: Vec<String>,
    /// What foreign nodes without an implementation or override return.
    #[arg(long, value_name = "STATUS", default_value = "success")]
    pub leaf_default: String,
    /// Tick like BehaviorTree.CPP's `tree.sleep(MS)` loop instead of at the agents' rates:
    /// timers wake the tree early (for comparing traces with the real library).
    #[arg(long, value_name = "MS")]
    pub sleep_between_ticks: Option<f64>,
    /// Neither read nor write long-term memory files (`persist`): every run starts with
    /// empty memories.
    #[arg(long)]
    pub no_persist: bool,
    /// Print neither the story of the run (one line whenever something meaningful changes:
    /// a new place, a drive, an emotion, which branch chose, a behaviour module starting or
    /// preempted; see docs/run.md), the progress of a long run (a bar on a terminal, a plain
    /// line at every tenth elsewhere), the one-line result, nor the summary.
    #[arg(long)]
    pub quiet: bool,
    /// The engine that runs the program: `tiered` (the interpreter from the first tick
    /// while the JIT compiles in the background, then native code from the tick after it is
    /// ready; the trace is the same), `jit` (native code through Cranelift, on x86_64 and
    /// aarch64, compiled before the first tick) or `interp` (the reference interpreter).
    /// Where the JIT cannot run, the interpreter does (with `jit`, a warning says so).
    #[arg(long, value_enum, default_value_t = super::bench::EngineKind::Tiered)]
    pub engine: super::bench::EngineKind,
    /// Compile every time: neither read nor write the code cache, where compiled code is
    /// kept between runs (docs/run.md).
    #[arg(long)]
    pub no_code_cache: bool,
    /// Run the agent on its robot: every device its declarations name opens through rppal
    /// (I2C, GPIO, PWM) before the first tick, and it ticks at its rate on the monotonic
    /// clock; Ctrl-C or SIGTERM stops it cleanly. See docs/raspberry-pi.md.
    #[arg(long)]
    pub hardware: bool,
    /// With --hardware: bind this device (or declared leaf) to the program's simulated world
    /// instead of hardware (`--sim-device place` for a robot without a camera). The run says
    /// which ones it simulates.
    #[arg(long = "sim-device", value_name = "NAME", requires = "hardware")]
    pub sim_devices: Vec<String>,
    /// Run a simulated world at wall-clock speed (the trace stays the simulated one) and
    /// measure every tick (`timing` events in the trace, a summary at the end).
    #[arg(long, conflicts_with = "hardware")]
    pub realtime: bool,
    /// With --hardware: how long the run may go without finishing a tick before the watchdog
    /// (a second process) stops the motors; 0 runs without one.
    #[arg(long, value_name = "MS", default_value_t = 500, requires = "hardware")]
    pub watchdog_ms: u64,
    /// On the wall clock (--hardware, --realtime, --net): tick at SCHED_FIFO real-time priority PRIO
    /// (1-99) with the process's memory locked; either, when refused (no privilege, a low
    /// RLIMIT_RTPRIO or RLIMIT_MEMLOCK), is said and the run goes on without it. See
    /// docs/raspberry-pi.md.
    #[arg(long, value_name = "PRIO")]
    pub sched_fifo: Option<i32>,
    /// Serve the run to Groot 2 and btview as BehaviorTree.CPP's Groot2Publisher does: REQ/REP
    /// on PORT (default 1667) and PUB on PORT+1; the next agent on PORT+2 and PORT+3, and so
    /// on. The run goes at wall-clock speed, as with --realtime. See docs/monitoring.md.
    #[arg(long, value_name = "PORT", num_args = 0..=1, default_missing_value = groot2::DEFAULT_PORT)]
    pub groot2: Option<u16>,
    /// The address the Groot 2 server binds (anyone who reaches it sees the run).
    #[arg(
        long,
        value_name = "ADDR",
        default_value = "127.0.0.1",
        requires = "groot2"
    )]
    pub groot2_bind: String,
    /// Let Groot 2 clients set hooks and breakpoints on actions and conditions. They change
    /// node results and the protocol has no authentication: only on a trusted network.
    #[arg(long, requires = "groot2")]
    pub groot2_hooks: bool,
    /// Record the node transitions in Groot 2's log format (BehaviorTree.CPP's FileLogger2),
    /// for replay in Groot 2; times are simulated time. One agent instance per file: the
    /// one `--agent` names, else the first.
    #[arg(long, value_name = "FILE.btlog")]
    pub btlog: Option<PathBuf>,
    /// Record every device read and event, with its time, to FILE (appended: a file may hold
    /// several runs), for `affect replay FILE` to play back in the simulator with the same
    /// trace. Written and flushed tick by tick; a run in the simulator is recorded too. See
    /// docs/raspberry-pi.md.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["watch", "groot2_hooks"])]
    pub record: Option<PathBuf>,
    /// Run at wall-clock speed (as --realtime does) and, when the file (or a file it `use`s)
    /// is saved, check it
    /// again and go on with the new program from the next tick: variables, hormones,
    /// emotions and memories whose name and type did not change keep their values, running
    /// nodes that moved are halted. A program that does not check leaves the old one
    /// running, and its diagnostics are printed. See docs/monitoring.md.
    #[arg(long, conflicts_with_all = ["groot2", "btlog", "hardware"])]
    pub watch: bool,
    /// Run the one robot named by --agent as its own process, talking to the rest of its
    /// team over Zenoh on the wall clock (docs/network.md). Its trace says what it did;
    /// --groot2, --btlog and --record watch it as they watch a simulated run; --plot,
    /// --watch and --sleep-between-ticks are for simulated runs only.
    #[cfg(feature = "net")]
    #[arg(long, requires = "agent", conflicts_with_all = ["plot", "watch", "sleep_between_ticks"])]
    pub net: bool,
    #[cfg(feature = "net")]
    #[command(flatten, next_help_heading = "Network (with --net)")]
    pub link: super::net::LinkArgs,
}

fn split_kv(s: &str, what: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
        _ => Err(format!("{what} takes KEY=VALUE, got `{s}`")),
    }
}

pub fn run(args: &RunArgs) -> u8 {
    let mut loaded = match source::load(&args.file) {
        Ok(l) => l,
        Err(status) => return status,
    };
    loaded.intern(
        (args.bb.iter().chain(&args.leaf_outs)).filter_map(|kv| kv.split_once('=').map(|(_, v)| v)),
    );
    let mut reporter = loaded.reporter();
    let Some(program) = &loaded.analysis.program else {
        reporter.finish(1);
        return FAILED;
    };
    let mut config = match config(args, program) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return USAGE;
        }
    };
    #[cfg(feature = "net")]
    if let Some(flag) = args.link.given().filter(|_| !args.net) {
        eprintln!(
            "error: {flag} applies to a robot on the network (--net); a simulated run takes \
             its world's settings (message loss: the world's `messages .. loss`)"
        );
        return USAGE;
    }
    #[cfg(feature = "net")]
    if args.net {
        return run_net(args, config, program, &loaded, reporter);
    }
    let views = if args.quiet && args.plot.is_none() {
        Vec::new()
    } else {
        views::views(program)
    };
    let mut observers = match observers(args, &mut config, &views, program, &loaded) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return USAGE;
        }
    };
    if args.sched_fifo.is_some() && !wall_clock(args) {
        eprintln!(
            "error: --sched-fifo is for runs on the wall clock (--hardware, --realtime, --net)"
        );
        return USAGE;
    }
    let prepare_wall_clock = |observers: &mut Fanout| {
        if let Some(priority) = args.sched_fifo {
            sched_fifo(priority, args.quiet);
        }
        super::robot::prepare(
            &args.file,
            program,
            &config,
            args.quiet,
            args.watchdog_ms,
            observers,
        )
    };
    let result = if args.watch {
        // `--watch` runs as `--realtime` does, on its wall clock.
        match prepare_wall_clock(&mut observers) {
            Ok(mut clock) => {
                super::watch::run_to_end(&loaded, program, &config, &mut observers, &mut clock)
            }
            Err(e) => {
                eprintln!("error: {e}");
                return FAILED;
            }
        }
    } else {
        match Run::new(program, &config) {
            Ok(r) if wall_clock(args) => match prepare_wall_clock(&mut observers) {
                Ok(mut clock) => r.run_to_end(&mut clock, &mut observers),
                Err(e) => {
                    eprintln!("error: {e}");
                    return FAILED;
                }
            },
            Ok(r) => r.run_to_end(&mut SimClock, &mut observers),
            Err(d) => Err(d),
        }
    };
    let unwritten = observers.finish(result.is_ok());
    if !unwritten.is_empty() {
        for e in &unwritten {
            eprintln!("error: {e}");
        }
        return USAGE;
    }
    let summaries = match result {
        Ok(s) => s,
        Err(diags) => {
            reporter.add(&loaded.name, &loaded.src, &diags);
            reporter.finish(1);
            return FAILED;
        }
    };
    reporter.finish(1);
    tell(args, program, &summaries);
    if !args.quiet {
        tell_outputs(args);
    }
    // A read of an unset variable stopped a tree: the run failed, as BehaviorTree.CPP's
    // exception fails its program.
    let errors: Vec<&AgentSummary> = summaries.iter().filter(|s| s.error.is_some()).collect();
    for s in &errors {
        let text = s.error.as_deref().unwrap_or_default();
        eprintln!(
            "error[E0605]: agent `{}`, tick {}: {text}",
            s.agent,
            s.ticks.saturating_sub(1)
        );
    }
    if errors.is_empty() {
        OK
    } else {
        FAILED
    }
}

/// `affect run --net`: one robot of a team as this process, watched by its trace (each
/// line with this process's `pid`) and what else the options ask for (Groot 2, `.btlog`,
/// `--record`).
#[cfg(feature = "net")]
fn run_net(
    args: &RunArgs,
    mut config: RunConfig,
    program: &Program,
    loaded: &Loaded,
    mut reporter: super::report::Reporter,
) -> u8 {
    let mut watchers = Fanout::default();
    let added = super::net::pid_trace(args.trace.as_deref()).and_then(|t| {
        if let Some(t) = t {
            watchers.add(t);
        }
        watchers_of(args, &mut config, program, loaded, &mut watchers)
    });
    if let Err(e) = added {
        eprintln!("error: {e}");
        return USAGE;
    }
    // A robot on the network ticks on its team's wall clock, in this thread.
    if let Some(priority) = args.sched_fifo {
        sched_fifo(priority, args.quiet);
    }
    let result = super::net::run_robot(&args.link, program, &config, &mut watchers, args.quiet);
    let unwritten = watchers.finish(result.is_ok());
    for e in &unwritten {
        eprintln!("error: {e}");
    }
    match result {
        Ok(_) if !unwritten.is_empty() => USAGE,
        Ok(_) => {
            if !args.quiet {
                let outputs = [&args.trace, &args.btlog, &args.record];
                for path in outputs.into_iter().flatten() {
                    crate::files::tell_written(path);
                }
            }
            OK
        }
        Err(affect_net::NetError::Setup(e)) => {
            eprintln!("error: {e}");
            USAGE
        }
        Err(affect_net::NetError::Program(diags)) => {
            reporter.add(&loaded.name, &loaded.src, &diags);
            reporter.finish(1);
            FAILED
        }
    }
}

/// `--sched-fifo`: real-time priority and locked memory for the ticking thread, each said
/// when granted (unless quiet) and always when refused.
fn sched_fifo(priority: i32, quiet: bool) {
    for outcome in affect_runtime::sched::request(priority) {
        match outcome {
            Ok(granted) if !quiet => eprintln!("note: {granted}"),
            Ok(_) => {}
            Err(refused) => eprintln!("warning: {refused}"),
        }
    }
}

/// Whether the run goes at wall-clock speed, on `--realtime`'s clock (or the robot's): on
/// hardware, when asked, and when someone watches it live (`--groot2`) or edits it as it
/// runs (`--watch`). A robot on the network (`--net`) always does, on its team's clock.
fn wall_clock(args: &RunArgs) -> bool {
    args.hardware || args.realtime || args.watch || args.groot2.is_some()
}

/// The run configuration the options ask for. The world's own `ticks` and `seed` apply
/// unless the command line says otherwise.
fn config(args: &RunArgs, program: &Program) -> Result<RunConfig, String> {
    let world = match &args.world {
        Some(w) => program.worlds.iter().find(|x| x.name == *w),
        None => program.worlds.first().filter(|_| program.worlds.len() == 1),
    };
    let mut config = RunConfig {
        ticks: args.ticks.or(world.and_then(|w| w.ticks)).unwrap_or(100),
        seed: args.seed.or(world.map(|w| w.seed)).unwrap_or(0),
        agent: args.agent.clone(),
        world: args.world.clone(),
        persist_dir: if args.no_persist {
            None
        } else {
            Some(
                args.file
                    .parent()
                    .map(|p| p.to_path_buf())
                    .filter(|p| !p.as_os_str().is_empty())
                    .unwrap_or_else(|| ".".into()),
            )
        },
        engine: args.engine.runtime(),
        code_cache: if args.no_code_cache {
            None
        } else {
            affect_runtime::jit::cache_dir()
        },
        ..RunConfig::default()
    };
    config.leaf_default = run::parse_status(&args.leaf_default).ok_or_else(|| {
        format!(
            "--leaf-default takes success, failure or running, got `{}`",
            args.leaf_default
        )
    })?;
    let scripts =
        (args.leaves.iter().map(|l| (l, false))).chain(args.leaf_cycles.iter().map(|l| (l, true)));
    for (l, cycle) in scripts {
        let flag = if cycle { "--leaf-cycle" } else { "--leaf" };
        let (key, v) = split_kv(l, flag)?;
        let statuses = run::parse_statuses(&v).ok_or_else(|| {
            format!("{flag} {key}: `{v}` is not a list of success, failure and running")
        })?;
        config.leaves.push(run::LeafScript {
            key,
            statuses,
            cycle,
        });
    }
    for o in &args.leaf_outs {
        let (k, value) = split_kv(o, "--leaf-out")?;
        let Some((node, port)) = k
            .rsplit_once('.')
            .filter(|(n, p)| !n.is_empty() && !p.is_empty())
        else {
            return Err(format!("--leaf-out takes NODE.PORT=VALUE, got `{o}`"));
        };
        config.leaf_outs.push(run::LeafOut {
            node: node.to_string(),
            port: port.to_string(),
            value,
        });
    }
    for b in &args.bb {
        config.bb.push(split_kv(b, "--bb")?);
    }
    if args.hardware {
        config.hardware = Some(affect_runtime::hardware::HardwareConfig {
            simulated: args.sim_devices.clone(),
            ..Default::default()
        });
    }
    config.timing = wall_clock(args);
    if let Some(ms) = args.sleep_between_ticks {
        if ms.is_nan() || ms <= 0.0 {
            return Err("--sleep-between-ticks takes a positive number of milliseconds".into());
        }
        config.pacing = Pacing::SleepBetweenTicks { ms };
    }
    Ok(config)
}

/// The observers the options ask for, in the order they finish: the story's last lines
/// come before the progress's result line. A long run (or one on the wall clock) shows its
/// progress.
fn observers<'v>(
    args: &RunArgs,
    config: &mut RunConfig,
    views: &'v [AgentView],
    program: &'v Program,
    loaded: &Loaded,
) -> Result<Fanout<'v>, String> {
    let name = &loaded.name;
    let mut fanout = Fanout::default();
    let mut progress = Progress::new(config.ticks >= 2000 || args.realtime, args.quiet);
    // A plain tree that finishes ends the run (BehaviorTree.CPP's `tickWhileRunning`);
    // one edited as it runs goes on, to show the next version.
    let until_done = program.main_tree.is_some() && !args.loop_ticks && !args.watch;
    if until_done {
        progress = progress.until_done();
        fanout.add(UntilDone);
    }
    if !args.quiet {
        fanout.add(Narrator::new(views, Box::new(progress.story_out())));
    }
    fanout.add(progress);
    if let Some(path) = &args.plot {
        let title = args
            .file
            .file_name()
            .map_or(name.to_string(), |f| f.to_string_lossy().into_owned());
        fanout.add(PlotFile::new(views, path, title));
    }
    if let Some(path) = &args.trace {
        fanout.add(TraceFile::create(path)?);
    }
    watchers_of(args, config, program, loaded, &mut fanout)?;
    Ok(fanout)
}

/// The observers that watch a run from outside (a simulated run or a robot on the network):
/// its record (`--record`), its Groot 2 log (`--btlog`) and Groot 2 live (`--groot2`).
fn watchers_of<'v>(
    args: &RunArgs,
    config: &mut RunConfig,
    program: &'v Program,
    loaded: &Loaded,
    fanout: &mut Fanout<'v>,
) -> Result<(), String> {
    if let Some(path) = &args.record {
        fanout.add(super::record::recorder(
            path, &args.file, loaded, program, config,
        )?);
    }
    if args.groot2.is_none() && args.btlog.is_none() {
        return Ok(());
    }
    // Groot 2 and its logs show the tree as the Groot exporter writes it from the syntax
    // tree the check parsed.
    let doc = affect_compiler::groot::exported_document(&loaded.syntax, Dialect::V4);
    if let Some(path) = &args.btlog {
        fanout.add(BtLog::create(
            program,
            doc.clone(),
            args.agent.clone(),
            path,
        )?);
    }
    if let Some(port) = args.groot2 {
        let options = groot2::Options {
            port,
            bind: args.groot2_bind.clone(),
            hooks: args.groot2_hooks,
        };
        let served = Groot2::start(program, doc, options, Box::new(std::io::stderr()))?;
        config.wrap_leaves = served.leaf_wrap();
        config.hook_nodes = served.node_hooks();
        fanout.add(served);
    }
    Ok(())
}

/// After a run: the JIT's absence (once), the stand-ins, and each agent's summary.
fn tell(args: &RunArgs, program: &Program, summaries: &[AgentSummary]) {
    // Without --quiet the story already told it (the trace's `log` line); say it once.
    if let (true, Some(reason)) = (
        args.quiet,
        summaries.iter().find_map(|s| s.fallback.as_ref()),
    ) {
        eprintln!("warning: the JIT is not available ({reason}); running the interpreter");
    }
    super::stand_ins::tell(program, summaries, &args.leaf_default);
    if !args.quiet {
        super::summary::print(summaries);
    }
}

/// The files the run wrote, last, each with its size (`wrote nav.svg (141 KB)`): the trace,
/// the plot, the Groot 2 log and the record.
fn tell_outputs(args: &RunArgs) {
    let outputs = [&args.trace, &args.plot, &args.btlog, &args.record];
    for path in outputs.into_iter().flatten() {
        crate::files::tell_written(path);
    }
}
