//! Attaches `///` doc comments to the declaration that follows them. A run of doc comments
//! belongs to the node whose first token comes next; a run that documents nothing is a
//! warning (it still survives formatting, as a comment).

use super::ast::*;
use super::lexer::{Comment, CommentKind};
use super::token::Tok;
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use std::collections::HashMap;

struct Run {
    doc: Doc,
    claimed: bool,
}

/// `tokens` are the file's tokens in order (their starts are what matters: a copy of the
/// starts alone was 8 bytes per token more at the parser's peak).
pub fn attach(
    file: &mut File,
    comments: &[Comment],
    tokens: &[(u32, Tok, u32)],
) -> Vec<Diagnostic> {
    let mut runs: Vec<Run> = Vec::new();
    let mut last_doc_end: Option<u32> = None;
    for c in comments {
        if c.kind != CommentKind::Doc {
            last_doc_end = None;
            continue;
        }
        let continues = last_doc_end.is_some_and(|end| {
            // Only whitespace (no token) between the two doc lines.
            let next_tok = tokens.partition_point(|t| t.0 < end);
            tokens.get(next_tok).is_none_or(|t| t.0 > c.span.start)
        });
        if continues {
            let run = runs.last_mut().expect("a run is open");
            run.doc.lines.push(c.doc_text().to_string());
            run.doc.span = run.doc.span.to(c.span);
        } else {
            runs.push(Run {
                doc: Doc {
                    lines: vec![c.doc_text().to_string()],
                    span: c.span,
                },
                claimed: false,
            });
        }
        last_doc_end = Some(c.span.end);
    }
    if runs.is_empty() {
        return Vec::new();
    }
    let mut by_target: HashMap<u32, usize> = HashMap::new();
    for (i, r) in runs.iter().enumerate() {
        let next = tokens.partition_point(|t| t.0 < r.doc.span.end);
        if let Some(&(start, _, _)) = tokens.get(next) {
            by_target.entry(start).or_insert(i);
        }
    }
    let mut a = Attacher {
        runs: &mut runs,
        by_target,
    };
    for item in &mut file.items {
        a.item(item);
    }
    runs.iter()
        .filter(|r| !r.claimed)
        .map(|r| {
            Diagnostic::warning("W0101", "this doc comment documents nothing", r.doc.span)
                .with_label("no declaration follows it")
                .with_help("doc comments (`///`) go right before a declaration, member, port or node; use `//` for other comments")
        })
        .collect()
}

struct Attacher<'r> {
    runs: &'r mut Vec<Run>,
    by_target: HashMap<u32, usize>,
}

impl Attacher<'_> {
    fn claim(&mut self, span: Span, slot: &mut Option<Doc>) {
        if let Some(&i) = self.by_target.get(&span.start) {
            if !self.runs[i].claimed {
                self.runs[i].claimed = true;
                *slot = Some(self.runs[i].doc.clone());
            }
        }
    }

    /// [`Attacher::claim`] for a slot that boxes its doc (a port's).
    fn claim_boxed(&mut self, span: Span, slot: &mut Option<Box<Doc>>) {
        let mut doc = None;
        self.claim(span, &mut doc);
        if let Some(d) = doc {
            *slot = Some(Box::new(d));
        }
    }

    fn item(&mut self, item: &mut Item) {
        self.claim(item.span, &mut item.doc);
        match &mut item.kind {
            ItemKind::Enum(e) => {
                for v in &mut e.variants {
                    self.claim(v.span, &mut v.doc);
                }
            }
            ItemKind::Leaf(l) => self.ports(std::sync::Arc::make_mut(&mut l.ports).as_mut_slice()),
            ItemKind::Tree(t) => {
                self.ports(std::sync::Arc::make_mut(&mut t.ports).as_mut_slice());
                for v in &mut t.locals {
                    self.claim(v.span, &mut v.doc);
                }
                self.nodes(&mut t.body);
            }
            ItemKind::Emotion(r) | ItemKind::Tendency(r) => self.fields(&mut r.fields),
            ItemKind::Agent(a) => {
                for m in a.members.iter_mut().flatten() {
                    self.member(m);
                }
            }
            ItemKind::World(w) => self.settings(&mut w.body),
            ItemKind::Component(c) => self.settings(&mut c.body),
            ItemKind::Behavior(b) => self.settings(&mut b.body),
            ItemKind::Use(_) | ItemKind::Const(_) | ItemKind::Error => {}
        }
    }

    fn ports(&mut self, ports: &mut [PortDecl]) {
        for p in ports {
            self.claim_boxed(p.span, &mut p.doc);
        }
    }

    fn fields(&mut self, fields: &mut [Field]) {
        for f in fields {
            self.claim(f.span, &mut f.doc);
        }
    }

    fn nodes(&mut self, block: &mut NodeBlock) {
        for n in &mut block.nodes {
            self.node(n);
        }
    }

    fn node(&mut self, n: &mut Node) {
        self.claim(n.span, &mut n.doc);
        match &mut n.kind {
            NodeKind::Call {
                children: Some(c), ..
            } => self.nodes(c),
            NodeKind::Switch { arms, .. } => {
                for arm in arms {
                    self.claim(arm.span, &mut arm.doc);
                    self.node(&mut arm.node);
                }
            }
            NodeKind::For { body, .. } => self.nodes(body),
            _ => {}
        }
    }

    fn member(&mut self, m: &mut Member) {
        self.claim(m.span, &mut m.doc);
        match &mut m.kind {
            MemberKind::Hormone {
                settings: Some(s), ..
            } => self.settings(s),
            MemberKind::Personality(fields) => self.fields(fields),
            MemberKind::Emotions { body, .. } | MemberKind::Memory { body, .. } => {
                self.settings(body)
            }
            MemberKind::Tendencies { arms, .. } => {
                for arm in arms {
                    self.claim(arm.span, &mut arm.doc);
                }
            }
            MemberKind::Drive(d) => {
                for e in &mut d.entries {
                    match e {
                        DriveEntry::Rule(r) => self.claim(r.span, &mut r.doc),
                        DriveEntry::Intention(i) => self.claim(i.span, &mut i.doc),
                        DriveEntry::Error(_) => {}
                    }
                }
            }
            MemberKind::Behavior(b) => self.settings(&mut b.body),
            MemberKind::Behaviors(s) => self.settings(s),
            MemberKind::Recruitment(s) | MemberKind::Component(s) => self.settings(&mut s.body),
            MemberKind::Main(b) => self.nodes(b),
            _ => {}
        }
    }

    fn settings(&mut self, block: &mut SettingBlock) {
        for e in &mut block.entries {
            match e {
                SettingEntry::Setting(s) => {
                    self.claim(s.span, &mut s.doc);
                    if let Some(b) = &mut s.block {
                        self.settings(b);
                    }
                }
                SettingEntry::Behavior(b, span) => {
                    self.claim(*span, &mut b.doc);
                    self.settings(&mut b.body);
                }
                SettingEntry::Transition(t) => self.claim(t.span, &mut t.doc),
                SettingEntry::Error(_) => {}
            }
        }
    }
}
