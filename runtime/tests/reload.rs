//! `Run::reload` (`affect run --watch`): what a new program takes over at a tick boundary,
//! with the interpreter and the JIT: values by name and type (in the new program's
//! numbering), node state by path, clean halts of what moved; and what it refuses, leaving
//! the run as it was.

use affect_compiler::ir::program::Program;
use affect_compiler::sema::NoFiles;
use affect_runtime::jit::EngineKind;
use affect_runtime::run::{Flow, NotReloaded, Observer, Run, RunConfig, SimClock};
use affect_runtime::trace::{Event, TraceSink};

fn program(src: &str) -> Program {
    let analysis = affect_compiler::check_source_with(src, &NoFiles);
    analysis
        .program
        .unwrap_or_else(|| panic!("does not compile: {:#?}", analysis.diagnostics))
}

/// Keeps node, variable and log events as (tick, t_ms, text).
#[derive(Default)]
struct Seen {
    lines: Vec<(u64, f64, String)>,
}

impl TraceSink for Seen {
    fn line(&mut self, tick: u64, t_ms: f64, _: &str, ev: &Event) -> std::io::Result<()> {
        let text = match ev {
            Event::Node { path, from, to, .. } => format!("node {path} {from}>{to}"),
            Event::Var { name, value } => format!("var {name}={value:?}"),
            Event::Log { text, .. } => format!("log {text}"),
            _ => return Ok(()),
        };
        self.lines.push((tick, t_ms, text));
        Ok(())
    }
}

impl Observer for Seen {}

fn config(engine: EngineKind) -> RunConfig {
    RunConfig {
        ticks: 30,
        engine,
        ..RunConfig::default()
    }
}

/// Steps `n` ticks.
fn steps(run: &mut Run, n: usize, seen: &mut Seen) {
    for _ in 0..n {
        assert_eq!(run.step(&mut SimClock, seen), Some(Flow::Continue));
    }
}

const BEFORE: &str = r#"
enum Mode { Slow, Fast }
agent Bot {
    rate 10Hz;
    var n: int = 0;
    var mode: Mode = Fast;
    var word: str = "hello";
    var places: [str] = ["a", "b"];
    var gone: num = 1;
    var changes: int = 0;
    main {
        sequence {
            do { n = n + 1 }
            nap: sleep(1s)
            do { n = n + 1000 }
        }
    }
}
"#;

/// Variants reordered, strings added before the old ones, a variable's type changed, one
/// new, one removed, the step changed; the sequence, its sleep and its children keep their
/// paths.
const AFTER: &str = r#"
enum Mode { Fast, Slow, Stopped }
agent Bot {
    rate 10Hz;
    var greeting: str = "new words first";
    var n: int = 0;
    var mode: Mode = Slow;
    var word: str = "other";
    var places: [str] = ["c"];
    var changes: str = "now text";
    var added: num = 7;
    main {
        sequence {
            do { n = n + 2 }
            nap: sleep(1s)
            do { n = n + 1000 }
        }
    }
}
"#;

fn values_and_nodes_carry_over(engine: EngineKind) {
    let (old, mut new) = (program(BEFORE), program(AFTER));
    let config = config(engine);
    let mut seen = Seen::default();
    let mut run = Run::new(&old, &config).unwrap();
    run.start(&mut seen);
    // Tick 0: n = 1, the sleep starts (due at 1000 ms); ticks 1..4 wait.
    steps(&mut run, 5, &mut seen);
    let before = seen.lines.len();
    let done = run.reload(&mut new, &mut seen).expect("reloads");
    assert_eq!(done.len(), 1);
    let r = &done[0];
    assert_eq!(r.fresh, ["greeting", "changes", "added"], "{r:?}");
    assert!(r.halted.is_empty(), "{r:?}");
    assert_eq!(r.kept, 4, "{r:?}");
    let log = &seen.lines[before..];
    assert_eq!(log.len(), 1, "{log:?}");
    assert_eq!((log[0].0, log[0].1), (5, 500.0), "said at the next tick");
    // The sleep goes on to its first deadline: the sequence finishes at 1000 ms with the
    // old +1000 and the new +2 after it.
    steps(&mut run, 11, &mut seen);
    let at = |t: f64| -> Vec<&str> {
        seen.lines
            .iter()
            .filter(|l| l.1 == t)
            .map(|l| l.2.as_str())
            .collect()
    };
    let at_500 = at(500.0);
    for fresh in [
        "var greeting=Str(\"new words first\")",
        "var changes=Str(\"now text\")",
        "var added=Num(7.0)",
    ] {
        assert!(at_500.contains(&fresh), "{at_500:?}");
    }
    // Carried values are not news: same text, same variant, same list.
    assert!(
        !at_500.iter().any(|l| l.starts_with("var mode")
            || l.starts_with("var word")
            || l.starts_with("var places")),
        "{at_500:?}"
    );
    assert!(at_500.iter().all(|l| !l.starts_with("node")), "{at_500:?}");
    let at_1000 = at(1000.0);
    assert!(at_1000.contains(&"node nap RUNNING>SUCCESS"), "{at_1000:?}");
    assert!(at_1000.contains(&"var n=Int(1001)"), "{at_1000:?}");
    // The next round uses the new step.
    assert!(at(1100.0).contains(&"var n=Int(1003)"), "{:?}", at(1100.0));
    let summaries = run.finish(&mut seen).unwrap();
    let vars = &summaries[0].variables;
    let value = |k: &str| vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    assert_eq!(value("mode"), Some("Fast"));
    assert_eq!(value("word"), Some("hello"));
    assert_eq!(value("gone"), None);
}

