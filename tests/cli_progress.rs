//! The progress of a run and the line it ends with, off a terminal (as in CI and logs): a
//! long run prints a plain progress line at every tenth instead of redrawing a bar, every
//! run ends with one line saying what it did, and `--quiet` prints none of it. Times of the
//! wall clock vary from run to run and are replaced in the snapshots.

mod support;

use support::{affect, stderr};

/// Two agents that count their ticks.
const COUNTERS: &str = "agent Fast {\n    rate 20Hz;\n    var n: int = 0;\n    main { do { n += 1 } }\n}\n\nagent Slow {\n    rate 5Hz;\n    var n: int = 0;\n    main { do { n += 1 } }\n}\n";

/// The lines of stderr about progress and the result, wall-clock times replaced.
fn progress_lines(err: &str) -> String {
    err.lines()
        .filter(|l| {
            l.starts_with("progress: ") || l.starts_with("ran ") || l.starts_with("stopped ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn snapshot(name: &str, text: &str) {
    insta::with_settings!({filters => vec![
        (r"(\d+m \d{2}s|\d+\.\d+s) elapsed", "[wall] elapsed"),
        (r"about (\d+m \d{2}s|\d+\.\d+s) left", "about [wall] left"),
        (r"(?m)in (\d+m \d{2}s|\d+\.\d+s)$", "in [wall]"),
    ]}, {
        insta::assert_snapshot!(name, text);
    });
}

#[test]
fn a_long_run_off_a_terminal_prints_plain_progress_lines_and_a_result() {
    let dir = support::scratch("cli_progress", "long");
    let f = dir.join("counters.affect");
    std::fs::write(&f, COUNTERS).unwrap();
    let out = affect(&["run", f.to_str().unwrap(), "--ticks", "2000"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        !err.contains('\r'),
        "nothing is redrawn off a terminal: {err:?}"
    );
    snapshot("long_run", &progress_lines(&err));
}

#[test]
fn a_short_run_ends_with_its_result_and_quiet_prints_none() {
    let dir = support::scratch("cli_progress", "short");
    let f = dir.join("counters.affect");
    std::fs::write(&f, COUNTERS).unwrap();
    let out = affect(&["run", f.to_str().unwrap(), "--ticks", "30"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    // The result comes before the summary.
    let result = err.find("ran 60 ticks").expect("the result line");
    assert!(
        result < err.find("Fast: 30 ticks").expect("the summary"),
        "{err}"
    );
    snapshot("short_run", &progress_lines(&err));
    let quiet = affect(&["run", f.to_str().unwrap(), "--ticks", "3000", "--quiet"]);
    assert_eq!(progress_lines(&stderr(&quiet)), "", "{}", stderr(&quiet));
}
