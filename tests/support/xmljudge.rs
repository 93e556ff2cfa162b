//! The judge of one BehaviorTree.CPP XML file against the real library (issue 29 §2, §4),
//! shared by `groot_generated.rs` and `groot_harvested.rs`: acceptance (BehaviorTree.CPP with
//! the oracle's stand-ins ⇔ `affect import` and the check), the traces of a few ticks where
//! both load, and the strict round trip (attribute text as written). A disagreement has a
//! class; `minimise` shrinks a failing file while it keeps its class.

#![allow(dead_code)] // shared by two suites, each using a part

use super::support;
use affect_compiler::diagnostic::has_errors;
use affect_compiler::groot::xml::{self, Element, XmlNode};
use affect_compiler::groot::{self, Dialect};
use affect_compiler::syntax;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::btcpp;

/// BehaviorTree.CPP 4 or 3 (judged after `affect convert --to v4`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Version {
    V3,
    V4,
}

/// What a mutation did to a file that BehaviorTree.CPP should refuse.
#[derive(Clone, Debug, PartialEq)]
pub enum Mutation {
    /// A built-in's ID misspelt: (as written, the built-in).
    NodeTypo(String, String),
    /// A port's name misspelt: (node ID, as written, the port).
    PortTypo(String, String, String),
    /// A port the node does not have: (node ID, port).
    UnknownPort(String, String),
    /// A literal the port's type cannot hold: (node ID, port, value).
    WrongType(String, String, String),
}

/// The blackboard both sides start with: (key, oracle type, value).
pub const PRESETS: &[(&str, &str, &str)] = &[
    ("n", "int", "1"),
    ("x", "double", "0.5"),
    ("s", "string", "hi"),
    ("f", "bool", "true"),
];

const TICKS: u32 = 8;
/// The class of files whose run aborts BehaviorTree.CPP itself (counted, never compared).
pub const ABORTED: &str = "BehaviorTree.CPP aborts";

// ----------------------------------------------------------------------------- the judge

/// The oracle's verdict on the (converted) main file.
#[derive(Debug)]
pub enum Btcpp {
    Refused(String),
    /// Its transitions, and the error a tick threw (if one did).
    Ran(Trace, Option<String>),
    /// The library aborted the process: nothing to compare.
    Aborted(String),
}

pub use support::btcpp::{diff, Trace};

/// The affect side's verdict.
#[derive(Debug)]
pub enum Affect {
    /// Import or check errors: (code, message, help, positioned in an XML file).
    Refused(Vec<(String, String, Option<String>, bool)>),
    Accepted,
}

/// What one file gave: `Ok` when both sides agree in everything, else the failure's class
/// and its details.
pub fn judge(
    dir: &Path,
    main: &str,
    version: Version,
    leaves: &[(String, String)],
    mutation: Option<&Mutation>,
) -> (bool, Result<(), (String, String)>) {
    let mut loaded = false;
    // A panic of the toolchain is a failure of its own class, not the end of the run.
    let verdict = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        judge_inner(dir, main, version, leaves, mutation, &mut loaded)
    }))
    .unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        Err((format!("affect panics: {}", general(&what)), what))
    });
    (loaded, verdict)
}

