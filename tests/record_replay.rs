//! `affect run --record` and `affect replay` through the binary, in the simulator: the
//! replay's trace is the recorded run's, line for line, in both engines; a record holds
//! several runs, each replayed with the long-term memory it started with; a torn tail is
//! ignored with a warning. (On emulated hardware: tests/hardware_shim.rs. Damage, another
//! program and divergence: the pages of E0612, E0613 and E0614, run by tests/error_codes.rs.)

mod support;

use std::path::Path;
use support::{affect_command, scratch, stderr, workspace};

fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    let out = affect_command()
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "affect {args:?}: {}", stderr(&out));
    out
}

/// A scratch directory with a copy of `examples/NAME`.
fn with_example(test: &str, name: &str) -> support::Scratch {
    let dir = scratch("record_replay", test);
    std::fs::copy(workspace().join("examples").join(name), dir.join(name)).unwrap();
    dir
}

fn text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn runs_replay_to_their_traces_with_the_memories_they_started_with() {
    let dir = with_example("navigator", "navigator.affect");
    // Two runs into one record; the first leaves the long-term memory the second starts with.
    for (n, seed) in [(1, "3"), (2, "4")] {
        let trace = format!("run{n}.jsonl");
        let args = ["run", "navigator.affect", "--quiet", "--seed", seed];
        run(
            &dir,
            &[&args[..], &["--trace", &trace, "--record", "nav.rec"]].concat(),
        );
    }
    assert!(dir.join("feelings.eltm").exists(), "the runs persisted");
    let list = run(&dir, &["replay", "nav.rec", "--list"]);
    let list = String::from_utf8_lossy(&list.stdout).into_owned();
    assert_eq!(list.lines().count(), 2, "{list}");
    assert!(
        list.contains("simulated") && !list.contains("did not end"),
        "{list}"
    );
    // The memory file beside the program is now the second run's result; each replay
    // starts from the copy its run recorded, and leaves the file alone.
    let memory = std::fs::read(dir.join("feelings.eltm")).unwrap();
    for (n, engine) in [(1, "interp"), (2, "jit"), (2, "interp")] {
        let replayed = format!("replay{n}-{engine}.jsonl");
        let out = run(
            &dir,
            &[
                "replay",
                "nav.rec",
                "--run",
                &n.to_string(),
                "--quiet",
                "--engine",
                engine,
                "--trace",
                &replayed,
            ],
        );
        assert!(stderr(&out).contains("line for line"), "{}", stderr(&out));
        assert_eq!(
            text(&dir.join(&replayed)),
            text(&dir.join(format!("run{n}.jsonl"))),
            "run {n} replayed with {engine}"
        );
    }
    assert_eq!(std::fs::read(dir.join("feelings.eltm")).unwrap(), memory);
    // The two runs' traces differ (seeds, memories): the replays are not of one run.
    assert_ne!(text(&dir.join("run1.jsonl")), text(&dir.join("run2.jsonl")));
}

#[test]
fn a_torn_tail_is_ignored_with_a_warning() {
    let dir = with_example("torn", "waiter.affect");
    let args = [
        "run",
        "waiter.affect",
        "--quiet",
        "--no-persist",
        "--ticks",
        "50",
    ];
    run(
        &dir,
        &[&args[..], &["--trace", "run.jsonl", "--record", "w.rec"]].concat(),
    );
    // The last record (the end of the run) half written, as a run killed while writing.
    let mut bytes = std::fs::read(dir.join("w.rec")).unwrap();
    bytes.truncate(bytes.len() - 5);
    std::fs::write(dir.join("w.rec"), &bytes).unwrap();
    let out = run(
        &dir,
        &["replay", "w.rec", "--quiet", "--trace", "replay.jsonl"],
    );
    let err = stderr(&out);
    assert!(
        err.contains("warning:") && err.contains("not a whole record"),
        "{err}"
    );
    assert!(err.contains("did not end"), "{err}");
    // Every tick was recorded: the replay's trace is the run's up to its end lines.
    let recorded = text(&dir.join("run.jsonl"));
    let replayed = text(&dir.join("replay.jsonl"));
    let ticks = |t: &str| {
        t.lines()
            .filter(|l| !l.contains("\"ev\":\"summary\""))
            .count()
    };
    assert!(ticks(&replayed) > 50);
    let cut = recorded
        .lines()
        .take_while(|l| !l.contains("\"ev\":\"summary\""))
        .count();
    let head: Vec<&str> = recorded.lines().take(cut).collect();
    assert_eq!(replayed.lines().take(cut).collect::<Vec<_>>(), head);
}

