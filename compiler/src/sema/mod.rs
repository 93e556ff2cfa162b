//! Name resolution, type checking and lowering to the tick program. One pass over each tree
//! and agent checks it and produces its code; trees become templates that every call site
//! instantiates (BehaviorTree.CPP creates one node per subtree instance, so do we).

mod agent;
pub mod akr;
mod behavior;
mod component;
mod derived;
mod device_call;
pub mod devices;
mod drives;
mod error;
mod expr;
mod fold;
pub mod frame;
mod handlers;
mod lower;
mod machine;
mod members;
mod memory;
mod modules;
mod recruit;
mod settings;
mod tendencies;
mod tendency_table;
mod tree;
pub mod ty;
mod xml_ids;

/// For unit tests: check a source that uses no files; the program (if any) and each
/// diagnostic as `CODE message`.
#[cfg(test)]
pub(crate) fn check_for_test(src: &str) -> (Option<Program>, Vec<String>) {
    let a = crate::check_source_with(src, &NoFiles);
    let diags = a
        .diagnostics
        .iter()
        .map(|d| format!("{} {}", d.code, d.message))
        .collect();
    (a.program, diags)
}

use crate::diagnostic::Diagnostic;
use crate::ir::program::Program;
use crate::span::Span;
use crate::suggest::closest;
use crate::syntax::ast::{self, File, ItemKind, LeafKind, PortDir};
use error::{Scope, SemaError};
pub use modules::{Loader, NoFiles, STDLIB};
use std::collections::HashMap;
use ty::Ty;

/// Interned strings: symbol ids are what string slots hold.
#[derive(Default)]
pub struct Interner {
    map: HashMap<String, u32>,
    pub list: Vec<String>,
}

impl Interner {
    pub fn new() -> Interner {
        let mut i = Interner::default();
        i.intern("");
        i
    }

    pub fn intern(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.map.get(s) {
            return i;
        }
        let i = self.list.len() as u32;
        self.list.push(s.to_string());
        self.map.insert(s.to_string(), i);
        i
    }
}

#[derive(Clone, Debug)]
pub struct EnumDef {
    pub name: String,
    pub variants: Vec<String>,
    pub values: Vec<i64>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct ConstDef {
    pub ty: Ty,
    pub value: f64,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct PortSig {
    pub name: String,
    pub dir: PortDir,
    pub ty: Ty,
    /// The default as a compiled constant, when given.
    pub default: Option<f64>,
    /// A default naming a blackboard entry (BehaviorTree.CPP's `default="{key}"`): the
    /// variable a call that leaves the port out binds it to.
    pub default_key: Option<String>,
    pub span: Span,
    pub doc: Option<String>,
}

#[derive(Clone, Debug)]
pub struct LeafDef {
    pub name: String,
    pub kind: LeafKind,
    pub ports: Vec<PortSig>,
    pub span: Span,
    pub doc: Option<String>,
}

#[derive(Clone, Debug)]
pub struct TreeSig {
    pub name: String,
    pub ports: Vec<PortSig>,
    pub span: Span,
    pub is_main: bool,
    pub doc: Option<String>,
    /// `tree T(..) {}`: only a signature (a `<SubTree>` model entry of a tree another file
    /// defines). A definition found in a used file replaces it; a call of one that stays a
    /// signature runs as a stand-in.
    pub signature: bool,
}

/// Is this tree only a signature? An empty body with ports, `#[model]` or `#[inferred]` (the
/// importer's spelling of a `<SubTree>` model entry); an empty `main tree` never is.
pub fn is_signature(item: &ast::Item, t: &ast::TreeDecl) -> bool {
    t.body.nodes.is_empty()
        && !t.is_main
        && (!t.ports.is_empty()
            || item
                .attrs
                .iter()
                .any(|a| a.name.name == "model" || a.name.name == "inferred"))
}

/// What a global name stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Global {
    Enum(u32),
    Const,
    Leaf(u32),
    Tree(u32),
    Emotion,
    Tendency,
    Agent(u32),
    World,
    Component,
    Behavior,
}

impl Global {
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Global::Enum(_) => "an enum",
            Global::Const => "a constant",
            Global::Leaf(_) => "a node declaration",
            Global::Tree(_) => "a tree",
            Global::Emotion => "an emotion",
            Global::Tendency => "a tendency",
            Global::Agent(_) => "an agent",
            Global::World => "a world",
            Global::Component => "a component",
            Global::Behavior => "a behaviour module",
        }
    }
}