fn judge_inner(
    dir: &Path,
    main_rel: &str,
    version: Version,
    leaves: &[(String, String)],
    mutation: Option<&Mutation>,
    loaded: &mut bool,
) -> Result<(), (String, String)> {
    let main = dir.join(main_rel);
    let text = std::fs::read_to_string(&main).expect("the main file");
    // v3 files are judged after conversion to v4, each file of the case converted.
    let oracle_main = match version {
        Version::V4 => main.clone(),
        Version::V3 => {
            let v4dir = dir.join("as_v4");
            for rel in case_files(dir) {
                let src = std::fs::read_to_string(dir.join(&rel)).unwrap();
                let converted = groot::convert(&src, Dialect::V4);
                if has_errors(&converted.diagnostics) {
                    let code = first_error_code(&converted.diagnostics);
                    return match affect_side(&main, &text) {
                        Affect::Refused(_) => Ok(()),
                        Affect::Accepted => Err((
                            format!("v3: convert refuses what import accepts ({code})"),
                            format!("{rel}: {:?}", converted.diagnostics),
                        )),
                    };
                }
                let out = v4dir.join(&rel);
                std::fs::create_dir_all(out.parent().unwrap()).unwrap();
                std::fs::write(&out, converted.xml).unwrap();
            }
            v4dir.join(main_rel)
        }
    };
    let mut presets: Vec<(&str, &str, &str)> = PRESETS.to_vec();
    let mut btcpp = oracle(&oracle_main, leaves, &presets);
    // affect checks every tree of every file; BehaviorTree.CPP creates the main tree (and what
    // it calls) only, so each other tree is created too, as an application may (by its ID).
    if let Btcpp::Ran(..) = btcpp {
        if let Some(why) = other_trees_refused(&oracle_main, &presets) {
            btcpp = Btcpp::Refused(why);
        }
    }
    *loaded = matches!(btcpp, Btcpp::Ran(..));
    if let Btcpp::Aborted(why) = &btcpp {
        return Err((ABORTED.to_string(), why.clone()));
    }
    let ours = affect_side(&main, &text);
    match (&btcpp, &ours) {
        (Btcpp::Refused(why), Affect::Accepted) => {
            return Err((
                format!("BehaviorTree.CPP refuses, affect accepts: {}", general(why)),
                why.clone(),
            ))
        }
        (Btcpp::Ran(..), Affect::Refused(diags)) => {
            let first = diags.iter().map(|d| d.0.as_str()).min().unwrap_or_default();
            return Err((
                format!("affect refuses ({first}), BehaviorTree.CPP loads"),
                format!("{diags:?}"),
            ));
        }
        (Btcpp::Refused(why), Affect::Refused(diags)) => {
            if let Some((d, _)) = diags.iter().map(|d| (d, ())).find(|(d, _)| !d.3) {
                return Err((
                    "refusal not positioned in the XML".to_string(),
                    format!("{d:?}; BehaviorTree.CPP: {why}"),
                ));
            }
            if let Some(m) = mutation {
                let (wrong, near) = match m {
                    Mutation::NodeTypo(w, b) => (w, b),
                    Mutation::PortTypo(_, w, p) => (w, p),
                    _ => return Ok(()),
                };
                // Only where the library refuses the file for the misspelt name (not for
                // another fault it met first, such as an explicit child of a ReactiveSequence).
                if !why.contains(wrong.as_str()) {
                    return Ok(());
                }
                let says = diags.iter().any(|d| {
                    d.2.as_deref()
                        .and_then(suggested)
                        .is_some_and(|s| as_near(wrong, s, near))
                        && d.1.contains(wrong.as_str())
                });
                if !says {
                    return Err((
                        format!(
                            "no \"did you mean\" for a misspelt {}",
                            if matches!(m, Mutation::NodeTypo(..)) {
                                "node"
                            } else {
                                "port"
                            }
                        ),
                        format!("{m:?}: {diags:?}"),
                    ));
                }
            }
            return Ok(());
        }
        (Btcpp::Ran(..), Affect::Accepted) | (Btcpp::Aborted(_), _) => {}
    }
    if let Btcpp::Ran(..) = &btcpp {
        let mut leaves = leaves.to_vec();
        // Both run the same XML: a v3 file as converted (node IDs are in the traces' paths).
        let main = &oracle_main;
        let (mut mine, mut failed) = affect_run(main, &leaves, dir, &presets);
        // A preset the imported main tree has no variable for (it never uses the entry), and a
        // stand-in status for a node only an included file uses, are left out on both sides:
        // BehaviorTree.CPP takes them, `affect run` refuses them as a mistake of its user.
        while let Some(e) = failed.clone() {
            let (p, l) = (presets.len(), leaves.len());
            if let Some(key) = unknown_option(&e, "--bb ", ": no variable") {
                presets.retain(|x| x.0 != key);
            }
            if let Some(key) = unknown_option(&e, "--leaf ", ": no action") {
                leaves.retain(|x| x.0 != key);
            }
            if presets.len() == p && leaves.len() == l {
                break;
            }
            btcpp = oracle(&oracle_main, &leaves, &presets);
            if let Btcpp::Aborted(why) = &btcpp {
                return Err((ABORTED.to_string(), why.clone()));
            }
            (mine, failed) = affect_run(main, &leaves, dir, &presets);
        }
        let Btcpp::Ran(theirs, thrown) = &btcpp else {
            return Err((
                "BehaviorTree.CPP refuses without a preset".into(),
                format!("{btcpp:?}"),
            ));
        };
        if let Some(e) = failed.as_deref().filter(|e| !e.contains("E0605")) {
            let code = e
                .split(['[', ']'])
                .find(|c| c.starts_with('E') && c.len() == 5)
                .unwrap_or("no code")
                .to_string();
            return Err((format!("affect run fails ({code})"), e.to_string()));
        }
        if let Some(d) = diff(&mine, theirs) {
            return Err(("trace differs".into(), d));
        }
        if thrown.is_some() != failed.is_some() {
            return Err((
                "one side throws while ticking".into(),
                format!("BehaviorTree.CPP: {thrown:?}; affect: {failed:?}"),
            ));
        }
    }
    round_trip(&main, &text, version)
}

