//! What watches `affect run`: every observer the command line asks for, each handed every
//! trace event and the end of every agent tick by one fan-out. To add one (a Groot 2
//! publisher, a `.btlog` recorder), implement [`RunObserver`] in a file of this folder and
//! add it where `commands/run.rs` builds the fan-out.
//!
//! - `trace_file.rs`: `--trace FILE.jsonl`, the JSON Lines trace (docs/trace.md);
//! - `story.rs`: the story of the run on stderr, unless `--quiet` (`story_modules.rs`: its
//!   behaviour modules' part);
//! - `plot.rs`: `--plot FILE.svg`;
//! - `progress.rs`: the progress of long runs (a bar on a terminal, plain lines elsewhere) and
//!   the one-line result every run ends with;
//! - `groot2/`: `--groot2 [PORT]`, the run served to Groot 2 and btview (docs/monitoring.md);
//! - `btlog.rs`: `--btlog FILE.btlog`, the run recorded in Groot 2's log format;
//! - `record.rs`: `--record FILE`, the run's device reads for `affect replay`;
//! - `until_done.rs`: a plain tree's run ends when the tree returns SUCCESS or FAILURE
//!   (unless `--loop`);
//! - `views.rs`: what each agent's variables are, read from the checked program, for the
//!   story and the plot.

pub mod btlog;
pub mod groot2;
pub mod plot;
pub mod progress;
pub mod record;
pub mod robot;
pub mod story;
mod story_modules;
pub mod trace_file;
pub mod until_done;
pub mod views;

use affect_compiler::groot::xml::Document;
use affect_compiler::ir::program::Program;
use affect_runtime::run::{Flow, Observer, TickView};
use affect_runtime::trace::{Event, TraceSink};
use std::io;

/// An observer of the command line: it may keep its output until the run is over.
pub trait RunObserver: Observer {
    /// The run is over; `completed`: without an error. Writes what the observer kept; an
    /// error says its output could not be written.
    fn finish(&mut self, _completed: bool) -> Result<(), String> {
        Ok(())
    }

    /// The run goes on with a new program (`affect run --watch`): what the observer knows
    /// of the program (variables' roles, node uids) is replaced by what `program` says;
    /// `exported` is its Groot XML, as the exporter writes it from the new syntax tree.
    fn reloaded(&mut self, _program: &Program, _exported: Option<&Document>) {}
}

/// Hands every event and every tick's end to each observer, in the order they were added.
/// An observer never fails the run: a trace line that cannot be written is the trace
/// file's to report when it finishes.
#[derive(Default)]
pub struct Fanout<'a> {
    observers: Vec<Box<dyn RunObserver + 'a>>,
}

impl<'a> Fanout<'a> {
    pub fn add(&mut self, o: impl RunObserver + 'a) {
        self.observers.push(Box::new(o));
    }

    /// Finishes every observer; the errors of those whose output failed.
    pub fn finish(&mut self, completed: bool) -> Vec<String> {
        self.observers
            .iter_mut()
            .filter_map(|o| o.finish(completed).err())
            .collect()
    }

    /// Tells every observer that the run goes on with `program`.
    pub fn reloaded(&mut self, program: &Program, exported: Option<&Document>) {
        for o in &mut self.observers {
            o.reloaded(program, exported);
        }
    }
}

impl TraceSink for Fanout<'_> {
    fn line(&mut self, tick: u64, t_ms: f64, agent: &str, ev: &Event) -> io::Result<()> {
        for o in &mut self.observers {
            let _ = o.line(tick, t_ms, agent, ev);
        }
        Ok(())
    }
}

impl Observer for Fanout<'_> {
    /// Every observer hears of the tick; any one of them can stop the run.
    fn tick_done(&mut self, tick: &TickView) -> Flow {
        let mut flow = Flow::Continue;
        for o in &mut self.observers {
            if o.tick_done(tick) == Flow::Stop {
                flow = Flow::Stop;
            }
        }
        flow
    }

    fn memory_read(&mut self, path: &std::path::Path, places: usize) {
        for o in &mut self.observers {
            o.memory_read(path, places);
        }
    }

    fn memory_written(&mut self, path: &std::path::Path, places: usize) {
        for o in &mut self.observers {
            o.memory_written(path, places);
        }
    }
}
