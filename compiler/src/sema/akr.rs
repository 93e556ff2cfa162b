//! AKR emotion and tendency declarations (seed 000): every component of an `emotion` must be
//! one of the Affective Knowledge Representation's values, and its `tendency` must be
//! declared. The causal chains found here travel with emotion machines' change events.

use super::index::Target;
use super::vocab::{component, AGENCY_WORDS, AKR_COMPONENTS};
use super::{Checker, Global};
use crate::diagnostic::Diagnostic;
use crate::suggest::closest;
use crate::syntax::ast::{self, ExprKind, ItemKind};

/// What an emotion machine needs of an `emotion` declaration.
#[derive(Clone, Debug, Default)]
pub struct EmotionDef {
    /// The appraisal in words, said or logged on every change into this emotion.
    pub causal_chain: Option<String>,
}

impl Checker {
    /// Checks the `emotion` and `tendency` declarations of one module and records the
    /// emotions' causal chains.
    pub(super) fn check_akr_records(&mut self, file: &ast::File) {
        for item in &file.items {
            match &item.kind {
                ItemKind::Emotion(r) => {
                    let def = self.emotion_record(r);
                    self.g.emotions.entry(r.name.name.clone()).or_insert(def);
                }
                ItemKind::Tendency(r) => self.tendency_record(r),
                _ => {}
            }
        }
    }

    fn emotion_record(&mut self, r: &ast::RecordDecl) -> EmotionDef {
        let mut def = EmotionDef::default();
        let mut seen: Vec<&ast::Ident> = Vec::new();
        for f in &r.fields {
            let key = f.key.name.as_str();
            if let Some(first) = seen.iter().find(|k| k.name == key) {
                self.diags.push(
                    Diagnostic::error(
                        "E0318",
                        format!("`{key}` is given twice in emotion `{}`", r.name.name),
                        f.key.span,
                    )
                    .with_label("again here")
                    .with_secondary(first.span, "first here"),
                );
                continue;
            }
            seen.push(&f.key);
            let Some(c) = component(key) else {
                let names = AKR_COMPONENTS.iter().map(|c| c.key);
                let mut d = Diagnostic::error(
                    "E0318",
                    format!("an emotion has no component `{key}`"),
                    f.key.span,
                )
                .with_label("not an AKR component");
                d = d.with_suggestion(key, names, || {
                    format!(
                        "the components are {}",
                        AKR_COMPONENTS
                            .iter()
                            .map(|c| format!("`{}`", c.key))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                });
                self.diags.push(d);
                continue;
            };
            self.index.refer(f.key.span, Target::AkrComponent(c));
            match (key, c.words) {
                ("intensity", Some(ws)) => {
                    if let ExprKind::Num(n) = &f.value.kind {
                        if !(0.0..=1.0).contains(&n.value) || n.unit.is_some() {
                            self.diags.push(
                                Diagnostic::error(
                                    "E0318",
                                    format!("an emotion's intensity is in 0..1, found {}", n.text),
                                    f.value.span,
                                )
                                .with_label("out of range")
                                .with_help(format!("write a number in 0..1 or one of {}", list(ws))),
                            );
                        }
                    } else {
                        self.component_word(key, &f.value, ws, &[]);
                    }
                }
                (_, Some(ws)) => self.component_word(key, &f.value, ws, &[]),
                ("agency", None) => {
                    let agents: Vec<String> = self
                        .g
                        .names
                        .iter()
                        .filter(|(_, (g, _))| matches!(g, Global::Agent(_)))
                        .map(|(n, _)| n.clone())
                        .collect();
                    if let ExprKind::Name(p) = &f.value.kind {
                        if agents.contains(&p.to_string_path()) {
                            self.index.refer_global(p.span, &p.to_string_path());
                        }
                    }
                    let extra: Vec<&str> = agents.iter().map(String::as_str).collect();
                    self.component_word(key, &f.value, AGENCY_WORDS, &extra);
                }
                ("tendency", None) => self.emotion_tendency(&f.value),
                _ => match &f.value.kind {
                    ExprKind::Str(s) => def.causal_chain = Some(s.clone()),
                    _ => self.diags.push(
                        Diagnostic::error(
                            "E0318",
                            "a causal chain is a sentence in a string",
                            f.value.span,
                        )
                        .with_label("not a string")
                        .with_help(
                            "write what the robot would say, e.g. \"something bad can happen; I don't want it to happen\"",
                        ),
                    ),
                },
            }
        }
        def
    }

    /// A component written as one word out of `words` (or `extra`, such as agent names).
    fn component_word(&mut self, key: &str, value: &ast::Expr, words: &[&str], extra: &[&str]) {
        let text = match &value.kind {
            ExprKind::Name(p) if p.segments.len() == 1 => p.segments[0].name.clone(),
            _ => crate::fmt::format_expr(value),
        };
        if words.contains(&text.as_str()) || extra.contains(&text.as_str()) {
            return;
        }
        let all = words.iter().chain(extra.iter()).copied();
        let mut d = Diagnostic::error(
            "E0318",
            format!("`{text}` is not a value of `{key}`"),
            value.span,
        )
        .with_label(format!("not a `{key}` value"));
        d = match closest(&text, all) {
            Some(b) => d.with_help(format!("did you mean `{b}`?")),
            None => {
                let mut shown = list(words);
                if key == "agency" {
                    shown.push_str(", or an agent's name");
                }
                d.with_help(format!("`{key}` is one of {shown}"))
            }
        };
        self.diags.push(d);
    }

    /// `tendency: Avoid` names a declared `tendency`.
    fn emotion_tendency(&mut self, value: &ast::Expr) {
        let name = match &value.kind {
            ExprKind::Name(p) => p.to_string_path(),
            _ => String::new(),
        };
        if let Some((Global::Tendency, _)) = self.g.names.get(&name) {
            self.index.refer_global(value.span, &name);
            self.used_globals.insert(name);
            return;
        }
        let tendencies: Vec<String> = self
            .g
            .names
            .iter()
            .filter(|(_, (g, _))| matches!(g, Global::Tendency))
            .map(|(n, _)| n.clone())
            .collect();
        let shown = crate::fmt::format_expr(value);
        let mut d = Diagnostic::error("E0201", format!("unknown tendency `{shown}`"), value.span)
            .with_label("not a declared `tendency`");
        d = d.with_suggestion(&shown, tendencies.iter().map(String::as_str), || "declare it with `tendency Name { function: \"..\" }`, or `use std::akr;` for the basic ones".into());
        self.diags.push(d);
    }

    /// A tendency's `function` is a string; its other fields (the behaviours it means for
    /// each role, seed 000's Table 2) are free.
    fn tendency_record(&mut self, r: &ast::RecordDecl) {
        for f in &r.fields {
            if f.key.name == "function" && !matches!(f.value.kind, ExprKind::Str(_)) {
                self.diags.push(
                    Diagnostic::error("E0318", "a tendency's `function` is a string", f.value.span)
                        .with_label("not a string")
                        .with_help("say what the tendency is for, e.g. `function: \"protect\"`"),
                );
            }
        }
    }
}

fn list(words: &[&str]) -> String {
    words
        .iter()
        .map(|w| format!("`{w}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
