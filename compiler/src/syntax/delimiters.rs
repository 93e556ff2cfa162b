//! Delimiter balancing before parsing. It pairs every `{ ( [` with its closer, reports
//! unclosed and stray delimiters with the place they were opened, and repairs the token
//! stream (synthetic closers, dropped strays) so the parser always sees balanced blocks and
//! can recover inside them. The pairs also tell parse errors which block they are in.

use super::text::Text;
use super::token::{Kw, Tok};
use crate::diagnostic::{Diagnostic, MAX_PER_FILE};
use crate::span::Span;

#[derive(Clone, Debug)]
pub struct Pair {
    pub open: Span,
    /// Where the block ends (the closer, or the synthetic closer's position).
    pub close: Span,
    pub kind: char,
    /// How messages name the block: "the `sequence` block".
    pub describe: String,
}

pub struct Balanced<'a> {
    pub tokens: Vec<(u32, Tok<'a>, u32)>,
    pub pairs: Vec<Pair>,
    pub diagnostics: Vec<Diagnostic>,
    /// Byte offsets of synthetic tokens: parse errors there are already explained.
    pub synthetic: Vec<u32>,
}

fn closer_of(open: &Tok) -> Option<Tok<'static>> {
    match open {
        Tok::LBrace => Some(Tok::RBrace),
        Tok::LParen => Some(Tok::RParen),
        Tok::LBracket => Some(Tok::RBracket),
        _ => None,
    }
}

fn is_closer(t: &Tok) -> bool {
    matches!(t, Tok::RBrace | Tok::RParen | Tok::RBracket)
}

fn char_of(t: &Tok) -> char {
    t.punct_str().chars().next().unwrap_or('?')
}

/// The name a token contributes to a block description, if any.
fn word<'a>(t: &Tok<'a>) -> Option<&'a str> {
    match t {
        Tok::Ident(s) | Tok::RawIdent(s) => Some(s),
        Tok::Kw(k) => Some(k.as_str()),
        _ => None,
    }
}

/// Keywords that head a block-carrying construct and are followed by its name
/// (`agent Navigator {`, `switch drive {`).
fn head_with_name(k: Kw) -> bool {
    !matches!(
        k,
        Kw::Do
            | Kw::Check
            | Kw::If
            | Kw::Else
            | Kw::While
            | Kw::SkipIf
            | Kw::SuccessIf
            | Kw::FailureIf
            | Kw::OnSuccess
            | Kw::OnFailure
            | Kw::OnHalted
            | Kw::After
            | Kw::Update
            | Kw::Personality
            | Kw::Behaviors
            | Kw::Main
    )
}

