//! Seed 004 end to end: QRIO's behaviour modules (`examples/soccer.affect`) run in their living
//! room, and the trace shows what the paper's experiment shows (section VI.B): soccer while
//! vitality is high and the ball is in view, its modules sharing the ball; a call that turns
//! the head toward the voice and, the face being attractive, a chat; the preempted game
//! resumed where it was; and, with the battery low, charging before anything else.

mod support;

use affect_compiler::sema::NoFiles;
use affect_runtime::run::{run, RunConfig};
use affect_runtime::trace::JsonLines;
use serde_json::Value;
use std::sync::OnceLock;

fn soccer_source() -> String {
    std::fs::read_to_string(support::workspace().join("examples/soccer.affect")).unwrap()
}

/// Runs a program in its world for `ticks`; returns the trace text and its lines.
fn trace(src: &str, ticks: u64) -> (String, Vec<Value>) {
    let analysis = affect_compiler::check_source_with(src, &NoFiles);
    let program = analysis
        .program
        .unwrap_or_else(|| panic!("{:#?}", analysis.diagnostics));
    let config = RunConfig {
        ticks,
        ..RunConfig::default()
    };
    let mut sink = JsonLines::new(Vec::new());
    let summaries = run(&program, &config, &mut sink, |_| {}).unwrap_or_else(|d| panic!("{d:#?}"));
    assert_eq!(summaries.len(), 1);
    assert!(
        summaries[0].stand_ins.is_empty(),
        "every leaf is simulated: {:?}",
        summaries[0].stand_ins
    );
    let text = String::from_utf8(sink.into_inner()).unwrap();
    let lines = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (text, lines)
}

/// The living room as written: two minutes.
fn living_room() -> &'static (String, Vec<Value>) {
    static RUN: OnceLock<(String, Vec<Value>)> = OnceLock::new();
    RUN.get_or_init(|| trace(&soccer_source(), 2400))
}

/// A module's status change: (tick, from, to, value).
fn changes(lines: &[Value], module: &str) -> Vec<(u64, String, String, f64)> {
    lines
        .iter()
        .filter(|l| l["ev"] == "behavior" && l["module"] == module)
        .map(|l| {
            (
                l["tick"].as_u64().unwrap(),
                l["from"].as_str().unwrap().to_string(),
                l["to"].as_str().unwrap().to_string(),
                l["value"].as_f64().unwrap(),
            )
        })
        .collect()
}

/// The ticks at which a module starts running (from any status).
fn starts(lines: &[Value], module: &str) -> Vec<u64> {
    changes(lines, module)
        .into_iter()
        .filter(|(_, _, to, _)| to == "running")
        .map(|(t, ..)| t)
        .collect()
}

/// The first tick a node whose path contains `part` reaches `to`.
fn node_reaches(lines: &[Value], part: &str, to: &str) -> Option<u64> {
    lines
        .iter()
        .find(|l| l["ev"] == "node" && l["path"].as_str().unwrap().contains(part) && l["to"] == to)
        .map(|l| l["tick"].as_u64().unwrap())
}

/// The first tick a variable takes a value satisfying `f`.
fn var_becomes(lines: &[Value], name: &str, f: impl Fn(&Value) -> bool) -> Option<u64> {
    lines
        .iter()
        .find(|l| l["ev"] == "var" && l["name"] == name && f(&l["value"]))
        .map(|l| l["tick"].as_u64().unwrap())
}

fn said(lines: &[Value], text: &str) -> Vec<u64> {
    lines
        .iter()
        .filter(|l| l["ev"] == "log" && l["text"] == text)
        .map(|l| l["tick"].as_u64().unwrap())
        .collect()
}

