//! Seed 000's story, proved from the trace: `examples/waiter.affect` runs in its reception hall
//! (the world's own seed and length) through the `affect` binary, and every claim below is read
//! from the JSON Lines trace. Butler the waiter serves 30 treats that guests take at exponential
//! intervals while it walks at random; as the tray empties without a refill it goes from Happy
//! (through Confident) to Concerned and Frustrated, and its action tendencies change from
//! serving and joking to hurrying the refiller and intercepting her. Leguin the refiller waits
//! at the food table until called, comes, hurries when told, and goes home after the exchange;
//! Butler goes back to where it started. Vonda, a clone of Leguin nobody addresses, never moves
//! nor changes state, until Butler's `refiller` names her.

mod support;

use serde_json::Value;
use std::path::Path;
use support::affect;

const FT: f64 = 0.3048;
/// Where Butler starts, the food table (Leguin's place) and Vonda's place, in metres.
const HOME: (f64, f64) = (25.0 * FT, 25.0 * FT);
const TABLE: (f64, f64) = (25.0 * FT, 47.0 * FT);
const VONDA_PLACE: (f64, f64) = (21.0 * FT, 47.0 * FT);
/// Positions are sensed at the start of a tick, so a few millimetres of slack for arithmetic.
const EPS: f64 = 1e-6;

fn scratch(name: &str) -> support::Scratch {
    let d = support::scratch("waiter_scenario", name);
    let from = support::workspace().join("examples").join("waiter.affect");
    std::fs::copy(from, d.join("waiter.affect")).unwrap();
    d
}