/// Describes the block opened by `tokens[i]` from the tokens before it.
fn describe(
    text: &Text,
    tokens: &[(u32, Tok, u32)],
    i: usize,
    matching_open: &[Option<u32>],
) -> String {
    let open = &tokens[i].1;
    let prev = i.checked_sub(1).map(|j| &tokens[j]);
    match open {
        Tok::LParen => {
            return match prev.and_then(|p| word(&p.1)) {
                Some(w) => {
                    let declares = i >= 2
                        && matches!(
                            tokens[i - 2].1,
                            Tok::Kw(
                                Kw::Action | Kw::Condition | Kw::Control | Kw::Decorator | Kw::Tree
                            )
                        );
                    if declares {
                        format!("the port list of `{w}`")
                    } else {
                        format!("the argument list of `{w}`")
                    }
                }
                None => "these parentheses".to_string(),
            }
        }
        Tok::LBracket => {
            return match prev {
                Some((_, Tok::Hash, _)) => "this attribute".to_string(),
                Some((
                    _,
                    Tok::Ident(_)
                    | Tok::RawIdent(_)
                    | Tok::RootIdent(_)
                    | Tok::RParen
                    | Tok::RBracket,
                    e,
                )) if *e == tokens[i].0 => "this index".to_string(),
                _ => "this list".to_string(),
            }
        }
        _ => {}
    }
    // `{`: the head of the construct is on the line of the `{` (or on the line before when
    // the `{` starts its line), after the last `;`, `{` or `}`. Argument lists, lists and
    // attributes are skipped as a whole.
    let anchor = match prev {
        Some(p) if text.first_on_line(tokens[i].0 as usize) => p.0,
        _ => tokens[i].0,
    };
    let from = text.line_start(anchor as usize) as u32;
    let mut range: Vec<usize> = Vec::new(); // token indices, right to left
    let mut j = i;
    while j > 0 {
        j -= 1;
        if tokens[j].0 < from {
            break;
        }
        match &tokens[j].1 {
            Tok::Semi | Tok::LBrace | Tok::RBrace | Tok::Hash => break,
            Tok::RParen | Tok::RBracket => match matching_open[j] {
                Some(o) if tokens[o as usize].0 >= from => {
                    range.push(j);
                    j = o as usize;
                }
                _ => break,
            },
            _ => range.push(j),
        }
    }
    range.reverse();
    let name_after = |h: usize| match tokens.get(h + 1).map(|t| &t.1) {
        Some(t @ (Tok::Ident(_) | Tok::RawIdent(_) | Tok::Kw(_))) if !matches!(t, Tok::Kw(k) if k.is_hard()) => {
            word(t)
        }
        _ => None,
    };
    let head = |h: usize| -> String {
        let Tok::Kw(k) = tokens[h].1 else {
            unreachable!("heads are keywords")
        };
        // `main tree Name {`
        if k == Kw::Main && matches!(tokens.get(h + 1).map(|t| &t.1), Some(Tok::Kw(Kw::Tree))) {
            return match name_after(h + 1) {
                Some(n) => format!("the `tree {n}` block"),
                None => "the `tree` block".to_string(),
            };
        }
        match name_after(h) {
            Some(n) if head_with_name(k) => format!("the `{} {n}` block", k.as_str()),
            _ => format!("the `{}` block", k.as_str()),
        }
    };
    // The nearest hard keyword heads the block (`on_success {`, `switch x {`, `else {`)...
    for &j in range.iter().rev() {
        if let Tok::Kw(k) = tokens[j].1 {
            if k.is_hard()
                && is_head_keyword(k)
                && !matches!(k, Kw::When | Kw::Use | Kw::Const | Kw::Var | Kw::Let)
            {
                return head(j);
            }
        }
    }
    // ... else a soft keyword that starts the member or item (`memory feelings keyed by x {`).
    if let Some(&first) = range.first() {
        if matches!(tokens[first].1, Tok::Kw(k) if !k.is_hard()) {
            return head(first);
        }
        // A setting with a block: `field light = 50 {`.
        if let (Tok::Ident(a), Some((_, Tok::Ident(b), _))) =
            (&tokens[first].1, tokens.get(first + 1))
        {
            if range.get(1) == Some(&(first + 1)) {
                return format!("the `{a} {b}` block");
            }
        }
    }
    // A tree node: the nearest name (`retry(3) {`, `sequence {`).
    match range.iter().rev().find_map(|&j| word(&tokens[j].1)) {
        Some(w) => format!("the `{w}` block"),
        None => "this block".to_string(),
    }
}

fn is_head_keyword(k: Kw) -> bool {
    !matches!(
        k,
        Kw::True | Kw::False | Kw::And | Kw::Or | Kw::Not | Kw::In | Kw::Out | Kw::InOut
    )
}

/// The open delimiters, innermost last, and per kind (`{`, `(`, `[`) where the innermost of
/// that kind is: the opener a closer matches is found at once, where a scan down the stack
/// for each closer took minutes for 50,000 `(` followed by 50,000 `]` (n²).
struct Opens<T> {
    /// (token index, what the caller keeps), innermost last.
    items: Vec<(usize, T)>,
    /// Per kind: the positions in `items` of its openers, innermost last.
    by_kind: [Vec<usize>; 3],
}

impl<T> Default for Opens<T> {
    fn default() -> Self {
        Opens {
            items: Vec::new(),
            by_kind: [Vec::new(), Vec::new(), Vec::new()],
        }
    }
}

