//! Go to definition, find references and rename across `use`d files and clone bases: a
//! program whose trees and nodes come from a used file, and a world that names a clone's
//! members (which are its base's).

use crate::client::Client;
use crate::{file_uri, find, scratch};
use serde_json::{json, Value};
use std::collections::BTreeMap;

const LIB: &str = "\
/// Turn on the spot.
action Turn(in angle: angle);

tree Spin(in by: angle) {
    Turn(angle: by)
}
";

const MAIN: &str = "\
use \"lib/moves.affect\";

agent Leguin {
    event loud_noise;
    var turns: int = 0;
    main {
        sequence {
            Turn(angle: 90deg)
            Spin(by: 45deg)
            do { turns += 1 }
        }
    }
}

agent Vonda = Leguin;

world Hall {
    grid 2 x 2 cell 1m labels \"AB / CD\";
    spawn Vonda at A turns 3;
    at 5s raise loud_noise on Vonda;
    ticks 10;
}
";

/// The two files on disk and a client with the main one open.
fn session(name: &str) -> (Client, String, String, crate::support::Scratch) {
    let dir = scratch(name);
    std::fs::create_dir_all(dir.join("lib")).unwrap();
    std::fs::write(dir.join("lib/moves.affect"), LIB).unwrap();
    let path = dir.join("main.affect");
    std::fs::write(&path, MAIN).unwrap();
    let mut c = Client::start();
    let uri = file_uri(&path);
    let diags = c.open(&uri, MAIN);
    assert!(
        diags.iter().all(|d| d["severity"] != json!(1)),
        "the program has errors: {diags:?}"
    );
    let lib = file_uri(&dir.join("lib/moves.affect"));
    (c, uri, lib, dir)
}

