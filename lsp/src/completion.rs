//! Completion. The text being edited rarely parses, so the context comes from the tokens
//! before the cursor: which brackets are open and what opened them (an agent body, a tree
//! body, a node's children, a call's parentheses, a settings block, ...), and the last token.
//! What is offered comes from the index (declarations and their scopes) and the compiler's
//! tables (built-in nodes, functions, memory operations, drivers, settings, keywords).

use crate::documents::Document;
use crate::hover::{self, arg_type, builtin_signature, driver_signature, param_kind};
use crate::resolve::{Def, DefKind, Target, AKR_COMPONENTS, WORLD_SETTINGS};
use affect_compiler::builtins::{self, NodeClass};
use affect_compiler::ir::functions::FUNCTIONS;
use affect_compiler::ir::program::DeviceRole;
use affect_compiler::sema::{self, devices};
use affect_compiler::syntax::ast::ItemKind;
use affect_compiler::syntax::lexer::{self, CommentKind};
use affect_compiler::syntax::shape;
use affect_compiler::syntax::token::{Kw, Tok};
use lsp_types::{
    CompletionItem, CompletionItemKind, Documentation, InsertTextFormat, MarkupContent, MarkupKind,
};
use std::collections::HashSet;

type Token<'a> = (usize, Tok<'a>, usize);

/// What the innermost open bracket belongs to.
#[derive(Clone, Debug, PartialEq)]
enum Ctx {
    Top,
    Agent,
    TreeBody,
    Nodes,
    Switch {
        subject: Option<String>,
    },
    Stmts,
    Settings {
        owner: &'static str,
        machine: Option<String>,
    },
    Fields {
        owner: &'static str,
    },
    Drive {
        en: Option<String>,
    },
    Intention {
        en: Option<String>,
    },
    Tendencies {
        machine: Option<String>,
    },
    Ports,
    Args {
        callee: String,
    },
    Group,
    Other,
}

#[derive(Clone, Debug)]
struct Frame {
    ctx: Ctx,
    /// Index of the opening token.
    open: usize,
    close: Closer,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Closer {
    Brace,
    Paren,
    Bracket,
}

/// A name-like token: identifiers, quoted names and soft keywords.
fn word<'a>(t: &Tok<'a>) -> Option<&'a str> {
    match t {
        Tok::Ident(s) | Tok::RawIdent(s) => Some(s),
        Tok::Kw(k) if !k.is_hard() => Some(k.as_str()),
        _ => None,
    }
}

fn is_kw(t: Option<&Tok>, k: Kw) -> bool {
    matches!(t, Some(Tok::Kw(x)) if *x == k)
}

/// Index after the last boundary (`;`, `{`, `}` at bracket depth 0) before `end`, not before
/// `floor`.
fn clause_start(toks: &[Token], end: usize, floor: usize, commas: bool) -> usize {
    let mut depth = 0usize;
    let mut j = end;
    while j > floor {
        match &toks[j - 1].1 {
            Tok::RParen | Tok::RBracket => depth += 1,
            Tok::LParen | Tok::LBracket => {
                if depth == 0 {
                    return j;
                }
                depth -= 1;
            }
            Tok::Semi | Tok::LBrace | Tok::RBrace if depth == 0 => return j,
            Tok::Comma if depth == 0 && commas => return j,
            _ => {}
        }
        j -= 1;
    }
    floor
}

