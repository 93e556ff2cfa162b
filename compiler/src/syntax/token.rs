//! The tokens the parser sees, and the keyword table shared with the editor grammars.

use std::fmt;

/// Units a number literal may carry. A duration is not a rate is not a length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unit {
    Ms,
    S,
    Min,
    H,
    Hz,
    KHz,
    Mm,
    Cm,
    M,
    Ft,
    Deg,
}

impl Unit {
    pub const ALL: &'static [Unit] = &[
        Unit::Ms,
        Unit::S,
        Unit::Min,
        Unit::H,
        Unit::Hz,
        Unit::KHz,
        Unit::Mm,
        Unit::Cm,
        Unit::M,
        Unit::Ft,
        Unit::Deg,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Unit::Ms => "ms",
            Unit::S => "s",
            Unit::Min => "min",
            Unit::H => "h",
            Unit::Hz => "Hz",
            Unit::KHz => "kHz",
            Unit::Mm => "mm",
            Unit::Cm => "cm",
            Unit::M => "m",
            Unit::Ft => "ft",
            Unit::Deg => "deg",
        }
    }

    pub fn parse(s: &str) -> Option<Unit> {
        Unit::ALL.iter().copied().find(|u| u.as_str() == s)
    }
}

/// A number literal as written. `text` keeps the spelling (`0x48`, `1e-3`) so the formatter
/// reprints it unchanged.
#[derive(Clone, Debug, PartialEq)]
pub struct NumLit {
    pub value: f64,
    /// Written without a fraction or exponent (`12`, `0x48`).
    pub integer: bool,
    pub unit: Option<Unit>,
    pub text: String,
}

macro_rules! keywords {
    ( hard { $($hv:ident = $hs:literal),* $(,)? } soft { $($sv:ident = $ss:literal),* $(,)? } ) => {
        /// Keywords. Hard keywords are never names; soft keywords start declarations and
        /// members but stay usable as names everywhere else (`drive == LiftMood`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Kw { $($hv,)* $($sv,)* }

        impl Kw {
            pub const HARD: &'static [Kw] = &[$(Kw::$hv),*];
            pub const SOFT: &'static [Kw] = &[$(Kw::$sv),*];

            pub fn as_str(self) -> &'static str {
                match self { $(Kw::$hv => $hs,)* $(Kw::$sv => $ss,)* }
            }

            pub fn from_word(word: &str) -> Option<Kw> {
                match word { $($hs => Some(Kw::$hv),)* $($ss => Some(Kw::$sv),)* _ => None }
            }

            pub fn is_hard(self) -> bool {
                Kw::HARD.contains(&self)
            }
        }
    };
}

keywords! {
    hard {
        Use = "use", Const = "const", Enum = "enum", Var = "var", Let = "let",
        True = "true", False = "false", And = "and", Or = "or", Not = "not",
        In = "in", Out = "out", InOut = "inout",
        Do = "do", Check = "check", Switch = "switch", For = "for",
        If = "if", Else = "else", When = "when", While = "while",
        SkipIf = "skip_if", SuccessIf = "success_if", FailureIf = "failure_if",
        OnSuccess = "on_success", OnFailure = "on_failure", OnHalted = "on_halted", After = "after",
    }
    soft {
        Action = "action", Condition = "condition", Control = "control", Decorator = "decorator",
        Tree = "tree", Main = "main", Emotion = "emotion", Tendency = "tendency", Agent = "agent",
        World = "world", Component = "component", Behavior = "behavior", Behaviors = "behaviors",
        Rate = "rate", Sensor = "sensor", Event = "event", Actuator = "actuator",
        Hormone = "hormone", Update = "update", On = "on", Personality = "personality",
        Emotions = "emotions", Tendencies = "tendencies", Drive = "drive", Intention = "intention",
        Memory = "memory", Keyed = "keyed", By = "by", Recruitment = "recruitment",
    }
}