#[test]
fn soccer_runs_while_the_ball_is_in_view_and_its_modules_share_the_ball() {
    let (_, lines) = living_room();
    // Vitality is high: the game starts at once, by searching (no ball in view yet).
    assert_eq!(starts(lines, "Soccer").first(), Some(&0));
    assert_eq!(starts(lines, "Soccer/SearchBall").first(), Some(&0));
    // The head's sweep brings the ball into view: searching is worth nothing any more and
    // approaching takes over, the next tick (once the search has released the head).
    let visible = var_becomes(lines, "ball_visible", |v| v == true).unwrap();
    assert!(node_reaches(lines, "LookForBall::1/TurnHead", "RUNNING").unwrap() < visible);
    assert!(changes(lines, "Soccer/SearchBall")
        .iter()
        .any(|(t, _, to, _)| *t == visible && to == "preparing-to-stop"));
    let approach = starts(lines, "Soccer/ApproachBall")[0];
    assert_eq!(approach, visible + 1);
    // Its look writes the shared target, the ball's position, and it walks there...
    let shared = var_becomes(lines, "ball", |v| v[0].as_f64().unwrap() > 0.0).unwrap();
    assert_eq!(shared, approach);
    assert!(node_reaches(lines, "WalkToBall", "RUNNING").unwrap() >= approach);
    // ... and the kick hits the ball that was approached: KickAt succeeds only when the ball
    // lies where the shared target says.
    let kick = starts(lines, "Soccer/KickBall")[0];
    assert!(kick > approach);
    let kicked = node_reaches(lines, "KickAt", "SUCCESS").expect("a kick");
    assert!(kicked >= kick);
    // The kick is the main child: the game is over (and starts afresh later).
    assert!(changes(lines, "Soccer")
        .iter()
        .any(|(t, from, to, _)| *t == kicked && from == "running" && to == "stopped-initial"));
}

#[test]
fn a_call_brings_sound_attention_then_a_chat_with_an_attractive_face() {
    let (_, lines) = living_room();
    // `at 8s raise called`: the tick at 8.0 s hears it.
    let heard = var_becomes(lines, "heard", |v| v == true).unwrap();
    assert_eq!(heard, 160);
    // Sound attention (worth 80) preempts the game, which holds the head.
    let soccer = changes(lines, "Soccer");
    assert!(
        soccer.contains(&(
            heard,
            "running".into(),
            "preparing-to-stop".into(),
            soccer.iter().find(|c| c.0 == heard).unwrap().3
        )),
        "{soccer:?}"
    );
    assert!(soccer.iter().any(|(t, from, to, _)| *t == heard + 1
        && from == "preparing-to-stop"
        && to == "stopped-preserved"));
    // The approach was going on, and is preserved too.
    assert!(changes(lines, "Soccer/ApproachBall")
        .iter()
        .any(|(t, _, to, _)| *t == heard + 1 && to == "stopped-preserved"));
    let attention = starts(lines, "SoundAttention");
    assert_eq!(
        attention.first(),
        Some(&(heard + 1)),
        "it runs once the head is released"
    );
    let turned = changes(lines, "SoundAttention")
        .into_iter()
        .find(|(_, from, to, _)| from == "running" && to == "stopped-initial")
        .expect("the turn finishes")
        .0;
    // Alice (familiarity 90) is the face found: chatting is worth more than the game.
    let chat = starts(lines, "Chat")[0];
    assert_eq!(chat, turned + 1);
    let chat_value = changes(lines, "Chat")[0].3;
    let soccer_value = lines
        .iter()
        .rev()
        .find(|l| {
            l["ev"] == "behavior" && l["module"] == "Soccer" && l["tick"].as_u64().unwrap() <= chat
        })
        .unwrap()["value"]
        .as_f64()
        .unwrap();
    assert!(chat_value > soccer_value, "{chat_value} {soccer_value}");
    // QRIO walks up to her, then the conversation runs to its end.
    assert!(starts(lines, "Chat/ApproachUser")[0] == chat);
    let talk = starts(lines, "Chat/ChatToUser")[0];
    assert!(said(lines, "Hello!").contains(&talk));
    let bye = said(lines, "It was nice talking to you. Goodbye!")[0];
    assert!(changes(lines, "Chat")
        .iter()
        .any(|(t, from, to, _)| *t == bye && from == "running" && to == "stopped-initial"));
    // A satisfied need: no second chat.
    assert_eq!(said(lines, "Hello!").len(), 1);
}

