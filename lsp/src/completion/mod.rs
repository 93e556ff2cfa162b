//! Completion. The context comes from the tokens before the cursor (`context.rs`); what is
//! offered there (`place.rs`) comes from the semantic index (declarations and where they are
//! visible, the types the checker gave them) and from the compiler's vocabularies (built-in
//! nodes, functions, memory and list operations, drivers, settings, AKR components,
//! keywords): the same tables the checker reads, so what is offered is what it accepts.

mod context;
mod place;

use crate::documents::{Document, Lines};
use crate::hover::{self, builtin_signature, driver_signature};
use crate::request::{self, Reply};
use affect_compiler::builtins::{self, NodeClass};
use affect_compiler::ir::functions::FUNCTIONS;
use affect_compiler::ir::program::DeviceRole;
use affect_compiler::sema::devices;
use affect_compiler::sema::index::{DefId, DefKind, Definition, Target, MAIN_FILE};
use affect_compiler::sema::{ty, vocab};
use affect_compiler::syntax::ast::ItemKind;
use affect_compiler::syntax::keywords;
use affect_compiler::syntax::lexer::{self, CommentKind};
use affect_compiler::syntax::token::Tok;
use context::word;
use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionParams, CompletionResponse, Documentation,
    InsertTextFormat, MarkupContent, MarkupKind,
};
use serde_json::Value;
use std::collections::HashSet;

/// Completion at a position of the newest text of a document (`text`; the analysis may be a
/// keystroke behind).
pub fn request(doc: Option<&Document>, text: Option<&str>, params: Value) -> Reply {
    let p: CompletionParams = request::parse(params)?;
    let Some(doc) = doc else {
        return Ok(request::null());
    };
    let text = text.unwrap_or(&doc.text);
    let offset = Lines::new(text).offset(text, p.text_document_position.position);
    let items = completion_in(doc, text, offset);
    Ok(request::to_json(Some(CompletionResponse::Array(items))))
}

/// The completion items at a byte offset of the document's own text.
pub fn completion(doc: &Document, offset: usize) -> Vec<CompletionItem> {
    completion_in(doc, &doc.text, offset)
}

fn completion_in(doc: &Document, text: &str, offset: usize) -> Vec<CompletionItem> {
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
    // Token locations are `u32`, as spans are.
    let at = offset as u32;
    if all
        .iter()
        .any(|(s, t, e)| matches!(t, Tok::Str(_)) && *s < at && at < *e)
    {
        return Vec::new();
    }
    let mut before = all.iter().take_while(|(_, _, e)| *e <= at).count();
    // The word being typed is not context.
    if before > 0 {
        let (_, t, e) = &all[before - 1];
        if *e == at && (word(t).is_some() || matches!(t, Tok::Kw(_) | Tok::RootIdent(_))) {
            before -= 1;
        }
    }
    let mut items = Items {
        doc,
        offset,
        out: Vec::new(),
        seen: HashSet::new(),
    };
    place::complete(&mut items, &all[..before], &all[before..], text);
    let mut out = items.out;
    out.sort_by(|a, b| a.sort_text.cmp(&b.sort_text));
    out
}

/// Completion items collected for one request.
pub(super) struct Items<'a> {
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

