//! Imported trees run as in BehaviorTree.CPP. For every corpus file (`support::corpus`) that
//! BehaviorTree.CPP 4.8.2 loads, `affect run` on its import and the real library (the
//! `btcpp_oracle` kit) tick it 20 times with the same stand-ins for custom nodes, and the
//! status transitions (uid, path, from, to, in order, tick by tick) must be identical:
//!
//! - custom leaves return `--leaf-default` (success) or their `--leaf` (the oracle's
//!   `--custom-result`), matched by node path, then name, then ID;
//! - a custom control node is a Sequence, a custom decorator passes its child's status through.
//!
//! Each file runs three times: every custom leaf succeeding; each custom node ID given a
//! scripted list of statuses; and one node keyed by its path. The nav2 trees of the corpus name
//! nodes their files do not model (BehaviorTree.CPP refuses them); they run a second time with
//! the `<TreeNodesModel>` of their nav2 release added, which brings custom control nodes and
//! decorators (`PipelineSequence`, `RecoveryNode`, `RateController`, ...) in.
//!
//! Both sides tick the way `btcpp_equivalence.rs` does: the oracle's `tickExactlyOnce()` loop
//! without sleeping, affect with `--sleep-between-ticks 1`. `affect run FILE.xml` (the import in
//! memory) must give the same trace as the imported file.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::btcpp::{self, diff, Trace};

const TICKS: u32 = 20;

/// Corpus files with trees that BehaviorTree.CPP loads (the others it refuses: each is listed
/// with BehaviorTree.CPP's own error when the test runs).
const CORPUS_LOADED: usize = 29;
/// Corpus files with trees that BehaviorTree.CPP refuses.
const CORPUS_REFUSED: usize = 103;
/// nav2 trees that BehaviorTree.CPP loads once their release's node models are added, and
/// those it still refuses (v3 node names, a port the model lacks).
const NAV2_LOADED: usize = 67;
const NAV2_REFUSED: usize = 6;

/// Blackboard entries set before the first tick on both sides for one corpus file: what the
/// real application's nodes would have written and the stand-ins never write.
struct Preset {
    file: &'static str,
    /// KEY and TYPE=VALUE (the oracle's `--bb KEY:TYPE=VALUE`, affect's `--bb KEY=VALUE`).
    entries: &'static [(&'static str, &'static str)],
    /// What BehaviorTree.CPP says without them (checked), and why.
    without: &'static str,
    why: &'static str,
}

const PRESETS: &[Preset] = &[Preset {
    file: "turtlebot3_behavior_demos@main/tb_autonomy/bt_xml/tree_queue.xml",
    entries: &[("num_locs", "int=3")],
    without: "Missing parameter [num_attempts] in RetryNode",
    why: "`SetLocations` writes `num_locs`, which `RetryUntilSuccessful` reads as \
          `num_attempts`; the stand-in writes nothing, so BehaviorTree.CPP throws at tick 0, \
          and affect stops there too (E0605); the preset lets the comparison go past tick 0",
}];

/// Statuses given to custom node IDs in the scripted run, in turn.
const SCRIPTS: &[&str] = &[
    "RUNNING,SUCCESS",
    "FAILURE",
    "RUNNING,RUNNING,FAILURE,SUCCESS",
    "SUCCESS,FAILURE",
];

fn corpus() -> PathBuf {
    support::corpus()
}

/// This test process's own folder under `TMPDIR` (the imported trees and both sides'
/// traces), so no run reads what an earlier one left. (A static is never dropped:
/// `scripts/test.sh` removes its whole `TMPDIR`.)
fn out_dir() -> PathBuf {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        tempfile::Builder::new()
            .prefix("groot_run_equivalence-")
            .tempdir()
            .expect("a folder under TMPDIR")
    })
    .path()
    .to_path_buf()
}

struct Loaded {
    custom: Vec<String>,
}

