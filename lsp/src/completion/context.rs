//! The context of a completion, from the tokens before the cursor (the text being edited
//! rarely parses): which brackets are open and what opened them (an agent body, a tree body,
//! a node's children, a call's parentheses, a settings block, ...).

use affect_compiler::syntax::token::{Kw, Tok};

pub(super) type Token<'a> = (u32, Tok<'a>, u32);

/// What the innermost open bracket belongs to.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Ctx {
    Top,
    Agent,
    TreeBody,
    Nodes,
    Switch {
        subject: Option<String>,
    },
    Stmts,
    Settings {
        owner: &'static str,
        machine: Option<String>,
    },
    Fields {
        owner: &'static str,
    },
    Drive {
        en: Option<String>,
    },
    Intention {
        en: Option<String>,
    },
    Tendencies {
        machine: Option<String>,
    },
    Ports,
    Args {
        callee: String,
    },
    Group,
    Other,
}

#[derive(Clone, Debug)]
pub(super) struct Frame {
    pub ctx: Ctx,
    /// Index of the opening token.
    pub open: usize,
    close: Closer,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Closer {
    Brace,
    Paren,
    Bracket,
}

/// A name-like token: identifiers, quoted names and soft keywords.
pub(super) fn word<'a>(t: &Tok<'a>) -> Option<&'a str> {
    match t {
        Tok::Ident(s) | Tok::RawIdent(s) => Some(s),
        Tok::Kw(k) if !k.is_hard() => Some(k.as_str()),
        _ => None,
    }
}

pub(super) fn is_kw(t: Option<&Tok>, k: Kw) -> bool {
    matches!(t, Some(Tok::Kw(x)) if *x == k)
}

/// Index after the last boundary (`;`, `{`, `}` at bracket depth 0) before `end`, not before
/// `floor`.
pub(super) fn clause_start(toks: &[Token], end: usize, floor: usize, commas: bool) -> usize {
    let mut depth = 0usize;
    let mut j = end;
    while j > floor {
        match &toks[j - 1].1 {
            Tok::RParen | Tok::RBracket => depth += 1,
            Tok::LParen | Tok::LBracket => {
                if depth == 0 {
                    return j;
                }
                depth -= 1;
            }
            Tok::Semi | Tok::LBrace | Tok::RBrace if depth == 0 => return j,
            Tok::Comma if depth == 0 && commas => return j,
            _ => {}
        }
        j -= 1;
    }
    floor
}

