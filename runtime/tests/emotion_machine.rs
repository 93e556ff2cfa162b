//! Emotion machines (seed 000) and `tendencies` tables, run through the runtime: intensity
//! dynamics worked out by hand, first-match transitions, change events with causal chains,
//! and the tendency arm that runs for the current emotion.

use affect_compiler::sema::NoFiles;
use affect_runtime::run::{run, RunConfig};
use affect_runtime::trace::{Event, TraceSink, Value};
use std::io;

/// What a test needs from the trace, owned.
#[derive(Debug, Default)]
struct Seen {
    emotions: Vec<(u64, String, String, f64, String)>,
    vars: Vec<(u64, String, f64)>,
    nodes: Vec<(u64, String, String)>,
}

impl TraceSink for Seen {
    fn line(&mut self, tick: u64, _t: f64, _agent: &str, ev: &Event) -> io::Result<()> {
        match ev {
            Event::Emotion {
                from,
                to,
                intensity,
                cause,
                ..
            } => self.emotions.push((
                tick,
                from.to_string(),
                to.to_string(),
                *intensity,
                cause.to_string(),
            )),
            Event::Var { name, value } => {
                let v = match value {
                    Value::Num(x) => *x,
                    Value::Int(i) => *i as f64,
                    Value::Bool(b) => f64::from(u8::from(*b)),
                    _ => f64::NAN,
                };
                self.vars.push((tick, name.to_string(), v));
            }
            Event::Node { path, to, .. } => {
                self.nodes.push((tick, path.to_string(), to.to_string()))
            }
            _ => {}
        }
        Ok(())
    }
}

fn run_source(src: &str, ticks: u64) -> Seen {
    let analysis = affect_compiler::check_source_with(src, &NoFiles);
    let program = analysis
        .program
        .unwrap_or_else(|| panic!("{:#?}", analysis.diagnostics));
    let mut seen = Seen::default();
    let config = RunConfig {
        ticks,
        ..RunConfig::default()
    };
    run(&program, &config, &mut seen, |_| {}).unwrap_or_else(|d| panic!("{d:#?}"));
    seen
}

/// Progress is -1 for the first five ticks, then +1. With caution 0.5 the rise is
/// 0.1 * (1 + 0.5) = 0.15 per tick of bad progress; the fall is 0.2 per tick of good progress.
const DYNAMICS: &str = r#"
emotion Calm { causal_chain: "all is well" }
emotion Worried { causal_chain: "something bad can happen; I must watch" }
emotion Upset { causal_chain: "it did not happen; someone did not do it" }
enum Mood { Calm, Worried, Upset }

tree Relax { succeed }
tree Watch { succeed }
tree Complain { succeed }
tree Sigh { succeed }

agent Robot {
    rate 10Hz;
    personality { caution: 0.5 }
    var t: int = 0;
    let progress = t < 5 ? -1 : 1;
    update { t += 1; }
    emotions mood: Mood = Calm {
        from progress;
        rise 0.1 * (1 + caution);
        fall 0.2;
        Calm -> Worried when progress < 0;
        Worried -> Upset when intensity > 0.5;
        Upset -> Worried when progress > 0;
        Worried -> Calm when intensity < 0.2;
    }
    tendencies mood {
        Calm => Relax;
        Worried => Watch;
        Upset => Complain, Sigh;
    }
    main { tendencies(mood) }
}
"#;

#[test]
fn intensity_rises_with_caution_and_falls_with_good_progress() {
    let seen = run_source(DYNAMICS, 12);
    let intensity: Vec<(u64, f64)> = seen
        .vars
        .iter()
        .filter(|(_, n, _)| n == "mood.intensity")
        .map(|(t, _, v)| (*t, *v))
        .collect();
    // Ticks 0..4 (t = 0..4 when `progress` is computed: `update` runs after the lets) are
    // bad: 0.15, 0.30, 0.45, 0.60, 0.75; then good progress: 0.55, 0.35, 0.15, then
    // 0.15 - 0.2 clamped to 0. From there nothing changes, so nothing more is reported.
    let want = [0.15, 0.30, 0.45, 0.60, 0.75, 0.55, 0.35, 0.15, 0.0];
    // The first event reports the initial value, 0.
    assert_eq!(intensity.first(), Some(&(0, 0.0)));
    let got: Vec<f64> = intensity[1..].iter().map(|(_, v)| *v).collect();
    assert_eq!(got.len(), want.len(), "{intensity:?}");
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() < 1e-9, "intensity {got:?}, want {want:?}");
    }
}

