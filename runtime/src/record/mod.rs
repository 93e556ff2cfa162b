//! Record and replay (`affect run --record FILE`, `affect replay FILE`; docs/raspberry-pi.md):
//! a run on the robot writes every device read and event, with the time of its tick, to a
//! record; a replay runs the same program in the simulator on those readings and gives the
//! same trace, bit for bit (the `timing` events aside), in either engine.
//!
//! - [`file`]: the record's framing: a magic line, then records each length-prefixed and
//!   checksummed, written and flushed one per tick; a torn tail (a run killed mid-write) is
//!   found and ignored with a warning, damage before the end is E0612 with its byte offset;
//! - `crate::tape`: the devices of a recording run (each read also goes to the tape) and of
//!   a replay (each read comes from the tape), and what one device read or write is on disk
//!   (`tape::entry`: the format's own types, so a renamed runtime type never changes what
//!   old records mean); the tape sits below the devices' owners (`hardware`, `run`), the
//!   record above them;
//! - [`recorder`] and [`replay`]: the observer that writes a run's frames, and the clock and
//!   observer that play them back and check the replay's trace against the recorded one.

pub mod file;
pub mod recorder;
pub mod replay;

pub use crate::tape::entry::Entry;
pub use crate::tape::{Recording, ReplayTape, Tape};
pub use file::{RecordError, RecordFile, RecordWriter, RunInfo};
pub use recorder::Recorder;
pub use replay::{Replay, ReplayClock};

use crate::jit::EngineKind;
use crate::run::{parse_status, parse_statuses, LeafOut, LeafScript, Pacing, RunConfig};
use serde::{Deserialize, Serialize};

/// What begins a run's records: the program it ran and how.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// The affect version that made the record.
    pub affect: String,
    /// The program file as the run named it, and the SHA-256 (hex) of the source texts its
    /// check read, in the order read: a replay of another program is E0613.
    pub program: String,
    pub sha256: String,
    /// Unix time of the start, seconds (to tell runs apart in `affect replay --list`).
    pub started: u64,
    pub ticks: u64,
    pub seed: u64,
    pub agent: Option<String>,
    pub world: Option<String>,
    pub leaf_default: String,
    /// `--leaf KEY=S1,S2`, as given.
    pub leaves: Vec<(String, String)>,
    pub bb: Vec<(String, String)>,
    pub sleep_between_ticks: Option<f64>,
    /// `Some(sim devices)` on hardware (`--sim-device`), `None` for a simulated run.
    pub hardware: Option<Vec<String>>,
    /// Each long-term memory file the run read (its `persist` name), as it was at the start
    /// (`None`: not there yet); `None` for a run with `--no-persist`.
    pub memories: Option<Vec<(String, Option<Vec<u8>>)>>,
    /// `--leaf-cycle KEY=S1,S2`, as given (records made before it have none).
    #[serde(default)]
    pub leaf_cycles: Vec<(String, String)>,
    /// `--leaf-out NODE.PORT=VALUE`: node, port and value, as given.
    #[serde(default)]
    pub leaf_outs: Vec<(String, String, String)>,
}

impl Header {
    /// The header of a run of `config`. `memories` is what [`Header::memories`] says.
    pub fn of_run(
        program: &str,
        sha256: &str,
        config: &RunConfig,
        memories: Option<Vec<(String, Option<Vec<u8>>)>>,
    ) -> Header {
        let started = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        Header {
            affect: env!("CARGO_PKG_VERSION").to_string(),
            program: program.to_string(),
            sha256: sha256.to_string(),
            started,
            ticks: config.ticks,
            seed: config.seed,
            agent: config.agent.clone(),
            world: config.world.clone(),
            leaf_default: config.leaf_default.name().to_string(),
            leaves: scripts(config, false),
            bb: config.bb.clone(),
            sleep_between_ticks: match config.pacing {
                Pacing::Fixed => None,
                Pacing::SleepBetweenTicks { ms } => Some(ms),
            },
            hardware: config.hardware.as_ref().map(|h| h.simulated.clone()),
            memories,
            leaf_cycles: scripts(config, true),
            leaf_outs: (config.leaf_outs.iter())
                .map(|o| (o.node.clone(), o.port.clone(), o.value.clone()))
                .collect(),
        }
    }

