//! A progress line on stderr for long runs, only when stderr is a terminal.

use super::RunObserver;
use affect_runtime::run::{Flow, Observer, TickView};
use affect_runtime::trace::{Event, TraceSink};
use std::cell::Cell;
use std::io::{IsTerminal, Write};

pub struct Bar {
    on: bool,
    last: Cell<u64>,
}

impl Bar {
    pub fn new(wanted: bool) -> Bar {
        Bar {
            on: wanted && std::io::stderr().is_terminal(),
            last: Cell::new(u64::MAX),
        }
    }

    pub fn set(&self, pct: u64) {
        if !self.on || self.last.get() == pct {
            return;
        }
        self.last.set(pct);
        let filled = (pct as usize * 30) / 100;
        let _ = write!(
            std::io::stderr(),
            "\r[{}{}] {pct:3}%",
            "#".repeat(filled),
            " ".repeat(30 - filled)
        );
    }

    /// Whether the bar is drawn (stderr is a terminal and the run is long).
    pub fn is_on(&self) -> bool {
        self.on
    }

    pub fn finish(&self) {
        if self.on {
            let _ = write!(std::io::stderr(), "\r{}\r", " ".repeat(40));
        }
    }
}

impl TraceSink for Bar {
    fn line(&mut self, _: u64, _: f64, _: &str, _: &Event) -> std::io::Result<()> {
        Ok(())
    }
}

impl Observer for Bar {
    fn tick_done(&mut self, t: &TickView) -> Flow {
        self.set(t.done * 100 / t.total.max(1));
        Flow::Continue
    }
}

impl RunObserver for Bar {
    fn finish(&mut self, _completed: bool) -> Result<(), String> {
        Bar::finish(self);
        Ok(())
    }
}
