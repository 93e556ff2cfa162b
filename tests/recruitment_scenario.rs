//! Seed 002's story, proved from the trace: `examples/recruitment.affect` runs for 500 ticks
//! (one a second) through the `affect` binary. The UAV scans its field and stops at possible
//! mines; its HELP messages are ignored by the idle UGVs until one's SHAME has risen past the
//! threshold; among the UGVs whose ACCEPT arrived it chooses the one that can arrive soonest;
//! that UGV comes, takes over for its lease, and the UAV scans on. One message in ten is lost
//! on the way, and the protocol goes on regardless.

mod support;

use serde_json::Value;

/// The example's SHAME threshold and ignore cost `c + d(D)`.
const THRESHOLD: f64 = 0.75;
fn ignore_cost(d: f64) -> f64 {
    0.2 + 0.5 / d
}

/// Copies the example into a scratch directory, applying `edit` to its text.
fn scratch(name: &str, edit: impl Fn(String) -> String) -> support::Scratch {
    let d = support::scratch("recruitment_scenario", name);
    let text =
        std::fs::read_to_string(support::workspace().join("examples/recruitment.affect")).unwrap();
    std::fs::write(d.join("recruitment.affect"), edit(text)).unwrap();
    d
}

/// Runs the program in `dir` for `ticks` ticks; returns the stderr summary and the trace.
fn run(dir: &std::path::Path, ticks: &str) -> (String, String) {
    run_with(dir, &["--ticks", ticks])
}

/// Runs the program in `dir` with these options of `affect run`: its stderr and its trace.
fn run_with(dir: &std::path::Path, options: &[&str]) -> (String, String) {
    support::run_traced(
        &dir.join("recruitment.affect"),
        options,
        &dir.join("trace.jsonl"),
    )
}

fn lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn ev<'a>(trace: &'a [Value], kind: &str) -> Vec<&'a Value> {
    trace.iter().filter(|l| l["ev"] == kind).collect()
}

fn steps<'a>(trace: &'a [Value], step: &str) -> Vec<&'a Value> {
    trace
        .iter()
        .filter(|l| l["ev"] == "recruit" && l["step"] == step)
        .collect()
}

fn t(l: &Value) -> f64 {
    l["t_ms"].as_f64().unwrap()
}

