//! Checking the configuration blocks whose dynamics are the runtime's: components (seed 001)
//! and recruitment (seed 002); behaviour modules are `behavior`'s. The shapes of their
//! settings are the parser's; here the names they mention must resolve (redundant
//! components) and their quantities must have the right type and unit. Names they mention
//! count as used.

use super::frame::VarKind;
use super::tree::{Template, TreeCx};
use super::ty::Ty;
use super::{Checker, Global};
use crate::diagnostic::Diagnostic;
use crate::suggest::closest;
use crate::syntax::ast::{self, Expr, ExprKind, File, ItemKind, MemberKind, SettingEntry};

/// Where a block is checked: inside an agent (its members are in scope) or at the top level.
struct Scope<'a, 't> {
    /// The agent's template and traits, for expressions and tree arguments.
    agent: Option<(&'t mut Template, &'a [(String, f64)])>,
}

impl Checker {
    /// An agent's components and recruitment blocks.
    pub(crate) fn check_agent_settings(
        &mut self,
        members: &[ast::Member],
        t: &mut Template,
        traits: &[(String, f64)],
    ) {
        let mut scope = Scope {
            agent: Some((t, traits)),
        };
        for m in members {
            match &m.kind {
                MemberKind::Component(c) => self.component(&c.body, &mut scope),
                MemberKind::Recruitment(r) => self.recruitment(&r.body, &mut scope),
                _ => {}
            }
        }
    }

    /// Top-level components of the main file: shared by the agents, so only their names
    /// and constants are checked here.
    pub(crate) fn check_global_settings(&mut self, file: &File) {
        let mut scope = Scope { agent: None };
        for item in &file.items {
            if let ItemKind::Component(c) = &item.kind {
                self.component(&c.body, &mut scope);
            }
        }
    }

    fn component(&mut self, block: &ast::SettingBlock, scope: &mut Scope) {
        for e in &block.entries {
            let SettingEntry::Setting(s) = e else {
                continue;
            };
            match s.key.name.as_str() {
                "heartbeat" | "timeout" | "startup" | "confirm" | "lookup" => {
                    if let Some(a) = s.args.first() {
                        self.setting_value(a, &Ty::Duration, &format!("`{}`", s.key.name), scope);
                    }
                }
                "restart" => {
                    if let Some(a) = s.args.first() {
                        self.setting_value(a, &Ty::Int, "the number of restarts", scope);
                    }
                    for (k, v) in &s.pairs {
                        if k.name == "within" {
                            self.setting_value(v, &Ty::Duration, "`within`", scope);
                        }
                    }
                }
                "redundant" => {
                    for a in &s.args {
                        self.component_name(a, scope);
                    }
                }
                "serves" => {
                    for a in &s.args {
                        self.served_leaf(a);
                    }
                }
                _ => {}
            }
        }
    }

