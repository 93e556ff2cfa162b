//! The lexer: logos tokens with byte spans. Comments are trivia, kept aside for the formatter
//! and for attaching doc comments; lexical errors are reported and become tokens the parser
//! can skip, so one bad character never stops the parse.

use super::token::{Kw, NumLit, Tok, Unit};
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use logos::Logos;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommentKind {
    /// `// ...`
    Line,
    /// `/* ... */` (may nest)
    Block,
    /// `/// ...`: documents the next declaration.
    Doc,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment {
    pub kind: CommentKind,
    /// The whole comment as written, including its `//`, `///` or `/* */`.
    pub text: String,
    pub span: Span,
}

impl Comment {
    /// The text of a doc comment without `///` and one following space.
    pub fn doc_text(&self) -> &str {
        let t = self.text.strip_prefix("///").unwrap_or(&self.text);
        t.strip_prefix(' ').unwrap_or(t)
    }
}

pub struct Lexed<'a> {
    pub tokens: Vec<(u32, Tok<'a>, u32)>,
    pub comments: Vec<Comment>,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Default)]
struct Extras {
    errors: Vec<Diagnostic>,
}

#[derive(Logos, Debug, Clone, PartialEq)]
#[logos(extras = Extras)]
#[logos(skip r"[ \t\r\n\f]+")]
enum Raw {
    #[regex(r"//[^\n]*", priority = 3, allow_greedy = true)]
    LineComment,
    #[regex(r"///([^/\n][^\n]*)?", priority = 5, allow_greedy = true)]
    DocComment,
    #[token("/*", block_comment)]
    BlockComment,
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*")]
    Word,
    #[regex(r"`[^`\n]*`?")]
    Quoted,
    #[regex(r"@[A-Za-z_][A-Za-z0-9_]*")]
    RootIdent,
    #[regex(r"[0-9]", number)]
    Number(NumLit),
    #[token("\"", string)]
    Str(String),
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token(",")]
    Comma,
    #[token(";")]
    Semi,
    #[token(":")]
    Colon,
    #[token("::")]
    ColonColon,
    #[token(".")]
    Dot,
    #[token("..")]
    DotDot,
    #[token("=>")]
    FatArrow,
    #[token("->")]
    Arrow,
    #[token("=")]
    Eq,
    #[token(":=")]
    ColonEq,
    #[token("+=")]
    PlusEq,
    #[token("-=")]
    MinusEq,
    #[token("*=")]
    StarEq,
    #[token("/=")]
    SlashEq,
    #[token("==")]
    EqEq,
    #[token("!=")]
    NotEq,
    #[token("<")]
    Lt,
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    Ge,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
    #[token("?")]
    Question,
    #[token("!")]
    Bang,
    #[token("~")]
    Tilde,
    #[token("&")]
    Amp,
    #[token("|")]
    Pipe,
    #[token("^")]
    Caret,
    #[token("&&")]
    AndAnd,
    #[token("||")]
    OrOr,
    #[token("#")]
    Hash,
}

/// Scans a (possibly nested) block comment after its opening `/*`.
fn block_comment(lex: &mut logos::Lexer<Raw>) {
    let rest = lex.remainder().as_bytes();
    let mut depth = 1usize;
    let mut nested = false;
    let mut i = 0;
    while i < rest.len() {
        if rest[i] == b'/' && rest.get(i + 1) == Some(&b'*') {
            depth += 1;
            nested = true;
            i += 2;
        } else if rest[i] == b'*' && rest.get(i + 1) == Some(&b'/') {
            depth -= 1;
            i += 2;
            if depth == 0 {
                lex.bump(i);
                return;
            }
        } else {
            i += 1;
        }
    }
    let start = lex.span().start;
    lex.bump(rest.len());
    lex.extras.errors.push(
        Diagnostic::error(
            "E0104",
            "unterminated block comment",
            Span::new(start, start + 2),
        )
        .with_label("this comment is never closed")
        .with_note("everything from here to the end of the file is part of the comment")
        .with_help(if nested {
            "block comments nest: each `/*` inside a comment needs its own `*/`, and the outer comment needs one more"
        } else {
            "close it with `*/`"
        }),
    );
}

