//! Turns the parser's errors into diagnostics in the user's words: "expected `;` after this
//! statement", "expected an agent member such as `var` or `main`", with the enclosing block
//! named and pointed at, never the grammar's terminal names.

use super::ast::*;
use super::blocks::Blocks;
use super::delimiters::Pair;
use super::keywords::{ITEM_STARTS, MEMBER_STARTS, MODIFIERS};
use super::text::Text;
use super::token::{Kw, Tok};
use super::visit::{self, Visitor};
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::suggest::closest;
use std::collections::{BTreeSet, HashSet};

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
    Type,
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
/// Hard keywords that may still name a port or an argument (`Precondition(if: .., else: ..)`).
const HARD_ARG_NAMES: &[&str] = &[
    "if", "else", "in", "out", "inout", "while", "for", "do", "check", "switch", "when", "after",
    "use", "const", "enum", "var", "let",
];
const EXPR_STARTS: &[&str] = &["Num", "Str", "\"(\"", "\"-\"", "\"not\"", "\"[\""];

fn unquote(t: &str) -> &str {
    t.strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(t)
}

fn classify(expected: &[String]) -> Vec<Want> {
    // A set: each question below would otherwise scan the hundred-odd terminals of a place.
    let set: HashSet<&str> = expected.iter().map(String::as_str).collect();
    let has = |t: &str| set.contains(t);
    let has_word = |w: &str| has(&format!("\"{w}\""));
    let mut wants = BTreeSet::new();
    // Soft keywords are names wherever a name may stand, so a name is expected exactly when
    // a plain identifier is.
    let name = has("Ident");
    let expression = EXPR_STARTS.iter().all(|t| has(t));
    let declaration = !name && ITEM_KEYWORDS.iter().all(|w| has_word(w));
    let member = !name && MEMBER_KEYWORDS.iter().all(|w| has_word(w));
    let node = name && !expression && has_word("do") && has_word("check") && has_word("switch");
    let modifier = MODIFIERS.iter().all(|w| has_word(w));
    let arg_names = name && has_word("if") && has_word("else") && has_word("inout");
    let ty = name && !expression && !node && has("\"[\"") && has("Str");
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
    if ty {
        wants.insert(Want::Type);
    }
    for e in expected {
        let t = unquote(e);
        match t {
            "Ident" | "RawIdent" => {
                if !(expression || node || ty) {
                    wants.insert(Want::Name);
                }
            }
            "Num" | "Str" | "RootIdent" | "InvalidToken" => {
                if !expression && !ty {
                    if t == "Str" && !node {
                        wants.insert(Want::Keyword("a string".into()));
                    } else if t == "Num" {
                        wants.insert(Want::Keyword("a number".into()));
                    }
                }
            }
            _ => {
                if let Some(kw) = Kw::from_word(t) {
                    let covered = if kw.is_hard() {
                        (expression && matches!(kw, Kw::Not | Kw::True | Kw::False))
                            || (declaration && ITEM_STARTS.contains(&t))
                            || (member && MEMBER_STARTS.contains(&t))
                            || (node && matches!(kw, Kw::Do | Kw::Check | Kw::Switch | Kw::For))
                            || (modifier && MODIFIERS.contains(&t))
                            || (arg_names && HARD_ARG_NAMES.contains(&t))
                    } else {
                        name || (declaration && ITEM_STARTS.contains(&t))
                            || (member && MEMBER_STARTS.contains(&t))
                    };
                    if !covered {
                        wants.insert(Want::Keyword(format!("`{t}`")));
                    }
                } else if (expression && ["(", "-", "!", "~", "["].contains(&t)) || (ty && t == "[")
                {
                } else if t == "#" {
                    // Attributes may start almost anything; naming them is noise.
                } else {
                    wants.insert(Want::Punct(t.to_string()));
                }
            }
        }
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
        Want::Type => "a type".into(),
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

pub struct ErrorSite<'t, 'a> {
    /// The unexpected token, or `None` at the end of the file.
    pub token: Option<&'t (u32, Tok<'a>, u32)>,
    /// End of the token before the error (for "missing `;`" placement).
    pub prev_end: Option<usize>,
    pub offset: usize,
    pub expected: &'t [String],
}

/// The identifier that ends at byte `end`, if any.
fn word_before(src: &str, end: usize) -> Option<&str> {
    let head = src.get(..end.min(src.len())).unwrap_or("");
    let start = head
        .char_indices()
        .rev()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let w = &head[start..];
    (!w.is_empty() && !w.starts_with(|c: char| c.is_ascii_digit())).then_some(w)
}

/// The rest of the line from byte `from`, trimmed; at most `REST_OF_LINE` bytes of it (a help
/// quotes it, and a file may be one long line with an error every few bytes).
fn rest_of_line<'a>(text: &Text<'a>, from: usize) -> &'a str {
    let src = text.src();
    let from = from.min(src.len());
    let mut end = text.line_end(from).min(from + REST_OF_LINE);
    while !src.is_char_boundary(end) {
        end -= 1;
    }
    src[from..end].trim()
}

