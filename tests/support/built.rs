//! What a test binary builds for its tests (the shim, the firmware): into a folder of this
//! process's own under `TMPDIR`, made on first use and removed when the process exits, so no
//! test runs what another run or another binary built. Shared with the custom-node example's
//! tests (`#[path]`), which is why it takes the workspace as an argument.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// This process's build folder.
pub fn folder() -> &'static Path {
    static FOLDER: OnceLock<PathBuf> = OnceLock::new();
    FOLDER.get_or_init(|| {
        let dir = tempfile::Builder::new()
            .prefix("affect-built-")
            .tempdir()
            .expect("a build folder under TMPDIR")
            .keep();
        extern "C" {
            fn atexit(f: extern "C" fn()) -> i32;
        }
        extern "C" fn remove() {
            if let Some(dir) = FOLDER.get() {
                let _ = std::fs::remove_dir_all(dir);
            }
        }
        // SAFETY: registers a plain function, run once by libc's exit.
        unsafe { atexit(remove) };
        dir
    })
}

/// The shim (shim/i2c_shim.c and shim/pi_shim.c, one `LD_PRELOAD` library), built once per
/// process for the host with the C compiler (`CC`, else `cc`).
pub fn shim(workspace: &Path) -> PathBuf {
    static SHIM: OnceLock<PathBuf> = OnceLock::new();
    SHIM.get_or_init(|| {
        let out = folder().join("libaffect_shim.so");
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        let status = Command::new(&cc)
            .args(["-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-o"])
            .arg(&out)
            .arg(workspace.join("shim/i2c_shim.c"))
            .arg(workspace.join("shim/pi_shim.c"))
            .args(["-ldl", "-lm"])
            .status()
            .unwrap_or_else(|e| panic!("the C compiler `{cc}` runs: {e}"));
        assert!(status.success(), "the shim builds with {cc}");
        out
    })
    .clone()
}
