//! Seed 003's validation tests (Duro 2023, chapter V), replayed with `examples/navigator.affect`
//! through the `affect` binary and checked from the JSON Lines trace:
//!
//! - (i) with X and K dark and the top-left corner lit, the robot going from P to A takes the
//!   longer, brighter path and avoids X and K although the shortest path crosses them, and the
//!   trace shows the shortest-path choice being overridden (Figs. 55-56);
//! - (ii) going from A to L through the dark K drops the score below 25, the drive becomes
//!   LiftMood and the intention the best-remembered place, and once the score passes 60 the
//!   drive returns to Explore (Fig. 57);
//! - (iii) a loud noise switches the drive to AvoidDanger and lowers the score by 25 (Fig. 58);
//! - (iv) on the P -> A -> P itinerary every memory process appears (Figs. 49-54).
//!
//! As in the seed, the robot first learns the floor: a lesson walks it through the relevant
//! places with long-term memory persisted in a temporary directory, and the scenarios start
//! from what it learnt. Itineraries, the start and the lesson's quiet are the edits a user
//! makes to the example to replay a test (`variant`); nothing is written into the repository.

mod support;

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

// ---------------------------------------------------------------------------- running

/// `examples/navigator.affect` with the edits of one validation test: its itinerary, where the
/// robot starts, and whether the door slams at 40 s. Each edit must apply exactly once.
fn variant(itinerary: &[&str], start: &str, door: bool) -> String {
    let mut src =
        std::fs::read_to_string(support::workspace().join("examples/navigator.affect")).unwrap();
    let mut edit = |from: &str, to: &str| {
        assert_eq!(
            src.matches(from).count(),
            1,
            "the example no longer has `{from}`"
        );
        src = src.replace(from, to);
    };
    let places: Vec<String> = itinerary.iter().map(|p| format!("\"{p}\"")).collect();
    edit(
        "var itinerary: [Label] = [\"K\"];",
        &format!("var itinerary: [Label] = [{}];", places.join(", ")),
    );
    edit(
        "spawn Navigator at P;",
        &format!("spawn Navigator at {start};"),
    );
    if !door {
        edit("    at 40s raise loud_noise on Navigator;\n", "");
    }
    src
}