/// Scans a number after its first digit: decimal with optional fraction, exponent and unit
/// suffix (`9ms`, `2kHz`, `1e-3`), or hexadecimal (`0x48`).
fn number(lex: &mut logos::Lexer<Raw>) -> NumLit {
    let start = lex.span().start;
    let first = lex.slice().as_bytes()[0];
    let rest = lex.remainder().as_bytes();
    let mut i = 0;
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';

    if first == b'0' && matches!(rest.first(), Some(b'x' | b'X')) {
        i = 1;
        while i < rest.len() && is_ident(rest[i]) {
            i += 1;
        }
        lex.bump(i);
        let text = lex.slice().to_string();
        let digits: String = text[2..].chars().filter(|&c| c != '_').collect();
        let value = match u64::from_str_radix(&digits, 16) {
            Ok(v) if v <= (1u64 << 53) => v as f64,
            Ok(_) => {
                lex.extras.errors.push(
                    Diagnostic::error(
                        "E0106",
                        "hexadecimal literal is too large",
                        Span::new(start, start + text.len()),
                    )
                    .with_label("numbers are 64-bit floats: integers above 2^53 lose precision"),
                );
                0.0
            }
            Err(_) => {
                lex.extras.errors.push(
                    Diagnostic::error(
                        "E0106",
                        format!("invalid hexadecimal literal `{text}`"),
                        Span::new(start, start + text.len()),
                    )
                    .with_label("expected hexadecimal digits 0-9, a-f after `0x`"),
                );
                0.0
            }
        };
        return NumLit {
            value,
            integer: true,
            unit: None,
            text,
        };
    }

    let digits = |i: &mut usize| {
        while *i < rest.len() && (rest[*i].is_ascii_digit() || rest[*i] == b'_') {
            *i += 1;
        }
    };
    digits(&mut i);
    let mut integer = true;
    if i + 1 < rest.len() && rest[i] == b'.' && rest[i + 1].is_ascii_digit() {
        integer = false;
        i += 1;
        digits(&mut i);
    }
    if i < rest.len() && matches!(rest[i], b'e' | b'E') {
        let mut j = i + 1;
        if j < rest.len() && matches!(rest[j], b'+' | b'-') {
            j += 1;
        }
        if j < rest.len() && rest[j].is_ascii_digit() {
            integer = false;
            i = j;
            digits(&mut i);
        }
    }
    let num_end = i;
    while i < rest.len() && is_ident(rest[i]) {
        i += 1;
    }
    lex.bump(i);
    let text = lex.slice().to_string();
    let num_len = 1 + num_end;
    let numeric: String = text[..num_len].chars().filter(|&c| c != '_').collect();
    let suffix = &text[num_len..];
    let mut value = numeric.parse::<f64>().unwrap_or(0.0);
    if let Some(d) = out_of_range(&numeric, value, integer, !suffix.is_empty()) {
        lex.extras
            .errors
            .push(d(Span::new(start, start + num_len), &text[..num_len]));
        value = 0.0;
    }
    let unit = if suffix.is_empty() {
        None
    } else if let Some(u) = Unit::parse(suffix) {
        Some(u)
    } else {
        let units: Vec<&str> = Unit::ALL.iter().map(|u| u.as_str()).collect();
        let number = &text[..num_len];
        let mut d = Diagnostic::error(
            "E0106",
            format!("unknown unit `{suffix}` on number `{number}`"),
            Span::new(start + num_len, start + text.len()),
        )
        .with_label("not a unit");
        d = match unit_suggestion(suffix) {
            Some(u) => d
                .with_help(format!("did you mean `{number}{}`?", u.as_str()))
                .with_note(format!("units are {}", units.join(", "))),
            None => d.with_help(format!(
                "units are {}; to multiply, write `{number} * {suffix}`",
                units.join(", ")
            )),
        };
        lex.extras.errors.push(d);
        None
    };
    NumLit {
        value,
        integer,
        unit,
        text,
    }
}

