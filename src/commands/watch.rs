//! `affect run --watch`: the run goes on at wall-clock speed (`--realtime`'s clock), and
//! when the program's file (or a file it `use`s) is saved, the program is checked again
//! and, if it checks, the run goes on with it from the next tick (`Run::reload`: what carries over is said there and in
//! docs/monitoring.md). A program that does not check, or that cannot take over the run,
//! leaves the old one running; its diagnostics are printed.
//!
//! Files are watched with `notify` (inotify on Linux): an event wakes the run at once, even
//! while it waits for a tick. The directories are watched rather than the files, because
//! editors save by writing a new file and renaming it over the old one.

use super::report::Reporter;
use super::source::{load, Loaded};
use crate::observers::Fanout;
use crate::Format;
use affect_compiler::diagnostic::Diagnostic;
use affect_compiler::ir::program::Program;
use affect_runtime::realtime::WallClock;
use affect_runtime::run::{AgentSummary, Flow, NotReloaded, Run, RunConfig};
use notify::{RecursiveMode, Watcher};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long the files must stay quiet before they are read: an editor's save is several
/// events (write, rename, attributes).
const SETTLE: Duration = Duration::from_millis(60);

/// The files a program was read from, watched.
pub struct Watched {
    watcher: notify::RecommendedWatcher,
    events: Receiver<notify::Result<notify::Event>>,
    files: Vec<PathBuf>,
    dirs: Vec<PathBuf>,
}

impl Watched {
    /// Watches `files` (the program first).
    pub fn start(files: &[PathBuf]) -> Result<Watched, String> {
        let (tx, events) = channel();
        let watcher = notify::recommended_watcher(tx)
            .map_err(|e| format!("--watch: cannot watch files: {e}"))?;
        let mut w = Watched {
            watcher,
            events,
            files: Vec::new(),
            dirs: Vec::new(),
        };
        w.set(files)?;
        Ok(w)
    }

    /// Watches these files from now on (a save may add or drop a `use`).
    fn set(&mut self, files: &[PathBuf]) -> Result<(), String> {
        let files: Vec<PathBuf> = files.iter().map(|f| absolute(f)).collect();
        let mut dirs: Vec<PathBuf> = files
            .iter()
            .filter_map(|f| f.parent().map(Path::to_path_buf))
            .collect();
        dirs.sort();
        dirs.dedup();
        for d in self.dirs.iter().filter(|d| !dirs.contains(d)) {
            let _ = self.watcher.unwatch(d);
        }
        for d in dirs.iter().filter(|d| !self.dirs.contains(d)) {
            self.watcher
                .watch(d, RecursiveMode::NonRecursive)
                .map_err(|e| format!("--watch: cannot watch `{}`: {e}", d.display()))?;
        }
        self.files = files;
        self.dirs = dirs;
        Ok(())
    }

    fn concerns(&self, ev: &notify::Event) -> bool {
        !ev.kind.is_access() && ev.paths.iter().any(|p| self.files.contains(&absolute(p)))
    }

    /// Waits until `deadline` or until a watched file changed and settled, whichever comes
    /// first; true when one changed.
    fn wait(&self, deadline: Instant) -> bool {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.events.recv_timeout(left) {
                Ok(Ok(ev)) if self.concerns(&ev) => break,
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return false,
            }
        }
        // The save goes on for a moment: read once it is quiet.
        while self.events.recv_timeout(SETTLE).is_ok() {}
        true
    }
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Runs `program` to its end on `clock` (`--realtime`'s), reloading it when its files are
/// saved. Until a tick is due the run waits here for a save, then `clock` starts the tick.
pub fn run_to_end(
    first: &Loaded,
    program: &Program,
    config: &RunConfig,
    observers: &mut Fanout,
    clock: &mut WallClock,
) -> Result<Vec<AgentSummary>, Vec<Diagnostic>> {
    let mut watched = Watched::start(&first.files).map_err(setup_error)?;
    // Every program the run has had lives as long as the run (`Run` borrows them).
    let programs = typed_arena::Arena::new();
    let mut run = Run::new(program, config)?;
    run.start(observers);
    eprintln!(
        "watching {}: saving reloads the program at the next tick (Ctrl-C stops)",
        names(&first.files)
    );
    while let Some((_, due_ms)) = run.next_due() {
        if watched.wait(clock.instant(due_ms)) {
            let Some(loaded) = reload(&first.files[0], &programs, &mut run, observers) else {
                continue;
            };
            if let Err(e) = watched.set(&loaded) {
                eprintln!("warning: {e}");
            }
            continue;
        }
        if run.step(clock, observers) == Some(Flow::Stop) {
            break;
        }
    }
    run.finish(observers)
}

fn setup_error(e: String) -> Vec<Diagnostic> {
    vec![Diagnostic::error(
        "E0603",
        e,
        affect_compiler::span::Span::DUMMY,
    )]
}

fn names(files: &[PathBuf]) -> String {
    let names: Vec<String> = files.iter().map(|f| format!("`{}`", f.display())).collect();
    names.join(", ")
}

/// Checks the saved program and hands it to the run. The files it was read from, whether
/// it checked or not (so that a `use` added to fix it is watched too); `None` when the
/// file could not be read.
fn reload<'p>(
    file: &Path,
    programs: &'p typed_arena::Arena<Program>,
    run: &mut Run<'p>,
    observers: &mut Fanout,
) -> Option<Vec<PathBuf>> {
    let Ok(mut loaded) = load(file) else {
        eprintln!("reload: the old program keeps running");
        return None;
    };
    let mut reporter = Reporter::new(Format::Human);
    reporter.add(&loaded.name, &loaded.src, &loaded.analysis.diagnostics);
    for (file, text, d) in &loaded.analysis.imported_diagnostics {
        reporter.add(file, text, std::slice::from_ref(d));
    }
    let files = std::mem::take(&mut loaded.files);
    let Some(program) = loaded.analysis.program.take() else {
        reporter.finish(1);
        eprintln!(
            "reload: `{}` does not check; the old program keeps running",
            loaded.name
        );
        return Some(files);
    };
    let program = programs.alloc(program);
    match run.reload(program, observers) {
        Ok(done) => {
            reporter.finish(1);
            let exported = affect_compiler::groot::exported_document(
                &loaded.syntax,
                affect_compiler::groot::Dialect::V4,
            );
            observers.reloaded(run.program(), exported.as_ref());
            for r in &done {
                eprintln!("reload: {}: {}", r.agent, r.text());
            }
        }
        Err(NotReloaded::Refused(diags)) => {
            reporter.add(&loaded.name, &loaded.src, &diags);
            reporter.finish(1);
            eprintln!("reload: the old program keeps running");
        }
        Err(NotReloaded::Unchangeable(why)) => {
            reporter.finish(1);
            eprintln!("reload: {why}; the old program keeps running (restart the run to apply it)");
        }
    }
    Some(files)
}