/// Runs `program` (written as `navigator.affect` in `dir`, so that its `persist` file lives
/// there) for `ticks` ticks and returns the trace.
fn run(dir: &Path, program: &str, ticks: u64, extra: &[&str]) -> Trace {
    let file = dir.join("navigator.affect");
    std::fs::write(&file, program).unwrap();
    let trace = dir.join("trace.jsonl");
    let ticks = ticks.to_string();
    let mut args = vec!["run", file.to_str().unwrap(), "--ticks", &ticks, "--quiet"];
    args.extend(["--trace", trace.to_str().unwrap()]);
    args.extend(extra);
    let out = support::affect(&args);
    assert!(
        out.status.success(),
        "affect {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&trace).unwrap();
    Trace(
        text.lines()
            .map(|l| serde_json::from_str(l).expect("a JSON line"))
            .collect(),
    )
}

/// The places the seed's robot was walked through before the tests: out to A along the bright
/// way, back along the dark one (lingering on the covered X and K), and once more up the bright
/// way, so that every place reaches long-term memory. The door stays shut.
const LESSON: &[&str] = &[
    "C", "H", "S", "O", "I", "D", "A", "K", "X", "K", "X", "H", "C", "P", "C", "H", "S", "O", "I",
    "D",
];

/// Runs the lesson in `dir` and returns the long-term memory it left there.
fn learn(dir: &Path) -> Vec<(String, f64)> {
    run(dir, &variant(LESSON, "P", false), 420, &[]);
    long_term(dir)
}

/// The traces of a memory file (key and score), in file order.
fn long_term(dir: &Path) -> Vec<(String, f64)> {
    let bytes = std::fs::read(dir.join("feelings.eltm")).expect("a memory file");
    let memories = affect_runtime::affect::persist::read(&bytes).expect("a valid memory file");
    memories
        .iter()
        .flat_map(|m| m.traces.iter().map(|(k, s, _)| (k.clone(), *s)))
        .collect()
}

// ---------------------------------------------------------------------------- reading traces

struct Trace(Vec<Value>);

impl Trace {
    fn events<'a>(&'a self, ev: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
        self.0.iter().filter(move |e| e["ev"] == ev)
    }

    /// The value a variable has at the end of `tick`.
    fn var(&self, name: &str, tick: u64) -> &Value {
        self.events("var")
            .filter(|e| e["name"] == name && tick_of(e) <= tick)
            .last()
            .map(|e| &e["value"])
            .unwrap_or_else(|| panic!("no value of `{name}` by tick {tick}"))
    }

    fn num(&self, name: &str, tick: u64) -> f64 {
        self.var(name, tick).as_f64().unwrap()
    }

    /// Where the robot was, one entry per cell reached: (tick, label).
    fn places(&self) -> Vec<(u64, String)> {
        self.events("var")
            .filter(|e| e["name"] == "place" && e["value"] != "")
            .map(|e| (tick_of(e), e["value"].as_str().unwrap().to_string()))
            .collect()
    }

    fn drives(&self) -> Vec<&Value> {
        self.events("drive").collect()
    }

    /// The first tick at which `name` takes `value`.
    fn when(&self, name: &str, value: Value) -> u64 {
        self.events("var")
            .find(|e| e["name"] == name && e["value"] == value)
            .map(tick_of)
            .unwrap_or_else(|| panic!("`{name}` never becomes {value}"))
    }

    /// The memory processes that ran up to the end of `last`.
    fn processes(&self, last: u64) -> BTreeSet<String> {
        self.events("memory")
            .filter(|e| tick_of(e) <= last)
            .map(|e| e["op"].as_str().unwrap().to_string())
            .collect()
    }

    /// The `log` lines of the emotional decision overriding the first (shortest) candidate.
    fn overrides(&self) -> Vec<(u64, Override)> {
        self.events("log")
            .filter_map(|e| Override::parse(e["text"].as_str()?).map(|o| (tick_of(e), o)))
            .collect()
    }
}

fn tick_of(e: &Value) -> u64 {
    e["tick"].as_u64().unwrap()
}

/// `best_path: C H S O I D A (score 12.79) instead of the first candidate C H X K A (score
/// 11.42)` (docs/trace.md).
#[derive(Debug)]
struct Override {
    chosen: Vec<String>,
    chosen_score: String,
    first: Vec<String>,
    first_score: String,
}

impl Override {
    fn parse(text: &str) -> Option<Override> {
        let rest = text.strip_prefix("best_path: ")?;
        let (chosen, first) = rest.split_once(" instead of the first candidate ")?;
        let split = |s: &str| -> Option<(Vec<String>, String)> {
            let (places, score) = s.split_once(" (score ")?;
            Some((
                places.split(' ').map(String::from).collect(),
                score.strip_suffix(')')?.to_string(),
            ))
        };
        let (chosen, chosen_score) = split(chosen)?;
        let (first, first_score) = split(first)?;
        Some(Override {
            chosen,
            chosen_score,
            first,
            first_score,
        })
    }
}

/// Emotional memory rebuilt from a trace's `memory` events (LANGUAGE.md §4.6): the short-term
/// store with its scores, most recent first, and the long-term scores.
struct Replay {
    short: Vec<(String, f64)>,
    long: Vec<(String, f64)>,
}

const WEIGHTS: [f64; 7] = [0.3, 0.21, 0.15, 0.12, 0.09, 0.06, 0.06];

