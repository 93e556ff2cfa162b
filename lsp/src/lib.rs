//! The affect language server (`affect lsp`): diagnostics as `affect check` reports them,
//! hover, go to definition, document symbols, completion and formatting, over the Language
//! Server Protocol on standard input and output.

pub mod completion;
pub mod definition;
pub mod diagnostics;
pub mod documents;
pub mod formatting;
pub mod hover;
pub mod resolve;
pub mod server;
pub mod symbols;

pub use server::{run_stdio, serve};

#[cfg(test)]
mod tests;
