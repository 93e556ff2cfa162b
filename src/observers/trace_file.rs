//! `--trace FILE.jsonl`: the run's events as JSON Lines (docs/trace.md); a path ending in
//! `.zst` is written compressed with Zstandard (`affect report` reads it as it is). A line
//! that cannot be written does not stop the run; the first failure is reported when it ends.

use super::RunObserver;
use affect_runtime::run::Observer;
use affect_runtime::trace::{Event, JsonLines, TraceSink};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// zstd's default level: a trace is written at hundreds of megabytes a second.
const ZSTD_LEVEL: i32 = 3;

/// Where the lines go: the file, or a compressor in front of it.
enum Out {
    Plain(BufWriter<File>),
    Zstd(zstd::Encoder<'static, BufWriter<File>>),
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Out::Plain(w) => w.write(buf),
            Out::Zstd(z) => z.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Out::Plain(w) => w.flush(),
            Out::Zstd(z) => z.flush(),
        }
    }
}

impl Out {
    /// Writes what is left (the compressed stream's end) to the file.
    fn finish(self) -> io::Result<()> {
        match self {
            Out::Plain(mut w) => w.flush(),
            Out::Zstd(z) => z.finish()?.flush(),
        }
    }
}

pub struct TraceFile {
    path: PathBuf,
    /// Taken when the run finishes.
    out: Option<JsonLines<Out>>,
    failed: Option<io::Error>,
}

impl TraceFile {
    /// Creates (or empties) the file.
    pub fn create(path: &Path) -> Result<TraceFile, String> {
        let cannot = |e: io::Error| format!("cannot write `{}`: {e}", path.display());
        let f = BufWriter::new(File::create(path).map_err(cannot)?);
        let out = if path.extension().is_some_and(|x| x == "zst") {
            Out::Zstd(zstd::Encoder::new(f, ZSTD_LEVEL).map_err(cannot)?)
        } else {
            Out::Plain(f)
        };
        Ok(TraceFile {
            path: path.to_path_buf(),
            out: Some(JsonLines::new(out)),
            failed: None,
        })
    }
}

impl TraceSink for TraceFile {
    fn line(&mut self, tick: u64, t_ms: f64, agent: &str, ev: &Event) -> io::Result<()> {
        let (None, Some(out)) = (&self.failed, &mut self.out) else {
            return Ok(());
        };
        if let Err(e) = out.line(tick, t_ms, agent, ev) {
            self.failed = Some(e);
        }
        Ok(())
    }
}

impl Observer for TraceFile {}

impl RunObserver for TraceFile {
    fn finish(&mut self, _completed: bool) -> Result<(), String> {
        let finished = match (self.failed.take(), self.out.take()) {
            (Some(e), _) => Err(e),
            // JsonLines writes each line through: nothing is held back in it.
            (None, Some(out)) => out.into_inner().finish(),
            (None, None) => Ok(()),
        };
        finished.map_err(|e| format!("cannot write `{}`: {e}", self.path.display()))
    }
}
