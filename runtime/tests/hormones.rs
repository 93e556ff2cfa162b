//! Hormone dynamics (seed 003, docs/affect.md §2), worked out by hand: a stimulus further
//! from the baseline sets the level at once; otherwise the level relaxes toward the stimulus
//! by k = 1 - 0.5^(Δt / half_life) per tick.

use affect_compiler::sema::NoFiles;
use affect_runtime::run::{run, RunConfig};
use affect_runtime::trace::{Event, TraceSink, Value};
use std::io;

#[derive(Default)]
struct Levels(Vec<(u64, f64)>);

impl TraceSink for Levels {
    fn line(&mut self, tick: u64, _t: f64, _agent: &str, ev: &Event) -> io::Result<()> {
        if let Event::Var {
            name: "stress",
            value: Value::Num(v),
        } = ev
        {
            self.0.push((tick, *v));
        }
        Ok(())
    }
}

/// The stimulus is 90 for ticks 0..2, 50 (neutral) for ticks 3..5, then 20.
const SRC: &str = r#"
agent Robot {
    rate 10Hz;
    var t: int = 0;
    let noise = t < 3 ? 90 : (t < 6 ? 50 : 20);
    /// A half-life of one tick: k = 1 - 0.5^(100ms / 100ms) = 0.5.
    hormone stress = noise { baseline 50; half_life 100ms; }
    update { t += 1; }
    main { succeed }
}
"#;

#[test]
fn secretion_is_immediate_and_recovery_halves_every_half_life() {
    let analysis = affect_compiler::check_source_with(SRC, &NoFiles);
    let program = analysis
        .program
        .unwrap_or_else(|| panic!("{:#?}", analysis.diagnostics));
    let mut levels = Levels::default();
    let config = RunConfig {
        ticks: 9,
        ..RunConfig::default()
    };
    run(&program, &config, &mut levels, |_| {}).unwrap_or_else(|d| panic!("{d:#?}"));
    // Tick 0: 90 is further out than 50 on the same side: the level is 90 at once (ticks 1
    // and 2 change nothing). Ticks 3..5, neutral stimulus: 90 -> 70 -> 60 -> 55. Tick 6: 20
    // is on the other side of the baseline, so the level relaxes: 55 + (20 - 55) / 2 = 37.5.
    // Tick 7: 20 is now further out than 37.5 on the same side: 20 at once.
    let want = [
        (0, 50.0),
        (0, 90.0),
        (3, 70.0),
        (4, 60.0),
        (5, 55.0),
        (6, 37.5),
        (7, 20.0),
    ];
    assert_eq!(levels.0, want);
}
