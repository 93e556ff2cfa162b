//! Lexing, parsing and the syntax tree.

pub mod ast;
mod blocks;
pub mod damage;
mod delimiters;
pub mod depth;
mod docs;
mod grammar_support;
pub mod keywords;
pub mod lexer;
mod parse_errors;
mod parser;
pub mod shape;
pub mod spans;
mod text;
pub mod token;
pub mod visit;

#[allow(
    clippy::all,
    clippy::pedantic,
    unused_parens,
    unused_imports,
    dead_code
)]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/affect.rs"));
}

pub use lexer::{Comment, CommentKind};
pub use parser::{parse, Parsed};

/// The tree's debug form with every span blanked out: two trees that differ only in
/// positions print the same. Used to prove the formatter and the XML round trips keep
/// the tree.
pub fn debug_without_spans(file: &ast::File) -> String {
    let text = format!("{file:#?}");
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(i) = rest.find("Span {") {
        out.push_str(&rest[..i]);
        out.push_str("Span");
        let tail = &rest[i..];
        let close = tail.find('}').map(|j| j + 1).unwrap_or(tail.len());
        rest = &tail[close..];
    }
    out.push_str(rest);
    out
}
