//! What the launcher refused: a control message or restart request that failed its checks
//! (a stranger's, a forged or replayed one) starts nothing, and is told on stderr and in the
//! launch's trace as a `rejected` line of the launcher (as robots trace theirs), so the
//! launch's count of refused messages includes it.

use crate::keys::LAUNCHER;
use crate::node::Node;
use affect_runtime::trace::{Event, JsonLines, TraceSink};
use std::fs::File;
use std::io::LineWriter;
use std::path::{Path, PathBuf};

pub struct Refusals {
    path: PathBuf,
    sink: JsonLines<LineWriter<File>>,
    pub count: u64,
}

impl Refusals {
    /// The launcher's own trace, at `path` (merged with the processes' at the end).
    pub fn create(path: &Path) -> Result<Refusals, String> {
        let f =
            File::create(path).map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
        Ok(Refusals {
            path: path.to_path_buf(),
            sink: JsonLines::with_pid(LineWriter::new(f), std::process::id()),
            count: 0,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Tells and traces what `me` refused since the last call, at world time `now`.
    pub fn take(&mut self, me: &mut Node, now: f64) {
        for r in me.rejected.drain(..) {
            self.count += 1;
            eprintln!("launch: refused {} from {}: {}", r.kind, r.from, r.why);
            let _ = self.sink.line(
                0,
                now.max(0.0),
                LAUNCHER,
                &Event::Rejected {
                    from: &r.from,
                    kind: &r.kind,
                    why: &r.why,
                },
            );
        }
    }
}
