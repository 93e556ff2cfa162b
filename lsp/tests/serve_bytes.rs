//! The in-memory session the fuzz targets call: every malformed message is skipped or
//! answered with an error, and the next request is answered.

use affect_lsp::serve_bytes;
use serde_json::Value;

fn framed(body: &str) -> Vec<u8> {
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

/// The messages written back, in order.
fn replies(out: &[u8]) -> Vec<Value> {
    let mut framer = affect_lsp::transport::Framer::new();
    let mut frames = Vec::new();
    framer.push(out, &mut frames);
    frames
        .into_iter()
        .filter_map(|f| match f {
            affect_lsp::transport::Frame::Body(b) => serde_json::from_slice(&b).ok(),
            _ => None,
        })
        .collect()
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}"#;
const PROBE: &str = r#"{"jsonrpc":"2.0","id":77,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///n.affect"},"position":{"line":0,"character":0}}}"#;

#[test]
fn each_malformed_message_is_followed_by_an_answer() {
    let bad: Vec<Vec<u8>> = vec![
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
        b"Content-Length: 400\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":".to_vec(),
        vec![0xff, 0xfe, b'\r', b'\n', b'\r', b'\n'],
    ];
    for b in bad {
        let mut input = framed(INIT);
        input.extend(&b);
        input.extend(framed(PROBE));
        let out = replies(&serve_bytes(&input));
        let ids: Vec<&Value> = out.iter().map(|m| &m["id"]).collect();
        assert_eq!(
            ids,
            [&Value::from(1), &Value::from(77)],
            "after {:?}",
            String::from_utf8_lossy(&b)
        );
        assert_eq!(out[1]["result"], Value::Null);
    }
}

#[test]
fn malformed_requests_with_ids_get_errors() {
    let mut input = framed(INIT);
    for body in [
        r#"{"jsonrpc":"2.0","id":"x","method":5}"#,
        r#"{"jsonrpc":"2.0","id":8,"method":"textDocument/hover","params":3}"#,
        r#"{"jsonrpc":"2.0","id":9,"method":"textDocument/hover","params":{"textDocument":5}}"#,
        r#"{"jsonrpc":"2.0","id":10,"method":"no/such"}"#,
    ] {
        input.extend(framed(body));
    }
    input.extend(framed(PROBE));
    let out = replies(&serve_bytes(&input));
    let codes: Vec<(Value, Value)> = out
        .iter()
        .skip(1)
        .map(|m| (m["id"].clone(), m["error"]["code"].clone()))
        .collect();
    assert_eq!(
        codes,
        [
            ("x".into(), (-32600).into()),
            (8.into(), (-32600).into()),
            (9.into(), (-32602).into()),
            (10.into(), (-32601).into()),
            (77.into(), Value::Null),
        ]
    );
}

#[test]
fn exit_ends_the_session() {
    let mut input = framed(INIT);
    input.extend(framed(r#"{"jsonrpc":"2.0","id":2,"method":"shutdown"}"#));
    input.extend(framed(r#"{"jsonrpc":"2.0","method":"exit"}"#));
    input.extend(framed(PROBE));
    let out = replies(&serve_bytes(&input));
    assert_eq!(out.len(), 2, "{out:?}");
}
