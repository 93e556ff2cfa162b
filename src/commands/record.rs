//! `affect run --record FILE` (the record's observer, set up here) and `affect replay FILE`:
//! a run on the robot played back in the simulator on its recorded device reads, with the
//! trace checked against the recorded one tick by tick (docs/raspberry-pi.md).

use super::source::{self, Loaded};
use super::{FAILED, OK, USAGE};
use crate::observers::record::RecordFile as RecordObserver;
use crate::observers::story::Narrator;
use crate::observers::trace_file::TraceFile;
use crate::observers::{views, Fanout};
use affect_compiler::ir::program::Program;
use affect_runtime::record::{Header, RecordFile, Recording, Replay, ReplayClock, ReplayTape};
use affect_runtime::run::{Flow, Observer, Run, RunConfig, TickView};
use affect_runtime::trace::{Event, TraceSink};
use std::io;
use std::path::{Path, PathBuf};

/// The observer of `--record FILE`; the run's devices are recorded from now on (the
/// runtime's `robot::record`).
pub fn recorder(
    path: &Path,
    file: &Path,
    loaded: &Loaded,
    program: &Program,
    config: &mut RunConfig,
) -> Result<RecordObserver, String> {
    let (recorder, warning) =
        affect_runtime::robot::record(path, file, &loaded.sha256, program, config)?;
    if let Some(w) = warning {
        eprintln!("warning: {w}");
    }
    Ok(RecordObserver {
        recorder,
        path: path.display().to_string(),
    })
}

fn fail(code: &str, message: impl std::fmt::Display) -> u8 {
    eprintln!("error[{code}]: {message}");
    if code.starts_with("E08") {
        USAGE
    } else {
        FAILED
    }
}

#[derive(clap::Args)]
pub struct ReplayArgs {
    /// The record (`affect run FILE --record RECORD`).
    #[arg(value_name = "RECORD")]
    pub file: PathBuf,
    /// The program to replay it with (default: the file the record names). It must be the
    /// program that was recorded, to the byte (E0613).
    #[arg(long, value_name = "FILE")]
    pub program: Option<PathBuf>,
    /// Which run of the record: 1 is the first (default: the last). `--list` shows them.
    #[arg(long, value_name = "N")]
    pub run: Option<usize>,
    /// List the runs the record holds, and replay nothing.
    #[arg(long)]
    pub list: bool,
    /// The engine that runs the program: `tiered`, `jit` or `interp` (each gives the
    /// recorded trace).
    #[arg(long, value_enum, default_value_t = super::bench::EngineKind::Tiered)]
    pub engine: super::bench::EngineKind,
    /// Write the replay's trace as JSON Lines (docs/trace.md).
    #[arg(long, value_name = "FILE.jsonl")]
    pub trace: Option<PathBuf>,
    /// Print neither the story of the run nor the summary.
    #[arg(long)]
    pub quiet: bool,
}

pub fn replay(args: &ReplayArgs) -> u8 {
    let record = match RecordFile::scan(&args.file) {
        Ok(r) => r,
        Err(e) => return fail(e.code, e.message),
    };
    if let Some(w) = record.torn_warning() {
        eprintln!("warning: {w}");
    }
    if args.list {
        list(&record);
        return OK;
    }
    let index = match (args.run, record.runs.len()) {
        (_, 0) => {
            return fail(
                "E0612",
                format!("`{}` holds no recorded run", args.file.display()),
            )
        }
        (None, n) => n - 1,
        (Some(k), n) if (1..=n).contains(&k) => k - 1,
        (Some(k), n) => {
            eprintln!("error: --run {k}: the record holds runs 1 to {n}");
            return USAGE;
        }
    };
    let run = &record.runs[index];
    let header = &run.header;
    let file = args
        .program
        .clone()
        .unwrap_or_else(|| PathBuf::from(&header.program));
    let mut loaded = match source::load(&file) {
        Ok(l) => l,
        Err(status) => {
            if args.program.is_none() {
                eprintln!("help: the record names `{}`; give the program's place here with --program FILE", header.program);
            }
            return status;
        }
    };
    // As the recorded run did (`run.rs`), in the same order.
    loaded.intern(
        (header.bb.iter().map(|(_, v)| v.as_str()))
            .chain(header.leaf_outs.iter().map(|(_, _, v)| v.as_str())),
    );
    let Some(program) = &loaded.analysis.program else {
        eprintln!(
            "error: `{}` does not check (run `affect check` on it)",
            file.display()
        );
        return FAILED;
    };
    if loaded.sha256 != header.sha256 {
        return fail(
            "E0613",
            format!(
                "`{}` is not the program the record was made with: its texts hash to {:.12}, the record's program `{}` to {:.12}",
                file.display(),
                loaded.sha256,
                header.program,
                header.sha256
            ),
        );
    }
    if header.affect != env!("CARGO_PKG_VERSION") {
        eprintln!(
            "warning: the record was made by affect {}, this is {}: a different runtime may behave differently",
            header.affect,
            env!("CARGO_PKG_VERSION")
        );
    }
    if run.ticks == 0 {
        eprintln!("the recorded run stopped before its first tick: nothing to replay");
        return OK;
    }
    let memories = match Memories::restore(program, header) {
        Ok(m) => m,
        Err(e) => return fail("E0612", e),
    };
    let mut config = match header.replay_config(args.engine.runtime(), memories.dir()) {
        Ok(c) => c,
        Err(e) => return fail("E0612", format!("`{}`: {e}", args.file.display())),
    };
    let tape = ReplayTape::default();
    config.recording = Some(Recording::Replay(tape.clone()));
    let status = play(args, &record, index, &loaded, program, &config, tape);
    drop(memories);
    status
}

