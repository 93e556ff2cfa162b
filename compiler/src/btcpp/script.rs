//! BehaviorTree.CPP scripts, both ways.
//!
//! Reading: the union of both script dialects BehaviorTree.CPP has had. The lexy grammar of
//! 4.0–4.8 also took double-quoted strings and `\`-newlines and refused to mix arithmetic with
//! bitwise operators without parentheses; the Pratt parser of 4.9+ takes single quotes only.
//! Precedence (low to high): assignment, `? :`, `||`, `&&`, comparisons (chainable: `a < b < c`
//! means `a < b && b < c`), `| ^`, `&`, `+ - ..`, `* /`, prefix `- ! ~`.
//!
//! Mapping to affect: `:=` and `=` both become `=` (affect declares its variables, so creating
//! one is the declaration's job), `..` becomes `concat(a, b)`, `@key` becomes `@key`, `&&`/`||`/`!`
//! become `and`/`or`/`not`.
//!
//! Parentheses: the exporter puts parentheses around every compound operand (BehaviorTree.CPP
//! 4.8 evaluates `a - b + c` as `a - (b + c)`, and its lexy grammar needs them between math and
//! bitwise operators). So that `.affect → XML → .affect` keeps the tree exactly, parentheses
//! the affect source wrote where precedence does not need them are written doubled, `((a + b))`.
//! Reading inverts that: a single pair around a compound operand that precedence does not need
//! is dropped, a doubled pair is one `Paren`, and every other pair is a `Paren` as in the source.

use crate::span::Span;
use crate::syntax::ast::*;
use crate::syntax::token::{NumLit, Tok, Unit};

// ------------------------------------------------------------------------------ tokens

/// A token; names, numbers and strings borrow the script's text (only what the parse keeps
/// is copied, once).
#[derive(Clone, Copy, Debug, PartialEq)]
enum T<'s> {
    Ident(&'s str),
    Num(&'s str),
    Str(&'s str),
    True,
    False,
    Op(&'static str),
    LParen,
    RParen,
    Semi,
}

/// A script that BehaviorTree.CPP would refuse, with the byte range inside the script.
#[derive(Clone, Debug, PartialEq)]
pub struct ScriptError {
    pub message: String,
    pub start: usize,
    pub end: usize,
    pub help: Option<String>,
    /// Beyond [`MAX_DEPTH`]: a limit of ours, not a syntax error.
    pub too_deep: bool,
}

fn err(message: impl Into<String>, start: usize, end: usize) -> ScriptError {
    ScriptError {
        message: message.into(),
        start,
        end,
        help: None,
        too_deep: false,
    }
}

/// How deep a script may nest: parentheses, prefix operators, `? :` and chained assignments.
/// The operators of a chain are read in a loop and do not count here (`a + b + c` nests no
/// deeper than `a`).
pub const MAX_DEPTH: usize = 256;

/// How deep the tree of a script may be, counting every operator of a chain as a level
/// (`a + b + c` is `(a + b) + c`). Every pass over a script (and over the affect expression it
/// becomes) recurses on that tree, so this bound keeps any input from overflowing the stack;
/// it is far beyond any real script (a sum of 1,000 terms).
pub const MAX_TREE: usize = 1024;

const OPS: &[&str] = &[
    ":=", "+=", "-=", "*=", "/=", "==", "!=", "<=", ">=", "&&", "||", "..", "=", "<", ">", "+",
    "-", "*", "/", "!", "~", "&", "|", "^", "?", ":",
];

fn lex(src: &str) -> Result<Vec<(T<'_>, usize, usize)>, ScriptError> {
    let b = src.as_bytes();
    let mut i = 0;
    // Room for a token every four bytes (`x1 := x1 + 4.0` has 5 in 14): one allocation for
    // most scripts instead of one per doubling.
    let mut out = Vec::with_capacity(src.len() / 4 + 2);
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        // The lexy grammar allowed a backslash before a line break.
        if c == b'\\' && matches!(b.get(i + 1), Some(b'\n' | b'\r')) {
            i += 2;
            continue;
        }
        let start = i;
        if c.is_ascii_alphabetic() || c == b'_' || c == b'@' || c >= 0x80 {
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] >= 0x80) {
                i += 1;
            }
            let word = &src[start..i];
            if word == "@" {
                return Err(err("`@` must be followed by a name", start, i));
            }
            if word.bytes().skip(1).any(|b| b == b'@') {
                return Err(err("`@` may only start a name", start, i));
            }
            let tok = match word {
                "true" => T::True,
                "false" => T::False,
                _ => T::Ident(word),
            };
            out.push((tok, start, i));
            continue;
        }
        if c.is_ascii_digit() {
            if c == b'0' && matches!(b.get(i + 1), Some(b'x' | b'X')) {
                i += 2;
                let digits = i;
                while i < b.len() && b[i].is_ascii_hexdigit() {
                    i += 1;
                }
                if i == digits {
                    return Err(err("`0x` needs hexadecimal digits", start, i));
                }
            } else {
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                // `65..` is an integer followed by `..`.
                if i + 1 < b.len() && b[i] == b'.' && b[i + 1].is_ascii_digit() {
                    i += 1;
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                }
                if i < b.len() && matches!(b[i], b'e' | b'E') {
                    let mut j = i + 1;
                    if j < b.len() && matches!(b[j], b'+' | b'-') {
                        j += 1;
                    }
                    if j < b.len() && b[j].is_ascii_digit() {
                        i = j;
                        while i < b.len() && b[i].is_ascii_digit() {
                            i += 1;
                        }
                    }
                }
            }
            if i < b.len() && (b[i].is_ascii_alphabetic() || b[i] == b'_') {
                return Err(err(
                    format!("invalid number `{}`", &src[start..=i]),
                    start,
                    i + 1,
                ));
            }
            out.push((T::Num(&src[start..i]), start, i));
            continue;
        }
        if c == b'\'' || c == b'"' {
            let Some(len) = src[i + 1..].find(c as char) else {
                return Err(err("unterminated string", start, start + 1));
            };
            let s = &src[i + 1..i + 1 + len];
            i += len + 2;
            out.push((T::Str(s), start, i));
            continue;
        }
        match c {
            b'(' => {
                out.push((T::LParen, i, i + 1));
                i += 1;
                continue;
            }
            b')' => {
                out.push((T::RParen, i, i + 1));
                i += 1;
                continue;
            }
            b';' => {
                out.push((T::Semi, i, i + 1));
                i += 1;
                continue;
            }
            _ => {}
        }
        if let Some(op) = OPS.iter().find(|op| src[i..].starts_with(**op)) {
            i += op.len();
            out.push((T::Op(op), start, i));
            continue;
        }
        let ch = src[i..].chars().next().unwrap_or('?');
        let mut e = err(
            format!("invalid character `{}` in script", ch.escape_debug()),
            i,
            i + ch.len_utf8(),
        );
        if ch == '%' {
            e.help = Some("BehaviorTree.CPP scripts have no `%` operator".into());
        }
        return Err(e);
    }
    Ok(out)
}

