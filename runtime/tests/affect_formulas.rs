//! Seed 003's affect formulas as the compiler lowers them and the interpreter runs them, with
//! values worked out by hand (LANGUAGE.md §4.2): a hormone's half-life, the mood
//! `fold(cortisol, 50) + serotonin / 2` (folded at compile time when constant) and the
//! emotional score `(mood + feelings.recent()) / 2`.

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
    /// Halfway to its stimulus in one second.
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
fn a_half_life_moves_the_level_halfway_toward_its_stimulus_and_back_to_baseline() {
    let p = program();
    let agent = &p.agents[0];
    let mut m = Machine::new(&p, agent, LeafTable::new(agent.nodes.len()));
    m.host = Some(Box::new(Feelings(Memory::new(MemorySpec::default()))));
    let (noise, light) = (slot(&p, "noise"), slot(&p, "brightness"));
    let (cortisol, serotonin) = (slot(&p, "cortisol"), slot(&p, "serotonin"));
    let (mood, score) = (slot(&p, "mood"), slot(&p, "score"));
    let get = |m: &Machine, s: SlotId| m.slots[s as usize];
    assert_eq!(get(&m, serotonin), 50.0, "a hormone starts at its baseline");

    // 10 Hz, half-life 1 s: each tick keeps 2^(-1/10) of the distance to the stimulus, so
    // after n ticks toward 90 from 50 the level is 90 - 40 * 2^(-n/10):
    //   n = 1: 90 - 40 * 0.933033 = 52.678680; n = 10: 90 - 20 = 70; n = 20: 90 - 10 = 80.
    m.write(light, 90.0);
    m.write(noise, 70.0);
    m.process();
    assert!(close(get(&m, serotonin), 90.0 - 40.0 * 2f64.powf(-0.1)));
    assert_eq!(
        get(&m, cortisol),
        70.0,
        "no half-life: the level is the reading"
    );
    for _ in 1..10 {
        m.process();
    }
    assert!(close(get(&m, serotonin), 70.0));
    // Mood: fold(70, 50) = 30, serotonin 70 / 2 = 35: 65. Emotional score with an empty
    // short-term memory (recent() = 50): (65 + 50) / 2 = 57.5.
    assert!(close(get(&m, mood), 65.0));
    assert!(close(get(&m, score), 57.5));
    for _ in 10..20 {
        m.process();
    }
    assert!(close(get(&m, serotonin), 80.0));

    // The light back at the ambient level the baseline stands for: the level relaxes toward
    // 50 with the same half-life, 80 -> 50 + 30 * 0.5 = 65 in one second.
    m.write(light, 50.0);
    for _ in 0..10 {
        m.process();
    }
    assert!(close(get(&m, serotonin), 65.0));

    // Cortisol 30 (quiet: fold(30, 50) = 30), serotonin 65: mood 30 + 32.5 = 62.5.
    // A feeling of 80 remembered: recent() = 80, so the score is (62.5 + 80) / 2 = 71.25.
    m.write(noise, 30.0);
    if let Some(h) = m.host.as_mut() {
        h.call(HostFn::MemRemember, 0, &[1.0, 80.0], &mut Lists::new(&[]));
    }
    m.process();
    let s = get(&m, serotonin);
    assert!(close(s, 50.0 + 15.0 * 2f64.powf(-0.1)), "{s}");
    assert!(close(get(&m, mood), 30.0 + s / 2.0));
    assert!(close(get(&m, score), (30.0 + s / 2.0 + 80.0) / 2.0));
    // Another 9 ticks: one more second since the light went back, 65 -> 57.5.
    for _ in 0..9 {
        m.process();
    }
    assert!(close(get(&m, serotonin), 57.5));
    assert!(close(get(&m, score), (30.0 + 57.5 / 2.0 + 80.0) / 2.0));
}
