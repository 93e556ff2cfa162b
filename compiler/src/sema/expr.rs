//! Checking and compiling expressions and statements: each expression is typed and turned
//! into stack-machine code in one pass. Errors produce `Ty::Error`, which is accepted
//! everywhere after, so one mistake gives one diagnostic.

use super::frame::{Frame, VarKind};
use super::ty::{Ty, STATUS_NAMES};
use super::Globals;
use crate::diagnostic::Diagnostic;
use crate::ir::functions::{self, HostFn, Shape};
use crate::ir::program::Op;
use crate::span::Span;
use crate::suggest::closest;
use crate::syntax::ast::*;
use crate::syntax::token::Unit;

/// The most elements a list or point literal may compute while ticking: they pass through
/// the expression stack, which holds 32 values.
pub const MAX_BUILT_ELEMENTS: usize = 16;

/// An assignable place: its frame operand, type and range.
pub type Target = (u32, Ty, Option<(f64, f64)>);

/// Where compiled code goes and what names mean while compiling it.
pub struct Cx<'a> {
    pub g: &'a Globals,
    pub frame: &'a mut Frame,
    pub code: &'a mut Vec<Op>,
    pub diags: &'a mut Vec<Diagnostic>,
    pub strings: &'a mut super::Interner,
    /// The program's constant lists (`Program::lists`): list literals add theirs.
    pub lists: &'a mut Vec<Vec<f64>>,
    /// Agent constants (personality traits).
    pub traits: &'a [(String, f64)],
    /// Constructs used here that have no run-time semantics yet: (what, where).
    pub pending: &'a mut Vec<(String, Span)>,
}

/// A number literal's value in the unit the runtime uses: milliseconds, hertz, metres,
/// degrees.
pub fn literal_value(n: &crate::syntax::token::NumLit) -> (f64, Ty) {
    let v = n.value;
    match n.unit {
        None if n.integer => (v, Ty::Int),
        None => (v, Ty::Num),
        Some(Unit::Ms) => (v, Ty::Duration),
        Some(Unit::S) => (v * 1000.0, Ty::Duration),
        Some(Unit::Min) => (v * 60_000.0, Ty::Duration),
        Some(Unit::H) => (v * 3_600_000.0, Ty::Duration),
        Some(Unit::Hz) => (v, Ty::Rate),
        Some(Unit::KHz) => (v * 1000.0, Ty::Rate),
        Some(Unit::Mm) => (v / 1000.0, Ty::Length),
        Some(Unit::Cm) => (v / 100.0, Ty::Length),
        Some(Unit::M) => (v, Ty::Length),
        Some(Unit::Ft) => (v * 0.3048, Ty::Length),
        Some(Unit::Deg) => (v, Ty::Angle),
    }
}