// ------------------------------------------------------------------------------ raw tree

/// A script expression as BehaviorTree.CPP reads it, parentheses kept as `Group`. Names,
/// numbers and strings borrow the script's text: the affect syntax tree made from it copies
/// them once.
#[derive(Clone, Debug, PartialEq)]
pub enum Raw<'s> {
    Num(&'s str),
    Str(&'s str),
    Bool(bool),
    Ident(&'s str),
    Unary(UnOp, Box<Raw<'s>>),
    Binary(BinOp, Box<Raw<'s>>, Box<Raw<'s>>),
    /// `a .. b`
    Concat(Box<Raw<'s>>, Box<Raw<'s>>),
    /// `a < b <= c`: operands and the operators between them.
    Chain(Vec<Raw<'s>>, Vec<BinOp>),
    Ternary(Box<Raw<'s>>, Box<Raw<'s>>, Box<Raw<'s>>),
    /// `x := e`, `x = e`, `x += e`, ...; `create` for `:=`.
    Assign {
        target: &'s str,
        op: AssignOp,
        create: bool,
        value: Box<Raw<'s>>,
    },
    Group(Box<Raw<'s>>),
}

struct Parser<'s> {
    toks: Vec<(T<'s>, usize, usize)>,
    pos: usize,
    len: usize,
    /// Real nesting around the current token: parentheses, prefix operators, `? :`, chained
    /// assignments ([`MAX_DEPTH`]).
    nesting: usize,
    /// The same plus every operator of the open chains: a bound on the depth of the tree
    /// being built ([`MAX_TREE`]).
    depth: usize,
    /// The operand and operator stacks of [`Parser::binary`], shared by every level of it
    /// (each works above the length it found): one pair of allocations per script.
    operands: Vec<Raw<'s>>,
    ops: Vec<(u8, Option<BinOp>, (usize, usize))>,
}

impl<'s> Parser<'s> {
    /// One level deeper (leave with [`Parser::up`]), or the limit's error.
    fn deeper(&mut self, levels: usize) -> Result<(), ScriptError> {
        self.depth += levels;
        self.nesting += levels;
        if self.nesting > MAX_DEPTH {
            return Err(too_deep(
                format!("the script nests deeper than {MAX_DEPTH} levels"),
                self.span(),
            ));
        }
        if self.depth > MAX_TREE {
            return Err(tree_too_deep(self.span()));
        }
        Ok(())
    }

    fn up(&mut self) {
        self.nesting -= 1;
        self.depth -= 1;
    }

    fn peek(&self) -> Option<&T<'s>> {
        self.toks.get(self.pos).map(|t| &t.0)
    }

    fn span(&self) -> (usize, usize) {
        self.toks
            .get(self.pos)
            .map(|t| (t.1, t.2))
            .unwrap_or((self.len, self.len))
    }

    fn unexpected(&self, what: &str) -> ScriptError {
        let (s, e) = self.span();
        match self.toks.get(self.pos) {
            None => err(format!("unexpected end of script, expected {what}"), s, e),
            Some(_) => err(format!("unexpected token, expected {what}"), s, e),
        }
    }

    fn statement(&mut self) -> Result<Raw<'s>, ScriptError> {
        let left = self.ternary()?;
        let op = match self.peek() {
            Some(T::Op(":=")) => Some((AssignOp::Set, true)),
            Some(T::Op("=")) => Some((AssignOp::Set, false)),
            Some(T::Op("+=")) => Some((AssignOp::Add, false)),
            Some(T::Op("-=")) => Some((AssignOp::Sub, false)),
            Some(T::Op("*=")) => Some((AssignOp::Mul, false)),
            Some(T::Op("/=")) => Some((AssignOp::Div, false)),
            _ => None,
        };
        let Some((op, create)) = op else {
            return Ok(left);
        };
        let Raw::Ident(target) = left else {
            let (s, e) = self.span();
            return Err(err("only a variable can be assigned", s, e));
        };
        self.pos += 1;
        self.deeper(1)?;
        let value = self.statement()?;
        self.up();
        Ok(Raw::Assign {
            target,
            op,
            create,
            value: Box::new(value),
        })
    }

    fn ternary(&mut self) -> Result<Raw<'s>, ScriptError> {
        let c = self.binary()?;
        if self.peek() != Some(&T::Op("?")) {
            return Ok(c);
        }
        self.pos += 1;
        self.deeper(1)?;
        let a = self.ternary()?;
        if self.peek() != Some(&T::Op(":")) {
            return Err(self.unexpected("`:` of `? :`"));
        }
        self.pos += 1;
        let b = self.ternary()?;
        self.up();
        Ok(Raw::Ternary(Box::new(c), Box::new(a), Box::new(b)))
    }

    /// Binary operators by level: 0 `||`, 1 `&&`, 2 comparisons, 3 `| ^`, 4 `&`, 5 `+ - ..`,
    /// 6 `* /`. One loop with an operator stack (precedence climbing without recursion), so a
    /// chain of any length costs no stack: `a + b + c` nests no deeper than `a`. The tree it
    /// builds is as deep as its chains are long, which [`MAX_TREE`] bounds for the passes after.
    fn binary(&mut self) -> Result<Raw<'s>, ScriptError> {
        let first = self.unary()?;
        if self.peek().and_then(bin_op).is_none() {
            return Ok(first);
        }
        // Pending operators: (level, operator, where it stands); `None` is `..`. This level's
        // operands and operators are the ones above `base` and `ops_base` (an operand may hold
        // a nested `binary`, which returns with the stacks as it found them).
        let (base, ops_base) = (self.operands.len(), self.ops.len());
        self.operands.push(first);
        let depth = self.depth;
        while let Some((level, op)) = self.peek().and_then(bin_op) {
            let at = self.span();
            self.pos += 1;
            while self.ops.len() > ops_base && self.ops.last().is_some_and(|&(l, ..)| l >= level) {
                reduce(&mut self.operands, &mut self.ops);
            }
            self.ops.push((level, op, at));
            // Every operator may put what is before it one level deeper.
            self.depth += 1;
            if self.depth > MAX_TREE {
                self.depth = depth;
                return Err(tree_too_deep(at));
            }
            let next = self.unary()?;
            self.operands.push(next);
        }
        while self.ops.len() > ops_base {
            reduce(&mut self.operands, &mut self.ops);
        }
        self.depth = depth;
        debug_assert_eq!(self.operands.len(), base + 1);
        Ok(self.operands.pop().expect("one operand"))
    }

    fn unary(&mut self) -> Result<Raw<'s>, ScriptError> {
        let op = match self.peek() {
            Some(T::Op("-")) => Some(UnOp::Neg),
            Some(T::Op("!")) => Some(UnOp::Not),
            Some(T::Op("~")) => Some(UnOp::BitNot),
            _ => None,
        };
        if let Some(op) = op {
            self.pos += 1;
            self.deeper(1)?;
            let inner = self.unary()?;
            self.up();
            return Ok(Raw::Unary(op, Box::new(inner)));
        }
        self.atom()
    }

    fn atom(&mut self) -> Result<Raw<'s>, ScriptError> {
        let tok = self.peek().copied();
        let raw = match tok {
            Some(T::Num(n)) => Raw::Num(n),
            Some(T::Str(s)) => Raw::Str(s),
            Some(T::True) => Raw::Bool(true),
            Some(T::False) => Raw::Bool(false),
            Some(T::Ident(s)) => Raw::Ident(s),
            Some(T::LParen) => {
                self.deeper(1)?;
                self.pos += 1;
                let inner = self.statement()?;
                if self.peek() != Some(&T::RParen) {
                    return Err(self.unexpected("`)`"));
                }
                self.pos += 1;
                self.up();
                return Ok(Raw::Group(Box::new(inner)));
            }
            _ => return Err(self.unexpected("a value, a name or `(`")),
        };
        self.pos += 1;
        Ok(raw)
    }
}

