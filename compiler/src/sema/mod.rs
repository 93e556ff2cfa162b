//! Name resolution, type checking and lowering to the tick program. One pass over each tree
//! and agent checks it and produces its code; trees become templates that every call site
//! instantiates (BehaviorTree.CPP creates one node per subtree instance, so do we).

mod agent;
pub mod akr;
mod behavior;
mod component;
mod declare;
mod derived;
mod device_call;
pub mod devices;
mod drives;
mod error;
mod expr;
mod expr_call;
mod fold;
pub mod frame;
mod handlers;
pub mod index;
mod links;
mod lower;
mod lower_any;
mod machine;
mod members;
mod memory;
pub(crate) mod modules;
mod never_written;
mod node_builtin;
mod node_call;
mod node_switch;
mod order;
mod program;
mod recruit;
mod settings;
pub mod signature;
mod spawn_values;
mod stmt;
mod tendencies;
mod tendency_table;
mod tree;
pub mod ty;
pub mod vocab;
pub mod wording;
pub mod world;
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
use crate::syntax::ast::{self, File, ItemKind, LeafKind, PortDir};
use error::SemaError;
pub use index::SemanticIndex;
pub use modules::{Loader, NoFiles, Syntax, STDLIB};
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

/// A port as calls of its node or tree need it. The rest of what the checker knows of the
/// port (its type, where it is declared, its doc) is its definition in the index, `def`:
/// a node may have a great many ports (200,000 in the hostile tests), and each port kept
/// its name, type, span and doc twice.
#[derive(Clone, Debug)]
pub struct PortSig {
    pub name: Box<str>,
    pub dir: PortDir,
    /// The default as a compiled constant, when given.
    pub default: Option<f64>,
    /// A default naming a blackboard entry (BehaviorTree.CPP's `default="{key}"`): the
    /// variable a call that leaves the port out binds it to.
    pub default_key: Option<Box<str>>,
    /// Its definition in the semantic index.
    pub def: index::DefId,
}

impl PortSig {
    /// Its type, as the checker gave it.
    pub fn ty(&self, index: &index::SemanticIndex) -> Ty {
        index.def(self.def).ty.clone().unwrap_or(Ty::Any)
    }

    /// Where its name is declared.
    pub fn span(&self, index: &index::SemanticIndex) -> Span {
        index.def(self.def).name_span
    }
}

/// A declaration's checked ports, shared: every call of a node or tree reads its callee's
/// ports while it checks itself, and copying them per call made a call of a node with 200,000
/// ports cost the ports twice over.
pub type SharedPorts = std::rc::Rc<Vec<PortSig>>;

#[derive(Clone, Debug)]
pub struct LeafDef {
    pub name: String,
    pub kind: LeafKind,
    pub ports: SharedPorts,
    pub span: Span,
    pub doc: Option<String>,
}

#[derive(Clone, Debug)]
pub struct TreeSig {
    pub name: String,
    pub ports: SharedPorts,
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

    pub fn show(&self, ty: &Ty) -> String {
        let names: Vec<String> = self.enums.iter().map(|e| e.name.clone()).collect();
        ty::TyDisplay {
            ty,
            enum_names: &names,
        }
        .to_string()
    }
}

/// The result of checking a program.
pub struct Analysis {
    /// The tick program, when checking found no errors.
    pub program: Option<Program>,
    pub diagnostics: Vec<Diagnostic>,
    /// Diagnostics inside imported files: (path, source, diagnostic).
    pub imported_diagnostics: Vec<(String, String, Diagnostic)>,
    /// Every declaration and every resolved name, in the main file and the files it uses.
    pub index: SemanticIndex,
}