/// Runs the replay and tells how it went.
fn play(
    args: &ReplayArgs,
    record: &RecordFile,
    index: usize,
    loaded: &Loaded,
    program: &Program,
    config: &RunConfig,
    tape: ReplayTape,
) -> u8 {
    let mut replay = match Replay::new(record, index, tape.clone()) {
        Ok(r) => r,
        Err(e) => return fail(e.code, e.message),
    };
    let views = if args.quiet {
        Vec::new()
    } else {
        views::views(program)
    };
    let mut fanout = Fanout::default();
    if !args.quiet {
        fanout.add(Narrator::new(&views, Box::new(std::io::stderr())));
    }
    if let Some(path) = &args.trace {
        match TraceFile::create(path) {
            Ok(t) => fanout.add(t),
            Err(e) => {
                eprintln!("error: {e}");
                return USAGE;
            }
        }
    }
    let result = Run::new(program, config).and_then(|r| {
        r.run_to_end(
            &mut ReplayClock(tape),
            &mut Both {
                fanout: &mut fanout,
                replay: &mut replay,
            },
        )
    });
    let unwritten = fanout.finish(result.is_ok());
    let summaries = match result {
        Ok(s) => s,
        Err(diags) => {
            let mut reporter = super::report::Reporter::new(crate::Format::Human);
            reporter.add(&loaded.name, &loaded.src, &diags);
            reporter.finish(1);
            return FAILED;
        }
    };
    if let Some(e) = unwritten.first() {
        eprintln!("error: {e}");
        return USAGE;
    }
    match replay.finish() {
        Err((code, message)) => fail(code, message),
        Ok(done) => {
            if !args.quiet {
                super::summary::print(&summaries);
            }
            eprintln!(
                "replayed run {} of `{}`: {} tick{}, the recorded trace line for line{}",
                index + 1,
                args.file.display(),
                done.ticks,
                if done.ticks == 1 { "" } else { "s" },
                if done.ended {
                    ""
                } else {
                    " (the recorded run did not end: it was killed or the power went; the replay stops where the record does)"
                }
            );
            OK
        }
    }
}

/// `--list`: one line per run.
fn list(record: &RecordFile) {
    for (i, r) in record.runs.iter().enumerate() {
        let h = &r.header;
        println!(
            "{}: {} (sha256 {:.12}), {} tick{}{}{}, started at unix time {}",
            i + 1,
            h.program,
            h.sha256,
            r.ticks,
            if r.ticks == 1 { "" } else { "s" },
            if h.hardware.is_some() {
                " on hardware"
            } else {
                " simulated"
            },
            if r.ended { "" } else { ", did not end" },
            h.started
        );
    }
}

/// The long-term memory files as the recorded run found them, in a directory of their own
/// for the replay (removed when it is over): the replay neither reads nor changes the
/// files beside the program. The directory is new and private (`tempfile`: a name nobody can
/// predict, mode 0700), never a fixed name another process could have prepared.
struct Memories(Option<tempfile::TempDir>);

impl Memories {
    fn restore(program: &Program, header: &Header) -> Result<Memories, String> {
        let Some(files) = &header.memories else {
            return Ok(Memories(None));
        };
        let tmp = tempfile::Builder::new()
            .prefix("affect-replay-")
            .tempdir()
            .map_err(|e| format!("cannot make a folder for the recorded memories: {e}"))?;
        let dir = tmp.path().to_path_buf();
        let memories = Memories(Some(tmp));
        // Only the files the (hash-checked) program persists are written, by its names.
        let names = super::memory_files::persist_names(program);
        for (name, bytes) in files {
            // A name that leaves the directory (`../x`) is not restored.
            let inside = Path::new(name)
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)));
            let (Some(bytes), true) = (bytes, inside && names.contains(name)) else {
                continue;
            };
            let path = dir.join(name);
            if let Some(parent) = path.parent() {
                let _ = std::fs::create_dir_all(parent);
            }
            std::fs::write(&path, bytes)
                .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
        }
        Ok(memories)
    }

    fn dir(&self) -> Option<PathBuf> {
        self.0.as_ref().map(|d| d.path().to_path_buf())
    }
}

/// The replay's observers and its check, as one.
struct Both<'a, 'v> {
    fanout: &'a mut Fanout<'v>,
    replay: &'a mut Replay,
}

impl TraceSink for Both<'_, '_> {
    fn line(&mut self, tick: u64, t_ms: f64, agent: &str, ev: &Event) -> io::Result<()> {
        let _ = self.fanout.line(tick, t_ms, agent, ev);
        self.replay.line(tick, t_ms, agent, ev)
    }
}

impl Observer for Both<'_, '_> {
    fn tick_done(&mut self, t: &TickView) -> Flow {
        let a = self.fanout.tick_done(t);
        let b = self.replay.tick_done(t);
        if a == Flow::Stop || b == Flow::Stop {
            Flow::Stop
        } else {
            Flow::Continue
        }
    }
}