const REST_OF_LINE: usize = 1_000;

/// Diagnoses one parse error, or `None` when it only follows from an earlier one.
pub fn diagnose(text: &Text, site: ErrorSite, blocks: &Blocks) -> Option<Diagnostic> {
    let src = text.src();
    let wants = classify(site.expected);
    let texts: Vec<String> = wants.iter().map(want_text).collect();
    let expects_semi = wants.contains(&Want::Punct(";".into()));
    let expects_close = wants.iter().find_map(|w| match w {
        Want::Punct(p) if p == "}" || p == ")" || p == "]" => Some(p.clone()),
        _ => None,
    });
    let block = blocks.innermost(site.offset);
    let at_top_level = wants.contains(&Want::Declaration)
        || (wants == [Want::Keyword("`tree`".into())]
            && word_before(src, site.prev_end.unwrap_or(0)) == Some("main"));
    // The parser believes it is between declarations while the token is inside a block:
    // an earlier error made it take a `}` for the end of the declaration. Whatever it says
    // now is a consequence of that error.
    if at_top_level && block.is_some() && site.token.is_some() {
        return None;
    }

    let (found, span) = match site.token {
        Some((s, t, e)) => (t.describe(), Span::raw(*s, *e)),
        None => ("end of file".to_string(), Span::at(site.offset)),
    };
    let same_line = site.prev_end.is_some_and(|p| {
        !src.get(p.min(src.len())..site.offset.min(src.len()))
            .unwrap_or("")
            .contains('\n')
    });

    // A `;` missing at the end of a line: point just after the previous token. Not after a
    // `;`, `{` or `}`: there the `;` the parser would take is an empty statement.
    if expects_semi {
        if let Some(prev) = site.prev_end {
            let after_separator = src
                .get(..prev.min(src.len()))
                .is_some_and(|s| s.ends_with([';', '{', '}']));
            let only_ends = wants
                .iter()
                .all(|w| matches!(w, Want::Punct(p) if p == ";" || p == "}"));
            if !after_separator && (!same_line || site.token.is_none() || only_ends) {
                let mut d = Diagnostic::error("E0109", "expected `;`", Span::at(prev))
                    .with_label(format!("add `;` here (found {found} next)"));
                if texts.len() > 1 && texts.len() <= 4 {
                    d = d.with_note(format!("the parser expected {}", join_or(&texts)));
                }
                return Some(d);
            }
        }
    }

    let mut d = Diagnostic::error("E0101", format!("unexpected {found}"), span)
        .with_label(format!("expected {}", join_or(&texts)));
    // A token at the start of a line, indented no deeper than the line that opened the
    // block around it, looks like it was meant to come after that block: show the block.
    if let (Some(close), Some(b), Some((s, _, _))) = (&expects_close, block, site.token) {
        let dedented = text.first_on_line(*s as usize)
            && text.indent_of(*s as usize) <= text.indent_of(b.open.start as usize);
        if b.kind == opener_of(close) && dedented {
            d = d.with_secondary(
                b.open,
                format!("expected `{close}` to close {} opened here", b.describe),
            );
        }
    }
    if let Some(help) = help_for(text, &site, &wants, block, at_top_level, same_line) {
        d = d.with_help(help);
    }
    Some(d)
}