/// Skips `#[...]` attributes at the start of a clause.
pub(super) fn skip_attrs(toks: &[Token], mut i: usize, end: usize) -> usize {
    while i < end && matches!(toks[i].1, Tok::Hash) {
        let mut depth = 0usize;
        i += 1;
        while i < end {
            match toks[i].1 {
                Tok::LBracket => depth += 1,
                Tok::RBracket => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }
    i
}

/// The name after the first `:` of a clause: the type of `emotions w: WaiterEmotion = ..`.
pub(super) fn type_after_colon(toks: &[Token], start: usize, end: usize) -> Option<String> {
    let c = (start..end).find(|&k| matches!(toks[k].1, Tok::Colon))?;
    toks.get(c + 1)
        .filter(|_| c + 1 < end)
        .and_then(|t| word(&t.1))
        .map(str::to_string)
}

pub(super) fn is_expr_token(t: &Tok) -> bool {
    match t {
        Tok::Ident(_) | Tok::RawIdent(_) | Tok::RootIdent(_) | Tok::Num(_) | Tok::Str(_) => true,
        Tok::Kw(k) => {
            !k.is_hard()
                || matches!(
                    k,
                    Kw::And | Kw::Or | Kw::Not | Kw::True | Kw::False | Kw::In
                )
        }
        Tok::Dot | Tok::ColonColon => true,
        t => t.is_operator(),
    }
}

fn brace_ctx(toks: &[Token], i: usize, floor: usize, parent: &Ctx) -> Ctx {
    let start = skip_attrs(toks, clause_start(toks, i, floor, false), i);
    let first = toks.get(start).filter(|_| start < i).map(|t| &t.1);
    let kw = |k: Kw| is_kw(first, k);
    match parent {
        Ctx::Top => {
            if kw(Kw::Agent) {
                Ctx::Agent
            } else if kw(Kw::Tree) || kw(Kw::Main) {
                Ctx::TreeBody
            } else if kw(Kw::Emotion) {
                Ctx::Fields { owner: "emotion" }
            } else if kw(Kw::Tendency) {
                Ctx::Fields { owner: "tendency" }
            } else if kw(Kw::World) {
                settings("world")
            } else if kw(Kw::Component) {
                settings("component")
            } else if kw(Kw::Behavior) {
                settings("behavior")
            } else {
                Ctx::Other
            }
        }
        Ctx::Agent => {
            if kw(Kw::Main) {
                Ctx::Nodes
            } else if kw(Kw::Update) || kw(Kw::On) {
                Ctx::Stmts
            } else if kw(Kw::Personality) {
                Ctx::Fields {
                    owner: "personality",
                }
            } else if kw(Kw::Emotions) {
                Ctx::Settings {
                    owner: "emotions",
                    machine: type_after_colon(toks, start, i),
                }
            } else if kw(Kw::Tendencies) {
                Ctx::Tendencies {
                    machine: toks
                        .get(start + 1)
                        .filter(|_| start + 1 < i)
                        .and_then(|t| word(&t.1))
                        .map(str::to_string),
                }
            } else if kw(Kw::Drive) {
                Ctx::Drive {
                    en: type_after_colon(toks, start, i),
                }
            } else if kw(Kw::Memory) {
                settings("memory")
            } else if kw(Kw::Behaviors) {
                settings("behaviors")
            } else if kw(Kw::Behavior) {
                settings("behavior")
            } else if kw(Kw::Recruitment) {
                settings("recruitment")
            } else if kw(Kw::Component) {
                settings("component")
            } else if kw(Kw::Hormone) {
                settings("hormone")
            } else {
                Ctx::Other
            }
        }
        Ctx::TreeBody | Ctx::Nodes | Ctx::Switch { .. } => {
            let before = toks
                .get(i.wrapping_sub(1))
                .filter(|_| i > floor)
                .map(|t| &t.1);
            if matches!(
                before,
                Some(Tok::Kw(
                    Kw::Do | Kw::OnSuccess | Kw::OnFailure | Kw::OnHalted | Kw::After
                ))
            ) {
                return Ctx::Stmts;
            }
            // Back over the expression before the brace: `switch subject {`.
            let mut j = i;
            while j > floor {
                let t = &toks[j - 1].1;
                if matches!(t, Tok::RParen | Tok::RBracket) {
                    let mut depth = 0usize;
                    while j > floor {
                        match toks[j - 1].1 {
                            Tok::RParen | Tok::RBracket => depth += 1,
                            Tok::LParen | Tok::LBracket => depth = depth.saturating_sub(1),
                            _ => {}
                        }
                        j -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                } else if is_expr_token(t) {
                    j -= 1;
                } else {
                    break;
                }
            }
            if j > floor && is_kw(Some(&toks[j - 1].1), Kw::Switch) {
                let subject = if i == j + 1 {
                    word(&toks[j].1).map(str::to_string)
                } else {
                    None
                };
                Ctx::Switch { subject }
            } else {
                Ctx::Nodes
            }
        }
        Ctx::Stmts => Ctx::Stmts,
        Ctx::Settings { owner, .. } => {
            let field = first.and_then(word) == Some("field");
            if kw(Kw::Behavior) {
                settings("behavior")
            } else if *owner == "world" && field {
                settings("field")
            } else {
                settings("nested")
            }
        }
        Ctx::Drive { en } => {
            if kw(Kw::Intention) {
                Ctx::Intention { en: en.clone() }
            } else {
                Ctx::Other
            }
        }
        _ => Ctx::Other,
    }
}

fn settings(owner: &'static str) -> Ctx {
    Ctx::Settings {
        owner,
        machine: None,
    }
}

fn paren_ctx(toks: &[Token], i: usize, floor: usize, parent: &Ctx) -> Ctx {
    if i > floor {
        if let Some(name) = word(&toks[i - 1].1) {
            let decl = i >= 2
                && i - 2 >= floor
                && matches!(
                    toks[i - 2].1,
                    Tok::Kw(Kw::Action | Kw::Condition | Kw::Control | Kw::Decorator | Kw::Tree)
                );
            if decl || (*parent == Ctx::Top && i >= 2 && is_kw(Some(&toks[i - 2].1), Kw::Tree)) {
                return Ctx::Ports;
            }
            return Ctx::Args {
                callee: name.to_string(),
            };
        }
    }
    Ctx::Group
}

pub(super) fn frames(toks: &[Token]) -> Vec<Frame> {
    let mut stack: Vec<Frame> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let parent = stack.last().map(|f| f.ctx.clone()).unwrap_or(Ctx::Top);
        let floor = stack.last().map(|f| f.open + 1).unwrap_or(0);
        let (ctx, close) = match t.1 {
            Tok::LBrace => (brace_ctx(toks, i, floor, &parent), Closer::Brace),
            Tok::LParen => (paren_ctx(toks, i, floor, &parent), Closer::Paren),
            Tok::LBracket => (Ctx::Group, Closer::Bracket),
            Tok::RBrace | Tok::RParen | Tok::RBracket => {
                let want = match t.1 {
                    Tok::RBrace => Closer::Brace,
                    Tok::RParen => Closer::Paren,
                    _ => Closer::Bracket,
                };
                if let Some(k) = stack.iter().rposition(|f| f.close == want) {
                    stack.truncate(k);
                }
                continue;
            }
            _ => continue,
        };
        stack.push(Frame {
            ctx,
            open: i,
            close,
        });
    }
    stack
}

/// Argument names written in a call after the cursor, up to its closing parenthesis.
pub(super) fn names_after(rest: &[Token]) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    for (k, t) in rest.iter().enumerate() {
        match t.1 {
            Tok::LParen | Tok::LBracket | Tok::LBrace => depth += 1,
            Tok::RParen | Tok::RBracket | Tok::RBrace => {
                if depth == 0 {
                    break;
                }
                depth -= 1;
            }
            Tok::Colon if depth == 0 && k > 1 => match &rest[k - 1].1 {
                Tok::Kw(kw) => out.push(kw.as_str().to_string()),
                other => out.extend(word(other).map(str::to_string)),
            },
            _ => {}
        }
    }
    out
}
