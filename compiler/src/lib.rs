//! The affect compiler as a library: text in, syntax trees, diagnostics and artefacts out.
//! It does no IO of its own; the `affect` command reads files and passes their text in.

pub mod builtins;
pub mod codes;
pub mod diagnostic;
pub mod fmt;
pub mod ir;
pub mod render;
pub mod span;
pub mod suggest;
pub mod syntax;

pub use diagnostic::{Diagnostic, Label, Severity};
pub use span::Span;

/// Checks one source text and returns every diagnostic, errors and warnings, in order.
pub fn check_source(src: &str) -> Vec<Diagnostic> {
    syntax::parse(src).diagnostics
}
