//! Turns the parser's errors into diagnostics in the user's words: "expected `;` after this
//! statement", "expected an agent member such as `var` or `main`", with the enclosing block
//! named and pointed at, never the grammar's terminal names.

use super::delimiters::Pair;
use super::token::{Kw, Tok};
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use std::collections::BTreeSet;

/// One expected thing, as a user would say it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Want {
    Punct(String),
    Name,
    Expression,
    Declaration,
    Member,
    Node,
    Modifier,
    Keyword(String),
}

const ITEM_KEYWORDS: &[&str] = &[
    "use",
    "const",
    "enum",
    "action",
    "condition",
    "tree",
    "agent",
    "world",
    "emotion",
];
const MEMBER_KEYWORDS: &[&str] = &[
    "var", "let", "sensor", "hormone", "emotions", "drive", "memory", "main",
];
const MODIFIERS: &[&str] = &[
    "skip_if",
    "success_if",
    "failure_if",
    "while",
    "on_success",
    "on_failure",
    "on_halted",
    "after",
];
const EXPR_STARTS: &[&str] = &["Num", "Str", "\"(\"", "\"-\"", "\"not\"", "\"[\""];

fn unquote(t: &str) -> &str {
    t.strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(t)
}

fn classify(expected: &[String]) -> Vec<Want> {
    let has = |t: &str| expected.iter().any(|e| e == t);
    let has_word = |w: &str| has(&format!("\"{w}\""));
    let mut wants = BTreeSet::new();
    let expression = EXPR_STARTS.iter().all(|t| has(t));
    let declaration = ITEM_KEYWORDS.iter().all(|w| has_word(w));
    let member = MEMBER_KEYWORDS.iter().all(|w| has_word(w));
    let node = has_word("do") && has_word("check") && has_word("switch");
    let modifier = MODIFIERS.iter().all(|w| has_word(w));
    if expression {
        wants.insert(Want::Expression);
    }
    if declaration {
        wants.insert(Want::Declaration);
    }
    if member {
        wants.insert(Want::Member);
    }
    if node {
        wants.insert(Want::Node);
    }
    if modifier {
        wants.insert(Want::Modifier);
    }
    for e in expected {
        let t = unquote(e);
        match t {
            "Ident" | "RawIdent" => {
                if !(expression || node || declaration || member) {
                    wants.insert(Want::Name);
                }
            }
            "Num" | "Str" | "RootIdent" | "InvalidToken" => {
                if !expression {
                    if t == "Str" && !node {
                        wants.insert(Want::Keyword("a string".into()));
                    } else if t == "Num" {
                        wants.insert(Want::Keyword("a number".into()));
                    }
                }
            }
            _ => {
                if let Some(kw) = Kw::from_word(t) {
                    let covered = (expression && matches!(kw, Kw::Not | Kw::True | Kw::False))
                        || (declaration && ITEM_KEYWORDS.contains(&t))
                        || (member && MEMBER_KEYWORDS.contains(&t))
                        || (node && matches!(kw, Kw::Do | Kw::Check | Kw::Switch | Kw::For))
                        || (modifier && MODIFIERS.contains(&t))
                        || !kw.is_hard();
                    if !covered {
                        wants.insert(Want::Keyword(format!("`{t}`")));
                    }
                } else if expression && ["(", "-", "!", "~", "["].contains(&t) {
                } else if t == "#" {
                    // Attributes may start almost anything; naming them is noise.
                } else {
                    wants.insert(Want::Punct(t.to_string()));
                }
            }
        }
    }
    // Soft keywords alone mean "a name" where nothing larger was recognised.
    if wants.is_empty() && expected.iter().any(|e| Kw::from_word(unquote(e)).is_some()) {
        wants.insert(Want::Name);
    }
    wants.into_iter().collect()
}

