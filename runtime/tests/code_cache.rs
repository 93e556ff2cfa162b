//! The on-disk code cache (runtime/src/jit/cache.rs): a miss generates and stores, a hit
//! loads, a damaged entry is ignored and rebuilt, an unwritable directory only turns the
//! cache off; in every case the run's trace is the interpreter's, bit for bit.

#![cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]

use affect_compiler::ir::program::Program;
use affect_compiler::sema::NoFiles;
use affect_runtime::jit::{self, EngineKind};
use affect_runtime::run::{self, RunConfig};
use affect_runtime::trace::JsonLines;
use std::path::{Path, PathBuf};

/// A reactive sequence over a script, a stand-in and a timeout whose halt writes.
const TREE: &str = include_str!("fixtures/work_and_timeout.affect");

fn program(source: &str) -> Program {
    affect_compiler::check_source_with(source, &NoFiles)
        .program
        .expect("compiles")
}

/// A path `name` that does not exist yet, in a new folder of the test's own (removed with
/// the guard).
fn scratch(name: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join(name);
    (tmp, d)
}

fn config(engine: EngineKind, cache: Option<&Path>) -> RunConfig {
    RunConfig {
        ticks: 30,
        engine,
        code_cache: cache.map(Path::to_path_buf),
        // The tiered engine takes the code at the second tick (a short run could otherwise
        // end before it arrives).
        tier_at: Some(1),
        leaves: vec![run::LeafScript {
            key: "Work".into(),
            statuses: run::parse_statuses("running,success,running,failure").expect("valid"),
            cycle: true,
        }],
        ..RunConfig::default()
    }
}

fn trace(program: &Program, config: &RunConfig) -> (String, EngineKind) {
    let mut sink = JsonLines::new(Vec::new());
    let s = run::run(program, config, &mut sink, |_| {}).expect("runs");
    (String::from_utf8(sink.into_inner()).unwrap(), s[0].engine)
}

/// What a compile through the cache in `dir` found.
fn lookup(program: &Program, dir: &Path) -> Option<&'static str> {
    let (code, said) = jit::compile_cached(program, &program.agents[0], true, Some(dir.into()));
    code.expect("compiles");
    said
}

fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == "code"));
    v
}