impl Cx<'_> {
    pub fn show(&self, ty: &Ty) -> String {
        self.g.show(ty)
    }

    fn error(&mut self, code: &'static str, msg: impl Into<String>, span: Span) -> &mut Diagnostic {
        self.diags.push(Diagnostic::error(code, msg, span));
        self.diags.last_mut().expect("just pushed")
    }

    fn emit(&mut self, op: Op) -> usize {
        self.code.push(op);
        self.code.len() - 1
    }

    /// Patches a forward jump at `at` to land here.
    fn land(&mut self, at: usize) {
        let offset = (self.code.len() - at - 1) as u32;
        self.code[at] = match self.code[at] {
            Op::JumpIfFalse(_) => Op::JumpIfFalse(offset),
            Op::Jump(_) => Op::Jump(offset),
            Op::JumpIfFalseKeep(_) => Op::JumpIfFalseKeep(offset),
            Op::JumpIfTrueKeep(_) => Op::JumpIfTrueKeep(offset),
            other => other,
        };
    }

    /// Checks an expression against an expected type and compiles it.
    pub fn expect(&mut self, e: &Expr, want: &Ty, what: &str) -> Ty {
        let got = self.expr(e, Some(want));
        if !got.fits(want) {
            let (sw, sg) = (self.show(want), self.show(&got));
            let mut d = Diagnostic::error(
                mismatch_code(&got, want),
                format!("{what} must be {}, found {}", article(&sw), article(&sg)),
                e.span,
            )
            .with_label(format!("this is {}", article(&sg)));
            if let Some(h) = unit_hint(&got, want) {
                d = d.with_help(h);
            }
            self.diags.push(d);
            return Ty::Error;
        }
        got
    }

    /// Compiles an expression; `hint` is the type the context wants, used to resolve enum
    /// variants and statuses written without their type.
    pub fn expr(&mut self, e: &Expr, hint: Option<&Ty>) -> Ty {
        match &e.kind {
            ExprKind::Num(n) => {
                let (v, ty) = literal_value(n);
                self.emit(Op::Const(v));
                ty
            }
            ExprKind::Str(s) => {
                let sym = self.strings.intern(s);
                self.emit(Op::Const(sym as f64));
                Ty::Str
            }
            ExprKind::Bool(b) => {
                self.emit(Op::Const(if *b { 1.0 } else { 0.0 }));
                Ty::Bool
            }
            ExprKind::Name(p) => self.name(p, hint, e.span),
            ExprKind::Root(id) => {
                let r = self.frame.root_ref(&id.name, id.span);
                self.emit(Op::Load(r));
                hint.cloned().unwrap_or(Ty::Any)
            }
            ExprKind::Paren(inner) => self.expr(inner, hint),
            ExprKind::Unary(op, inner) => self.unary(*op, inner, e.span),
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, e.span),
            ExprKind::Ternary(c, a, b) => {
                self.expect(c, &Ty::Bool, "a condition");
                let jf = self.emit(Op::JumpIfFalse(0));
                let ta = self.expr(a, hint);
                let j = self.emit(Op::Jump(0));
                self.land(jf);
                let tb = self.expr(b, Some(&ta).filter(|t| !t.is_error()).or(hint));
                self.land(j);
                self.unify(&ta, &tb, b.span)
            }
            ExprKind::Call(f, args) => self.call(f, args, e.span, hint),
            ExprKind::Field(target, field) => self.field(target, field, e.span),
            ExprKind::Index(list, index) => {
                let lt = self.expr(list, None);
                self.expect(index, &Ty::Int, "a list index");
                self.emit(Op::Index);
                match lt {
                    Ty::List(elem) => *elem,
                    Ty::Error | Ty::Any => Ty::Error,
                    other => {
                        let shown = self.show(&other);
                        self.error(
                            "E0301",
                            format!("only lists can be indexed, not {}", article(&shown)),
                            list.span,
                        )
                        .primary
                        .message = "not a list".into();
                        Ty::Error
                    }
                }
            }
            ExprKind::List(items) => {
                let elem_hint = match hint {
                    Some(Ty::List(t)) => Some((**t).clone()),
                    _ => None,
                };
                let mut elem = elem_hint;
                let start = self.code.len();
                let mut ends = Vec::with_capacity(items.len());
                for it in items {
                    let t = self.expr(it, elem.as_ref());
                    ends.push(self.code.len());
                    elem = Some(match elem {
                        None => t,
                        Some(prev) => self.unify_elements(&prev, &t, it.span),
                    });
                }
                let ty = Ty::List(Box::new(elem.unwrap_or(Ty::Any)));
                self.finish_literal(start, &ends, ty, e.span)
            }
            ExprKind::Tuple(items) => {
                let hints: &[Ty] = match hint {
                    Some(Ty::Tuple(ts)) if ts.len() == items.len() => ts,
                    _ => &[],
                };
                let hints = hints.to_vec();
                let start = self.code.len();
                let mut ends = Vec::with_capacity(items.len());
                let mut tys = Vec::with_capacity(items.len());
                for (k, it) in items.iter().enumerate() {
                    tys.push(self.expr(it, hints.get(k)));
                    ends.push(self.code.len());
                }
                self.finish_literal(start, &ends, Ty::Tuple(tys), e.span)
            }
            ExprKind::Error => {
                self.emit(Op::Const(0.0));
                Ty::Error
            }
        }
    }

    /// Ends a list or point literal whose elements' code is `code[start..]`, element `k`
    /// ending at `ends[k]`. Constant elements make a constant list: one of the program's
    /// lists, read by its id at no cost per tick. Otherwise the elements are computed each
    /// time into a hidden list of the literal's own, which `ListBuild` fills.
    fn finish_literal(&mut self, start: usize, ends: &[usize], ty: Ty, span: Span) -> Ty {
        let mut values = Vec::with_capacity(ends.len());
        let mut from = start;
        for &end in ends {
            match crate::ir::eval::eval_const(&self.code[from..end]) {
                Some(v) => values.push(v),
                None => break,
            }
            from = end;
        }
        if values.len() == ends.len() {
            self.code.truncate(start);
            let id = self.const_list(values);
            self.emit(Op::Const(id));
            return ty;
        }
        if ends.len() > MAX_BUILT_ELEMENTS {
            let d = self.error(
                "E0320",
                format!(
                    "this literal computes {} elements; at most {MAX_BUILT_ELEMENTS} can be computed while ticking",
                    ends.len()
                ),
                span,
            );
            d.primary.message = "too many computed elements".into();
            d.help = Some(
                "make the elements constants, or build the list with `push` in a `do { }` block"
                    .into(),
            );
            self.code.truncate(start);
            self.emit(Op::Const(0.0));
            return Ty::Error;
        }
        // The hidden list starts with room for every element, so building it never grows it.
        self.lists.push(vec![0.0; ends.len()]);
        let init = (self.lists.len() - 1) as f64;
        let n = self.frame.vars.len();
        let slot = self.frame.add(super::frame::FrameVar {
            name: format!("literal#{n}"),
            ty,
            kind: VarKind::Temp,
            init,
            range: None,
            span,
            used: true,
            doc: None,
        });
        let ty = self.frame.vars[slot as usize].ty.clone();
        self.emit(Op::ListBuild(slot, ends.len() as u8));
        ty
    }

    /// A constant list's id, shared by every literal with the same elements (constant lists
    /// are never changed: assignment copies out of them).
    fn const_list(&mut self, values: Vec<f64>) -> f64 {
        let same = |l: &Vec<f64>| {
            l.len() == values.len()
                && l.iter()
                    .zip(&values)
                    .all(|(a, b)| a.to_bits() == b.to_bits())
        };
        match self.lists.iter().position(same) {
            Some(i) => i as f64,
            None => {
                self.lists.push(values);
                (self.lists.len() - 1) as f64
            }
        }
    }

    /// The element type of a list literal so far, with the next element's type.
    fn unify_elements(&mut self, a: &Ty, b: &Ty, span: Span) -> Ty {
        self.unify_as(a, b, span, mismatch_code(b, a), |sa, sb| {
            format!(
                "a list holds values of one type: {} then {}",
                article(sa),
                article(sb)
            )
        })
    }

    /// The type of a conditional's two branches.
    fn unify(&mut self, a: &Ty, b: &Ty, span: Span) -> Ty {
        self.unify_as(a, b, span, "E0301", |sa, sb| {
            format!("the branches have different types: `{sa}` and `{sb}`")
        })
    }

    /// The wider of two types when one fits the other; otherwise `code` with `message` (given
    /// both types as shown) and the error type.
    fn unify_as(
        &mut self,
        a: &Ty,
        b: &Ty,
        span: Span,
        code: &'static str,
        message: impl FnOnce(&str, &str) -> String,
    ) -> Ty {
        if a.is_error() {
            return b.clone();
        }
        if b.fits(a) {
            return a.clone();
        }
        if a.fits(b) {
            return b.clone();
        }
        let (sa, sb) = (self.show(a), self.show(b));
        self.error(code, message(&sa, &sb), span).primary.message =
            format!("expected {}", article(&sa));
        Ty::Error
    }

    fn name(&mut self, p: &Path, hint: Option<&Ty>, span: Span) -> Ty {
        if p.segments.len() == 2 {
            let (en, vn) = (&p.segments[0].name, &p.segments[1].name);
            if let Some(ei) = self.g.enum_index(en) {
                let e = &self.g.enums[ei as usize];
                if let Some(vi) = e.variants.iter().position(|v| v == vn) {
                    self.emit(Op::Const(vi as f64));
                    return Ty::Enum(ei);
                }
                let best = closest(vn, e.variants.iter().map(String::as_str)).map(str::to_string);
                let msg = format!("enum `{en}` has no variant `{vn}`");
                let d = self.error("E0201", msg, p.segments[1].span);
                d.primary.message = format!("the variants are {}", e.variants.join(", "));
                if let Some(b) = best {
                    d.help = Some(format!("did you mean `{en}::{b}`?"));
                }
                self.emit(Op::Const(0.0));
                return Ty::Error;
            }
        }
        if p.segments.len() != 1 {
            self.error(
                "E0201",
                format!("unknown name `{}`", p.to_string_path()),
                span,
            )
            .primary
            .message = "not found".into();
            self.emit(Op::Const(0.0));
            return Ty::Error;
        }
        let name = &p.segments[0].name;
        if let Some(i) = self.frame.get(name) {
            let v = &mut self.frame.vars[i as usize];
            v.used = true;
            let ty = v.ty.clone();
            if ty == Ty::Memory {
                self.error("E0301", format!("the memory `{name}` is not a value"), span)
                    .help = Some(format!(
                    "call one of its operations, such as `{name}.recent()`"
                ));
                self.emit(Op::Const(0.0));
                return Ty::Error;
            }
            self.emit(Op::Load(i));
            return ty;
        }
        if let Some((_, v)) = self.traits.iter().find(|(n, _)| n == name) {
            let v = *v;
            self.emit(Op::Const(v));
            return Ty::Num;
        }
        if let Some(c) = self.g.consts.get(name) {
            let (v, ty) = (c.value, c.ty.clone());
            self.emit(Op::Const(v));
            return ty;
        }
        if let Some(Ty::Status) = hint {
            if let Some(i) = STATUS_NAMES.iter().position(|s| s == name) {
                self.emit(Op::Const(i as f64));
                return Ty::Status;
            }
        }
        // An enum variant written alone: the expected enum first, then a unique match.
        if let Some(Ty::Enum(ei)) = hint {
            if let Some(vi) = self.g.enums[*ei as usize]
                .variants
                .iter()
                .position(|v| v == name)
            {
                self.emit(Op::Const(vi as f64));
                return Ty::Enum(*ei);
            }
        }
        match self.g.variants.get(name).map(Vec::as_slice) {
            Some([(ei, vi)]) => {
                self.emit(Op::Const(*vi as f64));
                return Ty::Enum(*ei);
            }
            Some(many) if many.len() > 1 => {
                let owners: Vec<String> = many
                    .iter()
                    .map(|(ei, _)| format!("`{}::{name}`", self.g.enums[*ei as usize].name))
                    .collect();
                let d = self.error(
                    "E0208",
                    format!("`{name}` is a variant of several enums"),
                    span,
                );
                d.primary.message = "which enum is meant is not known here".into();
                d.help = Some(format!("write {}", owners.join(" or ")));
                self.emit(Op::Const(0.0));
                return Ty::Error;
            }
            _ => {}
        }
        self.unknown_name(name, span);
        self.emit(Op::Const(0.0));
        Ty::Error
    }

    fn unknown_name(&mut self, name: &str, span: Span) {
        let mut candidates: Vec<&str> = self.frame.names().filter(|n| !n.contains('.')).collect();
        candidates.extend(self.traits.iter().map(|(n, _)| n.as_str()));
        candidates.extend(self.g.consts.keys().map(String::as_str));
        candidates.extend(self.g.variants.keys().map(String::as_str));
        candidates.sort_unstable();
        let best = closest(name, candidates.iter().copied()).map(str::to_string);
        // The variable the typo meant is used: no "never used" warning on top of this error.
        if let Some(i) = best.as_deref().and_then(|b| self.frame.get(b)) {
            self.frame.vars[i as usize].used = true;
        }
        let tree = self.frame.tree.clone();
        let d = self.error("E0201", format!("unknown name `{name}`"), span);
        d.primary.message = "not declared".into();
        d.help = Some(match (best, tree) {
            (Some(b), _) => format!("did you mean `{b}`?"),
            (None, Some(t)) => format!(
                "tree `{t}` sees only its ports and its own `var`s: pass `{name}` in as a port (`in {name}: num`), declare `var {name}: num = 0;` at the top of the tree, or read the agent's variable as `@{name}`"
            ),
            (None, None) => format!("declare it, for example `var {name}: num = 0;`"),
        });
    }

    fn unary(&mut self, op: UnOp, inner: &Expr, span: Span) -> Ty {
        match op {
            UnOp::Neg => {
                let t = self.expr(inner, None);
                if !t.is_quantity() {
                    let shown = self.show(&t);
                    self.error("E0301", format!("cannot negate {}", article(&shown)), span)
                        .primary
                        .message = "not a number".into();
                    self.emit(Op::Neg);
                    return Ty::Error;
                }
                self.emit(Op::Neg);
                t
            }
            UnOp::Not => {
                self.expect(inner, &Ty::Bool, "the operand of `not`");
                self.emit(Op::Not);
                Ty::Bool
            }
            UnOp::BitNot => {
                self.expect(inner, &Ty::Int, "the operand of `~`");
                self.emit(Op::BitNot);
                Ty::Int
            }
        }
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr, span: Span) -> Ty {
        match op {
            BinOp::And | BinOp::Or => {
                let what = if op == BinOp::And {
                    "an operand of `and`"
                } else {
                    "an operand of `or`"
                };
                self.expect(a, &Ty::Bool, what);
                let j = self.emit(if op == BinOp::And {
                    Op::JumpIfFalseKeep(0)
                } else {
                    Op::JumpIfTrueKeep(0)
                });
                self.emit(Op::Pop);
                self.expect(b, &Ty::Bool, what);
                self.land(j);
                Ty::Bool
            }
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => {
                self.expect(a, &Ty::Int, "a bit operand");
                self.expect(b, &Ty::Int, "a bit operand");
                self.emit(match op {
                    BinOp::BitAnd => Op::BitAnd,
                    BinOp::BitOr => Op::BitOr,
                    _ => Op::BitXor,
                });
                Ty::Int
            }
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                let ta = self.expr(a, None);
                let tb = self.expr(b, Some(&ta).filter(|t| !t.is_error()));
                let ordered = !matches!(op, BinOp::Eq | BinOp::Ne);
                self.comparable(&ta, &tb, ordered, op, b.span.to(a.span));
                self.emit(match op {
                    BinOp::Eq => Op::Eq,
                    BinOp::Ne => Op::Ne,
                    BinOp::Lt => Op::Lt,
                    BinOp::Le => Op::Le,
                    BinOp::Gt => Op::Gt,
                    _ => Op::Ge,
                });
                Ty::Bool
            }
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div => {
                let ta = self.expr(a, None);
                let tb = self.expr(b, None);
                self.emit(match op {
                    BinOp::Add => Op::Add,
                    BinOp::Sub => Op::Sub,
                    BinOp::Mul => Op::Mul,
                    _ => Op::Div,
                });
                self.arith(op, &ta, &tb, span)
            }
        }
    }

    fn comparable(&mut self, a: &Ty, b: &Ty, ordered: bool, op: BinOp, span: Span) {
        if a.is_error() || b.is_error() || matches!(a, Ty::Any) || matches!(b, Ty::Any) {
            return;
        }
        // A list's number is its id: comparing ids would say equal lists differ.
        if matches!(a, Ty::List(_) | Ty::Tuple(_)) || matches!(b, Ty::List(_) | Ty::Tuple(_)) {
            let shown = self.show(if matches!(a, Ty::List(_) | Ty::Tuple(_)) {
                a
            } else {
                b
            });
            let d = self.error(
                "E0301",
                format!("`{}` cannot compare {shown} values", op.as_str()),
                span,
            );
            d.primary.message = "lists and points are not compared as wholes".into();
            d.help = Some(
                "compare their elements (`xs[0] == ys[0]`) or lengths (`len(xs) == len(ys)`)"
                    .into(),
            );
            return;
        }
        let same = b.fits(a) || a.fits(b);
        let ok = if ordered {
            same && a.is_quantity() && b.is_quantity()
        } else {
            same
        };
        if !ok {
            let (sa, sb) = (self.show(a), self.show(b));
            let msg = if ordered && same {
                format!("`{}` needs numbers, not {}", op.as_str(), article(&sa))
            } else {
                format!("cannot compare {} with {}", article(&sa), article(&sb))
            };
            let hint = unit_hint(b, a);
            let d = self.error(mismatch_code(b, a), msg, span);
            d.primary.message = format!("{sa} {} {sb}", op.as_str());
            if let Some(h) = hint {
                d.help = Some(h);
            }
        }
    }

    fn arith(&mut self, op: BinOp, a: &Ty, b: &Ty, span: Span) -> Ty {
        use Ty::*;
        if a.is_error() || b.is_error() {
            return Error;
        }
        if matches!(a, Any) || matches!(b, Any) {
            return Num;
        }
        let plain = |t: &Ty| matches!(t, Num | Int);
        let result = match op {
            BinOp::Add | BinOp::Sub => match (a, b) {
                (Int, Int) => Some(Int),
                (x, y) if plain(x) && plain(y) => Some(Num),
                (x, y) if x == y && x.is_quantity() => Some(x.clone()),
                _ => None,
            },
            BinOp::Mul => match (a, b) {
                (Int, Int) => Some(Int),
                (x, y) if plain(x) && plain(y) => Some(Num),
                (x, y) if plain(x) && y.is_quantity() => Some(y.clone()),
                (x, y) if x.is_quantity() && plain(y) => Some(x.clone()),
                _ => None,
            },
            _ => match (a, b) {
                (x, y) if plain(x) && plain(y) => Some(Num),
                (x, y) if x.is_quantity() && plain(y) => Some(x.clone()),
                (x, y) if x == y && x.is_quantity() => Some(Num),
                _ => None,
            },
        };
        match result {
            Some(t) => t,
            None => {
                let (sa, sb) = (self.show(a), self.show(b));
                let code = if a.is_quantity() && b.is_quantity() {
                    "E0303"
                } else {
                    "E0301"
                };
                let d = self.error(
                    code,
                    format!("cannot {} {} and {}", verb(op), article(&sa), article(&sb)),
                    span,
                );
                d.primary.message = format!("{sa} {} {sb}", op.as_str());
                if let Some(h) = unit_hint(b, a) {
                    d.help = Some(h);
                }
                Error
            }
        }
    }

    fn field(&mut self, target: &Expr, field: &Ident, span: Span) -> Ty {
        // `machine.intensity`: the intensity of an emotion machine.
        if let ExprKind::Name(p) = &target.kind {
            if p.segments.len() == 1 && field.name == "intensity" {
                let key = format!("{}.intensity", p.segments[0].name);
                if let Some(i) = self.frame.get(&key) {
                    self.frame.vars[i as usize].used = true;
                    if let Some(m) = self.frame.get(&p.segments[0].name) {
                        self.frame.vars[m as usize].used = true;
                    }
                    self.emit(Op::Load(i));
                    return Ty::Num;
                }
            }
        }
        let t = self.expr(target, None);
        if !t.is_error() {
            let shown = self.show(&t);
            self.error(
                "E0201",
                format!("{} has no field `{}`", article(&shown), field.name),
                field.span,
            )
            .primary
            .message = "unknown field".into();
        }
        let _ = span;
        Ty::Error
    }

    fn call(&mut self, f: &Expr, args: &ArgList, span: Span, hint: Option<&Ty>) -> Ty {
        // Methods of an emotional memory (`feelings.recent()`) and of lists (`queue.push(x)`).
        if let ExprKind::Field(target, method) = &f.kind {
            if let ExprKind::Name(p) = &target.kind {
                if let Some(i) = p
                    .segments
                    .first()
                    .and_then(|s| self.frame.get(&s.name))
                    .filter(|_| p.segments.len() == 1)
                {
                    self.frame.vars[i as usize].used = true;
                    match self.frame.vars[i as usize].ty.clone() {
                        Ty::Memory => {
                            return self.memory_method(&p.segments[0].name, method, args, span)
                        }
                        Ty::List(elem) => return self.list_method(i, &elem, method, args, span),
                        _ => {}
                    }
                }
            }
        }
        let ExprKind::Name(p) = &f.kind else {
            // `x.op()` on something without operations is reported by the field access.
            if !self.expr(f, None).is_error() {
                self.error("E0301", "only named functions can be called", f.span);
            }
            for a in &args.args {
                self.expr(&a.value, None);
                self.emit(Op::Pop);
            }
            return Ty::Error;
        };
        let name = p.to_string_path();
        if let Some(sig) = functions::lookup(&name) {
            return self.builtin_call(sig, args, span);
        }
        if name == "failed" || name == "recovered" {
            return self.component_test(&name, args, span);
        }
        if name == "unvisited" || name == "toward" {
            return self.world_query(&name, args, span, hint);
        }
        if let Some(ret) = self.g.world_function(&name, hint) {
            for a in &args.args {
                self.expr(&a.value, None);
                self.emit(Op::Pop);
            }
            self.pending
                .push((format!("the world function `{name}`"), span));
            self.emit(Op::Const(0.0));
            return ret;
        }
        let mut candidates: Vec<&str> = functions::FUNCTIONS.iter().map(|s| s.name).collect();
        candidates.extend(super::WORLD_FUNCTIONS.iter().map(|(n, _)| *n));
        let best = closest(&name, candidates).map(str::to_string);
        let is_node = matches!(
            self.g.names.get(&name),
            Some((super::Global::Leaf(_) | super::Global::Tree(_), _))
        ) || crate::builtins::by_name(&name).is_some();
        let d = self.error("E0201", format!("unknown function `{name}`"), p.span);
        d.primary.message = "no such function".into();
        if is_node {
            d.primary.message = "a tree node, not a function".into();
            d.help = Some(format!(
                "an expression continues onto the next line: if `{name}(..)` is the next node, finish the condition before it (`check ready` then `{name}()`), or write the condition in parentheses"
            ));
        } else if let Some(b) = best {
            d.help = Some(format!("did you mean `{b}`?"));
        }
        for a in &args.args {
            self.discard(&a.value);
        }
        self.emit(Op::Const(0.0));
        Ty::Error
    }

    fn builtin_call(&mut self, sig: &functions::Signature, args: &ArgList, span: Span) -> Ty {
        if args.args.len() != sig.params.len() {
            self.error(
                "E0310",
                format!(
                    "`{}` takes {} argument{}, found {}",
                    sig.name,
                    sig.params.len(),
                    if sig.params.len() == 1 { "" } else { "s" },
                    args.args.len()
                ),
                args.span,
            )
            .primary
            .message = format!("{} given", args.args.len());
            self.diags.last_mut().expect("just pushed").help = Some(format!(
                "call it as `{}({})`",
                sig.name,
                sig.params.join(", ")
            ));
        }
        // Arguments in parameter order, named or not.
        let mut ordered: Vec<Option<&Expr>> = vec![None; sig.params.len()];
        for (i, a) in args.args.iter().enumerate() {
            let slot = match &a.name {
                Some(n) => match sig.params.iter().position(|p| *p == n.name) {
                    Some(j) => j,
                    None => {
                        let best = closest(&n.name, sig.params.iter().copied()).map(str::to_string);
                        let d = self.error(
                            "E0305",
                            format!("`{}` has no parameter `{}`", sig.name, n.name),
                            n.span,
                        );
                        d.primary.message = "unknown parameter".into();
                        d.help = Some(match best {
                            Some(b) => format!("did you mean `{b}`?"),
                            None => format!("its parameters are `{}`", sig.params.join("`, `")),
                        });
                        continue;
                    }
                },
                None => i,
            };
            if slot < ordered.len() {
                ordered[slot] = Some(&a.value);
            }
        }
        let mut tys = Vec::new();
        for e in ordered.iter().flatten() {
            tys.push((self.expr(e, None), e.span));
        }
        for _ in tys.len()..sig.params.len() {
            self.emit(Op::Const(0.0));
        }
        self.emit(Op::Call(sig.function, sig.params.len() as u8));
        match sig.shape {
            Shape::ListLen => Ty::Int,
            Shape::Numeric => {
                // All arguments share one unit; the result has it.
                let mut unit: Option<Ty> = None;
                for (t, sp) in &tys {
                    if t.is_error() {
                        return Ty::Error;
                    }
                    if !t.is_quantity() {
                        let shown = self.show(t);
                        self.error(
                            "E0301",
                            format!("`{}` needs numbers, found {}", sig.name, article(&shown)),
                            *sp,
                        );
                        return Ty::Error;
                    }
                    let norm = if *t == Ty::Int { Ty::Num } else { t.clone() };
                    match &unit {
                        None => unit = Some(norm),
                        Some(u) if *u == norm || (*u == Ty::Num && norm == Ty::Num) => {}
                        Some(u)
                            if sig.function == functions::Function::Sigmoid
                                || sig.function == functions::Function::Pow =>
                        {
                            let _ = u;
                        }
                        Some(u) => {
                            let (su, sn) = (self.show(u), self.show(&norm));
                            let d = self.error(
                                "E0303",
                                format!(
                                    "`{}` mixes {} and {}",
                                    sig.name,
                                    article(&su),
                                    article(&sn)
                                ),
                                span,
                            );
                            d.primary.message = "the arguments must share one unit".into();
                            return Ty::Error;
                        }
                    }
                }
                let all_int = !tys.is_empty() && tys.iter().all(|(t, _)| *t == Ty::Int);
                let keeps_int = matches!(
                    sig.function,
                    functions::Function::Abs
                        | functions::Function::Min
                        | functions::Function::Max
                        | functions::Function::Clamp
                        | functions::Function::Fold
                );
                if all_int && keeps_int {
                    Ty::Int
                } else {
                    unit.unwrap_or(Ty::Num)
                }
            }
        }
    }

    /// `failed(component)` / `recovered(component)`: component health (seed 001), asked of
    /// the runtime by the component's name (see `sema/component.rs`).
    fn component_test(&mut self, name: &str, args: &ArgList, _span: Span) -> Ty {
        let mut component: Option<String> = None;
        match args.args.as_slice() {
            [a] => {
                if let ExprKind::Name(p) = &a.value.kind {
                    component = Some(p.to_string_path());
                }
                let ok = match &a.value.kind {
                    ExprKind::Name(p) if p.segments.len() == 1 => {
                        let n = &p.segments[0].name;
                        match self.frame.get(n) {
                            Some(i) => {
                                self.frame.vars[i as usize].used = true;
                                self.frame.vars[i as usize].kind == VarKind::Component
                            }
                            None => {
                                matches!(self.g.names.get(n), Some((super::Global::Component, _)))
                            }
                        }
                    }
                    _ => false,
                };
                if !ok {
                    let d = self.error(
                        "E0201",
                        format!("`{name}` needs the name of a component"),
                        a.value.span,
                    );
                    d.primary.message = "not a component".into();
                    d.help = Some("declare it with `component name { heartbeat 100ms; }`".into());
                }
            }
            _ => {
                self.error("E0310", format!("`{name}` takes one component"), args.span);
            }
        }
        let f = if name == "failed" {
            HostFn::ComponentFailed
        } else {
            HostFn::ComponentRecovered
        };
        let symbol = self.strings.intern(component.as_deref().unwrap_or(""));
        self.emit(Op::Host(f, symbol, 0));
        Ty::Bool
    }

    fn list_method(
        &mut self,
        slot: u32,
        elem: &Ty,
        method: &Ident,
        args: &ArgList,
        span: Span,
    ) -> Ty {
        match method.name.as_str() {
            "push" => {
                // A list that may not be assigned may not grow either: an `in` port may be
                // the caller's own variable, a let is recomputed every tick.
                let v = &self.frame.vars[slot as usize];
                if !v.kind.assignable() {
                    let (name, kind, decl) = (v.name.clone(), v.kind.describe(), v.span);
                    let d = Diagnostic::error(
                        "E0311",
                        format!("cannot push onto `{name}`: it is a {kind}"),
                        method.span,
                    )
                    .with_label("not assignable")
                    .with_secondary(decl, format!("`{name}` is declared here"))
                    .with_help("keep your own copy in a `var` and push onto that");
                    self.diags.push(d);
                }
                match args.args.as_slice() {
                    [a] => {
                        self.expect(&a.value, elem, "the pushed value");
                    }
                    _ => {
                        self.error("E0310", "`push` takes one value", args.span);
                        self.emit(Op::Const(0.0));
                    }
                }
                let _ = span;
                self.emit(Op::Host(HostFn::ListPush, slot, 1));
                Ty::Void
            }
            "len" => {
                self.emit(Op::Load(slot));
                self.emit(Op::Call(functions::Function::Len, 1));
                Ty::Int
            }
            other => {
                let d = self.error(
                    "E0201",
                    format!("a list has no operation `{other}`"),
                    method.span,
                );
                d.primary.message = "unknown operation".into();
                d.help = Some("lists have `push(x)` and `len()`".into());
                self.emit(Op::Const(0.0));
                Ty::Error
            }
        }
    }

    fn memory_method(&mut self, memory: &str, method: &Ident, args: &ArgList, span: Span) -> Ty {
        let Some((params, ret)) = super::memory_method(&method.name) else {
            let names: Vec<&str> = super::MEMORY_METHODS.iter().map(|(n, _, _)| *n).collect();
            let d = self.error(
                "E0201",
                format!("an emotional memory has no operation `{}`", method.name),
                method.span,
            );
            d.primary.message = "unknown operation".into();
            d.help = Some(match closest(&method.name, names.iter().copied()) {
                Some(b) => format!("did you mean `{memory}.{b}(...)`?"),
                None => format!("the operations are {}", names.join(", ")),
            });
            self.emit(Op::Const(0.0));
            return Ty::Error;
        };
        if args.args.len() != params.len() {
            self.error(
                "E0310",
                format!(
                    "`{memory}.{}` takes {} argument{}, found {}",
                    method.name,
                    params.len(),
                    if params.len() == 1 { "" } else { "s" },
                    args.args.len()
                ),
                args.span,
            )
            .primary
            .message = format!("{} given", args.args.len());
        }
        for (a, p) in args.args.iter().zip(params.iter()) {
            self.expect(&a.value, p, "this argument");
        }
        for _ in args.args.len()..params.len() {
            self.emit(Op::Const(0.0));
        }
        let _ = span;
        let f = match method.name.as_str() {
            "recent" => HostFn::MemRecent,
            "remember" => HostFn::MemRemember,
            "score" => HostFn::MemScore,
            "familiarity" => HostFn::MemFamiliarity,
            "best" => HostFn::MemBest,
            "best_path" => HostFn::MemBestPath,
            "suitable" => HostFn::MemSuitable,
            _ => HostFn::MemPathScore,
        };
        // A memory variable's `init` is its index among the agent's memories.
        let index = self
            .frame
            .get(memory)
            .map(|i| self.frame.vars[i as usize].init as u32)
            .unwrap_or(0);
        self.emit(Op::Host(f, index, params.len() as u8));
        ret
    }

    /// `unvisited()` and `toward(from, to)`: questions the world answers.
    fn world_query(&mut self, name: &str, args: &ArgList, span: Span, hint: Option<&Ty>) -> Ty {
        let want = if name == "unvisited" { 0 } else { 2 };
        if args.args.len() != want {
            self.error(
                "E0310",
                format!(
                    "`{name}` takes {want} argument{}",
                    if want == 1 { "" } else { "s" }
                ),
                args.span,
            );
        }
        for a in args.args.iter().take(want) {
            self.expect(&a.value, &Ty::Str, "a place");
        }
        for _ in args.args.len().min(want)..want {
            self.emit(Op::Const(0.0));
        }
        if name == "unvisited" {
            self.emit(Op::Host(HostFn::Unvisited, 0, 0));
            return Ty::Str;
        }
        match hint {
            Some(Ty::Enum(e)) => {
                self.emit(Op::Host(HostFn::Toward, *e, 2));
                Ty::Enum(*e)
            }
            _ => {
                let d = self.error(
                    "E0301",
                    "`toward` gives a direction, and nothing here says which enum",
                    span,
                );
                d.help = Some("pass it to a port or variable of a direction enum such as `enum Direction { Up, Down, Left, Right }`".into());
                self.emit(Op::Const(0.0));
                Ty::Error
            }
        }
    }

    // ------------------------------------------------------------------ statements

    pub fn block(&mut self, b: &Block) {
        for s in &b.stmts {
            self.stmt(s);
        }
    }

    pub fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Assign { target, op, value } => self.assign(target, *op, value),
            StmtKind::Expr(e) => {
                let t = self.expr(e, None);
                if !matches!(e.kind, ExprKind::Call(..)) && !t.is_error() {
                    self.diags.push(
                        Diagnostic::warning("W0203", "this expression does nothing", e.span)
                            .with_label("its value is not used")
                            .with_help(does_nothing_help(e)),
                    );
                }
                self.emit(Op::Pop);
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                self.expect(cond, &Ty::Bool, "an `if` condition");
                let jf = self.emit(Op::JumpIfFalse(0));
                self.block(then);
                match otherwise.as_deref() {
                    None => self.land(jf),
                    Some(els) => {
                        let j = self.emit(Op::Jump(0));
                        self.land(jf);
                        match els {
                            Else::Block(b) => self.block(b),
                            Else::If(s) => self.stmt(s),
                        }
                        self.land(j);
                    }
                }
            }
            StmtKind::Error => {}
        }
    }

    /// Resolves an assignment target to a slot operand, its type and range.
    pub fn target(&mut self, target: &Expr) -> Option<Target> {
        match &target.kind {
            ExprKind::Name(p) if p.segments.len() == 1 => {
                let name = &p.segments[0].name;
                match self.frame.get(name) {
                    Some(i) => {
                        let v = &self.frame.vars[i as usize];
                        if !v.kind.assignable() {
                            let kind = v.kind.describe();
                            let decl = v.span;
                            let vkind = v.kind;
                            let d = Diagnostic::error(
                                "E0311",
                                format!("cannot assign to `{name}`: it is a {kind}"),
                                target.span,
                            )
                            .with_label("not assignable")
                            .with_secondary(decl, format!("`{name}` is declared here"));
                            let help = match vkind {
                                VarKind::Let => "a `let` is recomputed every tick; declare it with `var` to change it",
                                VarKind::Sensor | VarKind::Event => "devices are read by the runtime; keep your own copy in a `var`",
                                VarKind::Port(crate::syntax::ast::PortDir::In) => "`in` ports are read-only; declare it `inout` or `out` to write it",
                                VarKind::Drive => "a drive is set by its rules (`Value when guard;`); add a rule instead",
                                VarKind::Intention => "an intention is computed by its drive's `intention` block when the drive changes",
                                VarKind::Machine | VarKind::Intensity => "an emotion machine changes by its transitions (`From -> To when guard;`)",
                                VarKind::Hormone => "a hormone follows its stimulus; keep your own value in a `var`",
                                _ => "only variables can be assigned",
                            };
                            self.diags.push(d.with_help(help));
                            return None;
                        }
                        let (ty, range) = (v.ty.clone(), v.range);
                        self.frame.vars[i as usize].used = true;
                        Some((i, ty, range))
                    }
                    None => {
                        if let Some(c) = self.g.consts.get(name) {
                            let decl = c.span;
                            let d = Diagnostic::error(
                                "E0311",
                                format!("cannot assign to `{name}`: it is a constant"),
                                target.span,
                            )
                            .with_label("not assignable")
                            .with_secondary(decl, format!("`{name}` is declared here"))
                            .with_help(
                                "constants never change: declare a `var` to hold a value that does",
                            );
                            self.diags.push(d);
                        } else {
                            self.unknown_name(name, p.span);
                        }
                        None
                    }
                }
            }
            ExprKind::Root(id) => {
                let r = self.frame.root_ref(&id.name, id.span);
                Some((r, Ty::Any, None))
            }
            _ => {
                let d = self.error("E0110", "cannot assign to this expression", target.span);
                d.primary.message = "not a variable".into();
                if let ExprKind::Field(whole, _) = &target.kind {
                    d.help = Some(format!(
                        "fields cannot be assigned: assign the whole value, `{} = ..`",
                        crate::fmt::format_expr(whole)
                    ));
                }
                None
            }
        }
    }

    /// Checks an expression whose code is thrown away (its errors still count).
    fn discard(&mut self, e: &Expr) {
        let mut scratch = Vec::new();
        let mut cx = Cx {
            g: self.g,
            frame: self.frame,
            code: &mut scratch,
            diags: self.diags,
            strings: self.strings,
            lists: self.lists,
            traits: self.traits,
            pending: self.pending,
        };
        cx.expr(e, None);
    }

    /// `xs[i] = ..`: the list variable written (its frame operand) and its element type.
    fn element_target(&mut self, list: &Expr, span: Span) -> Option<(u32, Ty)> {
        if !matches!(&list.kind, ExprKind::Name(p) if p.segments.len() == 1) {
            let d = self.error("E0110", "cannot assign to this expression", span);
            d.primary.message = "only an element of a list variable can be assigned".into();
            d.help = Some("name the list variable: `xs[i] = v`".into());
            return None;
        }
        // The same rules as assigning the whole variable (E0311 for lets, `in` ports, ..).
        let (i, ty, _) = self.target(list)?;
        match ty {
            Ty::List(elem) => Some((i, *elem)),
            Ty::Error => None,
            other => {
                let shown = self.show(&other);
                let d = self.error(
                    "E0301",
                    format!("only lists can be indexed, not {}", article(&shown)),
                    list.span,
                );
                d.primary.message = "not a list".into();
                None
            }
        }
    }

    fn assign_element(&mut self, slot: u32, elem: &Ty, index: &Expr, op: AssignOp, value: &Expr) {
        self.expect(index, &Ty::Int, "a list index");
        if op == AssignOp::Set {
            self.expect(value, elem, "the value");
        } else {
            // `xs[i] += v` reads the element first (the index is computed again).
            self.emit(Op::Load(slot));
            self.expect(index, &Ty::Int, "a list index");
            self.emit(Op::Index);
            let vt = self.expr(value, None);
            let (bin, op_code) = match op {
                AssignOp::Add => (BinOp::Add, Op::Add),
                AssignOp::Sub => (BinOp::Sub, Op::Sub),
                AssignOp::Mul => (BinOp::Mul, Op::Mul),
                _ => (BinOp::Div, Op::Div),
            };
            self.emit(op_code);
            let result = self.arith(bin, elem, &vt, value.span);
            if !result.fits(elem) {
                let (sr, st) = (self.show(&result), self.show(elem));
                self.error(
                    mismatch_code(&result, elem),
                    format!(
                        "`{}` gives {}, which does not fit {}",
                        op.as_str(),
                        article(&sr),
                        article(&st)
                    ),
                    value.span,
                );
            }
        }
        self.emit(Op::ListSetAt(slot));
    }

    fn assign(&mut self, target: &Expr, op: AssignOp, value: &Expr) {
        if let ExprKind::Index(list, index) = &target.kind {
            if let Some((slot, elem)) = self.element_target(list, target.span) {
                self.assign_element(slot, &elem, index, op, value);
                return;
            }
            self.discard(index);
            self.discard(value);
            return;
        }
        let Some((slot, ty, range)) = self.target(target) else {
            self.discard(value);
            return;
        };
        if op == AssignOp::Set {
            self.expect(value, &ty, "the value");
        } else {
            self.emit(Op::Load(slot));
            let vt = self.expr(value, None);
            self.emit(match op {
                AssignOp::Add => Op::Add,
                AssignOp::Sub => Op::Sub,
                AssignOp::Mul => Op::Mul,
                _ => Op::Div,
            });
            let bin = match op {
                AssignOp::Add => BinOp::Add,
                AssignOp::Sub => BinOp::Sub,
                AssignOp::Mul => BinOp::Mul,
                _ => BinOp::Div,
            };
            let result = self.arith(bin, &ty, &vt, value.span);
            if !result.fits(&ty) {
                let (sr, st) = (self.show(&result), self.show(&ty));
                let code = mismatch_code(&result, &ty);
                let d = self.error(
                    code,
                    format!(
                        "`{}` gives {}, which does not fit {}",
                        op.as_str(),
                        article(&sr),
                        article(&st)
                    ),
                    value.span,
                );
                d.primary.message = format!("this makes the result {}", article(&sr));
                if ty == Ty::Int && result == Ty::Num {
                    d.help = Some("an `int` changes by whole numbers; declare the variable `num` to hold fractions".into());
                }
            }
        }
        match range {
            Some((lo, hi)) => self.emit(Op::StoreClamped(slot, lo, hi)),
            None => self.emit(Op::Store(slot)),
        };
    }
}