impl Kw {
    pub fn all() -> impl Iterator<Item = Kw> {
        Kw::HARD.iter().chain(Kw::SOFT).copied()
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Tok<'a> {
    Ident(&'a str),
    /// `` `any name` ``: a name that is not a plain identifier (XML IDs with spaces, keywords).
    RawIdent(&'a str),
    /// `@name`: a key of the root blackboard.
    RootIdent(&'a str),
    /// Boxed: a token is kept for every one of a file's tokens while it is parsed, and an
    /// unboxed number made every token 40 bytes instead of 24.
    Num(Box<NumLit>),
    Str(String),
    Kw(Kw),
    Underscore,
    LBrace,
    RBrace,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Comma,
    Semi,
    Colon,
    ColonColon,
    Dot,
    DotDot,
    FatArrow,
    Arrow,
    Eq,
    PlusEq,
    MinusEq,
    StarEq,
    SlashEq,
    EqEq,
    NotEq,
    Lt,
    Le,
    Gt,
    Ge,
    Plus,
    Minus,
    Star,
    Slash,
    Question,
    Bang,
    Tilde,
    Amp,
    Pipe,
    Caret,
    AndAnd,
    OrOr,
    Hash,
    /// A character or sequence the lexer could not make sense of. The lexer has already
    /// reported it; the parser's error recovery skips it.
    Error,
}

impl Tok<'_> {
    /// An operator of expressions: comparison, arithmetic, logic, bitwise, `?`, `!`, `~`.
    pub fn is_operator(&self) -> bool {
        matches!(
            self,
            Tok::EqEq
                | Tok::NotEq
                | Tok::Lt
                | Tok::Le
                | Tok::Gt
                | Tok::Ge
                | Tok::Plus
                | Tok::Minus
                | Tok::Star
                | Tok::Slash
                | Tok::Question
                | Tok::Bang
                | Tok::Tilde
                | Tok::Amp
                | Tok::Pipe
                | Tok::Caret
                | Tok::AndAnd
                | Tok::OrOr
        )
    }

    /// How the token is named in messages: `` `}` ``, ``keyword `var` ``, `string "x"`.
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::RawIdent(s) => format!("`` `{s}` ``"),
            Tok::RootIdent(s) => format!("`@{s}`"),
            Tok::Num(n) => format!("number `{}`", n.text),
            Tok::Str(s) => {
                let short: String = s.chars().take(20).collect();
                let more = if s.chars().count() > 20 { "..." } else { "" };
                format!("string \"{}{more}\"", short.escape_debug())
            }
            Tok::Kw(k) => format!("keyword `{}`", k.as_str()),
            Tok::Error => "invalid token".to_string(),
            other => format!("`{}`", other.punct_str()),
        }
    }

    pub fn punct_str(&self) -> &'static str {
        match self {
            Tok::Underscore => "_",
            Tok::LBrace => "{",
            Tok::RBrace => "}",
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::LBracket => "[",
            Tok::RBracket => "]",
            Tok::Comma => ",",
            Tok::Semi => ";",
            Tok::Colon => ":",
            Tok::ColonColon => "::",
            Tok::Dot => ".",
            Tok::DotDot => "..",
            Tok::FatArrow => "=>",
            Tok::Arrow => "->",
            Tok::Eq => "=",
            Tok::PlusEq => "+=",
            Tok::MinusEq => "-=",
            Tok::StarEq => "*=",
            Tok::SlashEq => "/=",
            Tok::EqEq => "==",
            Tok::NotEq => "!=",
            Tok::Lt => "<",
            Tok::Le => "<=",
            Tok::Gt => ">",
            Tok::Ge => ">=",
            Tok::Plus => "+",
            Tok::Minus => "-",
            Tok::Star => "*",
            Tok::Slash => "/",
            Tok::Question => "?",
            Tok::Bang => "!",
            Tok::Tilde => "~",
            Tok::Amp => "&",
            Tok::Pipe => "|",
            Tok::Caret => "^",
            Tok::AndAnd => "&&",
            Tok::OrOr => "||",
            Tok::Hash => "#",
            _ => "",
        }
    }
}

impl fmt::Display for Tok<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

// The lexer keeps one `(start, token, end)` per token of a file until it is parsed (1.8
// million for a node with 200,000 ports and a call of it): keep a token small. Locations are
// `u32` as spans are (no source is over 64 MiB).
const _: () = assert!(std::mem::size_of::<(u32, Tok<'static>, u32)>() <= 32);