/// Runs the waiter in `dir` with extra arguments; returns the trace's text.
fn run_waiter(dir: &Path, trace: &str, extra: &[&str]) -> String {
    let program = dir.join("waiter.affect");
    let t = dir.join(trace);
    let mut args = vec![
        "run",
        program.to_str().unwrap(),
        "--no-persist",
        "--quiet",
        "--trace",
        t.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let out = affect(&args);
    assert!(
        out.status.success(),
        "affect run failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(&t).unwrap()
}

type P = (f64, f64);

fn dist(a: P, b: P) -> f64 {
    ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt()
}

struct Trace {
    lines: Vec<Value>,
}

impl Trace {
    fn parse(text: &str) -> Trace {
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect();
        assert!(lines.len() > 1000, "a real trace");
        Trace { lines }
    }

    fn events<'a>(&'a self, agent: &'a str, ev: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
        self.lines
            .iter()
            .filter(move |l| l["agent"] == agent && l["ev"] == ev)
    }

    /// Every value a variable took, with its time; the first is its value before the first tick.
    fn var(&self, agent: &str, name: &str) -> Vec<(f64, Value)> {
        self.events(agent, "var")
            .filter(|l| l["name"] == name)
            .map(|l| (t(l), l["value"].clone()))
            .collect()
    }

    /// Where an agent was sensed, tick by tick as it changed (from its first tick on).
    fn positions(&self, agent: &str) -> Vec<(f64, P)> {
        let all = self.var(agent, "position");
        assert!(all.len() >= 2, "{agent} senses its position");
        all[1..].iter().map(|(t, v)| (*t, point(v))).collect()
    }

    /// Times of the changes of a variable to a value.
    fn times_of(&self, agent: &str, name: &str, value: &Value) -> Vec<f64> {
        self.var(agent, name)
            .iter()
            .skip(1)
            .filter(|(_, v)| v == value)
            .map(|(t, _)| *t)
            .collect()
    }

    /// Node events of an agent going RUNNING whose path starts with a behaviour's name.
    fn running(&self, agent: &str, behaviour: &str) -> Vec<f64> {
        self.events(agent, "node")
            .filter(|l| {
                l["to"] == "RUNNING"
                    && l["path"]
                        .as_str()
                        .unwrap()
                        .starts_with(&format!("{behaviour}::"))
            })
            .map(t)
            .collect()
    }

    fn msgs(&self) -> Vec<(f64, String, String, String)> {
        self.lines
            .iter()
            .filter(|l| l["ev"] == "msg")
            .map(|l| (t(l), s(&l["from"]), s(&l["to"]), s(&l["kind"])))
            .collect()
    }

    /// Emotion changes of Butler's machine: (time, from, to, intensity, cause).
    fn emotions(&self, agent: &str) -> Vec<(f64, String, String, f64, String)> {
        self.events(agent, "emotion")
            .map(|l| {
                (
                    t(l),
                    s(&l["from"]),
                    s(&l["to"]),
                    l["intensity"].as_f64().unwrap(),
                    s(&l["cause"]),
                )
            })
            .collect()
    }
}

fn t(l: &Value) -> f64 {
    l["t_ms"].as_f64().unwrap()
}

fn s(v: &Value) -> String {
    v.as_str()
        .unwrap_or_else(|| panic!("not a string: {v}"))
        .to_string()
}

fn point(v: &Value) -> P {
    (v[0].as_f64().unwrap(), v[1].as_f64().unwrap())
}

/// The value of a series at time `at`: the last change at or before it.
fn at<T: Clone>(series: &[(f64, T)], at: f64) -> T {
    series
        .iter()
        .take_while(|(t, _)| *t <= at)
        .last()
        .unwrap_or(&series[0])
        .1
        .clone()
}

/// The causal chain the example gives an emotion (`causal_chain: "..."` in `emotion NAME {`).
fn causal_chain(source: &str, emotion: &str) -> String {
    let start = source
        .find(&format!("emotion {emotion} {{"))
        .unwrap_or_else(|| panic!("emotion {emotion}"));
    let rest = &source[start..];
    let line = rest
        .lines()
        .find(|l| l.trim_start().starts_with("causal_chain:"))
        .unwrap();
    line.split('"').nth(1).unwrap().to_string()
}

/// The default run: the world's seed and length, Butler served by Leguin.
/// Run once and shared by the tests.
fn leguin_run() -> (&'static str, &'static Trace) {
    static RUN: std::sync::OnceLock<(String, Trace)> = std::sync::OnceLock::new();
    let (text, trace) = RUN.get_or_init(|| {
        let text = run_waiter(&scratch("leguin"), "t.jsonl", &[]);
        let trace = Trace::parse(&text);
        (text, trace)
    });
    (text.as_str(), trace)
}

#[test]
fn butler_serves_thirty_treats_taken_at_exponential_intervals_while_walking_at_random() {
    let (_, tr) = leguin_run();
    let treats = tr.var("Butler", "treats");
    assert_eq!(treats[0].1, 30, "Butler starts with a full tray");
    // Treats go one at a time, and only a refill brings them back, to 30.
    for w in treats.windows(2) {
        let (a, b) = (w[0].1.as_i64().unwrap(), w[1].1.as_i64().unwrap());
        assert!(b == a - 1 || b == 30, "treats {a} -> {b} at {} ms", w[1].0);
    }
    // Guests take treats at exponential intervals (mean 4 s): irregular, a spread as large as
    // the mean.
    let served: Vec<f64> = tr
        .var("Butler", "served")
        .iter()
        .skip(1)
        .map(|(t, _)| *t)
        .collect();
    assert!(served.len() >= 30, "{} treats taken", served.len());
    let gaps: Vec<f64> = served.windows(2).map(|w| (w[1] - w[0]) / 1000.0).collect();
    let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
    let sd = (gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / gaps.len() as f64).sqrt();
    assert!((2.5..=6.0).contains(&mean), "mean interval {mean} s");
    assert!(
        (0.6..=1.5).contains(&(sd / mean)),
        "an exponential spread: sd {sd} s, mean {mean} s"
    );
    assert!(
        gaps.iter().any(|g| *g < 1.0) && gaps.iter().any(|g| *g > 8.0),
        "{gaps:?}"
    );

    // From the first tick Butler serves: RandomWalk runs, and never finishes by itself.
    let walk_start = tr
        .events("Butler", "node")
        .find(|l| l["to"] == "RUNNING" && l["path"].as_str().unwrap().contains("/RandomWalk::"))
        .expect("RandomWalk runs");
    assert_eq!(t(walk_start), 0.0);
    assert!(!tr.events("Butler", "node").any(|l| {
        l["path"].as_str().unwrap().contains("/RandomWalk::")
            && (l["to"] == "SUCCESS" || l["to"] == "FAILURE")
    }));
    // While Happy, it wanders: at most 1 ft/s, turning now and then, away from its start.
    let happy_until = tr.emotions("Butler")[0].0;
    let walk: Vec<P> = tr
        .positions("Butler")
        .into_iter()
        .filter(|(t, _)| *t <= happy_until)
        .map(|(_, p)| p)
        .collect();
    assert!(walk.len() > 100, "Butler moves while Happy");
    let mut headings = Vec::new();
    for w in walk.windows(2) {
        let d = dist(w[0], w[1]);
        assert!(d <= 0.1 * FT + EPS, "a step of {d} m in a tick at 1 ft/s");
        if d > 0.0 {
            let h = (w[1].1 - w[0].1).atan2(w[1].0 - w[0].0);
            if headings.last().is_none_or(|l: &f64| (l - h).abs() > 1e-6) {
                headings.push(h);
            }
        }
    }
    assert!(headings.len() >= 3, "a random walk turns: {headings:?}");
    let farthest = walk.iter().map(|p| dist(*p, HOME)).fold(0.0, f64::max);
    assert!(farthest > 5.0 * FT, "wanders {farthest} m from its start");
}

#[test]
fn butler_grows_concerned_and_frustrated_as_the_treats_run_out_without_a_refill() {
    let (_, tr) = leguin_run();
    let source =
        std::fs::read_to_string(support::workspace().join("examples/waiter.affect")).unwrap();
    let emotions = tr.emotions("Butler");
    assert!(emotions.len() >= 4, "{emotions:?}");
    // Every change names the state it leaves, says how intense the feeling is and why.
    let mut state = "Happy".to_string();
    for (time, from, to, intensity, cause) in &emotions {
        assert_eq!(*from, state, "at {time} ms");
        assert!((0.0..=1.0).contains(intensity), "intensity {intensity}");
        assert_eq!(
            *cause,
            causal_chain(&source, to),
            "the causal chain of {to}"
        );
        state = to.clone();
    }
    assert_eq!(
        tr.var("Butler", "waiter")[0].1,
        "Happy",
        "Butler starts Happy"
    );
    let first = |from: &str, to: &str| {
        emotions
            .iter()
            .find(|e| e.1 == from && e.2 == to)
            .unwrap_or_else(|| panic!("no {from} -> {to}: {emotions:?}"))
            .clone()
    };
    let concerned = first("Confident", "Concerned");
    let frustrated = emotions
        .iter()
        .find(|e| e.1 == "Concerned" && e.2 == "Frustrated" && e.0 > concerned.0)
        .unwrap_or_else(|| panic!("no frustration after {concerned:?}"))
        .clone();
    // Confident came first, when the tray went down to 20.
    let confident = emotions
        .iter()
        .rfind(|e| e.2 == "Confident" && e.0 < concerned.0)
        .unwrap()
        .clone();
    let treats = tr.var("Butler", "treats");
    let n = |time: f64| at(&treats, time).as_i64().unwrap();
    assert!(
        n(confident.0) <= 20,
        "Confident with {} treats",
        n(confident.0)
    );
    // Concerned on a tray nearly empty, and between Confident and Frustrated no refill came.
    assert!(
        n(concerned.0) <= 10,
        "Concerned with {} treats",
        n(concerned.0)
    );
    assert!(
        concerned.3 > 0.0 && frustrated.3 > concerned.3,
        "the feeling grows: {concerned:?} {frustrated:?}"
    );
    let refills = tr.times_of("Butler", "treats", &Value::from(30));
    assert!(
        !refills
            .iter()
            .any(|r| *r > confident.0 && *r <= frustrated.0),
        "no refill between {} and {} ms: {refills:?}",
        confident.0,
        frustrated.0
    );
    // The refill puts it right: the next exchange brings Butler back to Happy.
    let after = refills
        .iter()
        .find(|r| **r > frustrated.0)
        .expect("a refill after the frustration");
    let back = emotions
        .iter()
        .find(|e| e.0 >= *after)
        .expect("an emotion after the refill");
    assert_eq!(back.2, "Happy", "{back:?}");
}

#[test]
fn each_emotion_calls_up_its_action_tendencies() {
    let (_, tr) = leguin_run();
    let emotions = tr.emotions("Butler");
    let state = |time: f64| -> String {
        emotions
            .iter()
            .take_while(|e| e.0 <= time)
            .last()
            .map_or("Happy".to_string(), |e| e.2.clone())
    };
    let serve = tr.running("Butler", "Serve");
    let joke = tr.running("Butler", "Joke");
    let hurry = tr.running("Butler", "AskToHurry");
    let intercept = tr.running("Butler", "Intercept");
    let call = tr.running("Butler", "CallForRefill");
    for (name, times) in [
        ("Serve", &serve),
        ("Joke", &joke),
        ("AskToHurry", &hurry),
        ("Intercept", &intercept),
        ("CallForRefill", &call),
    ] {
        assert!(!times.is_empty(), "{name} never runs");
    }
    // Happy: serve and joke (the joke is said); Confident: serve and call for a refill;
    // Concerned: ask the refiller to hurry; Frustrated or Angry: intercept her.
    assert_eq!((serve[0], joke[0]), (0.0, 0.0));
    assert!(joke.iter().all(|t| state(*t) == "Happy"));
    assert!(call.iter().all(|t| state(*t) == "Confident"));
    assert!(serve
        .iter()
        .all(|t| matches!(state(*t).as_str(), "Happy" | "Confident")));
    assert!(hurry.iter().all(|t| state(*t) == "Concerned"), "{hurry:?}");
    assert!(intercept
        .iter()
        .all(|t| matches!(state(*t).as_str(), "Frustrated" | "Angry")));
    assert!(tr
        .events("Butler", "log")
        .any(|l| l["text"].as_str().unwrap().starts_with("Why did the robot")));
    // The tendencies take over at the change itself.
    let change = |to: &str| emotions.iter().find(|e| e.2 == to).unwrap().0;
    assert!(hurry.contains(&change("Concerned")));
    assert!(intercept.contains(&change("Frustrated")));
    // Intercepting, Butler drives straight at the refiller at 2 ft/s or more.
    let pos = tr.positions("Butler");
    let fast = pos
        .windows(2)
        .filter(|w| w[1].0 > change("Frustrated"))
        .any(|w| dist(w[0].1, w[1].1) > 0.17 * FT);
    assert!(fast, "Butler speeds up to intercept");
    // Each command is a message from Butler to Leguin, sent by the tendency that says so.
    let msgs = tr.msgs();
    let sent = |kind: &str| {
        msgs.iter()
            .filter(|m| m.3 == kind)
            .map(|m| m.0)
            .collect::<Vec<_>>()
    };
    assert!(
        msgs.iter().all(|m| m.1 == "Butler" && m.2 == "Leguin"),
        "{msgs:?}"
    );
    assert!(sent("Refill").iter().all(|t| call.contains(t)));
    assert!(sent("Hurry").iter().all(|t| hurry.contains(t)));
    assert!(!sent("Refill").is_empty() && !sent("Hurry").is_empty() && !sent("GoHome").is_empty());
}

#[test]
fn leguin_waits_at_the_table_comes_when_called_hurries_and_goes_home() {
    let (_, tr) = leguin_run();
    let command = tr.var("Leguin", "command");
    assert_eq!(command[0].1, "Idle");
    let leguin = tr.positions("Leguin");
    let butler = tr.positions("Butler");
    assert!(dist(leguin[0].1, TABLE) < EPS, "Leguin starts at the table");
    // Every command Leguin gets is one Butler sent, at the same moment.
    let msgs = tr.msgs();
    for (time, v) in &command[1..] {
        let kind = v.as_str().unwrap();
        if kind != "Idle" {
            assert!(
                msgs.iter().any(|m| m.0 == *time && m.3 == kind),
                "{kind} at {time} ms without a message"
            );
        }
    }
    // While Idle she waits at the table and does not move.
    let mut idle_periods = 0;
    for (i, (from, v)) in command.iter().enumerate() {
        if v != "Idle" {
            continue;
        }
        idle_periods += 1;
        let until = command.get(i + 1).map_or(f64::INFINITY, |c| c.0);
        let still: Vec<P> = leguin
            .iter()
            .filter(|(t, _)| *t > from + 100.0 && *t <= until)
            .map(|(_, p)| *p)
            .collect();
        let here = at(&leguin, from + 100.0);
        assert!(dist(here, TABLE) < FT, "idle away from the table: {here:?}");
        assert!(
            still.iter().all(|p| *p == here),
            "Leguin moved while Idle ({from}..{until} ms)"
        );
    }
    assert!(idle_periods >= 2, "she goes back to waiting");
    // Called, she drives toward Butler and they meet.
    let refill = tr.times_of("Leguin", "command", &Value::from("Refill"))[0];
    let moved = leguin
        .iter()
        .find(|(t, p)| *t > refill && dist(*p, TABLE) > EPS)
        .expect("Leguin moves when called");
    assert!(moved.0 <= refill + 200.0, "she sets off at once");
    let refills = tr.times_of("Butler", "treats", &Value::from(30));
    let exchange = *refills.iter().find(|r| **r > refill).expect("an exchange");
    let gap = |time: f64| dist(at(&leguin, time), at(&butler, time));
    assert!(
        gap(exchange) < gap(refill),
        "she closed in: {} -> {} m",
        gap(refill),
        gap(exchange)
    );
    // Hurried, she speeds up to 2 ft/s.
    let hurried = tr.times_of("Leguin", "command", &Value::from("Hurry"));
    assert!(!hurried.is_empty());
    let speed = tr.var("Leguin", "speed");
    assert!(hurried.iter().all(|h| at(&speed, *h) == 2.0), "{speed:?}");
    let fast = leguin
        .windows(2)
        .any(|w| w[1].0 > hurried[0] && dist(w[0].1, w[1].1) > 0.15 * FT);
    assert!(fast, "Leguin moves faster once hurried");
    assert!(
        leguin
            .windows(2)
            .all(|w| dist(w[0].1, w[1].1) <= 0.2 * FT + EPS),
        "never above 2 ft/s"
    );
    // Told to go home, she returns to the table, then waits again at her normal speed.
    let home = tr.times_of("Leguin", "command", &Value::from("GoHome"))[0];
    let idle_again = tr
        .times_of("Leguin", "command", &Value::from("Idle"))
        .into_iter()
        .find(|t| *t > home)
        .expect("back to Idle");
    assert!(dist(at(&leguin, idle_again + 100.0), TABLE) <= FT + EPS);
    assert_eq!(at(&speed, idle_again), 1.0);
}

#[test]
fn within_four_feet_they_exchange_treats_and_butler_goes_back_to_its_start() {
    let (_, tr) = leguin_run();
    let leguin = tr.positions("Leguin");
    let butler = tr.positions("Butler");
    let refills = tr.times_of("Butler", "treats", &Value::from(30));
    assert!(refills.len() >= 2, "{refills:?}");
    let msgs = tr.msgs();
    let near = tr.running("Butler", "Near");
    let near_ok: Vec<f64> = tr
        .events("Butler", "node")
        .filter(|l| l["to"] == "SUCCESS" && l["path"].as_str().unwrap().starts_with("Near::"))
        .map(t)
        .collect();
    assert!(near.is_empty(), "Near is a condition: it never runs");
    for r in &refills {
        // Within four feet, after a two-second exchange, and Leguin is sent home at once.
        let d = dist(at(&leguin, *r), at(&butler, *r));
        assert!(d <= 4.0 * FT + EPS, "exchange {d} m apart at {r} ms");
        assert!(
            near_ok.iter().any(|n| (r - n - 2000.0).abs() <= 100.0),
            "Near held 2 s before {r}"
        );
        assert!(
            msgs.iter().any(|m| m.0 == *r && m.3 == "GoHome"),
            "GoHome at {r} ms"
        );
    }
    // After each exchange Butler goes back to where it started before serving again.
    let back = tr.var("Butler", "going_back");
    assert_eq!(back[0].1, false);
    let set: Vec<f64> = back
        .iter()
        .skip(1)
        .filter(|(_, v)| *v == true)
        .map(|(t, _)| *t)
        .collect();
    let cleared: Vec<f64> = back
        .iter()
        .skip(1)
        .filter(|(_, v)| *v == false)
        .map(|(t, _)| *t)
        .collect();
    assert_eq!(set, refills, "going back after every exchange");
    assert!(!cleared.is_empty());
    for c in &cleared {
        // Cleared in the tick GoTo arrives: the position sensed next shows Butler home.
        let p = at(&butler, c + 100.0);
        assert!(
            dist(p, HOME) <= FT + EPS,
            "going_back cleared {} m from home",
            dist(p, HOME)
        );
    }
}

#[test]
fn vonda_is_never_addressed_so_she_never_moves_or_changes_state() {
    let (_, tr) = leguin_run();
    assert_eq!(tr.events("Vonda", "emotion").count(), 0);
    assert!(!tr.msgs().iter().any(|m| m.2 == "Vonda"));
    for name in ["command", "speed", "refiller"] {
        assert_eq!(
            tr.var("Vonda", name).len(),
            1,
            "Vonda's {name} never changes"
        );
    }
    let p = tr.positions("Vonda");
    assert_eq!(p.len(), 1, "Vonda never moves: {:?}", &p[..p.len().min(3)]);
    assert!(dist(p[0].1, VONDA_PLACE) < EPS);
}

#[test]
fn with_butlers_refiller_set_to_vonda_vonda_comes_and_leguin_stays() {
    let dir = scratch("vonda");
    let text = run_waiter(&dir, "t.jsonl", &["--bb", "Butler.refiller=Vonda"]);
    let tr = Trace::parse(&text);
    let msgs = tr.msgs();
    assert!(msgs.iter().all(|m| m.2 == "Vonda"), "{msgs:?}");
    let kinds: Vec<&str> = msgs.iter().map(|m| m.3.as_str()).collect();
    assert!(
        kinds.contains(&"Refill") && kinds.contains(&"GoHome"),
        "{kinds:?}"
    );
    // Vonda comes to Butler's rescue ...
    let vonda = tr.positions("Vonda");
    let butler = tr.positions("Butler");
    assert!(vonda.len() > 50, "Vonda moves");
    assert_ne!(tr.var("Vonda", "command").len(), 1);
    assert!(
        tr.events("Vonda", "emotion").count() > 0,
        "Vonda's feelings change"
    );
    let refills = tr.times_of("Butler", "treats", &Value::from(30));
    assert!(!refills.is_empty(), "Vonda refills Butler");
    for r in &refills {
        assert!(dist(at(&vonda, *r), at(&butler, *r)) <= 4.0 * FT + EPS);
    }
    // ... and goes home to her own place at the table.
    let idle = tr.times_of("Vonda", "command", &Value::from("Idle"));
    assert!(
        idle.iter()
            .any(|t| dist(at(&vonda, t + 100.0), VONDA_PLACE) <= FT + EPS),
        "Vonda returns to her place"
    );
    // Leguin stays immobile and Idle.
    assert_eq!(tr.events("Leguin", "emotion").count(), 0);
    assert_eq!(tr.var("Leguin", "command").len(), 1);
    assert_eq!(tr.positions("Leguin").len(), 1, "Leguin never moves");

    // A plain `--bb refiller=..` would also set Leguin's and Vonda's `refiller` (their emotion
    // machine): refused, with the scoped form as the way out.
    let program = dir.join("waiter.affect");
    let out = affect(&[
        "run",
        program.to_str().unwrap(),
        "--no-persist",
        "--quiet",
        "--ticks",
        "1",
        "--bb",
        "refiller=Vonda",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("E0602") && err.contains("--bb AGENT.refiller=Vonda"),
        "{err}"
    );
}

#[test]
fn the_same_seed_gives_a_byte_identical_trace() {
    let (a, _) = leguin_run();
    let dir = scratch("determinism");
    let b = run_waiter(&dir, "b.jsonl", &[]);
    if let Some((i, (x, y))) = a
        .lines()
        .zip(b.lines())
        .enumerate()
        .find(|(_, (x, y))| x != y)
    {
        panic!(
            "two runs with the same seed differ at line {}:\n  {x}\n  {y}",
            i + 1
        );
    }
    assert_eq!(
        a.len(),
        b.len(),
        "two runs with the same seed must write the same bytes"
    );
    // Another seed walks Butler and the guests elsewhere.
    let c = run_waiter(&dir, "c.jsonl", &["--seed", "7"]);
    assert_ne!(a, c);
}