/// Largest integer a literal may write: numbers are 64-bit floats, exact up to 2^53.
const MAX_EXACT_INTEGER: f64 = 9_007_199_254_740_992.0;

/// Largest quantity with a unit: every conversion to the unit a value is kept in (hours to
/// milliseconds is the largest, ×3.6e6) stays finite.
const MAX_QUANTITY: f64 = 1e300;

type NumberError = fn(Span, &str) -> Diagnostic;

/// E0106 for a decimal literal no 64-bit float holds as written: beyond the largest float
/// (`1e999`), an integer beyond 2^53 (`99999999999999999999999` would silently become
/// another number), a quantity whose conversion would overflow, or a non-zero literal so small
/// it becomes 0 (`1e-999`).
fn out_of_range(numeric: &str, value: f64, integer: bool, unit: bool) -> Option<NumberError> {
    let mantissa = numeric.split(['e', 'E']).next().unwrap_or(numeric);
    if !value.is_finite() || (unit && value > MAX_QUANTITY) {
        return Some(|span, text| {
            Diagnostic::error("E0106", format!("number `{text}` is too large"), span)
                .with_label("beyond the largest number (about 1.8e308; 1e300 with a unit)")
        });
    }
    // The digits, not the rounded value: 2^53 + 1 rounds to 2^53.
    let digits = numeric.trim_start_matches('0');
    if integer
        && (digits.len() > 16
            || value > MAX_EXACT_INTEGER
            || (value == MAX_EXACT_INTEGER && digits != "9007199254740992"))
    {
        return Some(|span, text| {
            Diagnostic::error(
                "E0106",
                format!("integer literal `{text}` is too large"),
                span,
            )
            .with_label(
                "numbers are 64-bit floats: integers above 2^53 (9007199254740992) are not exact",
            )
            .with_help("write it with an exponent (`1e23`) if an approximate value is meant")
        });
    }
    if value == 0.0 && mantissa.bytes().any(|b| (b'1'..=b'9').contains(&b)) {
        return Some(|span, text| {
            Diagnostic::error("E0106", format!("number `{text}` is too small"), span)
                .with_label("not zero, but smaller than the smallest number (about 4.9e-324)")
                .with_help("write `0` if zero is meant")
        });
    }
    None
}

/// The unit a misspelt suffix most likely means: a case slip (`10hz`), a common long
/// spelling (`3sec`, `2mins`) or a near miss.
fn unit_suggestion(suffix: &str) -> Option<Unit> {
    if let Some(u) = Unit::ALL
        .iter()
        .find(|u| u.as_str().eq_ignore_ascii_case(suffix))
    {
        return Some(*u);
    }
    let alias = match suffix.to_ascii_lowercase().as_str() {
        "sec" | "secs" | "second" | "seconds" => Some(Unit::S),
        "msec" | "msecs" | "millis" | "millisecond" | "milliseconds" => Some(Unit::Ms),
        "mins" | "minute" | "minutes" => Some(Unit::Min),
        "hr" | "hrs" | "hour" | "hours" => Some(Unit::H),
        "hertz" => Some(Unit::Hz),
        "khertz" => Some(Unit::KHz),
        "meter" | "meters" | "metre" | "metres" => Some(Unit::M),
        "feet" | "foot" => Some(Unit::Ft),
        "degree" | "degrees" => Some(Unit::Deg),
        _ => None,
    };
    alias.or_else(|| {
        let names: Vec<&str> = Unit::ALL.iter().map(|u| u.as_str()).collect();
        crate::suggest::closest(suffix, names).and_then(Unit::parse)
    })
}

