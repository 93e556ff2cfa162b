//! Hostile inputs through the `affect` binary, under a 4 GiB address-space limit so that a
//! runaway allocation fails the test instead of swapping: every class of issue 11 (depth,
//! size, files read, numbers, memory files, files written, initial values) and issue 31's
//! many errors, at ten times the sizes the issues name. Each test asserts the exact
//! diagnostic code or the successful result; none asserts a time (benches/hostile.rs
//! measures those).

mod depth;
mod errors;
mod files_read;
mod files_written;
mod initial_values;
mod memory_files;
mod numbers;
mod sizes;

#[path = "../support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The address space every run gets: 4 GiB.
const MEMORY_LIMIT_KB: u64 = 4 * 1024 * 1024;

/// Runs `affect ARGS` in `dir` under the memory limit.
pub fn affect_in(dir: &Path, args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {MEMORY_LIMIT_KB} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_affect"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("the affect binary runs")
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A fresh directory for one test.
pub fn scratch(name: &str) -> support::Scratch {
    support::scratch("hostile", name)
}

/// Writes `text` as `name` in `dir`; returns the path.
pub fn write(dir: &Path, name: &str, text: impl AsRef<[u8]>) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// The exit status, saying so when the process died of a signal (a crash, an overflow).
pub fn status(out: &Output) -> i32 {
    match out.status.code() {
        Some(c) => c,
        None => panic!(
            "affect was killed by a signal ({:?}):\n{}",
            out.status,
            stderr(out).chars().take(2000).collect::<String>()
        ),
    }
}

/// The codes of the diagnostics `affect check --format json` reported, in order.
pub use support::json_codes as codes;

/// `affect check --format json FILE` in `dir`: its exit status and the codes of its errors
/// (warnings about the generated programs, such as unused names, are left out).
pub fn check(dir: &Path, file: &str) -> (i32, Vec<String>) {
    let out = affect_in(dir, &["check", "--format", "json", file]);
    let errors = codes(&out)
        .into_iter()
        .filter(|c| c.starts_with('E'))
        .collect();
    (status(&out), errors)
}