/// The keyword `word` is most likely a misspelling of: one edit away, or the same letters
/// in another order (`agnet`).
fn likely_typo(word: &str, keywords: &[&'static str]) -> Option<&'static str> {
    let best = closest(word, keywords.iter().copied())?;
    let sorted = |s: &str| {
        let mut c: Vec<char> = s.to_lowercase().chars().collect();
        c.sort_unstable();
        c
    };
    (crate::suggest::edit_distance(&word.to_lowercase(), best) <= 1 || sorted(word) == sorted(best))
        .then_some(best)
}

/// A hint for the common ways of getting here.
fn help_for(
    text: &Text,
    site: &ErrorSite,
    wants: &[Want],
    block: Option<&Pair>,
    at_top_level: bool,
    same_line: bool,
) -> Option<String> {
    let src = text.src();
    let tok = site.token.map(|(_, t, _)| t);
    let prev_word = site.prev_end.and_then(|p| word_before(src, p));
    let only_brace = wants == [Want::Punct("{".into())];
    match tok {
        Some(Tok::Kw(k)) if k.is_hard() && wants.contains(&Want::Name) => {
            return Some(format!(
                "`{}` is a keyword; to use it as a name, quote it: `` `{}` ``",
                k.as_str(),
                k.as_str()
            ))
        }
        Some(Tok::Kw(Kw::Else)) => {
            return Some("`else` must come right after the `}` of an `if` block".into())
        }
        Some(Tok::Eq) if block.is_some_and(|b| b.kind == '(') && wants.contains(&Want::Punct(",".into())) => {
            return Some("arguments are named with `:`, as in `power: 3`".into())
        }
        // After a complete condition: a `=` meant as `==`.
        Some(Tok::Eq)
            if !wants.contains(&Want::Punct("=".into()))
                && wants.iter().any(|w| {
                    matches!(w, Want::Node | Want::Modifier)
                        || matches!(w, Want::Punct(p) if [";", "{", ")", "]"].contains(&p.as_str()))
                }) =>
        {
            return Some(
                "to compare, write `==`; assignments go in `do { }`, `update { }` and `on` blocks"
                    .into(),
            )
        }
        Some(Tok::Semi) if wants.contains(&Want::Node) => {
            return Some(
                "tree nodes follow one another without `;`; only statements inside `do { }` end with `;`"
                    .into(),
            )
        }
        Some(Tok::Lt) if wants.contains(&Want::Node) => {
            return Some(
                "this looks like BehaviorTree.CPP XML; in affect a node is written `Name(port: value)`, with its children in `{ }`"
                    .into(),
            )
        }
        Some(Tok::Arrow) if wants.contains(&Want::Punct("=>".into())) => {
            return Some("write `=>` here; `->` is for transitions of an emotion machine".into())
        }
        Some(Tok::Num(n))
            if wants.contains(&Want::Node)
                && rest_of_line(text, site.offset)
                    .get(n.text.len()..)
                    .is_some_and(|r| r.trim_start().starts_with(':')) =>
        {
            return Some(format!(
                "a node label is a name or a string, as in `\"step {}\": GoTo(...)`",
                n.text
            ))
        }
        Some(Tok::Num(_) | Tok::Str(_)) if wants.contains(&Want::Node) && same_line => {
            if let Some(w) = prev_word.filter(|w| Kw::from_word(w).is_none()) {
                let arg = rest_of_line(text, site.offset)
                    .split(|c: char| c.is_whitespace() || c == '{')
                    .next()
                    .unwrap_or("");
                return Some(format!(
                    "to pass arguments to `{w}`, put them in parentheses: `{w}({arg})`"
                ));
            }
        }
        _ => {}
    }
    let opens_body = !matches!(
        tok,
        None | Some(Tok::Semi | Tok::Comma | Tok::RParen | Tok::RBracket | Tok::RBrace)
    );
    if only_brace && same_line && opens_body {
        let rest = rest_of_line(text, site.offset);
        if !rest.is_empty() && !rest.contains(['{', '}']) {
            return Some(format!("put the body in braces: `{{ {rest} }}`"));
        }
    }
    if ["`in`", "`out`", "`inout`"]
        .iter()
        .all(|k| wants.contains(&Want::Keyword((*k).into())))
    {
        return Some(
            "every port starts with its direction: `in`, `out` or `inout`, as in `in target: Pose`"
                .into(),
        );
    }
    if at_top_level {
        if prev_word == Some("main") && wants == [Want::Keyword("`tree`".into())] {
            return Some(
                "at the top of a file write `main tree Name { ... }`; a `main { ... }` block belongs inside an `agent`"
                    .into(),
            );
        }
        match tok {
            Some(Tok::Kw(k @ (Kw::Var | Kw::Let))) => {
                return Some(format!(
                    "`{}` declares a variable of an agent (or, at the top of a tree body, of a tree); move it there, or use `const` for a value the whole file shares",
                    k.as_str()
                ))
            }
            Some(Tok::Ident(w)) => {
                return Some(match likely_typo(w, ITEM_STARTS) {
                    Some(k) => format!("did you mean `{k}`?"),
                    None => "statements and assignments go in `update`, `on` and `do` blocks; the top of a file holds declarations".into(),
                })
            }
            _ => {}
        }
    }
    if wants.contains(&Want::Member) {
        if let Some(Tok::Ident(w)) = tok {
            return Some(match likely_typo(w, MEMBER_STARTS) {
                Some(k) => format!("did you mean `{k}`?"),
                None => "agent members start with a keyword such as `var` (state), `let` (derived values), `sensor`, `event`, `update`, `on`, `emotions`, `drive`, `memory` or `main`".into(),
            });
        }
    }
    if wants.contains(&Want::Punct("=>".into())) && wants.len() <= 3 {
        if let Some(t) = tok {
            if !matches!(
                t,
                Tok::Ident(_) | Tok::RawIdent(_) | Tok::Kw(_) | Tok::Arrow
            ) {
                return Some("patterns are literals, names such as `Explore`, or `_`".into());
            }
        }
    }
    None
}

/// The spans of the error nodes recovery left in the tree.
pub fn error_spans(file: &File) -> Vec<Span> {
    let mut spans = ErrorSpans(Vec::new());
    visit::walk_file(&mut spans, file);
    spans.0
}

struct ErrorSpans(Vec<Span>);

impl Visitor for ErrorSpans {
    fn visit_item(&mut self, item: &Item) {
        if matches!(item.kind, ItemKind::Error) {
            self.0.push(item.span);
        }
        visit::walk_item(self, item);
    }
    fn visit_member(&mut self, member: &Member) {
        match &member.kind {
            MemberKind::Error => self.0.push(member.span),
            MemberKind::Drive(d) => {
                for e in &d.entries {
                    if let DriveEntry::Error(s) = e {
                        self.0.push(*s);
                    }
                }
            }
            _ => {}
        }
        visit::walk_member(self, member);
    }
    fn visit_node(&mut self, node: &Node) {
        if matches!(node.kind, NodeKind::Error) {
            self.0.push(node.span);
        }
        visit::walk_node(self, node);
    }
    fn visit_stmt(&mut self, stmt: &Stmt) {
        if matches!(stmt.kind, StmtKind::Error) {
            self.0.push(stmt.span);
        }
        visit::walk_stmt(self, stmt);
    }
    fn visit_settings(&mut self, owner: &str, block: &SettingBlock) {
        for e in &block.entries {
            if let SettingEntry::Error(s) = e {
                self.0.push(*s);
            }
        }
        visit::walk_settings(self, owner, block);
    }
}

/// Drops parse errors that are only consequences of an earlier error, so each mistake is
/// reported once:
/// - an error on a token a lexical error already covers, or later on a line that already has
///   an error (the parser is still recovering there);
/// - an error after a recovery that swallowed a `{` but not its `}`: the parser then takes
///   that `}` for the end of the enclosing block, and is out of step until that block ends.
///
/// `parse` is in source order. One pass over it, each question a binary search or a heap
/// operation: a file with thousands of errors compared each with every earlier one (n²),
/// and counted the lines before each of them (n² more in the file's size).
pub fn filter_cascades(
    text: &Text,
    lost: &[Span],
    tokens: &[(u32, Tok, u32)],
    blocks: &Blocks,
    earlier: &[Diagnostic],
    parse: Vec<Diagnostic>,
) -> Vec<Diagnostic> {
    // (after, until, own error token): parse errors in `after..=until` are out of step.
    let mut out_of_step: Vec<(u32, u32, u32)> = Vec::new();
    for s in lost {
        for (_, until) in blocks.swallowed(*s) {
            // One level short from the block's `}` on, the parser stays out of step until
            // the declaration around it ends.
            let next = tokens.partition_point(|t| t.0 < s.end);
            let next = tokens.get(next).map_or(u32::MAX, |t| t.0);
            out_of_step.push((s.end, until, next));
        }
    }
    out_of_step.sort_unstable();
    let covered = Covered::new(earlier);
    let mut kept: Vec<Diagnostic> = Vec::new();
    // The kept errors so far: the start of the last, and the furthest end.
    let mut last_kept: Option<u32> = None;
    let mut kept_end = 0u32;
    let mut stepping = Stepping::default();
    let mut next_step = 0;
    for d in parse {
        let start = d.primary.span.start;
        let end = d.primary.span.end.max(start + 1);
        let by_kept = last_kept.is_some_and(|k| text.line(k as usize) == text.line(start as usize))
            || kept_end > start;
        while next_step < out_of_step.len() && out_of_step[next_step].0 < start {
            let (_, until, own) = out_of_step[next_step];
            stepping.active.push((until, own));
            next_step += 1;
        }
        if !by_kept && !covered.covers(text, start, end) && !stepping.covers(start) {
            last_kept = Some(start);
            kept_end = kept_end.max(d.primary.span.end.max(start + 1));
            kept.push(d);
        }
    }
    kept
}

/// The diagnostics before the parser's (lexical and delimiter errors), by start: whether one
/// covers a parse error, on its line before it or overlapping it.
struct Covered {
    /// (start, end) of each, the end at least one past the start, by start.
    spans: Vec<(u32, u32)>,
    /// Per position: the furthest end of the spans up to it.
    ends: Vec<u32>,
}

impl Covered {
    fn new(earlier: &[Diagnostic]) -> Covered {
        let mut spans: Vec<(u32, u32)> = earlier
            .iter()
            .map(|e| {
                let s = e.primary.span;
                (s.start, s.end.max(s.start + 1))
            })
            .collect();
        spans.sort_unstable();
        let ends = spans
            .iter()
            .scan(0u32, |m, &(_, e)| {
                *m = (*m).max(e);
                Some(*m)
            })
            .collect();
        Covered { spans, ends }
    }

    /// Whether an earlier diagnostic starts on the line of `start` at or before it, or
    /// overlaps `start..end`.
    fn covers(&self, text: &Text, start: u32, end: u32) -> bool {
        let upto = self.spans.partition_point(|&(s, _)| s <= start);
        if let Some(k) = upto.checked_sub(1) {
            let (s, _) = self.spans[k];
            if text.line(s as usize) == text.line(start as usize) || self.ends[k] > start {
                return true;
            }
        }
        // One starting inside `start..end`.
        self.spans.get(upto).is_some_and(|&(s, _)| s < end)
    }
}

/// The out-of-step ranges begun before the current parse error, as (until, own error token)
/// with the furthest end on top.
#[derive(Default)]
struct Stepping {
    active: std::collections::BinaryHeap<(u32, u32)>,
}

impl Stepping {
    /// Whether a range begun before `start` still runs at `start`, other than one whose own
    /// error token is at `start`. Starts come in order, so a range that ended is dropped.
    fn covers(&mut self, start: u32) -> bool {
        let mut own_here = Vec::new();
        let mut found = false;
        while let Some(&(until, own)) = self.active.peek() {
            if until < start {
                self.active.pop();
            } else if own == start {
                own_here.push(self.active.pop().expect("peeked"));
            } else {
                found = true;
                break;
            }
        }
        self.active.extend(own_here);
        found
    }
}

fn opener_of(close: &str) -> char {
    match close {
        "}" => '{',
        ")" => '(',
        _ => '[',
    }
}
