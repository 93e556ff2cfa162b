//! `affect run --watch`, through the binary: a constant edited mid-run changes what the program
//! does from the next tick, with the run's state kept (a counter, an emotion, an emotional
//! memory, the running root); an edit that does not check prints its diagnostics and leaves
//! the last good program running. With the interpreter and the JIT.

mod support;

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

const PROGRAM: &str = r#"const STEP = 1;
enum Feeling { Calm, Excited }
action Work();

agent Counter {
    rate 20Hz;
    var count: int = 0;
    var place: str = "A";
    var felt: num = 0;
    emotions feeling: Feeling = Calm {
        from count;
        Calm -> Excited when count > 5;
        Excited -> Calm when count < 0;
    }
    memory seen keyed by place {
        short_term 3 weights [0.5, 0.3, 0.2];
    }
    main {
        reactive_sequence {
            do { count = count + STEP; felt = seen.remember(place, 50) }
            Work()
        }
    }
}
"#;

/// Saves as editors do: a new file renamed over the old one.
fn save(path: &Path, text: &str) {
    let tmp = path.with_extension("affect.tmp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// Waits for a line of standard error containing `what`; the lines seen on the way are kept.
fn wait_for(lines: &Receiver<String>, seen: &mut String, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !seen.contains(what) {
        let left = deadline.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left) {
            Ok(l) => {
                seen.push_str(&l);
                seen.push('\n');
            }
            Err(_) => panic!("no `{what}` on stderr; it said:\n{seen}"),
        }
    }
}

/// `affect run FILE --watch --no-persist --quiet ARGS..`, its stderr read line by line.
struct Watching {
    child: std::process::Child,
    lines: Receiver<String>,
    reader: std::thread::JoinHandle<()>,
    seen: String,
}

impl Watching {
    fn start(file: &Path, args: &[&str]) -> Watching {
        let mut child = support::affect_command()
            .args(["run", file.to_str().unwrap(), "--watch", "--no-persist"])
            .arg("--quiet")
            .args(args)
            .stderr(Stdio::piped())
            .spawn()
            .expect("affect runs");
        let (tx, lines) = channel();
        let err = child.stderr.take().unwrap();
        let reader = std::thread::spawn(move || {
            for l in BufReader::new(err).lines().map_while(Result::ok) {
                let _ = tx.send(l);
            }
        });
        let mut w = Watching {
            child,
            lines,
            reader,
            seen: String::new(),
        };
        w.wait_for("watching");
        w
    }

    /// Waits for a line of standard error containing `what`.
    fn wait_for(&mut self, what: &str) {
        wait_for(&self.lines, &mut self.seen, what);
    }

    /// Waits for the run to end by itself; its standard error.
    fn end(mut self) -> String {
        let status = self.child.wait().unwrap();
        self.reader.join().unwrap();
        for l in self.lines.try_iter() {
            self.seen.push_str(&l);
            self.seen.push('\n');
        }
        assert!(status.success(), "{}", self.seen);
        self.seen
    }
}

fn reload_mid_run(engine: &str) {
    let dir = support::scratch("watch_reload", engine);
    let file = dir.join("counter.affect");
    let trace = dir.join("run.jsonl");
    std::fs::write(&file, PROGRAM).unwrap();
    let mut run = Watching::start(
        &file,
        &[
            "--ticks",
            "200",
            "--leaf",
            "Work=running",
            "--engine",
            engine,
            "--trace",
            trace.to_str().unwrap(),
        ],
    );
    std::thread::sleep(Duration::from_millis(700));
    save(&file, &PROGRAM.replace("STEP = 1;", "STEP = 100;"));
    run.wait_for("reload: Counter:");
    std::thread::sleep(Duration::from_millis(300));
    save(&file, &PROGRAM.replace("STEP = 1;", "STEP = 100 +;"));
    run.wait_for("the old program keeps running");
    let seen = run.end();
    // The broken edit's diagnostic, with its code and place.
    assert!(seen.contains("[E0101] Error: unexpected `;`"), "{seen}");
    assert!(seen.contains("counter.affect:1:"), "{seen}");
    check_trace(&std::fs::read_to_string(&trace).unwrap(), &seen);
}

/// A Groot / BehaviorTree.CPP tree whose subtree comes from an `<include>`d file: saving the
/// included XML file (as Groot 2 does) reloads the run with the edited subtree.
#[test]
fn saving_an_included_xml_file_reloads_the_imported_tree() {
    let dir = support::scratch("watch_reload", "xml");
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/xml/include");
    std::fs::create_dir_all(dir.join("child")).unwrap();
    for f in ["mission.xml", "child/dock.xml"] {
        std::fs::copy(examples.join(f), dir.join(f)).unwrap();
    }
    let (main, dock) = (dir.join("mission.xml"), dir.join("child/dock.xml"));
    let trace = dir.join("run.jsonl");
    let mut run = Watching::start(
        &main,
        &["--ticks", "60", "--trace", trace.to_str().unwrap()],
    );
    assert!(run.seen.contains("child/dock.xml`"), "{}", run.seen);
    std::thread::sleep(Duration::from_millis(500));
    let text = std::fs::read_to_string(&dock).unwrap();
    let edited = text.replacen("<Sequence>", r#"<Sequence name="docking">"#, 1);
    assert_ne!(text, edited);
    save(&dock, &edited);
    run.wait_for("reload: Mission:");
    run.end();
    let events: Vec<Value> = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let reload = events
        .iter()
        .find(|e| e["ev"] == "log" && e["text"].as_str().unwrap().contains("reloaded"))
        .expect("a reload in the trace")["tick"]
        .as_u64()
        .unwrap();
    let labelled: Vec<u64> = events
        .iter()
        .filter(|e| e["ev"] == "node" && e["path"].as_str().unwrap().contains("docking"))
        .map(|e| e["tick"].as_u64().unwrap())
        .collect();
    assert!(!labelled.is_empty(), "the edited subtree ran");
    assert!(
        labelled.iter().all(|&t| t >= reload),
        "{labelled:?} before {reload}"
    );
}

/// What the trace of the run must show.
fn check_trace(text: &str, stderr: &str) {
    let events: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let at = events
        .iter()
        .position(|e| e["ev"] == "log" && e["text"].as_str().unwrap().contains("reloaded"))
        .unwrap_or_else(|| panic!("no reload in the trace; stderr:\n{stderr}"));
    let reload_tick = events[at]["tick"].as_u64().unwrap();
    let text = events[at]["text"].as_str().unwrap();
    assert!(text.contains("memory carried"), "{text}");
    assert!(text.contains("halted: Work"), "{text}");
    // The counter: +1 a tick before, +100 from the next tick on, never reset.
    let counts: Vec<(u64, i64)> = events
        .iter()
        .filter(|e| e["ev"] == "var" && e["name"] == "count" && e["tick"].as_u64() > Some(0))
        .map(|e| (e["tick"].as_u64().unwrap(), e["value"].as_i64().unwrap()))
        .collect();
    assert!(counts.len() >= 150, "{} counts", counts.len());
    for w in counts.windows(2) {
        let ((t0, a), (t1, b)) = (w[0], w[1]);
        assert_eq!(t1, t0 + 1, "a count every tick");
        let step = if t1 >= reload_tick { 100 } else { 1 };
        assert_eq!(
            b - a,
            step,
            "tick {t1}: {a} -> {b} (reload at {reload_tick})"
        );
    }
    assert!(reload_tick > 5, "the edit came after the run started");
    let after = |e: &&Value| e["tick"].as_u64().unwrap() >= reload_tick;
    // The emotion stays where it was (no change back to Calm, no variable reset).
    assert!(
        !events
            .iter()
            .filter(after)
            .any(|e| e["ev"] == "emotion" || (e["ev"] == "var" && e["name"] == "feeling")),
        "the emotion was carried"
    );
    // The memory still holds the place: rehearsal, never a new encoding, after the reload.
    let ops: Vec<&str> = events
        .iter()
        .filter(after)
        .filter(|e| e["ev"] == "memory")
        .map(|e| e["op"].as_str().unwrap())
        .collect();
    assert!(!ops.is_empty() && !ops.contains(&"encoding"), "{ops:?}");
    // The root kept running through the reload; the action was halted and started again.
    let nodes: Vec<(&str, &str, &str)> = events
        .iter()
        .filter(|e| e["ev"] == "node" && e["tick"].as_u64() == Some(reload_tick))
        .filter(|e| !e["path"].as_str().unwrap().starts_with("Script"))
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap();
            (s("path"), s("from"), s("to"))
        })
        .collect();
    assert_eq!(
        nodes,
        [
            ("Work::3", "RUNNING", "IDLE"),
            ("Work::3", "IDLE", "RUNNING")
        ],
        "only the action is halted and restarted"
    );
}

#[test]
fn a_saved_edit_reloads_the_interpreted_program_and_a_broken_one_is_refused() {
    reload_mid_run("interp");
}

#[test]
fn a_saved_edit_reloads_the_compiled_program_and_a_broken_one_is_refused() {
    reload_mid_run("jit");
}
