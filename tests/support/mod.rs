//! Shared by the integration tests: where the workspace and the shared folder are, and the
//! real BehaviorTree.CPP oracle (installed on first use, idempotently).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

pub fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The shared folder next to the checkout (`../shared`), or `AFFECT_SHARED`.
pub fn shared() -> PathBuf {
    match std::env::var_os("AFFECT_SHARED") {
        Some(p) => PathBuf::from(p),
        None => workspace().join("..").join("shared"),
    }
}

/// The `btcpp_oracle` binary, installing the kit into `.tools/btcpp` when it is missing.
pub fn oracle() -> PathBuf {
    static ORACLE: OnceLock<PathBuf> = OnceLock::new();
    ORACLE
        .get_or_init(|| {
            let dir = workspace().join(".tools").join("btcpp");
            let bin = dir.join("bin").join("btcpp_oracle");
            if !bin.exists() {
                let setup = shared().join("tools").join("btcpp").join("setup.sh");
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
