//! The documentation's code is true: every ```affect block in `docs/*.md` and `README.md`
//! checks without errors and is laid out as `affect fmt` writes it, and every program in
//! `examples/` passes `affect check` and `affect fmt --check`. (The pages in `docs/errors`
//! have their own test, `tests/error_codes.rs`: their wrong examples must fail.)
//!
//! The convention for fenced blocks in those pages:
//!
//! - ```` ```affect ```` is a complete file. It must check with no errors (warnings are
//!   allowed, as for `affect check`) and be exactly what `affect fmt` writes. When it has
//!   something to run (an agent or a main tree), it must also run: `affect run FILE --ticks 20
//!   --no-persist` through the binary, from a scratch directory holding the block's files.
//! - A block whose first line is `// file: PATH` is several files, each starting at its
//!   `// file:` line (the convention of the error pages). The first file is the one checked;
//!   its `use "PATH"` finds the other files of the block by their `PATH` (relative to the
//!   first file). Every file must be formatted.
//! - ```` ```affect,no-run ```` is a complete file that checks and is formatted, but that
//!   `affect run` refuses (E0601, a construct the runtime does not implement yet); the page
//!   says so next to it.
//! - ```` ```affect,ignore ```` is affect text that is deliberately not a complete, valid
//!   program (a declaration shown out of its file, a construct the checker rejects on
//!   purpose). It is not checked or formatted, but it must parse without syntax errors. Any
//!   other attribute after `affect` is a mistake and fails the test.
//! - Fragments that do not parse (a grammar outline, `..` standing for "the rest") belong in
//!   ```` ```text ```` blocks, which this test does not read.
//!
//! `use "PATH"` that is not one of the block's files is read from disk relative to the page's
//! directory, as `affect check` resolves it beside the file; `use std::akr` is the standard
//! library, built into the compiler. Diagnostics are reported with the page's own line
//! numbers (the block is checked with blank lines in front of it, so line N of a diagnostic is
//! line N of the page).

mod support;

use affect_compiler::sema::Loader;
use affect_compiler::source::SourceError;
use affect_compiler::{check_source_with, fmt, render, syntax, Diagnostic};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A fenced block of a Markdown page: its info string (`affect`, `affect,ignore`, `text`, ...),
/// its text, and the page line of its first text line (1-based).
struct Block {
    info: String,
    text: String,
    first_line: usize,
}

/// Every fenced (```) block of a page, in order. A fence may be indented (inside a list
/// item); the indentation is removed from the block's lines. Returns an error for a fence
/// that is never closed.
fn fenced_blocks(page: &str) -> Result<Vec<Block>, String> {
    let lines: Vec<&str> = page.lines().collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim_start();
        let ticks = trimmed.chars().take_while(|&c| c == '`').count();
        if ticks < 3 {
            i += 1;
            continue;
        }
        let indent = line.len() - trimmed.len();
        let info = trimmed[ticks..].trim().to_string();
        let open_line = i + 1;
        let mut text = String::new();
        i += 1;
        loop {
            let Some(l) = lines.get(i) else {
                return Err(format!(
                    "the block opened at line {open_line} is never closed"
                ));
            };
            let t = l.trim();
            if t.len() >= ticks && t.chars().all(|c| c == '`') {
                break;
            }
            // Remove the fence's indentation (never more than the line's own).
            let strip = l.len() - l.trim_start().len();
            text.push_str(&l[strip.min(indent)..]);
            text.push('\n');
            i += 1;
        }
        blocks.push(Block {
            info,
            text,
            first_line: open_line + 1,
        });
        i += 1;
    }
    Ok(blocks)
}

/// What an ```affect block asks for.
#[derive(PartialEq)]
enum Kind {
    /// A complete file (or files): checked, formatted and, when it has an agent or a main
    /// tree, run.
    Program,
    /// `affect,no-run`: checked and formatted, not run.
    NoRun,
    /// `affect,ignore`: parsed only.
    Ignore,
}