/// A binary operator token: its level (see [`Parser::binary`]) and operator (`None` for `..`).
fn bin_op(t: &T) -> Option<(u8, Option<BinOp>)> {
    let T::Op(op) = t else { return None };
    let (l, b) = match *op {
        "||" => (0, BinOp::Or),
        "&&" => (1, BinOp::And),
        "==" => (2, BinOp::Eq),
        "!=" => (2, BinOp::Ne),
        "<" => (2, BinOp::Lt),
        "<=" => (2, BinOp::Le),
        ">" => (2, BinOp::Gt),
        ">=" => (2, BinOp::Ge),
        "|" => (3, BinOp::BitOr),
        "^" => (3, BinOp::BitXor),
        "&" => (4, BinOp::BitAnd),
        "+" => (5, BinOp::Add),
        "-" => (5, BinOp::Sub),
        ".." => return Some((5, None)),
        "*" => (6, BinOp::Mul),
        "/" => (6, BinOp::Div),
        _ => return None,
    };
    Some((l, Some(b)))
}

/// Applies the last pending operator to the last two operands. Comparisons chain: `a < b < c`
/// is one `Chain` (BehaviorTree.CPP reads it as `a < b && b < c`).
fn reduce(operands: &mut Vec<Raw<'_>>, ops: &mut Vec<(u8, Option<BinOp>, (usize, usize))>) {
    let (level, op, _) = ops.pop().expect("an operator");
    let right = operands.pop().expect("a right operand");
    let left = operands.pop().expect("a left operand");
    operands.push(match op {
        None => Raw::Concat(Box::new(left), Box::new(right)),
        Some(op) if level == 2 => match left {
            Raw::Chain(mut terms, mut cmps) => {
                terms.push(right);
                cmps.push(op);
                Raw::Chain(terms, cmps)
            }
            left => Raw::Chain(vec![left, right], vec![op]),
        },
        // BehaviorTree.CPP's `+` concatenates two strings (`'My name is ' + name`): with a
        // string literal on either side it is `..`.
        Some(BinOp::Add) if is_text(&left) || is_text(&right) => {
            Raw::Concat(Box::new(left), Box::new(right))
        }
        Some(op) => Raw::Binary(op, Box::new(left), Box::new(right)),
    });
}

