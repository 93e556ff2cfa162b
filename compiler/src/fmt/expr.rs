//! Printing expressions, types, names and literals on one line. Parentheses are added only
//! where precedence needs them (trees built by the XML importer have none); parentheses the
//! user wrote are `Paren` nodes and print as written.

use crate::syntax::ast::*;
use crate::syntax::token::Kw;

/// Binding power of an expression's top operator; atoms and postfix forms bind tightest.
fn power(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Ternary(..) => 0,
        ExprKind::Binary(op, ..) => op.precedence(),
        ExprKind::Unary(..) => 8,
        _ => 9,
    }
}

pub fn is_plain_ident(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    s != "_" && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A name where any name may stand: plain, or quoted in backticks when it is not an
/// identifier or is a hard keyword.
pub fn name(s: &str) -> String {
    let hard = Kw::from_word(s).is_some_and(Kw::is_hard);
    if is_plain_ident(s) && !hard {
        s.to_string()
    } else {
        format!("`{s}`")
    }
}

/// A port or argument name: hard keywords that cannot start an expression stay bare
/// (`if: ..`, `else: ..` on BehaviorTree.CPP's Precondition).
pub fn arg_name(s: &str) -> String {
    const BARE: &[&str] = &[
        "if", "else", "in", "out", "inout", "while", "for", "do", "check", "switch", "when",
        "after", "use", "const", "enum", "var", "let",
    ];
    if BARE.contains(&s) {
        s.to_string()
    } else {
        name(s)
    }
}

pub fn path(p: &Path) -> String {
    p.segments
        .iter()
        .map(|s| name(&s.name))
        .collect::<Vec<_>>()
        .join("::")
}

pub fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

pub fn expr(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Num(n) => n.text.clone(),
        ExprKind::Str(s) => string(s),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Name(p) => path(p),
        ExprKind::Root(id) => {
            if is_plain_ident(&id.name) {
                format!("@{}", id.name)
            } else {
                // Not expressible as `@key`; keep it visible rather than lose it.
                format!(
                    "@{}",
                    id.name.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
                )
            }
        }
        ExprKind::Unary(op, inner) => {
            let s = wrap_if(inner, power(inner) < 8);
            match op {
                // `- -x`: a space keeps the two minus signs readable.
                UnOp::Neg if s.starts_with('-') => format!("- {s}"),
                _ => format!("{}{s}", op.as_str()),
            }
        }
        ExprKind::Binary(op, a, b) => {
            let p = op.precedence();
            // Left-associative: the right operand needs parentheses at equal power;
            // comparisons do not chain, so they need them on both sides.
            let left = wrap_if(a, power(a) < p || (op.is_comparison() && power(a) == p));
            let right = wrap_if(b, power(b) <= p);
            format!("{left} {} {right}", op.as_str())
        }
        ExprKind::Ternary(c, a, b) => {
            format!("{} ? {} : {}", wrap_if(c, power(c) == 0), expr(a), expr(b))
        }
        ExprKind::Call(f, args) => format!("{}{}", postfix_target(f), arg_list(args)),
        ExprKind::Field(t, f) => format!("{}.{}", postfix_target(t), name(&f.name)),
        ExprKind::Index(t, i) => format!("{}[{}]", postfix_target(t), expr(i)),
        ExprKind::List(items) => format!("[{}]", list(items)),
        ExprKind::Tuple(items) => format!("({})", list(items)),
        ExprKind::Paren(inner) => format!("({})", expr(inner)),
        ExprKind::Error => "<error>".to_string(),
    }
}

fn postfix_target(e: &Expr) -> String {
    wrap_if(e, power(e) < 9)
}

fn wrap_if(e: &Expr, wrap: bool) -> String {
    if wrap && !matches!(e.kind, ExprKind::Paren(_)) {
        format!("({})", expr(e))
    } else {
        expr(e)
    }
}

fn list(items: &[Expr]) -> String {
    items.iter().map(expr).collect::<Vec<_>>().join(", ")
}

pub fn arg(a: &Arg) -> String {
    match &a.name {
        Some(n) => format!("{}: {}", arg_name(&n.name), expr(&a.value)),
        None => expr(&a.value),
    }
}

/// `(a, b: c, ..)` on one line.
pub fn arg_list(args: &ArgList) -> String {
    let mut parts: Vec<String> = args.args.iter().map(arg).collect();
    if args.rest.is_some() {
        parts.push("..".into());
    }
    format!("({})", parts.join(", "))
}

/// [`arg_list`] when it is at most `max` characters, else `None`, found without writing
/// out a long list (a call with 200,000 arguments is never printed on one line).
pub fn arg_list_within(args: &ArgList, max: usize) -> Option<String> {
    let mut out = String::from("(");
    let rest = args.rest.map(|_| "..".to_string());
    for (i, part) in args.args.iter().map(arg).chain(rest).enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&part);
        if out.chars().count() > max {
            return None;
        }
    }
    out.push(')');
    (out.chars().count() <= max).then_some(out)
}

pub fn ty(t: &Type) -> String {
    match &t.kind {
        TypeKind::Named(p) => path(p),
        TypeKind::Range(base, lo, hi) => format!("{} in {}..{}", ty(base), expr(lo), expr(hi)),
        TypeKind::List(inner) => format!("[{}]", ty(inner)),
        TypeKind::Foreign(s) => string(s),
        TypeKind::Error => "<error>".to_string(),
    }
}

pub fn pattern(p: &Pattern) -> String {
    match p {
        Pattern::Wildcard(_) => "_".into(),
        Pattern::Expr(e) => expr(e),
    }
}

pub fn port(p: &PortDecl) -> String {
    let mut s = format!("{} {}", p.dir.keyword(), arg_name(&p.name.name));
    if let Some(t) = &p.ty {
        s.push_str(": ");
        s.push_str(&ty(t));
    }
    if let Some(d) = &p.default {
        s.push_str(" = ");
        s.push_str(&expr(d));
    }
    s
}

pub fn field(f: &Field) -> String {
    format!("{}: {}", arg_name(&f.key.name), expr(&f.value))
}

pub fn attr(a: &Attr) -> String {
    match &a.value {
        Some(v) => format!("#[{} = {}]", arg_name(&a.name.name), expr(v)),
        None => format!("#[{}]", arg_name(&a.name.name)),
    }
}

pub fn label(l: &Label) -> String {
    if l.quoted {
        string(&l.text)
    } else {
        name(&l.text)
    }
}

/// A setting's head and value, without the terminator: `grid 5 x 5 cell 24cm`.
pub fn setting_head(s: &Setting) -> String {
    let mut out = name(&s.key.name);
    if !s.args.is_empty() {
        out.push(' ');
        out.push_str(&list(&s.args));
    }
    for (k, v) in &s.pairs {
        out.push(' ');
        out.push_str(&name(&k.name));
        out.push(' ');
        out.push_str(&expr(v));
    }
    if let Some(a) = &s.assign {
        out.push_str(" = ");
        out.push_str(&expr(a));
    }
    if let Some(v) = &s.value {
        out.push_str(": ");
        out.push_str(&expr(v));
    }
    out
}
