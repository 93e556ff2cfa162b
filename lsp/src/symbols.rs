//! Document symbols: the outline of a file, from its one parse. Items with their variants,
//! ports and fields; agents with their members; trees and `main` blocks with their nodes
//! (labels shown); settings blocks with their settings. The outline is the shape of the
//! text (as rust-analyzer's file structure is); where the checker declared a name, its
//! detail shows the type the checker gave it.

use crate::documents::Document;
use crate::request::{self, Reply};
use affect_compiler::builtins;
use affect_compiler::fmt::{format_expr, format_type};
use affect_compiler::sema::index::MAIN_FILE;
use affect_compiler::sema::signature::setting_text;
use affect_compiler::span::Span;
use affect_compiler::syntax::ast::*;
use lsp_types::{DocumentSymbol, DocumentSymbolParams, DocumentSymbolResponse, SymbolKind};
use serde_json::Value;

pub fn request(doc: Option<&Document>, params: Value) -> Reply {
    let _: DocumentSymbolParams = request::parse(params)?;
    let Some(doc) = doc else {
        return Ok(request::null());
    };
    let symbols = DocumentSymbolResponse::Nested(document_symbols(doc));
    Ok(request::to_json(Some(symbols)))
}

pub fn document_symbols(doc: &Document) -> Vec<DocumentSymbol> {
    let o = Outline { doc };
    doc.file.items.iter().filter_map(|i| o.item(i)).collect()
}

/// Children listed under one symbol; the rest are one symbol, `(N more ports)`. An outline
/// is for reading, and a node with 200,000 ports made an answer of 50 MB (the language
/// server's largest memory by far).
pub const MAX_CHILDREN: usize = 1000;

/// Arguments shown in a call's detail; the rest are counted, `N more`.
pub const MAX_ARGS: usize = 100;

struct Outline<'a> {
    doc: &'a Document,
}

