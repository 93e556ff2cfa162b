//! What every request handler shares: its parameters parsed (a malformed one is answered
//! with "invalid params"), and its result as JSON.

pub use crate::message::null;
use crate::message::{self, code, Json};
use serde_json::Value;

/// A request's result as JSON text, or an error code and message.
pub type Reply = Result<Json, (i64, String)>;

pub fn parse<P: serde::de::DeserializeOwned>(params: Value) -> Result<P, (i64, String)> {
    serde_json::from_value(params)
        .map_err(|e| (code::INVALID_PARAMS, format!("invalid parameters: {e}")))
}

/// A result (`null` for none) as JSON text.
pub fn to_json<T: serde::Serialize>(v: Option<T>) -> Json {
    match v {
        Some(v) => message::to_json(&v),
        None => message::null(),
    }
}
