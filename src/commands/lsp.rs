//! `affect lsp`: the language server, on standard input and output.

use super::{FAILED, OK};

pub fn run() -> u8 {
    match affect_lsp::run_stdio() {
        Ok(affect_lsp::server::Ending::Clean) => OK,
        Ok(affect_lsp::server::Ending::Abrupt) => FAILED,
        Err(e) => {
            eprintln!("{e}");
            FAILED
        }
    }
}
