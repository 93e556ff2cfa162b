//! How far a run is, on stderr (docs/run.md). On a terminal, a long run draws an indicatif
//! bar with the ticks made, the simulated time, the time elapsed and the time left; the
//! story's lines are written above it. Off a terminal (a log, CI) a long run prints a plain
//! line at every tenth instead of redrawing one. Either way the run ends with one line: the
//! ticks made, the simulated time and how long it took.

use super::RunObserver;
use affect_compiler::ir::program::Status;
use affect_runtime::run::{Flow, Observer, TickView};
use affect_runtime::trace::{Event, TraceSink};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{self, IsTerminal, Write};
use std::time::{Duration, Instant};

/// How the progress is shown while the run goes.
enum Show {
    /// Nothing (a short run, or `--quiet`).
    Nothing,
    /// A bar redrawn in place, on a terminal.
    Bar(ProgressBar),
    /// A plain line at every tenth of the run; `next` is the tenth to print next.
    Lines { next: u64 },
}

pub struct Progress {
    show: Show,
    /// Print the one-line result at the end.
    result: bool,
    start: Instant,
    done: u64,
    total: u64,
    /// The agent instances seen ticking, and the latest simulated time.
    agents: usize,
    t_ms: f64,
    /// The run ends when a plain tree finishes (`until_done.rs`), and the main tree's
    /// status after the last tick, to say so.
    until_done: bool,
    root: Status,
}

impl Progress {
    /// `long`: the run is long enough to show its progress; `quiet`: show nothing at all.
    pub fn new(long: bool, quiet: bool) -> Progress {
        let show = match (quiet || !long, io::stderr().is_terminal()) {
            (true, _) => Show::Nothing,
            (false, true) => Show::Bar(bar()),
            (false, false) => Show::Lines { next: 1 },
        };
        Progress {
            show,
            result: !quiet,
            start: Instant::now(),
            done: 0,
            total: 0,
            agents: 0,
            t_ms: 0.0,
            until_done: false,
            root: Status::Idle,
        }
    }

    /// The run ends when the main tree returns SUCCESS or FAILURE: the result says so.
    pub fn until_done(mut self) -> Progress {
        self.until_done = true;
        self
    }

    /// Where the story writes its lines: above the bar, when one is drawn.
    pub fn story_out(&self) -> AboveBar {
        AboveBar {
            bar: match &self.show {
                Show::Bar(b) => Some(b.clone()),
                _ => None,
            },
            buf: Vec::new(),
        }
    }

    /// The plain progress line of a run `done` of `total` agent ticks in, at simulated time
    /// `t_ms`, `elapsed` after it started.
    fn progress_line(&self, tenth: u64, elapsed: Duration) -> String {
        let left = elapsed.mul_f64((self.total - self.done) as f64 / self.done.max(1) as f64);
        format!(
            "progress: {}% ({}/{} ticks), {} simulated, {} elapsed, about {} left",
            tenth * 10,
            self.done,
            self.total,
            simulated(self.t_ms),
            wall(elapsed),
            wall(left)
        )
    }

    /// The one line a run ends with.
    fn result(&self, elapsed: Duration) -> String {
        let agents = match self.agents {
            1 => "1 agent".to_string(),
            n => format!("{n} agents"),
        };
        let tree_done = self.until_done && super::until_done::finished(self.root);
        let ticks = match self.done == self.total || tree_done {
            true => format!(
                "ran {} tick{}",
                self.done,
                if self.done == 1 { "" } else { "s" }
            ),
            false => format!("stopped after {} of {} ticks", self.done, self.total),
        };
        let why = match tree_done {
            true => format!(
                "; the tree returned {} (--loop ticks it again)",
                self.root.name()
            ),
            false => String::new(),
        };
        format!(
            "{ticks} ({agents}), {} simulated, in {}{why}",
            simulated(self.t_ms),
            wall(elapsed)
        )
    }
}

fn bar() -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:30} {percent:>3}% {pos}/{len} ticks, {msg} simulated, {elapsed} elapsed, {eta} left",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

/// Simulated seconds, to a tenth.
fn simulated(t_ms: f64) -> String {
    format!("{:.1}s", t_ms / 1000.0)
}

/// Wall-clock time as people read it: `0.42s`, `12.3s`, `4m 05s`.
fn wall(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 10.0 {
        format!("{s:.2}s")
    } else if s < 60.0 {
        format!("{s:.1}s")
    } else {
        format!("{}m {:02}s", d.as_secs() / 60, d.as_secs() % 60)
    }
}

impl TraceSink for Progress {
    fn line(&mut self, _: u64, _: f64, _: &str, _: &Event) -> io::Result<()> {
        Ok(())
    }
}

impl Observer for Progress {
    fn tick_done(&mut self, t: &TickView) -> Flow {
        self.done = t.done;
        self.total = t.total;
        self.agents = self.agents.max(t.index + 1);
        self.t_ms = self.t_ms.max(t.t_ms);
        self.root = t.root;
        let tenth = match &mut self.show {
            Show::Nothing => None,
            Show::Bar(bar) => {
                // Redrawing is throttled by indicatif; setting the message is not.
                if t.done.is_multiple_of(16) || t.done == t.total {
                    bar.set_length(t.total);
                    bar.set_position(t.done);
                    bar.set_message(format!("{:.1}s", t.t_ms / 1000.0));
                }
                None
            }
            Show::Lines { next } => {
                let tenth = t.done * 10 / t.total.max(1);
                (tenth >= *next && t.done < t.total).then(|| {
                    *next = tenth + 1;
                    tenth
                })
            }
        };
        if let Some(tenth) = tenth {
            eprintln!("{}", self.progress_line(tenth, self.start.elapsed()));
        }
        Flow::Continue
    }
}

impl RunObserver for Progress {
    fn finish(&mut self, completed: bool) -> Result<(), String> {
        if let Show::Bar(bar) = &self.show {
            bar.finish_and_clear();
        }
        if completed && self.result {
            eprintln!("{}", self.result(self.start.elapsed()));
        }
        Ok(())
    }
}

/// Writes whole lines to stderr, above the progress bar when one is drawn (the bar is
/// taken down while a line is written, then drawn again below it).
pub struct AboveBar {
    bar: Option<ProgressBar>,
    buf: Vec<u8>,
}

impl AboveBar {
    fn emit(&self, bytes: &[u8]) -> io::Result<()> {
        match &self.bar {
            Some(bar) => bar.suspend(|| io::stderr().write_all(bytes)),
            None => io::stderr().write_all(bytes),
        }
    }
}

impl Write for AboveBar {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(bytes);
        if let Some(end) = self.buf.iter().rposition(|&b| b == b'\n') {
            let lines: Vec<u8> = self.buf.drain(..=end).collect();
            self.emit(&lines)?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if !self.buf.is_empty() {
            let rest = std::mem::take(&mut self.buf);
            self.emit(&rest)?;
        }
        io::stderr().flush()
    }
}

impl Drop for AboveBar {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::wall;
    use std::time::Duration;

    #[test]
    fn wall_time_reads_as_people_say_it() {
        assert_eq!(wall(Duration::from_millis(420)), "0.42s");
        assert_eq!(wall(Duration::from_millis(12_340)), "12.3s");
        assert_eq!(wall(Duration::from_secs(245)), "4m 05s");
    }
}