/// Everything declared at the top level of the program and its modules.
#[derive(Default)]
pub struct Globals {
    pub enums: Vec<EnumDef>,
    /// Variant name → (enum, variant) for every enum that has it.
    pub variants: HashMap<String, Vec<(u32, u32)>>,
    pub consts: HashMap<String, ConstDef>,
    pub leaves: Vec<LeafDef>,
    pub trees: Vec<TreeSig>,
    pub names: HashMap<String, (Global, Span)>,
    /// `emotion` declarations by name, for emotion machines' change events.
    pub emotions: HashMap<String, akr::EmotionDef>,
}

impl Globals {
    pub fn enum_index(&self, name: &str) -> Option<u32> {
        match self.names.get(name) {
            Some((Global::Enum(i), _)) => Some(*i),
            _ => None,
        }
    }

    /// The tree declared by the name at `span`, if it is the one the program kept (not a
    /// duplicate, not a signature replaced by its definition).
    pub fn tree_declared_at(&self, name: &str, span: Span) -> Option<usize> {
        match self.names.get(name) {
            Some(&(Global::Tree(i), _)) if self.trees[i as usize].span == span => Some(i as usize),
            _ => None,
        }
    }

    pub fn show(&self, ty: &Ty) -> String {
        ty::TyDisplay {
            ty,
            enums: &self.enums,
        }
        .to_string()
    }

    /// The result type of a world function, if `name` is one.
    pub fn world_function(&self, name: &str, hint: Option<&Ty>) -> Option<Ty> {
        Some(match name {
            "unvisited" => Ty::Str,
            "toward" => match hint {
                Some(t @ Ty::Enum(_)) => t.clone(),
                _ => Ty::Any,
            },
            "failed" | "recovered" => Ty::Bool,
            "percept" => Ty::Str,
            "triangular" | "exponential" | "uniform" => Ty::Num,
            _ => return None,
        })
    }
}

/// Functions the world and the runtime provide, with what they do.
pub const WORLD_FUNCTIONS: &[(&str, &str)] = &[
    (
        "unvisited",
        "a place of the world this agent has not visited yet, chosen at random",
    ),
    (
        "toward",
        "the direction of the first step from one place toward another",
    ),
    ("failed", "true while a component has missed its heartbeat"),
    (
        "recovered",
        "true in the tick a failed component comes back",
    ),
    ("percept", "names a percept a recruitment needs"),
    (
        "triangular",
        "a triangular distribution (min, mode, max) for worlds",
    ),
    (
        "exponential",
        "an exponential distribution (rate) for worlds",
    ),
    ("uniform", "a uniform distribution (min, max) for worlds"),
];

/// Operations of an emotional memory (LANGUAGE.md §4.6): name, what it does.
pub const MEMORY_METHODS: &[(&str, &str, &str)] = &[
    (
        "recent",
        "()",
        "the weighted average of the short-term scores, most recent first; 50 when empty",
    ),
    (
        "remember",
        "(key, score)",
        "files a feeling about a key (rehearsal or encoding); gives the score after association",
    ),
    (
        "score",
        "(key)",
        "the long-term score of a key; 50 when unknown",
    ),
    ("familiarity", "(key)", "the hot index of a key, 0..100"),
    ("best", "()", "the key with the highest long-term score"),
    (
        "best_path",
        "(paths)",
        "the path whose places score best on average, per unit of length",
    ),
    (
        "path_score",
        "(path)",
        "the mean remembered score of a path's places divided by its length",
    ),
    (
        "suitable",
        "(path)",
        "true when the mean remembered score of a path's places reaches the memory's `threshold`",
    ),
];