/// `btcpp_oracle load`: the custom models, or BehaviorTree.CPP's error.
fn load(xml: &Path) -> Result<Loaded, String> {
    let out = Command::new(support::oracle())
        .arg("load")
        .arg(xml)
        .output()
        .expect("the oracle runs");
    let error = String::from_utf8_lossy(&out.stderr).trim().to_string();
    match out.status.code() {
        Some(0) => {}
        // Exit status 2: BehaviorTree.CPP refused to create the tree; stderr is its error.
        Some(2) => return Err(error),
        _ => panic!("the oracle failed on {}: {error}", xml.display()),
    }
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("load prints JSON");
    let custom = v["custom_models"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    Ok(Loaded { custom })
}

/// One run's stand-in statuses (KEY=S1,S2) and blackboard presets (KEY, TYPE=VALUE).
#[derive(Default, Clone)]
struct Scenario {
    name: &'static str,
    leaves: Vec<(String, String)>,
    bb: Vec<(String, String)>,
}

/// The oracle's trace with each node's ID, or why it has none.
fn oracle_trace(xml: &Path, s: &Scenario) -> Result<(Trace, Vec<String>), String> {
    let bb: Vec<(&str, &str, &str)> =
        s.bb.iter()
            .map(|(k, tv)| {
                let (ty, v) = tv.split_once('=').expect("TYPE=VALUE");
                (k.as_str(), ty, v)
            })
            .collect();
    let run = btcpp::oracle_trace(
        xml,
        &btcpp::OracleArgs {
            ticks: TICKS,
            bb,
            leaves: &s.leaves,
            ..Default::default()
        },
    );
    if let Some((tick, e)) = run.thrown {
        return Err(format!("BehaviorTree.CPP threw at tick {tick}: {e}"));
    }
    if run.code != Some(0) {
        return Err(format!(
            "the oracle failed ({:?}): {}",
            run.code, run.stderr
        ));
    }
    Ok((run.trace, run.ids))
}

/// `affect run FILE --ticks 20 --loop --trace T.jsonl`, clocked like the oracle (which
/// ticks exactly 20 times, on past a finished tree: `--loop`).
fn affect_trace(file: &Path, s: &Scenario, tag: &str) -> Result<Trace, String> {
    let jsonl = out_dir().join("traces").join(format!("{tag}.jsonl"));
    std::fs::create_dir_all(jsonl.parent().unwrap()).unwrap();
    let bb: Vec<(&str, &str)> =
        s.bb.iter()
            .map(|(k, tv)| (k.as_str(), tv.split_once('=').expect("TYPE=VALUE").1))
            .collect();
    match btcpp::affect_trace(file, TICKS, &s.leaves, &bb, &jsonl) {
        (_, Some(e)) => Err(format!("affect run failed: {e}")),
        (trace, None) => Ok(trace),
    }
}

/// Imports `xml` (a path under `root`) and the files it includes, mirrored under `dest`;
/// returns the `.affect` file of `xml`.
fn import_tree(root: &Path, rel: &Path, dest: &Path) -> Result<PathBuf, String> {
    let out = dest.join(rel).with_extension("affect");
    if out.exists() {
        return Ok(out);
    }
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let xml = root.join(rel);
    let run = support::affect_command()
        .arg("import")
        .arg(&xml)
        .arg("-o")
        .arg(&out)
        .output()
        .expect("affect runs");
    if !run.status.success() {
        return Err(format!(
            "affect import failed: {}",
            String::from_utf8_lossy(&run.stderr)
        ));
    }
    // Included files, relative to the including one (as BehaviorTree.CPP resolves them).
    let text = std::fs::read_to_string(&xml).unwrap();
    let doc = roxmltree::Document::parse(&text).map_err(|e| e.to_string())?;
    for inc in doc.descendants().filter(|n| n.has_tag_name("include")) {
        let Some(path) = inc.attribute("path") else {
            continue;
        };
        let child = normalize(&rel.parent().unwrap_or(Path::new("")).join(path));
        if root.join(&child).exists() {
            import_tree(root, &child, dest)?;
        }
    }
    Ok(out)
}

/// `a/b/../c` → `a/c` (include paths climb out of their folder).
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[derive(Default)]
struct Outcome {
    compared: Vec<String>,
    refused: Vec<(String, String)>,
    failures: Vec<String>,
    traces: usize,
}

/// A file BehaviorTree.CPP loads, imported, ready to compare.
struct Work {
    label: String,
    xml: PathBuf,
    imported: PathBuf,
    loaded: Loaded,
    bb: Vec<(String, String)>,
    /// Also run the XML file itself (`affect run FILE.xml`).
    direct: bool,
}

/// Compares the files on a few threads (each comparison runs both programs a few times).
fn compare_all(work: &[Work], out: &mut Outcome) {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 4));
    let parts: Vec<Outcome> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut part = Outcome::default();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(w) = work.get(i) else { break };
                        compare_file(w, &mut part);
                    }
                    part
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for p in parts {
        out.compared.extend(p.compared);
        out.failures.extend(p.failures);
        out.traces += p.traces;
    }
    out.compared.sort();
    out.failures.sort();
}