/// A string literal or concatenation, through parentheses (a loop: no recursion on input).
fn is_text(mut r: &Raw<'_>) -> bool {
    while let Raw::Group(inner) = r {
        r = inner;
    }
    matches!(r, Raw::Str(_) | Raw::Concat(..))
}

/// Beyond [`MAX_TREE`] (a long chain, or nesting inside one).
fn tree_too_deep(at: (usize, usize)) -> ScriptError {
    too_deep(
        format!(
            "the script nests deeper than {MAX_TREE} levels counting every operator of its chains"
        ),
        at,
    )
}

fn too_deep(message: String, (start, end): (usize, usize)) -> ScriptError {
    ScriptError {
        too_deep: true,
        help: Some("split the script into several nodes, or name parts of it".into()),
        ..err(message, start, end)
    }
}

/// Parses a script: statements separated by `;`. An empty script is refused, as
/// BehaviorTree.CPP does.
pub fn parse(src: &str) -> Result<Vec<Raw<'_>>, ScriptError> {
    let toks = lex(src)?;
    let mut p = Parser {
        toks,
        pos: 0,
        len: src.len(),
        nesting: 0,
        depth: 0,
        operands: Vec::new(),
        ops: Vec::new(),
    };
    let mut stmts = Vec::new();
    loop {
        while p.peek() == Some(&T::Semi) {
            p.pos += 1;
        }
        if p.peek().is_none() {
            break;
        }
        stmts.push(p.statement()?);
        match p.peek() {
            None => break,
            Some(T::Semi) => {}
            Some(_) => return Err(p.unexpected("`;` or the end of the script")),
        }
    }
    if stmts.is_empty() {
        return Err(ScriptError {
            help: Some("BehaviorTree.CPP refuses a script without a statement".into()),
            ..err("empty script", 0, src.len())
        });
    }
    Ok(stmts)
}

