//! End-to-end tests of `affect lsp`: the built binary driven over standard I/O with
//! JSON-RPC messages (Content-Length framing), as an editor drives it. `navigation.rs` tests
//! definition, references and rename across files and clones; `robustness.rs` sends broken
//! messages; `every_error.rs` checks that every diagnostic is published.

mod client;
mod every_error;
mod navigation;
mod robustness;
#[path = "../support/mod.rs"]
mod support;

use client::{position, Client};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The byte offset of `needle` (its `nth` occurrence, 0-based) plus `extra`.
pub(crate) fn find(text: &str, needle: &str, nth: usize, extra: usize) -> usize {
    let mut from = 0;
    let mut at = None;
    for _ in 0..=nth {
        let i = text[from..]
            .find(needle)
            .unwrap_or_else(|| panic!("`{needle}` not found"));
        at = Some(from + i);
        from += i + needle.len();
    }
    at.unwrap() + extra
}

pub(crate) fn file_uri(path: &Path) -> String {
    let mut s = String::from("file://");
    for c in path.to_str().expect("UTF-8 path").bytes() {
        if c.is_ascii_alphanumeric() || b"-._~/".contains(&c) {
            s.push(c as char);
        } else {
            s.push_str(&format!("%{c:02X}"));
        }
    }
    s
}

/// A new folder of the test's own (`support::scratch`).
pub(crate) fn scratch(name: &str) -> support::Scratch {
    support::scratch("lsp", name)
}

pub(crate) fn example(name: &str) -> (PathBuf, String) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("example");
    (path, text)
}

