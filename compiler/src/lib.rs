//! The affect compiler as a library: text in, syntax trees, diagnostics and artefacts out.
//! It does no IO of its own; the `affect` command reads files and passes their text in.

pub mod builtins;
pub mod codes;
pub mod diagnostic;
pub mod fmt;
pub mod graph;
pub mod groot;
pub mod ir;
pub mod render;
pub mod sema;
pub mod source;
pub mod span;
pub mod suggest;
pub mod syntax;

pub use diagnostic::{Diagnostic, Label, Severity};
pub use span::Span;

/// Checks one source text (syntax, names and types) and returns every diagnostic, errors and
/// warnings, in order. Files it `use`s come through `loader`.
pub fn check_source_with(src: &str, loader: &dyn sema::Loader) -> sema::Analysis {
    let parsed = syntax::parse(src);
    let mut analysis = sema::analyze(&parsed.file, loader);
    let mut diags = parsed.diagnostics;
    if diagnostic::has_errors(&diags) {
        // Names and types of a file that does not parse would only repeat its syntax errors.
        analysis.program = None;
        analysis.diagnostics.retain(|d| !d.is_error());
    }
    diags.append(&mut analysis.diagnostics);
    diags.sort_by_key(|d| (d.primary.span.start, d.primary.span.end));
    analysis.diagnostics = diags;
    analysis
}

/// Checks the syntax of one source text and returns every diagnostic, in order.
pub fn check_source(src: &str) -> Vec<Diagnostic> {
    syntax::parse(src).diagnostics
}