impl Replay {
    /// The memory at the start of `tick` (after every process of the ticks before), starting
    /// from the long-term memory `long`.
    fn before(trace: &Trace, long: &[(String, f64)], tick: u64) -> Replay {
        let mut r = Replay {
            short: Vec::new(),
            long: long.to_vec(),
        };
        for e in trace.events("memory").filter(|e| tick_of(e) < tick) {
            let key = e["key"].as_str().unwrap().to_string();
            let score = e["score"].as_f64().unwrap();
            match e["op"].as_str().unwrap() {
                "rehearsal" => {
                    r.short.retain(|(k, _)| *k != key);
                    r.short.insert(0, (key, score));
                }
                "encoding" => {
                    r.short.insert(0, (key, score));
                    r.short.truncate(WEIGHTS.len());
                }
                "association" => r.short[0].1 = score,
                "transfer" | "consolidation" | "decay" => {
                    match r.long.iter_mut().find(|(k, _)| *k == key) {
                        Some(t) => t.1 = score,
                        None => r.long.push((key, score)),
                    }
                }
                op => panic!("unknown memory process `{op}`"),
            }
        }
        r
    }

    /// `feelings.recent()`: the weighted average of short-term scores, 50 when empty.
    fn recent(&self) -> f64 {
        if self.short.is_empty() {
            return 50.0;
        }
        let (mut sum, mut weights) = (0.0, 0.0);
        for ((_, s), w) in self.short.iter().zip(WEIGHTS) {
            sum += s * w;
            weights += w;
        }
        sum / weights
    }

    /// `feelings.best()`: the key with the highest long-term score, the earliest on a tie.
    fn best(&self) -> &str {
        let mut best: Option<&(String, f64)> = None;
        for t in &self.long {
            if best.is_none_or(|b| t.1 > b.1) {
                best = Some(t);
            }
        }
        &best.expect("something remembered").0
    }

    fn score(&self, key: &str) -> f64 {
        self.long
            .iter()
            .find(|(k, _)| k == key)
            .map_or(50.0, |t| t.1)
    }

    /// Seed 003's path score: the mean of the places' scores divided by the path's length.
    fn path_score(&self, path: &[&str]) -> f64 {
        let n = path.len() as f64;
        path.iter().map(|k| self.score(k)).sum::<f64>() / n / n
    }
}

/// The emotional score the process phase computes at `tick`: `(mood + recent()) / 2`.
fn process_score(trace: &Trace, long: &[(String, f64)], tick: u64) -> f64 {
    let recent = Replay::before(trace, long, tick).recent();
    (trace.num("mood", tick) + recent) / 2.0
}

/// The score the tree found at `tick`, before it remembered anything: the score a `remember`
/// that tick was given, else the score at the end of the tick.
fn score_seen_by_tree(trace: &Trace, tick: u64) -> f64 {
    trace
        .events("memory")
        .find(|e| tick_of(e) == tick && (e["op"] == "encoding" || e["op"] == "rehearsal"))
        .map(|e| e["score"].as_f64().unwrap())
        .unwrap_or_else(|| trace.num("score", tick))
}

fn labels(places: &[(u64, String)]) -> Vec<&str> {
    places.iter().map(|(_, p)| p.as_str()).collect()
}

// ---------------------------------------------------------------------------- scenarios

#[test]
fn the_lesson_leaves_the_covered_letters_dark_and_the_lit_corner_bright() {
    let dir = support::scratch("navigator_scenarios", "lesson");
    let learnt = learn(&dir);
    let score = |k: &str| learnt.iter().find(|(x, _)| x == k).map(|t| t.1).unwrap();
    // Fig. 55's shape: X and K far below neutral, the flashlit corner far above.
    for dark in ["X", "K"] {
        assert!(score(dark) < 25.0, "{dark}: {learnt:?}");
    }
    for lit in ["O", "I", "S", "D", "H"] {
        assert!(score(lit) > 80.0, "{lit}: {learnt:?}");
    }
    let known: BTreeSet<&str> = learnt.iter().map(|(k, _)| k.as_str()).collect();
    let want: BTreeSet<&str> = ["P", "C", "H", "S", "O", "I", "D", "A", "K", "X"].into();
    assert_eq!(
        known, want,
        "every place of the lesson reached long-term memory"
    );
    // The connections travelled are remembered too (two keys on a line).
    let text = std::fs::read_to_string(dir.join("feelings.eltm")).unwrap();
    assert!(text.starts_with("affect long-term memory v3\n"), "{text}");
    assert!(text.lines().any(|l| l == "H\tS" || l == "S\tH"), "{text}");
    assert!(
        !text.lines().any(|l| l == "D\tS" || l == "S\tD"),
        "never travelled: {text}"
    );
}