#[test]
fn transitions_take_the_first_guard_that_holds_and_carry_the_causal_chain() {
    let seen = run_source(DYNAMICS, 12);
    let changes: Vec<(u64, &str, &str)> = seen
        .emotions
        .iter()
        .map(|(t, f, to, _, _)| (*t, f.as_str(), to.as_str()))
        .collect();
    // Tick 0: bad progress, Calm -> Worried (intensity 0.15). Tick 3: intensity 0.60 > 0.5,
    // Worried -> Upset. Tick 5: good progress, Upset -> Worried (0.55). Tick 7: 0.15 < 0.2,
    // Worried -> Calm. One transition per tick: after `Calm -> Worried` the machine waits for
    // the next tick before `Worried -> ..` is considered.
    assert_eq!(
        changes,
        vec![
            (0, "Calm", "Worried"),
            (3, "Worried", "Upset"),
            (5, "Upset", "Worried"),
            (7, "Worried", "Calm"),
        ]
    );
    let (_, _, _, intensity, cause) = &seen.emotions[1];
    assert!((intensity - 0.60).abs() < 1e-9);
    assert_eq!(cause, "it did not happen; someone did not do it");
    assert_eq!(seen.emotions[0].4, "something bad can happen; I must watch");
    assert_eq!(seen.emotions[3].4, "all is well");
}

#[test]
fn the_tendency_arm_of_the_current_emotion_runs() {
    let seen = run_source(DYNAMICS, 12);
    let ran = |tree: &str| -> Vec<u64> {
        seen.nodes
            .iter()
            .filter(|(_, p, to)| p.starts_with(tree) && !p.contains('/') && to == "SUCCESS")
            .map(|(t, _, _)| *t)
            .collect()
    };
    // The process phase runs before the tree, so each tick's arm is the new emotion's.
    assert_eq!(ran("Relax"), vec![7, 8, 9, 10, 11]);
    assert_eq!(ran("Watch"), vec![0, 1, 2, 5, 6]);
    // Upset runs both of its targets side by side.
    assert_eq!(ran("Complain"), vec![3, 4]);
    assert_eq!(ran("Sigh"), vec![3, 4]);
}

#[test]
fn a_machine_without_progress_moves_only_by_its_guards() {
    let src = r#"
enum Mood { Calm, Alert }
agent Robot {
    rate 10Hz;
    var t: int = 0;
    update { t += 1; }
    emotions mood: Mood = Calm {
        Calm -> Alert when t == 3;
    }
    main { succeed }
}
"#;
    let seen = run_source(src, 6);
    assert_eq!(seen.emotions.len(), 1);
    let (tick, from, to, intensity, cause) = &seen.emotions[0];
    assert_eq!((*tick, from.as_str(), to.as_str()), (2, "Calm", "Alert"));
    assert_eq!(*intensity, 0.0);
    // No `emotion Alert` is declared: the change carries no causal chain.
    assert_eq!(cause, "");
}

#[test]
fn more_than_six_emotions_chain_switches_and_every_arm_is_reachable() {
    // The state steps through all seven emotions, one per tick.
    let src = r#"
enum Feeling { Joy, Trust, Fear, Surprise, Sadness, Disgust, Anger }
tree A { succeed }
tree B { succeed }
tree C { succeed }
tree D { succeed }
tree E { succeed }
tree F { succeed }
tree G { succeed }

agent Robot {
    rate 10Hz;
    emotions feeling: Feeling = Joy {
        Joy -> Trust when true;
        Trust -> Fear when true;
        Fear -> Surprise when true;
        Surprise -> Sadness when true;
        Sadness -> Disgust when true;
        Disgust -> Anger when true;
    }
    tendencies feeling {
        Joy => A;
        Trust => B;
        Fear => C;
        Surprise => D;
        Sadness => E;
        Disgust => F;
        Anger => G;
    }
    main { tendencies(feeling) }
}
"#;
    let seen = run_source(src, 8);
    let order: Vec<String> = seen
        .nodes
        .iter()
        .filter(|(_, p, to)| !p.contains('/') && to == "SUCCESS")
        .map(|(_, p, _)| p.split("::").next().unwrap_or("").to_string())
        .filter(|tree| tree.len() == 1)
        .collect();
    // Tick 0 is already Trust (the machine runs before the tree), then one step per tick.
    assert_eq!(order, vec!["B", "C", "D", "E", "F", "G", "G", "G"]);
}