/// The name a "did you mean `NAME`?" help suggests.
fn suggested(help: &str) -> Option<&str> {
    let rest = &help[help.find("did you mean")?..];
    rest.split('`').nth(1)
}

/// Whether `suggested` is a right "did you mean" for `wrong`, a misspelling of `meant`: the
/// name itself, or another as near to `wrong` (with names equally near, either is right).
fn as_near(wrong: &str, suggested: &str, meant: &str) -> bool {
    use affect_compiler::suggest::edit_distance;
    suggested == meant || edit_distance(wrong, suggested) <= edit_distance(wrong, meant)
}

/// The XML files of a case (`.xml`, Groot 2's `.btproj`), relative to its folder, sorted;
/// not the converted copies in `as_v4/`.
pub fn case_files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                if p.file_name().is_some_and(|n| n != "as_v4") {
                    todo.push(p);
                }
            } else if p.extension().is_some_and(|x| x == "xml" || x == "btproj") {
                out.push(p.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

pub fn first_error_code(diags: &[affect_compiler::Diagnostic]) -> String {
    diags
        .iter()
        .find(|d| d.is_error())
        .map(|d| d.code.to_string())
        .unwrap_or_default()
}

/// A library message without its specifics (names, numbers, lines), as a class.
pub fn general(why: &str) -> String {
    let line = why.lines().next().unwrap_or_default();
    let line = line.split("-> ").last().unwrap_or(line);
    let mut out = String::new();
    let mut skip = 0;
    for c in line.chars() {
        match c {
            '[' | '(' | '"' if skip == 0 => skip = 1,
            ']' | ')' | '"' if skip == 1 => {
                skip = 0;
                out.push('…');
            }
            _ if skip == 0 && !c.is_ascii_digit() => out.push(c),
            _ => {}
        }
    }
    let words: Vec<&str> = out.split_whitespace().take(7).collect();
    words.join(" ").trim_end_matches(':').to_string()
}

/// The first tree of the case's files that BehaviorTree.CPP refuses to create by its ID, with
/// its message.
fn other_trees_refused(main: &Path, presets: &[(&str, &str, &str)]) -> Option<String> {
    // The trees of the file and of the files it includes.
    let mut ids = Vec::new();
    for file in include_closure(main) {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let doc = xml::parse(&text).document;
        let Some(root) = doc.root() else { continue };
        for e in root.elements() {
            if let ("BehaviorTree", Some(id)) = (e.name.as_str(), e.attr("ID")) {
                ids.push(id.to_string());
            }
        }
    }
    if ids.len() < 2 {
        return None;
    }
    for id in ids {
        let mut cmd = Command::new(support::oracle());
        cmd.arg("load")
            .arg(main)
            .args(["--stand-ins", "--tree", &id]);
        for (k, ty, v) in presets {
            cmd.arg("--bb").arg(format!("{k}:{ty}={v}"));
        }
        let out = cmd.output().expect("the oracle runs");
        if out.status.code() == Some(2) {
            return Some(String::from_utf8_lossy(&out.stderr).trim().to_string());
        }
    }
    None
}

/// `main` and the files it includes, directly or not (relative to the including file, as
/// BehaviorTree.CPP resolves them), each once, `main` first: the files BehaviorTree.CPP reads.
pub fn include_closure(main: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    let mut todo = vec![main.to_path_buf()];
    while let Some(file) = todo.pop() {
        let file = std::fs::canonicalize(&file).unwrap_or(file);
        if out.contains(&file) || !file.is_file() {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let doc = xml::parse(&text).document;
        if let Some(root) = doc.root() {
            for e in root.elements() {
                if let ("include", Some(path)) = (e.name.as_str(), e.attr("path")) {
                    todo.push(file.parent().unwrap().join(path));
                }
            }
        }
        out.push(file);
    }
    out
}

/// The KEY of `OPTION KEY: WHY` in `affect run`'s errors.
fn unknown_option(stderr: &str, option: &str, why: &str) -> Option<String> {
    stderr.lines().find_map(|l| {
        let rest = &l[l.find(option)? + option.len()..];
        let key = &rest[..rest.find(why)?];
        Some(key.to_string())
    })
}

pub fn oracle(main: &Path, leaves: &[(String, String)], presets: &[(&str, &str, &str)]) -> Btcpp {
    let run = btcpp::oracle_trace(
        main,
        &btcpp::OracleArgs {
            ticks: TICKS,
            stand_ins: true,
            bb: presets.to_vec(),
            leaves,
            ..Default::default()
        },
    );
    match run.code {
        Some(2) => Btcpp::Refused(run.stderr),
        Some(0 | 3) => Btcpp::Ran(run.trace, run.thrown.map(|t| t.1)),
        // BehaviorTree.CPP 4.8.2 runs `_onHalted` scripts when it destroys a tree, and one that
        // throws there (an entry a subtree's own blackboard lacks) aborts the process.
        _ if run.stderr.contains("terminate called") => Btcpp::Aborted(run.stderr),
        _ => panic!("the oracle failed on {}: {}", main.display(), run.stderr),
    }
}

/// Loads the files an imported program `use`s as `affect run FILE.xml` does: the included XML
/// file, imported, with BehaviorTree.CPP's semantics for its entries.
struct RunLoader(support::ImportedXml);

impl affect_compiler::sema::Loader for RunLoader {
    fn load(&self, path: &str) -> Result<String, affect_compiler::source::SourceError> {
        self.0.load(path)
    }
    fn syntax(&self, path: &str) -> Option<affect_compiler::sema::Syntax> {
        self.0.syntax(path)
    }
    fn behavior_tree_xml(&self) -> bool {
        true
    }
}

/// `affect import` and the check (as `affect run FILE.xml` checks), in process.
pub fn affect_side(main: &Path, text: &str) -> Affect {
    let name = main.display().to_string();
    let imported = groot::import(text, &name, &mut support::IncludeFiles);
    let mut refusals = Vec::new();
    let xml_diag = |d: &affect_compiler::Diagnostic, src: &str| {
        let s = d.primary.span;
        (
            d.code.to_string(),
            d.message.clone(),
            d.help.clone(),
            s.end > s.start
                && (s.end as usize) <= src.len()
                && s != affect_compiler::span::Span::DUMMY,
        )
    };
    for d in imported.diagnostics.iter().filter(|d| d.is_error()) {
        refusals.push(xml_diag(d, text));
    }
    for f in &imported.included {
        for d in f.diagnostics.iter().filter(|d| d.is_error()) {
            refusals.push(xml_diag(d, &f.text));
        }
    }
    // `import -o` imports every included file as well (BehaviorTree.CPP loads their trees);
    // other files beside it (a project's other objectives) are not the program's.
    for path in include_closure(main).into_iter().skip(1) {
        let text = std::fs::read_to_string(&path).unwrap();
        let sub = groot::import(
            &text,
            &path.display().to_string(),
            &mut support::IncludeFiles,
        );
        for d in sub.diagnostics.iter().filter(|d| d.is_error()) {
            refusals.push(xml_diag(d, &text));
        }
    }
    if !refusals.is_empty() {
        return Affect::Refused(refusals);
    }
    // Checked as `affect run` checks it: the imported syntax tree as it is, so the checker's
    // spans are in the XML (an included file's in that file).
    let loader = RunLoader(support::ImportedXml::beside(main));
    let analysis = affect_compiler::sema::analyze(&imported.file, &loader);
    let errors: Vec<_> = analysis
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| xml_diag(d, text))
        .chain(
            analysis
                .imported_diagnostics
                .iter()
                .filter(|(_, _, d)| d.is_error())
                .map(|(_, t, d)| xml_diag(d, t)),
        )
        .collect();
    if errors.is_empty() {
        Affect::Accepted
    } else {
        Affect::Refused(errors)
    }
}

/// `affect run main.xml`, clocked like the oracle and ticked as often: its transitions and
/// the error that stopped it, if one did.
pub fn affect_run(
    main: &Path,
    leaves: &[(String, String)],
    dir: &Path,
    presets: &[(&str, &str, &str)],
) -> (Trace, Option<String>) {
    let bb: Vec<(&str, &str)> = presets.iter().map(|(k, _, v)| (*k, *v)).collect();
    let (trace, failed) =
        btcpp::affect_trace(main, TICKS, leaves, &bb, &dir.join("affect-trace.jsonl"));
    if let Some(panic) = failed.as_deref().filter(|e| e.contains("panicked at")) {
        let what = panic
            .lines()
            .skip_while(|l| !l.contains("panicked at"))
            .nth(1)
            .unwrap_or_default();
        panic!("affect run: {what}");
    }
    (trace, failed)
}

// ------------------------------------------------------------------- the strict round trip

/// One piece of a document for the strict comparison: attribute values as written in the
/// file (entities as spelt), comments trimmed, whitespace between markup free.
#[derive(Debug, PartialEq)]
pub enum Piece {
    Open(String, BTreeMap<String, String>),
    Close(String),
    Comment(String),
    Text(String),
}

pub fn pieces(text: &str) -> Vec<Piece> {
    let doc = xml::parse(text).document;
    let mut out = Vec::new();
    let mut todo: Vec<Option<&XmlNode>> = doc.nodes.iter().rev().map(Some).collect();
    let mut open: Vec<&Element> = Vec::new();
    while let Some(node) = todo.pop() {
        let Some(node) = node else {
            out.push(Piece::Close(open.pop().unwrap().name.clone()));
            continue;
        };
        match node {
            XmlNode::Element(e) => {
                let attrs = e
                    .attrs
                    .iter()
                    .map(|a| {
                        let (s, t) = (a.value_span.start as usize, a.value_span.end as usize);
                        (
                            a.name.clone(),
                            text.get(s..t).unwrap_or(&a.value).to_string(),
                        )
                    })
                    .collect();
                out.push(Piece::Open(e.name.clone(), attrs));
                open.push(e);
                todo.push(None);
                todo.extend(e.children.iter().rev().map(Some));
            }
            XmlNode::Comment(c, _) => out.push(Piece::Comment(c.trim().to_string())),
            XmlNode::Text(t, _) if t.trim().is_empty() => {}
            XmlNode::Text(t, _) => out.push(Piece::Text(t.trim().to_string())),
            XmlNode::Instruction(..) => {}
        }
    }
    out
}

pub fn round_trip(main: &Path, text: &str, version: Version) -> Result<(), (String, String)> {
    let name = main.display().to_string();
    let imported = groot::import(text, &name, &mut support::IncludeFiles);
    let affect = imported.text();
    let parsed = syntax::parse(&affect);
    if has_errors(&parsed.diagnostics) {
        return Err((
            "round trip: the imported text does not parse".into(),
            affect,
        ));
    }
    let loader = support::ImportedXml::beside(main);
    let dialect = match version {
        Version::V4 => Dialect::V4,
        Version::V3 => Dialect::V3,
    };
    let exported = groot::export_program(&parsed.file, dialect, &loader).main;
    if has_errors(&exported.diagnostics) {
        return Err((
            format!(
                "round trip: export fails ({})",
                first_error_code(&exported.diagnostics)
            ),
            format!("{:?}", exported.diagnostics),
        ));
    }
    let (a, b) = (pieces(text), pieces(&exported.xml));
    // Whether the first difference is inside `<TreeNodesModel>`.
    let mut in_models = 0usize;
    for i in 0..a.len().max(b.len()) {
        let (x, y) = (a.get(i), b.get(i));
        if x == y {
            match x {
                Some(Piece::Open(n, _)) if n == "TreeNodesModel" => in_models += 1,
                Some(Piece::Close(n)) if n == "TreeNodesModel" => {
                    in_models = in_models.saturating_sub(1)
                }
                _ => {}
            }
            continue;
        }
        let explicit = |n: &str| matches!(n, "Action" | "Condition" | "Control" | "Decorator");
        let scripts = |k: &str| {
            k == "code"
                || k == "if"
                || k.starts_with("_on")
                || matches!(
                    k,
                    "_skipIf" | "_successIf" | "_failureIf" | "_while" | "_post"
                )
        };
        let class = match (x, y) {
            _ if in_models > 0 => "an entry of <TreeNodesModel> changed".to_string(),
            (Some(Piece::Comment(_)), _) | (_, Some(Piece::Comment(_))) => {
                "comment moved or lost".to_string()
            }
            (Some(Piece::Open(n, p)), Some(Piece::Open(m, q))) if n == m => {
                let key = p
                    .keys()
                    .chain(q.keys())
                    .find(|k| p.get(*k) != q.get(*k))
                    .cloned()
                    .unwrap_or_default();
                let what = match (p.get(&key), q.get(&key)) {
                    (Some(_), None) => "dropped",
                    (None, Some(_)) => "added",
                    _ => "rewritten",
                };
                let key = if scripts(&key) {
                    "a script".to_string()
                } else if key.starts_with('_') {
                    key
                } else if n == "input_port"
                    || n == "output_port"
                    || n == "inout_port"
                    || n == "Metadata"
                {
                    format!("{n} {key}")
                } else {
                    "a port".to_string()
                };
                format!("attribute {what}: {key}")
            }
            (Some(Piece::Open(n, _)), Some(Piece::Open(m, _))) if explicit(n) && !explicit(m) => {
                "the explicit form of a built-in written compact".to_string()
            }
            (Some(Piece::Open(n, _)), Some(Piece::Open(m, _))) => {
                format!("element <{n}> became <{m}>")
            }
            (Some(Piece::Open(n, _)), _) => format!("element <{n}> lost"),
            (_, Some(Piece::Open(m, _))) => format!("element <{m}> added"),
            _ => "structure".to_string(),
        };
        return Err((
            format!("round trip: {class}"),
            format!(
                "first difference: was {x:?}, now {y:?}\n--- exported\n{}",
                exported.xml
            ),
        ));
    }
    Ok(())
}

// ------------------------------------------------------------------ the allow-list, minimising

pub fn write_case(dir: &Path, files: &[(String, String)]) {
    let _ = std::fs::remove_dir_all(dir);
    for (rel, text) in files {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

pub fn version_of(main_text: &str) -> Version {
    if main_text.contains("BTCPP_format=\"4\"") {
        Version::V4
    } else {
        Version::V3
    }
}

/// The leaves' statuses a fixture's first comment gives (`leaves: ID=S1,S2 ...`).
pub fn fixture_leaves(text: &str) -> Vec<(String, String)> {
    text.lines()
        .find_map(|l| l.trim().strip_prefix("leaves:"))
        .map(|rest| {
            rest.split_whitespace()
                .filter_map(|kv| kv.split_once('='))
                .map(|(k, v)| (k.to_string(), v.trim_end_matches("-->").to_string()))
                .collect()
        })
        .unwrap_or_default()
}

/// The smallest file (by removing elements, comments and attributes, one at a time) that
/// still fails with `class`.
pub fn minimise(
    dir: &Path,
    files: &[(String, String)],
    version: Version,
    leaves: &[(String, String)],
    class: &str,
) -> String {
    let mut text = files[0].1.clone();
    let rest: Vec<(String, String)> = files[1..].to_vec();
    let still = |candidate: &str| {
        let mut fs = vec![("main.xml".to_string(), candidate.to_string())];
        fs.extend(rest.iter().cloned());
        write_case(dir, &fs);
        matches!(judge(dir, "main.xml", version, leaves, None).1, Err((c, _)) if c == class)
    };
    let mut progress = true;
    let mut tries = 0;
    while progress && tries < 400 {
        progress = false;
        let doc = xml::parse(&text).document;
        let mut spans = Vec::new();
        let mut stack: Vec<&XmlNode> = doc.nodes.iter().collect();
        while let Some(n) = stack.pop() {
            match n {
                XmlNode::Element(e) => {
                    if e.name != "root" {
                        spans.push((e.span.start as usize, e.span.end as usize));
                    }
                    for a in &e.attrs {
                        // ` name="value"`: from the space before the name to the closing quote.
                        spans.push((
                            a.name_span.start as usize - 1,
                            a.value_span.end as usize + 1,
                        ));
                    }
                    stack.extend(e.children.iter());
                }
                XmlNode::Comment(_, s) => spans.push((s.start as usize, s.end as usize)),
                _ => {}
            }
        }
        // Larger pieces first.
        spans.sort_by_key(|(s, e)| std::cmp::Reverse(e - s));
        for (s, e) in spans {
            tries += 1;
            let candidate = format!("{}{}", &text[..s], &text[e..]);
            if still(&candidate) {
                text = candidate;
                progress = true;
                break;
            }
        }
    }
    text
}
