//! `affect run --btlog FILE.btlog`: the run recorded in Groot 2's log format (BehaviorTree.CPP's
//! `FileLogger2`), so Groot 2 replays it: the magic `BTCPP4-FileLogger2`, protocol byte 1, the
//! tree XML (the one `--groot2` serves, with `_uid`s) after its `i32` length, the start time
//! (`i64` µs since the epoch), then one 9-byte record per status transition: `u48` µs since
//! the start, `u16` uid, `u8` status (0 IDLE .. 4 SKIPPED). Little-endian throughout.
//!
//! Times are simulated time, so a replay shows the run as it went in the simulated world and
//! the same run gives the same records. One file holds one tree: with several agent instances,
//! `--agent` says which one is recorded (the first to appear otherwise).

use super::groot2::{served_tree, wire};
use affect_compiler::groot::xml::Document;
use affect_compiler::ir::program::Program;
use affect_runtime::trace::{Event, TraceSink};
use std::io::{self, Write};

pub const MAGIC: &[u8] = b"BTCPP4-FileLogger2";

/// Writes the log as events arrive; the first error is kept and reported after the run.
pub struct BtLog<'p, W: Write> {
    program: &'p Program,
    exported: Option<Document>,
    out: W,
    /// `--agent`: an instance (`UGV#2`) or an agent program (`UGV`, its first instance).
    want: Option<String>,
    /// The instance recorded, once known.
    agent: Option<String>,
    wrote_header: bool,
    /// The start time written in the header, µs since the epoch.
    start_us: i64,
    pub error: Option<io::Error>,
    buf: Vec<u8>,
    /// The file's name, for messages.
    name: String,
}

impl<'p, W: Write> BtLog<'p, W> {
    /// `want`: the instance to record (`None`: the first one to appear).
    pub fn new(
        program: &'p Program,
        exported: Option<Document>,
        want: Option<String>,
        out: W,
        start_us: i64,
    ) -> BtLog<'p, W> {
        BtLog {
            program,
            exported,
            out,
            want,
            agent: None,
            wrote_header: false,
            start_us,
            error: None,
            buf: Vec::new(),
            name: String::new(),
        }
    }

    /// Names the file in error messages.
    pub fn named(self, name: String) -> Self {
        BtLog { name, ..self }
    }

    fn header(&mut self, name: &str) -> io::Result<()> {
        let p = super::groot2::program_of(self.program, name)
            .ok_or_else(|| io::Error::other(format!("no program for agent `{name}`")))?;
        let tree = served_tree::build(p, &p.name, self.exported.as_ref());
        let len = i32::try_from(tree.xml.len())
            .map_err(|_| io::Error::other("the tree's XML is over 2 GB"))?;
        self.out.write_all(MAGIC)?;
        self.out.write_all(&[1])?;
        self.out.write_all(&len.to_le_bytes())?;
        self.out.write_all(tree.xml.as_bytes())?;
        self.out.write_all(&self.start_us.to_le_bytes())?;
        self.wrote_header = true;
        Ok(())
    }

    /// Flushes what is buffered; call after the run.
    pub fn finish(&mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if !self.wrote_header {
            // A run without a single transition still gives a file Groot 2 opens.
            let name = self
                .agent
                .clone()
                .or_else(|| self.want.clone())
                .or_else(|| self.program.agents.first().map(|a| a.name.clone()))
                .ok_or_else(|| io::Error::other("the program has no tree to record"))?;
            self.header(&name)?;
        }
        self.out.write_all(&self.buf)?;
        self.buf.clear();
        self.out.flush()
    }

    fn record(&mut self, t_ms: f64, agent: &str, ev: &Event) -> io::Result<()> {
        let Event::Node { uid, to, .. } = ev else {
            return Ok(());
        };
        match &self.agent {
            Some(a) if a != agent => return Ok(()),
            Some(_) => {}
            None => {
                let Some(p) = super::groot2::program_of(self.program, agent) else {
                    return Ok(());
                };
                if let Some(w) = &self.want {
                    if *w != agent && *w != p.name {
                        return Ok(());
                    }
                }
                self.agent = Some(agent.to_string());
                self.header(agent)?;
            }
        }
        let micros = (t_ms * 1000.0).round().max(0.0) as u64;
        let uid = u16::try_from(*uid).map_err(|_| io::Error::other("a uid past 65535"))?;
        wire::transition(&mut self.buf, micros, uid, wire::status_number(to));
        if self.buf.len() >= 1 << 16 {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }
}

impl<W: Write> TraceSink for BtLog<'_, W> {
    fn line(&mut self, _tick: u64, t_ms: f64, agent: &str, ev: &Event) -> io::Result<()> {
        if self.error.is_none() {
            if let Err(e) = self.record(t_ms, agent, ev) {
                self.error = Some(e);
            }
        }
        Ok(())
    }
}

impl<'p> BtLog<'p, std::io::BufWriter<std::fs::File>> {
    /// `--btlog PATH`: the file is made now, so a path that cannot be written stops the run
    /// before it starts.
    pub fn create(
        program: &'p Program,
        exported: Option<Document>,
        want: Option<String>,
        path: &std::path::Path,
    ) -> Result<Self, String> {
        if path.extension().and_then(|e| e.to_str()) != Some("btlog") {
            return Err(format!(
                "--btlog `{}`: Groot 2 opens only files named *.btlog",
                path.display()
            ));
        }
        let file = std::fs::File::create(path)
            .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
        let start_us = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_micros() as i64);
        let log = BtLog::new(
            program,
            exported,
            want,
            std::io::BufWriter::new(file),
            start_us,
        );
        Ok(log.named(path.display().to_string()))
    }
}

impl<W: Write> affect_runtime::run::Observer for BtLog<'_, W> {}

impl<W: Write> super::RunObserver for BtLog<'_, W> {
    fn finish(&mut self, _completed: bool) -> Result<(), String> {
        BtLog::finish(self).map_err(|e| format!("cannot write `{}`: {e}", self.name))
    }
}
