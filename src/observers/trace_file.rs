//! `--trace FILE.jsonl`: the run's events as JSON Lines (docs/trace.md). A line that cannot
//! be written does not stop the run; the first failure is reported when it ends.

use super::RunObserver;
use affect_runtime::run::Observer;
use affect_runtime::trace::{Event, JsonLines, TraceSink};
use std::fs::File;
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

pub struct TraceFile {
    path: PathBuf,
    out: JsonLines<BufWriter<File>>,
    failed: Option<io::Error>,
}

impl TraceFile {
    /// Creates (or empties) the file.
    pub fn create(path: &Path) -> Result<TraceFile, String> {
        let f =
            File::create(path).map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
        Ok(TraceFile {
            path: path.to_path_buf(),
            out: JsonLines::new(BufWriter::new(f)),
            failed: None,
        })
    }
}

impl TraceSink for TraceFile {
    fn line(&mut self, tick: u64, t_ms: f64, agent: &str, ev: &Event) -> io::Result<()> {
        if self.failed.is_some() {
            return Ok(());
        }
        let written = self.out.line(tick, t_ms, agent, ev);
        if let Err(e) = written {
            self.failed = Some(e);
        }
        Ok(())
    }
}

impl Observer for TraceFile {}

impl RunObserver for TraceFile {
    fn finish(&mut self, _completed: bool) -> Result<(), String> {
        let flushed = match self.failed.take() {
            Some(e) => Err(e),
            None => self.out.flush(),
        };
        flushed.map_err(|e| format!("cannot write `{}`: {e}", self.path.display()))
    }
}
