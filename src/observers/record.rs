//! `--record FILE`: the run's device reads and events written as it goes (the runtime's
//! recorder, runtime/src/record); a write that failed is reported when the run is over.

use super::RunObserver;
use affect_runtime::record::Recorder;
use affect_runtime::run::{Flow, Observer, TickView};
use affect_runtime::trace::{Event, TraceSink};
use std::io;

pub struct RecordFile {
    pub recorder: Recorder,
    pub path: String,
}

impl TraceSink for RecordFile {
    fn line(&mut self, tick: u64, t_ms: f64, agent: &str, ev: &Event) -> io::Result<()> {
        self.recorder.line(tick, t_ms, agent, ev)
    }
}

impl Observer for RecordFile {
    fn tick_done(&mut self, t: &TickView) -> Flow {
        self.recorder.tick_done(t)
    }
}

impl RunObserver for RecordFile {
    fn finish(&mut self, completed: bool) -> Result<(), String> {
        self.recorder
            .finish(completed)
            .map_err(|e| format!("cannot write the record `{}`: {e}", self.path))
    }
}