pub(crate) fn hover_markdown(r: &Value) -> String {
    assert_eq!(r["result"]["contents"]["kind"], "markdown", "{r}");
    r["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_else(|| panic!("no hover: {r}"))
        .to_string()
}

pub(crate) fn labels(r: &Value) -> Vec<String> {
    let items = match &r["result"] {
        Value::Array(a) => a.clone(),
        v => v["items"].as_array().cloned().unwrap_or_default(),
    };
    items
        .iter()
        .map(|i| i["label"].as_str().unwrap().to_string())
        .collect()
}

const BROKEN: &str = "\
action Move(in d: num);
action Move(in e: num);

tree Main {
    sequence {
        Mvoe(d: 1)
        check undefined_thing > 2
    }
}
";

const FIXED: &str = "\
action Move(in d: num);

tree Main {
    sequence {
        Move(d: 1)
        check 3 > 2
    }
}
";

#[test]
fn diagnostics_match_affect_check_and_clear_when_fixed() {
    let dir = scratch("diagnostics");
    let path = dir.join("broken.affect");
    std::fs::write(&path, BROKEN).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_affect"))
        .args(["check", "--format", "json"])
        .arg(&path)
        .output()
        .expect("affect check runs");
    let cli: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let cli = cli["diagnostics"].as_array().cloned().unwrap();
    assert!(cli.len() >= 3, "{cli:?}");

    let mut c = Client::start();
    let uri = file_uri(&path);
    let lsp = c.open(&uri, BROKEN);
    assert_eq!(lsp.len(), cli.len(), "{lsp:?}\n{cli:?}");
    for (l, k) in lsp.iter().zip(&cli) {
        assert_eq!(l["code"], k["code"]);
        assert_eq!(l["source"], "affect");
        let message = l["message"].as_str().unwrap();
        assert_eq!(message.lines().next(), k["message"].as_str(), "{l}");
        // 1-based line and column in the CLI, 0-based in LSP (ASCII text).
        assert_eq!(
            l["range"]["start"]["line"],
            json!(k["line"].as_u64().unwrap() - 1)
        );
        assert_eq!(
            l["range"]["start"]["character"],
            json!(k["column"].as_u64().unwrap() - 1)
        );
        let severity = if k["severity"] == "error" { 1 } else { 2 };
        assert_eq!(l["severity"], json!(severity));
        if let Some(help) = k["help"].as_str() {
            assert!(message.contains(&format!("help: {help}")), "{message}");
        }
    }
    // The duplicate declaration points at the first one.
    let dup = lsp
        .iter()
        .find(|d| d["code"] == "E0202")
        .expect("a duplicate");
    let related = &dup["relatedInformation"][0];
    assert_eq!(related["location"]["uri"], json!(uri));
    assert_eq!(related["location"]["range"]["start"]["line"], json!(0));

    c.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": uri, "version": 2 },
            "contentChanges": [{ "text": FIXED }],
        }),
    );
    assert_eq!(c.diagnostics(&uri), Vec::<Value>::new());
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn used_files_load_beside_the_document() {
    let dir = scratch("use");
    std::fs::create_dir_all(dir.join("lib")).unwrap();
    std::fs::write(
        dir.join("lib/moves.affect"),
        "/// Turn on the spot.\naction Turn(in angle: angle);\n",
    )
    .unwrap();
    let main = "use \"lib/moves.affect\";\n\nmain tree Spin {\n    Turn(angle: 90deg)\n}\n";
    let path = dir.join("main.affect");
    std::fs::write(&path, main).unwrap();
    let mut c = Client::start();
    let uri = file_uri(&path);
    assert_eq!(c.open(&uri, main), Vec::<Value>::new());
    let call = find(main, "Turn(", 0, 1);
    let h = hover_markdown(&c.at("textDocument/hover", &uri, main, call));
    assert!(h.contains("action Turn(in angle: angle)"), "{h}");
    assert!(h.contains("Turn on the spot."), "{h}");
    let d = c.at("textDocument/definition", &uri, main, call);
    assert_eq!(
        d["result"]["uri"],
        json!(file_uri(&dir.join("lib/moves.affect")))
    );
    assert_eq!(
        d["result"]["range"]["start"],
        json!({"line": 1, "character": 7})
    );

    // From the `use` to the file.
    let d = c.at(
        "textDocument/definition",
        &uri,
        main,
        find(main, "lib/", 0, 2),
    );
    assert_eq!(
        d["result"]["uri"],
        json!(file_uri(&dir.join("lib/moves.affect")))
    );

    // Editing the used file (unsaved) checks the document that uses it again.
    let lib_uri = file_uri(&dir.join("lib/moves.affect"));
    c.open(&lib_uri, "action Rotate(in angle: angle);\n");
    let again = c.diagnostics(&uri);
    assert!(
        again.iter().any(|d| d["severity"] == json!(1)),
        "`Turn` is gone: {again:?}"
    );
    // Closed, the file on disk counts again.
    c.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": lib_uri } }),
    );
    assert_eq!(c.diagnostics(&lib_uri), Vec::<Value>::new());
    assert_eq!(c.diagnostics(&uri), Vec::<Value>::new());

    // A buffer that is not a file cannot import.
    let untitled = c.open("untitled:Untitled-1", main);
    assert!(
        untitled.iter().any(|d| d["code"] == "E0206"),
        "{untitled:?}"
    );
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn hover_and_definition_in_an_example() {
    let (path, text) = example("navigator.affect");
    let uri = file_uri(&path);
    let mut c = Client::start();
    let diags = c.open(&uri, &text);
    assert!(
        diags.iter().all(|d| d["severity"] != json!(1)),
        "the example has errors: {diags:?}"
    );

    // A tree call.
    let call = find(&text, "Step(direction:", 0, 2);
    let h = hover_markdown(&c.at("textDocument/hover", &uri, &text, call));
    assert!(h.contains("tree Step(in direction: Direction)"), "{h}");
    let d = c.at("textDocument/definition", &uri, &text, call);
    let decl = find(&text, "tree Step", 0, 5);
    assert_eq!(d["result"]["uri"], json!(uri));
    let (line, col) = position(&text, decl);
    assert_eq!(
        d["result"]["range"]["start"],
        json!({ "line": line, "character": col })
    );

    // A variable, in an agent's `update`.
    let var = find(&text, "score = ", 0, 1);
    let h = hover_markdown(&c.at("textDocument/hover", &uri, &text, var));
    assert!(h.contains("var score: num in 0..100"), "{h}");
    assert!(h.contains("emotional score"), "doc comment missing: {h}");
    let d = c.at("textDocument/definition", &uri, &text, var);
    let (line, col) = position(&text, find(&text, "var score", 0, 4));
    assert_eq!(
        d["result"]["range"]["start"],
        json!({ "line": line, "character": col })
    );

    // A built-in node.
    let retry = find(&text, "retry(3)", 0, 2);
    let h = hover_markdown(&c.at("textDocument/hover", &uri, &text, retry));
    assert!(h.contains("RetryUntilSuccessful"), "{h}");

    // A memory operation and a device driver.
    let recent = find(&text, "feelings.recent", 0, 11);
    let h = hover_markdown(&c.at("textDocument/hover", &uri, &text, recent));
    assert!(h.contains("memory.recent()"), "{h}");
    let driver = find(&text, "ads1115(", 0, 1);
    let h = hover_markdown(&c.at("textDocument/hover", &uri, &text, driver));
    assert!(h.contains("device driver"), "{h}");

    // Nothing to show on a keyword.
    let r = c.at(
        "textDocument/hover",
        &uri,
        &text,
        find(&text, "agent Navigator", 0, 1),
    );
    assert_eq!(r["result"], Value::Null);
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn emotions_show_their_components() {
    let (path, text) = example("waiter.affect");
    let uri = file_uri(&path);
    let mut c = Client::start();
    c.open(&uri, &text);
    // The initial state of the emotion machine is the emotion `Happy`.
    let state = find(&text, "WaiterEmotion = Happy", 0, 17);
    let h = hover_markdown(&c.at("textDocument/hover", &uri, &text, state));
    assert!(h.contains("WaiterEmotion::Happy"), "{h}");
    assert!(h.contains("| valence | positive |"), "{h}");
    assert!(h.contains("causal_chain"), "{h}");
    let tendency = find(&text, "tendency: FreeActivate", 0, 12);
    let h = hover_markdown(&c.at("textDocument/hover", &uri, &text, tendency));
    assert!(h.contains("tendency FreeActivate"), "{h}");
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn document_symbols_of_an_example() {
    let (path, text) = example("navigator.affect");
    let uri = file_uri(&path);
    let mut c = Client::start();
    c.open(&uri, &text);
    let r = c.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": uri } }),
    );
    let syms = r["result"].as_array().cloned().expect("symbols");
    let names: Vec<&str> = syms.iter().filter_map(|s| s["name"].as_str()).collect();
    for want in ["Direction", "Drive", "Step", "Navigator", "FloorGrid"] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    let agent = syms.iter().find(|s| s["name"] == "Navigator").unwrap();
    assert_eq!(agent["kind"], json!(5), "an agent is a class");
    let members: Vec<&str> = agent["children"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    for want in ["score", "drive", "feelings", "main"] {
        assert!(members.contains(&want), "{want} missing from {members:?}");
    }
    // `main` holds the tree, nested; labelled nodes show their labels.
    let main = agent["children"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "main")
        .unwrap();
    fn all_names(s: &Value, out: &mut Vec<String>) {
        out.push(s["name"].as_str().unwrap_or("").to_string());
        for c in s["children"].as_array().into_iter().flatten() {
            all_names(c, out);
        }
    }
    let mut nested = Vec::new();
    all_names(main, &mut nested);
    assert!(
        nested.iter().any(|n| n == "reactive_sequence"),
        "{nested:?}"
    );
    assert!(
        nested.iter().any(|n| n.contains(": ")),
        "no label: {nested:?}"
    );
    assert!(nested.iter().any(|n| n == "Step"), "{nested:?}");
    // Every selection range lies inside its range.
    fn check(s: &Value) {
        let (r, sel) = (&s["range"], &s["selectionRange"]);
        let key = |p: &Value| {
            (
                p["line"].as_u64().unwrap(),
                p["character"].as_u64().unwrap(),
            )
        };
        assert!(key(&r["start"]) <= key(&sel["start"]), "{s}");
        assert!(key(&sel["end"]) <= key(&r["end"]), "{s}");
        for c in s["children"].as_array().into_iter().flatten() {
            check(c);
        }
    }
    syms.iter().for_each(check);
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn completion_in_tree_bodies_and_calls() {
    let text = "\
enum Dir { Up, Down }
/// One cell.
action Move(in direction: Dir, in speed: num = 1);
tree Walk(in d: Dir) {
    sequence {
        Mo
        Move()
    }
}
";
    let uri = "untitled:completion";
    let mut c = Client::start();
    c.open(uri, text);
    // In a tree body: built-in nodes, leaves and trees.
    let body = find(text, "Mo\n", 0, 2);
    let l = labels(&c.at("textDocument/completion", uri, text, body));
    for want in ["Move", "sequence", "retry", "fallback", "check"] {
        assert!(l.contains(&want.to_string()), "{want} missing: {l:?}");
    }
    assert!(
        !l.contains(&"Walk".to_string()),
        "a tree cannot call itself: {l:?}"
    );
    // Inside a call's parentheses: its ports, with their types.
    let parens = find(text, "Move()", 0, 5);
    let r = c.at("textDocument/completion", uri, text, parens);
    let items = r["result"].as_array().cloned().unwrap();
    let port = items
        .iter()
        .find(|i| i["label"] == "direction")
        .unwrap_or_else(|| panic!("no port: {r}"));
    assert_eq!(port["detail"], "in direction: Dir");
    assert_eq!(port["insertText"], "direction: ");
    assert!(labels(&r).contains(&"speed".to_string()));
    assert!(
        labels(&r).contains(&"d".to_string()),
        "variables in scope too"
    );
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn completion_in_an_example() {
    let (path, text) = example("navigator.affect");
    let uri = file_uri(&path);
    let mut c = Client::start();
    c.open(&uri, &text);
    // At the start of the agent's `main` sequence: nodes.
    let at = find(&text, "sequence {", 1, 10);
    let l = labels(&c.at("textDocument/completion", &uri, &text, at));
    for want in ["Step", "TracePaths", "sequence", "tendencies"] {
        assert!(l.contains(&want.to_string()), "{want} missing: {l:?}");
    }
    // After `feelings.`: memory operations.
    let dot = find(&text, "feelings.recent", 0, 9);
    let l = labels(&c.at("textDocument/completion", &uri, &text, dot));
    assert!(l.contains(&"remember".to_string()) && l.contains(&"best_path".to_string()));
    // After `Source::`: the variants.
    let path_at = find(&text, "Source::Map", 0, 8);
    let l = labels(&c.at("textDocument/completion", &uri, &text, path_at));
    assert_eq!(l, ["Map", "Memory"]);
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn formatting_matches_affect_fmt() {
    let text = "tree  T {sequence{succeed fail}}\n";
    let dir = scratch("fmt");
    let path = dir.join("t.affect");
    std::fs::write(&path, text).unwrap();
    let expected = affect_fmt(&path);

    let mut c = Client::start();
    let uri = file_uri(&path);
    c.open(&uri, text);
    let r = formatting(&mut c, &uri);
    let edits = r["result"].as_array().cloned().expect("edits");
    let formatted = apply_edits(text, &edits);
    assert_eq!(formatted, expected);

    // Syntax errors: no edit.
    let broken = "untitled:broken";
    c.open(broken, "tree T { sequence {\n");
    let r = formatting(&mut c, broken);
    assert_eq!(r["result"], Value::Null, "{r}");
    assert_eq!(c.shutdown(), 0);
}

/// What `affect fmt --stdout` writes for a file.
fn affect_fmt(path: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_affect"))
        .args(["fmt", "--stdout"])
        .arg(path)
        .output()
        .expect("affect fmt runs");
    String::from_utf8(out.stdout).unwrap()
}

/// The answer to a formatting request for an open document.
fn formatting(c: &mut Client, uri: &str) -> Value {
    c.request(
        "textDocument/formatting",
        json!({ "textDocument": { "uri": uri }, "options": { "tabSize": 4, "insertSpaces": true } }),
    )
}

/// Format-and-save as Vim and Neovim do it: the buffer's text has a final newline only when
/// the file had one (`'eol'`); the edits are applied; writing adds the final newline
/// (`'fixeol'`). With or without a final newline in the document, the file written must be
/// exactly `affect fmt`'s text: no blank last line.
#[test]
fn formatting_then_saving_in_vim_gives_affect_fmt_text() {
    let dir = scratch("fmt-eol");
    let mut c = Client::start();
    for (name, text) in [
        ("no_eol", "tree  T {sequence{succeed fail}}"),
        ("eol", "tree  T {sequence{succeed fail}}\n"),
    ] {
        let path = dir.join(format!("{name}.affect"));
        std::fs::write(&path, text).unwrap();
        let expected = affect_fmt(&path);
        assert!(
            expected.ends_with("}\n") && !expected.ends_with("\n\n"),
            "{expected:?}"
        );

        let uri = file_uri(&path);
        c.open(&uri, text);
        let r = formatting(&mut c, &uri);
        let edits = r["result"].as_array().cloned().expect("edits");
        let buffer = apply_edits(text, &edits);
        assert_eq!(
            buffer.ends_with('\n'),
            text.ends_with('\n'),
            "{name}: the edit keeps the document's final-newline state: {buffer:?}"
        );
        // Vim's lines are the buffer's text split at newlines, less the final newline when
        // the file had one; writing ends every line, the last one included, with a newline.
        let written = if text.ends_with('\n') {
            buffer
        } else {
            format!("{buffer}\n")
        };
        assert_eq!(written, expected, "{name}");
    }
    assert_eq!(c.shutdown(), 0);
}

pub(crate) fn apply_edits(text: &str, edits: &[Value]) -> String {
    let offset = |p: &Value| {
        let line = p["line"].as_u64().unwrap() as usize;
        let character = p["character"].as_u64().unwrap() as usize;
        let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
        let line_text = &text[start..];
        let mut units = 0;
        for (i, ch) in line_text.char_indices() {
            if units >= character || ch == '\n' {
                return start + i;
            }
            units += ch.len_utf16();
        }
        text.len()
    };
    let mut out = text.to_string();
    let mut edits = edits.to_vec();
    edits.sort_by_key(|e| std::cmp::Reverse(offset(&e["range"]["start"])));
    for e in edits {
        let (s, t) = (offset(&e["range"]["start"]), offset(&e["range"]["end"]));
        out.replace_range(s..t, e["newText"].as_str().unwrap());
    }
    out
}

#[test]
fn positions_count_utf16_units() {
    // The emoji is two UTF-16 units and four bytes.
    let text = "const A = \"\u{1F916}\"; const B = A;\n";
    let mut c = Client::start();
    let uri = "untitled:utf16";
    c.open(uri, text);
    let use_of_a = find(text, "= A;", 0, 2);
    let (line, col) = position(text, use_of_a);
    // 26 UTF-16 units, 28 bytes.
    assert_eq!((col, use_of_a), (26, 28));
    let r = c.request(
        "textDocument/definition",
        json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": col } }),
    );
    assert_eq!(
        r["result"]["range"],
        json!({ "start": { "line": 0, "character": 6 }, "end": { "line": 0, "character": 7 } })
    );
    let r = c.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri }, "position": { "line": 0, "character": 26 } }),
    );
    assert_eq!(
        r["result"]["range"],
        json!({ "start": { "line": 0, "character": 26 }, "end": { "line": 0, "character": 27 } })
    );
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn bad_requests_never_kill_the_server() {
    let mut c = Client::start();
    let r = c.request("textDocument/unknownThing", json!({}));
    assert_eq!(r["error"]["code"], json!(-32601), "{r}");
    let r = c.request("textDocument/hover", json!({ "nonsense": true }));
    assert_eq!(r["error"]["code"], json!(-32602), "{r}");
    // A document that was never opened: no result, no error.
    let r = c.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": "file:///nowhere.affect" }, "position": { "line": 0, "character": 0 } }),
    );
    assert_eq!(r["result"], Value::Null, "{r}");
    // Positions far outside the text, and junk text.
    let junk = "agent { main { ((( `x \"\u{e9}\n tree tree tree => :: . @ ";
    c.open("untitled:junk", junk);
    for (line, character) in [(0, 0), (0, 9999), (1, 3), (99, 99)] {
        for m in [
            "textDocument/hover",
            "textDocument/definition",
            "textDocument/completion",
        ] {
            let r = c.request(
                m,
                json!({ "textDocument": { "uri": "untitled:junk" }, "position": { "line": line, "character": character } }),
            );
            assert!(r.get("error").is_none(), "{m}: {r}");
        }
    }
    let r = c.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": "untitled:junk" } }),
    );
    assert!(r.get("error").is_none(), "{r}");
    // Notifications the server does not know are ignored.
    c.notify(
        "workspace/didChangeConfiguration",
        json!({ "settings": {} }),
    );
    c.notify("$/cancelRequest", json!({ "id": 1 }));
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn exit_without_shutdown_fails() {
    let mut c = Client::start();
    c.notify("exit", Value::Null);
    c.stdin.take();
    assert_eq!(c.wait(), 1);
}

#[test]
fn help_lists_the_lsp_command() {
    // The VS Code extension starts the server only when `affect --help` lists `lsp`.
    let out = Command::new(env!("CARGO_BIN_EXE_affect"))
        .arg("--help")
        .output()
        .expect("affect runs");
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.lines().any(|l| l.trim_start().starts_with("lsp ")),
        "{help}"
    );
}
