//! `affect report TRACE.jsonl -o run.html`: a self-contained page under 10 MB, opened in
//! headless Chromium (Debian's `chromium`; scripts/test.sh installs it when missing): no console
//! errors, and a screenshot whose tree and chart panels hold their colours.

mod support;

use std::path::Path;

/// Opens a page headless: (console messages and errors logged, screenshot PNG).
fn open(page: &Path, dir: &Path) -> (String, Vec<u8>) {
    support::chromium::open(page, dir, (1300, 1400))
}

/// Console output of the page itself (errors and messages), as Chromium logs it.
fn console_lines(log: &str) -> Vec<&str> {
    log.lines().filter(|l| l.contains("CONSOLE")).collect()
}

/// How many pixels of the screenshot have this colour (within a small tolerance).
fn pixels_like(png_bytes: &[u8], rgb: [u8; 3]) -> usize {
    support::chromium::Image::decode(png_bytes).count(rgb)
}

#[test]
fn the_navigator_report_opens_cleanly_and_shows_its_panels() {
    let dir = support::scratch("html_report", "navigator");
    let trace = dir.join("nav.jsonl");
    let page = dir.join("run.html");
    support::affect_ok(&[
        "run",
        "examples/navigator.affect",
        "--no-persist",
        "--quiet",
        "--trace",
        trace.to_str().unwrap(),
    ]);
    support::affect_ok(&[
        "report",
        trace.to_str().unwrap(),
        "-o",
        page.to_str().unwrap(),
    ]);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.len() < 10 * 1024 * 1024);
    // Self-contained: nothing is fetched.
    for external in ["src=\"http", "href=\"http", "url(http", "@import"] {
        assert!(!html.contains(external), "{external}");
    }
    for panel in [
        "Tree: each node",
        "Affect and variables",
        "Drives, emotions",
        "Story",
    ] {
        assert!(html.contains(panel), "no `{panel}` panel");
    }
    for var in [">mood<", ">cortisol<", ">score<", ">drive<"] {
        assert!(html.contains(var), "no chart of {var}");
    }
    let (log, shot) = open(&page, &dir);
    assert_eq!(console_lines(&log), Vec::<&str>::new(), "console output");
    // The tree panel's SUCCESS and RUNNING runs and the charts' bands are on screen.
    assert!(
        pixels_like(&shot, [0x2e, 0x9d, 0x4e]) > 500,
        "no SUCCESS in the tree panel"
    );
    assert!(
        pixels_like(&shot, [0xe0, 0xa8, 0x00]) > 500,
        "no RUNNING in the tree panel"
    );
    assert!(
        pixels_like(&shot, [0x3b, 0x78, 0xc2]) > 500,
        "no chart lines"
    );
}

#[test]
fn a_page_with_a_script_error_is_caught() {
    // The check above can fail: a page that throws shows up in the console lines.
    let dir = support::scratch("html_report", "broken");
    let page = support::write_temp(
        &dir,
        "broken.html",
        "<!DOCTYPE html><html><body><p>x</p><script>no_such_function();</script></body></html>",
    );
    let (log, _) = open(&page, &dir);
    assert!(
        console_lines(&log)
            .iter()
            .any(|l| l.contains("no_such_function")),
        "the error was not seen:\n{log}"
    );
}

#[test]
fn a_million_node_events_make_a_page_under_the_limit() {
    // The recruitment example writes over a million node events over its run.
    let dir = support::scratch("html_report", "recruitment");
    let trace = dir.join("rec.jsonl");
    let page = dir.join("run.html");
    support::affect_ok(&[
        "run",
        "examples/recruitment.affect",
        "--quiet",
        "--trace",
        trace.to_str().unwrap(),
    ]);
    let events = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .filter(|l| l.contains("\"ev\":\"node\""))
        .count();
    assert!(events > 1_000_000, "{events} node events");
    support::affect_ok(&[
        "report",
        trace.to_str().unwrap(),
        "-o",
        page.to_str().unwrap(),
    ]);
    let size = std::fs::metadata(&page).unwrap().len();
    assert!(size < 10 * 1024 * 1024, "{size} bytes");
    let (log, shot) = open(&page, &dir);
    assert_eq!(console_lines(&log), Vec::<&str>::new(), "console output");
    assert!(
        pixels_like(&shot, [0x2e, 0x9d, 0x4e]) > 200,
        "no SUCCESS in the tree panel"
    );
    // A smaller limit is honoured by showing less.
    let small = dir.join("small.html");
    support::affect_ok(&[
        "report",
        trace.to_str().unwrap(),
        "-o",
        small.to_str().unwrap(),
        "--max-bytes",
        "100000",
    ]);
    assert!(std::fs::metadata(&small).unwrap().len() <= 100_000);
    // The trace is some 170 MB: not left behind in target/.
    std::fs::remove_file(&trace).unwrap();
}