#[test]
fn the_uav_recruits_the_nearest_ashamed_ugv_despite_lost_messages() {
    let dir = scratch("example", |s| s);
    let (stderr, text) = run(&dir, "500");
    let trace = lines(&text);
    assert!(stderr.contains("UAV: 500 ticks"), "a summary: {stderr}");
    assert!(!stderr.contains("E0601"), "recruitment runs: {stderr}");

    // At least one whole recruitment: chosen, arrived, taken over, acknowledged.
    let helped = steps(&trace, "helped");
    assert!(!helped.is_empty(), "no recruitment completed");
    let recruitments = trace
        .iter()
        .rfind(|l| l["agent"] == "UAV" && l["ev"] == "var" && l["name"] == "recruitments")
        .unwrap();
    assert_eq!(recruitments["value"].as_i64().unwrap(), helped.len() as i64);

    for (n, chose) in steps(&trace, "chose").into_iter().enumerate() {
        assert_eq!(chose["agent"], "UAV");
        let at = t(chose);
        // The HELPs of this request: since the previous choice.
        let since = steps(&trace, "chose")
            .iter()
            .map(|c| t(c))
            .filter(|&x| x < at)
            .fold(0.0, f64::max);
        let accepted: Vec<&Value> = steps(&trace, "help_accepted")
            .into_iter()
            .filter(|a| t(a) > since && t(a) < at && a["peer"] == "UAV")
            .collect();
        // An ACCEPT the world lost never reached the UAV.
        let lost_accepts: Vec<&Value> = ev(&trace, "lost")
            .into_iter()
            .filter(|l| l["kind"] == "ACCEPT" && t(l) > since && t(l) < at)
            .collect();
        let heard: Vec<&&Value> = accepted
            .iter()
            .filter(|a| {
                !lost_accepts
                    .iter()
                    .any(|l| l["from"] == a["agent"] && t(l) == t(a))
            })
            .collect();
        assert_eq!(chose["offers"].as_u64().unwrap() as usize, heard.len());
        let best = heard
            .iter()
            .min_by(|a, b| {
                a["eta_ms"]
                    .as_f64()
                    .unwrap()
                    .total_cmp(&b["eta_ms"].as_f64().unwrap())
            })
            .unwrap();
        assert_eq!(chose["peer"], best["agent"], "the least arrival time wins");
        assert_eq!(chose["eta_ms"], best["eta_ms"]);

        // The chosen UGV was affective: it answered with SHAME above the threshold.
        let ugv = best["agent"].as_str().unwrap();
        let shame = best["shame"].as_f64().unwrap();
        assert!(shame > THRESHOLD, "{ugv} answered with SHAME {shame}");
        if n > 0 {
            continue;
        }
        // The first time, from no SHAME at all: it rose over ignored HELPs past the
        // threshold, and decayed a little between HELPs.
        let ignored: Vec<f64> = steps(&trace, "help_ignored")
            .into_iter()
            .filter(|i| i["agent"] == ugv && t(i) > since && t(i) < at)
            .map(|i| i["shame"].as_f64().unwrap())
            .collect();
        assert!(
            ignored.len() >= 2,
            "{ugv} answered only after ignoring HELP"
        );
        assert!(
            ignored.windows(2).all(|w| w[1] > w[0]),
            "SHAME rises: {ignored:?}"
        );
        assert!(ignored.iter().all(|s| *s <= 1.0), "SHAME stays within 0..1");
        assert!(
            *ignored.last().unwrap() > shame,
            "SHAME decays between HELPs"
        );
        assert!(*ignored.last().unwrap() - shame < 0.05);
    }

    // The handshake of each completed recruitment, in order, on both sides.
    for h in &helped {
        let ugv = h["peer"].as_str().unwrap();
        let order: Vec<String> = trace
            .iter()
            .filter(|l| t(l) <= t(h))
            .filter(|l| {
                (l["ev"] == "recruit" && (l["agent"] == ugv || l["peer"] == ugv))
                    || (l["ev"] == "msg" && (l["from"] == ugv || l["to"] == ugv))
            })
            .map(|l| match l["ev"].as_str().unwrap() {
                "msg" => l["kind"].as_str().unwrap().to_string(),
                _ => l["step"].as_str().unwrap().to_string(),
            })
            .collect();
        let from = order.iter().rposition(|s| s == "recruited").unwrap();
        let tail: Vec<&str> = order[from..]
            .iter()
            .map(String::as_str)
            .filter(|s| !s.starts_with("help_"))
            .collect();
        let expected = [
            "recruited",
            "ARRIVAL",
            "arrived",
            "AGREE",
            "took_over",
            "ACKACK",
            "helped",
        ];
        let mut it = tail.iter();
        for step in expected {
            assert!(
                it.any(|s| *s == step),
                "{step} missing or out of order in {tail:?}"
            );
        }
        // SHAME starts again from 0 for the recruited UGV: its next ignored HELP adds one
        // cost to nothing.
        if let Some(next) = steps(&trace, "help_ignored")
            .into_iter()
            .find(|i| i["agent"] == ugv && t(i) > t(h))
        {
            let d = next["distance"].as_f64().unwrap();
            let expected = ignore_cost(d).min(1.0);
            assert!((next["shame"].as_f64().unwrap() - expected).abs() < 1e-9);
        }
    }

    // Messages were lost, and nothing waited for them: HELP went out again and again.
    let lost: u64 = ev(&trace, "lost")
        .iter()
        .map(|l| l["copies"].as_u64().unwrap())
        .sum();
    assert!(lost > 0, "one message in ten is lost");
    assert!(
        ev(&trace, "msg")
            .iter()
            .filter(|m| m["kind"] == "HELP")
            .count()
            > helped.len()
    );
    // Every line of the UAV after it was helped shows it scanning on: it moved.
    let last = helped.last().unwrap();
    let moved = trace.iter().any(|l| {
        l["agent"] == "UAV" && l["ev"] == "var" && l["name"] == "position" && t(l) > t(last)
    });
    assert!(moved, "the UAV scans on after a recruitment");
}