/// The kind of a delimiter, opener or closer.
fn kind_of(t: &Tok) -> usize {
    match t {
        Tok::LBrace | Tok::RBrace => 0,
        Tok::LParen | Tok::RParen => 1,
        _ => 2,
    }
}

impl<T> Opens<T> {
    fn push(&mut self, token: usize, opener: &Tok, v: T) {
        self.by_kind[kind_of(opener)].push(self.items.len());
        self.items.push((token, v));
    }

    fn last(&self) -> Option<&(usize, T)> {
        self.items.last()
    }

    fn pop(&mut self) -> Option<(usize, T)> {
        let top = self.items.pop()?;
        for k in &mut self.by_kind {
            if k.last() == Some(&self.items.len()) {
                k.pop();
            }
        }
        Some(top)
    }

    /// The position in `items` of the innermost opener that `closer` closes.
    fn innermost(&self, closer: &Tok) -> Option<usize> {
        self.by_kind[kind_of(closer)].last().copied()
    }
}

/// A first pass on the raw tokens: which opener each closer matches (for descriptions).
fn matching_opens(tokens: &[(u32, Tok, u32)]) -> Vec<Option<u32>> {
    // u32: a file has less than 64 MiB, so fewer tokens (half the memory of usize).
    let mut matching_open: Vec<Option<u32>> = vec![None; tokens.len()];
    let mut stack: Opens<()> = Opens::default();
    for (i, (_, t, _)) in tokens.iter().enumerate() {
        if closer_of(t).is_some() {
            stack.push(i, t, ());
        } else if is_closer(t) {
            if let Some(pos) = stack.innermost(t) {
                matching_open[i] = Some(stack.items[pos].0 as u32);
                while stack.items.len() > pos {
                    stack.pop();
                }
            }
        }
    }
    matching_open
}

/// The pair an opener makes with its closer (real, or synthetic where it went missing).
fn pair_of(tokens: &[(u32, Tok, u32)], open_idx: usize, desc: String, close: Span) -> Pair {
    let (s, t, e) = &tokens[open_idx];
    Pair {
        open: Span::raw(*s, *e),
        close,
        kind: char_of(t),
        describe: desc,
    }
}

