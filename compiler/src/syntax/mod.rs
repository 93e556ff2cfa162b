//! Lexing, parsing and the syntax tree.

pub mod ast;
mod delimiters;
mod docs;
mod grammar_support;
pub mod lexer;
mod parse_errors;
mod parser;
pub mod shape;
pub mod visit;
pub mod token;

#[allow(clippy::all, clippy::pedantic, unused_parens, unused_imports, dead_code)]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/affect.rs"));
}

pub use lexer::{Comment, CommentKind};
pub use parser::{parse, Parsed};
