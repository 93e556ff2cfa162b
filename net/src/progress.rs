//! What `affect launch` shows while the team runs (docs/network.md): the world time reached,
//! the robots still running, the tasks handed over by recruitment, the components found
//! failed and back, and the messages refused. The children write their traces line by line
//! (`pid_trace`); the launcher reads what each added since it last looked, and counts the
//! events that tell these, without parsing the rest.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How often the traces are read.
const POLL: Duration = Duration::from_millis(500);
/// Without a known end, a line this often.
const EVERY: Duration = Duration::from_secs(10);
/// The most read from one trace at one look (the rest at the next).
const CHUNK: u64 = 8 << 20;

/// What the traces told so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Recruitments done: a requester's `helped` (the recruitment example's mines).
    pub handed_over: u64,
    /// Components found failed, and back (`rebound` to a redundant instance, or `recovered`
    /// after a restart).
    pub failed: u64,
    pub back: u64,
    /// Messages from the network a process refused (`rejected`).
    pub refused: u64,
}

impl Counts {
    /// Counts what one trace line tells.
    pub fn line(&mut self, line: &str) {
        let Some(ev) = field(line, "ev") else {
            return;
        };
        match ev {
            "recruit" if field(line, "step") == Some("helped") => self.handed_over += 1,
            "component" => match field(line, "state") {
                Some("failed") => self.failed += 1,
                Some("rebound" | "recovered") => self.back += 1,
                _ => {}
            },
            "rejected" => self.refused += 1,
            _ => {}
        }
    }
}

/// The value of a string field of a trace line as the runtime writes it (`"ev":"recruit"`);
/// the fields read here are names without escapes.
fn field<'l>(line: &'l str, key: &str) -> Option<&'l str> {
    let at = line.find(&format!("\"{key}\":\""))? + key.len() + 4;
    let len = line[at..].find('"')?;
    Some(&line[at..at + len])
}

/// One child's trace, read as it grows.
struct Tail {
    path: PathBuf,
    offset: u64,
    partial: Vec<u8>,
}

impl Tail {
    /// Hands each complete line added since the last call to `each`.
    fn read(&mut self, each: &mut dyn FnMut(&str)) {
        let Ok(mut f) = std::fs::File::open(&self.path) else {
            return;
        };
        if f.seek(SeekFrom::Start(self.offset)).is_err() {
            return;
        }
        let mut buf = Vec::new();
        let Ok(n) = f.take(CHUNK).read_to_end(&mut buf) else {
            return;
        };
        self.offset += n as u64;
        self.partial.extend_from_slice(&buf);
        if let Some(end) = self.partial.iter().rposition(|&b| b == b'\n') {
            let lines: Vec<u8> = self.partial.drain(..=end).collect();
            for line in String::from_utf8_lossy(&lines).lines() {
                each(line);
            }
        }
    }
}

/// The launch's progress on stderr: a line at every tenth of the world time the robots run
/// (every 10 s of wall time when that is not known), and the counts at the end.
pub struct Progress {
    tails: Vec<Tail>,
    pub counts: Counts,
    /// World ms the longest-running robot takes, when known.
    end_ms: Option<f64>,
    next_tenth: u64,
    started: Instant,
    last_look: Instant,
    last_line: Instant,
    quiet: bool,
    /// Whether recruitment and component hosts are part of this team (else their counts
    /// are not shown).
    recruiting: bool,
    hosts: bool,
}

impl Progress {
    pub fn new(end_ms: Option<f64>, recruiting: bool, hosts: bool, quiet: bool) -> Progress {
        let now = Instant::now();
        Progress {
            tails: Vec::new(),
            counts: Counts::default(),
            end_ms: end_ms.filter(|e| e.is_finite() && *e > 0.0),
            next_tenth: 1,
            started: now,
            last_look: now,
            last_line: now,
            quiet,
            recruiting,
            hosts,
        }
    }

    /// Reads a child's trace from now on.
    pub fn watch(&mut self, trace: &Path) {
        self.tails.push(Tail {
            path: trace.to_path_buf(),
            offset: 0,
            partial: Vec::new(),
        });
    }