/// Skips `#[...]` attributes at the start of a clause.
fn skip_attrs(toks: &[Token], mut i: usize, end: usize) -> usize {
    while i < end && matches!(toks[i].1, Tok::Hash) {
        let mut depth = 0usize;
        i += 1;
        while i < end {
            match toks[i].1 {
                Tok::LBracket => depth += 1,
                Tok::RBracket => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }
    i
}

/// The name after the first `:` of a clause: the type of `emotions w: WaiterEmotion = ..`.
fn type_after_colon(toks: &[Token], start: usize, end: usize) -> Option<String> {
    let c = (start..end).find(|&k| matches!(toks[k].1, Tok::Colon))?;
    toks.get(c + 1)
        .filter(|_| c + 1 < end)
        .and_then(|t| word(&t.1))
        .map(str::to_string)
}

fn is_expr_token(t: &Tok) -> bool {
    match t {
        Tok::Ident(_) | Tok::RawIdent(_) | Tok::RootIdent(_) | Tok::Num(_) | Tok::Str(_) => true,
        Tok::Kw(k) => {
            !k.is_hard()
                || matches!(
                    k,
                    Kw::And | Kw::Or | Kw::Not | Kw::True | Kw::False | Kw::In
                )
        }
        Tok::Dot
        | Tok::ColonColon
        | Tok::EqEq
        | Tok::NotEq
        | Tok::Lt
        | Tok::Le
        | Tok::Gt
        | Tok::Ge
        | Tok::Plus
        | Tok::Minus
        | Tok::Star
        | Tok::Slash
        | Tok::Question
        | Tok::Bang
        | Tok::Tilde
        | Tok::Amp
        | Tok::Pipe
        | Tok::Caret
        | Tok::AndAnd
        | Tok::OrOr => true,
        _ => false,
    }
}

fn brace_ctx(toks: &[Token], i: usize, floor: usize, parent: &Ctx) -> Ctx {
    let start = skip_attrs(toks, clause_start(toks, i, floor, false), i);
    let first = toks.get(start).filter(|_| start < i).map(|t| &t.1);
    let kw = |k: Kw| is_kw(first, k);
    match parent {
        Ctx::Top => {
            if kw(Kw::Agent) {
                Ctx::Agent
            } else if kw(Kw::Tree) || kw(Kw::Main) {
                Ctx::TreeBody
            } else if kw(Kw::Emotion) {
                Ctx::Fields { owner: "emotion" }
            } else if kw(Kw::Tendency) {
                Ctx::Fields { owner: "tendency" }
            } else if kw(Kw::World) {
                settings("world")
            } else if kw(Kw::Component) {
                settings("component")
            } else if kw(Kw::Behavior) {
                settings("behavior")
            } else {
                Ctx::Other
            }
        }
        Ctx::Agent => {
            if kw(Kw::Main) {
                Ctx::Nodes
            } else if kw(Kw::Update) || kw(Kw::On) {
                Ctx::Stmts
            } else if kw(Kw::Personality) {
                Ctx::Fields {
                    owner: "personality",
                }
            } else if kw(Kw::Emotions) {
                Ctx::Settings {
                    owner: "emotions",
                    machine: type_after_colon(toks, start, i),
                }
            } else if kw(Kw::Tendencies) {
                Ctx::Tendencies {
                    machine: toks
                        .get(start + 1)
                        .filter(|_| start + 1 < i)
                        .and_then(|t| word(&t.1))
                        .map(str::to_string),
                }
            } else if kw(Kw::Drive) {
                Ctx::Drive {
                    en: type_after_colon(toks, start, i),
                }
            } else if kw(Kw::Memory) {
                settings("memory")
            } else if kw(Kw::Behaviors) {
                settings("behaviors")
            } else if kw(Kw::Behavior) {
                settings("behavior")
            } else if kw(Kw::Recruitment) {
                settings("recruitment")
            } else if kw(Kw::Component) {
                settings("component")
            } else if kw(Kw::Hormone) {
                settings("hormone")
            } else {
                Ctx::Other
            }
        }
        Ctx::TreeBody | Ctx::Nodes | Ctx::Switch { .. } => {
            let before = toks
                .get(i.wrapping_sub(1))
                .filter(|_| i > floor)
                .map(|t| &t.1);
            if matches!(
                before,
                Some(Tok::Kw(
                    Kw::Do | Kw::OnSuccess | Kw::OnFailure | Kw::OnHalted | Kw::After
                ))
            ) {
                return Ctx::Stmts;
            }
            // Back over the expression before the brace: `switch subject {`.
            let mut j = i;
            while j > floor {
                let t = &toks[j - 1].1;
                if matches!(t, Tok::RParen | Tok::RBracket) {
                    let mut depth = 0usize;
                    while j > floor {
                        match toks[j - 1].1 {
                            Tok::RParen | Tok::RBracket => depth += 1,
                            Tok::LParen | Tok::LBracket => depth = depth.saturating_sub(1),
                            _ => {}
                        }
                        j -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                } else if is_expr_token(t) {
                    j -= 1;
                } else {
                    break;
                }
            }
            if j > floor && is_kw(Some(&toks[j - 1].1), Kw::Switch) {
                let subject = if i == j + 1 {
                    word(&toks[j].1).map(str::to_string)
                } else {
                    None
                };
                Ctx::Switch { subject }
            } else {
                Ctx::Nodes
            }
        }
        Ctx::Stmts => Ctx::Stmts,
        Ctx::Settings { owner, .. } => {
            if kw(Kw::Behavior) {
                settings("behavior")
            } else if *owner == "world" {
                settings("world")
            } else {
                settings("nested")
            }
        }
        Ctx::Drive { en } => {
            if kw(Kw::Intention) {
                Ctx::Intention { en: en.clone() }
            } else {
                Ctx::Other
            }
        }
        _ => Ctx::Other,
    }
}

fn settings(owner: &'static str) -> Ctx {
    Ctx::Settings {
        owner,
        machine: None,
    }
}

fn paren_ctx(toks: &[Token], i: usize, floor: usize, parent: &Ctx) -> Ctx {
    if i > floor {
        if let Some(name) = word(&toks[i - 1].1) {
            let decl = i >= 2
                && i - 2 >= floor
                && matches!(
                    toks[i - 2].1,
                    Tok::Kw(Kw::Action | Kw::Condition | Kw::Control | Kw::Decorator | Kw::Tree)
                );
            if decl || (*parent == Ctx::Top && i >= 2 && is_kw(Some(&toks[i - 2].1), Kw::Tree)) {
                return Ctx::Ports;
            }
            return Ctx::Args {
                callee: name.to_string(),
            };
        }
    }
    Ctx::Group
}

fn frames(toks: &[Token]) -> Vec<Frame> {
    let mut stack: Vec<Frame> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let parent = stack.last().map(|f| f.ctx.clone()).unwrap_or(Ctx::Top);
        let floor = stack.last().map(|f| f.open + 1).unwrap_or(0);
        let (ctx, close) = match t.1 {
            Tok::LBrace => (brace_ctx(toks, i, floor, &parent), Closer::Brace),
            Tok::LParen => (paren_ctx(toks, i, floor, &parent), Closer::Paren),
            Tok::LBracket => (Ctx::Group, Closer::Bracket),
            Tok::RBrace | Tok::RParen | Tok::RBracket => {
                let want = match t.1 {
                    Tok::RBrace => Closer::Brace,
                    Tok::RParen => Closer::Paren,
                    _ => Closer::Bracket,
                };
                if let Some(k) = stack.iter().rposition(|f| f.close == want) {
                    stack.truncate(k);
                }
                continue;
            }
            _ => continue,
        };
        stack.push(Frame {
            ctx,
            open: i,
            close,
        });
    }
    stack
}

/// Completion items collected for one request.
struct Items<'a> {
    doc: &'a Document,
    offset: usize,
    out: Vec<CompletionItem>,
    seen: HashSet<(String, u8)>,
}

fn markdown(text: String) -> Documentation {
    Documentation::MarkupContent(MarkupContent {
        kind: MarkupKind::Markdown,
        value: text,
    })
}

impl Items<'_> {
    fn push(
        &mut self,
        group: u8,
        label: &str,
        kind: CompletionItemKind,
        detail: Option<String>,
        documentation: Option<String>,
        insert: Option<String>,
    ) {
        if label.is_empty() || !self.seen.insert((label.to_string(), group)) {
            return;
        }
        self.out.push(CompletionItem {
            label: label.to_string(),
            kind: Some(kind),
            detail,
            documentation: documentation.map(markdown),
            sort_text: Some(format!("{group}_{label}")),
            insert_text: insert,
            insert_text_format: Some(InsertTextFormat::PLAIN_TEXT),
            ..Default::default()
        });
    }

    fn def_kind(d: &Def) -> CompletionItemKind {
        match d.kind {
            DefKind::Enum => CompletionItemKind::ENUM,
            DefKind::Variant => CompletionItemKind::ENUM_MEMBER,
            DefKind::Const => CompletionItemKind::CONSTANT,
            DefKind::Leaf(_) | DefKind::Tree => CompletionItemKind::FUNCTION,
            DefKind::Emotion | DefKind::Tendency => CompletionItemKind::STRUCT,
            DefKind::Agent => CompletionItemKind::CLASS,
            DefKind::World | DefKind::Behavior | DefKind::Component => CompletionItemKind::MODULE,
            DefKind::Port(_) => CompletionItemKind::FIELD,
            DefKind::Event => CompletionItemKind::EVENT,
            DefKind::Sensor | DefKind::Actuator | DefKind::Trait => CompletionItemKind::PROPERTY,
            _ => CompletionItemKind::VARIABLE,
        }
    }

    fn def(&mut self, group: u8, id: usize, insert: Option<String>) {
        let Some(d) = self.doc.index.defs.get(id) else {
            return;
        };
        let docs = hover::describe(&self.doc.index, Target::Def(id));
        let label = d.name.clone();
        self.push(
            group,
            &label,
            Self::def_kind(d),
            Some(d.signature.clone()),
            docs,
            insert,
        );
    }

    fn keywords(&mut self, group: u8, words: &[&str]) {
        for w in words {
            self.push(group, w, CompletionItemKind::KEYWORD, None, None, None);
        }
    }

    /// Names an expression can read here, functions and enums.
    fn values(&mut self) {
        let mut locals = self.doc.index.locals_at(self.offset);
        locals.sort_by_key(|&i| self.doc.index.defs[i].name.clone());
        for i in locals {
            let d = &self.doc.index.defs[i];
            if d.kind.is_value() || d.kind == DefKind::Behavior {
                self.def(1, i, None);
            }
        }
        let mut globals: Vec<usize> = self.doc.index.globals.values().copied().collect();
        globals.sort();
        for i in globals {
            let d = &self.doc.index.defs[i];
            if matches!(d.kind, DefKind::Const | DefKind::Enum | DefKind::Component) {
                self.def(2, i, None);
            }
        }
        for f in FUNCTIONS {
            self.push(
                3,
                f.name,
                CompletionItemKind::FUNCTION,
                Some(format!("{}({})", f.name, f.params.join(", "))),
                Some(f.doc.to_string()),
                None,
            );
        }
        for (name, what) in sema::WORLD_FUNCTIONS {
            self.push(
                3,
                name,
                CompletionItemKind::FUNCTION,
                Some("world function".into()),
                Some(what.to_string()),
                None,
            );
        }
        self.keywords(4, &["true", "false", "not", "and", "or"]);
    }

    /// Every global declaration (trees, agents, modules, tendencies, ...).
    fn all_globals(&mut self) {
        let mut globals: Vec<usize> = self.doc.index.globals.values().copied().collect();
        globals.sort();
        for i in globals {
            self.def(2, i, None);
        }
    }

    fn globals_of(&mut self, group: u8, kinds: &[DefKind]) {
        let mut globals: Vec<usize> = self.doc.index.globals.values().copied().collect();
        globals.sort();
        for i in globals {
            if kinds.contains(&self.doc.index.defs[i].kind) {
                self.def(group, i, None);
            }
        }
    }

    fn variants(&mut self, group: u8, en: &str, qualified: bool) {
        for (i, d) in self.doc.index.variants(en) {
            let insert = qualified.then(|| format!("{en}::{}", d.name));
            let label = if qualified {
                format!("{en}::{}", d.name)
            } else {
                d.name.clone()
            };
            let docs = hover::describe(&self.doc.index, Target::Def(i));
            self.push(
                group,
                &label,
                CompletionItemKind::ENUM_MEMBER,
                Some(d.signature.clone()),
                docs,
                insert,
            );
        }
    }

    fn types(&mut self) {
        for (name, _) in sema::ty::BUILTIN_TYPES {
            self.push(
                0,
                name,
                CompletionItemKind::TYPE_PARAMETER,
                None,
                None,
                None,
            );
        }
        self.push(
            0,
            "Point",
            CompletionItemKind::TYPE_PARAMETER,
            None,
            None,
            None,
        );
        self.globals_of(1, &[DefKind::Enum]);
    }

    fn in_agent(&self) -> bool {
        self.doc.file.items.iter().any(|i| {
            matches!(i.kind, ItemKind::Agent(_))
                && (i.span.start as usize) <= self.offset
                && self.offset <= i.span.end as usize
        })
    }

    fn nodes(&mut self) {
        for b in builtins::BUILTINS {
            let class = match b.class {
                NodeClass::Action => "action",
                NodeClass::Condition => "condition",
                NodeClass::Control => "control",
                NodeClass::Decorator => "decorator",
            };
            self.push(
                1,
                b.name,
                CompletionItemKind::KEYWORD,
                Some(format!("{} (built-in {class})", builtin_signature(b))),
                hover::describe(&self.doc.index, Target::Builtin(b)),
                None,
            );
        }
        // Trees, but not the one being written (a tree may not call itself).
        let mut trees: Vec<usize> = self
            .doc
            .index
            .globals
            .values()
            .copied()
            .filter(|&i| {
                let d = &self.doc.index.defs[i];
                d.kind == DefKind::Tree
                    && !(d.file == 0
                        && (d.span.start as usize) <= self.offset
                        && self.offset <= d.span.end as usize)
            })
            .collect();
        trees.sort();
        for i in trees {
            self.def(0, i, None);
        }
        for k in [
            affect_compiler::syntax::ast::LeafKind::Action,
            affect_compiler::syntax::ast::LeafKind::Condition,
            affect_compiler::syntax::ast::LeafKind::Control,
            affect_compiler::syntax::ast::LeafKind::Decorator,
        ] {
            self.globals_of(0, &[DefKind::Leaf(k)]);
        }
        if self.in_agent() {
            self.push(
                1,
                "tendencies",
                CompletionItemKind::KEYWORD,
                Some("tendencies(machine)".into()),
                hover::describe(&self.doc.index, Target::TendenciesNode),
                None,
            );
        }
        self.keywords(2, &["do", "check", "switch", "for"]);
    }

    fn modifiers(&mut self) {
        self.keywords(
            3,
            &[
                "skip_if",
                "success_if",
                "failure_if",
                "while",
                "on_success",
                "on_failure",
                "on_halted",
                "after",
            ],
        );
    }

    /// The enum of a visible name (a switch subject, a port, ...).
    fn enum_of_name(&self, name: &str) -> Option<String> {
        let idx = &self.doc.index;
        let local = idx
            .locals_at(self.offset)
            .into_iter()
            .rev()
            .find(|&i| idx.defs[i].name == name);
        let id = local.or_else(|| idx.globals.get(name).copied())?;
        idx.defs[id].enum_ty.clone()
    }

    /// Arguments of a node, tree, function or driver call.
    fn arguments(&mut self, callee: &str, written: &[String]) {
        if let Some(b) = builtins::by_name(callee) {
            for a in b.args {
                if written.iter().any(|w| w == a.name) {
                    continue;
                }
                self.push(
                    0,
                    a.name,
                    CompletionItemKind::FIELD,
                    Some(format!("{}: {}", a.name, arg_type(a.ty))),
                    Some(format!("BehaviorTree.CPP port `{}`", a.port)),
                    Some(format!("{}: ", a.name)),
                );
            }
            return;
        }
        if let Some(id) = self.callee_def(callee) {
            let ports: Vec<(usize, String, String, Option<String>)> = self
                .doc
                .index
                .ports(id)
                .into_iter()
                .map(|(i, d)| (i, d.name.clone(), d.signature.clone(), d.doc.clone()))
                .collect();
            for (i, name, sig, _) in ports {
                if written.contains(&name) {
                    continue;
                }
                let docs = hover::describe(&self.doc.index, Target::Def(i));
                self.push(
                    0,
                    &name,
                    CompletionItemKind::FIELD,
                    Some(sig),
                    docs,
                    Some(format!("{}: ", affect_compiler::fmt::arg_name(&name))),
                );
            }
            return;
        }
        if let Some(d) = devices::lookup(callee) {
            for (name, kind, required) in d.params {
                if written.iter().any(|w| w == name) {
                    continue;
                }
                self.push(
                    0,
                    name,
                    CompletionItemKind::FIELD,
                    Some(format!(
                        "{name}: {}{}",
                        param_kind(*kind),
                        if *required { "" } else { " (optional)" }
                    )),
                    Some(driver_signature(d)),
                    Some(format!("{name}: ")),
                );
            }
        }
    }

    fn callee_def(&self, callee: &str) -> Option<usize> {
        let (id, d) = self.doc.index.global(callee)?;
        matches!(d.kind, DefKind::Leaf(_) | DefKind::Tree).then_some(id)
    }

    /// The enum a port or argument of a callee takes.
    fn port_enum(&self, callee: &str, port: &str) -> Option<String> {
        let id = self.callee_def(callee)?;
        self.doc
            .index
            .ports(id)
            .into_iter()
            .find(|(_, d)| d.name == port)
            .and_then(|(_, d)| d.enum_ty.clone())
    }

    fn drivers(&mut self, role: Option<DeviceRole>) {
        for d in devices::DRIVERS {
            if role.is_some_and(|r| r != d.role) {
                continue;
            }
            self.push(
                0,
                d.name,
                CompletionItemKind::FUNCTION,
                Some(driver_signature(d)),
                hover::describe(&self.doc.index, Target::Driver(d)),
                None,
            );
        }
    }
}