pub fn memory_method(name: &str) -> Option<(Vec<Ty>, Ty)> {
    let label = || Ty::Str;
    let path = || Ty::List(Box::new(Ty::Str));
    Some(match name {
        "recent" => (vec![], Ty::Num),
        "remember" => (vec![label(), Ty::Num], Ty::Num),
        "score" => (vec![label()], Ty::Num),
        "familiarity" => (vec![label()], Ty::Num),
        "best" => (vec![], Ty::Str),
        "best_path" => (vec![Ty::List(Box::new(path()))], path()),
        "path_score" => (vec![path()], Ty::Num),
        "suitable" => (vec![path()], Ty::Bool),
        _ => return None,
    })
}

/// The result of checking a program.
pub struct Analysis {
    /// The tick program, when checking found no errors.
    pub program: Option<Program>,
    pub diagnostics: Vec<Diagnostic>,
    /// Diagnostics inside imported files: (path, source, diagnostic).
    pub imported_diagnostics: Vec<(String, String, Diagnostic)>,
    /// Declarations by name, with their doc comments and types (for hover and go-to).
    pub symbols: Vec<Symbol>,
}

/// A declaration the language server can show.
#[derive(Clone, Debug)]
pub struct Symbol {
    pub name: String,
    pub kind: &'static str,
    pub detail: String,
    pub doc: Option<String>,
    pub span: Span,
}

/// Checks a parsed file (with its `use`d modules) and lowers it.
pub fn analyze(file: &File, loader: &dyn Loader) -> Analysis {
    let mut diags = Vec::new();
    let mut imported_diagnostics = Vec::new();
    let modules = modules::load_all(file, loader, &mut diags, &mut imported_diagnostics);
    let mut c = Checker::new();
    // Declarations of every module first, so order never matters.
    for m in &modules {
        let before = c.diags.len();
        c.declare(m, m.is_main);
        c.set_aside(m, before);
    }
    let mut program = c.lower_program(&modules, file);
    c.check_global_settings(file);
    c.check_shared_behaviors(file);
    c.warn_unused_globals(file);
    diags.append(&mut c.diags);
    // Errors found in used files, shown against their own text.
    for (name, d) in std::mem::take(&mut c.module_diags) {
        if let Some(m) = modules.iter().find(|m| m.name == name) {
            imported_diagnostics.push((name, m.text.clone(), d));
        }
    }
    diags.sort_by_key(|d| (d.primary.span.start, d.primary.span.end));
    let has_errors = diags.iter().any(Diagnostic::is_error)
        || imported_diagnostics.iter().any(|(_, _, d)| d.is_error());
    if let Some(p) = program.as_mut() {
        p.strings = std::mem::take(&mut c.strings.list);
    }
    Analysis {
        program: if has_errors { None } else { program },
        diagnostics: diags,
        imported_diagnostics,
        symbols: c.symbols,
    }
}

pub(crate) struct Checker {
    pub g: Globals,
    pub diags: Vec<Diagnostic>,
    pub strings: Interner,
    pub symbols: Vec<Symbol>,
    /// Global names used somewhere (for unused warnings on trees and leaves).
    pub used_globals: std::collections::HashSet<String>,
    /// Initial list contents, indexed by list slots' `init`.
    pub lists: Vec<Vec<f64>>,
    /// The variables of the agent or tree being checked: initial values cannot read them.
    pub runtime_names: Vec<String>,
    /// Root-blackboard keys some tree reads or writes with `@key`.
    pub root_keys: std::collections::HashSet<String>,
    /// Errors in used files (their spans are in those files): module name, diagnostic.
    pub module_diags: Vec<(String, Diagnostic)>,
    /// Top-level behaviour modules of every file, for the agents that run them (`behavior`).
    pub shared_behaviors: Vec<ast::BehaviorDecl>,
    /// Trees that stayed signatures (tree index → the leaf standing in for their calls).
    pub signature_leaves: HashMap<u32, u32>,
}

