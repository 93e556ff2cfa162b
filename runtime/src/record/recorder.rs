//! `--record FILE`: the observer that writes a run's records. The header goes first, when the
//! run writes its first line; each agent tick's record when the tick is done (one write, so
//! a run that dies loses at most the tick it was in); the end record when the run is over.

use super::file::{RecordError, RecordWriter};
use super::{Header, LineDigest, Record, Tape};
use crate::run::{Flow, Observer, TickView};
use crate::trace::{Event, TraceSink};
use std::io;
use std::path::Path;

pub struct Recorder {
    writer: RecordWriter,
    header: Option<Header>,
    tape: Tape,
    digest: LineDigest,
    /// The first write that failed: the run goes on (a robot does not stop because its
    /// disk is full), and the failure is reported when it is over.
    error: Option<io::Error>,
}

impl Recorder {
    /// Opens `path` for the run `header` describes; the devices write their calls to `tape`.
    /// The warning says what was cut off an existing record's torn tail.
    pub fn create(
        path: &Path,
        header: Header,
        tape: Tape,
    ) -> Result<(Recorder, Option<String>), RecordError> {
        let (writer, warning) = RecordWriter::open(path)?;
        let recorder = Recorder {
            writer,
            header: Some(header),
            tape,
            digest: LineDigest::default(),
            error: None,
        };
        Ok((recorder, warning))
    }

    fn write(&mut self, record: &Record) {
        if self.error.is_some() {
            return;
        }
        if let Some(h) = self.header.take() {
            if let Err(e) = self.writer.write(&Record::Header(Box::new(h))) {
                self.error = Some(e);
                return;
            }
        }
        if let Err(e) = self.writer.write(record) {
            self.error = Some(e);
        }
    }

    /// The run is over: the end record (when it ran), everything on the disk; the first
    /// write that failed, if one did.
    pub fn finish(&mut self, completed: bool) -> io::Result<()> {
        if completed && self.header.is_none() {
            let (lines, crc) = self.digest.take();
            let entries = self.tape.take();
            self.write(&Record::End {
                entries,
                lines,
                crc,
            });
        }
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.writer.sync()
    }
}

impl TraceSink for Recorder {
    fn line(&mut self, tick: u64, t_ms: f64, agent: &str, ev: &Event) -> io::Result<()> {
        self.digest.line(tick, t_ms, agent, ev);
        Ok(())
    }
}

impl Observer for Recorder {
    fn tick_done(&mut self, t: &TickView) -> Flow {
        let (lines, crc) = self.digest.take();
        let record = Record::Tick {
            k: t.index as u32,
            tick: t.tick,
            t_ms: t.t_ms,
            entries: self.tape.take(),
            lines,
            crc,
        };
        self.write(&record);
        Flow::Continue
    }
}