#[test]
fn a_miss_stores_and_a_hit_loads_and_both_run_as_the_interpreter() {
    let (_dir_tmp, dir) = scratch("hit");
    let p = program(TREE);
    let (reference, _) = trace(&p, &config(EngineKind::Interp, None));
    assert_eq!(lookup(&p, &dir), Some("miss"));
    assert_eq!(entries(&dir).len(), 1);
    assert_eq!(lookup(&p, &dir), Some("hit"));
    for engine in [EngineKind::Jit, EngineKind::Tiered] {
        let (t, e) = trace(&p, &config(engine, Some(&dir)));
        assert!(
            t == reference,
            "{engine:?} with a cached entry: the trace differs"
        );
        assert_eq!(e, EngineKind::Jit);
    }
    // Another program is another entry.
    let other = program(&TREE.replace("1.5", "1.25"));
    assert_eq!(lookup(&other, &dir), Some("miss"));
    assert_eq!(entries(&dir).len(), 2);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700, "the cache directory is private");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_damaged_entry_is_ignored_and_rebuilt() {
    let (_dir_tmp, dir) = scratch("damaged");
    let p = program(TREE);
    let (reference, _) = trace(&p, &config(EngineKind::Interp, None));
    assert_eq!(lookup(&p, &dir), Some("miss"));
    let entry = entries(&dir).pop().expect("an entry");
    let good = std::fs::read(&entry).unwrap();
    let damages: Vec<(&str, Vec<u8>)> = vec![
        ("a byte of code flipped", {
            let mut b = good.clone();
            let i = b.len() - 40;
            b[i] ^= 0x01;
            b
        }),
        ("truncated", good[..good.len() / 2].to_vec()),
        ("empty", Vec::new()),
        ("not an entry", b"hello".to_vec()),
    ];
    for (what, bytes) in damages {
        std::fs::write(&entry, &bytes).unwrap();
        assert_eq!(lookup(&p, &dir), Some("damaged"), "{what}");
        // Rebuilt and stored again: the next start loads it.
        assert_eq!(std::fs::read(&entry).unwrap(), good, "{what}: not rebuilt");
        std::fs::write(&entry, &bytes).unwrap();
        let (t, e) = trace(&p, &config(EngineKind::Jit, Some(&dir)));
        assert!(t == reference, "{what}: the trace differs");
        assert_eq!(e, EngineKind::Jit);
        assert_eq!(lookup(&p, &dir), Some("hit"), "{what}");
    }
    // Another program's entry (a valid one) under this program's name.
    let other = program(&TREE.replace("1.5", "1.25"));
    assert_eq!(lookup(&other, &dir), Some("miss"));
    let theirs = entries(&dir)
        .into_iter()
        .find(|e| *e != entry)
        .expect("two entries");
    std::fs::copy(&theirs, &entry).unwrap();
    assert_eq!(
        lookup(&p, &dir),
        Some("damaged"),
        "another program's code was taken"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_unwritable_cache_directory_only_turns_the_cache_off() {
    let (_base_tmp, base) = scratch("unwritable");
    std::fs::create_dir_all(&base).unwrap();
    // A regular file where the directory should be, and a directory under it.
    let file = base.join("file");
    std::fs::write(&file, "x").unwrap();
    let p = program(TREE);
    let (reference, _) = trace(&p, &config(EngineKind::Interp, None));
    for dir in [file.clone(), file.join("affect")] {
        assert_eq!(lookup(&p, &dir), Some("miss"));
        assert_eq!(lookup(&p, &dir), Some("miss"), "nothing could be stored");
        for engine in [EngineKind::Jit, EngineKind::Tiered] {
            let (t, e) = trace(&p, &config(engine, Some(&dir)));
            assert!(t == reference, "{engine:?}: the trace differs");
            if engine == EngineKind::Jit {
                assert_eq!(e, EngineKind::Jit);
            }
        }
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
    let _ = std::fs::remove_dir_all(&base);
}

#[cfg(unix)]
#[test]
fn an_existing_cache_directory_is_made_private() {
    use std::os::unix::fs::PermissionsExt;
    let (_dir_tmp, dir) = scratch("private");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(lookup(&program(TREE), &dir), Some("miss"));
    let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `TREE` as someone else might write it: comments, blank lines, other spacing and line
/// breaks; every source position moves, nothing the tree does changes.
const MESSY: &str = "// The same tree, laid out differently.

action   Work( ) ;


main tree Main
{
  // where it starts
  var x : num = 0.5;
  var n:int=0;
  reactive_sequence { check x < 1000
     sequence { do { x = x * 1.5 + 1; n += 1 }
        Work()   timeout(300ms) { Work() }
          on_halted { n = n + 100 } } }
}
";

#[test]
fn only_comments_layout_and_names_changed_hit_the_same_entry() {
    let (_dir_tmp, dir) = scratch("layout");
    let p = program(TREE);
    assert_eq!(lookup(&p, &dir), Some("miss"));
    let formatted = affect_compiler::fmt::format_source(MESSY).expect("formats");
    assert_ne!(formatted, MESSY, "`affect fmt` changed nothing");
    let renamed = TREE
        .replace("main tree Main", "main tree Patrol")
        .replace("var n:", "var count:")
        .replace("n += 1", "count += 1")
        .replace("n = n + 100", "count = count + 100");
    for (what, src) in [
        ("commented and laid out", MESSY),
        ("formatted", formatted.as_str()),
        ("renamed", renamed.as_str()),
    ] {
        let q = program(src);
        assert_ne!(format!("{q:?}"), format!("{p:?}"), "{what}: the same IR");
        assert_eq!(lookup(&q, &dir), Some("hit"), "{what}");
        assert_eq!(entries(&dir).len(), 1, "{what}");
        // Traces name what the running program names: the loaded code holds no names.
        let (reference, _) = trace(&q, &config(EngineKind::Interp, None));
        for engine in [EngineKind::Jit, EngineKind::Tiered] {
            let (t, e) = trace(&q, &config(engine, Some(&dir)));
            assert!(t == reference, "{what}, {engine:?}: the trace differs");
            assert_eq!(e, EngineKind::Jit);
        }
        if what == "renamed" {
            assert!(reference.contains("count"), "{reference}");
        }
    }
    // A change to what the tree does is another entry: a node more, a constant changed.
    let more = TREE.replace("Work()\n", "Work()\n            Work()\n");
    let slower = TREE.replace("300ms", "400ms");
    for (what, src) in [("a node more", more), ("another timeout", slower)] {
        assert_ne!(src, TREE);
        assert_eq!(lookup(&program(&src), &dir), Some("miss"), "{what}");
    }
    assert_eq!(entries(&dir).len(), 3);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A read of a variable that holds no value stops the tree (here at the fifth tick, after
/// the tiered engine has switched); the JIT's code reports the slot's number, and the run
/// names it from the program it runs. So code loaded for a program whose variable was
/// renamed and moved reports the new name.
#[test]
fn a_run_time_error_of_loaded_code_names_the_running_program_s_variable() {
    const FAULT: &str = "main tree Main {
    var level: num;
    var n: int = 0;

    sequence {
        do { n += 1 }
        check n < 5 || level < 1
    }
}
";
    let (_dir_tmp, dir) = scratch("fault");
    let config = |engine, cache: Option<&Path>| RunConfig {
        leaves: Vec::new(),
        ..config(engine, cache)
    };
    let p = program(FAULT);
    assert_eq!(lookup(&p, &dir), Some("miss"));
    let moved = format!(
        "// moved down and renamed\n\n{}",
        FAULT.replace("level", "charge")
    );
    let q = program(&moved);
    assert_eq!(lookup(&q, &dir), Some("hit"));
    let (reference, _) = trace(&q, &config(EngineKind::Interp, None));
    assert!(
        reference.contains("`charge` was read while it holds no value"),
        "{reference}"
    );
    for engine in [EngineKind::Jit, EngineKind::Tiered] {
        let (t, e) = trace(&q, &config(engine, Some(&dir)));
        assert!(t == reference, "{engine:?}: the trace differs:\n{t}");
        assert_eq!(e, EngineKind::Jit);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Set in the child process of `a_store_killed_half_way_leaves_nothing_behind_for_long`:
/// the cache directory it stores into.
const KILLED_STORE: &str = "AFFECT_TEST_KILLED_STORE";

/// The child's part of `a_store_killed_half_way_leaves_nothing_behind_for_long` (run only
/// by it, in its own process): stores `TREE`'s code with a file size limit far below the
/// entry's size, so the kernel kills the process (SIGXFSZ) in the middle of writing the
/// temporary file, as a power cut or a `kill -9` would.
#[cfg(unix)]
#[test]
#[ignore = "run by a_store_killed_half_way_leaves_nothing_behind_for_long in a process of its own"]
fn store_killed_half_way() {
    let Some(dir) = std::env::var_os(KILLED_STORE) else {
        return;
    };
    let p = program(TREE);
    let (core, size) = (
        libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        },
        libc::rlimit {
            rlim_cur: 100,
            rlim_max: libc::RLIM_INFINITY,
        },
    );
    // SAFETY: setrlimit(2) on this process with valid structures; no core file is left.
    unsafe {
        libc::setrlimit(libc::RLIMIT_CORE, &core);
        libc::setrlimit(libc::RLIMIT_FSIZE, &size);
    }
    let _ = jit::compile_cached(&p, &p.agents[0], true, Some(dir.into()));
    panic!("the store was not killed");
}

/// The fault injected: a process killed while storing an entry leaves its temporary file.
/// The next store (of any entry, by another process) removes it, the killed entry is simply
/// not there (a miss, then stored whole), and a temporary file of a live process stays
/// unless it is too old to be a store in progress.
#[cfg(unix)]
#[test]
fn a_store_killed_half_way_leaves_nothing_behind_for_long() {
    use std::os::unix::process::ExitStatusExt;
    let (_tmp, dir) = scratch("killed");
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "store_killed_half_way",
            "--exact",
            "--ignored",
            "--nocapture",
        ])
        .env(KILLED_STORE, &dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let status = child.wait_with_output().unwrap().status;
    assert_eq!(status.signal(), Some(libc::SIGXFSZ), "{status:?}");
    let names = |dir: &Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let left = names(&dir);
    let half = left
        .iter()
        .find(|n| {
            affect_files::temporary_of(n).is_some_and(|(t, p)| t.ends_with(".code") && p == pid)
        })
        .unwrap_or_else(|| panic!("the killed store left no temporary file: {left:?}"))
        .clone();
    assert!(entries(&dir).is_empty(), "{left:?}");
    assert_eq!(std::fs::metadata(dir.join(&half)).unwrap().len(), 100);
    // Temporaries of live processes: pid 1 always runs. A fresh one may be a store in
    // progress; one two hours old is not.
    let (fresh, old) = (".f.code.affect-tmp.1", ".o.code.affect-tmp.1");
    let other = ".notes.txt.affect-tmp.4194304";
    for name in [fresh, old, other] {
        std::fs::write(dir.join(name), "half").unwrap();
    }
    let two_hours_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
    let f = std::fs::File::options()
        .write(true)
        .open(dir.join(old))
        .unwrap();
    f.set_modified(two_hours_ago).unwrap();
    // Another program's store sweeps.
    let other_program = program(&TREE.replace("1.5", "1.25"));
    assert_eq!(lookup(&other_program, &dir), Some("miss"));
    let now = names(&dir);
    assert!(
        !now.contains(&half),
        "the killed store's file stays: {now:?}"
    );
    assert!(!now.contains(&old.to_string()), "{now:?}");
    assert!(now.contains(&fresh.to_string()), "{now:?}");
    assert!(
        now.contains(&other.to_string()),
        "only the cache's files go: {now:?}"
    );
    // The entry the killed process was storing: a miss, stored whole, then a hit.
    let p = program(TREE);
    assert_eq!(lookup(&p, &dir), Some("miss"));
    assert_eq!(lookup(&p, &dir), Some("hit"));
    assert_eq!(entries(&dir).len(), 2);
}
