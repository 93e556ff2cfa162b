//! `affect replay FILE`: a recorded run played back in the simulator. [`ReplayClock`] gives
//! each tick the time it had on the robot; [`Replay`], an observer, loads each tick's device
//! calls before the tick and checks after it that the replay wrote the trace lines the
//! robot wrote (their count and CRC-32, `timing` lines aside). The first difference stops the
//! replay: E0614, with the tick.

use super::file::{Frames, RecordError, RecordFile};
use super::{LineDigest, Record, ReplayTape};
use crate::run::{Clock, Flow, Observer, TickView};
use crate::trace::{Event, TraceSink};
use std::io;

/// The recorded times of the ticks.
pub struct ReplayClock(pub ReplayTape);

impl Clock for ReplayClock {
    fn wait_until(&mut self, _due_ms: f64) -> f64 {
        self.0.t_ms()
    }
}

/// The tick record being played: which instance ticks, which tick, and what its trace
/// lines were.
#[derive(Clone, Copy)]
struct Expected {
    k: u32,
    tick: u64,
    lines: u32,
    crc: u32,
}

pub struct Replay {
    tape: ReplayTape,
    frames: Frames,
    digest: LineDigest,
    expected: Option<Expected>,
    /// The end record's lines, once it is reached.
    end: Option<(u32, u32)>,
    /// Ticks played.
    pub ticks: u64,
    /// Why the replay differs from the record (E0614), or why the record could not be read:
    /// the code and the message.
    pub error: Option<(&'static str, String)>,
}

/// How a replay went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replayed {
    pub ticks: u64,
    /// Whether the recorded run had ended (a run killed or cut by a power loss has not: its
    /// replay stops where the record does, and halts and summarises as a stop would).
    pub ended: bool,
}

impl Replay {
    /// Plays run `run` of `file` through `tape`.
    pub fn new(file: &RecordFile, run: usize, tape: ReplayTape) -> Result<Replay, RecordError> {
        let mut replay = Replay {
            tape,
            frames: file.frames(run)?,
            digest: LineDigest::default(),
            expected: None,
            end: None,
            ticks: 0,
            error: None,
        };
        replay.advance();
        Ok(replay)
    }

    /// Loads the next record.
    fn advance(&mut self) {
        self.expected = None;
        match self.frames.read() {
            Ok(Some(Record::Tick {
                k,
                tick,
                t_ms,
                entries,
                lines,
                crc,
            })) => {
                self.tape.load(t_ms, entries);
                self.expected = Some(Expected {
                    k,
                    tick,
                    lines,
                    crc,
                });
            }
            Ok(Some(Record::End {
                entries,
                lines,
                crc,
            })) => {
                let t = self.tape.t_ms();
                self.tape.load(t, entries);
                self.end = Some((lines, crc));
            }
            Ok(Some(Record::Header(_)) | None) => self.tape.lenient(),
            Err(e) => self.error = Some((e.code, e.message)),
        }
    }

    fn diverged(&mut self, at: &str, what: String) {
        if self.error.is_none() {
            self.error = Some((
                "E0614",
                format!("the replay differs from the recorded run {at}: {what}"),
            ));
        }
    }

    /// The run is over: the end record's lines against the replay's last ones.
    pub fn finish(mut self) -> Result<Replayed, (&'static str, String)> {
        let (lines, crc) = self.digest.take();
        if let Some(d) = self.tape.divergence() {
            self.diverged("as it stopped", d);
        }
        if let Some((l, c)) = self.end {
            if (l, c) != (lines, crc) {
                self.diverged(
                    "as it stopped",
                    format!(
                        "{lines} trace lines (CRC-32 {crc:08x}) where the record has {l} ({c:08x})"
                    ),
                );
            }
        }
        match self.error {
            Some(e) => Err(e),
            None => Ok(Replayed {
                ticks: self.ticks,
                ended: self.end.is_some(),
            }),
        }
    }
}

impl TraceSink for Replay {
    fn line(&mut self, tick: u64, t_ms: f64, agent: &str, ev: &Event) -> io::Result<()> {
        self.digest.line(tick, t_ms, agent, ev);
        Ok(())
    }
}

impl Observer for Replay {
    fn tick_done(&mut self, t: &TickView) -> Flow {
        let (lines, crc) = self.digest.take();
        let at = format!("at tick {} of `{}`", t.tick, t.agent);
        if let Some(d) = self.tape.divergence() {
            self.diverged(&at, d);
        }
        match self.expected {
            Some(e) if (e.k, e.tick) != (t.index as u32, t.tick) => self.diverged(
                &at,
                format!("the record has tick {} of instance #{} here", e.tick, e.k),
            ),
            Some(e) if (e.lines, e.crc) != (lines, crc) => self.diverged(
                &at,
                format!(
                    "{lines} trace lines (CRC-32 {crc:08x}) where the record has {} ({:08x})",
                    e.lines, e.crc
                ),
            ),
            Some(_) => {}
            None => self.diverged(&at, "the record has no more ticks".into()),
        }
        if self.error.is_some() {
            return Flow::Stop;
        }
        self.ticks += 1;
        self.advance();
        if self.expected.is_some() && self.error.is_none() {
            Flow::Continue
        } else {
            Flow::Stop
        }
    }
}