// ------------------------------------------------------------------------------ to affect

/// Why a well-formed script has no affect form (an assignment inside an expression, a name
/// affect cannot spell). The importer then keeps the script text as it is.
#[derive(Debug)]
pub struct Untranslatable;

fn dummy_expr(kind: ExprKind) -> Expr {
    Expr {
        kind,
        span: Span::DUMMY,
    }
}

/// The affect number literal for a script number, when affect spells it the same way.
pub fn number(text: &str) -> Option<NumLit> {
    // The usual spellings, without running the lexer: `12`, `0.5`, `1e-3`, `0x1F`.
    let b = text.as_bytes();
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > start
    };
    let mut i = 0;
    if b.len() > 2 && b[0] == b'0' && matches!(b[1], b'x' | b'X') {
        if b[2..].iter().all(u8::is_ascii_hexdigit) {
            let v = u64::from_str_radix(&text[2..], 16)
                .ok()
                .filter(|v| *v <= 1 << 53)?;
            return Some(NumLit {
                value: v as f64,
                integer: true,
                unit: None,
                text: text.to_string(),
            });
        }
    } else if digits(&mut i) {
        let mut integer = true;
        if i < b.len() && b[i] == b'.' {
            i += 1;
            integer = false;
            if !digits(&mut i) {
                return None;
            }
        }
        if i < b.len() && matches!(b[i], b'e' | b'E') {
            i += 1;
            integer = false;
            if i < b.len() && matches!(b[i], b'+' | b'-') {
                i += 1;
            }
            if !digits(&mut i) {
                return None;
            }
        }
        if i == b.len() {
            return Some(NumLit {
                value: text.parse().ok()?,
                integer,
                unit: None,
                text: text.to_string(),
            });
        }
    }
    if !b.first().is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let lexed = crate::syntax::lexer::lex(text);
    if !lexed.diagnostics.is_empty() || lexed.tokens.len() != 1 {
        return None;
    }
    match &lexed.tokens[0].1 {
        Tok::Num(n) if n.unit.is_none() && n.text == text => Some(NumLit::clone(n)),
        _ => None,
    }
}

fn name_expr(name: &str) -> Result<Expr, Untranslatable> {
    if let Some(key) = name.strip_prefix('@') {
        if !crate::fmt::is_plain_ident(key) {
            return Err(Untranslatable);
        }
        return Ok(dummy_expr(ExprKind::Root(Ident::new(key, Span::DUMMY))));
    }
    if name.contains('`') || name.is_empty() {
        return Err(Untranslatable);
    }
    Ok(Expr::name(name, Span::DUMMY))
}

/// Binding power as the formatter sees it (atoms and calls 9, unary 8, ternary 0).
fn power(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Ternary(..) => 0,
        ExprKind::Binary(op, ..) => op.precedence(),
        ExprKind::Unary(..) => 8,
        _ => 9,
    }
}

/// Where an operand stands, to decide whether precedence needs parentheses around it there.
#[derive(Clone, Copy)]
enum Pos {
    Left(BinOp),
    Right(BinOp),
    Cond,
    /// A ternary branch or a `concat` argument: never needs parentheses.
    Free,
}

fn required(e: &Expr, pos: Pos) -> bool {
    match pos {
        Pos::Left(op) => {
            let p = op.precedence();
            power(e) < p || (op.is_comparison() && power(e) == p)
        }
        Pos::Right(op) => power(e) <= op.precedence(),
        Pos::Cond => power(e) == 0,
        Pos::Free => false,
    }
}

/// Compound expressions get generated parentheses when they are operands.
pub fn is_compound(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Binary(..) | ExprKind::Ternary(..)) || concat_args(e).is_some()
}

/// `concat(a, b)`: the affect spelling of BehaviorTree.CPP's `a .. b`.
pub fn concat_args(e: &Expr) -> Option<(&Expr, &Expr)> {
    let ExprKind::Call(f, args) = &e.kind else {
        return None;
    };
    let ExprKind::Name(p) = &f.kind else {
        return None;
    };
    if p.segments.len() != 1 || p.segments[0].name != "concat" || args.rest.is_some() {
        return None;
    }
    match args.args.as_slice() {
        [a, b] if a.name.is_none() && b.name.is_none() => Some((&a.value, &b.value)),
        _ => None,
    }
}