#[test]
fn values_and_nodes_carry_over_in_the_interpreter() {
    values_and_nodes_carry_over(EngineKind::Interp);
}

#[test]
fn values_and_nodes_carry_over_in_the_jit() {
    values_and_nodes_carry_over(EngineKind::Jit);
}

#[test]
fn a_running_node_that_moved_is_halted_cleanly() {
    // The sleep loses its place (another label): halted at the boundary, its sequence too
    // (its children changed), and both start again on the next tick.
    let moved = BEFORE.replace("nap: sleep(1s)", "rest: sleep(1s)");
    let (old, mut new) = (program(BEFORE), program(&moved));
    let config = config(EngineKind::Interp);
    let mut seen = Seen::default();
    let mut run = Run::new(&old, &config).unwrap();
    run.start(&mut seen);
    steps(&mut run, 3, &mut seen);
    let before = seen.lines.len();
    let done = run.reload(&mut new, &mut seen).expect("reloads");
    assert_eq!(done[0].halted, ["Sequence::1"], "{:?}", done[0]);
    let halts: Vec<&str> = seen.lines[before..]
        .iter()
        .filter(|l| l.2.starts_with("node"))
        .map(|l| l.2.as_str())
        .collect();
    assert_eq!(
        halts,
        [
            "node Script::2 SUCCESS>IDLE",
            "node nap RUNNING>IDLE",
            "node Sequence::1 RUNNING>IDLE"
        ],
        "children first, as BehaviorTree.CPP halts"
    );
    steps(&mut run, 1, &mut seen);
    let last: Vec<&str> = seen
        .lines
        .iter()
        .rev()
        .take(4)
        .map(|l| l.2.as_str())
        .collect();
    assert!(last.contains(&"node rest IDLE>RUNNING"), "{last:?}");
}

#[test]
fn a_changed_world_or_other_agents_are_refused_and_the_run_goes_on() {
    const WORLD: &str = r#"
agent Bot {
    rate 10Hz;
    var n: int = 0;
    main { do { n = n + 1 } }
}
world Room {
    grid 2 x 2 cell 1m labels "AB / CD";
    spawn Bot at A;
}
"#;
    let old = program(WORLD);
    let mut bigger = program(
        &WORLD
            .replace("2 x 2", "3 x 3")
            .replace("AB / CD", "ABC / DEF / GHI"),
    );
    let mut renamed = program(&WORLD.replace("Bot", "Robot"));
    // Moving the agent's text (the world's spans change) is not a change of world.
    let mut shifted = program(&format!("\n\n{}", WORLD.replace("n + 1", "n + 5")));
    let config = config(EngineKind::Interp);
    let mut seen = Seen::default();
    let mut run = Run::new(&old, &config).unwrap();
    run.start(&mut seen);
    steps(&mut run, 2, &mut seen);
    for p in [&mut bigger, &mut renamed] {
        match run.reload(p, &mut seen) {
            Err(NotReloaded::Unchangeable(why)) => assert!(!why.is_empty()),
            other => panic!("{other:?}"),
        }
    }
    steps(&mut run, 1, &mut seen);
    assert!(
        seen.lines.iter().any(|l| l.2 == "var n=Int(3)"),
        "the old program ran"
    );
    run.reload(&mut shifted, &mut seen).expect("same world");
    steps(&mut run, 1, &mut seen);
    assert!(
        seen.lines.iter().any(|l| l.2 == "var n=Int(8)"),
        "the new one runs"
    );
}

/// A reload carries a quantity as the number the run holds, in the runtime's unit: `--bb
/// d=10s` is 10,000 ms before and after (issue 31). A variable whose type changed (here a
/// duration that became a plain number) starts from its new initial value, never from the
/// old number read in another unit.
#[test]
fn quantities_carry_over_in_their_units() {
    let vars = |d_type: &str| {
        format!(
            "agent Bot {{\n    rate 10Hz;\n    var d: duration; var l: length; var a: angle; var r: rate;\n    var k: {d_type};\n    main {{ succeed }}\n}}\n"
        )
    };
    let old = program(&vars("duration = 4s"));
    let mut new = program(&vars("num = 3"));
    let config = RunConfig {
        bb: [("d", "10s"), ("l", "1000cm"), ("a", "10deg"), ("r", "2kHz")]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        ..config(EngineKind::Interp)
    };
    let mut seen = Seen::default();
    let mut run = Run::new(&old, &config).unwrap();
    run.start(&mut seen);
    steps(&mut run, 3, &mut seen);
    assert!(
        seen.lines.contains(&(0, 0.0, "var d=Num(10000.0)".into())),
        "{:?}",
        seen.lines
    );
    let done = run.reload(&mut new, &mut seen).expect("reloads");
    assert_eq!(done[0].fresh, ["k"], "{:?}", done[0]);
    steps(&mut run, 2, &mut seen);
    let summaries = run.finish(&mut seen).unwrap();
    let vars = &summaries[0].variables;
    let value = |k: &str| vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    assert_eq!(
        [value("d"), value("l"), value("a"), value("r"), value("k")],
        [
            Some("10s"),
            Some("10m"),
            Some("10deg"),
            Some("2000Hz"),
            Some("3")
        ]
    );
}