/// Scans a string after its opening quote, decoding escapes. Stops at the closing quote, or
/// reports an unterminated string at the end of the line.
fn string(lex: &mut logos::Lexer<Raw>) -> String {
    let start = lex.span().start;
    let rest = lex.remainder();
    let mut out = String::new();
    let mut chars = rest.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => {
                lex.bump(i + 1);
                return out;
            }
            '\n' => break,
            '\\' => {
                let esc_start = start + 1 + i;
                match chars.next() {
                    Some((_, 'n')) => out.push('\n'),
                    Some((_, 't')) => out.push('\t'),
                    Some((_, 'r')) => out.push('\r'),
                    Some((_, '0')) => out.push('\0'),
                    Some((_, '\\')) => out.push('\\'),
                    Some((_, '"')) => out.push('"'),
                    Some((_, '\'')) => out.push('\''),
                    Some((j, 'u')) => {
                        let tail = &rest[j + 1..];
                        let decoded = tail.strip_prefix('{').and_then(|t| {
                            let close = t.find('}')?;
                            let cp = u32::from_str_radix(&t[..close], 16).ok()?;
                            Some((char::from_u32(cp)?, close + 2))
                        });
                        match decoded {
                            Some((ch, used)) => {
                                out.push(ch);
                                for _ in 0..used {
                                    chars.next();
                                }
                            }
                            None => lex.extras.errors.push(
                                Diagnostic::error(
                                    "E0107",
                                    "invalid unicode escape",
                                    Span::new(esc_start, esc_start + 2),
                                )
                                .with_label("expected `\\u{...}` with 1 to 6 hex digits"),
                            ),
                        }
                    }
                    Some((_, other)) => lex.extras.errors.push(
                        Diagnostic::error(
                            "E0107",
                            format!("unknown escape sequence `\\{other}`"),
                            Span::new(esc_start, esc_start + 1 + other.len_utf8()),
                        )
                        .with_label("not an escape")
                        .with_help(
                            "escapes are \\n \\t \\r \\0 \\\\ \\\" \\' and \\u{...}; write `\\\\` for a backslash",
                        ),
                    ),
                    None => break,
                }
            }
            c => out.push(c),
        }
    }
    let len = rest.find('\n').unwrap_or(rest.len());
    // `Say(text: "hello)`: the closers at the end of the line most likely belong to the
    // code around the string, so they are left for the parser (no cascade of errors).
    let line = &rest[..len];
    let body = line.trim_end_matches(|c: char| c.is_whitespace() || ")]};,".contains(c));
    let body_len = if body.ends_with('\\') {
        len
    } else {
        body.len()
    };
    let given_back = line[body_len..].chars().count();
    for _ in 0..given_back {
        out.pop();
    }
    lex.bump(body_len);
    lex.extras.errors.push(
        Diagnostic::error("E0103", "unterminated string", Span::new(start, start + 1))
            .with_label("this string is never closed")
            .with_help("close the string with `\"` on the same line; use `\\n` for a line break"),
    );
    out
}

/// What one raw token becomes: a token, a token already pushed with a wider span (the
/// lexer was moved past it), or nothing (reported and dropped).
enum Step<'a> {
    Tok(Tok<'a>),
    Pushed,
    Skip,
}

