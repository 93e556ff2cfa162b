//! Every kind of trace event shows in the report. `kind_of` matches the runtime's event enum
//! without a catch-all arm, so an event kind added later does not compile here until it has
//! a sample, and the sample's text must then be found on the page.

use super::page::{render, Detail};
use super::summary::read;
use affect_runtime::trace::{Event, JsonLines, Timing, TimingSummary, TraceSink, Value};

/// The number of each kind of event; one arm per variant, no `_`.
fn kind_of(e: &Event) -> usize {
    match e {
        Event::Node { .. } => 0,
        Event::Var { .. } => 1,
        Event::Drive { .. } => 2,
        Event::Emotion { .. } => 3,
        Event::Memory { .. } => 4,
        Event::Msg { .. } => 5,
        Event::Behavior { .. } => 6,
        Event::Lost { .. } => 7,
        Event::Recruit { .. } => 8,
        Event::Component { .. } => 9,
        Event::Rejected { .. } => 10,
        Event::Error { .. } => 11,
        Event::Call { .. } => 12,
        Event::Log { .. } => 13,
        Event::Device { .. } => 14,
        Event::Timing(_) => 15,
        Event::TimingSummary(_) => 16,
        Event::Summary { .. } => 17,
        Event::Robot { .. } => 18,
    }
}
const KINDS: usize = 19;

/// One or more events of every kind, each with a text the page must show because of it.
fn samples() -> Vec<(Event<'static>, &'static str)> {
    let timing = Timing {
        sense_us: 10.0,
        process_us: 20.0,
        act_us: 5.0,
        tick_us: 4321.0,
        late_us: 3.0,
        overrun: true,
        missed: true,
        skipped: 2,
    };
    let summary = TimingSummary {
        ticks: 12,
        tick_p50_us: 40.0,
        tick_p99_us: 90.0,
        tick_max_us: 120.0,
        period_us: 100_000.0,
        ..TimingSummary::default()
    };
    let var = |name, value| Event::Var { name, value };
    let mut samples = vec![
        (
            Event::Node {
                uid: 1,
                path: "Main/Patrol",
                from: "IDLE",
                to: "RUNNING",
            },
            "#1 Patrol",
        ),
        (var("level", Value::Num(1.0)), ">level<"),
        (var("level", Value::Num(2.0)), ">level<"),
        (var("transmitted", Value::Bool(false)), ">transmitted<"),
        (var("transmitted", Value::Bool(true)), ">true<"),
        (
            Event::Drive {
                name: "drive",
                from: "Explore",
                to: "LiftMood",
                intention: Some(Value::Str("H")),
            },
            "drive: Explore → LiftMood (intention H)",
        ),
        (
            Event::Emotion {
                machine: "waiter",
                from: "Happy",
                to: "Concerned",
                intensity: 0.05,
                cause: "the tray is low",
            },
            "waiter: Happy → Concerned (intensity 0.05, the tray is low)",
        ),
        (
            Event::Memory {
                op: "encoding",
                key: "P",
                score: 62.5,
            },
            "encoding P → 62.5",
        ),
        (
            Event::Msg {
                from: "UGV#1",
                to: "UAV",
                kind: "HELP",
            },
            "UGV#1 → UAV: HELP",
        ),
        (
            Event::Behavior {
                module: "Soccer",
                from: "running",
                to: "preempted",
                value: 0.5,
            },
            "Soccer: running → preempted",
        ),
        (
            Event::Log {
                level: "info",
                text: "the emotional decision overrides the shortest path".into(),
            },
            "the emotional decision overrides the shortest path",
        ),
        (
            Event::Device {
                device: "sound",
                error: "I2C bus timeout".into(),
                attempts: 3,
            },
            "device sound failed after 3 attempts: I2C bus timeout",
        ),
        (
            Event::Timing(timing),
            "1 over their period, the longest 4321 µs",
        ),
        (Event::TimingSummary(summary), "40 µs / 90 µs / 120 µs"),
        (
            Event::Summary {
                ticks: 12,
                statuses: [1, 2, 3, 4, 0],
                root: "RUNNING",
            },
            "12 ticks, root RUNNING",
        ),
    ];
    samples.extend(team_samples());
    samples
}

/// The events of a team (copies lost, recruitment, components, messages refused, calls) and
/// the error that stops a tree.
fn team_samples() -> Vec<(Event<'static>, &'static str)> {
    vec![
        (
            Event::Lost {
                from: "UGV#1",
                to: "UAV",
                kind: "ACCEPT",
                copies: 2,
            },
            "2 copies of ACCEPT from UGV#1 to UAV lost",
        ),
        (
            Event::Recruit {
                block: "Help",
                step: "chose",
                peer: Some("UGV#2"),
                shame: Some(0.42),
                distance: Some(3.1),
                eta_ms: None,
                offers: Some(2),
                lease_ms: None,
                why: None,
            },
            "Help chose UGV#2 (shame 0.42, 3.1 m, 2 offers)",
        ),
        (
            Event::Component {
                name: "speech_recognition",
                state: "failed",
                host: Some("laptop2"),
                to: None,
                silence_ms: Some(900.0),
            },
            "speech_recognition failed on laptop2",
        ),
        (
            Event::Robot {
                name: "UGV#7",
                state: "lost",
                why: "liveliness token withdrawn",
            },
            "robot UGV#7 lost: liveliness token withdrawn",
        ),
        (
            Event::Rejected {
                from: "intruder",
                kind: "ACCEPT",
                why: "bad signature",
            },
            "Security: messages refused",
        ),
        (
            Event::Error {
                var: "route",
                text: "`route` was read while it holds no value".into(),
            },
            "Stopped by an error",
        ),
        (
            Event::Call {
                caller: "Peoplebot",
                component: "speech_recognition",
                leaf: "Listen",
                host: "laptop2",
                id: 241,
                state: "answered",
                ms: Some(2.6),
                why: None,
            },
            "Peoplebot calls speech_recognition.Listen on laptop2 (call 241): answered in 2.6 ms",
        ),
    ]
}

#[test]
fn every_kind_of_event_shows_on_the_page() {
    let samples = samples();
    let mut covered = [false; KINDS];
    for (e, _) in &samples {
        covered[kind_of(e)] = true;
    }
    let missing: Vec<usize> = (0..KINDS).filter(|k| !covered[*k]).collect();
    assert!(missing.is_empty(), "kinds without a sample: {missing:?}");
    // A networked robot's lines, as `affect launch` merges them: each with its process.
    let mut sink = JsonLines::with_pid(Vec::new(), 4242);
    for (i, (e, _)) in samples.iter().enumerate() {
        sink.line(i as u64, 100.0 * i as f64, "Robot", e).unwrap();
    }
    let trace = sink.into_inner();
    let run = read(&trace[..], 100.0 * samples.len() as f64).unwrap();
    assert_eq!(run.bad_lines, 0);
    let html = render(&run, "every event", Detail::FULL);
    for (e, shows) in &samples {
        assert!(
            html.contains(shows),
            "event {} does not show `{shows}` on the page",
            kind_of(e)
        );
    }
    assert!(
        html.contains("process 4242"),
        "the writing process is named"
    );
}
