//! A plain tree (a file without agents) runs until its main tree returns SUCCESS or FAILURE,
//! as BehaviorTree.CPP's `tickWhileRunning` does, with `--ticks` as the most it may take;
//! `affect run --loop` ticks it again after it finishes instead (as a loop of
//! `tickExactlyOnce` does), until `--ticks` runs out.

use super::RunObserver;
use affect_compiler::ir::program::Status;
use affect_runtime::run::{Flow, Observer, TickView};
use affect_runtime::trace::{Event, TraceSink};

/// Ends the run at the tick boundary after the main tree finished.
pub struct UntilDone;

/// Whether the tree's status after a tick ends a run that stops when the tree is done.
pub fn finished(root: Status) -> bool {
    matches!(root, Status::Success | Status::Failure)
}

impl TraceSink for UntilDone {
    fn line(&mut self, _: u64, _: f64, _: &str, _: &Event) -> std::io::Result<()> {
        Ok(())
    }
}

impl Observer for UntilDone {
    fn tick_done(&mut self, t: &TickView) -> Flow {
        if finished(t.root) {
            Flow::Stop
        } else {
            Flow::Continue
        }
    }
}

impl RunObserver for UntilDone {}