pub fn balance<'a>(text: &Text, tokens: Vec<(u32, Tok<'a>, u32)>) -> Balanced<'a> {
    let src = text.src();
    let matching_open = matching_opens(&tokens);

    let mut out = OutTokens::default();
    let mut pairs = Vec::new();
    let mut diagnostics = Vec::new();
    let mut synthetic = Vec::new();
    let mut strays: Option<Strays> = None;
    // (index in `tokens`, describe)
    let mut stack: Opens<String> = Opens::default();

    let close_pair = |pairs: &mut Vec<Pair>, open_idx: usize, desc: String, close: Span| {
        pairs.push(pair_of(&tokens, open_idx, desc, close));
    };

    for (i, (s, t, e)) in tokens.iter().enumerate() {
        if closer_of(t).is_some() {
            stack.push(i, t, describe(text, &tokens, i, &matching_open));
            out.keep(&tokens, i);
        } else if is_closer(t) {
            let matches_top = stack
                .last()
                .is_some_and(|(o, _)| closer_of(&tokens[*o].1).as_ref() == Some(t));
            let deeper = stack.innermost(t);
            if matches_top {
                let (o, desc) = stack.pop().expect("top exists");
                close_pair(&mut pairs, o, desc, Span::raw(*s, *e));
                out.keep(&tokens, i);
            } else if let Some(pos) = deeper {
                // Every opener above the match is unclosed: close them here.
                while stack.items.len() > pos + 1 {
                    let (o, desc) = stack.pop().expect("non-empty");
                    let open_tok = &tokens[o];
                    let want = closer_of(&open_tok.1).expect("opener");
                    diagnostics.push(
                        Diagnostic::error(
                            "E0102",
                            format!(
                                "unclosed `{}`: expected `{}` before this `{}`",
                                char_of(&open_tok.1),
                                want.punct_str(),
                                char_of(t)
                            ),
                            Span::raw(*s, *e),
                        )
                        .with_label(format!(
                            "expected `{}` to close {} first",
                            want.punct_str(),
                            desc
                        ))
                        .with_secondary(
                            Span::raw(open_tok.0, open_tok.2),
                            format!("{desc} opened here"),
                        ),
                    );
                    synthetic.push(*s);
                    close_pair(&mut pairs, o, desc, Span::raw(*s, *s));
                    out.new_token(&tokens, i, (*s, want, *s));
                }
                let (o, desc) = stack.pop().expect("match exists");
                close_pair(&mut pairs, o, desc, Span::raw(*s, *e));
                out.keep(&tokens, i);
            } else if let Some((o, desc)) = stack
                .last()
                .filter(|(o, _)| {
                    matches!(tokens[*o].1, Tok::LParen | Tok::LBracket)
                        && matches!(t, Tok::RParen | Tok::RBracket)
                        && text.line(tokens[*o].0 as usize) == text.line(*s as usize)
                })
                .cloned()
            {
                // `scores[0)`: the wrong closer for a delimiter opened on the same line is
                // taken as the right one, so the parser sees `scores[0]`.
                let want = closer_of(&tokens[o].1).expect("opener");
                diagnostics.push(
                    Diagnostic::error(
                        "E0108",
                        format!(
                            "mismatched closing delimiter: expected `{}`, found `{}`",
                            want.punct_str(),
                            char_of(t)
                        ),
                        Span::raw(*s, *e),
                    )
                    .with_label(format!("expected `{}` to close {desc}", want.punct_str()))
                    .with_secondary(
                        Span::raw(tokens[o].0, tokens[o].2),
                        format!("{desc} opened here"),
                    ),
                );
                stack.pop();
                close_pair(&mut pairs, o, desc, Span::raw(*s, *e));
                out.new_token(&tokens, i, (*s, want, *e));
            } else {
                let opener = match t {
                    Tok::RParen => "(",
                    Tok::RBracket => "[",
                    _ => "{",
                };
                out.drop_token(&tokens, i);
                // A run of stray closers (nothing else between them) is one mistake: one
                // diagnostic for the run, not one per closer (30 KB of `}` made 30,000).
                if let Some(run) = strays.as_mut().filter(|r| r.last + 1 == i) {
                    run.last = i;
                    run.count += 1;
                    run.end = Span::raw(*s, *e);
                    continue;
                }
                if let Some(run) = strays.take() {
                    diagnostics.push(run.diagnostic(text));
                }
                strays = Some(Strays {
                    first: Span::raw(*s, *e),
                    end: Span::raw(*s, *e),
                    close: char_of(t),
                    opener,
                    last: i,
                    count: 1,
                });
            }
        } else {
            out.keep(&tokens, i);
        }
    }
    if let Some(run) = strays.take() {
        diagnostics.push(run.diagnostic(text));
    }
    diagnostics.sort_by_key(|d| d.primary.span.start);
    let mut balanced = Balanced {
        tokens: Vec::new(),
        pairs,
        diagnostics,
        synthetic,
    };
    let closers = close_at_end(src, text, &tokens, stack.items, &mut balanced);
    balanced.tokens = out.finish(tokens);
    balanced.tokens.extend(closers);
    balanced
}

/// Stray closers one after the other, reported as one.
struct Strays {
    /// The first of them, and the last.
    first: Span,
    end: Span,
    close: char,
    opener: &'static str,
    /// Token index of the last, and how many.
    last: usize,
    count: usize,
}

impl Strays {
    fn diagnostic(&self, text: &Text) -> Diagnostic {
        let d = Diagnostic::error(
            "E0108",
            format!("unexpected closing `{}`", self.close),
            self.first,
        );
        if self.count == 1 {
            return d
                .with_label(format!(
                    "no `{}` is open here for this to close",
                    self.opener
                ))
                .with_help("remove it, or add the missing opening delimiter where it belongs");
        }
        let more = self.count - 1;
        d.with_label("no block is open here for this to close")
            .with_help("remove them, or add the missing opening delimiters where they belong")
            .with_secondary(self.end, "the last of them")
            .with_note(format!(
                "{more} more closing delimiter{} after it, up to line {}, close nothing either",
                if more == 1 { "" } else { "s" },
                text.line(self.end.start as usize) + 1
            ))
    }
}

