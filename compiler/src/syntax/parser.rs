//! `parse`: text → syntax tree + comments + diagnostics. Lexes, balances delimiters, runs the
//! LALRPOP parser with error recovery, attaches doc comments and checks shapes the grammar
//! leaves open (settings, assignment targets, duplicate modifiers).

use super::ast::{File, Item, ItemKind};
use super::blocks::Blocks;
use super::delimiters;
use super::depth;
use super::docs;
use super::generated::FileParser;
use super::lexer::{self, Comment};
use super::parse_errors::{self, ErrorSite};
use super::shape;
use super::text::Text;
use super::token::Tok;
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use lalrpop_util::{ErrorRecovery, ParseError};

pub struct Parsed {
    pub file: File,
    /// Every comment of the file in order, doc comments included (for the formatter).
    pub comments: Vec<Comment>,
    pub diagnostics: Vec<Diagnostic>,
    /// Where the text is not what the syntax tree holds: the places of the lexer's, the
    /// delimiter pass's and the parser's errors, and the error nodes recovery left. The
    /// checker's findings there would only repeat them (`damage::independent`).
    pub damage: Vec<Span>,
}

pub fn parse(src: &str) -> Parsed {
    let lexed = lexer::lex(src);
    let mut diagnostics = lexed.diagnostics;
    let text = Text::new(src);
    let balanced = delimiters::balance(&text, lexed.tokens);
    // A block comment that runs to the end of the file swallows the closers after it; the
    // unclosed blocks at the end of the file are that comment's doing, already reported.
    let comment_runs_to_end = diagnostics.iter().any(|d| d.code == "E0104");
    diagnostics.extend(balanced.diagnostics.into_iter().filter(|d| {
        !(comment_runs_to_end
            && d.code == "E0102"
            && d.primary.span.start as usize == src.trim_end().len())
    }));
    let tokens = balanced.tokens;
    if let Some(d) = depth::check(&tokens, depth::MAX_DEPTH) {
        // Too deep to build a tree every phase can walk: the file is refused as a whole.
        diagnostics.push(d);
        diagnostics.sort_by_key(|d| (d.primary.span.start, d.primary.span.end));
        return Parsed {
            file: error_file(src),
            comments: lexed.comments,
            diagnostics,
            damage: vec![Span::new(0, src.len())],
        };
    }

    let mut recovered: Vec<ErrorRecovery<u32, Tok, ()>> = Vec::new();
    let result = FileParser::new().parse(&mut recovered, tokens.iter().cloned());

    let blocks = Blocks::new(&balanced.pairs);
    let mut synthetic = balanced.synthetic;
    synthetic.sort_unstable();
    let mut parse_diags = Vec::new();
    let mut report = |err: &ParseError<u32, Tok, ()>| {
        if let Some(d) = diagnose(&text, &tokens, &blocks, &synthetic, err) {
            parse_diags.push(d);
        }
    };
    for r in &recovered {
        report(&r.error);
    }
    let mut file = match result {
        Ok(file) => file,
        Err(err) => {
            report(&err);
            error_file(src)
        }
    };
    // One diagnostic per place: cascades at the same token say nothing new.
    parse_diags.sort_by_key(|d: &Diagnostic| d.primary.span.start);
    parse_diags.dedup_by_key(|d| d.primary.span.start);
    let mut damage = parse_errors::error_spans(&file);
    let parse_diags =
        parse_errors::filter_cascades(&text, &damage, &tokens, &blocks, &diagnostics, parse_diags);
    diagnostics.extend(parse_diags);
    for d in diagnostics.iter().filter(|d| d.is_error()) {
        damage.push(d.primary.span);
        damage.extend(d.secondary.iter().map(|l| l.span));
    }

    diagnostics.extend(docs::attach(&mut file, &lexed.comments, &tokens));
    diagnostics.extend(shape::check(&file));
    diagnostics.sort_by_key(|d| (d.primary.span.start, d.primary.span.end));

    Parsed {
        file,
        comments: lexed.comments,
        diagnostics,
        damage,
    }
}

/// A file that could not be parsed at all: one error item over the whole text.
fn error_file(src: &str) -> File {
    File {
        items: vec![Item {
            doc: None,
            attrs: vec![],
            kind: ItemKind::Error,
            span: Span::new(0, src.len()),
        }],
        span: Span::new(0, src.len()),
    }
}

fn diagnose(
    text: &Text,
    tokens: &[(u32, Tok, u32)],
    blocks: &Blocks,
    synthetic: &[u32],
    err: &ParseError<u32, Tok, ()>,
) -> Option<Diagnostic> {
    let (offset, expected, token) = match err {
        ParseError::UnrecognizedToken { token, expected } => (token.0, expected, Some(token)),
        ParseError::UnrecognizedEof { location, expected } => (*location, expected, None),
        ParseError::InvalidToken { location } => {
            return Some(
                Diagnostic::error("E0105", "invalid token", Span::raw(*location, *location))
                    .with_label("not part of the language"),
            )
        }
        ParseError::ExtraToken { token } => {
            return Some(
                Diagnostic::error(
                    "E0101",
                    format!("unexpected {}", token.1.describe()),
                    Span::raw(token.0, token.2),
                )
                .with_label("expected the end of the file"),
            )
        }
        ParseError::User { .. } => return None,
    };
    // The lexer or the delimiter pass has already explained these.
    if matches!(token, Some((_, Tok::Error, _))) {
        return None;
    }
    if let Some((s, _, e)) = token {
        if s == e && synthetic.binary_search(s).is_ok() {
            return None;
        }
    }
    let idx = tokens.partition_point(|(s, _, _)| *s < offset);
    let prev_end = idx.checked_sub(1).map(|i| tokens[i].2 as usize);
    // The token in the list (the parser's copy of it lives only as long as the error).
    let tok_ref = token.and_then(|t| {
        let at = tokens.partition_point(|x| x.0 < t.0);
        tokens[at..]
            .iter()
            .take_while(|x| x.0 == t.0)
            .find(|x| x.2 == t.2)
    });
    parse_errors::diagnose(
        text,
        ErrorSite {
            token: tok_ref,
            prev_end,
            offset: offset as usize,
            expected,
        },
        blocks,
    )
}