/// Checks a parsed file (with its `use`d modules) and lowers it.
pub fn analyze(file: &File, loader: &dyn Loader) -> Analysis {
    let mut diags = Vec::new();
    let mut imported_diagnostics = Vec::new();
    let modules = modules::load_all(file, loader, &mut diags, &mut imported_diagnostics);
    let mut c = Checker::new();
    c.behavior_tree_xml = loader.behavior_tree_xml();
    c.index.files = modules
        .iter()
        .map(|m| index::SourceFile {
            name: if m.is_main {
                String::new()
            } else {
                m.name.clone()
            },
            text: m.text.clone(),
            stdlib: STDLIB.iter().any(|(n, _)| *n == m.name),
        })
        .collect();
    // Declarations of every module first, so order never matters.
    for m in &modules {
        let before = c.enter(m);
        for (span, name) in &m.uses {
            if let Some(used) = modules.iter().find(|u| u.name == *name) {
                c.index.refer(*span, index::Target::File(used.id));
            }
        }
        c.declare(m, m.is_main);
        c.set_aside(m, before);
    }
    let mut program = c.lower_program(&modules, file);
    let worlds = program.as_ref().map_or(&[][..], |p| &p.worlds[..]);
    c.link_names(file, worlds);
    c.check_global_settings(file);
    c.check_shared_behaviors(file);
    c.warn_unused_globals(file);
    diags.append(&mut c.diags);
    // Errors found in used files, shown against their own text.
    for (name, d) in std::mem::take(&mut c.module_diags) {
        if let Some(m) = modules.iter().find(|m| m.name == name) {
            imported_diagnostics.push((m.shown.clone(), m.text.clone(), d));
        }
    }
    diags.sort_by_key(|d| (d.primary.span.start, d.primary.span.end));
    let has_errors = diags.iter().any(Diagnostic::is_error)
        || imported_diagnostics.iter().any(|(_, _, d)| d.is_error());
    if let Some(p) = program.as_mut() {
        p.strings = std::mem::take(&mut c.strings.list);
    }
    let enum_names = c.g.enums.iter().map(|e| e.name.clone()).collect();
    c.index.finish(enum_names);
    Analysis {
        program: if has_errors { None } else { program },
        diagnostics: diags,
        imported_diagnostics,
        index: c.index,
    }
}

pub(crate) struct Checker {
    pub g: Globals,
    pub diags: Vec<Diagnostic>,
    pub strings: Interner,
    /// Definitions and references, recorded as names are declared and resolved.
    pub index: SemanticIndex,
    /// Global names used somewhere (for unused warnings on trees and leaves).
    pub used_globals: std::collections::HashSet<String>,
    /// Initial list contents, indexed by list slots' `init`.
    pub lists: Vec<Vec<f64>>,
    /// The variables of the agent or tree being checked: initial values cannot read them.
    pub runtime_names: Vec<String>,
    /// The variable whose initial value is being folded.
    pub initialising: Option<String>,
    /// Root-blackboard keys some tree reads or writes with `@key`.
    pub root_keys: std::collections::HashSet<String>,
    /// Locals of trees nobody reads or writes (tree, name, declaration): reported once the
    /// main tree is known, whose locals `@name` uses (they are the root blackboard).
    unused_locals: Vec<(usize, String, Span)>,
    /// Errors in used files (their spans are in those files): module name, diagnostic.
    pub module_diags: Vec<(String, Diagnostic)>,
    /// Top-level behaviour modules of every file, for the agents that run them (`behavior`).
    pub shared_behaviors: Vec<ast::BehaviorDecl>,
    /// Trees that stayed signatures (tree index → the leaf standing in for their calls).
    pub signature_leaves: HashMap<u32, u32>,
    /// The program is imported BehaviorTree.CPP XML (`Loader::behavior_tree_xml`).
    pub behavior_tree_xml: bool,
}

impl Checker {
    fn new() -> Checker {
        Checker {
            g: Globals::default(),
            diags: Vec::new(),
            strings: Interner::new(),
            index: SemanticIndex::default(),
            used_globals: Default::default(),
            lists: Vec::new(),
            runtime_names: Vec::new(),
            initialising: None,
            root_keys: Default::default(),
            unused_locals: Vec::new(),
            module_diags: Vec::new(),
            shared_behaviors: Vec::new(),
            signature_leaves: HashMap::new(),
            behavior_tree_xml: false,
        }
    }

    /// Reports one of the checker's typed errors.
    pub(crate) fn report(&mut self, e: SemaError) {
        let d = e.render(&self.g);
        self.diags.push(d);
    }

    /// Starts checking the declarations of a module: what the index records is in its file.
    /// Returns where its diagnostics start (for `set_aside`).
    pub(crate) fn enter(&mut self, m: &modules::Module) -> usize {
        self.index.current = m.id;
        self.diags.len()
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

    fn warn_unused_globals(&mut self, file: &File) {
        for item in &file.items {
            if let ItemKind::Tree(t) = &item.kind {
                // A tree refused as a duplicate or a built-in's name is reported already.
                let declared = match self.g.names.get(&t.name.name) {
                    Some(&(Global::Tree(i), _)) => self.g.trees[i as usize].span == t.name.span,
                    _ => false,
                };
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