/// Counts the reads of one file of a directory that end while it is watched: inotify's
/// `IN_CLOSE_NOWRITE` (a file opened without writing, closed), by name, so the atomic
/// rename of a save (a new file of the same name) is followed. `IN_OPEN` is watched too:
/// inotify merges an event into an identical one just before it, and the opens between the
/// closes keep every close apart.
#[cfg(target_os = "linux")]
struct Reads(i32);

#[cfg(target_os = "linux")]
impl Reads {
    fn watch(dir: &Path) -> Reads {
        use std::os::unix::ffi::OsStrExt;
        // SAFETY: plain system calls on a descriptor this value owns.
        let fd = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
        assert!(
            fd >= 0,
            "inotify_init1: {}",
            std::io::Error::last_os_error()
        );
        let dir = std::ffi::CString::new(dir.as_os_str().as_bytes()).unwrap();
        // SAFETY: `dir` is a NUL-terminated path that outlives the call.
        let wd = unsafe {
            libc::inotify_add_watch(fd, dir.as_ptr(), libc::IN_OPEN | libc::IN_CLOSE_NOWRITE)
        };
        assert!(
            wd >= 0,
            "inotify_add_watch: {}",
            std::io::Error::last_os_error()
        );
        Reads(fd)
    }

    /// The reads of `name` since `watch`; call after the reader's process ended.
    fn of(self, name: &str) -> usize {
        let header = std::mem::size_of::<libc::inotify_event>();
        let mut count = 0;
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            // SAFETY: reads at most `buf.len()` bytes into `buf`.
            let n = unsafe { libc::read(self.0, buf.as_mut_ptr().cast(), buf.len()) };
            if n <= 0 {
                break;
            }
            let mut at = 0;
            while at + header <= n as usize {
                // SAFETY: the kernel wrote a whole event header at `at`.
                let ev: libc::inotify_event =
                    unsafe { std::ptr::read_unaligned(buf[at..].as_ptr().cast()) };
                let raw = &buf[at + header..at + header + ev.len as usize];
                let file = raw.split(|b| *b == 0).next().unwrap_or_default();
                if ev.mask & libc::IN_Q_OVERFLOW != 0 {
                    panic!("inotify's queue overflowed: the reads cannot be counted");
                }
                if file == name.as_bytes() && ev.mask & libc::IN_CLOSE_NOWRITE != 0 {
                    count += 1;
                }
                at += header + ev.len as usize;
            }
        }
        // SAFETY: the descriptor is this value's, closed once.
        unsafe { libc::close(self.0) };
        count
    }
}

/// `--record` keeps the memory file's bytes in the record from the very read the run starts
/// from, not from a read of its own: a recorded run reads the file as often as a plain run
/// (a second read could see the file changed, and the replay would start from memories the
/// run never had), and its replay is the run, line for line.
#[cfg(target_os = "linux")]
#[test]
fn a_recorded_run_reads_each_memory_file_once() {
    let dir = with_example("read_once", "navigator.affect");
    let args = ["run", "navigator.affect", "--quiet"];
    // A first run leaves the memory file the others start from.
    run(&dir, &[&args[..], &["--seed", "1"]].concat());
    let reads = |extra: &[&str]| {
        let watch = Reads::watch(&dir);
        run(&dir, &[&args[..], extra].concat());
        watch.of("feelings.eltm")
    };
    let plain = reads(&["--seed", "2"]);

    // Before the first tick, and at the save (which keeps the file's other memories).
    assert!(
        plain >= 1,
        "the plain run read the memory file {plain} times"
    );
    let before = std::fs::read(dir.join("feelings.eltm")).unwrap();
    let recorded = reads(&["--seed", "3", "--trace", "run.jsonl", "--record", "r.rec"]);
    assert_eq!(
        recorded, plain,
        "a recorded run reads its memory file as often as a plain run"
    );
    // The record holds what the run started from: the replay (in a directory of its own,
    // from the recorded bytes) gives the run's trace, and leaves the file alone.
    let after = std::fs::read(dir.join("feelings.eltm")).unwrap();
    assert_ne!(after, before, "the recorded run learned something");
    let out = run(
        &dir,
        &["replay", "r.rec", "--quiet", "--trace", "replay.jsonl"],
    );
    assert!(stderr(&out).contains("line for line"), "{}", stderr(&out));
    assert_eq!(
        text(&dir.join("replay.jsonl")),
        text(&dir.join("run.jsonl"))
    );
    assert_eq!(std::fs::read(dir.join("feelings.eltm")).unwrap(), after);
}