/// `Some(kind)` for an affect block, `None` for any other language; an unknown attribute is
/// an error.
fn affect_kind(info: &str) -> Result<Option<Kind>, String> {
    let mut words = info
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty());
    if words.next() != Some("affect") {
        return Ok(None);
    }
    let attrs: Vec<&str> = words.collect();
    match attrs.as_slice() {
        [] => Ok(Some(Kind::Program)),
        ["ignore"] => Ok(Some(Kind::Ignore)),
        ["no-run"] => Ok(Some(Kind::NoRun)),
        _ => Err(format!(
            "unknown fence attribute in ```{info}: write ```affect, ```affect,no-run or \
             ```affect,ignore"
        )),
    }
}

/// One file of a block: its path (`robot.affect` for a single-file block), its text, and the
/// page line of its first line.
struct BlockFile {
    path: String,
    text: String,
    first_line: usize,
}

/// Splits a block into its files at `// file: PATH` lines (one file when it has none).
fn block_files(block: &Block) -> Vec<BlockFile> {
    if !block.text.starts_with("// file: ") {
        return vec![BlockFile {
            path: "robot.affect".into(),
            text: block.text.clone(),
            first_line: block.first_line,
        }];
    }
    let mut files: Vec<BlockFile> = Vec::new();
    for (n, line) in block.text.lines().enumerate() {
        match line.strip_prefix("// file: ") {
            Some(path) => files.push(BlockFile {
                path: path.trim().to_string(),
                text: String::new(),
                first_line: block.first_line + n + 1,
            }),
            None => {
                let f = files.last_mut().expect("the block starts with a file line");
                f.text.push_str(line);
                f.text.push('\n');
            }
        }
    }
    files
}

/// The text with blank lines in front, so that its first line is line `first_line` of the
/// page in rendered diagnostics.
fn at_page_line(text: &str, first_line: usize) -> String {
    let mut padded = "\n".repeat(first_line.saturating_sub(1));
    padded.push_str(text);
    padded
}

/// Serves the other files of a block by their path, and anything else from disk relative to
/// the page's directory (as `affect check` reads `use`d files beside the file it checks).
struct BlockLoader<'a> {
    dir: &'a Path,
    files: &'a [BlockFile],
}

impl Loader for BlockLoader<'_> {
    fn load(&self, path: &str) -> Result<String, SourceError> {
        if let Some(f) = self.files.iter().find(|f| f.path == path) {
            return Ok(at_page_line(&f.text, f.first_line));
        }
        let full = self.dir.join(path);
        affect_files::read_source(&full).map_err(|mut e| {
            e.message = e.message.replace(&full.display().to_string(), path);
            e
        })
    }
}

fn render_all(page: &str, src: &str, diags: &[Diagnostic]) -> String {
    diags
        .iter()
        .map(|d| render::human(d, page, src, false))
        .collect()
}

/// Checks one ```affect block; returns what is wrong with it, if anything.
fn check_block(page: &str, dir: &Path, block: &Block, kind: Kind) -> Vec<String> {
    let mut problems = Vec::new();
    let files = block_files(block);
    if kind == Kind::Ignore {
        for f in &files {
            let src = at_page_line(&f.text, f.first_line);
            let errors: Vec<Diagnostic> = syntax::parse(&src)
                .diagnostics
                .into_iter()
                .filter(Diagnostic::is_error)
                .collect();
            if !errors.is_empty() {
                problems.push(format!(
                    "{page}:{}: the ```affect,ignore block does not parse (a fragment belongs in \
                     ```text):\n{}",
                    f.first_line,
                    render_all(page, &src, &errors)
                ));
            }
        }
        return problems;
    }

    let main = &files[0];
    let src = at_page_line(&main.text, main.first_line);
    let loader = BlockLoader { dir, files: &files };
    let analysis = check_source_with(&src, &loader);
    let errors: Vec<Diagnostic> = analysis
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .cloned()
        .collect();
    let mut report = render_all(page, &src, &errors);
    for (file, text, d) in &analysis.imported_diagnostics {
        if d.is_error() {
            report.push_str(&render::human(d, &format!("{page} ({file})"), text, false));
        }
    }
    if !report.is_empty() {
        problems.push(format!(
            "{page}:{}: the ```affect block does not pass `affect check`:\n{report}",
            block.first_line
        ));
    } else if analysis
        .program
        .as_ref()
        .is_some_and(|p| !p.agents.is_empty() || p.main_tree.is_some())
    {
        let at = format!("{page}:{}: the ```affect", block.first_line);
        match (kind, run_block(page, block, &files)) {
            (Kind::Program, Err(why)) => problems.push(format!(
                "{at} block checks but does not run (`affect run --ticks 20`): {why}"
            )),
            (Kind::NoRun, Ok(())) => problems.push(format!(
                "{at},no-run block runs now: make it ```affect (and drop what the page says)"
            )),
            (Kind::NoRun, Err(why)) if !why.contains("[E0601]") => problems.push(format!(
                "{at},no-run block fails to run for another reason than E0601: {why}"
            )),
            _ => {}
        }
    } else if matches!(kind, Kind::NoRun) {
        // A marker that claims nothing: `affect run` has nothing to refuse here.
        problems.push(format!(
            "{page}:{}: the ```affect,no-run block has nothing to run (no agent, no main tree): make it ```affect",
            block.first_line
        ));
    }

    for f in &files {
        match fmt::format_source(&f.text) {
            Ok(formatted) if formatted == f.text => {}
            Ok(formatted) => {
                let differs = f
                    .text
                    .lines()
                    .zip(formatted.lines())
                    .position(|(a, b)| a != b)
                    .unwrap_or_else(|| f.text.lines().count().min(formatted.lines().count()));
                problems.push(format!(
                    "{page}:{}: the ```affect block is not formatted as `affect fmt` writes it \
                     (first difference at line {}); it should read:\n{formatted}",
                    f.first_line,
                    f.first_line + differs
                ));
            }
            // Syntax errors are already in the check report above.
            Err(_) => {}
        }
    }
    problems
}

