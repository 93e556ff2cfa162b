//! Seed 003's affect formulas as the compiler lowers them and the interpreter runs them, with
//! values worked out by hand (LANGUAGE.md §4.2, docs/affect.md §2): a hormone's half-life,
//! the mood `fold(cortisol, 50) + serotonin / 2` (folded at compile time when constant) and
//! the emotional score `(mood + feelings.recent()) / 2`.

use affect_compiler::ir::functions::HostFn;
use affect_compiler::ir::program::{MemorySpec, Program, SlotId};
use affect_compiler::sema::NoFiles;
use affect_runtime::affect::Memory;
use affect_runtime::interp::{Host, Lists, Machine};
use affect_runtime::leaf::LeafTable;

const PROGRAM: &str = r#"
/// Seed 003's mood for cortisol 70 and serotonin 70, a constant.
const SEED_MOOD = fold(70, 50) + 70 / 2;

agent Robot {
    rate 10Hz;
    var noise: num = 50;
    var brightness: num = 50;
    /// No settings: the level is its stimulus.
    hormone cortisol = noise;
    /// Rises at once, relaxes halfway in one second.
    hormone serotonin = brightness { baseline 50; half_life 1s; }
    let mood = fold(cortisol, 50) + serotonin / 2;
    var score: num in 0..100 = 50;
    var folded: num = SEED_MOOD;
    update {
        score = (mood + feelings.recent()) / 2;
    }
    memory feelings keyed by noise {
        short_term 7 weights [0.3, 0.21, 0.15, 0.12, 0.09, 0.06, 0.06];
    }
    main {
        succeed
    }
}
"#;

/// The memory operations the program calls, and nothing else.
struct Feelings(Memory);

impl Host for Feelings {
    fn call(&mut self, f: HostFn, _arg: u32, args: &[f64], _lists: &mut Lists) -> f64 {
        match f {
            HostFn::MemRecent => self.0.recent(),
            HostFn::MemRemember => self.0.remember(args[0] as u32, args[1]),
            _ => f64::NAN,
        }
    }
}

fn program() -> Program {
    let analysis = affect_compiler::check_source_with(PROGRAM, &NoFiles);
    analysis
        .program
        .unwrap_or_else(|| panic!("{:?}", analysis.diagnostics))
}

fn slot(program: &Program, name: &str) -> SlotId {
    program.agents[0]
        .slots
        .iter()
        .position(|s| s.scope == 0 && s.name == name)
        .unwrap_or_else(|| panic!("no slot `{name}`")) as SlotId
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn mood_is_folded_at_compile_time_when_constant() {
    // fold(70, 50) = 100 - 70 = 30 (cortisol counts 0 -> 50 -> 0); 70 / 2 = 35; 30 + 35 = 65.
    let p = program();
    let m = Machine::new(&p, &p.agents[0], LeafTable::new(p.agents[0].nodes.len()));
    assert_eq!(m.slots[slot(&p, "folded") as usize], 65.0);
}

#[test]
fn a_hormone_rises_at_once_and_decays_toward_baseline_with_its_half_life() {
    // docs/affect.md §2: secretion is fast, recovery slow. A stimulus further from the
    // baseline than the level, on its side, sets the level at once; otherwise the level
    // relaxes toward the stimulus, keeping 2^(-1/10) of the distance per tick at 10 Hz with a
    // half-life of 1 s, so half of it after ten ticks.
    let p = program();
    let agent = &p.agents[0];
    let mut m = Machine::new(&p, agent, LeafTable::new(agent.nodes.len()));
    m.host = Some(Box::new(Feelings(Memory::new(MemorySpec::default()))));
    let (noise, light) = (slot(&p, "noise"), slot(&p, "brightness"));
    let (cortisol, serotonin) = (slot(&p, "cortisol"), slot(&p, "serotonin"));
    let (mood, score) = (slot(&p, "mood"), slot(&p, "score"));
    let get = |m: &Machine, s: SlotId| m.slots[s as usize];
    assert_eq!(get(&m, serotonin), 50.0, "a hormone starts at its baseline");

    // A flashlight (90) and some noise (70): serotonin jumps to 90, cortisol (no half-life)
    // is the reading. Mood: fold(70, 50) = 30, plus 90 / 2 = 45: 75. Emotional score with an
    // empty short-term memory (recent() = 50): (75 + 50) / 2 = 62.5.
    m.write(light, 90.0);
    m.write(noise, 70.0);
    m.process();
    assert_eq!(get(&m, serotonin), 90.0);
    assert_eq!(get(&m, cortisol), 70.0);
    assert!(close(get(&m, mood), 75.0));
    assert!(close(get(&m, score), 62.5));

    // The light back at the ambient level the baseline stands for: decay toward 50,
    // 50 + 40 * 2^(-n/10) after n ticks: n = 1: 50 + 40 * 0.933033 = 87.321; n = 10: 70.
    m.write(light, 50.0);
    m.process();
    assert!(close(get(&m, serotonin), 50.0 + 40.0 * 2f64.powf(-0.1)));
    for _ in 1..10 {
        m.process();
    }
    assert!(close(get(&m, serotonin), 70.0));
    // Mood 30 + 70 / 2 = 65, score (65 + 50) / 2 = 57.5.
    assert!(close(get(&m, mood), 65.0));
    assert!(close(get(&m, score), 57.5));
    for _ in 10..20 {
        m.process();
    }
    assert!(
        close(get(&m, serotonin), 60.0),
        "another half-life: 50 + 10"
    );

    // Brighter than the level, on its side: at once again.
    m.write(light, 70.0);
    m.process();
    assert_eq!(get(&m, serotonin), 70.0);
    // Darker than neutral while the level is above it: relax toward the stimulus,
    // 30 + 40 * 2^(-1/10) = 67.321 after one tick.
    m.write(light, 30.0);
    m.process();
    let s = get(&m, serotonin);
    assert!(close(s, 30.0 + 40.0 * 2f64.powf(-0.1)), "{s}");

    // Quiet (cortisol 30: fold(30, 50) = 30) and a feeling of 80 remembered: recent() = 80,
    // so the score is (30 + s / 2 + 80) / 2.
    m.write(noise, 30.0);
    if let Some(h) = m.host.as_mut() {
        h.call(HostFn::MemRemember, 0, &[1.0, 80.0], &mut Lists::new(&[]));
    }
    m.process();
    let s = get(&m, serotonin);
    assert!(close(s, 30.0 + 40.0 * 2f64.powf(-0.2)), "{s}");
    assert!(close(get(&m, mood), 30.0 + s / 2.0));
    assert!(close(get(&m, score), (30.0 + s / 2.0 + 80.0) / 2.0));
}
