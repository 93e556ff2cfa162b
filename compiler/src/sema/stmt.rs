//! Statements of `do { }`, `update { }` and handlers: assignments (to variables and list
//! elements), conditionals and expression statements.

use super::error::{SemaError, Write};
use super::expr::{Cx, Target};
use super::frame::VarKind;
use super::ty::Ty;
use super::wording::{article, mismatch_code};
use crate::diagnostic::Diagnostic;
use crate::ir::program::Op;
use crate::span::Span;
use crate::syntax::ast::*;

impl Cx<'_> {
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
                        self.index.refer_def(p.segments[0].span, v.def);
                        if !v.kind.assignable() {
                            let (what, decl, vkind) = (v.kind.describe(), v.span, v.kind);
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
                            self.report(SemaError::NotAssignable {
                                name: name.to_string(),
                                what: what.to_string(),
                                write: Write::Assign,
                                span: target.span,
                                decl,
                                help,
                            });
                            return None;
                        }
                        let (ty, range) = (v.ty.clone(), v.range);
                        self.frame.vars[i as usize].used = true;
                        Some((i, ty, range))
                    }
                    None => {
                        if let Some(c) = self.g.consts.get(name) {
                            self.index.refer_global(p.segments[0].span, name);
                            let decl = c.span;
                            self.report(SemaError::NotAssignable {
                                name: name.to_string(),
                                what: "constant".to_string(),
                                write: Write::Assign,
                                span: target.span,
                                decl,
                                help: "constants never change: declare a `var` to hold a value that does",
                            });
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
                None
            }
        }
    }

    /// Checks an expression whose code is thrown away (its errors still count).
    pub(super) fn discard(&mut self, e: &Expr) {
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
            index: self.index,
            initial: self.initial,
        };
        cx.expr(e, None);
    }

    /// `xs[i] = ..`: the list variable written (its frame operand) and its element type.
    pub(super) fn element_target(&mut self, list: &Expr, span: Span) -> Option<(u32, Ty)> {
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

    /// `p.x = ..`: the point variable written (its frame operand), the field's position and
    /// its type. Only a field of a named variable holding a point (or another tuple) can be
    /// assigned.
    pub(super) fn field_target(
        &mut self,
        whole: &Expr,
        field: &Ident,
        span: Span,
    ) -> Option<(u32, u32, Ty)> {
        if !matches!(&whole.kind, ExprKind::Name(p) if p.segments.len() == 1) {
            let d = self.error("E0110", "cannot assign to this expression", span);
            d.primary.message = "only a field of a point variable can be assigned".into();
            d.help = Some("copy the value into a variable and assign its field: `p.x = ..`".into());
            return None;
        }
        // The same rules as assigning the whole variable (E0311 for lets, `in` ports, ..).
        let (slot, ty, _) = self.target(whole)?;
        if let Some((i, ft)) = ty.field(&field.name) {
            self.index.refer(
                field.span,
                super::index::Target::Field(super::ty::TUPLE_FIELDS[i as usize], ft.value_kind()),
            );
            return Some((slot, i, ft));
        }
        if !ty.is_error() {
            self.no_field(&ty, field);
        }
        None
    }

    /// Pushes the position an element assignment writes: a list index or a field's.
    fn position(&mut self, at: &At) {
        match at {
            At::Index(index) => {
                self.expect(index, &Ty::Int, "a list index");
            }
            At::Field(i) => {
                self.emit(Op::Const(f64::from(*i)));
            }
        }
    }

    pub(super) fn assign_element(
        &mut self,
        slot: u32,
        elem: &Ty,
        at: At,
        op: AssignOp,
        value: &Expr,
    ) {
        self.position(&at);
        if op == AssignOp::Set {
            self.expect(value, elem, "the value");
        } else {
            // `xs[i] += v` reads the element first (the index is computed again).
            self.emit(Op::Load(slot));
            self.position(&at);
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

    pub(super) fn assign(&mut self, target: &Expr, op: AssignOp, value: &Expr) {
        if let ExprKind::Index(list, index) = &target.kind {
            if let Some((slot, elem)) = self.element_target(list, target.span) {
                self.assign_element(slot, &elem, At::Index(index), op, value);
                return;
            }
            self.discard(index);
            self.discard(value);
            return;
        }
        if let ExprKind::Field(whole, field) = &target.kind {
            match self.field_target(whole, field, target.span) {
                Some((slot, i, ty)) => self.assign_element(slot, &ty, At::Field(i), op, value),
                None => self.discard(value),
            }
            return;
        }
        let Some((slot, ty, range)) = self.target(target) else {
            self.discard(value);
            return;
        };
        if op == AssignOp::Set {
            let vt = self.expect(value, &ty, "the value");
            if ty == Ty::Any && matches!(vt, Ty::List(_) | Ty::Tuple(_)) {
                // A list given to a variable of unknown type is copied into a list of its
                // own (the lowering makes the variable a list: `lower_any.rs`).
                let at = self.emit(Op::ListSet(slot));
                self.frame.stores.push((at, target.span.to(value.span)));
                return;
            }
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
        let at = match range {
            Some((lo, hi)) => self.emit(Op::StoreClamped(slot, lo, hi)),
            None => self.emit(Op::Store(slot)),
        };
        self.frame.stores.push((at, target.span.to(value.span)));
    }
}

/// Where an element assignment writes: `xs[i]` or `p.x`.
pub(super) enum At<'e> {
    Index(&'e Expr),
    Field(u32),
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