#[test]
fn scenario_i_from_p_to_a_the_longer_brighter_path_overrides_the_shortest() {
    let dir = support::scratch("navigator_scenarios", "i");
    let learnt = learn(&dir);
    let t = run(&dir, &variant(&["A"], "P", true), 150, &[]);

    // The walk: P to A along the lit corner, never on X or K.
    let places = t.places();
    let arrival = places
        .iter()
        .position(|(_, p)| p == "A")
        .expect("reaches A");
    let walked = labels(&places[..=arrival]);
    assert_eq!(
        walked,
        ["P", "C", "H", "S", "O", "I", "D", "A"],
        "{places:?}"
    );
    // Seven steps, although the map's shortest paths from P to A have five.
    assert!(walked.len() - 1 > 5);

    // The trace shows the override: at P, the first (shortest) remembered candidate crosses X
    // and K; the emotional decision takes the bright way because it scores more per place.
    let overrides = t.overrides();
    let (tick, at_p) = overrides.first().expect("an override in the trace");
    assert_eq!(*tick, 0, "the decision at P");
    assert_eq!(at_p.first, ["C", "H", "X", "K", "A"]);
    assert_eq!(at_p.chosen, ["C", "H", "S", "O", "I", "D", "A"]);
    assert!(
        at_p.first.len() < at_p.chosen.len(),
        "the first candidate is the shortest"
    );
    // The scores come from what the lesson left (nothing changed long-term memory yet at P):
    // mean of the places' scores divided by the number of places.
    let m = Replay::before(&t, &learnt, 0);
    let dark = m.path_score(&["C", "H", "X", "K", "A"]);
    let bright = m.path_score(&["C", "H", "S", "O", "I", "D", "A"]);
    assert_eq!(at_p.first_score, format!("{dark:.2}"));
    assert_eq!(at_p.chosen_score, format!("{bright:.2}"));
    assert!(bright > dark);
    // At H the physical choice would turn right onto X (Fig. 56); the affect turns up to S.
    let at_h = overrides
        .iter()
        .find(|(tick, _)| t.var("place", *tick) == "H")
        .map(|(_, o)| o)
        .expect("an override at H");
    assert_eq!(at_h.first[0], "X");
    assert_eq!(at_h.chosen[0], "S");
}

#[test]
fn scenario_ii_from_a_to_l_the_dark_k_lifts_the_mood_then_exploring_resumes() {
    let dir = support::scratch("navigator_scenarios", "ii");
    let learnt = learn(&dir);
    let t = run(&dir, &variant(&["L"], "A", true), 120, &[]);

    // A to L goes straight through the covered K.
    let places = t.places();
    assert_eq!(labels(&places[..2]), ["A", "K"], "{places:?}");
    assert_eq!(t.var("target", 0), "L");

    // On K the emotional score falls below 25: LiftMood, towards the best-remembered place.
    let drives = t.drives();
    let lift = drives.first().expect("a drive change");
    assert_eq!(
        (&lift["from"], &lift["to"]),
        (&"Explore".into(), &"LiftMood".into())
    );
    let tl = tick_of(lift);
    assert_eq!(t.var("place", tl), "K");
    let score = process_score(&t, &learnt, tl);
    assert!(score < 25.0, "score on K: {score}");
    assert!((score_seen_by_tree(&t, tl) - score).abs() < 1e-9);
    assert!(
        process_score(&t, &learnt, tl - 1) >= 25.0,
        "the drop comes with K"
    );
    let best = Replay::before(&t, &learnt, tl);
    assert_eq!(
        lift["intention"],
        best.best(),
        "LiftMood heads for the best place"
    );
    assert!(best.score(best.best()) > 90.0);
    assert_eq!(t.var("target", tl), best.best());
    // A new drive drops what is left of the itinerary.
    assert_eq!(t.var("leg", tl + 1), 1);

    // Once the score passes 60 the drive is Explore again.
    let back = drives.get(1).expect("a second drive change");
    assert_eq!(
        (&back["from"], &back["to"]),
        (&"LiftMood".into(), &"Explore".into())
    );
    let te = tick_of(back);
    assert!(process_score(&t, &learnt, te) > 60.0);
    for tick in tl..te {
        assert!(process_score(&t, &learnt, tick) <= 60.0, "tick {tick}");
    }
    assert!(t.var("place", te) != "K", "it recovered away from K");
}