impl Checker {
    fn new() -> Checker {
        Checker {
            g: Globals::default(),
            diags: Vec::new(),
            strings: Interner::new(),
            symbols: Vec::new(),
            used_globals: Default::default(),
            lists: Vec::new(),
            runtime_names: Vec::new(),
            root_keys: Default::default(),
            module_diags: Vec::new(),
            shared_behaviors: Vec::new(),
            signature_leaves: HashMap::new(),
        }
    }

    /// Reports one of the checker's typed errors.
    pub(crate) fn report(&mut self, e: SemaError) {
        let d = e.render(&self.g);
        self.diags.push(d);
    }

    /// Moves the diagnostics reported since `before` while checking a used module out of the
    /// main file's list: its errors are reported with that file, its warnings dropped (as the
    /// parser's are).
    pub(crate) fn set_aside(&mut self, m: &modules::Module, before: usize) {
        if m.is_main {
            return;
        }
        for d in self.diags.drain(before..) {
            if d.is_error() {
                self.module_diags.push((m.name.clone(), d));
            }
        }
    }

    fn define(&mut self, name: &ast::Ident, what: Global, report: bool) -> bool {
        if crate::builtins::by_name(&name.name).is_some()
            && matches!(what, Global::Leaf(_) | Global::Tree(_))
        {
            if report {
                self.diags.push(
                    Diagnostic::error(
                        "E0202",
                        format!("`{}` is a built-in node", name.name),
                        name.span,
                    )
                    .with_label("this declaration would hide it")
                    .with_help("choose another name"),
                );
            }
            return false;
        }
        if let Some(&(prev, prev_span)) = self.g.names.get(&name.name) {
            if report {
                self.report(SemaError::DeclaredTwice {
                    name: name.name.clone(),
                    span: name.span,
                    first: Some(prev_span),
                    scope: Scope::Program(prev),
                });
            }
            return false;
        }
        self.g.names.insert(name.name.clone(), (what, name.span));
        true
    }

    /// Resolves a type written in the source.
    pub fn resolve_type(&mut self, t: &ast::Type) -> Ty {
        match &t.kind {
            ast::TypeKind::Named(p) => {
                let name = p.to_string_path();
                if let Some((_, ty)) = ty::BUILTIN_TYPES.iter().find(|(n, _)| *n == name) {
                    return ty.clone();
                }
                if name == "Point" {
                    return Ty::Tuple(vec![Ty::Length, Ty::Length]);
                }
                if let Some(i) = self.g.enum_index(&name) {
                    self.used_globals.insert(name);
                    return Ty::Enum(i);
                }
                let mut candidates: Vec<&str> = ty::BUILTIN_TYPES.iter().map(|(n, _)| *n).collect();
                candidates.push("Point");
                candidates.extend(self.g.enums.iter().map(|e| e.name.as_str()));
                let best = closest(&name, candidates).map(str::to_string);
                let mut d = Diagnostic::error("E0203", format!("unknown type `{name}`"), t.span)
                    .with_label("not a type");
                d = match best {
                    Some(b) => d.with_help(format!("did you mean `{b}`?")),
                    None => d.with_help(format!(
                        "declare it (`enum {name} {{ .. }}`), or write a foreign type by its C++ name in quotes: `\"{name}\"`"
                    )),
                };
                self.diags.push(d);
                Ty::Error
            }
            ast::TypeKind::Range(base, lo, hi) => {
                let b = self.resolve_type(base);
                if !b.is_quantity() || b == Ty::Any {
                    self.diags.push(
                        Diagnostic::error("E0301", "only numbers can have a range", t.span)
                            .with_label(format!("`{}` is not a number type", self.g.show(&b))),
                    );
                }
                let _ = (lo, hi);
                b
            }
            ast::TypeKind::List(inner) => Ty::List(Box::new(self.resolve_type(inner))),
            ast::TypeKind::Foreign(s) => Ty::Foreign(s.clone()),
            ast::TypeKind::Error => Ty::Error,
        }
    }