/// Locations as (uri, line, character), sorted.
fn places(r: &Value) -> Vec<(String, u64, u64)> {
    let mut out: Vec<(String, u64, u64)> = r["result"]
        .as_array()
        .unwrap_or_else(|| panic!("no locations: {r}"))
        .iter()
        .map(|l| {
            (
                l["uri"].as_str().unwrap().to_string(),
                l["range"]["start"]["line"].as_u64().unwrap(),
                l["range"]["start"]["character"].as_u64().unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

fn at(text: &str, needle: &str, nth: usize, extra: usize) -> (u64, u64) {
    let (l, c) = crate::client::position(text, find(text, needle, nth, extra));
    (l as u64, c as u64)
}

fn references(c: &mut Client, uri: &str, offset: usize, declaration: bool) -> Value {
    let (line, character) = crate::client::position(MAIN, offset);
    c.request(
        "textDocument/references",
        json!({
            "textDocument": { "uri": uri },
            "position": { "line": line, "character": character },
            "context": { "includeDeclaration": declaration },
        }),
    )
}

fn rename(c: &mut Client, uri: &str, offset: usize, name: &str) -> Value {
    let (line, character) = crate::client::position(MAIN, offset);
    c.request(
        "textDocument/rename",
        json!({
            "textDocument": { "uri": uri },
            "position": { "line": line, "character": character },
            "newName": name,
        }),
    )
}

/// A rename's edits, applied to the texts they touch.
fn renamed(r: &Value, texts: &[(&str, &str)]) -> BTreeMap<String, String> {
    let changes = r["result"]["changes"]
        .as_object()
        .unwrap_or_else(|| panic!("no edit: {r}"));
    let mut out = BTreeMap::new();
    for (uri, edits) in changes {
        let text = texts
            .iter()
            .find(|(u, _)| u == uri)
            .map(|(_, t)| *t)
            .unwrap_or_else(|| panic!("an edit in {uri}"));
        out.insert(
            uri.clone(),
            crate::apply_edits(text, edits.as_array().unwrap()),
        );
    }
    out
}

#[test]
fn definition_and_references_cross_into_used_files() {
    let (mut c, uri, lib, _dir) = session("nav-use");
    // A node declared in the used file.
    let call = find(MAIN, "Turn(angle", 0, 1);
    let d = c.at("textDocument/definition", &uri, MAIN, call);
    assert_eq!(d["result"]["uri"], json!(lib), "{d}");
    assert_eq!(
        d["result"]["range"]["start"],
        json!({"line": 1, "character": 7})
    );
    // Its references: the declaration and the calls in both files.
    let r = references(&mut c, &uri, call, true);
    let (l, ch) = at(MAIN, "Turn(angle", 0, 0);
    let mut want = vec![
        (uri.clone(), l, ch),
        (lib.clone(), 1, 7),
        (lib.clone(), 4, 4),
    ];
    want.sort();
    assert_eq!(places(&r), want);
    // Without the declaration.
    let r = references(&mut c, &uri, call, false);
    assert_eq!(places(&r).len(), 2, "{r}");
    // A port of a tree of the used file, named in a call of this one.
    let port = find(MAIN, "by: 45deg", 0, 0);
    let d = c.at("textDocument/definition", &uri, MAIN, port);
    assert_eq!(d["result"]["uri"], json!(lib));
    assert_eq!(
        d["result"]["range"]["start"],
        json!({"line": 3, "character": 13})
    );
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn rename_edits_every_file_that_names_it() {
    let (mut c, uri, lib, _dir) = session("nav-rename");
    let call = find(MAIN, "Turn(angle", 0, 1);
    let r = rename(&mut c, &uri, call, "Rotate");
    let out = renamed(&r, &[(uri.as_str(), MAIN), (lib.as_str(), LIB)]);
    assert_eq!(out[&lib], LIB.replace("Turn(", "Rotate("));
    assert_eq!(out[&uri], MAIN.replace("Turn(", "Rotate("));
    // What prepareRename offers: the name under the cursor.
    let (line, character) = crate::client::position(MAIN, call);
    let p = c.request(
        "textDocument/prepareRename",
        json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } }),
    );
    assert_eq!(p["result"]["placeholder"], "Turn", "{p}");
    // Not a name, a keyword: refused with a message.
    for bad in ["two words", "agent", "9lives", ""] {
        let r = rename(&mut c, &uri, call, bad);
        assert!(r["error"]["message"].is_string(), "{bad}: {r}");
    }
    // A built-in node is not the program's to rename.
    let seq = find(MAIN, "sequence", 0, 2);
    let r = rename(&mut c, &uri, seq, "seq");
    assert_eq!(r["result"], Value::Null, "{r}");
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn a_clone_names_its_base_and_shares_its_members() {
    let (mut c, uri, _lib, _dir) = session("nav-clone");
    // `agent Vonda = Leguin;` names Leguin.
    let base = find(MAIN, "= Leguin", 0, 3);
    let d = c.at("textDocument/definition", &uri, MAIN, base);
    let (l, ch) = at(MAIN, "agent Leguin", 0, 6);
    assert_eq!(
        d["result"]["range"]["start"],
        json!({"line": l, "character": ch})
    );
    // The world raises the clone's event: it is Leguin's.
    let raised = find(MAIN, "raise loud_noise", 0, 8);
    let d = c.at("textDocument/definition", &uri, MAIN, raised);
    let (l, ch) = at(MAIN, "event loud_noise", 0, 6);
    assert_eq!(
        d["result"]["range"]["start"],
        json!({"line": l, "character": ch})
    );
    // The clone's variable set at spawn is Leguin's `turns`, with the update's use.
    let decl = find(MAIN, "var turns", 0, 4);
    let r = references(&mut c, &uri, decl, true);
    let want: Vec<(String, u64, u64)> = [
        at(MAIN, "var turns", 0, 4),
        at(MAIN, "turns += 1", 0, 0),
        at(MAIN, "turns 3", 0, 0),
    ]
    .into_iter()
    .map(|(l, ch)| (uri.clone(), l, ch))
    .collect();
    let mut want = want;
    want.sort();
    assert_eq!(places(&r), want);
    // Renaming the base renames the clone's base and nothing else.
    let r = rename(&mut c, &uri, find(MAIN, "agent Leguin", 0, 7), "Ursula");
    let out = renamed(&r, &[(uri.as_str(), MAIN)]);
    assert_eq!(out[&uri], MAIN.replace("Leguin", "Ursula"));
    // Renaming the event renames the world's use too.
    let r = rename(&mut c, &uri, raised, "bang");
    let out = renamed(&r, &[(uri.as_str(), MAIN)]);
    assert_eq!(out[&uri], MAIN.replace("loud_noise", "bang"));
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn the_standard_library_is_not_renamed() {
    let dir = scratch("nav-std");
    let text = "use std::akr;\n\nemotion Calm { valence: positive, tendency: Avoid }\n";
    let path = dir.join("main.affect");
    std::fs::write(&path, text).unwrap();
    let uri = file_uri(&path);
    let mut c = Client::start();
    c.open(&uri, text);
    let at = find(text, "Avoid", 0, 2);
    let d = c.at("textDocument/definition", &uri, text, at);
    // Declared in the standard library: no file to go to.
    assert_eq!(d["result"], Value::Null, "{d}");
    let (line, character) = crate::client::position(text, at);
    let r = c.request(
        "textDocument/rename",
        json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character }, "newName": "Free" }),
    );
    assert!(r["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("standard library")));
    assert_eq!(c.shutdown(), 0);
}
