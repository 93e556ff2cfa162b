//! Checking and compiling expressions: each expression is typed and turned into
//! stack-machine code in one pass (calls in `expr_call.rs`, statements in `stmt.rs`). Errors
//! produce `Ty::Error`, which is accepted everywhere after, so one mistake gives one
//! diagnostic.

use super::error::SemaError;
use super::frame::{Frame, VarKind};
use super::index::{self, SemanticIndex};
use super::ty::{Ty, STATUS_NAMES};
use super::wording::{article, mismatch_code, unit_hint};
use super::Globals;
use crate::diagnostic::Diagnostic;
use crate::ir::program::Op;
use crate::ir::units::{quantity, Measure};
use crate::span::Span;
use crate::suggest::closest;
use crate::syntax::ast::*;

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
    /// Where the names this code uses are recorded.
    pub index: &'a mut SemanticIndex,
    /// Folding the initial value of a variable: the variable, and the names of the agent or
    /// tree it is in (not constants, though they are declared).
    pub initial: Option<(&'a str, &'a [String])>,
}

/// A number literal's value in the unit the runtime uses (milliseconds, hertz, metres,
/// degrees: `ir::units::quantity`) and its type.
pub fn literal_value(n: &crate::syntax::token::NumLit) -> (f64, Ty) {
    let v = n.value;
    let Some(unit) = n.unit else {
        return (v, if n.integer { Ty::Int } else { Ty::Num });
    };
    let ty = match Measure::of(unit) {
        Measure::Time => Ty::Duration,
        Measure::Frequency => Ty::Rate,
        Measure::Length => Ty::Length,
        Measure::Angle => Ty::Angle,
    };
    (quantity(v, unit), ty)
}

