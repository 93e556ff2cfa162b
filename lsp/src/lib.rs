//! The affect language server (`affect lsp`): diagnostics as `affect check` reports them,
//! hover, go to definition, find references, rename, document symbols, completion and
//! formatting, over the Language Server Protocol on standard input and output.
//!
//! The compiler knows the program: each feature is a query over the semantic index the
//! checker returns with its analysis (`affect_compiler::sema::index`), one feature per file.
//! The server holds no name resolution of its own.

mod analysis;
pub mod completion;
pub mod definition;
pub mod diagnostics;
pub mod documents;
pub mod formatting;
pub mod hover;
mod log;
pub mod message;
pub mod references;
pub mod rename;
mod request;
pub mod server;
pub mod symbols;
pub mod transport;

pub use server::{run_stdio, serve_bytes, Server};

#[cfg(test)]
mod tests;