    /// Looks at the traces (twice a second at most) and prints a line when one is due:
    /// `running` of `robots` robots are still running at world time `now_ms`.
    pub fn tick(&mut self, now_ms: f64, running: usize, robots: usize) {
        if self.last_look.elapsed() < POLL {
            return;
        }
        self.last_look = Instant::now();
        self.look();
        if self.quiet {
            return;
        }
        let due = match self.end_ms {
            Some(end) => {
                let tenth = (now_ms / end * 10.0).floor().max(0.0) as u64;
                let due = tenth >= self.next_tenth && tenth < 10;
                if due {
                    self.next_tenth = tenth + 1;
                }
                due
            }
            None => self.last_line.elapsed() >= EVERY,
        };
        if due {
            self.last_line = Instant::now();
            eprintln!("{}", self.line(now_ms, running, robots));
        }
    }

    /// Reads what every trace added.
    pub fn look(&mut self) {
        let counts = &mut self.counts;
        for t in &mut self.tails {
            t.read(&mut |l| counts.line(l));
        }
    }

    /// `launch: 120.0s of 300.0s world time, 13 of 13 robots running, 2 handed over, 4.0s
    /// elapsed`.
    pub fn line(&self, now_ms: f64, running: usize, robots: usize) -> String {
        let world = match self.end_ms {
            Some(end) => format!("{:.1}s of {:.1}s world time", now_ms / 1000.0, end / 1000.0),
            None => format!("{:.1}s world time", now_ms / 1000.0),
        };
        format!(
            "launch: {world}, {running} of {robots} robots running{}, {:.1}s elapsed",
            self.tells(),
            self.started.elapsed().as_secs_f64()
        )
    }

    /// What the counts tell, each part led by a comma: the handed-over tasks when the team
    /// recruits, the components when it has hosts, refused messages when there were any.
    pub fn tells(&self) -> String {
        let c = &self.counts;
        let mut out = String::new();
        if self.recruiting {
            out.push_str(&format!(", {} handed over", c.handed_over));
        }
        if self.hosts || c.failed > 0 {
            out.push_str(&format!(
                ", {} component{} found failed, {} back",
                c.failed,
                if c.failed == 1 { "" } else { "s" },
                c.back
            ));
        }
        if c.refused > 0 {
            out.push_str(&format!(
                ", {} message{} refused",
                c.refused,
                if c.refused == 1 { "" } else { "s" }
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_counted_by_their_event_and_step() {
        let mut c = Counts::default();
        for l in [
            r#"{"pid":7,"tick":3,"t_ms":3000.0,"agent":"UAV","ev":"recruit","block":"help","step":"helped","peer":"UGV#2"}"#,
            r#"{"pid":7,"tick":3,"t_ms":3000.0,"agent":"UAV","ev":"recruit","block":"help","step":"chose","peer":"UGV#2"}"#,
            r#"{"tick":1,"t_ms":1.0,"agent":"P","ev":"component","name":"s","state":"failed","host":null}"#,
            r#"{"tick":1,"t_ms":1.0,"agent":"P","ev":"component","name":"s","state":"rebound","host":null}"#,
            r#"{"tick":1,"t_ms":1.0,"agent":"P","ev":"component","name":"t","state":"recovered","host":null}"#,
            r#"{"tick":1,"t_ms":1.0,"agent":"P","ev":"rejected","from":"x","kind":"HELP","why":"bad signature"}"#,
            r#"{"tick":1,"t_ms":1.0,"agent":"P","ev":"var","name":"step","value":"helped"}"#,
            "not json",
        ] {
            c.line(l);
        }
        assert_eq!(
            c,
            Counts {
                handed_over: 1,
                failed: 1,
                back: 2,
                refused: 1
            }
        );
    }

    #[test]
    fn a_growing_trace_is_read_line_by_line_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let helped = r#"{"ev":"recruit","step":"helped"}"#;
        std::fs::write(&path, format!("{helped}\n{}", &helped[..10])).unwrap();
        let mut p = Progress::new(Some(1000.0), true, false, true);
        p.watch(&path);
        p.look();
        assert_eq!(p.counts.handed_over, 1, "a torn line is not counted yet");
        std::fs::write(&path, format!("{helped}\n{helped}\n")).unwrap();
        p.look();
        assert_eq!(p.counts.handed_over, 2);
        p.look();
        assert_eq!(p.counts.handed_over, 2, "nothing is counted twice");
        assert!(p.line(500.0, 3, 4).starts_with(
            "launch: 0.5s of 1.0s world time, 3 of 4 robots running, 2 handed over, "
        ));
    }
}
