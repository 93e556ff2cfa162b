//! The affect compiler as a library: text in, syntax trees, diagnostics and artefacts out.
//! It does no IO of its own; the `affect` command reads files and passes their text in.

pub mod btcpp;
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
    check_text(src, loader).analysis
}

/// [`check_source_with`], and the syntax tree it checked: what the Groot exporter works on
/// (`groot::exported_document`), so that a caller that runs and exports parses once.
pub fn check_source_keeping_syntax(
    src: &str,
    loader: &dyn sema::Loader,
) -> (syntax::ast::File, sema::Analysis) {
    let checked = check_text(src, loader);
    (checked.file, checked.analysis)
}

/// A source text parsed once and checked: its syntax tree and comments (for the formatter
/// and an outline) with the analysis.
pub struct Checked {
    pub file: syntax::ast::File,
    pub comments: Vec<syntax::Comment>,
    /// Whether the text parsed without errors.
    pub parses: bool,
    pub analysis: sema::Analysis,
}

/// Parses and checks one source text, as [`check_source_with`] does, keeping the syntax tree.
pub fn check_text(src: &str, loader: &dyn sema::Loader) -> Checked {
    let parsed = syntax::parse(src);
    let mut analysis = sema::analyze(&parsed.file, loader);
    let mut diags = parsed.diagnostics;
    let parses = !diagnostic::has_errors(&diags);
    if !parses {
        // A file with syntax errors does not run; the checker's findings in the declarations
        // the errors did not damage are reported with them, so one run shows every mistake.
        analysis.program = None;
        analysis.diagnostics = syntax::damage::independent(
            src,
            &parsed.file,
            &parsed.damage,
            &diags,
            std::mem::take(&mut analysis.diagnostics),
        );
    }
    diags.append(&mut analysis.diagnostics);
    diags.sort_by_key(|d| (d.primary.span.start, d.primary.span.end));
    analysis.diagnostics = diags;
    Checked {
        file: parsed.file,
        comments: parsed.comments,
        parses,
        analysis,
    }
}

/// Parses one source text and lowers its worlds alone, in order, with the syntax's and the
/// worlds' diagnostics: a world described on its own, its agents declared elsewhere (the
/// runtime's tests build worlds so, reading only what the compiler lowered).
pub fn worlds_of(src: &str) -> (Vec<ir::world::WorldSpec>, Vec<Diagnostic>) {
    let parsed = syntax::parse(src);
    let (worlds, mut diags) = sema::world::lower_worlds(&parsed.file);
    let mut all = parsed.diagnostics;
    all.append(&mut diags);
    (worlds, all)
}

/// Checks the syntax of one source text and returns every diagnostic, in order.
pub fn check_source(src: &str) -> Vec<Diagnostic> {
    syntax::parse(src).diagnostics
}