    /// The configuration that replays the run in the simulator: everything as recorded,
    /// the engine as asked, no wall clock and no timing; memories are read from
    /// `persist_dir` (where the replay put the recorded ones).
    pub fn replay_config(
        &self,
        engine: EngineKind,
        persist_dir: Option<std::path::PathBuf>,
    ) -> Result<RunConfig, String> {
        let bad = |what: &str| format!("the record's header has a bad {what}");
        let mut config = RunConfig {
            ticks: self.ticks,
            seed: self.seed,
            agent: self.agent.clone(),
            world: self.world.clone(),
            leaf_default: parse_status(&self.leaf_default).ok_or_else(|| bad("leaf default"))?,
            bb: self.bb.clone(),
            engine,
            persist_dir,
            hardware: (self.hardware.clone())
                .map(|simulated| crate::hardware::HardwareConfig { simulated }),
            ..RunConfig::default()
        };
        let scripts = (self.leaves.iter().map(|l| (l, false)))
            .chain(self.leaf_cycles.iter().map(|l| (l, true)));
        for ((key, v), cycle) in scripts {
            config.leaves.push(LeafScript {
                key: key.clone(),
                statuses: parse_statuses(v).ok_or_else(|| bad("--leaf"))?,
                cycle,
            });
        }
        for (node, port, value) in &self.leaf_outs {
            config.leaf_outs.push(LeafOut {
                node: node.clone(),
                port: port.clone(),
                value: value.clone(),
            });
        }
        if let Some(ms) = self.sleep_between_ticks {
            config.pacing = Pacing::SleepBetweenTicks { ms };
        }
        Ok(config)
    }
}

/// The `--leaf` (or, `cycle`, `--leaf-cycle`) scripts of a run, as given: `KEY`, `S1,S2`.
fn scripts(config: &RunConfig, cycle: bool) -> Vec<(String, String)> {
    (config.leaves.iter())
        .filter(|l| l.cycle == cycle)
        .map(|l| {
            let names: Vec<&str> = l.statuses.iter().map(|s| s.name()).collect();
            (l.key.clone(), names.join(","))
        })
        .collect()
}

/// One record of the file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Record {
    /// A run begins.
    #[serde(rename = "h")]
    Header(Box<Header>),
    /// One agent tick: the instance (spawn order), its tick, when it started (ms), the
    /// device reads and writes since the previous record, and the trace lines written
    /// since then (count and CRC-32, `timing` lines left out).
    #[serde(rename = "t")]
    Tick {
        k: u32,
        tick: u64,
        t_ms: f64,
        entries: Vec<(u16, Entry)>,
        lines: u32,
        crc: u32,
    },
    /// The run ended: what the devices did while it stopped (halts, safe values) and the
    /// trace lines since the last tick.
    #[serde(rename = "e")]
    End {
        entries: Vec<(u16, Entry)>,
        lines: u32,
        crc: u32,
    },
}

/// The trace lines between two records, as the record keeps them: how many, and the CRC-32
/// of their JSON Lines text. `timing` and `timing_summary` lines are left out: they measure
/// the wall clock, which no two runs share.
#[derive(Clone, Default)]
pub struct LineDigest {
    lines: u32,
    crc: crc32fast::Hasher,
    buf: Vec<u8>,
}

impl LineDigest {
    pub fn line(&mut self, tick: u64, t_ms: f64, agent: &str, ev: &crate::trace::Event) {
        use crate::trace::Event;
        if matches!(ev, Event::Timing(_) | Event::TimingSummary(_)) {
            return;
        }
        self.buf.clear();
        crate::trace::write_event(&mut self.buf, tick, t_ms, agent, ev);
        self.crc.update(&self.buf);
        self.lines += 1;
    }

    /// The count and CRC so far; starts again.
    pub fn take(&mut self) -> (u32, u32) {
        let crc = std::mem::take(&mut self.crc).finalize();
        (std::mem::take(&mut self.lines), crc)
    }
}
