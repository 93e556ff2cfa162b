//! The semantic index: every declaration the checker met and every name it resolved, with
//! spans, kinds, types and the file each is in (the main file and the files it `use`s). It is
//! made while checking, from the checker's own answers, and returned with the [`Analysis`]:
//! the language server's hover, go to definition, references, rename, outline and completion
//! are queries over it, never a second resolution of the syntax tree.
//!
//! Definitions are numbered ([`DefId`]) in the order the checker declares them; a use of a
//! name is a [`Reference`] to its [`Target`]: a definition of the program, or an entry of one
//! of the compiler's vocabularies (built-in nodes, functions, drivers, settings, AKR
//! components) when the name is the language's own.
//!
//! [`Analysis`]: super::Analysis

use super::ty::{Ty, TyDisplay};
use super::vocab::{AkrComponent, MemoryMethod, WorldFunction};
use super::world::WorldSetting;
use crate::builtins::Builtin;
use crate::ir::functions::Signature;
use crate::sema::devices::DriverSpec;
use crate::span::Span;
use crate::syntax::ast::{Ident, LeafKind, PortDir};
use crate::syntax::shape::SettingShape;
use std::collections::HashMap;

/// A file of the program: 0 is the main file, others are files it `use`s, directly or not.
/// Its own type, as [`DefId`] is: one cannot be passed for the other.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileId(pub u32);

/// A definition of the index, numbered in the order the checker declared them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DefId(u32);

impl FileId {
    /// Its place in [`SemanticIndex::files`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl DefId {
    /// Its place in [`SemanticIndex::defs`].
    pub fn index(self) -> usize {
        self.0 as usize
    }

    fn of(i: usize) -> DefId {
        DefId(u32::try_from(i).expect("fewer than 2^32 definitions: sources are bounded"))
    }
}

pub const MAIN_FILE: FileId = FileId(0);

/// A file the index refers to.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// As the loader was asked for it (a path relative to the main file), or the module's
    /// name (`std::akr`); empty for the main file.
    pub name: String,
    /// Its text; empty for the main file, whose text the caller has.
    pub text: String,
    /// Shipped inside the compiler (`use std::akr;`): not a file on disk.
    pub stdlib: bool,
}

/// What a definition declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefKind {
    Enum,
    Variant,
    Const,
    Leaf(LeafKind),
    Tree,
    Emotion,
    Tendency,
    Agent,
    World,
    Component,
    Behavior,
    Port(PortDir),
    /// A tree's own `var`.
    Local,
    /// `for x in queue` when `x` is not a variable yet.
    LoopVar,
    Var,
    Let,
    Sensor,
    Event,
    Actuator,
    Hormone,
    /// An `emotions` member: an emotion machine.
    Emotions,
    Drive,
    Intention,
    Memory,
    /// A personality trait.
    Trait,
    Recruitment,
}

impl DefKind {
    /// How hover names the kind: "tree", "agent variable", ...
    pub fn describe(self) -> &'static str {
        match self {
            DefKind::Enum => "enum",
            DefKind::Variant => "enum variant",
            DefKind::Const => "constant",
            DefKind::Leaf(k) => match k {
                LeafKind::Action => "action",
                LeafKind::Condition => "condition",
                LeafKind::Control => "control node",
                LeafKind::Decorator => "decorator",
            },
            DefKind::Tree => "tree",
            DefKind::Emotion => "emotion",
            DefKind::Tendency => "action tendency",
            DefKind::Agent => "agent",
            DefKind::World => "world",
            DefKind::Component => "component",
            DefKind::Behavior => "behaviour module",
            DefKind::Port(_) => "port",
            DefKind::Local => "tree variable",
            DefKind::LoopVar => "loop variable",
            DefKind::Var => "agent variable",
            DefKind::Let => "derived value",
            DefKind::Sensor => "sensor",
            DefKind::Event => "event",
            DefKind::Actuator => "actuator",
            DefKind::Hormone => "hormone",
            DefKind::Emotions => "emotion machine",
            DefKind::Drive => "drive",
            DefKind::Intention => "intention",
            DefKind::Memory => "emotional memory",
            DefKind::Trait => "personality trait",
            DefKind::Recruitment => "recruitment",
        }
    }

    /// Kinds that name a value an expression can read.
    pub fn is_value(self) -> bool {
        matches!(
            self,
            DefKind::Const
                | DefKind::Port(_)
                | DefKind::Local
                | DefKind::LoopVar
                | DefKind::Var
                | DefKind::Let
                | DefKind::Sensor
                | DefKind::Event
                | DefKind::Actuator
                | DefKind::Hormone
                | DefKind::Emotions
                | DefKind::Drive
                | DefKind::Intention
                | DefKind::Memory
                | DefKind::Trait
                | DefKind::Component
        )
    }
}

