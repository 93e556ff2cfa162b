//! The on-disk code cache: generated code kept between runs, so a second start of the same
//! program loads its code instead of compiling it.
//!
//! Design. cranelift-jit cannot serialise a linked module (its code holds absolute
//! addresses of the Rust services, which move with every start). So the cache keeps the code
//! *before* linking: each function's machine code with its relocations, exactly what
//! `define_function_bytes` takes. Loading declares the same functions in the same order (the
//! plan is deterministic) and hands the bytes to cranelift-jit, which maps them, applies the
//! relocations against this process's addresses and makes them executable. That is the
//! simplest sound design: no loader or relocation code of our own, and the same path links
//! freshly generated code.
//!
//! An entry is named by a SHA-256 key of what decides the code: the parts of the agent's IR
//! the JIT reads, in a canonical form without source spans or names (`key.rs`: adding a
//! comment, re-formatting the file or renaming a variable keeps the key; changing a
//! constant or a node does not), the engine (a hash of the JIT's, the interpreter's and the
//! IR's sources, taken when the binary was built), Cranelift's settings and the CPU features
//! it detected, and whether the code records. The code holds no source position or name
//! (node and slot numbers only), so what a run reports about the program comes from the
//! program it runs, never from the entry. An entry carries its key and a SHA-256 checksum
//! of its contents; anything that does not decode, check and fit the declarations is
//! reported `Damaged`, never linked, and rebuilt. Entries are written atomically
//! (`affect_files::write_atomic`) into a directory created 0700; a directory that cannot be
//! made or written only turns the cache off. Every store sweeps the temporary files that
//! processes killed while storing left behind, and keeps the entries under `MAX_TOTAL`.

use super::compile::{Artifact, Out};
use super::JitError;
use affect_compiler::ir::program::{AgentProgram, Program};
use cranelift_codegen::binemit::Reloc;
use cranelift_codegen::ir::LibCall;
use cranelift_module::{FuncId, ModuleReloc, ModuleRelocTarget};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The environment variable that names the cache directory (tests, CI, several users of
/// one account).
pub const DIR_VAR: &str = "AFFECT_CODE_CACHE";

const MAGIC: &[u8; 8] = b"AFFCODE1";
/// No entry is larger (the JIT makes about 130 bytes per node).
const MAX_ENTRY: u64 = 1 << 30;
/// The entries together stay under this many bytes: storing past it removes the least
/// recently used ones (a hit renews an entry), so a machine that runs many programs, or a
/// test suite, does not fill its disk.
pub const MAX_TOTAL: u64 = 256 << 20;

/// What a look-up found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// The code was loaded from the cache.
    Hit,
    /// No entry: the code was generated (and stored, if the directory is writable).
    Miss,
    /// An entry was there and did not check: it was ignored, and the code generated and
    /// stored again.
    Damaged,
}

impl Lookup {
    pub fn name(self) -> &'static str {
        match self {
            Lookup::Hit => "hit",
            Lookup::Miss => "miss",
            Lookup::Damaged => "damaged",
        }
    }
}

/// A cache directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeCache {
    dir: PathBuf,
    limit: u64,
}

/// The default directory: `$AFFECT_CODE_CACHE`, else `affect` in the user's cache directory
/// (`$XDG_CACHE_HOME`, else `~/.cache`).
pub fn default_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os(DIR_VAR).filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    dirs::cache_dir().map(|d| d.join("affect"))
}

impl CodeCache {
    pub fn new(dir: impl Into<PathBuf>) -> CodeCache {
        CodeCache {
            dir: dir.into(),
            limit: MAX_TOTAL,
        }
    }