fn paren(e: Expr) -> Expr {
    dummy_expr(ExprKind::Paren(Box::new(e)))
}

fn operand(raw: &Raw, pos: Pos) -> Result<Expr, Untranslatable> {
    if let Raw::Group(g) = raw {
        let inner = expr(g)?;
        if is_compound(&inner) && !required(&inner, pos) {
            return Ok(inner);
        }
        if let Raw::Group(h) = &**g {
            let innermost = expr(h)?;
            if is_compound(&innermost) && !required(&innermost, pos) {
                return Ok(paren(innermost));
            }
        }
        return Ok(paren(inner));
    }
    expr(raw)
}

fn binary(op: BinOp, a: Expr, b: Expr) -> Expr {
    dummy_expr(ExprKind::Binary(op, Box::new(a), Box::new(b)))
}

/// Converts one script expression (no assignment) to affect.
pub fn expr(raw: &Raw) -> Result<Expr, Untranslatable> {
    Ok(match raw {
        Raw::Num(text) => dummy_expr(ExprKind::Num(number(text).ok_or(Untranslatable)?)),
        Raw::Str(s) => dummy_expr(ExprKind::Str(s.to_string())),
        Raw::Bool(b) => dummy_expr(ExprKind::Bool(*b)),
        Raw::Ident(name) => name_expr(name)?,
        Raw::Group(g) => paren(expr(g)?),
        Raw::Unary(op, inner) => {
            let operand = match &**inner {
                Raw::Group(g) => paren(expr(g)?),
                other => expr(other)?,
            };
            dummy_expr(ExprKind::Unary(*op, Box::new(operand)))
        }
        Raw::Binary(op, a, b) => binary(
            *op,
            operand(a, Pos::Left(*op))?,
            operand(b, Pos::Right(*op))?,
        ),
        Raw::Concat(a, b) => {
            let arg = |r: &Raw| -> Result<Arg, Untranslatable> {
                Ok(Arg {
                    name: None,
                    value: operand(r, Pos::Free)?,
                    span: Span::DUMMY,
                })
            };
            dummy_expr(ExprKind::Call(
                Box::new(Expr::name("concat", Span::DUMMY)),
                ArgList {
                    args: vec![arg(a)?, arg(b)?],
                    rest: None,
                    span: Span::DUMMY,
                },
            ))
        }
        Raw::Chain(operands, ops) => {
            // `a < b < c` is `a < b && b < c` in BehaviorTree.CPP; affect spells that out.
            let mut result: Option<Expr> = None;
            for (i, op) in ops.iter().enumerate() {
                let cmp = binary(
                    *op,
                    operand(&operands[i], Pos::Left(*op))?,
                    operand(&operands[i + 1], Pos::Right(*op))?,
                );
                result = Some(match result {
                    None => cmp,
                    Some(prev) => binary(BinOp::And, prev, cmp),
                });
            }
            result.ok_or(Untranslatable)?
        }
        Raw::Ternary(c, a, b) => dummy_expr(ExprKind::Ternary(
            Box::new(operand(c, Pos::Cond)?),
            Box::new(operand(a, Pos::Free)?),
            Box::new(operand(b, Pos::Free)?),
        )),
        Raw::Assign { .. } => return Err(Untranslatable),
    })
}

/// Converts a script to affect statements (`do { ... }`, `on_success { ... }`).
pub fn block(stmts: &[Raw]) -> Result<Block, Untranslatable> {
    let mut out = Vec::new();
    for s in stmts {
        let kind = match s {
            Raw::Assign {
                target, op, value, ..
            } => StmtKind::Assign {
                target: name_expr(target)?,
                op: *op,
                value: expr(value)?,
            },
            other => StmtKind::Expr(expr(other)?),
        };
        out.push(Stmt {
            kind,
            span: Span::DUMMY,
        });
    }
    Ok(Block {
        stmts: out,
        span: Span::DUMMY,
    })
}

/// Converts a script that is one expression (`ScriptCondition`, `_skipIf`, ...) to affect.
pub fn condition(stmts: &[Raw]) -> Result<Expr, Untranslatable> {
    match stmts {
        [one] => expr(one),
        _ => Err(Untranslatable),
    }
}

// ------------------------------------------------------------------------------ to scripts

mod write;
pub use write::Writer;

/// A name BehaviorTree.CPP's script tokenizer reads as one identifier.
pub fn is_script_ident(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '_') && s != "true" && s != "false"
}

/// A number as a script literal: the affect spelling when the script lexer reads it the same
/// way, else the value (units converted to SI base units: seconds, metres, radians, hertz).
pub fn number_text(n: &NumLit) -> String {
    if n.unit.is_none() && !n.text.contains('_') {
        return n.text.clone();
    }
    let v = si_value(n);
    format_f64(v, n.integer && n.unit.is_none())
}

