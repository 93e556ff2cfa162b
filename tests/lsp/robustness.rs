//! Broken input never ends the session: each malformed message (bad framing, not JSON, not a
//! JSON-RPC message, wrong parameter types, absurd lengths, a message cut short) is followed
//! by a valid request, whose answer must come. Documents that `use` devices or folders, and
//! a document of several megabytes, leave the server answering.

use crate::client::Client;
use crate::{file_uri, find, scratch};
use serde_json::{json, Value};

fn framed(body: &str) -> Vec<u8> {
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

/// A request the server answers with `null`: hover in a document that is not open.
fn probe(c: &mut Client) {
    let r = c.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": "file:///nowhere.affect" }, "position": { "line": 0, "character": 0 } }),
    );
    assert_eq!(r["result"], Value::Null, "{r}");
    assert!(r.get("error").is_none(), "{r}");
}

#[test]
fn malformed_messages_are_skipped_and_the_server_goes_on() {
    let mut c = Client::start();
    let skipped: Vec<Vec<u8>> = vec![
        b"garbage that is no header\r\n\r\n".to_vec(),
        b"Content-Length: abc\r\n\r\n{}".to_vec(),
        b"Content-Length: -5\r\n\r\n{}".to_vec(),
        b"Content-Length: 1000000000000\r\n\r\n".to_vec(),
        b"Content-Length: 99999999999999999999999999999\r\n\r\n{}".to_vec(),
        b"Content-Type: application/json\r\n\r\n{}".to_vec(),
        framed("{not json at all"),
        framed("\u{0}\u{1}\u{2}"),
        framed(r#"{"jsonrpc":"2.0","method":5}"#),
        framed("[1, 2, 3]"),
        framed(r#"{"jsonrpc":"2.0","id":null,"method":"shutdown"}"#),
        // Cut short: the header says more than follows before the next message.
        b"Content-Length: 400\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":".to_vec(),
    ];
    for bad in skipped {
        c.send_raw(&bad);
        probe(&mut c);
    }
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn malformed_requests_with_an_id_get_an_error_answer() {
    let mut c = Client::start();
    for (body, id, code) in [
        (
            r#"{"jsonrpc":"2.0","id":"x","method":5}"#,
            json!("x"),
            -32600,
        ),
        (
            r#"{"jsonrpc":"2.0","id":8,"method":"textDocument/hover","params":3}"#,
            json!(8),
            -32600,
        ),
        (
            r#"{"jsonrpc":"2.0","id":9,"method":"textDocument/hover","params":{"textDocument":5,"position":"here"}}"#,
            json!(9),
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","id":12345678901234,"method":"no/suchMethod"}"#,
            json!(12345678901234u64),
            -32601,
        ),
        (
            r#"{"jsonrpc":"2.0","id":10,"method":"initialize","params":{}}"#,
            json!(10),
            -32600,
        ),
    ] {
        c.send_raw(&framed(body));
        let r = c.response(id.clone());
        assert_eq!(r["error"]["code"], json!(code), "{body}: {r}");
        probe(&mut c);
    }
    // Malformed notifications are ignored.
    c.send_raw(&framed(
        r#"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":7}}"#,
    ));
    probe(&mut c);
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn requests_wait_for_initialize_and_end_with_shutdown() {
    let mut c = Client::spawn();
    let r = c.request("textDocument/hover", json!({}));
    assert_eq!(r["error"]["code"], json!(-32002), "{r}");
    let r = c.request("initialize", json!({ "capabilities": {} }));
    assert!(r["result"]["capabilities"].is_object(), "{r}");
    let r = c.request("shutdown", Value::Null);
    assert_eq!(r["result"], Value::Null);
    // After shutdown only `exit` is expected.
    let r = c.request("textDocument/hover", json!({}));
    assert_eq!(r["error"]["code"], json!(-32600), "{r}");
    c.notify("exit", Value::Null);
    c.stdin.take();
    assert_eq!(c.wait(), 0);
}

#[test]
fn used_devices_and_folders_are_not_read() {
    let dir = scratch("robust-use");
    let text = "use \"/dev/zero\";\nuse \".\";\nuse \"/dev/urandom\";\n\nmain tree T { succeed }\n";
    let path = dir.join("main.affect");
    std::fs::write(&path, text).unwrap();
    let uri = file_uri(&path);
    let mut c = Client::start();
    let diags = c.open(&uri, text);
    let refused: Vec<&Value> = diags.iter().filter(|d| d["code"] == "E0206").collect();
    assert_eq!(refused.len(), 3, "{diags:?}");
    for d in refused {
        let m = d["message"].as_str().unwrap();
        assert!(m.contains("not a regular file"), "{m}");
    }
    probe(&mut c);
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn a_large_document_does_not_hold_up_answers() {
    // About 5 MB: trees that call each other's neighbours.
    let mut big = String::new();
    let mut i = 0;
    while big.len() < 5 << 20 {
        big.push_str(&format!(
            "tree T{i}(in speed: num = 1) {{ sequence {{ wait(speed * 1s) check speed > 0 }} }}\n"
        ));
        i += 1;
    }
    big.push_str("main tree Main { T0() }\n");
    let mut c = Client::start();
    let uri = "untitled:big";
    c.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "affect", "version": 1, "text": big } }),
    );
    // Checking it takes a while; meanwhile requests are answered, before its diagnostics.
    probe(&mut c);
    let small = "main tree S { succeed }\n";
    c.open("untitled:small", small);
    let h = c.at(
        "textDocument/hover",
        "untitled:small",
        small,
        find(small, "succeed", 0, 2),
    );
    assert!(h["result"]["contents"]["value"].is_string(), "{h}");
    let early = c
        .pending
        .iter()
        .any(|m| m["params"]["uri"] == uri && m["method"] == "textDocument/publishDiagnostics");
    assert!(
        !early,
        "the large document was checked before the requests were answered"
    );
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn thirty_kilobytes_of_closers_publish_one_diagnostic() {
    // 30,720 stray `}` one after the other, on one line: one mistake, one diagnostic that
    // says how many closers there are.
    let text = format!("tree T() {{\n    succeed\n}}\n{}\n", "}".repeat(30 * 1024));
    let mut c = Client::start();
    let diags = c.open("untitled:closers", &text);
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0]["code"], "E0108");
    let message = diags[0]["message"].as_str().unwrap();
    assert!(
        message.contains("30719 more closing delimiters after it, up to line 4"),
        "{message}"
    );
    probe(&mut c);
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn the_outline_of_50_000_declarations_is_answered() {
    let n = 50_000;
    let text: String = (0..n)
        .map(|i| format!("action A{i}(in x: num);\n"))
        .collect();
    let mut c = Client::start();
    c.open("untitled:decls", &text);
    let r = c.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": "untitled:decls" } }),
    );
    let symbols = r["result"].as_array().expect("an outline");
    assert_eq!(symbols.len(), n);
    assert_eq!(symbols[n - 1]["name"], format!("A{}", n - 1));
    assert_eq!(symbols[n - 1]["children"][0]["name"], "x");
    assert_eq!(c.shutdown(), 0);
}