/// Where a definition's name can be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visibility {
    /// Everywhere in the program (top-level declarations).
    Global,
    /// Within this part of its file (a tree's ports and variables, an agent's members).
    Within(Span),
    /// Only through its parent (enum variants, ports of a node declaration).
    Qualified,
}

#[derive(Clone, Debug)]
pub struct Definition {
    pub name: String,
    pub kind: DefKind,
    pub file: FileId,
    pub name_span: Span,
    /// The whole declaration.
    pub span: Span,
    /// Boxed strings, as `signature`: a definition is kept per port of a node (200,000 in
    /// the hostile tests), and a `String`'s spare capacity word is 8 bytes each.
    pub doc: Option<Box<str>>,
    /// The declaration on one line, formatted: `var score: num in 0..100 = 50`.
    pub signature: Box<str>,
    /// The type the checker gave it, when it is a value.
    pub ty: Option<Ty>,
    /// The enum of a variant, the node or tree of a port, the agent of a member, ...
    pub parent: Option<DefId>,
    pub visible: Visibility,
    /// `key value` lines shown with it: the components of an emotion, the fields of a
    /// tendency, the settings of a hormone, a memory or a module.
    pub fields: Vec<(String, String)>,
    /// The agent an agent clones (`agent Vonda = Leguin;`).
    pub base: Option<DefId>,
    /// Where it is used: indices into [`SemanticIndex::refs`], in order of file and
    /// position (filled in when the index is complete).
    uses: Vec<u32>,
}

