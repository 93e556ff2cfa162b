//! JSON-RPC 2.0 messages: a body read by the transport becomes a request, a notification, a
//! response, or an invalid message (with the id to answer, when it has one). Ids are kept as
//! the client wrote them (any number or string), so every request can be answered.

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};

/// JSON-RPC's error codes the server answers with.
pub mod code {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
    /// LSP: a request before `initialize`.
    pub const SERVER_NOT_INITIALIZED: i64 = -32002;
    /// LSP: the document changed, the answer would be stale; or the server is shutting down.
    pub const REQUEST_FAILED: i64 = -32803;
}

/// A decoded message from the client.
#[derive(Debug, PartialEq)]
pub enum Incoming {
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
    },
    /// A response to a request of the server's (the server sends none; ignored).
    Response,
    /// Not a message: answered with an error when it has an id, else logged.
    Invalid {
        id: Option<Value>,
        code: i64,
        why: String,
    },
}

/// Decodes one body.
pub fn decode(body: &[u8]) -> Incoming {
    let value: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => {
            return Incoming::Invalid {
                id: None,
                code: code::PARSE_ERROR,
                why: format!("not JSON: {e}"),
            }
        }
    };
    classify(value)
}

/// What a JSON value is as a message.
pub fn classify(value: Value) -> Incoming {
    let Value::Object(mut obj) = value else {
        return invalid(None, "a message is a JSON object");
    };
    let id = match obj.remove("id") {
        None => None,
        Some(v @ (Value::Number(_) | Value::String(_))) => Some(v),
        // `"id": null` is how JSON-RPC answers what it cannot identify; as a request id it
        // cannot be answered.
        Some(Value::Null) => return invalid(None, "a request id may not be null"),
        Some(_) => return invalid(None, "a request id is a number or a string"),
    };
    let method = match obj.remove("method") {
        None => None,
        Some(Value::String(m)) => Some(m),
        Some(_) => return invalid(id, "a method is a string"),
    };
    let params = obj.remove("params").unwrap_or(Value::Null);
    if !matches!(params, Value::Null | Value::Object(_) | Value::Array(_)) {
        return invalid(id, "params are an object or an array");
    }
    match (id, method) {
        (Some(id), Some(method)) => Incoming::Request { id, method, params },
        (None, Some(method)) => Incoming::Notification { method, params },
        (Some(_), None) if obj.contains_key("result") || obj.contains_key("error") => {
            Incoming::Response
        }
        (id, None) => invalid(id, "a message without a method"),
    }
}

fn invalid(id: Option<Value>, why: &str) -> Incoming {
    Incoming::Invalid {
        id,
        code: code::INVALID_REQUEST,
        why: why.to_string(),
    }
}

/// A message to send, as its JSON text. Results are written straight from their types: as
/// `Value` trees they took about 10 KB per outline entry, twice over.
pub type Json = Box<RawValue>;

/// `value` as JSON text (`null` if it cannot be written, which the types sent never cause).
pub fn to_json<T: Serialize + ?Sized>(value: &T) -> Json {
    serde_json::value::to_raw_value(value).unwrap_or_else(|_| null())
}

/// `null` as JSON text.
pub fn null() -> Json {
    RawValue::from_string("null".to_string()).expect("`null` is JSON")
}

/// A successful response.
pub fn ok<T: Serialize + ?Sized>(id: &Value, result: &T) -> Json {
    #[derive(Serialize)]
    struct Response<'a, T: ?Sized> {
        jsonrpc: &'static str,
        id: &'a Value,
        result: &'a T,
    }
    to_json(&Response {
        jsonrpc: "2.0",
        id,
        result,
    })
}

/// An error response.
pub fn error(id: &Value, code: i64, message: impl Into<String>) -> Json {
    to_json(
        &json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message.into() } }),
    )
}

/// A notification from the server.
pub fn notification<T: Serialize>(method: &str, params: &T) -> Json {
    #[derive(Serialize)]
    struct Notification<'a, T> {
        jsonrpc: &'static str,
        method: &'a str,
        params: &'a T,
    }
    to_json(&Notification {
        jsonrpc: "2.0",
        method,
        params,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_classified_and_bad_ones_keep_their_id() {
        let r = decode(br#"{"jsonrpc":"2.0","id":7,"method":"shutdown"}"#);
        assert!(matches!(r, Incoming::Request { ref method, .. } if method == "shutdown"));
        let r = decode(br#"{"jsonrpc":"2.0","method":"exit"}"#);
        assert!(matches!(r, Incoming::Notification { .. }));
        assert_eq!(
            decode(b"{not json"),
            Incoming::Invalid {
                id: None,
                code: code::PARSE_ERROR,
                why: decode_why(b"{not json")
            }
        );
        let r = decode(br#"{"id":"x","method":5}"#);
        assert!(matches!(
            r,
            Incoming::Invalid {
                id: Some(Value::String(_)),
                code: -32600,
                ..
            }
        ));
        let r = decode(br#"{"id":{"a":1},"method":"m"}"#);
        assert!(matches!(
            r,
            Incoming::Invalid {
                id: None,
                code: -32600,
                ..
            }
        ));
        let r = decode(br#"{"id":1,"method":"m","params":3}"#);
        assert!(matches!(r, Incoming::Invalid { id: Some(_), .. }));
        let r = decode(br#"[1,2]"#);
        assert!(matches!(r, Incoming::Invalid { id: None, .. }));
        // Ids beyond 32 bits are answered as written.
        let r = decode(br#"{"id":12345678901234,"method":"m"}"#);
        assert!(matches!(r, Incoming::Request { id, .. } if id == json!(12345678901234u64)));
    }

    fn decode_why(b: &[u8]) -> String {
        match decode(b) {
            Incoming::Invalid { why, .. } => why,
            _ => String::new(),
        }
    }
}