#[test]
fn preempted_modules_resume_where_they_were() {
    let (_, lines) = living_room();
    let bye = said(lines, "It was nice talking to you. Goodbye!")[0];
    // The game resumes from its preserved state, searching again.
    let soccer = changes(lines, "Soccer");
    assert!(
        soccer.iter().any(|(t, from, to, _)| *t == bye + 1
            && from == "stopped-preserved"
            && to == "preparing-to-run"),
        "{soccer:?}"
    );
    assert!(starts(lines, "Soccer").contains(&(bye + 1)));
    // The approach preempted by the call resumes once the ball is in view again, with the
    // same ball as its target.
    let approach = changes(lines, "Soccer/ApproachBall");
    assert!(
        approach.iter().any(|(t, from, to, _)| *t > bye
            && from == "stopped-preserved"
            && to == "preparing-to-run"),
        "{approach:?}"
    );
    // And the game goes on to a kick.
    assert!(lines.iter().any(|l| l["ev"] == "node"
        && l["path"].as_str().unwrap().contains("KickAt")
        && l["to"] == "SUCCESS"
        && l["tick"].as_u64().unwrap() > bye));
}

#[test]
fn with_the_battery_running_down_charging_wins_over_soccer() {
    let (_, lines) = living_room();
    // Two minutes of play and chat run the battery down: hunger beats the game.
    let charge = starts(lines, "Charge");
    assert!(!charge.is_empty(), "QRIO goes to charge");
    let first = charge[0];
    let before = lines
        .iter()
        .rev()
        .find(|l| {
            l["ev"] == "var" && l["name"] == "battery" && l["tick"].as_u64().unwrap() <= first
        })
        .unwrap()["value"]
        .as_f64()
        .unwrap();
    assert!(before < 50.0, "the battery ran down: {before}");
    assert!(starts(lines, "Soccer")[0] < first);
    assert!(node_reaches(lines, "Recharge", "RUNNING").unwrap() >= first);
    // It charges on the station, and the game wins again once hunger has dropped.
    let charging = said(lines, "Charging.");
    assert!(!charging.is_empty());
    let rose = lines
        .iter()
        .filter(|l| {
            l["ev"] == "var" && l["name"] == "battery" && l["tick"].as_u64().unwrap() > charging[0]
        })
        .map(|l| l["value"].as_f64().unwrap())
        .fold(0.0, f64::max);
    assert!(rose > before, "the battery charges: {before} -> {rose}");
    assert!(changes(lines, "Charge")
        .iter()
        .any(|(t, from, to, _)| *t > charging[0]
            && from == "running"
            && to == "preparing-to-stop"));
    assert!(starts(lines, "Soccer").iter().any(|&t| t > charging[0]));
}

#[test]
fn a_low_battery_sends_qrio_to_its_charger_first() {
    let src = soccer_source().replace("battery 60;", "battery 15;");
    let (_, lines) = trace(&src, 300);
    assert_eq!(starts(&lines, "Charge").first(), Some(&0));
    let values = changes(&lines, "Charge");
    // 80 − 0.7 × 15: hunger (Mv 85, β 0.8) beats the game (52 at vitality 80).
    assert!((values[0].3 - 69.5).abs() < 1e-9, "{values:?}");
    assert!(
        starts(&lines, "Soccer").is_empty(),
        "no soccer while hungry"
    );
    assert!(!said(&lines, "Charging.").is_empty());
}

#[test]
fn the_run_is_deterministic_and_lateral_inhibition_keeps_it_calm() {
    let (text, lines) = living_room();
    let (again, _) = trace(&soccer_source(), 2400);
    assert!(*text == again, "two runs must write the same trace");
    // No module dithers: none starts more than a handful of times in two minutes.
    for m in ["Soccer", "Charge", "Chat", "SoundAttention", "Idle"] {
        let n = starts(lines, m).len();
        assert!(n <= 6, "{m} started {n} times");
    }
}
