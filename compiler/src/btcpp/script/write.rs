//! Writing affect expressions and statements as BehaviorTree.CPP 4.x scripts (the
//! exporter's half of `script.rs`; parentheses as its module documentation says).

use super::*;

/// Writes affect expressions as BehaviorTree.CPP 4.x scripts. Expressions a script cannot
/// hold (calls, fields, lists, `if` statements, ...) go through `host`, which gets their affect
/// text and span and names the blackboard entry the affect runtime provides in their place.
pub struct Writer<'h> {
    pub host: &'h mut dyn FnMut(&str, Span) -> String,
    /// The variant name written for an `Enum::Variant` path.
    pub enum_variant: &'h dyn Fn(&Path) -> Option<String>,
    /// The literal value of a name that is a constant (written in its place).
    pub constant: &'h dyn Fn(&str) -> Option<Expr>,
}

impl Writer<'_> {
    pub fn block(&mut self, b: &Block) -> String {
        let parts: Vec<String> = b.stmts.iter().map(|s| self.stmt(s)).collect();
        parts.join("; ")
    }

    pub fn stmt(&mut self, s: &Stmt) -> String {
        match &s.kind {
            StmtKind::Assign { target, op, value } => {
                let target_text = match &target.kind {
                    ExprKind::Name(p)
                        if p.segments.len() == 1 && is_script_ident(&p.segments[0].name) =>
                    {
                        p.segments[0].name.clone()
                    }
                    ExprKind::Root(id) if is_script_ident(&id.name) => format!("@{}", id.name),
                    _ => return (self.host)(&stmt_text(s), s.span),
                };
                // `:=` creates the entry when it is missing; affect has declared it already.
                let op_text = match op {
                    AssignOp::Set => ":=",
                    other => other.as_str(),
                };
                join(&[&target_text, " ", op_text, " ", &self.top(value)])
            }
            StmtKind::Expr(e) => self.top(e),
            StmtKind::If { .. } | StmtKind::Error => (self.host)(&stmt_text(s), s.span),
        }
    }

    pub fn top(&mut self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Num(n) => number_text(n),
            ExprKind::Str(s) if !s.contains('\'') => format!("'{s}'"),
            ExprKind::Bool(b) => b.to_string(),
            ExprKind::Name(p) if p.segments.len() == 1 => {
                match (self.constant)(&p.segments[0].name) {
                    Some(c) => self.top(&c),
                    None if is_script_ident(&p.segments[0].name) => p.segments[0].name.clone(),
                    None => (self.host)(&crate::fmt::format_expr(e), e.span),
                }
            }
            ExprKind::Name(p) if p.segments.len() > 1 => match (self.enum_variant)(p) {
                Some(v) if is_script_ident(&v) => v,
                _ => (self.host)(&crate::fmt::format_expr(e), e.span),
            },
            ExprKind::Root(id) if is_script_ident(&id.name) => format!("@{}", id.name),
            ExprKind::Paren(x) => parens(self.top(x)),
            ExprKind::Unary(op, x) => {
                let op_text = match op {
                    UnOp::Neg => "-",
                    UnOp::Not => "!",
                    UnOp::BitNot => "~",
                };
                let inner = match &x.kind {
                    ExprKind::Paren(y) => parens(self.top(y)),
                    _ if is_compound(x) || as_ternary(x).is_some() => parens(self.top(x)),
                    ExprKind::Unary(..) => join(&[" ", &self.top(x)]),
                    _ => self.top(x),
                };
                join(&[op_text, &inner])
            }
            ExprKind::Binary(op, a, b) => {
                let op_text = match op {
                    BinOp::Or => "||",
                    BinOp::And => "&&",
                    other => other.as_str(),
                };
                let left = self.operand(a, Pos::Left(*op));
                let right = self.operand(b, Pos::Right(*op));
                join(&[&left, " ", op_text, " ", &right])
            }
            ExprKind::Ternary(c, a, b) => {
                let c = self.operand(c, Pos::Cond);
                let a = self.operand(a, Pos::Free);
                let b = self.operand(b, Pos::Free);
                join(&[&c, " ? ", &a, " : ", &b])
            }
            ExprKind::Call(..) if as_ternary(e).is_some() => {
                let t = as_ternary(e).expect("checked");
                self.top(&t)
            }
            ExprKind::Call(..) if concat_args(e).is_some() => {
                let (a, b) = concat_args(e).expect("checked");
                let a = self.operand(a, Pos::Free);
                let b = self.operand(b, Pos::Free);
                join(&[&a, " .. ", &b])
            }
            _ => (self.host)(&crate::fmt::format_expr(e), e.span),
        }
    }

    fn operand(&mut self, e: &Expr, pos: Pos) -> String {
        if is_compound(e) || as_ternary(e).is_some() {
            return parens(self.top(e));
        }
        if let ExprKind::Paren(x) = &e.kind {
            if is_compound(x) && !required(x, pos) {
                return join(&["((", &self.top(x), "))"]);
            }
        }
        self.top(e)
    }
}

/// The parts one after another, in one allocation: the writer runs for every script the
/// XML import reads (it checks the export would spell the script alike), and `format!` per
/// operator was a tenth of a 10,000-node import.
fn join(parts: &[&str]) -> String {
    let mut s = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    for p in parts {
        s.push_str(p);
    }
    s
}

/// `(text)`.
fn parens(text: String) -> String {
    join(&["(", &text, ")"])
}

/// `min`, `max`, `abs` and `clamp` of plain arguments as the conditional expression scripts can
/// hold (`max(a, b)` is `(a > b) ? a : b`), so BehaviorTree.CPP computes them itself.
fn as_ternary(e: &Expr) -> Option<Expr> {
    let ExprKind::Call(f, args) = &e.kind else {
        return None;
    };
    let ExprKind::Name(p) = &f.kind else {
        return None;
    };
    if p.segments.len() != 1 || args.rest.is_some() || args.args.iter().any(|a| a.name.is_some()) {
        return None;
    }
    let x: Vec<&Expr> = args.args.iter().map(|a| &a.value).collect();
    let mk = |kind| Expr { kind, span: e.span };
    let cmp = |op, a: &Expr, b: &Expr| {
        mk(ExprKind::Binary(
            op,
            Box::new(a.clone()),
            Box::new(b.clone()),
        ))
    };
    let pick = |c: Expr, a: &Expr, b: &Expr| {
        mk(ExprKind::Ternary(
            Box::new(c),
            Box::new(a.clone()),
            Box::new(b.clone()),
        ))
    };
    match (p.segments[0].name.as_str(), x.as_slice()) {
        ("max", [a, b]) => Some(pick(cmp(BinOp::Gt, a, b), a, b)),
        ("min", [a, b]) => Some(pick(cmp(BinOp::Lt, a, b), a, b)),
        ("abs", [a]) => {
            let zero = mk(ExprKind::Num(NumLit {
                value: 0.0,
                integer: true,
                unit: None,
                text: "0".into(),
            }));
            let neg = mk(ExprKind::Unary(UnOp::Neg, Box::new((*a).clone())));
            Some(pick(cmp(BinOp::Lt, a, &zero), &neg, a))
        }
        ("clamp", [v, lo, hi]) => {
            let upper = pick(cmp(BinOp::Gt, v, hi), hi, v);
            Some(pick(cmp(BinOp::Lt, v, lo), lo, &upper))
        }
        _ => None,
    }
}
