//! Real BehaviorTree.CPP / Groot 2 files from public projects (issue 29 §4,
//! `tests/fixtures/harvested/SOURCES.md`: drones, manipulation, mobile bases, Groot 2 project
//! files), judged as the generated files are (`support/xmljudge.rs`): acceptance equal to
//! BehaviorTree.CPP's with the oracle's stand-ins (v3 files after `affect convert --to v4`),
//! traces equal where both load, and the strict round trip. A file with no tree of its own (a
//! Groot 2 project, a model list) is imported and round-tripped only.
//!
//! Files that still disagree are listed in `tests/fixtures/harvested/pending.txt` with their
//! class and why; a listed file that now agrees fails the test, so the list only shrinks.

mod support;
#[path = "support/xmljudge.rs"]
mod xmljudge;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use xmljudge::*;

const PENDING: &str = "tests/fixtures/harvested/pending.txt";

/// Why a class of disagreement is still open, for `AFFECT_RECORD_PENDING=1`.
fn reason(class: &str) -> &'static str {
    if class.starts_with("round trip") {
        "the strict round trip does not hold yet (issue 29 §1, format-preserving export)"
    } else if class.contains("(E0307)") {
        "the checker wants a variable on an `out`/`inout` port; BehaviorTree.CPP takes a literal (issue 29 §3)"
    } else if class.contains("(E0301)") {
        "types of entries and ports as BehaviorTree.CPP has them (issue 29 §3)"
    } else if class.starts_with("refusal not positioned") {
        "both refuse (it calls trees of other files), but the checker's diagnostic points at the imported text, not the XML (issue 29 §3)"
    } else {
        "open"
    }
}

fn harvested() -> PathBuf {
    support::workspace().join("tests/fixtures/harvested")
}

/// path → (class, reason)
fn pending() -> BTreeMap<String, (String, String)> {
    let text = std::fs::read_to_string(support::workspace().join(PENDING)).expect("the list");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut parts = l.splitn(3, " | ").map(|p| p.trim().to_string());
            let path = parts.next().unwrap_or_default();
            let class = parts.next().unwrap_or_default();
            let reason = parts.next().unwrap_or_default();
            assert!(
                !reason.is_empty(),
                "{PENDING}: `{l}` needs PATH | CLASS | REASON"
            );
            (path, (class, reason))
        })
        .collect()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

/// Import and round trip only: a file with no `<BehaviorTree>`.
fn judge_without_trees(dir: &Path, rel: &str, version: Version) -> Result<(), (String, String)> {
    let main = dir.join(rel);
    let text = std::fs::read_to_string(&main).unwrap();
    match affect_side(&main, &text) {
        Affect::Refused(d) => Err((
            format!("affect refuses a file without trees ({})", d[0].0),
            format!("{d:?}"),
        )),
        Affect::Accepted => round_trip(&main, &text, version),
    }
}

#[test]
fn harvested_files_agree_with_behaviortree_cpp() {
    let root = harvested();
    let scratch = support::scratch("groot_harvested", "projects");
    let listed = pending();
    let mut projects: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    projects.sort();
    assert!(
        projects.len() >= 5,
        "expected at least five harvested projects"
    );
    let (mut agreed, mut known, mut loaded, mut files) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    let mut fixed = Vec::new();
    let mut still = Vec::new();
    for project in &projects {
        let name = project.file_name().unwrap().to_string_lossy().into_owned();
        let dir = scratch.join(&name);
        copy_dir(project, &dir);
        for rel in case_files(&dir) {
            files += 1;
            let text = std::fs::read_to_string(dir.join(&rel)).unwrap();
            let version = version_of(&text);
            let key = format!("{name}/{rel}");
            let verdict = if text.contains("<BehaviorTree") {
                let (l, v) = judge(&dir, &rel, version, &[], None);
                loaded += usize::from(l);
                v
            } else {
                judge_without_trees(&dir, &rel, version)
            };
            match (verdict, listed.get(&key)) {
                (Ok(()), None) => agreed += 1,
                (Ok(()), Some((class, _))) => fixed.push(format!("{key} ({class})")),
                (Err((c, _)), Some((class, reason))) if &c == class => {
                    known += 1;
                    still.push(format!("{key} | {class} | {reason}"));
                }
                (Err((c, detail)), _) => failures.push(format!(
                    "{key} | {c} | {}",
                    detail.chars().take(600).collect::<String>()
                )),
            }
        }
    }
    if std::env::var_os("AFFECT_RECORD_PENDING").is_some() {
        let mut text = std::fs::read_to_string(support::workspace().join(PENDING)).unwrap();
        text.truncate(
            text.lines()
                .take_while(|l| l.starts_with('#'))
                .map(|l| l.len() + 1)
                .sum(),
        );
        let mut lines: Vec<String> = failures
            .iter()
            .map(|f| {
                let mut parts = f.splitn(3, " | ");
                let (path, class) = (parts.next().unwrap(), parts.next().unwrap());
                format!("{path} | {class} | {}", reason(class))
            })
            .collect();
        lines.extend(still);
        lines.sort();
        text.push_str(&lines.join("\n"));
        text.push('\n');
        std::fs::write(support::workspace().join(PENDING), text).unwrap();
        return;
    }
    println!(
        "{files} harvested files from {} projects: BehaviorTree.CPP loads {loaded}; {agreed} agree in everything, {known} listed in {PENDING}",
        projects.len()
    );
    assert!(
        fixed.is_empty(),
        "these now agree: remove them from {PENDING}:\n{}",
        fixed.join("\n")
    );
    assert!(
        failures.is_empty(),
        "harvested files that disagree with BehaviorTree.CPP (fix, or list in {PENDING} as PATH | CLASS | REASON):\n{}",
        failures.join("\n")
    );
}

