//! Delimiter balancing before parsing. It pairs every `{ ( [` with its closer, reports
//! unclosed and stray delimiters with the place they were opened, and repairs the token
//! stream (synthetic closers, dropped strays) so the parser always sees balanced blocks and
//! can recover inside them. The pairs also tell parse errors which block they are in.

use super::token::{Kw, Tok};
use crate::diagnostic::Diagnostic;
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
    pub tokens: Vec<(usize, Tok<'a>, usize)>,
    pub pairs: Vec<Pair>,
    pub diagnostics: Vec<Diagnostic>,
    /// Byte offsets of synthetic tokens: parse errors there are already explained.
    pub synthetic: Vec<usize>,
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

/// Describes the block opened by `tokens[i]` from the tokens before it.
fn describe(tokens: &[(usize, Tok, usize)], i: usize, matching_open: &[Option<usize>]) -> String {
    let open = &tokens[i].1;
    match open {
        Tok::LParen => {
            return match i.checked_sub(1).and_then(|j| word(&tokens[j].1)) {
                Some(w) => format!("the argument list of `{w}`"),
                None => "these parentheses".to_string(),
            }
        }
        Tok::LBracket => return "this list".to_string(),
        _ => {}
    }
    // `{`: skip back over an argument list `(...)`, a `= Initial` or a type, to the head words.
    let mut j = i;
    let mut words: Vec<&str> = Vec::new();
    while j > 0 && words.len() < 3 {
        j -= 1;
        match &tokens[j].1 {
            Tok::RParen => match matching_open[j] {
                Some(o) => j = o,
                None => break,
            },
            t => match word(t) {
                Some(w) => {
                    words.push(w);
                    if let Tok::Kw(k) = t {
                        if is_head_keyword(*k) {
                            break;
                        }
                    }
                }
                None => {
                    if !words.is_empty() {
                        break;
                    }
                    if !matches!(t, Tok::Colon | Tok::Eq | Tok::Num(_) | Tok::Str(_)) {
                        break;
                    }
                }
            },
        }
    }
    words.reverse();
    match words.as_slice() {
        [] => "this block".to_string(),
        [w] => format!("the `{w}` block"),
        [k, rest @ ..] if Kw::from_word(k).is_some_and(is_head_keyword) => {
            format!("the `{k} {}` block", rest[0])
        }
        [.., last] => format!("the `{last}` block"),
    }
}

fn is_head_keyword(k: Kw) -> bool {
    !matches!(
        k,
        Kw::True | Kw::False | Kw::And | Kw::Or | Kw::Not | Kw::In | Kw::Out | Kw::InOut
    )
}

pub fn balance<'a>(src_len: usize, tokens: Vec<(usize, Tok<'a>, usize)>) -> Balanced<'a> {
    // First pass on the raw tokens: which opener each closer matches (for descriptions).
    let mut matching_open: Vec<Option<usize>> = vec![None; tokens.len()];
    {
        let mut stack: Vec<usize> = Vec::new();
        for (i, (_, t, _)) in tokens.iter().enumerate() {
            if closer_of(t).is_some() {
                stack.push(i);
            } else if is_closer(t) {
                if let Some(pos) = stack
                    .iter()
                    .rposition(|&o| closer_of(&tokens[o].1).as_ref() == Some(t))
                {
                    matching_open[i] = Some(stack[pos]);
                    stack.truncate(pos);
                }
            }
        }
    }

    let mut out: Vec<(usize, Tok<'a>, usize)> = Vec::with_capacity(tokens.len() + 4);
    let mut pairs = Vec::new();
    let mut diagnostics = Vec::new();
    let mut synthetic = Vec::new();
    // (index in `tokens`, describe)
    let mut stack: Vec<(usize, String)> = Vec::new();

    let close_pair = |pairs: &mut Vec<Pair>, open_idx: usize, desc: String, close: Span| {
        let (s, t, e) = &tokens[open_idx];
        pairs.push(Pair {
            open: Span::new(*s, *e),
            close,
            kind: char_of(t),
            describe: desc,
        });
    };

    for (i, (s, t, e)) in tokens.iter().enumerate() {
        if closer_of(t).is_some() {
            stack.push((i, describe(&tokens, i, &matching_open)));
            out.push((*s, t.clone(), *e));
        } else if is_closer(t) {
            let matches_top = stack
                .last()
                .is_some_and(|(o, _)| closer_of(&tokens[*o].1).as_ref() == Some(t));
            let deeper = stack
                .iter()
                .rposition(|(o, _)| closer_of(&tokens[*o].1).as_ref() == Some(t));
            if matches_top {
                let (o, desc) = stack.pop().expect("top exists");
                close_pair(&mut pairs, o, desc, Span::new(*s, *e));
                out.push((*s, t.clone(), *e));
            } else if let Some(pos) = deeper {
                // Every opener above the match is unclosed: close them here.
                while stack.len() > pos + 1 {
                    let (o, desc) = stack.pop().expect("non-empty");
                    let open_tok = &tokens[o];
                    let want = closer_of(&open_tok.1).expect("opener");
                    diagnostics.push(
                        Diagnostic::error(
                            "E0102",
                            format!("unclosed `{}`: expected `{}` before this `{}`", char_of(&open_tok.1), want.punct_str(), char_of(t)),
                            Span::new(*s, *e),
                        )
                        .with_label(format!("expected `{}` to close {} first", want.punct_str(), desc))
                        .with_secondary(Span::new(open_tok.0, open_tok.2), format!("{desc} opened here")),
                    );
                    synthetic.push(*s);
                    close_pair(&mut pairs, o, desc, Span::at(*s));
                    out.push((*s, want, *s));
                }
                let (o, desc) = stack.pop().expect("match exists");
                close_pair(&mut pairs, o, desc, Span::new(*s, *e));
                out.push((*s, t.clone(), *e));
            } else {
                let mut d = Diagnostic::error(
                    "E0108",
                    format!("unexpected closing `{}`", char_of(t)),
                    Span::new(*s, *e),
                )
                .with_label("nothing is open here for this to close");
                if let Some((o, desc)) = stack.last() {
                    let want = closer_of(&tokens[*o].1).expect("opener");
                    d = d
                        .with_label(format!("expected `{}` here", want.punct_str()))
                        .with_secondary(
                            Span::new(tokens[*o].0, tokens[*o].2),
                            format!("{desc} opened here"),
                        );
                }
                diagnostics.push(d);
            }
        } else {
            out.push((*s, t.clone(), *e));
        }
    }
    while let Some((o, desc)) = stack.pop() {
        let open_tok = &tokens[o];
        let want = closer_of(&open_tok.1).expect("opener");
        diagnostics.push(
            Diagnostic::error(
                "E0102",
                format!("expected `{}` to close {} opened here", want.punct_str(), desc),
                Span::at(src_len),
            )
            .with_label("the file ends here")
            .with_secondary(Span::new(open_tok.0, open_tok.2), format!("{desc} opened here")),
        );
        synthetic.push(src_len);
        close_pair(&mut pairs, o, desc, Span::at(src_len));
        out.push((src_len, want, src_len));
    }
    Balanced {
        tokens: out,
        pairs,
        diagnostics,
        synthetic,
    }
}
