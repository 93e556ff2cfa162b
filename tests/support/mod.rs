//! Shared by the integration tests: where the workspace and the public corpus are, the
//! `affect` binary, scratch directories, the real BehaviorTree.CPP oracle (installed on first
//! use, idempotently), and the diagnostic snapshots' layout (`snapshots.rs`).
#![allow(dead_code)]

pub mod snapshots;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The `affect` binary, run from the workspace without colour.
pub fn affect_command() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_affect"));
    c.current_dir(workspace()).env("NO_COLOR", "1");
    c
}

/// Runs `affect ARGS` (see `affect_command`) to the end.
pub fn affect(args: &[&str]) -> Output {
    affect_command()
        .args(args)
        .output()
        .expect("the affect binary runs")
}

/// Runs `affect ARGS` to the end and insists that it succeeded (its standard error in the
/// message if not).
pub fn affect_ok(args: &[&str]) -> Output {
    let out = affect(args);
    assert!(
        out.status.success(),
        "affect {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Standard error as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The public corpus of Groot / BehaviorTree.CPP files: `AFFECT_CORPUS`, else `../shared/corpus`
/// beside the checkout. It is test data that is not in the repository, so the tests that read
/// it are `#[ignore = "needs the public corpus"]`, have `corpus` in their names, and run through
/// `cargo test -- --ignored corpus` (scripts/test.sh does that when the corpus is there, and
/// otherwise prints that they did not run).
pub fn corpus() -> PathBuf {
    let dir = match std::env::var_os("AFFECT_CORPUS") {
        Some(p) => PathBuf::from(p),
        None => workspace().join("..").join("shared").join("corpus"),
    };
    assert!(
        dir.join("index.jsonl").is_file(),
        "this test needs the public corpus, and there is none at {} (set AFFECT_CORPUS)",
        dir.display()
    );
    dir
}

/// The `btcpp_oracle` binary, installing it into `.tools/btcpp` when it is missing
/// (`tools/btcpp-oracle/setup.sh`).
pub fn oracle() -> PathBuf {
    static ORACLE: OnceLock<PathBuf> = OnceLock::new();
    ORACLE
        .get_or_init(|| {
            let dir = workspace().join(".tools").join("btcpp");
            let bin = dir.join("bin").join("btcpp_oracle");
            if !bin.exists() {
                let setup = workspace().join("tools/btcpp-oracle/setup.sh");
                let status = Command::new("bash")
                    .arg(&setup)
                    .arg(&dir)
                    .status()
                    .unwrap_or_else(|e| panic!("cannot run {}: {e}", setup.display()));
                assert!(status.success(), "{} failed", setup.display());
            }
            bin
        })
        .clone()
}

/// An empty directory `target/SUITE/NAME` for one test's files (emptied if it existed).
pub fn scratch(suite: &str, name: &str) -> PathBuf {
    let d = workspace().join("target").join(suite).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub fn write_temp(dir: &Path, name: &str, text: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}
