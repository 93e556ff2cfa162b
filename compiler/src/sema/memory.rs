//! Emotional memories (LANGUAGE.md §4.6): a `memory` member's settings folded into the
//! runtime's configuration.

use super::tree::{Template, TreeCx};
use super::ty::Ty;
use super::wording::article;
use super::Checker;
use crate::diagnostic::Diagnostic;
use crate::ir::program::{MemorySpec, Op};
use crate::syntax::ast::{self, Expr, ExprKind, SettingEntry};

impl Checker {
    /// Checks an emotional memory's settings and builds its configuration.
    pub(super) fn memory(
        &mut self,
        name: &str,
        key: Option<&Expr>,
        body: &ast::SettingBlock,
        t: &mut Template,
        traits: &[(String, f64)],
    ) -> MemorySpec {
        let mut spec = MemorySpec {
            name: name.to_string(),
            ..MemorySpec::default()
        };
        if let Some(k) = key {
            let scratch = t.code.len();
            let mut tc = TreeCx::agent(self, t, traits);
            tc.cx_expr(k);
            // Keyed by one of the agent's variables: say which (an agent's frame variables
            // are its first slots, in order).
            if let &[Op::Load(slot)] = &t.code[scratch..] {
                spec.key = (slot & super::frame::ROOT_FLAG == 0).then_some(slot);
            }
            t.code.truncate(scratch);
        }
        let mut weights_given = false;
        for e in &body.entries {
            let SettingEntry::Setting(s) = e else {
                continue;
            };
            match s.key.name.as_str() {
                "short_term" => weights_given |= self.short_term(s, &mut spec),
                "retrospection" => self.retrospection(s, &mut spec),
                "familiarity" => {
                    if let Some(v) = s
                        .args
                        .first()
                        .and_then(|a| self.memory_number(a, "the initial familiarity"))
                    {
                        spec.familiarity = v;
                    }
                    for (k, v) in &s.pairs {
                        let Some(v) = self.memory_number(v, "a familiarity step") else {
                            continue;
                        };
                        match k.name.as_str() {
                            "gain" => spec.familiarity_gain = v,
                            "decay" => spec.familiarity_decay = v,
                            _ => {}
                        }
                    }
                }
                "threshold" => {
                    let first = s.args.first();
                    if let Some(v) = first.and_then(|a| self.memory_number(a, "the threshold")) {
                        spec.threshold = v;
                    }
                }
                "persist" => match s.args.first().map(|a| &a.kind) {
                    Some(ExprKind::Str(f)) => {
                        spec.persist = Some(f.clone());
                        spec.persist_span = s.args[0].span;
                    }
                    Some(_) => self.diags.push(
                        Diagnostic::error(
                            "E0301",
                            "`persist` takes a file name in quotes",
                            s.args[0].span,
                        )
                        .with_label("not a string"),
                    ),
                    None => {}
                },
                _ => {}
            }
        }
        if !weights_given && spec.size != spec.weights.len() {
            // The default weights are the seed's seven: any other size weighs elements equally.
            spec.weights = vec![1.0 / spec.size as f64; spec.size];
        }
        spec
    }

    /// A number setting of a memory, folded.
    fn memory_number(&mut self, e: &Expr, what: &str) -> Option<f64> {
        let (v, t) = self.const_value_hint(e, Some(&Ty::Num))?;
        if !t.fits(&Ty::Num) {
            self.diags.push(
                Diagnostic::error("E0301", format!("{what} is a number"), e.span)
                    .with_label(format!("this is {}", article(&self.g.show(&t)))),
            );
            return None;
        }
        Some(v)
    }

    /// `short_term 7 weights [..];`: the size and one weight per element. Returns whether
    /// the weights were given.
    fn short_term(&mut self, s: &ast::Setting, spec: &mut MemorySpec) -> bool {
        let mut size_ok = true;
        if let Some(a) = s.args.first() {
            if let Some((v, t)) = self.const_value_hint(a, Some(&Ty::Int)) {
                if t != Ty::Int || v < 1.0 {
                    self.diags.push(
                        Diagnostic::error(
                            "E0302",
                            "the short-term size is a whole number above 0",
                            a.span,
                        )
                        .with_label("not a size"),
                    );
                    size_ok = false;
                } else {
                    spec.size = v as usize;
                }
            } else {
                size_ok = false;
            }
        }
        let Some((_, w)) = s.pairs.iter().find(|(k, _)| k.name == "weights") else {
            return false;
        };
        let ExprKind::List(items) = &w.kind else {
            self.diags.push(
                Diagnostic::error("E0301", "the weights are a list of numbers", w.span)
                    .with_label("not a list"),
            );
            return false;
        };
        if size_ok && items.len() != spec.size {
            self.diags.push(
                Diagnostic::error(
                    "E0316",
                    format!(
                        "{} weights for a short-term memory of {}",
                        items.len(),
                        spec.size
                    ),
                    w.span,
                )
                .with_label(format!("expected {} weights, one per element", spec.size))
                .with_help("give one weight per short-term element, most recent first"),
            );
        }
        spec.weights = items
            .iter()
            .filter_map(|it| self.memory_number(it, "a weight"))
            .collect();
        true
    }

    /// `retrospection sigmoid(gain: g, center: c);`
    fn retrospection(&mut self, s: &ast::Setting, spec: &mut MemorySpec) {
        match s.args.first().map(|a| &a.kind) {
            Some(ExprKind::Call(f, args)) if matches!(&f.kind, ExprKind::Name(p) if p.to_string_path() == "sigmoid") => {
                for a in &args.args {
                    let v = self.memory_number(&a.value, "a sigmoid parameter");
                    match (a.name.as_ref().map(|n| n.name.as_str()), v) {
                        (Some("gain"), Some(v)) => spec.gain = v,
                        (Some("center"), Some(v)) => spec.center = v,
                        (_, Some(_)) => self.diags.push(
                            Diagnostic::error(
                                "E0305",
                                "`sigmoid` takes `gain:` and `center:`",
                                a.span,
                            )
                            .with_label("unknown parameter"),
                        ),
                        _ => {}
                    }
                }
            }
            Some(_) => self.diags.push(
                Diagnostic::error(
                    "E0301",
                    "retrospection is `sigmoid(gain: g, center: c)`",
                    s.args[0].span,
                )
                .with_label("not a sigmoid")
                .with_help("write `retrospection sigmoid(gain: 0.2, center: 50);`"),
            ),
            None => {}
        }
    }
}