/// What a statement that computes and drops a value probably meant.
fn does_nothing_help(e: &Expr) -> String {
    let fmt = crate::fmt::format_expr;
    match &e.kind {
        ExprKind::Binary(BinOp::Eq, a, b) => {
            format!("to assign, write `{} = {}`", fmt(a), fmt(b))
        }
        ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div), a, b)
            if matches!(a.kind, ExprKind::Name(_) | ExprKind::Root(_)) =>
        {
            format!(
                "to change `{}`, write `{} {}= {}`",
                fmt(a),
                fmt(a),
                op.as_str(),
                fmt(b)
            )
        }
        _ => "assign it to a variable, or remove it".to_string(),
    }
}

pub fn article(s: &str) -> String {
    let first = s.chars().next().unwrap_or('x').to_ascii_lowercase();
    let an = matches!(first, 'a' | 'e' | 'i' | 'o' | 'u');
    if s.starts_with('[')
        || s.starts_with('(')
        || s.starts_with('"')
        || s.starts_with('{')
        || s == "nothing"
    {
        return s.to_string();
    }
    format!("{} `{s}`", if an { "an" } else { "a" })
}

fn verb(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "add",
        BinOp::Sub => "subtract",
        BinOp::Mul => "multiply",
        _ => "divide",
    }
}