    /// A range type's bounds, folded to constants.
    pub fn type_range(&mut self, t: &ast::Type) -> Option<(f64, f64)> {
        if let ast::TypeKind::Range(_, lo, hi) = &t.kind {
            let lo_v = self.const_value(lo)?;
            let hi_v = self.const_value(hi)?;
            if lo_v.0 > hi_v.0 {
                self.diags.push(
                    Diagnostic::error("E0302", "the range is empty", t.span)
                        .with_label(format!("{} is above {}", lo_v.0, hi_v.0)),
                );
                return None;
            }
            return Some((lo_v.0, hi_v.0));
        }
        None
    }

    fn doc_text(doc: &Option<ast::Doc>) -> Option<String> {
        doc.as_ref().map(|d| d.text())
    }

    /// Records the declarations of one module.
    fn declare(&mut self, m: &modules::Module, report: bool) {
        for item in &m.file.items {
            let doc = Self::doc_text(&item.doc);
            match &item.kind {
                ItemKind::Enum(e) => {
                    let idx = self.g.enums.len() as u32;
                    if !self.define(&e.name, Global::Enum(idx), report) {
                        continue;
                    }
                    let mut variants = Vec::new();
                    let mut values = Vec::new();
                    for (vi, v) in e.variants.iter().enumerate() {
                        if variants.contains(&v.name.name) {
                            self.report(SemaError::DeclaredTwice {
                                name: v.name.name.clone(),
                                span: v.name.span,
                                first: None,
                                scope: Scope::Variants,
                            });
                            continue;
                        }
                        let value = match &v.value {
                            Some(x) => match &x.kind {
                                ast::ExprKind::Num(n) if n.integer => n.value as i64,
                                ast::ExprKind::Unary(ast::UnOp::Neg, inner) => match &inner.kind {
                                    ast::ExprKind::Num(n) if n.integer => -(n.value as i64),
                                    _ => vi as i64,
                                },
                                _ => {
                                    self.diags.push(
                                        Diagnostic::error(
                                            "E0301",
                                            "an enum value must be a whole number",
                                            x.span,
                                        )
                                        .with_label("not an integer literal"),
                                    );
                                    vi as i64
                                }
                            },
                            None => vi as i64,
                        };
                        self.g
                            .variants
                            .entry(v.name.name.clone())
                            .or_default()
                            .push((idx, variants.len() as u32));
                        variants.push(v.name.name.clone());
                        values.push(value);
                    }
                    self.symbols.push(Symbol {
                        name: e.name.name.clone(),
                        kind: "enum",
                        detail: format!("enum {} {{ {} }}", e.name.name, variants.join(", ")),
                        doc,
                        span: e.name.span,
                    });
                    self.g.enums.push(EnumDef {
                        name: e.name.name.clone(),
                        variants,
                        values,
                        span: e.name.span,
                    });
                }
                ItemKind::Leaf(l) => {
                    let idx = self.g.leaves.len() as u32;
                    if self.define(&l.name, Global::Leaf(idx), report) {
                        self.g.leaves.push(LeafDef {
                            name: l.name.name.clone(),
                            kind: l.kind,
                            ports: Vec::new(),
                            span: l.name.span,
                            doc: doc.clone(),
                        });
                    }
                }
                ItemKind::Tree(t) => {
                    let signature = is_signature(item, t);
                    let sig = TreeSig {
                        name: t.name.name.clone(),
                        ports: Vec::new(),
                        span: t.name.span,
                        is_main: t.is_main,
                        doc,
                        signature,
                    };
                    // A signature and the tree's definition (in this file or a used one) are
                    // one tree, as a `<SubTree>` model entry and its `<BehaviorTree>` are.
                    if let Some(&(Global::Tree(i), _)) = self.g.names.get(&t.name.name) {
                        if signature {
                            continue;
                        }
                        if self.g.trees[i as usize].signature {
                            self.g
                                .names
                                .insert(t.name.name.clone(), (Global::Tree(i), t.name.span));
                            self.g.trees[i as usize] = sig;
                            continue;
                        }
                    }
                    let idx = self.g.trees.len() as u32;
                    if self.define(&t.name, Global::Tree(idx), report) {
                        self.g.trees.push(sig);
                    }
                }
                ItemKind::Const(c) => {
                    self.define(&c.name, Global::Const, report);
                }
                ItemKind::Emotion(r) => {
                    self.define(&r.name, Global::Emotion, report);
                }
                ItemKind::Tendency(r) => {
                    self.define(&r.name, Global::Tendency, report);
                }
                ItemKind::Agent(a) => {
                    self.define(&a.name, Global::Agent(0), report);
                }
                ItemKind::World(w) => {
                    self.define(&w.name, Global::World, report);
                }
                ItemKind::Component(c) => {
                    self.define(&c.name, Global::Component, report);
                }
                ItemKind::Behavior(b) => {
                    self.define(&b.name, Global::Behavior, report);
                }
                ItemKind::Use(_) | ItemKind::Error => {}
            }
        }
        // Constants and port signatures need the names above; resolve them now, constants
        // first, each after the constants it reads (items come in any order).
        for (c, doc) in self.const_order(&m.file) {
            self.declare_const(c, doc);
        }
        for item in &m.file.items {
            match &item.kind {
                ItemKind::Leaf(l) => {
                    let Some(Global::Leaf(i)) = self.g.names.get(&l.name.name).map(|(g, _)| *g)
                    else {
                        continue;
                    };
                    if self.g.leaves[i as usize].span != l.name.span {
                        continue;
                    }
                    let ports = self.port_sigs(&l.ports);
                    let detail = format!(
                        "{} {}({})",
                        l.kind.keyword(),
                        l.name.name,
                        ports_text(self, &ports)
                    );
                    self.symbols.push(Symbol {
                        name: l.name.name.clone(),
                        kind: l.kind.keyword(),
                        detail,
                        doc: Self::doc_text(&item.doc),
                        span: l.name.span,
                    });
                    self.g.leaves[i as usize].ports = ports;
                }
                ItemKind::Tree(t) => {
                    let Some(Global::Tree(i)) = self.g.names.get(&t.name.name).map(|(g, _)| *g)
                    else {
                        continue;
                    };
                    if self.g.trees[i as usize].span != t.name.span {
                        continue;
                    }
                    let ports = self.port_sigs(&t.ports);
                    let detail = format!("tree {}({})", t.name.name, ports_text(self, &ports));
                    self.symbols.push(Symbol {
                        name: t.name.name.clone(),
                        kind: "tree",
                        detail,
                        doc: Self::doc_text(&item.doc),
                        span: t.name.span,
                    });
                    self.g.trees[i as usize].ports = ports;
                }
                _ => {}
            }
        }
    }