/// The completion items at a byte offset.
pub fn completion(doc: &Document, offset: usize) -> Vec<CompletionItem> {
    let text = &doc.text;
    let offset = offset.min(text.len());
    let lexed = lexer::lex(text);
    // Nothing inside comments and strings.
    for c in &lexed.comments {
        let (s, e) = (c.span.start as usize, c.span.end as usize);
        let inside = s < offset
            && (offset < e
                || (c.kind != CommentKind::Block
                    && text.get(e..offset).is_some_and(|rest| !rest.contains('\n'))));
        if inside {
            return Vec::new();
        }
    }
    let all = &lexed.tokens;
    if all
        .iter()
        .any(|(s, t, e)| matches!(t, Tok::Str(_)) && *s < offset && offset < *e)
    {
        return Vec::new();
    }
    let mut before = all.iter().take_while(|(_, _, e)| *e <= offset).count();
    // The word being typed is not context.
    if before > 0 {
        let (_, t, e) = &all[before - 1];
        if *e == offset && (word(t).is_some() || matches!(t, Tok::Kw(_) | Tok::RootIdent(_))) {
            before -= 1;
        }
    }
    let toks = &all[..before];
    let mut items = Items {
        doc,
        offset,
        out: Vec::new(),
        seen: HashSet::new(),
    };
    complete(&mut items, toks, &all[before..], text);
    let mut out = items.out;
    out.sort_by(|a, b| a.sort_text.cmp(&b.sort_text));
    out
}