/// A run whose tree an error stopped (a read of a variable `unset_blackboard` emptied,
/// E0605): the trace's `error` event is on the page, at the top of the agent's tab with its
/// tick and time, and in the story.
#[test]
fn the_error_that_stopped_a_tree_is_on_the_page() {
    let dir = support::scratch("html_report", "error");
    let program = support::write_temp(
        &dir,
        "robot.affect",
        "action Approach(in distance: num);\n\nagent Docker {\n    var target: num = 1.5;\n    var n: num = 0;\n    main {\n        sequence {\n            do { n = n + 1 }\n            check n >= 4\n            unset_blackboard(\"target\")\n            check target > 0\n            Approach(distance: target)\n        }\n    }\n}\n",
    );
    let trace = dir.join("run.jsonl");
    let page = dir.join("run.html");
    let out = support::affect(&[
        "run",
        program.to_str().unwrap(),
        "--ticks",
        "10",
        "--no-persist",
        "--quiet",
        "--trace",
        trace.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", support::stderr(&out));
    let text = std::fs::read_to_string(&trace).unwrap();
    let error: Vec<serde_json::Value> = (text.lines())
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|e| e["ev"] == "error")
        .collect();
    assert_eq!(error.len(), 1, "{text}");
    let (tick, t_ms) = (
        error[0]["tick"].as_u64().unwrap(),
        error[0]["t_ms"].as_f64().unwrap(),
    );
    // The fourth tick (0-based 3) is the first that passes `check n >= 4`.
    assert_eq!((tick, t_ms), (3, 300.0));
    let said = error[0]["text"].as_str().unwrap();
    assert!(said.contains("`target`"), "{said}");
    support::affect_ok(&[
        "report",
        trace.to_str().unwrap(),
        "-o",
        page.to_str().unwrap(),
    ]);
    let html = std::fs::read_to_string(&page).unwrap();
    let said = said
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    let said = said.replace('"', "&quot;").replace('\'', "&#39;");
    let top = format!("Stopped by an error at tick 3 (0.3 s)</h2><p>{said}</p>");
    assert!(html.contains(&top), "no error panel in the page");
    let story = format!("<span class=\"k\">error</span></td><td>{said}</td>");
    assert!(html.contains(&story), "no error line in the story");
    // The panel comes before the agent's tree.
    let (at, tree) = (
        html.find(&top).unwrap(),
        html.find("Tree: each node").unwrap(),
    );
    assert!(at < tree);
}

/// A networked team's trace, as `affect launch` merges it: lines with their process (`pid`),
/// a message refused, a component call, copies lost, a flag that turns true. Each shows on
/// the page (the refused message in the security panel), and the same trace compressed
/// (`.zst`) makes the same page.
#[test]
fn a_team_s_trace_shows_its_processes_security_calls_losses_and_flags() {
    let dir = support::scratch("html_report", "team");
    let trace = dir.join("team.jsonl");
    let lines = [
        r#"{"pid":4242,"tick":0,"t_ms":0.0,"agent":"Peoplebot","ev":"var","name":"transmitted","value":false}"#,
        r#"{"pid":4243,"tick":0,"t_ms":12003.1,"agent":"laptop2","ev":"call","caller":"Peoplebot","component":"speech_recognition","leaf":"Listen","host":"laptop2","id":241,"state":"served","ms":null,"why":null}"#,
        r#"{"pid":4242,"tick":120,"t_ms":12000.0,"agent":"Peoplebot","ev":"call","caller":"Peoplebot","component":"speech_recognition","leaf":"Listen","host":"laptop2","id":241,"state":"answered","ms":2.6,"why":null}"#,
        r#"{"pid":4242,"tick":300,"t_ms":30000.0,"agent":"Peoplebot","ev":"lost","from":"Peoplebot","to":"laptop2","kind":"call","copies":1}"#,
        r#"{"pid":4242,"tick":930,"t_ms":93000.0,"agent":"Peoplebot","ev":"rejected","from":"UGV#1","kind":"ACCEPT","why":"bad signature"}"#,
        r#"{"pid":4242,"tick":912,"t_ms":91200.0,"agent":"Peoplebot","ev":"var","name":"transmitted","value":true}"#,
        r#"{"pid":4242,"tick":1000,"t_ms":100000.0,"agent":"Peoplebot","ev":"summary","ticks":1000,"statuses":{"IDLE":1,"RUNNING":2,"SUCCESS":3,"FAILURE":0,"SKIPPED":0},"root":"RUNNING"}"#,
    ];
    std::fs::write(&trace, lines.join("\n") + "\n").unwrap();
    let packed = dir.join("team.jsonl.zst");
    let raw = std::fs::read(&trace).unwrap();
    std::fs::write(&packed, zstd::encode_all(&raw[..], 3).unwrap()).unwrap();
    let mut pages = Vec::new();
    for (input, page) in [(&trace, "team.html"), (&packed, "zst.html")] {
        let page = dir.join(page);
        let out = support::affect_ok(&[
            "report",
            input.to_str().unwrap(),
            "-o",
            page.to_str().unwrap(),
        ]);
        let said = support::stderr(&out);
        assert!(
            said.starts_with(&format!("wrote {} (", page.display())) && said.contains(" KB)"),
            "{said}"
        );
        pages.push(std::fs::read_to_string(&page).unwrap());
    }
    let html = &pages[0];
    for shows in [
        "Security: messages refused",
        "bad signature",
        "Peoplebot calls speech_recognition.Listen on laptop2 (call 241): answered in 2.6 ms",
        "laptop2 (call 241): served",
        "1 copy of call from Peoplebot to laptop2 lost",
        ">transmitted<",
        "process 4242",
        "process 4243",
    ] {
        assert!(html.contains(shows), "the page does not show `{shows}`");
    }
    assert!(
        pages[1] == pages[0].replace("team.jsonl", "team.jsonl.zst"),
        "the compressed trace makes another page"
    );
}