fn want_text(w: &Want) -> String {
    match w {
        Want::Punct(p) => format!("`{p}`"),
        Want::Name => "a name".into(),
        Want::Expression => "an expression".into(),
        Want::Declaration => {
            "a declaration (`agent`, `tree`, `action`, `const`, `enum`, `use`, ...)".into()
        }
        Want::Member => "an agent member (`var`, `let`, `sensor`, `update`, `main`, ...)".into(),
        Want::Node => "a tree node".into(),
        Want::Modifier => "a modifier (`skip_if`, `on_success`, ...)".into(),
        Want::Keyword(k) => k.clone(),
    }
}

fn join_or(items: &[String]) -> String {
    match items {
        [] => "something else".into(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {}", init.join(", "), last),
    }
}

/// The innermost block around `offset`.
fn enclosing(pairs: &[Pair], offset: usize) -> Option<&Pair> {
    pairs
        .iter()
        .filter(|p| p.open.end as usize <= offset && offset <= p.close.start as usize)
        .min_by_key(|p| p.close.start - p.open.start)
}

pub struct ErrorSite<'t, 'a> {
    /// The unexpected token, or `None` at the end of the file.
    pub token: Option<&'t (usize, Tok<'a>, usize)>,
    /// End of the token before the error (for "missing `;`" placement).
    pub prev_end: Option<usize>,
    pub offset: usize,
    pub expected: &'t [String],
}

pub fn diagnose(src: &str, site: ErrorSite, pairs: &[Pair]) -> Diagnostic {
    let wants = classify(site.expected);
    let texts: Vec<String> = wants.iter().map(want_text).collect();
    let expects_semi = wants.contains(&Want::Punct(";".into()));
    let expects_close = wants
        .iter()
        .find_map(|w| match w {
            Want::Punct(p) if p == "}" || p == ")" || p == "]" => Some(p.clone()),
            _ => None,
        });
    let block = enclosing(pairs, site.offset);

    let (found, span) = match site.token {
        Some((s, t, e)) => (t.describe(), Span::new(*s, *e)),
        None => ("end of file".to_string(), Span::at(site.offset)),
    };

    // A `;` missing at the end of a line: point just after the previous token.
    if expects_semi {
        if let Some(prev) = site.prev_end {
            let gap = &src[prev.min(src.len())..site.offset.min(src.len())];
            if gap.contains('\n') || site.token.is_none() || wants.len() <= 2 {
                let mut d = Diagnostic::error("E0109", "expected `;`", Span::at(prev))
                    .with_label(format!("add `;` here (found {found} next)"));
                if texts.len() > 1 && texts.len() <= 4 {
                    d = d.with_note(format!("the parser expected {}", join_or(&texts)));
                }
                return d;
            }
        }
    }

    let mut d = Diagnostic::error(
        "E0101",
        format!("unexpected {found}"),
        span,
    )
    .with_label(format!("expected {}", join_or(&texts)));
    if let (Some(close), Some(b)) = (expects_close, block) {
        if b.kind == opener_of(&close) {
            d = d.with_secondary(
                b.open,
                format!("expected `{close}` to close {} opened here", b.describe),
            );
        }
    } else if let Some(b) = block {
        d = d.with_secondary(b.open, format!("in {} opened here", b.describe));
    }
    if let Some((_, Tok::Kw(k), _)) = site.token {
        if k.is_hard() && wants.contains(&Want::Name) {
            d = d.with_help(format!(
                "`{}` is a keyword; to use it as a name, quote it: `` `{}` ``",
                k.as_str(),
                k.as_str()
            ));
        }
    }
    if let Some((_, Tok::Eq, _)) = site.token {
        if wants.contains(&Want::Punct("==".into())) || texts.iter().any(|t| t.contains("==")) {
            d = d.with_help("to compare, write `==`");
        }
    }
    d
}

fn opener_of(close: &str) -> char {
    match close {
        "}" => '{',
        ")" => '(',
        _ => '[',
    }
}