impl Outline<'_> {
    fn sym(
        &self,
        name: impl Into<String>,
        detail: Option<String>,
        kind: SymbolKind,
        span: Span,
        selection: Span,
        children: Vec<DocumentSymbol>,
    ) -> DocumentSymbol {
        let mut name = name.into();
        if name.trim().is_empty() {
            name = "?".into();
        }
        // The selection must lie inside the range.
        let span = span.to(selection);
        #[allow(deprecated)]
        DocumentSymbol {
            name,
            detail: detail.filter(|d| !d.is_empty()),
            kind,
            tags: None,
            deprecated: None,
            range: self.doc.range(span),
            selection_range: self.doc.range(selection),
            children: (!children.is_empty()).then_some(children),
        }
    }

    fn item(&self, item: &Item) -> Option<DocumentSymbol> {
        let span = item.span;
        Some(match &item.kind {
            ItemKind::Use(u) => {
                let (name, s) = match &u.target {
                    UseTarget::Module(p) => (p.to_string_path(), p.span),
                    UseTarget::File(f, s) => (format!("\"{f}\""), *s),
                };
                self.sym(
                    format!("use {name}"),
                    None,
                    SymbolKind::MODULE,
                    span,
                    s,
                    vec![],
                )
            }
            ItemKind::Const(c) => self.sym(
                &c.name.name,
                Some(format!(
                    "{}= {}",
                    c.ty.as_ref()
                        .map(|t| format!("{} ", format_type(t)))
                        .unwrap_or_default(),
                    format_expr(&c.value)
                )),
                SymbolKind::CONSTANT,
                span,
                c.name.span,
                vec![],
            ),
            ItemKind::Enum(e) => {
                let kids = e
                    .variants
                    .iter()
                    .map(|v| {
                        self.sym(
                            &v.name.name,
                            v.value.as_ref().map(format_expr),
                            SymbolKind::ENUM_MEMBER,
                            v.span,
                            v.name.span,
                            vec![],
                        )
                    })
                    .collect();
                self.sym(
                    &e.name.name,
                    None,
                    SymbolKind::ENUM,
                    span,
                    e.name.span,
                    kids,
                )
            }
            ItemKind::Leaf(l) => self.sym(
                &l.name.name,
                Some(l.kind.keyword().into()),
                SymbolKind::FUNCTION,
                span,
                l.name.span,
                self.ports(&l.ports),
            ),
            ItemKind::Tree(t) => self.tree(span, t),
            ItemKind::Emotion(r) | ItemKind::Tendency(r) => {
                let kw = if matches!(item.kind, ItemKind::Emotion(_)) {
                    "emotion"
                } else {
                    "tendency"
                };
                self.sym(
                    &r.name.name,
                    Some(kw.into()),
                    SymbolKind::STRUCT,
                    span,
                    r.name.span,
                    self.fields(&r.fields),
                )
            }
            ItemKind::Agent(a) => {
                let kids = a
                    .members
                    .iter()
                    .flatten()
                    .filter_map(|m| self.member(m))
                    .collect();
                self.sym(
                    &a.name.name,
                    Some(match &a.base {
                        Some(b) => format!("agent = {}", b.name),
                        None => "agent".into(),
                    }),
                    SymbolKind::CLASS,
                    span,
                    a.name.span,
                    kids,
                )
            }
            ItemKind::World(w) => self.sym(
                &w.name.name,
                Some("world".into()),
                SymbolKind::NAMESPACE,
                span,
                w.name.span,
                self.settings(&w.body),
            ),
            ItemKind::Component(c) => self.sym(
                &c.name.name,
                Some("component".into()),
                SymbolKind::MODULE,
                span,
                c.name.span,
                self.settings(&c.body),
            ),
            ItemKind::Behavior(b) => self.sym(
                &b.name.name,
                Some("behavior".into()),
                SymbolKind::MODULE,
                span,
                b.name.span,
                self.settings(&b.body),
            ),
            ItemKind::Error => return None,
        })
    }

    fn tree(&self, span: Span, t: &TreeDecl) -> DocumentSymbol {
        let mut kids = self.ports(&t.ports);
        for v in &t.locals {
            let detail = self.typed("var", &v.name, v.ty.as_ref());
            let var = self.sym(
                &v.name.name,
                Some(detail),
                SymbolKind::VARIABLE,
                v.span,
                v.name.span,
                vec![],
            );
            kids.push(var);
        }
        kids.extend(self.nodes(&t.body));
        self.sym(
            &t.name.name,
            Some(if t.is_main { "main tree" } else { "tree" }.into()),
            SymbolKind::FUNCTION,
            span,
            t.name.span,
            kids,
        )
    }

    /// A symbol standing for the children past [`MAX_CHILDREN`], over their text.
    fn more<T>(
        &self,
        rest: &[T],
        what: &str,
        kind: SymbolKind,
        span: impl Fn(&T) -> Span,
    ) -> Option<DocumentSymbol> {
        let (first, last) = (span(rest.first()?), span(rest.last()?));
        Some(self.sym(
            format!("({} more {what})", rest.len()),
            None,
            kind,
            first.to(last),
            first,
            vec![],
        ))
    }

    fn ports(&self, ports: &[PortDecl]) -> Vec<DocumentSymbol> {
        let (shown, rest) = ports.split_at(ports.len().min(MAX_CHILDREN));
        shown
            .iter()
            .map(|p| {
                let detail = match &p.ty {
                    Some(t) => format!("{} {}", p.dir.keyword(), format_type(t)),
                    None => p.dir.keyword().to_string(),
                };
                self.sym(
                    &p.name.name,
                    Some(detail),
                    SymbolKind::PROPERTY,
                    p.span,
                    p.name.span,
                    vec![],
                )
            })
            .chain(self.more(rest, "ports", SymbolKind::PROPERTY, |p| p.span))
            .collect()
    }

    fn fields(&self, fields: &[Field]) -> Vec<DocumentSymbol> {
        fields
            .iter()
            .map(|f| {
                self.sym(
                    &f.key.name,
                    Some(format_expr(&f.value)),
                    SymbolKind::FIELD,
                    f.span,
                    f.key.span,
                    vec![],
                )
            })
            .collect()
    }

    fn settings(&self, block: &SettingBlock) -> Vec<DocumentSymbol> {
        block
            .entries
            .iter()
            .filter_map(|e| match e {
                SettingEntry::Setting(s) => Some(
                    self.sym(
                        &s.key.name,
                        Some(setting_text(s)),
                        SymbolKind::PROPERTY,
                        s.span,
                        s.key.span,
                        s.block
                            .as_ref()
                            .map(|b| self.settings(b))
                            .unwrap_or_default(),
                    ),
                ),
                SettingEntry::Behavior(b, span) => Some(self.sym(
                    &b.name.name,
                    Some("behavior".into()),
                    SymbolKind::MODULE,
                    *span,
                    b.name.span,
                    self.settings(&b.body),
                )),
                SettingEntry::Transition(t) => Some(self.sym(
                    format!("{} -> {}", t.from.name, t.to.name),
                    Some(format!("when {}", format_expr(&t.guard))),
                    SymbolKind::EVENT,
                    t.span,
                    t.from.span.to(t.to.span),
                    vec![],
                )),
                SettingEntry::Error(_) => None,
            })
            .collect()
    }

    /// The detail of a declared name: `kw: type`, with the type the checker gave it (else
    /// the type as written, if any).
    fn typed(&self, kw: &str, name: &Ident, written: Option<&Type>) -> String {
        let checked = self
            .doc
            .index
            .declared(MAIN_FILE, name.span)
            .and_then(|d| self.doc.index.def(d).ty.as_ref())
            .filter(|t| !t.is_error() && **t != affect_compiler::sema::ty::Ty::Any)
            .map(|t| self.doc.index.show(t));
        match (checked, written) {
            (Some(t), _) => format!("{kw}: {t}"),
            (None, Some(t)) => format!("{kw}: {}", format_type(t)),
            (None, None) => kw.to_string(),
        }
    }

    fn member(&self, m: &Member) -> Option<DocumentSymbol> {
        let span = m.span;
        // A member without a name is shown by its keyword, selected at its start.
        let head = Span::new(span.start as usize, span.start as usize);
        let named = |name: &Ident, detail: String, kind, kids| {
            self.sym(&name.name, Some(detail), kind, span, name.span, kids)
        };
        let settings = |b: &SettingBlock| self.settings(b);
        Some(match &m.kind {
            MemberKind::Rate(e) => self.sym(
                "rate",
                Some(format_expr(e)),
                SymbolKind::PROPERTY,
                span,
                head,
                vec![],
            ),
            MemberKind::Var { name, ty, .. } => named(
                name,
                self.typed("var", name, ty.as_ref()),
                SymbolKind::VARIABLE,
                vec![],
            ),
            MemberKind::Let { name, ty, .. } => named(
                name,
                self.typed("let", name, ty.as_ref()),
                SymbolKind::VARIABLE,
                vec![],
            ),
            MemberKind::Sensor { name, ty, .. } => named(
                name,
                self.typed("sensor", name, ty.as_ref()),
                SymbolKind::PROPERTY,
                vec![],
            ),
            MemberKind::Actuator { name, ty, .. } => named(
                name,
                self.typed("actuator", name, ty.as_ref()),
                SymbolKind::PROPERTY,
                vec![],
            ),
            MemberKind::Event { name, .. } => {
                named(name, "event".into(), SymbolKind::EVENT, vec![])
            }
            MemberKind::Hormone {
                name, settings: s, ..
            } => named(
                name,
                "hormone".into(),
                SymbolKind::VARIABLE,
                s.as_ref().map(settings).unwrap_or_default(),
            ),
            MemberKind::Update(_) => {
                self.sym("update", None, SymbolKind::METHOD, span, head, vec![])
            }
            MemberKind::On { event, .. } => self.sym(
                format!("on {}", format_expr(event)),
                None,
                SymbolKind::METHOD,
                span,
                event.span,
                vec![],
            ),
            MemberKind::Personality(fields) => self.sym(
                "personality",
                None,
                SymbolKind::STRUCT,
                span,
                head,
                self.fields(fields),
            ),
            MemberKind::Emotions { name, ty, body, .. } => named(
                name,
                format!("emotions: {}", format_type(ty)),
                SymbolKind::ENUM,
                settings(body),
            ),
            MemberKind::Tendencies { machine, arms } => self.tendencies(m, machine, arms),
            MemberKind::Drive(d) => self.drive(m, d),
            MemberKind::Memory { name, body, .. } => {
                named(name, "memory".into(), SymbolKind::OBJECT, settings(body))
            }
            MemberKind::Behavior(b) => named(
                &b.name,
                "behavior".into(),
                SymbolKind::MODULE,
                settings(&b.body),
            ),
            MemberKind::Behaviors(s) => self.sym(
                "behaviors",
                None,
                SymbolKind::NAMESPACE,
                span,
                head,
                settings(s),
            ),
            MemberKind::Recruitment(s) => named(
                &s.name,
                "recruitment".into(),
                SymbolKind::OBJECT,
                settings(&s.body),
            ),
            MemberKind::Component(s) => named(
                &s.name,
                "component".into(),
                SymbolKind::MODULE,
                settings(&s.body),
            ),
            MemberKind::Main(b) => self.sym(
                "main",
                Some("tree".into()),
                SymbolKind::FUNCTION,
                span,
                head,
                self.nodes(b),
            ),
            MemberKind::Error => return None,
        })
    }

    fn tendencies(&self, m: &Member, machine: &Ident, arms: &[TendencyArm]) -> DocumentSymbol {
        let kids = arms
            .iter()
            .map(|a| {
                let pat = match &a.pattern {
                    Pattern::Wildcard(_) => "_".to_string(),
                    Pattern::Expr(e) => format_expr(e),
                };
                let targets: Vec<String> =
                    a.targets.iter().map(|t| t.name.to_string_path()).collect();
                let sel = match &a.pattern {
                    Pattern::Wildcard(s) => *s,
                    Pattern::Expr(e) => e.span,
                };
                self.sym(
                    pat,
                    Some(format!("=> {}", targets.join(", "))),
                    SymbolKind::ENUM_MEMBER,
                    a.span,
                    sel,
                    vec![],
                )
            })
            .collect();
        self.sym(
            format!("tendencies {}", machine.name),
            None,
            SymbolKind::OBJECT,
            m.span,
            machine.span,
            kids,
        )
    }

    fn drive(&self, m: &Member, d: &DriveDecl) -> DocumentSymbol {
        let mut kids = Vec::new();
        for e in &d.entries {
            match e {
                DriveEntry::Rule(r) => kids.push(self.sym(
                    &r.target.name,
                    Some(format!("when {}", format_expr(&r.guard))),
                    SymbolKind::EVENT,
                    r.span,
                    r.target.span,
                    vec![],
                )),
                DriveEntry::Intention(i) => kids.push(self.sym(
                    &i.name.name,
                    Some(self.typed("intention", &i.name, i.ty.as_ref())),
                    SymbolKind::VARIABLE,
                    i.span,
                    i.name.span,
                    vec![],
                )),
                DriveEntry::Error(_) => {}
            }
        }
        self.sym(
            &d.name.name,
            Some(format!("drive: {}", format_type(&d.ty))),
            SymbolKind::ENUM,
            m.span,
            d.name.span,
            kids,
        )
    }

    fn nodes(&self, block: &NodeBlock) -> Vec<DocumentSymbol> {
        let (shown, rest) = block.nodes.split_at(block.nodes.len().min(MAX_CHILDREN));
        shown
            .iter()
            .filter_map(|n| self.node(n))
            .chain(self.more(rest, "nodes", SymbolKind::OPERATOR, |n| n.span))
            .collect()
    }

    fn node(&self, n: &Node) -> Option<DocumentSymbol> {
        let (text, detail, kind, sel, kids) = match &n.kind {
            NodeKind::Call {
                name,
                args,
                children,
            } => {
                let text = name.to_string_path();
                let builtin = builtins::by_name(&text);
                let detail = args.as_ref().map(|a| {
                    let (shown, rest) = a.args.split_at(a.args.len().min(MAX_ARGS));
                    let parts: Vec<String> = shown
                        .iter()
                        .map(|x| match &x.name {
                            Some(n) => format!("{}: {}", n.name, format_expr(&x.value)),
                            None => format_expr(&x.value),
                        })
                        .chain((!rest.is_empty()).then(|| format!("{} more", rest.len())))
                        .chain(a.rest.map(|_| "..".to_string()))
                        .collect();
                    format!("({})", parts.join(", "))
                });
                let kind = if builtin.is_some() {
                    SymbolKind::OPERATOR
                } else {
                    SymbolKind::METHOD
                };
                let kids = children.as_ref().map(|c| self.nodes(c)).unwrap_or_default();
                (text, detail, kind, name.span, kids)
            }
            NodeKind::Script(b) => (
                "do".to_string(),
                None,
                SymbolKind::OPERATOR,
                Span::new(b.span.start as usize, b.span.start as usize),
                vec![],
            ),
            NodeKind::Check(e) => (
                "check".to_string(),
                Some(format_expr(e)),
                SymbolKind::OPERATOR,
                e.span,
                vec![],
            ),
            NodeKind::Switch { subject, arms } => {
                let kids = arms
                    .iter()
                    .filter_map(|a| {
                        let mut s = self.node(&a.node)?;
                        let pat = match &a.pattern {
                            Pattern::Wildcard(_) => "_".to_string(),
                            Pattern::Expr(e) => format_expr(e),
                        };
                        s.name = format!("{pat} => {}", s.name);
                        s.range = self.doc.range(a.span.to(a.node.span));
                        Some(s)
                    })
                    .collect();
                (
                    "switch".to_string(),
                    Some(format_expr(subject)),
                    SymbolKind::STRUCT,
                    subject.span,
                    kids,
                )
            }
            NodeKind::For { var, queue, body } => (
                format!("for {}", var.name),
                Some(format!("in {}", format_expr(queue))),
                SymbolKind::ARRAY,
                var.span,
                self.nodes(body),
            ),
            NodeKind::Error => return None,
        };
        let (name, sel) = match &n.label {
            Some(l) => (format!("{}: {text}", l.text), l.span),
            None => (text, sel),
        };
        Some(self.sym(name, detail, kind, n.span, sel, kids))
    }
}