/// Compares one XML file that BehaviorTree.CPP loads, in every scenario.
fn compare_file(w: &Work, out: &mut Outcome) {
    let (label, xml, imported, loaded, bb) = (&w.label, &w.xml, &w.imported, &w.loaded, &w.bb);
    let base = Scenario {
        name: "defaults",
        leaves: vec![],
        bb: bb.to_vec(),
    };
    let scripted = Scenario {
        name: "scripted IDs",
        leaves: loaded
            .custom
            .iter()
            .enumerate()
            .map(|(i, id)| (id.clone(), SCRIPTS[i % SCRIPTS.len()].to_string()))
            .collect(),
        bb: bb.to_vec(),
    };
    let mut scenarios = vec![base.clone(), scripted];
    let tag = label.replace('/', "__");
    let mut first: Option<Trace> = None;
    let mut i = 0;
    while i < scenarios.len() {
        let s = scenarios[i].clone();
        i += 1;
        let theirs = match oracle_trace(xml, &s) {
            Ok(t) => t,
            Err(e) => {
                out.failures
                    .push(format!("{label} [{}]: no oracle trace: {e}", s.name));
                continue;
            }
        };
        let ours = match affect_trace(imported, &s, &format!("{tag}.{}", i)) {
            Ok(t) => t,
            Err(e) => {
                out.failures.push(format!("{label} [{}]: {e}", s.name));
                continue;
            }
        };
        out.traces += 1;
        if let Some(d) = diff(&ours, &theirs.0) {
            out.failures.push(format!("{label} [{}]: {d}", s.name));
        }
        if s.name == "defaults" {
            first = Some(ours);
            // Keyed by path: the first custom node the run ticked fails, then succeeds.
            let custom_path = theirs
                .0
                .iter()
                .zip(&theirs.1)
                .find(|(_, id)| loaded.custom.contains(id))
                .map(|(t, _)| t.2.clone());
            if let Some(path) = custom_path {
                scenarios.push(Scenario {
                    name: "keyed by path",
                    leaves: vec![(path, "RUNNING,FAILURE,SUCCESS".to_string())],
                    bb: bb.to_vec(),
                });
            }
        }
    }
    // The XML file run directly: the same as its import.
    if w.direct {
        match (affect_trace(xml, &base, &format!("{tag}.xml")), &first) {
            (Ok(t), Some(f)) => {
                if let Some(d) = diff(&t, f) {
                    out.failures.push(format!(
                        "{label}: `affect run FILE.xml` differs from the import: {d}"
                    ));
                }
            }
            (Err(e), _) => out.failures.push(format!("{label}: {e}")),
            _ => {}
        }
    }
    out.compared.push(label.to_string());
}

fn corpus_files() -> Vec<(String, serde_json::Value)> {
    support::corpus_index(&corpus())
        .into_iter()
        .map(|v| (v["corpus_path"].as_str().unwrap().to_string(), v))
        .collect()
}

#[test]
#[ignore = "needs the public corpus (AFFECT_CORPUS or ../shared/corpus)"]
fn corpus_trees_run_as_in_btcpp() {
    let root = corpus();
    let dest = out_dir().join("corpus");
    let _ = std::fs::remove_dir_all(&dest);
    let presets: BTreeMap<&str, Vec<(String, String)>> = PRESETS
        .iter()
        .map(|p| {
            let bb = p.entries.iter();
            (
                p.file,
                bb.map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            )
        })
        .collect();
    // Without its presets a file does what the preset says (else it needs none).
    for p in PRESETS {
        let theirs = oracle_trace(&root.join(p.file), &Scenario::default());
        assert!(
            theirs.as_ref().is_err_and(|e| e.contains(p.without)),
            "{}: without {:?} BehaviorTree.CPP was expected to say `{}`: {:?}",
            p.file,
            p.entries,
            p.without,
            theirs.map(|t| t.0.len())
        );
    }
    let mut out = Outcome::default();
    let mut work = Vec::new();
    for (rel, info) in corpus_files() {
        if info["trees"].as_u64().unwrap_or(0) == 0 {
            continue;
        }
        let xml = root.join(&rel);
        let loaded = match load(&xml) {
            Ok(l) => l,
            Err(e) => {
                out.refused.push((rel, e));
                continue;
            }
        };
        let imported = match import_tree(&root, Path::new(&rel), &dest) {
            Ok(p) => p,
            Err(e) => {
                out.failures.push(format!("{rel}: {e}"));
                continue;
            }
        };
        let bb = presets.get(rel.as_str()).cloned().unwrap_or_default();
        work.push(Work {
            label: rel,
            xml,
            imported,
            loaded,
            bb,
            direct: true,
        });
    }
    compare_all(&work, &mut out);
    report("corpus", &out, CORPUS_LOADED, CORPUS_REFUSED);
}