/// Argument names written in a call after the cursor, up to its closing parenthesis.
fn names_after(rest: &[Token]) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    for (k, t) in rest.iter().enumerate() {
        match t.1 {
            Tok::LParen | Tok::LBracket | Tok::LBrace => depth += 1,
            Tok::RParen | Tok::RBracket | Tok::RBrace => {
                if depth == 0 {
                    break;
                }
                depth -= 1;
            }
            Tok::Colon if depth == 0 && k > 1 => match &rest[k - 1].1 {
                Tok::Kw(kw) => out.push(kw.as_str().to_string()),
                other => out.extend(word(other).map(str::to_string)),
            },
            _ => {}
        }
    }
    out
}

fn complete(items: &mut Items, toks: &[Token], rest: &[Token], text: &str) {
    let prev = toks.last().map(|t| &t.1);
    // `Enum::` and `std::`
    if matches!(prev, Some(Tok::ColonColon)) {
        if let Some(name) = toks.len().checked_sub(2).and_then(|i| word(&toks[i].1)) {
            if name == "std" {
                for (m, _) in sema::STDLIB {
                    let rest = m.strip_prefix("std::").unwrap_or(m);
                    items.push(0, rest, CompletionItemKind::MODULE, None, None, None);
                }
            } else {
                items.variants(0, name, false);
            }
        }
        return;
    }
    // `feelings.`
    if matches!(prev, Some(Tok::Dot)) {
        if let Some(name) = toks.len().checked_sub(2).and_then(|i| word(&toks[i].1)) {
            let idx = &items.doc.index;
            let is_memory = idx
                .locals_at(items.offset)
                .into_iter()
                .any(|i| idx.defs[i].name == name && idx.defs[i].kind == DefKind::Memory);
            if is_memory {
                for (m, params, what) in sema::MEMORY_METHODS {
                    items.push(
                        0,
                        m,
                        CompletionItemKind::METHOD,
                        Some(format!("{name}.{m}{params}")),
                        Some(what.to_string()),
                        None,
                    );
                }
            }
        }
        return;
    }
    let frames = frames(toks);
    let frame = frames.last();
    let ctx = frame.map(|f| f.ctx.clone()).unwrap_or(Ctx::Top);
    let floor = frame.map(|f| f.open + 1).unwrap_or(0);
    // The tokens of the current clause (since `;`, `{`, `}` in this frame).
    let start = skip_attrs(
        toks,
        clause_start(toks, toks.len(), floor, false),
        toks.len(),
    );
    let clause = &toks[start.min(toks.len())..];
    let at_start = clause.is_empty();
    let first = clause.first().map(|t| &t.1);
    let prev_line_end = toks.last().map(|t| t.2).unwrap_or(0);
    let new_line = text
        .get(prev_line_end..items.offset)
        .is_some_and(|s| s.contains('\n'));
    match ctx {
        Ctx::Top => {
            if at_start {
                items.keywords(
                    0,
                    &[
                        "use",
                        "const",
                        "enum",
                        "action",
                        "condition",
                        "control",
                        "decorator",
                        "tree",
                        "main",
                        "emotion",
                        "tendency",
                        "agent",
                        "world",
                        "component",
                        "behavior",
                    ],
                );
            } else if matches!(prev, Some(Tok::Colon)) && is_kw(first, Kw::Const) {
                items.types();
            } else if matches!(prev, Some(Tok::Eq)) && is_kw(first, Kw::Agent) {
                items.globals_of(0, &[DefKind::Agent]);
            } else if is_kw(first, Kw::Const) && clause.iter().any(|t| t.1 == Tok::Eq) {
                items.values();
            } else if is_kw(first, Kw::Use) {
                items.push(0, "std", CompletionItemKind::MODULE, None, None, None);
            }
        }
        Ctx::Agent => {
            if at_start {
                items.keywords(
                    0,
                    &[
                        "rate",
                        "var",
                        "let",
                        "sensor",
                        "event",
                        "actuator",
                        "hormone",
                        "update",
                        "on",
                        "personality",
                        "emotions",
                        "tendencies",
                        "drive",
                        "memory",
                        "behavior",
                        "behaviors",
                        "recruitment",
                        "component",
                        "main",
                    ],
                );
                return;
            }
            let typed = [
                Kw::Var,
                Kw::Let,
                Kw::Sensor,
                Kw::Actuator,
                Kw::Emotions,
                Kw::Drive,
            ];
            let eq = clause.iter().position(|t| t.1 == Tok::Eq);
            if matches!(prev, Some(Tok::Colon)) && typed.iter().any(|&k| is_kw(first, k)) {
                items.types();
            } else if let Some(eq) = eq {
                let ty = type_after_colon(clause, 0, eq);
                if is_kw(first, Kw::Emotions) || is_kw(first, Kw::Drive) {
                    // The initial state.
                    if let Some(t) = ty {
                        items.variants(0, &t, false);
                    }
                    return;
                }
                let role = if is_kw(first, Kw::Sensor) {
                    Some(DeviceRole::Sensor)
                } else if is_kw(first, Kw::Event) {
                    Some(DeviceRole::Event)
                } else if is_kw(first, Kw::Actuator) {
                    Some(DeviceRole::Actuator)
                } else {
                    None
                };
                if let Some(r) = role {
                    items.drivers(Some(r));
                }
                if let Some(t) = ty {
                    items.variants(0, &t, true);
                }
                items.values();
            } else if is_kw(first, Kw::Tendencies) {
                let idx = &items.doc.index;
                let machines: Vec<usize> = idx
                    .locals_at(items.offset)
                    .into_iter()
                    .filter(|&i| idx.defs[i].kind == DefKind::Emotions)
                    .collect();
                for m in machines {
                    items.def(0, m, None);
                }
            } else if is_kw(first, Kw::On) || is_kw(first, Kw::Rate) {
                items.values();
            }
        }
        Ctx::TreeBody | Ctx::Nodes => {
            if ctx == Ctx::TreeBody && is_kw(first, Kw::Var) {
                if matches!(prev, Some(Tok::Colon)) {
                    items.types();
                } else if let Some(eq) = clause.iter().position(|t| t.1 == Tok::Eq) {
                    if let Some(t) = type_after_colon(clause, 0, eq) {
                        items.variants(0, &t, true);
                    }
                    items.values();
                }
                return;
            }
            node_position(items, prev, new_line, ctx == Ctx::TreeBody && at_start);
        }
        Ctx::Switch { subject } => match prev {
            Some(Tok::FatArrow) => items.nodes(),
            Some(Tok::LBrace | Tok::Comma | Tok::RParen | Tok::RBrace) => {
                switch_patterns(items, subject.as_deref());
                if matches!(prev, Some(Tok::RParen | Tok::RBrace)) {
                    items.modifiers();
                }
            }
            Some(t) if new_line && (word(t).is_some() || is_expr_token(t)) => {
                switch_patterns(items, subject.as_deref())
            }
            _ => items.values(),
        },
        Ctx::Stmts => {
            if at_start {
                items.keywords(5, &["if", "else"]);
            }
            items.values();
        }
        Ctx::Settings { owner, machine } => {
            if at_start {
                if let Some(schema) = shape::schema(owner) {
                    for s in schema {
                        items.push(
                            0,
                            s.key,
                            CompletionItemKind::PROPERTY,
                            Some(s.example.to_string()),
                            shape::schema(owner)
                                .and_then(|sc| sc.iter().find(|x| x.key == s.key))
                                .and_then(|sh| {
                                    hover::describe(&items.doc.index, Target::Setting(owner, sh))
                                }),
                            None,
                        );
                    }
                }
                if owner == "world" {
                    for (k, (key, example, _)) in WORLD_SETTINGS.iter().enumerate() {
                        items.push(
                            0,
                            key,
                            CompletionItemKind::PROPERTY,
                            Some(example.to_string()),
                            hover::describe(&items.doc.index, Target::WorldSetting(k)),
                            None,
                        );
                    }
                }
                if owner == "behavior" {
                    items.keywords(1, &["behavior"]);
                }
                if let Some(m) = &machine {
                    items.variants(1, m, false);
                }
                return;
            }
            if owner == "emotions" && matches!(prev, Some(Tok::Arrow)) {
                if let Some(m) = &machine {
                    items.variants(0, m, false);
                }
                return;
            }
            if owner == "emotions" {
                items.push(
                    0,
                    "intensity",
                    CompletionItemKind::VARIABLE,
                    Some("intensity: num in 0..1".into()),
                    hover::describe(&items.doc.index, Target::Intensity),
                    None,
                );
            }
            items.values();
            items.all_globals();
        }
        Ctx::Fields { owner } => {
            let start = clause_start(toks, toks.len(), floor, true);
            let field = &toks[start.min(toks.len())..];
            if field.is_empty() {
                match owner {
                    "emotion" => {
                        for (k, values, meaning) in AKR_COMPONENTS {
                            items.push(
                                0,
                                k,
                                CompletionItemKind::FIELD,
                                Some(meaning.to_string()),
                                Some(format!("Values: {values}.")),
                                Some(format!("{k}: ")),
                            );
                        }
                    }
                    "tendency" => items.push(
                        0,
                        "function",
                        CompletionItemKind::FIELD,
                        Some("what the tendency is for".into()),
                        None,
                        Some("function: ".into()),
                    ),
                    _ => {}
                }
                return;
            }
            let key = word(&field[0].1).unwrap_or("");
            if owner == "emotion" {
                let words: &[&str] = match key {
                    "valence" => &["positive", "negative"],
                    "intensity" => &["very_low", "low", "medium", "high", "very_high"],
                    "duration" => &["minutes", "days", "lifetime"],
                    "focality" => &["event", "global"],
                    "agency" => &["self", "other"],
                    "expression" => &[
                        "happy",
                        "sad",
                        "surprised",
                        "disgusted",
                        "angry",
                        "fearful",
                        "neutral",
                    ],
                    _ => &[],
                };
                for w in words {
                    items.push(0, w, CompletionItemKind::VALUE, None, None, None);
                }
                match key {
                    "tendency" => items.globals_of(0, &[DefKind::Tendency]),
                    "agency" => items.globals_of(1, &[DefKind::Agent]),
                    _ => {}
                }
                return;
            }
            items.values();
            items.all_globals();
        }
        Ctx::Drive { en } => {
            if at_start {
                if let Some(e) = &en {
                    items.variants(0, e, false);
                }
                items.keywords(1, &["intention"]);
            } else if clause.iter().any(|t| is_kw(Some(&t.1), Kw::When)) {
                items.values();
            }
        }
        Ctx::Intention { en } => {
            if clause.iter().any(|t| t.1 == Tok::FatArrow) {
                items.values();
            } else if let Some(e) = &en {
                items.variants(0, e, false);
                items.keywords(1, &["_"]);
            }
        }
        Ctx::Tendencies { machine } => {
            if clause.iter().any(|t| t.1 == Tok::FatArrow) {
                if matches!(prev, Some(Tok::FatArrow | Tok::Comma)) {
                    items.globals_of(0, &[DefKind::Tree, DefKind::Tendency]);
                }
            } else if let Some(en) = machine.as_deref().and_then(|m| items.enum_of_name(m)) {
                items.variants(0, &en, false);
                items.keywords(1, &["_"]);
            }
        }
        Ctx::Ports => {
            let start = clause_start(toks, toks.len(), floor, true);
            let port = &toks[start.min(toks.len())..];
            if port.is_empty() {
                items.keywords(0, &["in", "out", "inout"]);
            } else if matches!(prev, Some(Tok::Colon)) {
                items.types();
            } else if let Some(eq) = port.iter().position(|t| t.1 == Tok::Eq) {
                if let Some(t) = type_after_colon(port, 0, eq) {
                    items.variants(0, &t, true);
                }
                items.values();
            }
        }
        Ctx::Args { callee } => {
            let start = clause_start(toks, toks.len(), floor, true);
            let arg = &toks[start.min(toks.len())..];
            // Names already given in this call.
            let mut written = Vec::new();
            let mut depth = 0usize;
            for (k, t) in toks[floor.min(toks.len())..].iter().enumerate() {
                match t.1 {
                    Tok::LParen | Tok::LBracket | Tok::LBrace => depth += 1,
                    Tok::RParen | Tok::RBracket | Tok::RBrace => depth = depth.saturating_sub(1),
                    Tok::Colon if depth == 0 && k > 0 => {
                        if let Some(w) = toks.get(floor + k - 1).and_then(|t| word(&t.1)) {
                            written.push(w.to_string());
                        } else if let Some(Tok::Kw(kw)) = toks.get(floor + k - 1).map(|t| &t.1) {
                            written.push(kw.as_str().to_string());
                        }
                    }
                    _ => {}
                }
            }
            written.extend(names_after(rest));
            if arg.is_empty() {
                items.arguments(&callee, &written);
                items.values();
                return;
            }
            let named = arg.len() >= 2 && arg[1].1 == Tok::Colon;
            if named {
                let port = match &arg[0].1 {
                    Tok::Kw(k) => k.as_str(),
                    t => word(t).unwrap_or(""),
                };
                if let Some(en) = items.port_enum(&callee, port) {
                    items.variants(0, &en, true);
                }
                if let Some(b) = builtins::by_name(&callee) {
                    if let Some(a) = b.args.iter().find(|a| a.name == port) {
                        if a.ty == builtins::ArgType::Status {
                            for s in sema::ty::STATUS_NAMES {
                                items.push(0, s, CompletionItemKind::VALUE, None, None, None);
                            }
                        }
                    }
                }
                if let Some(d) = devices::lookup(&callee) {
                    if let Some((_, devices::ParamKind::Word(words), _)) =
                        d.params.iter().find(|p| p.0 == port)
                    {
                        for w in *words {
                            items.push(0, w, CompletionItemKind::VALUE, None, None, None);
                        }
                    }
                }
            }
            items.values();
        }
        Ctx::Group => items.values(),
        Ctx::Other => {}
    }
}

/// Inside a block of nodes: node names where a node may start, modifiers after a node,
/// expressions elsewhere (after `check`, `skip_if`, an operator...).
fn node_position(items: &mut Items, prev: Option<&Tok>, new_line: bool, tree_start: bool) {
    match prev {
        Some(Tok::LBrace | Tok::FatArrow | Tok::Colon | Tok::Semi) => {
            if tree_start {
                items.keywords(2, &["var"]);
            }
            items.nodes();
        }
        Some(Tok::RParen | Tok::RBrace) => {
            items.nodes();
            items.modifiers();
        }
        // After a node written on an earlier line, or an attribute `#[..]`.
        Some(t)
            if new_line
                && (word(t).is_some()
                    || matches!(t, Tok::Num(_) | Tok::Str(_) | Tok::RBracket)) =>
        {
            items.nodes();
            items.modifiers();
        }
        _ => items.values(),
    }
}

fn switch_patterns(items: &mut Items, subject: Option<&str>) {
    if let Some(en) = subject.and_then(|s| items.enum_of_name(s)) {
        items.variants(0, &en, false);
    }
    items.keywords(1, &["_"]);
}