    fn recruitment(&mut self, block: &ast::SettingBlock, scope: &mut Scope) {
        for e in &block.entries {
            let SettingEntry::Setting(s) = e else {
                continue;
            };
            let Some(a) = s.args.first() else {
                continue;
            };
            match s.key.name.as_str() {
                "threshold" => {
                    self.setting_value(a, &Ty::Num, "`threshold`", scope);
                }
                "resend" | "lease" => {
                    self.setting_value(a, &Ty::Duration, &format!("`{}`", s.key.name), scope);
                }
                "strategy" => {
                    self.word(a, &["affective", "greedy", "random"], "`strategy`");
                }
                "decay" => {
                    self.setting_value(a, &Ty::Num, "`decay`", scope);
                    for (k, v) in &s.pairs {
                        if k.name == "per" {
                            self.word(v, &["ms", "s", "min", "h"], "`per`");
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// A value of a setting: compiled and thrown away in an agent (where it may read the
    /// members), folded at the top level.
    fn setting_value(&mut self, e: &Expr, want: &Ty, what: &str, scope: &mut Scope) {
        match &mut scope.agent {
            Some((t, traits)) => {
                let start = t.code.len();
                let mut tc = TreeCx::agent(self, t, traits);
                tc.code_expr(e, want, what);
                t.code.truncate(start);
            }
            None => {
                if let Some((_, got)) = self.const_value_hint(e, Some(want)) {
                    if !got.fits(want) {
                        let (sw, sg) = (self.g.show(want), self.g.show(&got));
                        let mut d = Diagnostic::error(
                            super::wording::mismatch_code(&got, want),
                            format!(
                                "{what} must be {}, found {}",
                                super::wording::article(&sw),
                                super::wording::article(&sg)
                            ),
                            e.span,
                        )
                        .with_label(format!("this is {}", super::wording::article(&sg)));
                        if let Some(h) = super::wording::unit_hint(&got, want) {
                            d = d.with_help(h);
                        }
                        self.diags.push(d);
                    }
                }
            }
        }
    }

    /// A bare word from a fixed set (`strategy affective;`).
    fn word(&mut self, e: &Expr, words: &[&str], what: &str) {
        let w = match &e.kind {
            ExprKind::Name(p) if p.segments.len() == 1 => Some(p.segments[0].name.as_str()),
            _ => None,
        };
        if w.is_some_and(|w| words.contains(&w)) {
            return;
        }
        let mut d = Diagnostic::error(
            "E0301",
            format!("{what} is one of `{}`", words.join("`, `")),
            e.span,
        )
        .with_label("not one of them");
        if let Some(b) = w.and_then(|w| closest(w, words.iter().copied())) {
            d = d.with_help(format!("did you mean `{b}`?"));
        }
        self.diags.push(d);
    }

    /// A component named by `redundant`: a component of the agent or of the file.
    fn component_name(&mut self, e: &Expr, scope: &mut Scope) {
        let Some(name) = target_name(e) else {
            self.diags.push(
                Diagnostic::error("E0301", "`redundant` lists components by name", e.span)
                    .with_label("not a name"),
            );
            return;
        };
        let mut known: Vec<String> = self
            .g
            .names
            .iter()
            .filter(|(_, (g, _))| *g == Global::Component)
            .map(|(n, _)| n.clone())
            .collect();
        let at = name_span(e);
        if let Some((t, _)) = &mut scope.agent {
            if let Some(i) = t.frame.get(&name) {
                t.frame.vars[i as usize].used = true;
                if t.frame.vars[i as usize].kind == VarKind::Component {
                    self.index.refer_def(at, t.frame.vars[i as usize].def);
                    return;
                }
            }
            known.extend(
                t.frame
                    .vars
                    .iter()
                    .filter(|v| v.kind == VarKind::Component)
                    .map(|v| v.name.clone()),
            );
        }
        if known.contains(&name) {
            self.index.refer_global(at, &name);
            self.used_globals.insert(name);
            return;
        }
        known.sort();
        let mut d = Diagnostic::error("E0201", format!("no component `{name}`"), e.span)
            .with_label("not a component of this agent or of the file");
        d = d.with_suggestion(&name, known.iter().map(String::as_str), || {
            format!("declare the backup: `component {name} {{ heartbeat 100ms; }}`")
        });
        self.diags.push(d);
    }
}

impl Checker {
    /// A leaf named by `serves`: a declared action or condition.
    fn served_leaf(&mut self, e: &Expr) {
        let name = match &e.kind {
            ExprKind::Name(p) => p.to_string_path(),
            _ => {
                self.diags.push(
                    Diagnostic::error("E0301", "`serves` lists declared leaves by name", e.span)
                        .with_label("not a name"),
                );
                return;
            }
        };
        if let Some((Global::Leaf(_), _)) = self.g.names.get(&name) {
            self.index.refer_global(e.span, &name);
            self.used_globals.insert(name);
            return;
        }
        let mut known: Vec<&str> = (self.g.names.iter())
            .filter(|(_, (g, _))| matches!(g, Global::Leaf(_)))
            .map(|(n, _)| n.as_str())
            .collect();
        known.sort_unstable();
        let d = Diagnostic::error("E0201", format!("no action or condition `{name}`"), e.span)
            .with_label("a component serves calls of declared leaves")
            .with_suggestion(&name, known.iter().copied(), || {
                format!("declare it: `action {name}();`")
            });
        self.diags.push(d);
    }
}

/// Where the name of a setting argument is written (`Name` or `Name(args)`).
fn name_span(e: &Expr) -> crate::span::Span {
    match &e.kind {
        ExprKind::Call(f, _) => name_span(f),
        _ => e.span,
    }
}

/// The name a setting argument gives: `Name` or `Name(args)`.
fn target_name(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Name(p) => Some(p.to_string_path()),
        ExprKind::Call(f, _) => match &f.kind {
            ExprKind::Name(p) => Some(p.to_string_path()),
            _ => None,
        },
        _ => None,
    }
}