#[test]
fn the_same_seed_gives_the_same_trace() {
    let a = run(&scratch("same_a", |s| s), "200").1;
    let b = run(&scratch("same_b", |s| s), "200").1;
    assert!(a == b, "two runs differ");
}

#[test]
fn greedy_responders_all_answer_the_first_help() {
    // Greedy UGVs and no message loss: every available robot answers the first HELP.
    let dir = scratch("greedy", |s| {
        s.replace(
            "        strategy affective;\n        /// t:",
            "        strategy greedy;\n        /// t:",
        )
        .replace("messages broadcast loss 0.1;", "messages broadcast;")
    });
    let (_, text) = run(&dir, "200");
    let trace = lines(&text);
    assert!(
        steps(&trace, "help_ignored").is_empty(),
        "greedy robots never ignore"
    );
    let first_help = ev(&trace, "msg")
        .into_iter()
        .find(|m| m["kind"] == "HELP")
        .map(t)
        .expect("the UAV asks for help");
    let accepted = steps(&trace, "help_accepted")
        .into_iter()
        .filter(|a| t(a) == first_help)
        .count();
    // Ten idle UGVs; the two tasked ones are busy scanning.
    assert_eq!(accepted, 10);
    let chose = steps(&trace, "chose")[0];
    assert_eq!(chose["offers"], 10);
    assert!(ev(&trace, "lost").is_empty());
    assert!(!steps(&trace, "helped").is_empty());
}

#[test]
fn unicast_sends_help_to_each_robot() {
    let dir = scratch("unicast", |s| {
        s.replace("messages broadcast loss 0.1;", "messages unicast;")
    });
    let (_, text) = run(&dir, "120");
    let trace = lines(&text);
    let helps: Vec<&Value> = ev(&trace, "msg")
        .into_iter()
        .filter(|m| m["kind"] == "HELP")
        .collect();
    assert!(!helps.is_empty());
    assert!(
        helps.iter().all(|m| m["to"] != "*"),
        "no broadcast under unicast"
    );
    // Twelve UGVs, one HELP each per request.
    let first = t(helps[0]);
    assert_eq!(helps.iter().filter(|m| t(m) == first).count(), 12);
}

#[test]
fn every_mine_is_handed_over_with_a_quarter_of_the_messages_lost() {
    // Seed 002: lost messages only delay recruitment. Ten seeds at 25 % loss, 2,400 ticks:
    // the UAV hands over all five possible mines in each. Without loss the last one goes
    // near tick 600; at 25 % loss any message but HELP lost costs a new request, and the last
    // went as late as tick 1,660 in 20 seeds.
    let dir = scratch("loss25", |s| {
        s.replace(
            "messages broadcast loss 0.1;",
            "messages broadcast loss 0.25;",
        )
    });
    for seed in 1..=10 {
        let seed_text = seed.to_string();
        let (_, text) = run_with(&dir, &["--ticks", "2400", "--seed", &seed_text, "--quiet"]);
        let trace = lines(&text);
        let helped = steps(&trace, "helped")
            .into_iter()
            .filter(|l| l["agent"] == "UAV")
            .count();
        assert_eq!(helped, 5, "seed {seed}: {helped} of 5 mines handed over");
        assert!(
            !ev(&trace, "lost").is_empty(),
            "seed {seed}: copies are lost"
        );
    }
}