/// The code of a value of type `got` where `want` is expected: a unit mismatch (E0303) when
/// both are quantities and one of them carries a unit, else a type mismatch (E0301).
pub fn mismatch_code(got: &Ty, want: &Ty) -> &'static str {
    let unit = |t: &Ty| matches!(t, Ty::Duration | Ty::Rate | Ty::Length | Ty::Angle);
    let known = |t: &Ty| !matches!(t, Ty::Any | Ty::Error);
    if got.is_quantity()
        && want.is_quantity()
        && known(got)
        && known(want)
        && (unit(got) || unit(want))
    {
        "E0303"
    } else {
        "E0301"
    }
}

/// A help line when a unit is missing or wrong: `timeout(2)` wants `2s`.
pub fn unit_hint(got: &Ty, want: &Ty) -> Option<String> {
    match (got, want) {
        (Ty::Num | Ty::Int, Ty::Duration) => {
            Some("durations carry a unit: write `500ms`, `2s` or `1min`".into())
        }
        (Ty::Num | Ty::Int, Ty::Rate) => Some("rates carry a unit: write `10Hz` or `2kHz`".into()),
        (Ty::Num | Ty::Int, Ty::Length) => {
            Some("lengths carry a unit: write `24cm`, `1.5m` or `50ft`".into())
        }
        (Ty::Num | Ty::Int, Ty::Angle) => Some("angles carry a unit: write `90deg`".into()),
        (Ty::Duration, Ty::Num | Ty::Int) => {
            Some("to use a duration as a number of milliseconds, divide it: `d / 1ms`".into())
        }
        (Ty::Rate, Ty::Duration) | (Ty::Duration, Ty::Rate) => {
            Some("a rate is not a duration: `10Hz` ticks every `100ms`".into())
        }
        _ => None,
    }
}
