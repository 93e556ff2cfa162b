//! The seams a run offers its drivers (docs/architecture.md): the clock it waits on, the
//! observer that hears each event and each tick's end and may stop the run at a tick
//! boundary, and stepping a run by hand.

use affect_compiler::ir::program::Status;
use affect_compiler::sema::NoFiles;
use affect_runtime::run::{self, Clock, Flow, Observer, Run, RunConfig, SimClock, TickView};
use affect_runtime::trace::{Event, JsonLines, TraceSink};

const TWO_AGENTS: &str = r#"
agent Fast {
    rate 10Hz;
    var n: int = 0;
    update { n += 1; }
    main { succeed }
}

agent Slow {
    rate 4Hz;
    var m: int = 0;
    update { m += 2; }
    main { succeed }
}
"#;

fn program(src: &str) -> affect_compiler::ir::program::Program {
    let analysis = affect_compiler::check_source_with(src, &NoFiles);
    analysis
        .program
        .unwrap_or_else(|| panic!("does not compile: {:#?}", analysis.diagnostics))
}

/// Records every tick's end and the value of the agent's first slot then; stops after
/// `stop_after` ticks if asked.
#[derive(Default)]
struct Ticks {
    seen: Vec<(String, u64, f64, Status, f64)>,
    events: usize,
    stop_after: Option<usize>,
}

impl TraceSink for Ticks {
    fn line(&mut self, _: u64, _: f64, _: &str, _: &Event) -> std::io::Result<()> {
        self.events += 1;
        Ok(())
    }
}

impl Observer for Ticks {
    fn tick_done(&mut self, t: &TickView) -> Flow {
        assert_eq!(t.done as usize, self.seen.len() + 1);
        assert_eq!(t.program.name, t.agent);
        self.seen.push((
            t.agent.to_string(),
            t.tick,
            t.t_ms,
            t.root,
            t.machine.slots[0],
        ));
        match self.stop_after {
            Some(n) if self.seen.len() >= n => Flow::Stop,
            _ => Flow::Continue,
        }
    }
}

/// A clock that notes when each tick was due and starts it 1 ms late.
#[derive(Default)]
struct LateClock {
    due: Vec<f64>,
}

impl Clock for LateClock {
    fn wait_until(&mut self, due_ms: f64) -> f64 {
        self.due.push(due_ms);
        due_ms + 1.0
    }
}

#[test]
fn the_observer_hears_every_tick_in_time_order_with_the_agents_state() {
    let program = program(TWO_AGENTS);
    let config = RunConfig {
        ticks: 3,
        ..RunConfig::default()
    };
    let mut obs = Ticks::default();
    let summaries = Run::new(&program, &config)
        .expect("sets up")
        .run_to_end(&mut SimClock, &mut obs)
        .expect("runs");
    let order: Vec<(&str, u64, f64)> = obs
        .seen
        .iter()
        .map(|(a, t, ms, ..)| (a.as_str(), *t, *ms))
        .collect();
    assert_eq!(
        order,
        [
            ("Fast", 0, 0.0),
            ("Slow", 0, 0.0),
            ("Fast", 1, 100.0),
            ("Fast", 2, 200.0),
            ("Slow", 1, 250.0),
            ("Slow", 2, 500.0),
        ]
    );
    // The machine is the state after the tick: the counters went up already.
    assert_eq!(obs.seen[0].4, 1.0);
    assert_eq!(obs.seen[5].4, 6.0);
    assert!(obs.seen.iter().all(|s| s.3 == Status::Success));
    assert_eq!(summaries.len(), 2);
    assert!(obs.events > 0);
}

#[test]
fn stopping_at_a_tick_boundary_still_summarises_the_run() {
    let program = program(TWO_AGENTS);
    let config = RunConfig {
        ticks: 100,
        ..RunConfig::default()
    };
    let mut obs = Ticks {
        stop_after: Some(3),
        ..Ticks::default()
    };
    let summaries = Run::new(&program, &config)
        .expect("sets up")
        .run_to_end(&mut SimClock, &mut obs)
        .expect("runs");
    assert_eq!(obs.seen.len(), 3);
    let ticks: Vec<(&str, u64)> = summaries
        .iter()
        .map(|s| (s.agent.as_str(), s.ticks))
        .collect();
    assert_eq!(ticks, [("Fast", 2), ("Slow", 1)]);
}