#[test]
#[ignore = "needs the public corpus (AFFECT_CORPUS or ../shared/corpus)"]
fn nav2_corpus_trees_with_their_models_run_as_in_btcpp() {
    let root = corpus();
    let dest = out_dir().join("nav2");
    let _ = std::fs::remove_dir_all(&dest);
    std::fs::create_dir_all(&dest).unwrap();
    let mut out = Outcome::default();
    let mut work = Vec::new();
    for (rel, info) in corpus_files() {
        if info["trees"].as_u64().unwrap_or(0) == 0 {
            continue;
        }
        let release = rel.split('/').next().unwrap();
        let model = root
            .join(release)
            .join("nav2_behavior_tree")
            .join("nav2_tree_nodes.xml");
        let text = std::fs::read_to_string(root.join(&rel)).unwrap();
        // Only trees that BehaviorTree.CPP refuses for want of models.
        if !release.starts_with("navigation2@")
            || !model.exists()
            || text.contains("<TreeNodesModel")
        {
            continue;
        }
        match load(&root.join(&rel)) {
            Err(e) if e.contains("Node not recognized") => {}
            _ => continue,
        }
        let models = std::fs::read_to_string(&model).unwrap();
        let (Some(start), Some(end)) = (
            models.find("<TreeNodesModel>"),
            models.rfind("</TreeNodesModel>"),
        ) else {
            panic!("{} has no <TreeNodesModel>", model.display());
        };
        let at = text.rfind("</root>").expect("a <root> element");
        let derived = format!(
            "{}{}\n{}",
            &text[..at],
            &models[start..end + "</TreeNodesModel>".len()],
            &text[at..]
        );
        let name = rel.replace('/', "__");
        let xml = support::write_temp(&dest, &name, &derived);
        let loaded = match load(&xml) {
            Ok(l) => l,
            Err(e) => {
                out.refused.push((rel, e));
                continue;
            }
        };
        let imported = match import_tree(&dest, Path::new(&name), &dest.join("imported")) {
            Ok(p) => p,
            Err(e) => {
                out.failures.push(format!("{rel}: {e}"));
                continue;
            }
        };
        // Their imports are large, and the corpus test runs XML files directly already.
        work.push(Work {
            label: rel,
            xml,
            imported,
            loaded,
            bb: vec![],
            direct: false,
        });
    }
    compare_all(&work, &mut out);
    report("nav2 with models", &out, NAV2_LOADED, NAV2_REFUSED);
}

fn report(what: &str, out: &Outcome, loaded: usize, refused: usize) {
    eprintln!(
        "{what}: {} files compared ({} traces), {} refused by BehaviorTree.CPP:",
        out.compared.len(),
        out.traces,
        out.refused.len()
    );
    for (f, e) in &out.refused {
        eprintln!("  excluded {f}: BehaviorTree.CPP refuses it: {e}");
    }
    for p in PRESETS {
        if out.compared.iter().any(|c| c == p.file) {
            eprintln!("  {} runs with {:?} preset: {}", p.file, p.entries, p.why);
        }
    }
    assert!(
        out.failures.is_empty(),
        "{what}: {} mismatches:\n\n{}",
        out.failures.len(),
        out.failures.join("\n\n")
    );
    assert_eq!(
        out.compared.len(),
        loaded,
        "{what}: the number of files BehaviorTree.CPP loads and affect runs alike"
    );
    assert_eq!(
        out.refused.len(),
        refused,
        "{what}: the number of files BehaviorTree.CPP refuses"
    );
    assert!(out.traces >= 2 * loaded, "{what}: {} traces", out.traces);
}