impl Cx<'_> {
    /// Reports one of the checker's typed errors.
    pub(crate) fn report(&mut self, e: super::error::SemaError) {
        let d = e.render(self.g);
        self.diags.push(d);
    }

    pub fn show(&self, ty: &Ty) -> String {
        self.g.show(ty)
    }

    pub(super) fn error(
        &mut self,
        code: &'static str,
        msg: impl Into<String>,
        span: Span,
    ) -> &mut Diagnostic {
        self.diags.push(Diagnostic::error(code, msg, span));
        self.diags.last_mut().expect("just pushed")
    }

    pub(super) fn emit(&mut self, op: Op) -> usize {
        self.code.push(op);
        self.code.len() - 1
    }

    /// Patches a forward jump at `at` to land here.
    pub(super) fn land(&mut self, at: usize) {
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
    pub(super) fn finish_literal(
        &mut self,
        start: usize,
        ends: &[usize],
        ty: Ty,
        span: Span,
    ) -> Ty {
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
        let slot = self.frame.add(super::frame::FrameVar::temp(
            format!("literal#{n}"),
            ty,
            init,
            span,
        ));
        let ty = self.frame.vars[slot as usize].ty.clone();
        self.emit(Op::ListBuild(slot, ends.len() as u8));
        ty
    }

    /// A constant list's id, shared by every literal with the same elements (constant lists
    /// are never changed: assignment copies out of them).
    pub(super) fn const_list(&mut self, values: Vec<f64>) -> f64 {
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
    pub(super) fn unify_elements(&mut self, a: &Ty, b: &Ty, span: Span) -> Ty {
        self.unify_as(a, b, span, mismatch_code(b, a), |sa, sb| {
            format!(
                "a list holds values of one type: {} then {}",
                article(sa),
                article(sb)
            )
        })
    }

    /// The type of a conditional's two branches.
    pub(super) fn unify(&mut self, a: &Ty, b: &Ty, span: Span) -> Ty {
        self.unify_as(a, b, span, "E0301", |sa, sb| {
            format!("the branches have different types: `{sa}` and `{sb}`")
        })
    }

    /// The wider of two types when one fits the other; otherwise `code` with `message` (given
    /// both types as shown) and the error type.
    pub(super) fn unify_as(
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

    pub(super) fn name(&mut self, p: &Path, hint: Option<&Ty>, span: Span) -> Ty {
        if p.segments.len() == 2 {
            let (en, vn) = (&p.segments[0].name, &p.segments[1].name);
            if let Some(ei) = self.g.enum_index(en) {
                self.index.refer_global(p.segments[0].span, en);
                let e = &self.g.enums[ei as usize];
                if let Some(vi) = e.variants.iter().position(|v| v == vn) {
                    let def = self.index.variant(ei, vi as u32);
                    self.index.refer_def(p.segments[1].span, def);
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
        let name_span = p.segments[0].span;
        if let Some(i) = self.frame.get(name) {
            let v = &mut self.frame.vars[i as usize];
            v.used = true;
            let ty = v.ty.clone();
            match v.kind {
                VarKind::Intensity => self.index.refer(name_span, index::Target::Intensity),
                _ => self.index.refer_def(name_span, v.def),
            }
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
            self.index.refer_trait(name_span, name);
            self.emit(Op::Const(v));
            return Ty::Num;
        }
        if let Some(c) = self.g.consts.get(name) {
            let (v, ty) = (c.value, c.ty.clone());
            self.index.refer_global(name_span, name);
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
                let def = self.index.variant(*ei, vi as u32);
                self.index.refer_def(name_span, def);
                self.emit(Op::Const(vi as f64));
                return Ty::Enum(*ei);
            }
        }
        match self.g.variants.get(name).map(Vec::as_slice) {
            Some([(ei, vi)]) => {
                let def = self.index.variant(*ei, *vi);
                self.index.refer_def(name_span, def);
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

    pub(super) fn unknown_name(&mut self, name: &str, span: Span) {
        if let Some((var, runtime)) = self.initial {
            if runtime.iter().any(|r| r == name) {
                let e = SemaError::NotConstant {
                    name: name.to_string(),
                    var: var.to_string(),
                    span,
                };
                self.diags.push(e.render(self.g));
                return;
            }
        }
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

    pub(super) fn unary(&mut self, op: UnOp, inner: &Expr, span: Span) -> Ty {
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

    pub(super) fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr, span: Span) -> Ty {
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

    pub(super) fn comparable(&mut self, a: &Ty, b: &Ty, ordered: bool, op: BinOp, span: Span) {
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

    pub(super) fn arith(&mut self, op: BinOp, a: &Ty, b: &Ty, span: Span) -> Ty {
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

    pub(super) fn field(&mut self, target: &Expr, field: &Ident, span: Span) -> Ty {
        // `machine.intensity`: the intensity of an emotion machine.
        if let ExprKind::Name(p) = &target.kind {
            if p.segments.len() == 1 && field.name == "intensity" {
                let key = format!("{}.intensity", p.segments[0].name);
                if let Some(i) = self.frame.get(&key) {
                    self.frame.vars[i as usize].used = true;
                    if let Some(m) = self.frame.get(&p.segments[0].name) {
                        self.frame.vars[m as usize].used = true;
                        let def = self.frame.vars[m as usize].def;
                        self.index.refer_def(p.segments[0].span, def);
                        self.index.refer(field.span, index::Target::Intensity);
                    }
                    self.emit(Op::Load(i));
                    return Ty::Num;
                }
            }
        }
        let t = self.expr(target, None);
        if let Some((i, ft)) = t.field(&field.name) {
            // A point is a two-element list at run time: its field is an element.
            self.index.refer(
                field.span,
                index::Target::Field(super::ty::TUPLE_FIELDS[i as usize], ft.value_kind()),
            );
            self.emit(Op::Const(f64::from(i)));
            self.emit(Op::Index);
            return ft;
        }
        if !t.is_error() {
            self.no_field(&t, field);
        }
        let _ = span;
        Ty::Error
    }

    /// E0201 for `value.name` when the value has no field of that name.
    pub(super) fn no_field(&mut self, t: &Ty, field: &Ident) {
        let shown = self.show(t);
        let fields: Vec<String> = t.fields().iter().map(|(f, _)| format!("`{f}`")).collect();
        let d = self.error(
            "E0201",
            format!("{} has no field `{}`", article(&shown), field.name),
            field.span,
        );
        d.primary.message = "unknown field".into();
        if !fields.is_empty() {
            d.help = Some(format!("its fields are {}", fields.join(", ")));
        }
    }

    // ------------------------------------------------------------------ statements
}

fn verb(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "add",
        BinOp::Sub => "subtract",
        BinOp::Mul => "multiply",
        _ => "divide",
    }
}