fn def_kind(d: &Definition) -> CompletionItemKind {
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

    fn def(&mut self, group: u8, id: DefId, insert: Option<String>) {
        let index = &self.doc.index;
        let Some(d) = index.defs.get(id.index()) else {
            return;
        };
        let docs = hover::describe(index, Target::Def(id));
        let (label, sig, kind) = (d.name.clone(), d.signature.to_string(), def_kind(d));
        self.push(group, &label, kind, Some(sig), docs, insert);
    }

    fn keywords(&mut self, group: u8, words: &[&str]) {
        for w in words {
            self.push(group, w, CompletionItemKind::KEYWORD, None, None, None);
        }
    }

    fn words(&mut self, group: u8, words: &[&str]) {
        for w in words {
            self.push(group, w, CompletionItemKind::VALUE, None, None, None);
        }
    }

    /// Definitions visible here besides the globals (the enclosing tree's or agent's).
    fn visible(&self) -> Vec<DefId> {
        let mut v = self.doc.index.visible_at(MAIN_FILE, self.offset);
        v.sort_by_key(|&i| self.doc.index.def(i).name.clone());
        v
    }

    fn globals(&self) -> Vec<DefId> {
        let mut g: Vec<DefId> = self.doc.index.globals.values().copied().collect();
        g.sort();
        g
    }

    /// Names an expression can read here, functions and enums.
    fn values(&mut self) {
        for i in self.visible() {
            let d = self.doc.index.def(i);
            if d.kind.is_value() || d.kind == DefKind::Behavior {
                self.def(1, i, None);
            }
        }
        for i in self.globals() {
            let d = self.doc.index.def(i);
            if matches!(d.kind, DefKind::Const | DefKind::Enum | DefKind::Component) {
                self.def(2, i, None);
            }
        }
        for f in FUNCTIONS {
            let detail = format!("{}({})", f.name, f.params.join(", "));
            let doc = Some(f.doc.to_string());
            self.push(
                3,
                f.name,
                CompletionItemKind::FUNCTION,
                Some(detail),
                doc,
                None,
            );
        }
        for f in vocab::WORLD_FUNCTIONS {
            let doc = Some(f.doc.to_string());
            let detail = Some("world function".to_string());
            self.push(3, f.name, CompletionItemKind::FUNCTION, detail, doc, None);
        }
        self.keywords(4, keywords::EXPRESSION_WORDS);
    }

    /// Every global declaration (trees, agents, modules, tendencies, ...).
    fn all_globals(&mut self) {
        for i in self.globals() {
            self.def(2, i, None);
        }
    }

    fn globals_of(&mut self, group: u8, kinds: &[DefKind]) {
        for i in self.globals() {
            if kinds.contains(&self.doc.index.def(i).kind) {
                self.def(group, i, None);
            }
        }
    }

    fn variants(&mut self, group: u8, en: &str, qualified: bool) {
        let index = &self.doc.index;
        let found: Vec<(DefId, String, String)> = index
            .variants_named(en)
            .into_iter()
            .map(|(i, d)| (i, d.name.clone(), d.signature.to_string()))
            .collect();
        for (i, name, sig) in found {
            let label = match qualified {
                true => format!("{en}::{name}"),
                false => name,
            };
            let insert = qualified.then(|| label.clone());
            let docs = hover::describe(index, Target::Def(i));
            self.push(
                group,
                &label,
                CompletionItemKind::ENUM_MEMBER,
                Some(sig),
                docs,
                insert,
            );
        }
    }

    fn types(&mut self) {
        for (name, _) in ty::BUILTIN_TYPES {
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
            ty::POINT,
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
            let detail = format!("{} (built-in {class})", builtin_signature(b));
            let docs = hover::describe(&self.doc.index, Target::Builtin(b));
            self.push(
                1,
                b.name,
                CompletionItemKind::KEYWORD,
                Some(detail),
                docs,
                None,
            );
        }
        // Trees, but not the one being written (a tree may not call itself).
        for i in self.globals() {
            let d = self.doc.index.def(i);
            let here = d.file == MAIN_FILE
                && (d.span.start as usize) <= self.offset
                && self.offset <= d.span.end as usize;
            if (d.kind == DefKind::Tree && !here) || matches!(d.kind, DefKind::Leaf(_)) {
                self.def(0, i, None);
            }
        }
        if self.in_agent() {
            let docs = hover::describe(&self.doc.index, Target::TendenciesNode);
            let detail = Some("tendencies(machine)".to_string());
            self.push(
                1,
                "tendencies",
                CompletionItemKind::KEYWORD,
                detail,
                docs,
                None,
            );
        }
        self.keywords(2, keywords::NODE_STARTS);
    }

    fn modifiers(&mut self) {
        self.keywords(3, keywords::MODIFIERS);
    }

    /// The enum of a visible name (a switch subject, a port, ...).
    fn enum_of_name(&self, name: &str) -> Option<String> {
        let idx = &self.doc.index;
        let local = idx
            .visible_at(MAIN_FILE, self.offset)
            .into_iter()
            .rev()
            .find(|&i| idx.def(i).name == name);
        let id = local.or_else(|| idx.globals.get(name).copied())?;
        idx.enum_of(id).map(|e| idx.def(e).name.clone())
    }

    /// The definition of a tree or declared node called `callee`.
    fn callee_def(&self, callee: &str) -> Option<DefId> {
        let (id, d) = self.doc.index.global(callee)?;
        matches!(d.kind, DefKind::Leaf(_) | DefKind::Tree).then_some(id)
    }

    /// The enum a port of a callee takes.
    fn port_enum(&self, callee: &str, port: &str) -> Option<String> {
        let idx = &self.doc.index;
        let (p, _) = idx
            .ports(self.callee_def(callee)?)
            .into_iter()
            .find(|(_, d)| d.name == port)?;
        idx.enum_of(p).map(|e| idx.def(e).name.clone())
    }

    fn drivers(&mut self, role: Option<DeviceRole>) {
        for d in devices::DRIVERS {
            if role.is_some_and(|r| r != d.role) {
                continue;
            }
            let docs = hover::describe(&self.doc.index, Target::Driver(d));
            let detail = Some(driver_signature(d));
            self.push(0, d.name, CompletionItemKind::FUNCTION, detail, docs, None);
        }
    }
}