    /// Folds one constant and records it.
    fn declare_const(&mut self, c: &ast::ConstDecl, doc: &Option<ast::Doc>) {
        if self.g.consts.contains_key(&c.name.name) {
            return;
        }
        // The declared type first: `const START: Drive = Explore;` resolves the
        // variant against it.
        let declared = c.ty.as_ref().map(|t| (self.resolve_type(t), t));
        let hint = declared.as_ref().map(|(w, _)| w.clone());
        if let Some((value, mut ty)) = self.const_value_hint(&c.value, hint.as_ref()) {
            if let Some((want, t)) = declared {
                if !ty.fits(&want) {
                    let mut d = Diagnostic::error(
                        expr::mismatch_code(&ty, &want),
                        format!(
                            "constant `{}` is declared {} but its value is {}",
                            c.name.name,
                            expr::article(&self.g.show(&want)),
                            expr::article(&self.g.show(&ty))
                        ),
                        c.value.span,
                    )
                    .with_label("wrong type");
                    if let Some(h) = expr::unit_hint(&ty, &want) {
                        d = d.with_help(h);
                    }
                    self.diags.push(d);
                }
                if let Some((lo, hi)) = self.type_range(t) {
                    if value < lo || value > hi {
                        self.diags.push(
                            Diagnostic::error(
                                "E0302",
                                format!(
                                    "constant `{}` is {value}, outside its range {lo}..{hi}",
                                    c.name.name
                                ),
                                c.value.span,
                            )
                            .with_label("out of range"),
                        );
                    }
                }
                ty = want;
            }
            self.symbols.push(Symbol {
                name: c.name.name.clone(),
                kind: "const",
                detail: format!(
                    "const {}: {} = {}",
                    c.name.name,
                    self.g.show(&ty),
                    crate::fmt::format_expr(&c.value)
                ),
                doc: Self::doc_text(doc),
                span: c.name.span,
            });
            self.g.consts.insert(
                c.name.name.clone(),
                ConstDef {
                    ty,
                    value,
                    span: c.name.span,
                },
            );
        } else {
            // Reported already; known from here on, so its uses add nothing.
            self.g.consts.insert(
                c.name.name.clone(),
                ConstDef {
                    ty: Ty::Error,
                    value: 0.0,
                    span: c.name.span,
                },
            );
        }
    }

