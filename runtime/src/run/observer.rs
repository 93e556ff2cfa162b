//! What a run tells the outside while it goes: every trace event as it happens (the
//! [`TraceSink`] half), and the end of every agent tick with read access to that agent's
//! state (node statuses, blackboard), where an observer may also end the run. The JSON Lines
//! trace, the CLI's story, plot and progress bar are observers; so are a Groot 2 publisher
//! or a `.btlog` recorder, which need the whole tree's state once per tick.

use crate::interp::Machine;
use crate::trace::{JsonLines, NoTrace, TraceSink};
use affect_compiler::ir::program::{AgentProgram, Status};
use std::io::Write;
use std::path::Path;

/// What the run does after an agent tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    /// End the run at this tick boundary, as if every agent had made its ticks: memories
    /// are saved and summaries written (a signal asking to stop, a reload).
    Stop,
}

/// One agent tick, just finished: its events have all been written.
pub struct TickView<'r, 'p> {
    /// The instance's place in the run (spawn order) and its name (`UGV#2`).
    pub index: usize,
    pub agent: &'r str,
    pub program: &'p AgentProgram,
    /// The tick just made (from 0), and when it started.
    pub tick: u64,
    pub t_ms: f64,
    /// The main tree's status after the tick (IDLE when there is none).
    pub root: Status,
    /// The instance's state: node statuses (`status_of`), slots, lists.
    pub machine: &'r Machine<'p>,
    /// Agent ticks made so far in the whole run, and how many it makes in all.
    pub done: u64,
    pub total: u64,
}

/// Watches a run. Events arrive through [`TraceSink::line`] in trace order; `tick_done`
/// follows each agent tick's events.
pub trait Observer: TraceSink {
    fn tick_done(&mut self, _tick: &TickView) -> Flow {
        Flow::Continue
    }

    /// A long-term memory file was read before the first tick; it held `places` places
    /// (traces). Files not written yet are not read.
    fn memory_read(&mut self, _path: &Path, _places: usize) {}

    /// A long-term memory file was written at the end of the run; it now holds `places`.
    fn memory_written(&mut self, _path: &Path, _places: usize) {}
}

impl Observer for NoTrace {}

impl<W: Write> Observer for JsonLines<W> {}
