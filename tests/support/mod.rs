//! Shared by the integration tests: where the workspace and the public corpus are, the
//! `affect` binary, scratch directories, the real BehaviorTree.CPP oracle (installed on first
//! use, idempotently) and its runs beside `affect run`'s (`btcpp.rs`), the diagnostic
//! snapshots' layout (`snapshots.rs`), headless Chromium for screenshots (`chromium.rs`) and
//! the emulated I2C bus, GPIO and PWM (`shim.rs`, built by `built.rs`).
#![allow(dead_code)]

pub mod btcpp;
pub mod built;
pub mod chromium;
pub mod shim;
pub mod snapshots;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The `affect` binary, run from the workspace without colour. `AFFECT_TEST_BIN` names another
/// build of it: a long run (`groot_generated`'s) started from copies of the test and `affect`
/// binaries keeps judging one build while the checkout is rebuilt.
pub fn affect_command() -> Command {
    let bin =
        std::env::var_os("AFFECT_TEST_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_affect").into());
    let mut c = Command::new(bin);
    c.current_dir(workspace())
        .env("NO_COLOR", "1")
        .env("XDG_CACHE_HOME", test_cache());
    c
}

/// The JIT code cache (`$XDG_CACHE_HOME/affect`) of this test process's `affect` runs: a new
/// empty folder under `TMPDIR`, so no run reads code an earlier test run left in the user's
/// cache. (A static is never dropped: `scripts/test.sh` removes its whole `TMPDIR`.)
pub fn test_cache() -> &'static Path {
    static CACHE: OnceLock<tempfile::TempDir> = OnceLock::new();
    CACHE
        .get_or_init(|| {
            tempfile::Builder::new()
                .prefix("affect-test-cache-")
                .tempdir()
                .expect("a cache directory under TMPDIR")
        })
        .path()
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

/// Runs `affect run PROGRAM OPTIONS --trace TRACE` and insists that it succeeded: its standard
/// error and the trace's text.
pub fn run_traced(program: &Path, options: &[&str], trace: &Path) -> (String, String) {
    let mut args = vec!["run", program.to_str().unwrap()];
    args.extend_from_slice(options);
    args.extend_from_slice(&["--trace", trace.to_str().unwrap()]);
    let out = affect_ok(&args);
    (stderr(&out), std::fs::read_to_string(trace).unwrap())
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
    corpus_if_present().unwrap_or_else(|| {
        panic!(
            "this test needs the public corpus, and there is none at {} (set AFFECT_CORPUS)",
            corpus_location().display()
        )
    })
}

/// Where the public corpus is looked for (see [`corpus`]), whether or not it is there.
pub fn corpus_location() -> PathBuf {
    match std::env::var_os("AFFECT_CORPUS") {
        Some(p) => PathBuf::from(p),
        None => workspace().join("..").join("shared").join("corpus"),
    }
}

/// The public corpus when it is there, for suites that also run without it (and say so).
pub fn corpus_if_present() -> Option<PathBuf> {
    let dir = corpus_location();
    dir.join("index.jsonl").is_file().then_some(dir)
}

/// The rows of the corpus index (`index.jsonl` in `dir`): `corpus_path`, `version`, `trees`,
/// `bytes`...
pub fn corpus_index(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("index.jsonl"))
        .expect("the corpus index")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("an index row"))
        .collect()
}

/// Every corpus file in `dir` as (its `corpus_path`, its text), in index order.
pub fn corpus_xml_files(dir: &Path) -> Vec<(String, String)> {
    corpus_index(dir)
        .iter()
        .map(|row| {
            let rel = row["corpus_path"].as_str().expect("a path");
            let text = std::fs::read_to_string(dir.join(rel)).expect("a corpus file");
            (rel.to_string(), text)
        })
        .collect()
}

/// The repository's own XML files (`examples/xml` and everything under `tests/fixtures`,
/// broken ones included) as (path from the workspace, text), sorted by path.
pub fn repo_xml_files() -> Vec<(String, String)> {
    let root = workspace();
    let mut out = Vec::new();
    let mut dirs = vec![root.join("examples/xml"), root.join("tests/fixtures")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("a directory").flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "xml") {
                let name = path.strip_prefix(&root).unwrap().display().to_string();
                out.push((name, std::fs::read_to_string(&path).expect("an XML file")));
            }
        }
    }
    out.sort();
    out
}