#[test]
fn the_clock_is_asked_for_each_due_tick_and_its_time_is_the_ticks_time() {
    let program = program(TWO_AGENTS);
    let config = RunConfig {
        ticks: 2,
        agent: Some("Slow".into()),
        ..RunConfig::default()
    };
    let mut clock = LateClock::default();
    let mut obs = Ticks::default();
    Run::new(&program, &config)
        .expect("sets up")
        .run_to_end(&mut clock, &mut obs)
        .expect("runs");
    // Started 1 ms late, the next tick is still due on the period's grid: lateness does
    // not drift the schedule.
    assert_eq!(clock.due, [0.0, 250.0]);
    let times: Vec<f64> = obs.seen.iter().map(|s| s.2).collect();
    assert_eq!(times, [1.0, 251.0]);
}

/// A robot's clock, on a simulated wall: each tick starts when due, but the process is
/// stopped for `stall_ms` before tick `stall_at` (SIGSTOP, a hang); it reports how late.
struct StalledClock {
    now: f64,
    stall_at: usize,
    stall_ms: f64,
    due: Vec<f64>,
    late: f64,
}

impl Clock for StalledClock {
    fn wait_until(&mut self, due_ms: f64) -> f64 {
        if self.due.len() == self.stall_at {
            self.now = due_ms + self.stall_ms;
        }
        self.due.push(due_ms);
        self.now = self.now.max(due_ms);
        self.late = self.now - due_ms;
        self.now
    }

    fn late_ms(&self) -> f64 {
        self.late
    }
}

/// Keeps the `timing` events: (missed, skipped) of each tick, and the summary's counts.
#[derive(Default)]
struct Timings {
    ticks: Vec<(bool, u64)>,
    summary: Option<(u64, u64)>,
}

impl TraceSink for Timings {
    fn line(&mut self, _: u64, _: f64, _: &str, ev: &Event) -> std::io::Result<()> {
        match ev {
            Event::Timing(t) => self.ticks.push((t.missed, t.skipped)),
            Event::TimingSummary(s) => self.summary = Some((s.missed, s.skipped)),
            _ => {}
        }
        Ok(())
    }
}

impl Observer for Timings {}

#[test]
fn after_a_stall_the_missed_periods_are_skipped_and_reported_not_run_in_a_burst() {
    let program = program(TWO_AGENTS);
    let config = RunConfig {
        ticks: 6,
        agent: Some("Fast".into()),
        timing: true,
        ..RunConfig::default()
    };
    // 10 Hz; the process stops for 1,080 ms just before the tick due at 200 ms.
    let mut clock = StalledClock {
        now: 0.0,
        stall_at: 2,
        stall_ms: 1080.0,
        due: Vec::new(),
        late: 0.0,
    };
    let mut obs = Timings::default();
    Run::new(&program, &config)
        .expect("sets up")
        .run_to_end(&mut clock, &mut obs)
        .expect("runs");
    // The late tick runs once, at 1,280 ms; the ten periods it missed (300 ms to 1,200 ms)
    // are skipped, and the schedule starts again from it, a period later.
    assert_eq!(clock.due, [0.0, 100.0, 200.0, 1380.0, 1480.0, 1580.0]);
    assert_eq!(
        obs.ticks,
        [
            (false, 0),
            (false, 0),
            (true, 10),
            (false, 0),
            (false, 0),
            (false, 0)
        ]
    );
    assert_eq!(obs.summary, Some((1, 10)));
}

#[test]
fn stepping_by_hand_writes_the_same_trace_as_run() {
    let program = program(TWO_AGENTS);
    let config = RunConfig {
        ticks: 5,
        ..RunConfig::default()
    };
    let mut whole = JsonLines::new(Vec::new());
    run::run(&program, &config, &mut whole, |_| {}).expect("runs");
    let mut stepped = JsonLines::new(Vec::new());
    let mut r = Run::new(&program, &config).expect("sets up");
    assert_eq!(r.agents().collect::<Vec<_>>(), ["Fast", "Slow"]);
    r.start(&mut stepped);
    let mut steps = 0;
    while let Some((_, due)) = r.next_due() {
        assert!(due >= 0.0);
        assert_eq!(r.step(&mut SimClock, &mut stepped), Some(Flow::Continue));
        steps += 1;
    }
    assert_eq!(r.step(&mut SimClock, &mut stepped), None);
    r.finish(&mut stepped).expect("finishes");
    assert_eq!(steps, 10);
    assert_eq!(
        String::from_utf8(whole.into_inner()).unwrap(),
        String::from_utf8(stepped.into_inner()).unwrap()
    );
}