/// Corpus files whose acceptance still differs from BehaviorTree.CPP's, with why: each must
/// still fail (the list only shrinks).
const CORPUS_PENDING: &[(&str, &str)] = &[];

/// Every public corpus file with a tree (issue 29 §3), judged as the harvested files are:
/// BehaviorTree.CPP loads it (with the oracle's stand-ins; a v3 file after conversion) exactly
/// when `affect check` accepts it, a refusal of ours is coded and positioned in the XML, and
/// `affect build --emit groot` refuses exactly the files the check refuses. Each file is
/// judged with the files it includes only, copied to the test's folder. Traces and the round
/// trip of the corpus are `groot_run_equivalence`'s and `groot_lossless`'s.
#[test]
#[ignore = "needs the public corpus (AFFECT_CORPUS or ../shared/corpus)"]
fn corpus_acceptance_is_behaviortree_cpp_s() {
    let corpus = support::corpus();
    let scratch = support::scratch("groot_harvested", "corpus");
    let (mut files, mut loads, mut refused) = (0, 0, Vec::new());
    let (mut failures, mut fixed) = (Vec::new(), Vec::new());
    for row in support::corpus_index(&corpus) {
        if row["trees"].as_u64().unwrap_or(0) == 0 {
            continue;
        }
        let rel = row["corpus_path"].as_str().unwrap().to_string();
        let case = scratch.join(format!("c{files}"));
        files += 1;
        // The file and what it includes, at their places relative to the corpus.
        let root = std::fs::canonicalize(&corpus).unwrap();
        for f in include_closure(&corpus.join(&rel)) {
            let to = case.join(f.strip_prefix(&root).unwrap());
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(&f, &to).unwrap();
        }
        let main = case.join(&rel);
        let text = std::fs::read_to_string(&main).unwrap();
        let version = version_of(&text);
        let checks = matches!(affect_side(&main, &text), Affect::Accepted);
        let (loaded, verdict) = judge(&case, &rel, version, &[], None);
        loads += usize::from(loaded);
        let listed = CORPUS_PENDING.iter().any(|(p, _)| *p == rel);
        match verdict {
            Ok(()) if listed => fixed.push(rel.clone()),
            Err((class, _)) if listed && class.contains("refuse") => {}
            Ok(()) => {}
            // The acceptance only: traces and the round trip are the other suites'.
            Err((class, _))
                if class == "trace differs"
                    || class.starts_with("round trip")
                    || class.starts_with("one side throws") => {}
            Err((class, detail)) => failures.push(format!(
                "{rel} | {class} | {}",
                detail.chars().take(400).collect::<String>()
            )),
        }
        if !checks {
            refused.push(rel.clone());
        }
        let out = support::affect(&[
            "build",
            "--emit",
            "groot",
            main.to_str().unwrap(),
            "-o",
            case.join("built.xml").to_str().unwrap(),
        ]);
        if out.status.success() != checks {
            failures.push(format!(
                "{rel} | `affect build --emit groot` {} what `affect check` {} | {}",
                if out.status.success() {
                    "builds"
                } else {
                    "refuses"
                },
                if checks { "accepts" } else { "refuses" },
                support::stderr(&out)
                    .lines()
                    .take(6)
                    .collect::<Vec<_>>()
                    .join(" / ")
            ));
        }
    }
    println!(
        "{files} corpus files with trees: BehaviorTree.CPP loads {loads}, affect refuses {}: {}",
        refused.len(),
        refused.join(", ")
    );
    assert!(files >= 100, "only {files} corpus files with trees");
    assert!(
        fixed.is_empty(),
        "these now agree: remove them from CORPUS_PENDING:\n{}",
        fixed.join("\n")
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