#[test]
fn scenario_iii_a_loud_noise_means_avoid_danger_and_costs_25() {
    let dir = support::scratch("navigator_scenarios", "iii");
    // The main story as the README runs it, with a fresh memory; the door slams at 40 s.
    let program =
        std::fs::read_to_string(support::workspace().join("examples/navigator.affect")).unwrap();
    let t = run(&dir, &program, 420, &["--no-persist"]);
    assert!(!dir.join("feelings.eltm").exists());

    // At 40 s, ten ticks a second: the tick at 40.0 s hears it.
    let noise = t.when("loud_noise", Value::Bool(true));
    assert_eq!(noise, 400, "the door slams at tick {noise}");
    let drives = t.drives();
    let danger = drives
        .iter()
        .find(|d| d["to"] == "AvoidDanger")
        .expect("AvoidDanger");
    assert_eq!(tick_of(danger), noise);
    assert!(drives
        .iter()
        .all(|d| tick_of(d) >= noise || d["to"] != "AvoidDanger"));
    // Its intention is the best-remembered place.
    let memory = Replay::before(&t, &[], noise);
    assert_eq!(danger["intention"], memory.best());
    // The score: what the process phase computed, less 25.
    let update = process_score(&t, &[], noise);
    assert!(update > 25.0, "there was score to lose");
    let startled = score_seen_by_tree(&t, noise);
    assert!(
        (startled - (update - 25.0)).abs() < 1e-9,
        "{startled} is not {update} - 25"
    );
    // The place of that moment enters short-term memory with the startled score, whether
    // the robot just reached it or stood on it (Fig. 58 stores M at 26).
    let stored = t
        .events("memory")
        .find(|e| tick_of(e) == noise && (e["op"] == "encoding" || e["op"] == "rehearsal"))
        .expect("the place of the noise is remembered");
    assert_eq!(stored["key"], *t.var("place", noise));
    assert_eq!(stored["score"].as_f64().unwrap(), startled);
    // The tick before, the same formula without the startle.
    assert!((score_seen_by_tree(&t, noise - 1) - process_score(&t, &[], noise - 1)).abs() < 1e-9);
}

#[test]
fn scenario_iv_p_a_p_runs_every_memory_process() {
    // As in the seed: the itinerary once with no long-term memory (the eLTM file removed,
    // Fig. 53), then again remembering the first walk (Figs. 50-52, 54).
    let dir = support::scratch("navigator_scenarios", "iv");
    let program = variant(&["A", "P"], "P", true);
    let mut all = BTreeSet::new();
    for (walk, want) in [
        (1, &["encoding", "association", "transfer", "decay"][..]),
        (
            2,
            &[
                "encoding",
                "association",
                "rehearsal",
                "consolidation",
                "decay",
            ][..],
        ),
    ] {
        let t = run(&dir, &program, 260, &[]);
        // The itinerary ends when the robot is back at P: `leg` counts the places reached.
        let back = t.when("leg", 2.into());
        let places = t.places();
        let walked = labels(&places);
        let end = places.iter().rposition(|(tick, _)| *tick <= back).unwrap();
        assert_eq!(walked.first(), Some(&"P"));
        assert!(walked[..=end].contains(&"A"), "walk {walk}: {walked:?}");
        assert_eq!(walked[end], "P", "walk {walk}: {walked:?}");
        let seen = t.processes(back);
        for op in want {
            assert!(seen.contains(*op), "walk {walk}: no {op} in {seen:?}");
        }
        all.extend(seen);
    }
    let every: BTreeSet<String> = [
        "encoding",
        "rehearsal",
        "association",
        "consolidation",
        "transfer",
        "decay",
    ]
    .map(String::from)
    .into();
    assert_eq!(all, every);
}