/// What a name written in the program stands for.
#[derive(Clone, Copy)]
pub enum Target {
    Def(DefId),
    Builtin(&'static Builtin),
    /// An argument of a built-in node, by position in its table.
    BuiltinArg(&'static Builtin, usize),
    /// The agent-only node `tendencies(machine)`.
    TendenciesNode,
    Function(&'static Signature),
    WorldFunction(&'static WorldFunction),
    MemoryMethod(&'static MemoryMethod),
    Driver(&'static DriverSpec),
    /// An argument of a device driver, by position in its table.
    DriverParam(&'static DriverSpec, usize),
    /// A setting of a configuration block (`memory`, `hormone`, `behavior`, ...).
    Setting(&'static str, &'static SettingShape),
    /// A component key of an `emotion` (valence, intensity, ...).
    AkrComponent(&'static AkrComponent),
    /// A setting of a `world`.
    WorldSetting(&'static WorldSetting),
    /// `intensity` in an emotion machine's settings: the machine's own intensity.
    Intensity,
    /// A `use`d file or module.
    File(FileId),
    /// A field of a point or other tuple (`p.x`): its name and what it holds.
    Field(&'static str, crate::ir::program::ValueKind),
}

/// A use of a name.
#[derive(Clone, Copy)]
pub struct Reference {
    pub file: FileId,
    pub span: Span,
    pub target: Target,
}

/// The index of one analysis.
#[derive(Default)]
pub struct SemanticIndex {
    pub files: Vec<SourceFile>,
    pub defs: Vec<Definition>,
    /// Sorted by file, then position, once the analysis is complete.
    pub refs: Vec<Reference>,
    /// Top-level names of the program.
    pub globals: HashMap<String, DefId>,
    /// The program's enums by the checker's enum index (`Ty::Enum`).
    pub enums: Vec<DefId>,
    /// The variants of each enum, by the checker's indices.
    variant_defs: Vec<Vec<DefId>>,
    enum_names: Vec<String>,
    /// Definitions by file and the start of their name, to find a declaration again.
    by_decl: HashMap<(FileId, u32), DefId>,
    /// The file being checked while the index is built.
    pub(crate) current: FileId,
    /// The personality traits of the agent being checked (they are constants, not slots).
    pub(crate) traits: HashMap<String, DefId>,
}

impl SemanticIndex {
    pub fn def(&self, id: DefId) -> &Definition {
        &self.defs[id.index()]
    }

    pub fn global(&self, name: &str) -> Option<(DefId, &Definition)> {
        self.globals.get(name).map(|&i| (i, self.def(i)))
    }

    /// A type as the program writes it (`Direction`, `num in 0..100` shows as `num`).
    pub fn show(&self, ty: &Ty) -> String {
        TyDisplay {
            ty,
            enum_names: &self.enum_names,
        }
        .to_string()
    }

    /// The enum definition of a value's type, when it is an enum.
    pub fn enum_of(&self, id: DefId) -> Option<DefId> {
        match self.def(id).ty.as_ref()? {
            Ty::Enum(i) => self.enums.get(*i as usize).copied(),
            _ => None,
        }
    }

    pub fn children(&self, parent: DefId) -> impl Iterator<Item = (DefId, &Definition)> {
        self.defs
            .iter()
            .enumerate()
            .filter(move |(_, d)| d.parent == Some(parent))
            .map(|(i, d)| (DefId::of(i), d))
    }

    /// The variants of an enum definition.
    pub fn variants(&self, en: DefId) -> Vec<(DefId, &Definition)> {
        self.children(en)
            .filter(|(_, d)| d.kind == DefKind::Variant)
            .collect()
    }

    /// The variants of an enum, by the enum's name.
    pub fn variants_named(&self, enum_name: &str) -> Vec<(DefId, &Definition)> {
        match self.global(enum_name) {
            Some((i, d)) if d.kind == DefKind::Enum => self.variants(i),
            _ => Vec::new(),
        }
    }

    /// The ports of a node declaration or tree.
    pub fn ports(&self, node: DefId) -> Vec<(DefId, &Definition)> {
        self.children(node)
            .filter(|(_, d)| matches!(d.kind, DefKind::Port(_)))
            .collect()
    }

    /// The agent an agent clones, if any.
    pub fn base_of(&self, agent: DefId) -> Option<DefId> {
        self.def(agent).base
    }

    /// The members of an agent, with those of the agents it clones (its own win).
    pub fn members(&self, agent: DefId) -> Vec<DefId> {
        let mut chain = vec![agent];
        while let Some(b) = chain.last().and_then(|&a| self.base_of(a)) {
            if chain.contains(&b) {
                break;
            }
            chain.push(b);
        }
        let mut out: Vec<DefId> = Vec::new();
        for a in chain {
            for (i, d) in self.children(a) {
                if !out.iter().any(|&o| self.def(o).name == d.name) {
                    out.push(i);
                }
            }
        }
        out
    }

    /// The innermost name at a byte offset of a file, used or declared (its end included, so
    /// a cursor just after a name still finds it).
    pub fn at(&self, file: FileId, offset: usize) -> Option<(Span, Target)> {
        let touches = |s: Span| s.contains(offset) || s.end as usize == offset;
        let refs = self
            .refs_in(file)
            .iter()
            .filter(|r| touches(r.span))
            .map(|r| (r.span, r.target));
        let defs = self
            .defs
            .iter()
            .enumerate()
            .filter(|(_, d)| d.file == file && touches(d.name_span))
            .map(|(i, d)| (d.name_span, Target::Def(DefId::of(i))));
        refs.chain(defs)
            .min_by_key(|(s, _)| (!s.contains(offset), s.len()))
    }

    /// The references of one file (they are sorted by file).
    pub fn refs_in(&self, file: FileId) -> &[Reference] {
        let start = self.refs.partition_point(|r| r.file < file);
        let end = self.refs.partition_point(|r| r.file <= file);
        &self.refs[start..end]
    }

    /// Every place that names a definition: its declaration first, then its uses in order
    /// of file and position. A lookup: each definition keeps its uses.
    pub fn references(&self, id: DefId) -> Vec<(FileId, Span)> {
        let d = self.def(id);
        let mut out = vec![(d.file, d.name_span)];
        for &u in &d.uses {
            let r = &self.refs[u as usize];
            if (r.file, r.span) != (d.file, d.name_span) {
                out.push((r.file, r.span));
            }
        }
        out
    }

    /// Definitions visible at an offset of a file besides the globals: the enclosing tree's
    /// ports and variables, the enclosing agent's members (with its base's), loop variables,
    /// nested modules.
    pub fn visible_at(&self, file: FileId, offset: usize) -> Vec<DefId> {
        let inside = |s: Span| (s.start as usize) <= offset && offset <= s.end as usize;
        let mut out = Vec::new();
        for (i, d) in self.defs.iter().enumerate() {
            if d.file != file {
                continue;
            }
            if let Visibility::Within(s) = d.visible {
                if inside(s) {
                    out.push(DefId::of(i));
                }
            }
            // A clone sees its base's members.
            if d.kind == DefKind::Agent && inside(d.span) {
                if let Some(b) = d.base {
                    out.extend(self.members(b));
                }
            }
        }
        out
    }

    /// The emotion declared under a name (emotion machine states are named after them).
    pub fn emotion(&self, name: &str) -> Option<&Definition> {
        self.global(name)
            .map(|(_, d)| d)
            .filter(|d| d.kind == DefKind::Emotion)
    }

    // ------------------------------------------------------------------ while checking

    /// Records a definition in the file being checked.
    pub(crate) fn define(&mut self, name: &Ident, kind: DefKind, decl: Decl) -> DefId {
        let id = DefId::of(self.defs.len());
        self.defs.push(Definition {
            name: name.name.clone(),
            kind,
            file: self.current,
            name_span: name.span,
            span: decl.span.to(name.span),
            doc: decl
                .doc
                .filter(|d| !d.trim().is_empty())
                .map(String::into_boxed_str),
            signature: decl.signature.into_boxed_str(),
            ty: decl.ty,
            parent: decl.parent,
            visible: decl.visible,
            fields: decl.fields,
            base: None,
            uses: Vec::new(),
        });
        if decl.visible == Visibility::Global {
            self.globals.entry(name.name.clone()).or_insert(id);
        }
        self.by_decl.insert((self.current, name.span.start), id);
        id
    }

    /// Records a use of a name in the file being checked.
    pub(crate) fn refer(&mut self, span: Span, target: Target) {
        self.refs.push(Reference {
            file: self.current,
            span,
            target,
        });
    }

    /// The definition whose name is written at `span` in `file`.
    pub fn declared(&self, file: FileId, span: Span) -> Option<DefId> {
        self.by_decl.get(&(file, span.start)).copied()
    }

    /// The definition whose name is written at `span` in the file being checked.
    pub(crate) fn declared_at(&self, span: Span) -> Option<DefId> {
        self.by_decl.get(&(self.current, span.start)).copied()
    }

    /// Records an enum (its definition, by the checker's enum index).
    pub(crate) fn add_enum(&mut self, def: DefId) {
        self.enums.push(def);
        self.variant_defs.push(Vec::new());
    }

    /// Records a variant of the last enum added.
    pub(crate) fn add_variant(&mut self, def: DefId) {
        if let Some(v) = self.variant_defs.last_mut() {
            v.push(def);
        }
    }

    /// The definition of variant `v` of enum `e` (the checker's indices).
    pub fn variant(&self, e: u32, v: u32) -> Option<DefId> {
        self.variant_defs.get(e as usize)?.get(v as usize).copied()
    }

    /// A top-level name used at `span`.
    pub(crate) fn refer_global(&mut self, span: Span, name: &str) {
        if let Some(&d) = self.globals.get(name) {
            self.refer(span, Target::Def(d));
        }
    }

    /// A personality trait of the agent being checked, used at `span`.
    pub(crate) fn refer_trait(&mut self, span: Span, name: &str) {
        if let Some(&d) = self.traits.get(name) {
            self.refer(span, Target::Def(d));
        }
    }

    pub(crate) fn refer_def(&mut self, span: Span, def: Option<DefId>) {
        if let Some(d) = def {
            self.refer(span, Target::Def(d));
        }
    }

    pub(crate) fn set_type(&mut self, def: Option<DefId>, ty: &Ty) {
        if let Some(d) = def {
            self.defs[d.index()].ty = Some(ty.clone());
        }
    }

    /// Completes the index: the enums' names (for showing types), and references in order.
    pub(crate) fn finish(&mut self, enum_names: Vec<String>) {
        self.enum_names = enum_names;
        // A name checked twice (a value folded, then compiled) is one use.
        self.refs
            .sort_by_key(|r| (r.file, r.span.start, r.span.end));
        self.refs
            .dedup_by(|a, b| a.file == b.file && a.span == b.span);
        // Each definition keeps its uses, so finding them is a lookup, not a walk of every
        // reference of the program.
        for (i, r) in self.refs.iter().enumerate() {
            if let Target::Def(d) = r.target {
                let i = u32::try_from(i).expect("fewer than 2^32 references: sources are bounded");
                self.defs[d.index()].uses.push(i);
            }
        }
    }
}

/// What a definition records besides its name and kind.
pub(crate) struct Decl {
    pub span: Span,
    pub doc: Option<String>,
    pub signature: String,
    pub ty: Option<Ty>,
    pub parent: Option<DefId>,
    pub visible: Visibility,
    pub fields: Vec<(String, String)>,
}

impl Decl {
    pub fn new(span: Span, signature: String, visible: Visibility) -> Decl {
        Decl {
            span,
            doc: None,
            signature,
            ty: None,
            parent: None,
            visible,
            fields: Vec::new(),
        }
    }

    pub fn doc(mut self, doc: Option<String>) -> Decl {
        self.doc = doc;
        self
    }

    pub fn ty(mut self, ty: Ty) -> Decl {
        self.ty = Some(ty);
        self
    }

    pub fn parent(mut self, parent: DefId) -> Decl {
        self.parent = Some(parent);
        self
    }

    pub fn fields(mut self, fields: Vec<(String, String)>) -> Decl {
        self.fields = fields;
        self
    }
}