type Token<'a> = (u32, Tok<'a>, u32);

/// The balanced tokens: the lexer's own, copied only from the first one balancing changes
/// (most files need no change, and a second list of a file's tokens was a third of the
/// memory of parsing it).
#[derive(Default)]
struct OutTokens<'a>(Option<Vec<Token<'a>>>);

impl<'a> OutTokens<'a> {
    /// The copy, made at the first change: the tokens before `i` as they were.
    fn copy(&mut self, tokens: &[Token<'a>], i: usize) -> &mut Vec<Token<'a>> {
        self.0.get_or_insert_with(|| {
            let mut v = Vec::with_capacity(tokens.len() + 4);
            v.extend_from_slice(&tokens[..i]);
            v
        })
    }

    /// Token `i` stays as it is.
    fn keep(&mut self, tokens: &[Token<'a>], i: usize) {
        if let Some(v) = &mut self.0 {
            v.push(tokens[i].clone());
        }
    }

    /// A token the lexer did not make comes next: before token `i` (a closer put in), or in
    /// its place (a closer that closes something else).
    fn new_token(&mut self, tokens: &[Token<'a>], i: usize, t: Token<'a>) {
        self.copy(tokens, i).push(t);
    }

    /// Token `i` is left out.
    fn drop_token(&mut self, tokens: &[Token<'a>], i: usize) {
        self.copy(tokens, i);
    }

    fn finish(self, tokens: Vec<Token<'a>>) -> Vec<Token<'a>> {
        self.0.unwrap_or(tokens)
    }
}

/// Every block still open at the end of the file: closed there, each with its diagnostic
/// and, for the first ones, a hint at the `}` that most likely closed it instead.
fn close_at_end<'a>(
    src: &str,
    text: &Text,
    tokens: &[(u32, Tok<'a>, u32)],
    mut stack: Vec<(usize, String)>,
    b: &mut Balanced<'a>,
) -> Vec<Token<'a>> {
    let src_len = src.len() as u32;
    let mut closers = Vec::new();
    let mut hinted: Vec<usize> = Vec::new();
    while let Some((o, desc)) = stack.pop() {
        let open_tok = &tokens[o];
        let want = closer_of(&open_tok.1).expect("opener");
        let mut d = Diagnostic::error(
            "E0102",
            format!(
                "expected `{}` to close {} opened here",
                want.punct_str(),
                desc
            ),
            // "The file ends here": just after its last visible character.
            Span::at(src.trim_end().len()),
        )
        .with_label("the file ends here")
        .with_secondary(
            Span::raw(open_tok.0, open_tok.2),
            format!("{desc} opened here"),
        );
        // The `}` that went missing is usually just before a `}` indented like an outer
        // block: that `}` closed the inner block instead.
        // (Looked for only for the first blocks: a file of thousands of unclosed blocks
        // gets no more than a diagnostic each, and at most 100 are shown.)
        let suspect = b
            .pairs
            .iter()
            .enumerate()
            .take(if b.diagnostics.len() < MAX_PER_FILE {
                usize::MAX
            } else {
                0
            })
            .filter(|(k, p)| {
                p.kind == '{'
                    && !hinted.contains(k)
                    && p.open.start > open_tok.0
                    && !p.close.is_empty()
                    && text.first_on_line(p.close.start as usize)
                    && text.indent_of(p.close.start as usize)
                        < text.indent_of(p.open.start as usize)
            })
            .min_by_key(|(_, p)| p.close.start);
        if let Some((k, p)) = suspect {
            hinted.push(k);
            let line = text.line(p.close.start as usize) + 1;
            d = d
                .with_secondary(
                    p.close,
                    format!(
                        "this `}}` closes {}, but it is indented like an outer block",
                        p.describe
                    ),
                )
                .with_help(format!("a `}}` is probably missing before line {line}"));
        }
        b.diagnostics.push(d);
        b.synthetic.push(src_len);
        b.pairs
            .push(pair_of(tokens, o, desc, Span::raw(src_len, src_len)));
        closers.push((src_len, want, src_len));
    }
    closers
}