pub fn lex(src: &str) -> Lexed<'_> {
    let mut lexer = Raw::lexer(src);
    let mut tokens = Vec::new();
    let mut comments = Vec::new();
    let mut diagnostics = Vec::new();
    while let Some(raw) = lexer.next() {
        let span = lexer.span();
        let slice = lexer.slice();
        let step = match raw {
            Ok(Raw::LineComment) | Ok(Raw::DocComment) | Ok(Raw::BlockComment) => {
                let kind = match raw {
                    Ok(Raw::LineComment) => CommentKind::Line,
                    Ok(Raw::DocComment) => CommentKind::Doc,
                    _ => CommentKind::Block,
                };
                comments.push(Comment {
                    kind,
                    text: slice.trim_end().to_string(),
                    span: Span::new(span.start, span.start + slice.trim_end().len()),
                });
                Step::Skip
            }
            Ok(Raw::Word) => Step::Tok(if slice == "_" {
                Tok::Underscore
            } else if let Some(kw) = Kw::from_word(slice) {
                Tok::Kw(kw)
            } else {
                Tok::Ident(slice)
            }),
            Ok(Raw::Quoted) => quoted_name(src, &mut lexer, &mut tokens, &mut diagnostics),
            Ok(Raw::RootIdent) => Step::Tok(Tok::RootIdent(&slice[1..])),
            Ok(Raw::Number(n)) => Step::Tok(Tok::Num(Box::new(n))),
            Ok(Raw::Str(s)) => Step::Tok(Tok::Str(s)),
            Ok(Raw::ColonEq) => {
                diagnostics.push(
                    Diagnostic::error("E0115", "`:=` is not an operator in affect", span_of(&span))
                        .with_label("use `=`")
                        .with_help("variables are declared with `var` and assigned with `=`; `:=` is BehaviorTree.CPP script syntax"),
                );
                Step::Tok(Tok::Eq)
            }
            Ok(Raw::Percent) => {
                diagnostics.push(
                    Diagnostic::error("E0115", "`%` is not an operator", span_of(&span))
                        .with_label("no remainder or percent operator")
                        .with_help("BehaviorTree.CPP scripts have no `%`, so affect has none either; write `x - n * floor(x / n)` for a remainder"),
                );
                Step::Tok(Tok::Error)
            }
            Ok(other) => Step::Tok(punct(&other)),
            Err(()) => bad_character(src, &mut lexer, &mut tokens, &mut diagnostics),
        };
        if let Step::Tok(tok) = step {
            tokens.push((span.start as u32, tok, span.end as u32));
        }
    }
    diagnostics.append(&mut lexer.extras.errors);
    diagnostics.sort_by_key(|d| d.primary.span.start);
    // The tokens live until the syntax tree is built: the doubling's slack (up to half the
    // list) would be held beside the whole tree.
    tokens.shrink_to_fit();
    Lexed {
        tokens,
        comments,
        diagnostics,
    }
}

type Tokens<'a> = Vec<(u32, Tok<'a>, u32)>;

/// Punctuation and operators: one raw token, one token.
fn punct(raw: &Raw) -> Tok<'static> {
    match raw {
        Raw::LBrace => Tok::LBrace,
        Raw::RBrace => Tok::RBrace,
        Raw::LParen => Tok::LParen,
        Raw::RParen => Tok::RParen,
        Raw::LBracket => Tok::LBracket,
        Raw::RBracket => Tok::RBracket,
        Raw::Comma => Tok::Comma,
        Raw::Semi => Tok::Semi,
        Raw::Colon => Tok::Colon,
        Raw::ColonColon => Tok::ColonColon,
        Raw::Dot => Tok::Dot,
        Raw::DotDot => Tok::DotDot,
        Raw::FatArrow => Tok::FatArrow,
        Raw::Arrow => Tok::Arrow,
        Raw::Eq => Tok::Eq,
        Raw::PlusEq => Tok::PlusEq,
        Raw::MinusEq => Tok::MinusEq,
        Raw::StarEq => Tok::StarEq,
        Raw::SlashEq => Tok::SlashEq,
        Raw::EqEq => Tok::EqEq,
        Raw::NotEq => Tok::NotEq,
        Raw::Lt => Tok::Lt,
        Raw::Le => Tok::Le,
        Raw::Gt => Tok::Gt,
        Raw::Ge => Tok::Ge,
        Raw::Plus => Tok::Plus,
        Raw::Minus => Tok::Minus,
        Raw::Star => Tok::Star,
        Raw::Slash => Tok::Slash,
        Raw::Question => Tok::Question,
        Raw::Bang => Tok::Bang,
        Raw::Tilde => Tok::Tilde,
        Raw::Amp => Tok::Amp,
        Raw::Pipe => Tok::Pipe,
        Raw::Caret => Tok::Caret,
        Raw::AndAnd => Tok::AndAnd,
        Raw::OrOr => Tok::OrOr,
        Raw::Hash => Tok::Hash,
        // Read by `lex` itself, never passed here.
        Raw::LineComment
        | Raw::DocComment
        | Raw::BlockComment
        | Raw::Word
        | Raw::Quoted
        | Raw::RootIdent
        | Raw::Number(_)
        | Raw::Str(_)
        | Raw::ColonEq
        | Raw::Percent => Tok::Error,
    }
}