/// Loads the files an imported program `use`s for the checker and the exporter
/// (`groot::export_program`): `use "child/x.affect"` (relative to the main XML file) is the
/// included `child/x.xml`, imported to its syntax tree, as `affect run FILE.xml` reads it
/// (`src/commands/xml_in.rs`: no `.affect` text printed and parsed again).
pub struct ImportedXml {
    pub dir: PathBuf,
}

impl ImportedXml {
    /// For the program imported from `xml`.
    pub fn beside(xml: &Path) -> ImportedXml {
        ImportedXml {
            dir: xml.parent().unwrap_or(Path::new("")).to_path_buf(),
        }
    }
}

impl affect_compiler::sema::Loader for ImportedXml {
    fn syntax(&self, path: &str) -> Option<affect_compiler::sema::Syntax> {
        let xml = self
            .dir
            .join(format!("{}.xml", path.strip_suffix(".affect")?));
        let text = std::fs::read_to_string(&xml).ok()?;
        let name = xml.display().to_string();
        let file = affect_compiler::groot::import(&text, &name, &mut IncludeFiles).file;
        Some(affect_compiler::sema::Syntax {
            file,
            text,
            shown: name,
        })
    }

    fn load(&self, path: &str) -> Result<String, affect_compiler::source::SourceError> {
        let file = self.dir.join(path);
        std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()).into())
    }
}

/// Reads `<include>`d XML files relative to the including file (named by its full path).
pub struct IncludeFiles;

impl affect_compiler::groot::IncludeLoader for IncludeFiles {
    fn load(
        &mut self,
        from: &str,
        path: &str,
    ) -> Result<(String, String), affect_compiler::groot::IncludeError> {
        let full = Path::new(from).parent().unwrap_or(Path::new("")).join(path);
        let text = std::fs::read_to_string(&full).map_err(|e| e.to_string())?;
        Ok((full.display().to_string(), text))
    }
}

/// The codes of the diagnostics a `--format json` run reported, in order.
pub fn json_codes(out: &Output) -> Vec<String> {
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON ({e}); exit {:?}; stderr:\n{}",
            out.status,
            stderr(out).chars().take(2000).collect::<String>()
        )
    });
    doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect()
}

/// The `btcpp_oracle` binary, installed or brought up to date in `.tools/btcpp`
/// (`tools/btcpp-oracle/setup.sh`).
pub fn oracle() -> PathBuf {
    static ORACLE: OnceLock<PathBuf> = OnceLock::new();
    ORACLE
        .get_or_init(|| {
            let dir = workspace().join(".tools").join("btcpp");
            let bin = dir.join("bin").join("btcpp_oracle");
            // Always: a second run only checks (well under a second), and recompiles the
            // oracle when its sources (or `cpp/affect_bt.hpp`, which it includes) changed.
            {
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

/// A new empty directory for one test's files, under the temporary folder (`TMPDIR`):
/// `affect-SUITE-NAME-XXXXXX`, made fresh for every call, so nothing an earlier run left
/// behind (in the folder or beside it) can make a test pass. It is removed when the test
/// passes and kept, with its path printed, when the test fails (set `AFFECT_KEEP_SCRATCH=1`
/// to keep it always). It derefs to its `Path`.
pub fn scratch(suite: &str, name: &str) -> Scratch {
    let dir = tempfile::Builder::new()
        .prefix(&format!("affect-{suite}-{name}-"))
        .tempdir()
        .expect("a scratch directory under TMPDIR");
    Scratch(Some(dir))
}

/// A test's own directory (see [`scratch`]).
pub struct Scratch(Option<tempfile::TempDir>);

impl Scratch {
    pub fn path(&self) -> &Path {
        self.0.as_ref().expect("a scratch directory").path()
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        self.path()
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        self.path()
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.path().as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let Some(dir) = self.0.take() else { return };
        if std::thread::panicking() || std::env::var_os("AFFECT_KEEP_SCRATCH").is_some() {
            let kept = dir.keep();
            eprintln!("kept the test's files in {}", kept.display());
        }
    }
}

pub fn write_temp(dir: &Path, name: &str, text: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}
