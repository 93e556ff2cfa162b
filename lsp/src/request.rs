//! What every request handler shares: its parameters parsed (a malformed one is answered
//! with "invalid params"), and its result as JSON.

use crate::message::code;
use serde_json::Value;

/// A request's result, or an error code and message.
pub type Reply = Result<Value, (i64, String)>;

pub fn parse<P: serde::de::DeserializeOwned>(params: Value) -> Result<P, (i64, String)> {
    serde_json::from_value(params)
        .map_err(|e| (code::INVALID_PARAMS, format!("invalid parameters: {e}")))
}

pub fn to_value<T: serde::Serialize>(v: Option<T>) -> Value {
    v.and_then(|v| serde_json::to_value(v).ok())
        .unwrap_or(Value::Null)
}
