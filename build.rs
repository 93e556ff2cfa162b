//! Release builds of the `affect` binary for x86_64 Linux lay out the functions a start runs
//! (the command line, then reading a program to its first tick) side by side, in the order
//! `startup.order` lists them. `scripts/startup_order.py` makes the file from what starts
//! execute (valgrind's callgrind). A fresh process then maps its start-up code from a few
//! contiguous pages instead of faulting on pages spread over 11 MB of code: at 100 nodes, 2-3
//! page faults on code between reading the file and the first tick instead of 16-32
//! (docs/performance.md, *Start-up*).
//!
//! Only the linker reads the file, and it skips names it does not find, so a list made before
//! a change still builds; the functions it no longer names are placed as without it. Rust's
//! linker for this target (LLD) and mold read it; `AFFECT_NO_STARTUP_ORDER=1` leaves it out
//! for a linker that does not.

use std::env;
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=startup.order");
    println!("cargo:rerun-if-env-changed=AFFECT_NO_STARTUP_ORDER");
    let release = env::var("PROFILE").as_deref() == Ok("release");
    let target = env::var("TARGET").unwrap_or_default();
    let wanted = env::var_os("AFFECT_NO_STARTUP_ORDER").is_none();
    let Ok(dir) = env::var("CARGO_MANIFEST_DIR") else {
        return;
    };
    let order = Path::new(&dir).join("startup.order");
    // `-Wl,` splits its argument at commas.
    let usable = order.is_file() && !order.to_string_lossy().contains(',');
    if release && target == "x86_64-unknown-linux-gnu" && wanted && usable {
        println!(
            "cargo:rustc-link-arg-bins=-Wl,--symbol-ordering-file={}",
            order.display()
        );
        println!("cargo:rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
    }
}
