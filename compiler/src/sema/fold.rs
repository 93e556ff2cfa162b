//! Constant folding: values known before the program runs (initial values of variables,
//! constants, settings), and the type and initial value of a `var`.

use super::error::SemaError;
use super::expr::Cx;
use super::frame::Frame;
use super::ty::Ty;
use super::wording::article;
use super::Checker;
use crate::diagnostic::Diagnostic;
use crate::syntax::ast::{self, Expr, ExprKind};

impl Checker {
    /// The type, initial value and range of a `var`.
    pub fn var_type_and_init(
        &mut self,
        name: &ast::Ident,
        ty: Option<&ast::Type>,
        init: Option<&Expr>,
    ) -> (Ty, f64, Option<(f64, f64)>) {
        // Names of the agent or tree in the value are variables, not constants.
        self.initialising = Some(name.name.clone());
        let declared = ty.map(|t| self.resolve_type(t));
        let range = ty.and_then(|t| self.type_range(t));
        let (found, value) = match init {
            Some(e) => self.initial_value(name, e, declared.as_ref()),
            // A list starts empty.
            None if matches!(declared, Some(Ty::List(_))) => (None, self.new_list(Vec::new())),
            None => (None, 0.0),
        };
        if let (Some(e), Some(want), Some(got)) = (init, &declared, &found) {
            if !got.fits(want) {
                let help = matches!(e.kind, ExprKind::Tuple(_))
                    .then_some("coordinates are lengths: write `(0m, 0m)`");
                self.report(SemaError::StartsAs {
                    name: name.name.clone(),
                    declared: want.clone(),
                    found: got.clone(),
                    span: e.span,
                    help,
                });
            }
        }
        if let (Some(e), Some((lo, hi)), Some(_)) = (init, range, &found) {
            let scalar = !matches!(e.kind, ExprKind::Tuple(_) | ExprKind::List(_));
            if scalar && (value < lo || value > hi) {
                self.diags.push(
                    Diagnostic::error(
                        "E0302",
                        format!(
                            "`{}` starts at {value}, outside its range {lo}..{hi}",
                            name.name
                        ),
                        e.span,
                    )
                    .with_label("out of range"),
                );
            }
        }
        let ty = match declared.or(found) {
            Some(t) => t,
            None => {
                if init.is_none() {
                    self.diags.push(
                        Diagnostic::error(
                            "E0301",
                            format!("`{}` needs a type or an initial value", name.name),
                            name.span,
                        )
                        .with_label("its type is unknown")
                        .with_help(format!("write `var {}: num = 0;`", name.name)),
                    );
                }
                Ty::Error
            }
        };
        self.initialising = None;
        (ty, value, range)
    }

    /// An initial value: its type (when it folds) and value; a point or a list is stored in
    /// the program's lists and its value is the list's index.
    fn initial_value(
        &mut self,
        name: &ast::Ident,
        e: &Expr,
        declared: Option<&Ty>,
    ) -> (Option<Ty>, f64) {
        match &e.kind {
            ExprKind::Tuple(items) => {
                // A point is stored like a list of its coordinates.
                let (values, tys): (Vec<f64>, Vec<Ty>) = items
                    .iter()
                    .filter_map(|it| self.const_value_hint(it, None))
                    .unzip();
                (Some(Ty::Tuple(tys)), self.new_list(values))
            }
            ExprKind::List(items) => {
                let elem = match declared {
                    Some(Ty::List(t)) => Some((**t).clone()),
                    _ => None,
                };
                let (values, elem_ty) = self.list_elements(name, items, elem);
                let ty = Ty::List(Box::new(elem_ty.unwrap_or(Ty::Any)));
                (Some(ty), self.new_list(values))
            }
            _ => match self.const_value_hint(e, declared) {
                Some((v, t)) => (Some(t), v),
                None => (None, 0.0),
            },
        }
    }

    /// The elements of a list literal, folded, and their type (the declared one, else the
    /// first element's); the first element of another type is reported.
    fn list_elements(
        &mut self,
        name: &ast::Ident,
        items: &[Expr],
        elem: Option<Ty>,
    ) -> (Vec<f64>, Option<Ty>) {
        let mut values = Vec::new();
        let mut elem_ty = elem.clone();
        let mut mixed = false;
        for it in items {
            let Some((v, t)) = self.const_value_hint(it, elem.as_ref()) else {
                continue;
            };
            values.push(v);
            match &elem_ty {
                Some(et) if !t.fits(et) && !mixed => {
                    mixed = true;
                    let d = Diagnostic::error(
                        super::wording::mismatch_code(&t, et),
                        format!(
                            "the elements of `{}` are {}, found {}",
                            name.name,
                            article(&self.g.show(et)),
                            article(&self.g.show(&t))
                        ),
                        it.span,
                    )
                    .with_label("wrong type")
                    .with_help("a list holds values of one type");
                    self.diags.push(d);
                }
                Some(_) => {}
                None => elem_ty = Some(t),
            }
        }
        (values, elem_ty)
    }

    /// Adds a constant list to the program; its index is the value of the slot holding it.
    fn new_list(&mut self, values: Vec<f64>) -> f64 {
        self.lists.push(values);
        (self.lists.len() - 1) as f64
    }

    /// Folds a constant expression (literals, constants, enum variants, arithmetic).
    pub fn const_value(&mut self, e: &Expr) -> Option<(f64, Ty)> {
        self.const_value_hint(e, None)
    }

    /// Constant folding with an expected type (so `Explore` resolves against the right enum).
    pub fn const_value_hint(&mut self, e: &Expr, hint: Option<&Ty>) -> Option<(f64, Ty)> {
        let mut frame = Frame::default();
        let mut code = Vec::new();
        let mut pending = Vec::new();
        let before = self.diags.len();
        let ty = {
            let mut cx = Cx {
                g: &self.g,
                frame: &mut frame,
                code: &mut code,
                diags: &mut self.diags,
                strings: &mut self.strings,
                lists: &mut self.lists,
                traits: &[],
                pending: &mut pending,
                index: &mut self.index,
                initial: self
                    .initialising
                    .as_deref()
                    .map(|v| (v, &self.runtime_names[..])),
            };
            cx.expr(e, hint)
        };
        if self.diags.len() > before {
            return None;
        }
        match crate::ir::eval::eval_const(&code) {
            Some(v) => Some((v, ty)),
            None => {
                self.diags.push(
                    Diagnostic::error(
                        "E0304",
                        match &e.kind {
                            ExprKind::Root(id) => format!("`@{}` is not a constant", id.name),
                            _ => "this must be a constant".to_string(),
                        },
                        e.span,
                    )
                    .with_label("not computable before the program runs")
                    .with_help("use literals, constants and enum variants here"),
                );
                None
            }
        }
    }
}