/// A name in backticks, with the two ways it goes wrong: empty, or running on.
fn quoted_name<'a>(
    src: &'a str,
    lexer: &mut logos::Lexer<'a, Raw>,
    tokens: &mut Tokens<'a>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Step<'a> {
    let span = lexer.span();
    let slice = lexer.slice();

    let inner = &slice[1..];
    Step::Tok(match inner.strip_suffix('`') {
        Some(name) if !name.is_empty() => Tok::RawIdent(name),
        Some(_) => {
            diagnostics.push(
                Diagnostic::error(
                    "E0116",
                    "empty quoted name",
                    Span::new(span.start, span.end),
                )
                .with_label("a name in backticks needs at least one character"),
            );
            Tok::Error
        }
        None => {
            // `` `Say\n    Hello` ``: the name goes on to the next line and ends
            // there. Reported once and read as one name.
            let after = &src[span.end..];
            let newline = if after.starts_with("\r\n") {
                2
            } else {
                usize::from(after.starts_with('\n'))
            };
            let next_line = (newline > 0).then(|| {
                let rest = &after[newline..];
                &rest[..rest.find('\n').unwrap_or(rest.len())]
            });
            let close = next_line.and_then(|line| {
                let k = line.find('`')?;
                let between = &line[..k];
                (!between.contains([';', '{', '}', '(', ')'])).then_some(k)
            });
            if let Some(k) = close {
                let end = span.end + newline + k + 1;
                diagnostics.push(
                    Diagnostic::error(
                        "E0116",
                        "quoted name runs onto the next line",
                        Span::new(span.start, end),
                    )
                    .with_label("a quoted name must end on the line it starts")
                    .with_help("quoted names are written `` `like this` `` on one line"),
                );
                lexer.bump(end - span.end);
                tokens.push((
                    span.start as u32,
                    Tok::RawIdent(&src[span.start + 1..end - 1]),
                    end as u32,
                ));
                return Step::Pushed;
            }
            diagnostics.push(
                Diagnostic::error(
                    "E0116",
                    "unterminated quoted name",
                    Span::new(span.start, span.start + 1),
                )
                .with_label("this backtick is never closed on its line")
                .with_help("quoted names are written `` `like this` `` on one line"),
            );
            if inner.is_empty() {
                Tok::Error
            } else {
                Tok::RawIdent(inner)
            }
        }
    })
}

/// A character that is not part of the language, with the likely intent (a `'` string, a
/// `$` sigil) read on where it is clear.
fn bad_character<'a>(
    src: &'a str,
    lexer: &mut logos::Lexer<'a, Raw>,
    tokens: &mut Tokens<'a>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Step<'a> {
    let span = lexer.span();
    let slice = lexer.slice();

    let ch = slice.chars().next().unwrap_or('?');
    let after = &src[span.end..];
    let mut d = Diagnostic::error(
        "E0105",
        format!("unexpected character `{}`", ch.escape_debug()),
        span_of(&span),
    )
    .with_label("not part of the language");
    if ch == '\'' {
        // `'text'`: reported once, then read as the string it was meant to be.
        let line = &after[..after.find('\n').unwrap_or(after.len())];
        if let Some(close) = line.find('\'') {
            let text = &line[..close];
            let end = span.end + close + 1;
            diagnostics.push(
                Diagnostic::error(
                    "E0105",
                    "strings use double quotes, not `'`",
                    Span::new(span.start, end),
                )
                .with_label("single quotes do not make a string")
                .with_help(format!("write \"{}\"", text.escape_debug())),
            );
            lexer.bump(close + 1);
            tokens.push((span.start as u32, Tok::Str(text.to_string()), end as u32));
            return Step::Pushed;
        }
        d = d.with_help("strings use double quotes: \"text\"");
    } else if ch == '$' && after.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        // `$battery`: the sigil is dropped, the name read on.
        let name: String = after
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        diagnostics.push(
            d.with_label("blackboard variables need no `$`")
                .with_help(format!(
                    "write `{name}`; `@{name}` names a key of the root blackboard"
                )),
        );
        return Step::Skip;
    } else if ch == '$' {
        d = d.with_help("names are letters, digits and `_`");
    } else if ch == '@' {
        d = d.with_help(
            "write `@name` with no space: `@goal` is the key `goal` of the root blackboard",
        );
    } else if ch.is_alphabetic() {
        d = d.with_help("names are ASCII letters, digits and `_`; to keep this spelling, quote the whole name in backticks");
    }
    diagnostics.push(d);
    Step::Tok(Tok::Error)
}

