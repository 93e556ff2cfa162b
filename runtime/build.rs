//! Hashes what decides the JIT's generated code besides the program (the JIT's and the
//! interpreter's sources, the compiler's IR and built-in node table, the locked Cranelift
//! version) into
//! `AFFECT_ENGINE_HASH`: the code cache's key includes it, so a cached entry is used only by
//! a build of the very same engine (runtime/src/jit/cache.rs).

use std::hash::Hasher;
use std::path::{Path, PathBuf};

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn main() {
    // The decorator families' list and rows (`compiler/src/builtins.rs`, `builtins/`) too:
    // a family's number in the IR is its place in that list.
    let dirs = [
        "src/jit",
        "src/interp",
        "../compiler/src/ir",
        "../compiler/src/builtins",
    ];
    let mut files = vec![PathBuf::from("../compiler/src/builtins.rs")];
    println!("cargo:rerun-if-changed=../compiler/src/builtins.rs");
    for d in dirs {
        println!("cargo:rerun-if-changed={d}");
        collect(Path::new(d), &mut files);
    }
    files.sort();
    // SipHash with fixed keys: deterministic for a toolchain; a new toolchain only makes
    // a new key (a cache miss).
    #[allow(deprecated)]
    let mut h = std::hash::SipHasher::new();
    for f in &files {
        h.write(f.to_string_lossy().as_bytes());
        h.write(&std::fs::read(f).unwrap_or_default());
    }
    println!("cargo:rerun-if-changed=../Cargo.lock");
    if let Ok(lock) = std::fs::read_to_string("../Cargo.lock") {
        for block in lock
            .split("\n\n")
            .filter(|b| b.contains("name = \"cranelift-"))
        {
            h.write(block.as_bytes());
        }
    }
    h.write(std::env::var("TARGET").unwrap_or_default().as_bytes());
    println!("cargo:rustc-env=AFFECT_ENGINE_HASH={:016x}", h.finish());
}