    /// The constants of a file in an order where each comes after the constants it reads. A
    /// constant that reads itself (directly or not) is reported and recorded as an error.
    fn const_order<'f>(
        &mut self,
        file: &'f File,
    ) -> Vec<(&'f ast::ConstDecl, &'f Option<ast::Doc>)> {
        let consts: Vec<(&ast::ConstDecl, &Option<ast::Doc>)> = file
            .items
            .iter()
            .filter_map(|i| match &i.kind {
                ItemKind::Const(c) => Some((c, &i.doc)),
                _ => None,
            })
            .collect();
        struct Names(Vec<String>);
        impl crate::syntax::visit::Visitor for Names {
            fn visit_expr(&mut self, e: &ast::Expr) {
                if let ast::ExprKind::Name(p) = &e.kind {
                    if p.segments.len() == 1 {
                        self.0.push(p.segments[0].name.clone());
                    }
                }
                crate::syntax::visit::walk_expr(self, e);
            }
        }
        // The first constant of each name (a duplicate is reported elsewhere).
        let mut index: HashMap<&str, usize> = HashMap::new();
        for (i, (c, _)) in consts.iter().enumerate() {
            index.entry(c.name.name.as_str()).or_insert(i);
        }
        let deps: Vec<Vec<usize>> = consts
            .iter()
            .map(|(c, _)| {
                let mut names = Names(Vec::new());
                crate::syntax::visit::Visitor::visit_expr(&mut names, &c.value);
                names
                    .0
                    .iter()
                    .filter_map(|n| index.get(n.as_str()).copied())
                    .collect()
            })
            .collect();
        let mut cyclic: Vec<usize> = Vec::new();
        let order = crate::graph::depth_first(
            &deps,
            |&d| d,
            |&d, _| {
                if !cyclic.contains(&d) {
                    cyclic.push(d);
                }
            },
        );
        for &i in &cyclic {
            let c = consts[i].0;
            if self.g.consts.contains_key(&c.name.name) {
                continue;
            }
            self.diags.push(
                Diagnostic::error(
                    "E0210",
                    format!("constant `{}` depends on itself", c.name.name),
                    c.name.span,
                )
                .with_label("its value reads itself, directly or through other constants")
                .with_help("give one of the constants a value that does not read the others"),
            );
            self.g.consts.insert(
                c.name.name.clone(),
                ConstDef {
                    ty: Ty::Error,
                    value: 0.0,
                    span: c.name.span,
                },
            );
        }
        order.into_iter().map(|i| consts[i]).collect()
    }

    fn port_sigs(&mut self, ports: &[ast::PortDecl]) -> Vec<PortSig> {
        let mut out: Vec<PortSig> = Vec::new();
        for p in ports {
            if let Some(prev) = out.iter().find(|q| q.name == p.name.name) {
                self.report(SemaError::DeclaredTwice {
                    name: p.name.name.clone(),
                    span: p.name.span,
                    first: Some(prev.span),
                    scope: Scope::Ports,
                });
                continue;
            }
            let ty = match &p.ty {
                Some(t) => self.resolve_type(t),
                None => Ty::Any,
            };
            let default_key = p.default.as_ref().and_then(|d| self.key_default(d));
            let default = match &p.default {
                Some(_) if default_key.is_some() => None,
                Some(d) => {
                    if p.dir == PortDir::Out {
                        self.diags.push(
                            Diagnostic::error(
                                "E0307",
                                "an `out` port cannot have a default",
                                d.span,
                            )
                            .with_label("the node writes this port; it has nothing to default"),
                        );
                        None
                    } else {
                        match self.const_value(d) {
                            Some((v, dt)) => {
                                // BehaviorTree.CPP reads a default from its text when the node
                                // reads the port: any literal suits a port of a C++ type.
                                let foreign_ok =
                                    matches!(ty, Ty::Foreign(_)) && Self::is_literal(d);
                                if !foreign_ok && !dt.fits(&ty) {
                                    let mut diag = Diagnostic::error(
                                        expr::mismatch_code(&dt, &ty),
                                        format!(
                                            "the default of `{}` must be {}, found {}",
                                            p.name.name,
                                            expr::article(&self.g.show(&ty)),
                                            expr::article(&self.g.show(&dt))
                                        ),
                                        d.span,
                                    )
                                    .with_label("wrong type");
                                    if let Some(h) = expr::unit_hint(&dt, &ty) {
                                        diag = diag.with_help(h);
                                    }
                                    self.diags.push(diag);
                                }
                                Some(v)
                            }
                            None => None,
                        }
                    }
                }
                None => None,
            };
            out.push(PortSig {
                name: p.name.name.clone(),
                dir: p.dir,
                ty,
                default,
                default_key,
                span: p.name.span,
                doc: Self::doc_text(&p.doc),
            });
        }
        out
    }

    /// A port default that names a blackboard entry (`default="{key}"` in BehaviorTree.CPP):
    /// a plain name that is no constant, enum variant, status or other global.
    fn key_default(&self, d: &ast::Expr) -> Option<String> {
        let ast::ExprKind::Name(p) = &d.kind else {
            return None;
        };
        let [seg] = p.segments.as_slice() else {
            return None;
        };
        let n = seg.name.as_str();
        let known = self.g.consts.contains_key(n)
            || self.g.variants.contains_key(n)
            || self.g.names.contains_key(n)
            || ty::STATUS_NAMES.contains(&n)
            || matches!(n, "true" | "false");
        (!known).then(|| n.to_string())
    }

    /// A literal value, possibly negated: what a model's `default="..."` holds.
    fn is_literal(e: &ast::Expr) -> bool {
        match &e.kind {
            ast::ExprKind::Num(_) | ast::ExprKind::Str(_) | ast::ExprKind::Bool(_) => true,
            ast::ExprKind::Unary(ast::UnOp::Neg, inner) => {
                matches!(inner.kind, ast::ExprKind::Num(_))
            }
            _ => false,
        }
    }

    fn warn_unused_globals(&mut self, file: &File) {
        for item in &file.items {
            if let ItemKind::Tree(t) = &item.kind {
                // A tree refused as a duplicate or a built-in's name is reported already.
                let declared = self.g.tree_declared_at(&t.name.name, t.name.span).is_some();
                if declared && !t.is_main && !self.used_globals.contains(&t.name.name) {
                    self.diags.push(
                        Diagnostic::warning(
                            "W0202",
                            format!("tree `{}` is never used", t.name.name),
                            t.name.span,
                        )
                        .with_label("no agent or tree calls it")
                        .with_help("call it from a tree, or mark the tree to run with `main tree`"),
                    );
                }
            }
        }
    }
}

fn ports_text(c: &Checker, ports: &[PortSig]) -> String {
    ports
        .iter()
        .map(|p| format!("{} {}: {}", p.dir.keyword(), p.name, c.g.show(&p.ty)))
        .collect::<Vec<_>>()
        .join(", ")
}