fn span_of(r: &std::ops::Range<usize>) -> Span {
    Span::new(r.start, r.end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(src: &str) -> Vec<Tok<'_>> {
        lex(src).tokens.into_iter().map(|(_, t, _)| t).collect()
    }

    #[test]
    fn numbers_no_float_holds_are_e0106() {
        for src in [
            "1e999",
            "99999999999999999999999",
            "9007199254740993",
            "1e-999",
            "0.000e-400 + 1e400",
            "1e301h",
        ] {
            let l = lex(src);
            assert!(
                l.diagnostics.iter().any(|d| d.code == "E0106"),
                "{src}: {:?}",
                l.diagnostics
            );
        }
        for src in [
            "9007199254740992",
            "1e308",
            "1.5e-300",
            "0e-999",
            "0.0",
            "1e300h",
        ] {
            assert!(lex(src).diagnostics.is_empty(), "{src}");
        }
    }

    #[test]
    fn numbers_with_units_and_hex() {
        let t = toks("9ms 10Hz 2kHz 0x48 1e-3 0.75 24cm 2min");
        let lits: Vec<(f64, Option<Unit>)> = t
            .iter()
            .map(|t| match t {
                Tok::Num(n) => (n.value, n.unit),
                other => panic!("not a number: {other:?}"),
            })
            .collect();
        assert_eq!(
            lits,
            vec![
                (9.0, Some(Unit::Ms)),
                (10.0, Some(Unit::Hz)),
                (2.0, Some(Unit::KHz)),
                (72.0, None),
                (0.001, None),
                (0.75, None),
                (24.0, Some(Unit::Cm)),
                (2.0, Some(Unit::Min)),
            ]
        );
    }

    #[test]
    fn range_is_not_a_fraction() {
        assert_eq!(
            toks("0..100").len(),
            3,
            "`0..100` must lex as number, `..`, number"
        );
    }

    #[test]
    fn unknown_unit_is_reported_and_number_kept() {
        let l = lex("5kg");
        assert_eq!(l.diagnostics.len(), 1);
        assert_eq!(l.diagnostics[0].code, "E0106");
        assert!(matches!(l.tokens[0].1, Tok::Num(ref n) if n.value == 5.0));
    }

    #[test]
    fn nested_block_comments_and_docs_are_trivia() {
        let l = lex("/* a /* b */ c */ x /// doc\n// line\n//// not doc\ny");
        assert_eq!(l.tokens.len(), 2);
        let kinds: Vec<CommentKind> = l.comments.iter().map(|c| c.kind).collect();
        assert_eq!(
            kinds,
            vec![
                CommentKind::Block,
                CommentKind::Doc,
                CommentKind::Line,
                CommentKind::Line
            ]
        );
    }

    #[test]
    fn unterminated_string_and_comment() {
        let l = lex("\"abc\nx /* never");
        let codes: Vec<&str> = l.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes, vec!["E0103", "E0104"]);
        assert!(matches!(l.tokens[0].1, Tok::Str(ref s) if s == "abc"));
    }

    #[test]
    fn string_escapes() {
        assert_eq!(toks(r#""a\n\"b\u{41}""#), vec![Tok::Str("a\n\"bA".into())]);
    }

    #[test]
    fn keywords_raw_and_root_names() {
        assert_eq!(
            toks("drive `Pick All` @goal _ x"),
            vec![
                Tok::Kw(Kw::Drive),
                Tok::RawIdent("Pick All"),
                Tok::RootIdent("goal"),
                Tok::Underscore,
                Tok::Ident("x")
            ]
        );
    }

    #[test]
    fn bad_character_becomes_error_token() {
        let l = lex("a $ b");
        assert_eq!(l.tokens.len(), 3);
        assert_eq!(l.tokens[1].1, Tok::Error);
        assert_eq!(l.diagnostics[0].code, "E0105");
    }
}
