//! What `affect` shows people, end to end through the binary: `run --plot` (an SVG that
//! parses, with every series named), the story `run` tells on stderr, and `memory show`.

mod support;

use std::path::{Path, PathBuf};
use std::process::Output;
use support::{affect, stderr};

fn scratch(name: &str) -> support::Scratch {
    support::scratch("cli_story", name)
}

fn copy(dir: &Path, from: &str) -> PathBuf {
    let from = support::workspace().join(from);
    let to = dir.join(from.file_name().unwrap());
    std::fs::copy(&from, &to).unwrap();
    to
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every text of an SVG document, after checking that it is well-formed XML with an `<svg>`
/// root.
fn svg_texts(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("the plot is written");
    let doc = roxmltree::Document::parse(&text).expect("the plot is well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| n.text().unwrap_or("").trim().to_string())
        .collect()
}

fn has(texts: &[String], what: &str) -> bool {
    texts.iter().any(|t| t.contains(what))
}

#[test]
fn plot_of_the_navigator_names_its_levels_hormones_and_drive() {
    let dir = scratch("plot_navigator");
    let nav = copy(&dir, "examples/navigator.affect");
    let svg = dir.join("nav.svg");
    let out = affect(&[
        "run",
        nav.to_str().unwrap(),
        "--ticks",
        "300",
        "--no-persist",
        "--quiet",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let texts = svg_texts(&svg);
    for series in [
        "score",
        "mood",
        "cortisol",
        "serotonin",
        "drive `drive`",
        "Explore",
    ] {
        assert!(has(&texts, series), "the plot shows `{series}`: {texts:?}");
    }
    assert!(has(&texts, "time (s)"), "one time axis in seconds");
    assert!(
        !has(&texts, "sound") && !has(&texts, "moves"),
        "sensors and unranged counters are not drawn: {texts:?}"
    );
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp"))
        .collect();
    assert!(left.is_empty(), "the SVG is written atomically: {left:?}");
}

#[test]
fn plot_of_an_emotion_machine_shows_states_and_intensity() {
    let dir = scratch("plot_emotions");
    let svg = dir.join("e.svg");
    let fixture = support::workspace().join("tests/fixtures/cli/emotions.affect");
    let out = affect(&[
        "run",
        fixture.to_str().unwrap(),
        "--ticks",
        "150",
        "--quiet",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let texts = svg_texts(&svg);
    for series in [
        "emotion machine `waiter`",
        "Happy",
        "Concerned",
        "Frustrated",
        "waiter.intensity",
        "intensity",
        "treats",
        "progress",
        "adrenaline",
    ] {
        assert!(has(&texts, series), "the plot shows `{series}`: {texts:?}");
    }
}

#[test]
fn several_agents_get_one_block_each_in_one_file() {
    let dir = scratch("plot_agents");
    let f = copy(&dir, "examples/recruitment.affect");
    let svg = dir.join("r.svg");
    let out = affect(&[
        "run",
        f.to_str().unwrap(),
        "--ticks",
        "20",
        "--no-persist",
        "--quiet",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let texts = svg_texts(&svg);
    for agent in [
        "agent UAV",
        "agent UGV#1 (program UGV)",
        "agent UGV#2 (program UGV)",
    ] {
        assert!(has(&texts, agent), "a block for `{agent}`: {texts:?}");
    }
}

#[test]
fn a_plot_that_cannot_be_written_is_a_usage_error() {
    let dir = scratch("plot_unwritable");
    let fixture = support::workspace().join("tests/fixtures/cli/emotions.affect");
    let svg = dir.join("no/such/dir/e.svg");
    let out = affect(&[
        "run",
        fixture.to_str().unwrap(),
        "--ticks",
        "5",
        "--quiet",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("cannot write"), "{}", stderr(&out));
}

#[test]
fn the_navigator_tells_its_story_on_stderr() {
    let dir = scratch("story");
    let nav = copy(&dir, "examples/navigator.affect");
    let out = affect(&[
        "run",
        nav.to_str().unwrap(),
        "--ticks",
        "100",
        "--no-persist",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    let story: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("s  Navigator  "))
        .collect();
    assert!(story.len() >= 2, "a line per meaningful change: {err}");
    // The first move: where the robot is, what the memory did, which branch chose the move,
    // and the state it is in (levels, drive, intention).
    let first = story[0];
    assert!(first.trim_start().starts_with("0.0s"), "{first}");
    for part in [
        "at P",
        "memory: encoding P",
        "choose: from_map",
        "drive Explore",
        "score ",
    ] {
        assert!(
            first.contains(part),
            "the first line tells `{part}`: {first}"
        );
    }
    // Later lines tell each new place, once.
    let places: Vec<&str> = story
        .iter()
        .filter_map(|l| l.split("at ").nth(1))
        .filter_map(|rest| rest.split(';').next())
        .collect();
    assert!(places.len() >= 2, "{err}");
    assert!(places.windows(2).all(|w| w[0] != w[1]), "{places:?}");
    // The summary still follows.
    assert!(err.contains("Navigator: 100 ticks"), "{err}");
    // --quiet silences the story and the summary.
    let out = affect(&[
        "run",
        nav.to_str().unwrap(),
        "--ticks",
        "100",
        "--no-persist",
        "--quiet",
    ]);
    assert!(out.status.success());
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
}

#[test]
fn a_drive_change_and_an_emotion_change_are_told_with_their_intention_and_cause() {
    let dir = scratch("story_drive");
    let nav = copy(&dir, "examples/navigator.affect");
    // The world slams a door at 40 s: a loud noise, so the drive turns to AvoidDanger.
    let out = affect(&[
        "run",
        nav.to_str().unwrap(),
        "--ticks",
        "450",
        "--no-persist",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    let line = err
        .lines()
        .find(|l| l.contains("drive Explore → AvoidDanger"))
        .unwrap_or_else(|| panic!("the drive change is told: {err}"));
    assert!(line.contains(", target "), "with its intention: {line}");

    let fixture = support::workspace().join("tests/fixtures/cli/emotions.affect");
    let out = affect(&["run", fixture.to_str().unwrap(), "--ticks", "80"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("waiter Happy → Concerned (intensity 0.05): \"the tray is running low\""),
        "the emotion change with its intensity and causal chain: {err}"
    );
    assert!(err.contains("waiter Concerned"), "{err}");
}

#[test]
fn memory_show_prints_a_remembered_floor() {
    let dir = scratch("memory_show");
    let nav = copy(&dir, "examples/navigator.affect");
    // Persistence writes `feelings.eltm` beside the program.
    let out = affect(&["run", nav.to_str().unwrap(), "--ticks", "300", "--quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let file = dir.join("feelings.eltm");
    assert!(file.exists());

    let out = affect(&["memory", "show", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let table = stdout(&out);
    assert!(table.contains(": affect long-term memory v"), "{table}");
    assert!(table.contains("memory feelings: "), "{table}");
    assert!(table.contains("key") && table.contains("score") && table.contains("familiarity"));
    // The rows come most pleasant first.
    let scores: Vec<f64> = table
        .lines()
        .filter_map(|l| {
            let cols: Vec<&str> = l.split_whitespace().collect();
            match cols.as_slice() {
                [_, s, _, "positive" | "neutral" | "negative"] => s.parse().ok(),
                _ => None,
            }
        })
        .collect();
    assert!(scores.len() >= 3, "places were remembered: {table}");
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");

    let out = affect(&[
        "memory",
        "show",
        file.to_str().unwrap(),
        "--format",
        "json",
        "--sort",
        "key",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("one JSON document");
    assert!(v["format"]
        .as_str()
        .unwrap()
        .starts_with("affect long-term memory v"));
    let traces = v["memories"][0]["traces"].as_array().unwrap();
    assert_eq!(v["memories"][0]["name"], "feelings");
    assert_eq!(traces.len(), scores.len());
    let keys: Vec<&str> = traces.iter().map(|t| t["key"].as_str().unwrap()).collect();
    assert!(
        keys.windows(2).all(|w| w[0] <= w[1]),
        "--sort key: {keys:?}"
    );
    for t in traces {
        let (s, f) = (
            t["score"].as_f64().unwrap(),
            t["familiarity"].as_f64().unwrap(),
        );
        assert!(
            (0.0..=100.0).contains(&s) && (0.0..=100.0).contains(&f),
            "{t}"
        );
    }
}

#[test]
fn memory_show_refuses_a_damaged_file_and_reports_a_missing_one() {
    let dir = scratch("memory_damaged");
    let file = dir.join("feelings.eltm");
    std::fs::write(&file, b"PK\x03\x04 not a memory\n").unwrap();
    let out = affect(&["memory", "show", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("E0603"), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    assert_eq!(
        std::fs::read(&file).unwrap(),
        b"PK\x03\x04 not a memory\n",
        "left as it was"
    );
    // A file of another version, and a trace with a score out of range.
    std::fs::write(&file, "affect long-term memory v9\n").unwrap();
    let out = affect(&["memory", "show", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("v9"), "{}", stderr(&out));
    std::fs::write(&file, "affect long-term memory v1\nmemory m\nA\t200\t1\n").unwrap();
    let out = affect(&["memory", "show", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("line 3"), "{}", stderr(&out));

    let out = affect(&["memory", "show", dir.join("missing.eltm").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("cannot read"), "{}", stderr(&out));
}

#[test]
fn a_trace_that_cannot_be_written_is_a_usage_error() {
    // Linux's `/dev/full` opens, then refuses every write: the run goes on and the failure
    // is told.
    let fixture = support::workspace().join("tests/fixtures/cli/emotions.affect");
    let out = affect(&[
        "run",
        fixture.to_str().unwrap(),
        "--ticks",
        "5",
        "--quiet",
        "--trace",
        "/dev/full",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("cannot write `/dev/full`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn behaviour_modules_starting_preempted_and_resuming_are_told_concisely() {
    let dir = scratch("modules");
    let soccer = copy(&dir, "examples/soccer.affect");
    let trace = dir.join("soccer.jsonl");
    let out = affect(&[
        "run",
        soccer.to_str().unwrap(),
        "--trace",
        trace.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    for told in [
        "modules: Soccer/SearchBall starts",
        "Soccer/ApproachBall preempted, SoundAttention starts",
        "modules: Soccer/SearchBall resumes",
        "running Soccer/ApproachBall",
    ] {
        assert!(err.contains(told), "the story tells `{told}`:\n{err}");
    }
    // One item per tick that changed modules, for the top of what changed: far fewer
    // lines than the trace's `behavior` events.
    let events = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .filter(|l| l.contains("\"ev\":\"behavior\""))
        .count();
    let lines = err.lines().filter(|l| l.contains("modules: ")).count();
    assert!(events > 100, "{events}");
    assert!(
        lines * 3 < events,
        "{lines} module lines for {events} events:\n{err}"
    );
}

/// The recruitment example (seed 002): the story tells the protocol's steps, each on the
/// side that took it (the offer and SHAME, the choice, the take-over, the help, the
/// release), and the plot draws every responder's SHAME, so no UGV that heard a HELP is
/// "nothing to draw".
#[test]
fn the_recruitment_story_tells_the_protocol_and_the_plot_draws_shame() {
    let dir = scratch("recruitment");
    let plot = dir.join("r.svg");
    let out = affect(&[
        "run",
        "examples/recruitment.affect",
        "--ticks",
        "400",
        "--no-persist",
        "--plot",
        plot.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    let line_of = |needle: &str| -> &str {
        err.lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no `{needle}` in the story:\n{err}"))
    };
    // The first robot that helped: its side of the handshake, and the UAV's.
    let helped = line_of("UAV  help: helped by UGV#");
    let chosen = helped.split("helped by ").nth(1).unwrap();
    let chosen = chosen.split([' ', ';']).next().unwrap();
    assert!(line_of("help: offers to help UAV (SHAME 0.").contains("UGV#"));
    line_of(&format!("UAV  help: chose {chosen} of "));
    line_of(&format!("{chosen}  help: recruited by UAV"));
    line_of(&format!("{chosen}  help: took over from UAV (lease 30s)"));
    line_of(&format!(
        "{chosen}  help: released (the lease with UAV is over)"
    ));
    let texts = svg_texts(&plot);
    let shame = texts
        .iter()
        .filter(|t| t.starts_with("SHAME (help)"))
        .count();
    assert!(shame >= 3, "{shame} SHAME series: {texts:?}");
    assert!(
        texts
            .iter()
            .any(|t| t.contains(&format!("{chosen}: SHAME when a HELP arrives"))),
        "{texts:?}"
    );
}