/// How many blocks `run_block` ran.
static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Runs a block that has something to run, for 20 ticks, through the binary, from a scratch
/// directory holding its files: `Err` with the exit status and standard error when it fails.
fn run_block(page: &str, block: &Block, files: &[BlockFile]) -> Result<(), String> {
    RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let name = format!("{}-{}", page.replace(['/', '.'], "_"), block.first_line);
    let dir = support::scratch("doc_examples", &name);
    for f in files {
        let path = dir.join(&f.path);
        std::fs::create_dir_all(path.parent().expect("a file is in a directory")).unwrap();
        std::fs::write(&path, &f.text).unwrap();
    }
    let out = support::affect_command()
        .current_dir(&dir)
        .args([
            "run",
            &files[0].path,
            "--ticks",
            "20",
            "--no-persist",
            "--quiet",
        ])
        .output()
        .expect("the affect binary runs");
    let _ = std::fs::remove_dir_all(&dir);
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// The pages whose blocks are checked: `docs/*.md` (not `docs/errors`) and `README.md`.
fn pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/ exists")
        .map(|e| e.expect("a readable docs/ entry").path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    pages.push(root().join("README.md"));
    pages
}

#[test]
fn affect_blocks_in_the_docs_check_and_are_formatted() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for path in pages() {
        let page = path
            .strip_prefix(root())
            .unwrap_or(&path)
            .display()
            .to_string();
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let blocks = match fenced_blocks(&text) {
            Ok(b) => b,
            Err(e) => {
                problems.push(format!("{page}: {e}"));
                continue;
            }
        };
        let dir = path.parent().expect("a page is in a directory");
        for block in &blocks {
            match affect_kind(&block.info) {
                Ok(None) => {}
                Ok(Some(kind)) => {
                    checked += 1;
                    problems.extend(check_block(&page, dir, block, kind));
                }
                Err(e) => problems.push(format!("{page}:{}: {e}", block.first_line - 1)),
            }
        }
    }
    assert!(
        checked >= 20,
        "only {checked} ```affect blocks found: is the extraction broken?"
    );
    let ran = RUNS.load(std::sync::atomic::Ordering::Relaxed);
    assert!(
        ran >= 10,
        "only {ran} ```affect blocks ran: is the test of what can run broken?"
    );
    assert!(
        problems.is_empty(),
        "{} problem(s) in the documentation's affect blocks (see the convention at the top \
         of tests/doc_examples.rs):\n\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The programs of `examples/`, sorted.
fn examples() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("examples"))
        .expect("examples/ exists")
        .map(|e| e.expect("a readable examples/ entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "affect"))
        .collect();
    files.sort();
    files
}

#[test]
fn examples_pass_affect_check_and_fmt_check() {
    let files = examples();
    assert!(!files.is_empty(), "no examples/*.affect found");
    for args in [&["check"][..], &["fmt", "--check"][..]] {
        let out = support::affect_command()
            .args(args)
            .args(&files)
            .output()
            .expect("the affect binary runs");
        assert!(
            out.status.success(),
            "`affect {}` fails on examples/ ({}):\n{}{}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        if args[0] == "check" {
            // A newcomer's first command: a summary line, and no warning on a shipped example.
            assert_eq!(
                String::from_utf8_lossy(&out.stderr),
                format!("affect: {} files checked, no errors\n", files.len()),
                "`affect check examples/*.affect` prints exactly its summary line"
            );
        }
    }
}

/// The extraction itself: indented fences, attributes, several files.
#[test]
fn blocks_are_extracted_with_their_page_lines() {
    let page = "# t\n\n```affect\naction A();\n```\n\n- item\n\n  ```affect,ignore\n  action B();\n  ```\n\n```text\nx\n```\n";
    let blocks = fenced_blocks(page).unwrap();
    assert_eq!(blocks.len(), 3);
    assert_eq!(blocks[0].text, "action A();\n");
    assert_eq!(blocks[0].first_line, 4);
    assert_eq!(blocks[1].text, "action B();\n");
    assert_eq!(blocks[1].first_line, 10);
    assert!(affect_kind(&blocks[1].info).unwrap() == Some(Kind::Ignore));
    assert!(affect_kind(&blocks[2].info).unwrap().is_none());
    assert!(affect_kind("affect,ignor").is_err());
    assert!(fenced_blocks("```affect\nx\n").is_err());

    let multi = Block {
        info: "affect".into(),
        text: "// file: a.affect\nuse \"b.affect\";\n// file: b.affect\naction B();\n".into(),
        first_line: 7,
    };
    let files = block_files(&multi);
    assert_eq!(files.len(), 2);
    assert_eq!(
        (files[0].path.as_str(), files[0].first_line),
        ("a.affect", 8)
    );
    assert_eq!(
        (files[1].path.as_str(), files[1].text.as_str()),
        ("b.affect", "action B();\n")
    );
    assert_eq!(files[1].first_line, 10);
}

/// What the check reports: errors with the page's line numbers, several files, unformatted
/// blocks, and `affect,ignore` blocks that do not parse.
#[test]
fn block_checks_report_what_is_wrong() {
    let dir = root().join("docs");
    let block = |text: &str, first_line| Block {
        info: "affect".into(),
        text: text.into(),
        first_line,
    };
    let multi = "// file: robot.affect\nuse \"lib/moves.affect\";\n\nagent Robot {\n    main {\n        Step()\n    }\n}\n// file: lib/moves.affect\naction Step();\n";
    assert!(check_block("p.md", &dir, &block(multi, 3), Kind::Program).is_empty());

    let unknown = check_block(
        "p.md",
        &dir,
        &block("agent A {\n    var x: Pose;\n}\n", 20),
        Kind::Program,
    );
    assert_eq!(unknown.len(), 1, "{unknown:?}");
    assert!(
        unknown[0].contains("p.md:21:"),
        "the page line of the error: {}",
        unknown[0]
    );

    let missing = check_block(
        "p.md",
        &dir,
        &block("use \"nowhere.affect\";\n", 5),
        Kind::Program,
    );
    assert!(
        missing.len() == 1 && missing[0].contains("E0206"),
        "{missing:?}"
    );

    let unformatted = check_block("p.md", &dir, &block("const A=1;\n", 5), Kind::Program);
    assert!(
        unformatted.len() == 1 && unformatted[0].contains("const A = 1;"),
        "{unformatted:?}"
    );

    let fragment = block("agent A {\n    main { sequence { .. } }\n}\n", 5);
    assert!(!check_block("p.md", &dir, &fragment, Kind::Ignore).is_empty());
    let wrong_on_purpose = block("agent A {\n    update { score = 1; }\n}\n", 5);
    assert!(check_block("p.md", &dir, &wrong_on_purpose, Kind::Ignore).is_empty());
}