    /// A cache whose entries together stay under `limit` bytes.
    pub fn with_limit(dir: impl Into<PathBuf>, limit: u64) -> CodeCache {
        CodeCache {
            dir: dir.into(),
            limit,
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The key of an agent's code: see the module's comment.
    pub fn key(program: &Program, agent: &AgentProgram, record: bool) -> Result<String, JitError> {
        let mut h = Sha256::new();
        let engine = super::compile::fingerprint()?;
        h.update((engine.len() as u64).to_le_bytes());
        h.update(engine.as_bytes());
        h.update([u8::from(record)]);
        super::key::feed(&mut h, program, agent);
        Ok(hex(&h.finalize()))
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.code"))
    }

    /// The code stored under `key`, `Err(Lookup::Miss)` when there is none, and
    /// `Err(Lookup::Damaged)` when what is there does not check.
    pub(crate) fn load(&self, key: &str) -> Result<Artifact, Lookup> {
        let path = self.path(key);
        if !path.exists() {
            return Err(Lookup::Miss);
        }
        let bytes = affect_files::read_bytes(&path, MAX_ENTRY).map_err(|_| Lookup::Damaged)?;
        let code = decode(key, &bytes).ok_or(Lookup::Damaged)?;
        // Used now: the last to go when the cache is full. (A file we may not touch just
        // keeps its time.)
        let _ = std::fs::File::options()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_modified(std::time::SystemTime::now()));
        Ok(code)
    }

    /// Stores code under `key`, creating the directory (0700) first.
    pub(crate) fn store(&self, key: &str, code: &Artifact) -> Result<(), String> {
        self.make_dir()?;
        let bytes = encode(key, code).ok_or("the code has a relocation the cache cannot keep")?;
        let path = self.path(key);
        affect_files::write_atomic(&path, &bytes)?;
        self.evict(&path);
        Ok(())
    }

    /// Removes the temporary files of entries whose writer died (killed half-way through a
    /// store), then the least recently used entries (never `kept`, the one just stored)
    /// until the entries fit the limit. Only `*.code` regular files and their temporaries
    /// are counted or removed.
    fn evict(&self, kept: &Path) {
        let Ok(dir) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let mut total = 0u64;
        let mut others = Vec::new();
        for e in dir.flatten() {
            let path = e.path();
            let Ok(meta) = e.metadata() else { continue };
            if !meta.is_file() {
                continue;
            }
            if stale_temporary(&e.file_name().to_string_lossy(), &meta) {
                let _ = std::fs::remove_file(&path);
                continue;
            }
            if path.extension().is_none_or(|x| x != "code") {
                continue;
            }
            total += meta.len();
            if path != kept {
                let used = meta.modified().unwrap_or(std::time::UNIX_EPOCH);
                others.push((used, path, meta.len()));
            }
        }
        // Oldest first; the name breaks ties, so the order does not depend on the directory's.
        others.sort();
        for (_, path, len) in others {
            if total <= self.limit {
                break;
            }
            if std::fs::remove_file(&path).is_ok() {
                total -= len;
            }
        }
    }

    /// The directory, created readable and writable by its owner only (0700); one that exists
    /// is made 0700 too, which only its owner can do, so another user's directory is refused.
    fn make_dir(&self) -> Result<(), String> {
        let cannot = |e: std::io::Error| format!("{}: {e}", self.dir.display());
        #[cfg(unix)]
        {
            use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(&self.dir)
                .map_err(cannot)?;
            let meta = std::fs::symlink_metadata(&self.dir).map_err(cannot)?;
            if !meta.is_dir() {
                return Err(format!("{} is not a directory", self.dir.display()));
            }
            if meta.permissions().mode() & 0o777 != 0o700 {
                std::fs::set_permissions(&self.dir, std::fs::Permissions::from_mode(0o700))
                    .map_err(cannot)?;
            }
        }
        #[cfg(not(unix))]
        std::fs::create_dir_all(&self.dir).map_err(cannot)?;
        Ok(())
    }
}

/// A store takes milliseconds: a temporary file older than this is stale even when its
/// writer's process id now belongs to another process.
const STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(3600);

/// Whether a file of the cache directory is the temporary file of an entry that its writer,
/// killed or crashed, left behind: its process is gone, or it is older than `STALE_AFTER`.
fn stale_temporary(name: &str, meta: &std::fs::Metadata) -> bool {
    let Some((target, pid)) = affect_files::temporary_of(name) else {
        return false;
    };
    if !target.ends_with(".code") || pid == std::process::id() {
        return false;
    }
    let old = (meta.modified().ok())
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age > STALE_AFTER);
    old || !affect_files::process_alive(pid)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The relocation kinds an entry may hold, by their number in the file. Cranelift emits
/// only a few of them for this JIT's code (calls, and absolute addresses of the Rust
/// services); code with any other is simply not cached.
const KINDS: &[Reloc] = &[
    Reloc::Abs4,
    Reloc::Abs8,
    Reloc::X86PCRel4,
    Reloc::X86CallPCRel4,
    Reloc::X86CallPLTRel4,
    Reloc::X86GOTPCRel4,
    Reloc::Arm64Call,
    Reloc::Aarch64AdrGotPage21,
    Reloc::Aarch64Ld64GotLo12Nc,
    Reloc::Aarch64AdrPrelPgHi21,
    Reloc::Aarch64AddAbsLo12Nc,
];

/// An entry: magic, key, the payload's length and SHA-256, the payload (whether the code
/// records, then each function: id, alignment, code, relocations).
fn encode(key: &str, code: &Artifact) -> Option<Vec<u8>> {
    let mut p = Vec::new();
    p.push(u8::from(code.record));
    put32(&mut p, code.funcs.len() as u32);
    for f in &code.funcs {
        put32(&mut p, f.id.as_u32());
        p.extend_from_slice(&f.align.to_le_bytes());
        put32(&mut p, f.bytes.len() as u32);
        p.extend_from_slice(&f.bytes);
        put32(&mut p, f.relocs.len() as u32);
        for r in &f.relocs {
            put32(&mut p, r.offset);
            p.push(KINDS.iter().position(|k| *k == r.kind)? as u8);
            let (tag, a, b) = match r.name {
                ModuleRelocTarget::User { namespace, index } => (0u8, namespace, index),
                ModuleRelocTarget::LibCall(lc) => {
                    let i = LibCall::all_libcalls().iter().position(|x| *x == lc)?;
                    (1, i as u32, 0)
                }
                _ => return None,
            };
            p.push(tag);
            put32(&mut p, a);
            put32(&mut p, b);
            p.extend_from_slice(&r.addend.to_le_bytes());
        }
    }
    let mut out = Vec::with_capacity(p.len() + 80);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(&(p.len() as u64).to_le_bytes());
    out.extend_from_slice(&Sha256::digest(&p));
    out.extend_from_slice(&p);
    Some(out)
}

fn put32(p: &mut Vec<u8>, x: u32) {
    p.extend_from_slice(&x.to_le_bytes());
}

/// Reads an entry; `None` for anything that does not check.
fn decode(key: &str, bytes: &[u8]) -> Option<Artifact> {
    let mut r = Reader(bytes);
    if r.take(MAGIC.len())? != MAGIC || r.take(key.len())? != key.as_bytes() {
        return None;
    }
    let len = r.u64()? as usize;
    let sum = r.take(32)?;
    let payload = r.0;
    if payload.len() != len || Sha256::digest(payload).as_slice() != sum {
        return None;
    }
    let mut r = Reader(payload);
    let record = match r.u8()? {
        0 => false,
        1 => true,
        _ => return None,
    };
    let n = r.u32()? as usize;
    let mut funcs = Vec::with_capacity(n.min(payload.len()));
    for _ in 0..n {
        let id = FuncId::from_u32(r.u32()?);
        let align = r.u64()?;
        let size = r.u32()? as usize;
        let code = r.take(size)?.to_vec();
        let nrelocs = r.u32()? as usize;
        let mut relocs = Vec::with_capacity(nrelocs.min(payload.len()));
        for _ in 0..nrelocs {
            let offset = r.u32()?;
            let kind = *KINDS.get(r.u8()? as usize)?;
            let (tag, a, b) = (r.u8()?, r.u32()?, r.u32()?);
            let name = match tag {
                0 => ModuleRelocTarget::User {
                    namespace: a,
                    index: b,
                },
                1 => ModuleRelocTarget::LibCall(*LibCall::all_libcalls().get(a as usize)?),
                _ => return None,
            };
            let addend = r.u64()? as i64;
            relocs.push(ModuleReloc {
                offset,
                kind,
                name,
                addend,
            });
        }
        funcs.push(Out {
            id,
            align,
            bytes: code,
            relocs,
        });
    }
    if !r.0.is_empty() {
        return None;
    }
    Some(Artifact { record, funcs })
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Some(a)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Artifact {
        Artifact {
            record: true,
            funcs: vec![Out {
                id: FuncId::from_u32(3),
                align: 16,
                bytes: vec![0x90, 0xc3, 1, 2, 3],
                relocs: vec![ModuleReloc {
                    offset: 1,
                    kind: Reloc::Abs8,
                    name: ModuleRelocTarget::User {
                        namespace: 0,
                        index: 2,
                    },
                    addend: -4,
                }],
            }],
        }
    }

    #[test]
    fn a_full_cache_removes_its_least_recently_used_entries() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("cache");
        let size = encode("a", &sample()).unwrap().len() as u64;
        // Room for two entries, not three.
        let cache = CodeCache::with_limit(&dir, 2 * size + size / 2);
        let at = |secs: u64| std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs);
        let age = |key: &str, secs: u64| {
            let f = std::fs::File::options()
                .write(true)
                .open(cache.path(key))
                .unwrap();
            f.set_modified(at(secs)).unwrap();
        };
        cache.store("a", &sample()).unwrap();
        age("a", 1_000);
        cache.store("b", &sample()).unwrap();
        age("b", 2_000);
        // A hit renews `a`: `b` is now the least recently used.
        assert!(cache.load("a").is_ok());
        std::fs::write(dir.join("notes.txt"), vec![0u8; 4 * size as usize]).unwrap();
        cache.store("c", &sample()).unwrap();
        assert!(cache.path("a").exists(), "the entry just used stays");
        assert!(
            !cache.path("b").exists(),
            "the least recently used entry goes"
        );
        assert!(cache.path("c").exists(), "the entry just stored stays");
        assert!(dir.join("notes.txt").exists(), "only entries are removed");
    }

    #[test]
    fn an_entry_reads_back_as_written() {
        let bytes = encode("k", &sample()).expect("encodable");
        let back = decode("k", &bytes).expect("decodes");
        assert!(back.record);
        assert_eq!(back.funcs.len(), 1);
        assert_eq!(back.funcs[0].bytes, sample().funcs[0].bytes);
        let (r, want) = (&back.funcs[0].relocs[0], &sample().funcs[0].relocs[0]);
        assert_eq!(back.funcs[0].relocs.len(), 1);
        assert_eq!(
            (r.offset, r.kind, r.addend),
            (want.offset, want.kind, want.addend)
        );
        assert!(matches!(
            r.name,
            ModuleRelocTarget::User {
                namespace: 0,
                index: 2
            }
        ));
        assert_eq!(back.funcs[0].id, FuncId::from_u32(3));
    }

    #[test]
    fn every_damaged_byte_and_every_truncation_is_refused() {
        let bytes = encode("k", &sample()).expect("encodable");
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x40;
            assert!(decode("k", &b).is_none(), "byte {i} flipped was accepted");
            assert!(
                decode("k", &bytes[..i]).is_none(),
                "{i} bytes were accepted"
            );
        }
        assert!(
            decode("other", &bytes).is_none(),
            "another key's entry was accepted"
        );
    }
}