pub fn si_value(n: &NumLit) -> f64 {
    let factor = match n.unit {
        None => 1.0,
        Some(Unit::Ms) => 0.001,
        Some(Unit::S) => 1.0,
        Some(Unit::Min) => 60.0,
        Some(Unit::H) => 3600.0,
        Some(Unit::Hz) => 1.0,
        Some(Unit::KHz) => 1000.0,
        Some(Unit::Mm) => 0.001,
        Some(Unit::Cm) => 0.01,
        Some(Unit::M) => 1.0,
        Some(Unit::Ft) => 0.3048,
        Some(Unit::Deg) => std::f64::consts::PI / 180.0,
    };
    n.value * factor
}

/// The shortest spelling of a double that reads back to the same value; integral values of a
/// `double` keep a `.0` so BehaviorTree.CPP stores a double, not an integer.
pub fn format_f64(v: f64, integer: bool) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        if integer {
            format!("{}", v as i64)
        } else {
            format!("{:.1}", v)
        }
    } else {
        format!("{v}")
    }
}

/// A statement's affect text on one line (names host entries and fills diagnostics).
pub fn stmt_text(s: &Stmt) -> String {
    use crate::fmt::format_expr as e;
    match &s.kind {
        StmtKind::Assign { target, op, value } => {
            format!("{} {} {}", e(target), op.as_str(), e(value))
        }
        StmtKind::Expr(x) => e(x),
        StmtKind::If { cond, .. } => format!("if {} {{ .. }}", e(cond)),
        StmtKind::Error => "<error>".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fmt::format_file;

    #[test]
    fn deep_scripts_are_refused_at_the_limit_and_never_overflow() {
        let n = 10_000;
        for deep in [
            format!("{}x{}", "(".repeat(n), ")".repeat(n)),
            format!("x := {}1", "-".repeat(n)),
            format!("x := {}", "!".repeat(n) + "b"),
            format!("x := {}", vec!["a"; n].join(" + ")),
            format!("x := {}", vec!["'s'"; n].join(" .. ")),
            (0..n).map(|i| format!("x{i} = ")).collect::<String>() + "1",
            format!("x := {}1", "c ? ".repeat(n) + &"1 : ".repeat(n)),
        ] {
            let e = parse(&deep).expect_err("too deep");
            assert!(e.too_deep, "{}", e.message);
        }
        // At the limits it parses: real nesting up to MAX_DEPTH, chains far longer.
        let at = MAX_DEPTH - 1;
        assert!(parse(&format!("{}x{}", "(".repeat(at), ")".repeat(at))).is_ok());
        assert!(parse(&format!("x := {}1", "-".repeat(at))).is_ok());
        assert!(parse(&vec!["a"; 1000].join(" + ")).is_ok());
        assert!(parse(&vec!["a"; MAX_TREE + 1].join(" + ")).is_ok());
        assert!(
            parse(&vec!["a"; MAX_TREE + 2].join(" + "))
                .unwrap_err()
                .too_deep
        );
        // Nesting inside a chain at the tree's limit is refused for the tree's limit.
        let e = parse(&(vec!["a"; MAX_TREE].join(" + ") + " + ((a))")).unwrap_err();
        assert!(e.message.contains(&MAX_TREE.to_string()), "{}", e.message);
        // Operators of one chain do not count as nesting: 200 parentheses around a long sum.
        let sum = vec!["a"; 300].join(" - ");
        assert!(parse(&format!("{}{sum}{}", "(".repeat(200), ")".repeat(200))).is_ok());
    }

    #[test]
    fn chains_keep_precedence_and_associativity() {
        let raw = |s: &str| format!("{:?}", parse(s).expect("parses")[0]);
        assert_eq!(
            raw("a - b + c * d"),
            r#"Binary(Add, Binary(Sub, Ident("a"), Ident("b")), Binary(Mul, Ident("c"), Ident("d")))"#
        );
        assert!(raw("a < b <= c").starts_with("Chain(["));
        assert!(raw("a + b .. c").starts_with("Concat(Binary(Add"));
        assert!(
            raw("'a' + b").starts_with("Concat(Str"),
            "{}",
            raw("'a' + b")
        );
        assert!(raw("(a .. 'b') + c").starts_with("Concat(Group"));
        assert!(raw("a + 1").starts_with("Binary(Add"));
        assert!(raw("a || b && c").starts_with("Binary(Or"));
        assert!(raw("a & b | c ^ d").starts_with("Binary(BitXor, Binary(BitOr, Binary(BitAnd"));
    }

    #[test]
    fn names_starting_with_a_multibyte_letter_lex() {
        // Found by the mutation test: the `@` check sliced inside a character.
        assert!(parse("ég := 1").is_ok());
        assert!(parse("x := ég + 1; ü").is_ok());
    }

    fn affect_expr(src: &str) -> String {
        let raw = parse(src).unwrap();
        let b = block(&raw).unwrap();
        let file = File {
            items: vec![Item {
                doc: None,
                attrs: vec![],
                kind: ItemKind::Tree(TreeDecl {
                    is_main: false,
                    name: Ident::new("T", Span::DUMMY),
                    ports: Default::default(),
                    locals: vec![],
                    body: NodeBlock {
                        nodes: vec![Node {
                            doc: None,
                            attrs: vec![],
                            label: None,
                            kind: NodeKind::Script(b),
                            modifiers: vec![],
                            span: Span::DUMMY,
                        }],
                        span: Span::DUMMY,
                    },
                }),
                span: Span::DUMMY,
            }],
            span: Span::DUMMY,
        };
        let text = format_file(&file, &[], None);
        text.lines().nth(1).unwrap().trim().to_string()
    }

    #[test]
    fn scripts_become_affect() {
        assert_eq!(affect_expr("a := 1; b += 2"), "do { a = 1; b += 2 }");
        assert_eq!(
            affect_expr("x := \"a\" .. y"),
            "do { x = concat(\"a\", y) }"
        );
        assert_eq!(
            affect_expr("A>B && color!=BLUE"),
            "do { A > B and color != BLUE }"
        );
        assert_eq!(affect_expr("(a + b) * 2"), "do { (a + b) * 2 }");
        assert_eq!(affect_expr("a + (b * 2)"), "do { a + b * 2 }");
        assert_eq!(affect_expr("!(a && b)"), "do { not (a and b) }");
        assert_eq!(affect_expr("1 < x < 3"), "do { 1 < x and x < 3 }");
        assert_eq!(affect_expr("@goal := 0x1F"), "do { @goal = 0x1F }");
        assert_eq!(affect_expr("c ? 'a' : 'b'"), "do { c ? \"a\" : \"b\" }");
    }

    #[test]
    fn broken_scripts_are_errors() {
        assert!(parse("").is_err());
        assert!(parse("a % 2").is_err());
        assert!(parse("a := ").is_err());
        assert!(parse("1 := a").is_err());
        assert!(parse("'abc").is_err());
        assert!(parse("a b").is_err());
        assert!(parse(";;a;;").is_ok());
    }

    fn written(src: &str) -> String {
        let parsed = crate::syntax::parse(&format!("tree T {{ do {{ {src} }} }}"));
        assert!(parsed.diagnostics.is_empty());
        let ItemKind::Tree(t) = &parsed.file.items[0].kind else {
            panic!()
        };
        let NodeKind::Script(b) = &t.body.nodes[0].kind else {
            panic!()
        };
        let mut host = |_: &str, _: Span| "_affect_host".to_string();
        let variant = |p: &Path| Some(p.last().name.clone());
        let mut w = Writer {
            host: &mut host,
            enum_variant: &variant,
            constant: &|_| None,
        };
        w.block(b)
    }

    #[test]
    fn affect_becomes_scripts_and_back() {
        for (src, script) in [
            ("x = a - b + c", "x := (a - b) + c"),
            ("x = (a + b) / 2", "x := (a + b) / 2"),
            ("x = a + (b * c)", "x := a + ((b * c))"),
            ("y = not (a and b)", "y := !(a && b)"),
            ("s = concat(\"n\", i)", "s := 'n' .. i"),
            ("d = 2s", "d := 2.0"),
            ("e = Mode::Fast", "e := Fast"),
            ("f = g(1)", "f := _affect_host"),
            ("k = c ? a + 1 : b", "k := c ? (a + 1) : b"),
            ("m = max(v - 40, 0)", "m := ((v - 40) > 0) ? (v - 40) : 0"),
            ("m = min(a, b) + 1", "m := ((a < b) ? a : b) + 1"),
            ("m = abs(a)", "m := (a < 0) ? -a : a"),
            (
                "m = clamp(x, 0, 10) == x",
                "m := ((x < 0) ? 0 : ((x > 10) ? 10 : x)) == x",
            ),
            ("m = max(a, b: 1)", "m := _affect_host"),
        ] {
            assert_eq!(written(src), script, "{src}");
        }
        // What is written reads back to the same affect.
        for src in [
            "x = a - b + c",
            "x = (a + b) / 2",
            "x = a + (b * c)",
            "y = not (a and b)",
            "k = c ? a + 1 : b",
        ] {
            let back = affect_expr(&written(src));
            assert_eq!(back, format!("do {{ {src} }}"));
        }
    }
}
