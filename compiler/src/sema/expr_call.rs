//! Calls in expressions: the built-in functions, the world's questions (`unvisited()`,
//! `toward(a, b)`, `failed(c)`), and the operations of memories and lists.

use super::error::{SemaError, Write};
use super::expr::Cx;
use super::frame::VarKind;
use super::index;
use super::ty::Ty;
use super::vocab;
use super::wording::article;
use crate::ir::functions::{self, HostFn, Shape};
use crate::ir::program::Op;
use crate::span::Span;
use crate::suggest::closest;
use crate::syntax::ast::*;

impl Cx<'_> {
    pub(super) fn call(&mut self, f: &Expr, args: &ArgList, span: Span, hint: Option<&Ty>) -> Ty {
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
                    let def = self.frame.vars[i as usize].def;
                    self.index.refer_def(p.segments[0].span, def);
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
            self.index.refer(p.span, index::Target::Function(sig));
            return self.builtin_call(sig, args, span);
        }
        let world = vocab::world_function(&name);
        if let Some(w) = world {
            self.index.refer(p.span, index::Target::WorldFunction(w));
        }
        if name == "failed" || name == "recovered" {
            return self.component_test(&name, args, span);
        }
        if name == "unvisited" || name == "toward" {
            return self.world_query(&name, args, span, hint);
        }
        if let Some(ret) = world.map(|w| w.result_type(hint)) {
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
        candidates.extend(vocab::WORLD_FUNCTIONS.iter().map(|f| f.name));
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

    pub(super) fn builtin_call(
        &mut self,
        sig: &functions::Signature,
        args: &ArgList,
        span: Span,
    ) -> Ty {
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
    pub(super) fn component_test(&mut self, name: &str, args: &ArgList, _span: Span) -> Ty {
        let mut component: Option<String> = None;
        match args.args.as_slice() {
            [a] => {
                if let ExprKind::Name(p) = &a.value.kind {
                    component = Some(p.to_string_path());
                }
                let ok = match &a.value.kind {
                    ExprKind::Name(p) if p.segments.len() == 1 => {
                        let (n, at) = (&p.segments[0].name, p.segments[0].span);
                        match self.frame.get(n) {
                            Some(i) => {
                                self.frame.vars[i as usize].used = true;
                                self.index.refer_def(at, self.frame.vars[i as usize].def);
                                self.frame.vars[i as usize].kind == VarKind::Component
                            }
                            None => {
                                self.index.refer_global(at, n);
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

    pub(super) fn list_method(
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
                    let e = SemaError::NotAssignable {
                        name: v.name.clone(),
                        what: v.kind.describe().to_string(),
                        write: Write::Push,
                        span: method.span,
                        decl: v.span,
                        help: "keep your own copy in a `var` and push onto that",
                    };
                    self.report(e);
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

    pub(super) fn memory_method(
        &mut self,
        memory: &str,
        method: &Ident,
        args: &ArgList,
        span: Span,
    ) -> Ty {
        let Some(op) = vocab::memory_method(&method.name) else {
            let names: Vec<&str> = vocab::MEMORY_METHODS.iter().map(|m| m.name).collect();
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
        self.index
            .refer(method.span, index::Target::MemoryMethod(op));
        let params: Vec<Ty> = op.params.iter().map(|p| p.ty()).collect();
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
        // A memory variable's `init` is its index among the agent's memories.
        let index = self
            .frame
            .get(memory)
            .map(|i| self.frame.vars[i as usize].init as u32)
            .unwrap_or(0);
        self.emit(Op::Host(op.host, index, params.len() as u8));
        op.result.ty()
    }

    /// `unvisited()` and `toward(from, to)`: questions the world answers.
    pub(super) fn world_query(
        &mut self,
        name: &str,
        args: &ArgList,
        span: Span,
        hint: Option<&Ty>,
    ) -> Ty {
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
}
