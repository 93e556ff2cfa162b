//! `on` handlers: code in the process phase that runs in the tick an event fires.

use super::frame::VarKind;
use super::tree::{Template, TreeCx};
use super::Checker;
use crate::diagnostic::Diagnostic;
use crate::ir::program::Op;
use crate::syntax::ast::{self, Expr, ExprKind};

impl Checker {
    pub(super) fn handler(
        &mut self,
        event: &Expr,
        body: &ast::Block,
        t: &mut Template,
        traits: &[(String, f64)],
    ) {
        let slot = match &event.kind {
            ExprKind::Name(p) if p.segments.len() == 1 => match t.frame.get(&p.segments[0].name) {
                Some(i) if t.frame.vars[i as usize].kind == VarKind::Event => {
                    self.index
                        .refer_def(p.segments[0].span, t.frame.vars[i as usize].def);
                    Some(i)
                }
                Some(i) => {
                    t.frame.vars[i as usize].used = true;
                    let v = &t.frame.vars[i as usize];
                    let (n, kind, span) = (v.name.clone(), v.kind.describe(), v.span);
                    self.diags.push(
                        Diagnostic::error(
                            "E0301",
                            format!("`on` needs an event, and `{n}` is a {kind}"),
                            event.span,
                        )
                        .with_label("not an event")
                        .with_secondary(span, "declared here")
                        .with_help(format!("declare it with `event {n} = ..;`")),
                    );
                    None
                }
                None => {
                    let mut tc = TreeCx::agent(self, t, traits);
                    tc.cx_expr(event);
                    tc.t.code.pop();
                    None
                }
            },
            ExprKind::Call(f, _) if matches!(&f.kind, ExprKind::Name(p) if matches!(p.to_string_path().as_str(), "failed" | "recovered")) =>
            {
                return self.component_handler(event, body, t, traits);
            }
            _ => {
                self.diags.push(Diagnostic::error("E0301", "`on` needs an event", event.span).with_label("not an event").with_help("write `on loud_noise { .. }` with an `event` member, or `on failed(component) { .. }`"));
                None
            }
        };
        let Some(slot) = slot else {
            // Still check the body (and count the names it uses), compiled to nothing.
            let start = t.code.len();
            let mut tc = TreeCx::agent(self, t, traits);
            tc.code_block(body);
            t.code.truncate(start);
            return;
        };
        t.code.push(Op::Load(slot));
        let at = t.code.len();
        t.code.push(Op::JumpIfFalse(0));
        let mut tc = TreeCx::agent(self, t, traits);
        tc.code_block(body);
        let offset = (t.code.len() - at - 1) as u32;
        t.code[at] = Op::JumpIfFalse(offset);
    }
}
