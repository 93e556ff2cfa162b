//! Names and what they stand for, from the syntax tree alone: every declaration of a document
//! and of the files it `use`s, and every use of a name in the document with its target.
//! Hover, go to definition, document symbols and completion all read this index.
//!
//! Scopes: the globals of the program (items of the document and of its modules), an agent's
//! members (with those of the agent it clones), a tree's ports and `var`s, a `for` variable in
//! its body, and the nested modules of a `behavior` block. Enum variants are found through
//! their enum (`Drive::Explore`), or bare where the enum is known from the context (patterns,
//! initial states, transitions, comparisons, arguments of enum-typed ports).

use affect_compiler::builtins::{self, Builtin};
use affect_compiler::fmt::{format_expr, format_type};
use affect_compiler::ir::functions::{self, Signature};
use affect_compiler::sema::devices::{self, DriverSpec};
use affect_compiler::sema::{self, Loader, Symbol};
use affect_compiler::span::Span;
use affect_compiler::syntax::ast::*;
use affect_compiler::syntax::shape::{self, SettingShape};
use std::collections::HashMap;
use std::path::{Path as FsPath, PathBuf};

pub type DefId = usize;

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
    Local,
    LoopVar,
    Var,
    Let,
    Sensor,
    Event,
    Actuator,
    Hormone,
    Emotions,
    Drive,
    Intention,
    Memory,
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

/// Where a declaration's name can be used, in the document (file 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visibility {
    Global,
    Within(Span),
    Nowhere,
}

#[derive(Clone, Debug)]
pub struct Def {
    pub name: String,
    pub kind: DefKind,
    /// 0: the document; others index `Index::files`.
    pub file: usize,
    pub name_span: Span,
    /// The whole declaration.
    pub span: Span,
    pub doc: Option<String>,
    /// The declaration on one line, as written (formatted).
    pub signature: String,
    /// The type, as written or as the checker inferred it.
    pub ty: Option<String>,
    /// The enum the value belongs to, when its type is an enum.
    pub enum_ty: Option<String>,
    /// The enum of a variant, the node of a port, the agent of a member, ...
    pub parent: Option<DefId>,
    pub visible: Visibility,
    /// `key: value` lines: the components of an emotion, the fields of a tendency, the
    /// settings of a hormone.
    pub fields: Vec<(String, String)>,
}

/// What a use of a name stands for.
#[derive(Clone, Copy)]
pub enum Target {
    Def(DefId),
    Builtin(&'static Builtin),
    BuiltinArg(&'static Builtin, usize),
    /// The agent-only node `tendencies(machine)`.
    TendenciesNode,
    Function(&'static Signature),
    WorldFunction(usize),
    MemoryMethod(usize),
    Driver(&'static DriverSpec),
    DriverParam(&'static DriverSpec, usize),
    Setting(&'static str, &'static SettingShape),
    /// A component key of an `emotion` (valence, intensity, ...).
    AkrField(usize),
    /// A setting of a `world` the simulator reads.
    WorldSetting(usize),
    /// `intensity` in an emotion machine's transition guards.
    Intensity,
    /// A `use`d file or module.
    File(usize),
}

#[derive(Clone, Copy)]
pub struct Ref {
    pub span: Span,
    pub target: Target,
}

/// A file the document `use`s (directly or through another module).
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// As written in `use`: `lib/grid.affect`, `std::akr`.
    pub name: String,
    /// On disk, when it is a file.
    pub path: Option<PathBuf>,
    pub text: String,
}

/// The components of an AKR emotion (LANGUAGE.md §6): key, values, meaning.
pub const AKR_COMPONENTS: &[(&str, &str, &str)] = &[
    (
        "valence",
        "`positive`, `negative`",
        "the pleasant/unpleasant dimension",
    ),
    (
        "intensity",
        "`very_low`, `low`, `medium`, `high`, `very_high`, or a number in 0..1",
        "degree; relevant to urgency",
    ),
    (
        "duration",
        "`minutes` (emotion), `days` (mood), `lifetime` (personality)",
        "time course",
    ),
    (
        "focality",
        "`event`, `global`",
        "elicited by an event, or diffuse (moods)",
    ),
    (
        "agency",
        "`self`, `other`, or an agent's name",
        "who is responsible",
    ),
    (
        "expression",
        "`happy`, `sad`, `surprised`, `disgusted`, `angry`, `fearful`, `neutral`",
        "the facial expression shown",
    ),
    (
        "tendency",
        "a `tendency` name",
        "the suite of action plans the emotion calls into readiness",
    ),
    (
        "causal_chain",
        "a string",
        "the appraisal in words, which the agent can say or log",
    ),
];

/// The settings the simulator reads in a `world` (LANGUAGE.md §9): key, example, meaning.
pub const WORLD_SETTINGS: &[(&str, &str, &str)] = &[
    (
        "grid",
        "grid 5 x 5 cell 24cm labels \"OITWG / SDA.U / HXKVN / CMFRE / PQLBJ\";",
        "a label grid, rows separated by `/`, `.` a blank cell",
    ),
    (
        "field",
        "field light = 50 { near O radius 2: 90; at X: 10; }",
        "a scalar field a sensor reads: a default, then local values",
    ),
    (
        "area",
        "area 50ft x 50ft cell 2ft;",
        "a continuous floor and the size of one object",
    ),
    (
        "spawn",
        "spawn Navigator at P;",
        "where agents start; extra pairs set agent variables",
    ),
    (
        "at",
        "at 40s raise loud_noise on Navigator;",
        "a scripted event at a time",
    ),
    (
        "raise",
        "raise treat_taken on Butler every exponential(mean: 4s);",
        "a random recurring event",
    ),
    (
        "guests",
        "guests 100 speed triangular(min: 0.5, mode: 1.5, max: 3);",
        "moving obstacles with triangular distributions",
    ),
    (
        "obstacle",
        "obstacle food_table at (25ft, 49ft) size 4ft x 2ft;",
        "a fixed obstacle",
    ),
    (
        "messages",
        "messages broadcast loss 0.1;",
        "delivery (`broadcast` or `unicast`) and random message loss",
    ),
    (
        "host",
        "host laptop2 runs [speech_recognition, speech_production];",
        "where components run",
    ),
    ("ticks", "ticks 600;", "the run length"),
    ("seed", "seed 7;", "the random seed"),
    ("log", "log \"cars.log\";", "a log of every state change"),
];

#[derive(Default)]
pub struct Index {
    pub defs: Vec<Def>,
    pub refs: Vec<Ref>,
    /// Index 0 is a placeholder for the document itself.
    pub files: Vec<SourceFile>,
    pub globals: HashMap<String, DefId>,
}

impl Index {
    /// Indexes a document: `file` is its syntax tree, `dir` the folder `use "..."` paths are
    /// relative to, `loader` reads them, `symbols` come from the checker (inferred types).
    pub fn build(
        file: &File,
        dir: Option<&FsPath>,
        loader: &dyn Loader,
        symbols: &[Symbol],
    ) -> Index {
        let mut b = Builder {
            idx: Index::default(),
            scopes: Vec::new(),
            inferred: HashMap::new(),
            in_emotions: false,
        };
        b.idx.files.push(SourceFile {
            name: String::new(),
            path: None,
            text: String::new(),
        });
        for s in symbols {
            if let Some(t) = symbol_type(s) {
                b.inferred.insert(s.span, t);
            }
        }
        b.declare_file(0, file);
        let mut modules = Vec::new();
        let mut stack = Vec::new();
        load_modules(file, dir, loader, &mut modules, &mut stack);
        for (src, parsed) in modules {
            let i = b.idx.files.len();
            b.idx.files.push(src);
            b.declare_file(i, &parsed);
        }
        b.fill_enum_types();
        b.walk_file(file);
        b.idx
    }

    /// The innermost use or declaration at a byte offset (its end included, so a cursor just
    /// after a name still finds it).
    pub fn at(&self, offset: usize) -> Option<(Span, Target)> {
        let touches = |s: Span| s.contains(offset) || s.end as usize == offset;
        let refs = self
            .refs
            .iter()
            .filter(|r| touches(r.span))
            .map(|r| (r.span, r.target));
        let defs = self
            .defs
            .iter()
            .enumerate()
            .filter(|(_, d)| d.file == 0 && touches(d.name_span))
            .map(|(i, d)| (d.name_span, Target::Def(i)));
        refs.chain(defs)
            .min_by_key(|(s, _)| (!s.contains(offset), s.len()))
    }

    pub fn children(&self, parent: DefId) -> impl Iterator<Item = (DefId, &Def)> {
        self.defs
            .iter()
            .enumerate()
            .filter(move |(_, d)| d.parent == Some(parent))
    }

    pub fn global(&self, name: &str) -> Option<(DefId, &Def)> {
        self.globals.get(name).map(|&i| (i, &self.defs[i]))
    }

    /// The variants of an enum, by the enum's name.
    pub fn variants(&self, enum_name: &str) -> Vec<(DefId, &Def)> {
        match self.global(enum_name) {
            Some((i, d)) if d.kind == DefKind::Enum => self
                .children(i)
                .filter(|(_, d)| d.kind == DefKind::Variant)
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The ports of a leaf or tree.
    pub fn ports(&self, node: DefId) -> Vec<(DefId, &Def)> {
        self.children(node)
            .filter(|(_, d)| matches!(d.kind, DefKind::Port(_)))
            .collect()
    }

    /// Declarations of the document visible at an offset besides the globals: the
    /// enclosing tree's ports and variables, the enclosing agent's members (with its
    /// base's), loop variables, nested modules.
    pub fn locals_at(&self, offset: usize) -> Vec<DefId> {
        let inside = |s: Span| (s.start as usize) <= offset && offset <= s.end as usize;
        let mut out = Vec::new();
        for (i, d) in self.defs.iter().enumerate() {
            if d.file != 0 {
                continue;
            }
            if let Visibility::Within(s) = d.visible {
                if inside(s) {
                    out.push(i);
                }
            }
            // A clone sees its base's members.
            if d.kind == DefKind::Agent && inside(d.span) {
                let mut base = self.agent_base(i);
                let mut hops = 0;
                while let Some(b) = base {
                    out.extend(self.children(b).map(|(j, _)| j));
                    base = self.agent_base(b);
                    hops += 1;
                    if hops > 8 {
                        break;
                    }
                }
            }
        }
        out
    }

    fn agent_base(&self, agent: DefId) -> Option<DefId> {
        let base = self.defs[agent].fields.iter().find(|(k, _)| k == "=")?;
        match self.global(&base.1) {
            Some((b, d)) if d.kind == DefKind::Agent && b != agent => Some(b),
            _ => None,
        }
    }

    /// The emotion declared under a name, if any (emotion machine states are named after
    /// them).
    pub fn emotion(&self, name: &str) -> Option<&Def> {
        self.global(name)
            .map(|(_, d)| d)
            .filter(|d| d.kind == DefKind::Emotion)
    }
}

/// The type part of a checker symbol's detail (`variable score: num` → `num`).
fn symbol_type(s: &Symbol) -> Option<String> {
    let marker = format!("{}: ", s.name);
    let (_, rest) = s.detail.split_once(&marker)?;
    let rest = if s.kind == "const" {
        rest.split(" = ").next().unwrap_or(rest)
    } else {
        rest
    };
    (!rest.is_empty() && !rest.contains("<error>") && rest != "?").then(|| rest.to_string())
}

fn load_modules(
    file: &File,
    dir: Option<&FsPath>,
    loader: &dyn Loader,
    out: &mut Vec<(SourceFile, File)>,
    stack: &mut Vec<String>,
) {
    for item in &file.items {
        let ItemKind::Use(u) = &item.kind else {
            continue;
        };
        let (name, path, text) = match &u.target {
            UseTarget::Module(p) => {
                let name = p.to_string_path();
                match sema::STDLIB.iter().find(|(n, _)| *n == name) {
                    Some((_, src)) => (name, None, (*src).to_string()),
                    None => continue,
                }
            }
            UseTarget::File(path, _) => match loader.load(path) {
                Ok(text) => (path.clone(), dir.map(|d| d.join(path)), text),
                Err(_) => continue,
            },
        };
        if stack.contains(&name) || out.iter().any(|(f, _)| f.name == name) || stack.len() > 32 {
            continue;
        }
        let parsed = affect_compiler::syntax::parse(&text).file;
        stack.push(name.clone());
        out.push((SourceFile { name, path, text }, parsed.clone()));
        load_modules(&parsed, dir, loader, out, stack);
        stack.pop();
    }
}

fn doc_text(d: &Option<Doc>) -> Option<String> {
    d.as_ref().map(Doc::text).filter(|t| !t.trim().is_empty())
}

fn type_suffix(t: &Option<Type>) -> String {
    t.as_ref()
        .map(|t| format!(": {}", format_type(t)))
        .unwrap_or_default()
}

fn init_suffix(e: &Option<Expr>) -> String {
    e.as_ref()
        .map(|e| format!(" = {}", format_expr(e)))
        .unwrap_or_default()
}

/// The enum a written type names, if it is a plain name (checked against the enums later).
fn named_type(t: &Option<Type>) -> Option<String> {
    match &t.as_ref()?.kind {
        TypeKind::Named(p) => Some(p.to_string_path()),
        TypeKind::Range(base, _, _) => match &base.kind {
            TypeKind::Named(p) => Some(p.to_string_path()),
            _ => None,
        },
        _ => None,
    }
}

/// `Enum::Variant` as an initial value gives the enum.
fn enum_of_literal(e: &Option<Expr>) -> Option<String> {
    match &e.as_ref()?.kind {
        ExprKind::Name(p) if p.segments.len() == 2 => Some(p.segments[0].name.clone()),
        _ => None,
    }
}

pub fn port_text(p: &PortDecl) -> String {
    format!(
        "{} {}{}{}",
        p.dir.keyword(),
        affect_compiler::fmt::arg_name(&p.name.name),
        type_suffix(&p.ty),
        init_suffix(&p.default)
    )
}

fn ports_text(ports: &[PortDecl]) -> String {
    ports.iter().map(port_text).collect::<Vec<_>>().join(", ")
}

fn settings_lines(block: &SettingBlock) -> Vec<(String, String)> {
    block
        .entries
        .iter()
        .filter_map(|e| match e {
            SettingEntry::Setting(s) => Some((s.key.name.clone(), setting_text(s))),
            _ => None,
        })
        .collect()
}

/// A setting's values on one line: `7 weights [0.3, ...]`.
pub fn setting_text(s: &Setting) -> String {
    let mut out = s
        .args
        .iter()
        .map(format_expr)
        .collect::<Vec<_>>()
        .join(", ");
    for (k, v) in &s.pairs {
        out.push_str(&format!(" {} {}", k.name, format_expr(v)));
    }
    if let Some(a) = &s.assign {
        out.push_str(&format!(" = {}", format_expr(a)));
    }
    if let Some(v) = &s.value {
        out.push_str(&format!(": {}", format_expr(v)));
    }
    if s.block.is_some() {
        out.push_str(" { .. }");
    }
    out.trim().to_string()
}

struct Builder {
    idx: Index,
    scopes: Vec<HashMap<String, DefId>>,
    inferred: HashMap<Span, String>,
    in_emotions: bool,
}

enum Callee {
    Builtin(&'static Builtin),
    Def(DefId),
    Tendencies,
    Unknown,
}

impl Builder {
    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        file: usize,
        name: &Ident,
        kind: DefKind,
        span: Span,
        doc: Option<String>,
        signature: String,
        ty: Option<String>,
        parent: Option<DefId>,
        visible: Visibility,
    ) -> DefId {
        let ty = ty.or_else(|| {
            (file == 0)
                .then(|| self.inferred.get(&name.span).cloned())
                .flatten()
        });
        let id = self.idx.defs.len();
        self.idx.defs.push(Def {
            name: name.name.clone(),
            kind,
            file,
            name_span: name.span,
            span,
            doc,
            signature,
            enum_ty: None,
            ty,
            parent,
            visible,
            fields: Vec::new(),
        });
        if visible == Visibility::Global {
            self.idx.globals.entry(name.name.clone()).or_insert(id);
        }
        id
    }

    fn declare_file(&mut self, file: usize, f: &File) {
        for item in &f.items {
            self.declare_item(file, item);
        }
    }

    fn declare_item(&mut self, file: usize, item: &Item) {
        let doc = doc_text(&item.doc);
        let g = Visibility::Global;
        match &item.kind {
            ItemKind::Use(_) | ItemKind::Error => {}
            ItemKind::Const(c) => {
                let sig = format!(
                    "const {}{}{}",
                    c.name.name,
                    type_suffix(&c.ty),
                    init_suffix(&Some(c.value.clone()))
                );
                let ty = c.ty.as_ref().map(format_type);
                self.add(
                    file,
                    &c.name,
                    DefKind::Const,
                    item.span,
                    doc,
                    sig,
                    ty,
                    None,
                    g,
                );
            }
            ItemKind::Enum(e) => {
                let names: Vec<&str> = e.variants.iter().map(|v| v.name.name.as_str()).collect();
                let sig = format!("enum {} {{ {} }}", e.name.name, names.join(", "));
                let id = self.add(
                    file,
                    &e.name,
                    DefKind::Enum,
                    item.span,
                    doc,
                    sig,
                    None,
                    None,
                    g,
                );
                for v in &e.variants {
                    let sig = format!("{}::{}{}", e.name.name, v.name.name, init_suffix(&v.value));
                    let vid = self.add(
                        file,
                        &v.name,
                        DefKind::Variant,
                        v.span,
                        doc_text(&v.doc),
                        sig,
                        Some(e.name.name.clone()),
                        Some(id),
                        Visibility::Nowhere,
                    );
                    self.idx.defs[vid].enum_ty = Some(e.name.name.clone());
                }
            }
            ItemKind::Leaf(l) => {
                let sig = format!(
                    "{} {}({})",
                    l.kind.keyword(),
                    l.name.name,
                    ports_text(&l.ports)
                );
                let id = self.add(
                    file,
                    &l.name,
                    DefKind::Leaf(l.kind),
                    item.span,
                    doc,
                    sig,
                    None,
                    None,
                    g,
                );
                self.declare_ports(file, id, &l.ports, Visibility::Nowhere);
            }
            ItemKind::Tree(t) => {
                let sig = format!(
                    "{}tree {}({})",
                    if t.is_main { "main " } else { "" },
                    affect_compiler::fmt::name(&t.name.name),
                    ports_text(&t.ports)
                );
                let id = self.add(
                    file,
                    &t.name,
                    DefKind::Tree,
                    item.span,
                    doc,
                    sig,
                    None,
                    None,
                    g,
                );
                let inside = Visibility::Within(item.span);
                self.declare_ports(file, id, &t.ports, inside);
                for v in &t.locals {
                    let sig = format!(
                        "var {}{}{}",
                        v.name.name,
                        type_suffix(&v.ty),
                        init_suffix(&v.init)
                    );
                    let ty = v.ty.as_ref().map(format_type);
                    let lid = self.add(
                        file,
                        &v.name,
                        DefKind::Local,
                        v.span,
                        doc_text(&v.doc),
                        sig,
                        ty,
                        Some(id),
                        inside,
                    );
                    self.idx.defs[lid].enum_ty =
                        named_type(&v.ty).or_else(|| enum_of_literal(&v.init));
                }
            }
            ItemKind::Emotion(r) | ItemKind::Tendency(r) => {
                let (kind, kw) = match &item.kind {
                    ItemKind::Emotion(_) => (DefKind::Emotion, "emotion"),
                    _ => (DefKind::Tendency, "tendency"),
                };
                let sig = format!("{kw} {}", r.name.name);
                let id = self.add(file, &r.name, kind, item.span, doc, sig, None, None, g);
                self.idx.defs[id].fields = r
                    .fields
                    .iter()
                    .map(|f| (f.key.name.clone(), format_expr(&f.value)))
                    .collect();
            }
            ItemKind::Agent(a) => {
                let sig = match &a.base {
                    Some(b) => format!("agent {} = {}", a.name.name, b.name),
                    None => format!("agent {}", a.name.name),
                };
                let id = self.add(
                    file,
                    &a.name,
                    DefKind::Agent,
                    item.span,
                    doc,
                    sig,
                    None,
                    None,
                    g,
                );
                if let Some(b) = &a.base {
                    self.idx.defs[id].fields.push(("=".into(), b.name.clone()));
                }
                for m in a.members.iter().flatten() {
                    self.declare_member(file, id, item.span, m);
                }
            }
            ItemKind::World(w) => {
                let sig = format!("world {}", w.name.name);
                self.add(
                    file,
                    &w.name,
                    DefKind::World,
                    item.span,
                    doc,
                    sig,
                    None,
                    None,
                    g,
                );
            }
            ItemKind::Component(c) => {
                let sig = format!("component {}", c.name.name);
                let id = self.add(
                    file,
                    &c.name,
                    DefKind::Component,
                    item.span,
                    doc,
                    sig,
                    None,
                    None,
                    g,
                );
                self.idx.defs[id].fields = settings_lines(&c.body);
            }
            ItemKind::Behavior(b) => {
                let sig = format!("behavior {}", b.name.name);
                let id = self.add(
                    file,
                    &b.name,
                    DefKind::Behavior,
                    item.span,
                    doc,
                    sig,
                    None,
                    None,
                    g,
                );
                self.idx.defs[id].fields = settings_lines(&b.body);
            }
        }
    }

    fn declare_ports(&mut self, file: usize, owner: DefId, ports: &[PortDecl], vis: Visibility) {
        for p in ports {
            let ty = p.ty.as_ref().map(format_type);
            let id = self.add(
                file,
                &p.name,
                DefKind::Port(p.dir),
                p.span,
                doc_text(&p.doc),
                port_text(p),
                ty,
                Some(owner),
                vis,
            );
            self.idx.defs[id].enum_ty = named_type(&p.ty).or_else(|| enum_of_literal(&p.default));
        }
    }

    fn declare_member(&mut self, file: usize, agent: DefId, agent_span: Span, m: &Member) {
        let doc = doc_text(&m.doc);
        let vis = Visibility::Within(agent_span);
        let parent = Some(agent);
        let (name, kind, sig, ty, enum_ty, fields) = match &m.kind {
            MemberKind::Var { name, ty, init } => (
                name,
                DefKind::Var,
                format!("var {}{}{}", name.name, type_suffix(ty), init_suffix(init)),
                ty.as_ref().map(format_type),
                named_type(ty).or_else(|| enum_of_literal(init)),
                vec![],
            ),
            MemberKind::Let { name, ty, value } => (
                name,
                DefKind::Let,
                format!(
                    "let {}{} = {}",
                    name.name,
                    type_suffix(ty),
                    format_expr(value)
                ),
                ty.as_ref().map(format_type),
                named_type(ty),
                vec![],
            ),
            MemberKind::Sensor { name, ty, source } => (
                name,
                DefKind::Sensor,
                format!(
                    "sensor {}{} = {}",
                    name.name,
                    type_suffix(ty),
                    format_expr(source)
                ),
                ty.as_ref().map(format_type),
                named_type(ty),
                vec![],
            ),
            MemberKind::Actuator { name, ty, source } => (
                name,
                DefKind::Actuator,
                format!(
                    "actuator {}{} = {}",
                    name.name,
                    type_suffix(ty),
                    format_expr(source)
                ),
                ty.as_ref().map(format_type),
                None,
                vec![],
            ),
            MemberKind::Event { name, source } => (
                name,
                DefKind::Event,
                format!("event {}{}", name.name, init_suffix(source)),
                Some("bool".into()),
                None,
                vec![],
            ),
            MemberKind::Hormone {
                name,
                value,
                settings,
            } => (
                name,
                DefKind::Hormone,
                format!("hormone {} = {}", name.name, format_expr(value)),
                Some("num in 0..100".into()),
                None,
                settings.as_ref().map(settings_lines).unwrap_or_default(),
            ),
            MemberKind::Emotions {
                name, ty, initial, ..
            } => (
                name,
                DefKind::Emotions,
                format!(
                    "emotions {}: {} = {}",
                    name.name,
                    format_type(ty),
                    initial.name
                ),
                Some(format_type(ty)),
                named_type(&Some(ty.clone())),
                vec![],
            ),
            MemberKind::Drive(d) => {
                let id = self.add(
                    file,
                    &d.name,
                    DefKind::Drive,
                    m.span,
                    doc,
                    format!(
                        "drive {}: {} = {}",
                        d.name.name,
                        format_type(&d.ty),
                        d.initial.name
                    ),
                    Some(format_type(&d.ty)),
                    parent,
                    vis,
                );
                self.idx.defs[id].enum_ty = named_type(&Some(d.ty.clone()));
                if let Some(i) = d.intention() {
                    let iid = self.add(
                        file,
                        &i.name,
                        DefKind::Intention,
                        i.span,
                        doc_text(&i.doc),
                        format!("intention {}{}", i.name.name, type_suffix(&i.ty)),
                        i.ty.as_ref().map(format_type),
                        parent,
                        vis,
                    );
                    self.idx.defs[iid].enum_ty = named_type(&i.ty);
                }
                return;
            }
            MemberKind::Memory { name, key, body } => (
                name,
                DefKind::Memory,
                match key {
                    Some(k) => format!("memory {} keyed by {}", name.name, format_expr(k)),
                    None => format!("memory {}", name.name),
                },
                None,
                None,
                settings_lines(body),
            ),
            MemberKind::Personality(fields) => {
                for f in fields {
                    self.add(
                        file,
                        &f.key,
                        DefKind::Trait,
                        f.span,
                        doc_text(&f.doc).or_else(|| doc.clone()),
                        format!("{}: {}", f.key.name, format_expr(&f.value)),
                        None,
                        parent,
                        vis,
                    );
                }
                return;
            }
            MemberKind::Behavior(b) => (
                &b.name,
                DefKind::Behavior,
                format!("behavior {}", b.name.name),
                None,
                None,
                settings_lines(&b.body),
            ),
            MemberKind::Recruitment(s) => (
                &s.name,
                DefKind::Recruitment,
                format!("recruitment {}", s.name.name),
                None,
                None,
                settings_lines(&s.body),
            ),
            MemberKind::Component(s) => (
                &s.name,
                DefKind::Component,
                format!("component {}", s.name.name),
                None,
                None,
                settings_lines(&s.body),
            ),
            _ => return,
        };
        let id = self.add(file, name, kind, m.span, doc, sig, ty, parent, vis);
        self.idx.defs[id].enum_ty = enum_ty;
        self.idx.defs[id].fields = fields;
    }

    /// Values whose enum is not written (`let`, inferred types) get it from the checker.
    fn fill_enum_types(&mut self) {
        let enums: Vec<String> = self
            .idx
            .defs
            .iter()
            .filter(|d| d.kind == DefKind::Enum)
            .map(|d| d.name.clone())
            .collect();
        for d in &mut self.idx.defs {
            if let Some(e) = &d.enum_ty {
                if !enums.contains(e) {
                    d.enum_ty = None;
                }
            }
            if d.enum_ty.is_none() && d.kind != DefKind::Variant {
                if let Some(t) = &d.ty {
                    if enums.contains(t) {
                        d.enum_ty = Some(t.clone());
                    }
                }
            }
        }
    }

    // ------------------------------------------------------------------ uses

    fn refer(&mut self, span: Span, target: Target) {
        self.idx.refs.push(Ref { span, target });
    }

    fn lookup(&self, name: &str) -> Option<DefId> {
        for s in self.scopes.iter().rev() {
            if let Some(&i) = s.get(name) {
                return Some(i);
            }
        }
        self.idx.globals.get(name).copied()
    }

    fn def_in_file0(&self, span: Span) -> Option<DefId> {
        self.idx
            .defs
            .iter()
            .position(|d| d.file == 0 && d.name_span == span)
    }

    fn variant(&self, name: &str, want: Option<&str>) -> Option<DefId> {
        let is_variant = |d: &Def| d.kind == DefKind::Variant && d.name == name;
        if let Some(e) = want {
            if let Some((i, _)) = self
                .idx
                .variants(e)
                .into_iter()
                .find(|(_, d)| d.name == name)
            {
                return Some(i);
            }
        }
        // Prefer the document's enums, then the modules'.
        self.idx.defs.iter().position(is_variant)
    }

    fn variant_ref(&mut self, id: &Ident, want: Option<&str>) {
        if let Some(v) = self.variant(&id.name, want) {
            self.refer(id.span, Target::Def(v));
        }
    }

    /// The enum of an expression's value, when it is a name with a known enum type.
    fn enum_of(&self, e: &Expr) -> Option<String> {
        match &e.kind {
            ExprKind::Name(p) if p.segments.len() == 1 => {
                let d = &self.idx.defs[self.lookup(&p.segments[0].name)?];
                d.enum_ty.clone()
            }
            ExprKind::Name(p) if p.segments.len() == 2 => {
                let (_, d) = self.idx.global(&p.segments[0].name)?;
                (d.kind == DefKind::Enum).then(|| d.name.clone())
            }
            ExprKind::Paren(x) => self.enum_of(x),
            ExprKind::Ternary(_, a, b) => self.enum_of(a).or_else(|| self.enum_of(b)),
            _ => None,
        }
    }

    /// A member scope: the agent's members, over those of the agent it clones.
    fn member_scope(&self, agent: DefId) -> HashMap<String, DefId> {
        let mut chain = vec![agent];
        let mut cur = agent;
        while let Some(b) = self.idx.agent_base(cur) {
            if chain.contains(&b) || chain.len() > 8 {
                break;
            }
            chain.push(b);
            cur = b;
        }
        let mut scope = HashMap::new();
        for a in chain.into_iter().rev() {
            for (i, d) in self.idx.children(a) {
                scope.insert(d.name.clone(), i);
            }
        }
        scope
    }

    fn walk_file(&mut self, f: &File) {
        for item in &f.items {
            self.walk_item(item);
        }
    }

    fn walk_attrs(&mut self, attrs: &[Attr]) {
        for a in attrs {
            if let Some(v) = &a.value {
                self.expr(v, None);
            }
        }
    }

    fn walk_item(&mut self, item: &Item) {
        self.walk_attrs(&item.attrs);
        match &item.kind {
            ItemKind::Error => {}
            ItemKind::Use(u) => {
                let (name, span) = match &u.target {
                    UseTarget::Module(p) => (p.to_string_path(), p.span),
                    UseTarget::File(s, span) => (s.clone(), *span),
                };
                if let Some(i) = self.idx.files.iter().position(|f| f.name == name) {
                    self.refer(span, Target::File(i));
                }
            }
            ItemKind::Const(c) => {
                if let Some(t) = &c.ty {
                    self.ty(t);
                }
                let want = named_type(&c.ty);
                self.expr(&c.value, want.as_deref());
            }
            ItemKind::Enum(e) => {
                for v in &e.variants {
                    if let Some(x) = &v.value {
                        self.expr(x, None);
                    }
                }
            }
            ItemKind::Leaf(l) => self.walk_ports(&l.ports),
            ItemKind::Tree(t) => {
                let Some(id) = self.def_in_file0(t.name.span) else {
                    return;
                };
                let scope: HashMap<String, DefId> = self
                    .idx
                    .children(id)
                    .map(|(i, d)| (d.name.clone(), i))
                    .collect();
                self.scopes.push(scope);
                self.walk_ports(&t.ports);
                for v in &t.locals {
                    if let Some(ty) = &v.ty {
                        self.ty(ty);
                    }
                    if let Some(init) = &v.init {
                        let want = named_type(&v.ty);
                        self.expr(init, want.as_deref());
                    }
                }
                self.nodes(&t.body);
                self.scopes.pop();
            }
            ItemKind::Emotion(r) | ItemKind::Tendency(r) => {
                let emotion = matches!(item.kind, ItemKind::Emotion(_));
                for f in &r.fields {
                    if emotion {
                        if let Some(k) = AKR_COMPONENTS.iter().position(|c| c.0 == f.key.name) {
                            self.refer(f.key.span, Target::AkrField(k));
                        }
                    }
                    self.expr(&f.value, None);
                }
            }
            ItemKind::Agent(a) => {
                let Some(id) = self.def_in_file0(a.name.span) else {
                    return;
                };
                if let Some(b) = &a.base {
                    if let Some((bi, d)) = self.idx.global(&b.name) {
                        if d.kind == DefKind::Agent {
                            self.refer(b.span, Target::Def(bi));
                        }
                    }
                }
                let scope = self.member_scope(id);
                self.scopes.push(scope);
                for m in a.members.iter().flatten() {
                    self.walk_member(m);
                }
                self.scopes.pop();
            }
            ItemKind::World(w) => self.settings("world", &w.body, None, None),
            ItemKind::Component(c) => self.settings("component", &c.body, None, None),
            ItemKind::Behavior(b) => {
                let owner = self.def_in_file0(b.name.span);
                self.settings("behavior", &b.body, None, owner)
            }
        }
    }

    fn walk_ports(&mut self, ports: &[PortDecl]) {
        for p in ports {
            if let Some(t) = &p.ty {
                self.ty(t);
            }
            if let Some(d) = &p.default {
                let want = named_type(&p.ty);
                self.expr(d, want.as_deref());
            }
        }
    }

    fn ty(&mut self, t: &Type) {
        match &t.kind {
            TypeKind::Named(p) => {
                if p.segments.len() == 1 {
                    if let Some((i, d)) = self.idx.global(&p.segments[0].name) {
                        if d.kind == DefKind::Enum {
                            self.refer(p.segments[0].span, Target::Def(i));
                        }
                    }
                }
            }
            TypeKind::Range(base, lo, hi) => {
                self.ty(base);
                self.expr(lo, None);
                self.expr(hi, None);
            }
            TypeKind::List(inner) => self.ty(inner),
            TypeKind::Foreign(_) | TypeKind::Error => {}
        }
    }

    fn walk_member(&mut self, m: &Member) {
        self.walk_attrs(&m.attrs);
        let enum_of_decl = |b: &Builder, name: &Ident| {
            b.def_in_file0(name.span)
                .and_then(|i| b.idx.defs[i].enum_ty.clone())
        };
        match &m.kind {
            MemberKind::Rate(e) => self.expr(e, None),
            MemberKind::Var { name, ty, init } => {
                if let Some(t) = ty {
                    self.ty(t);
                }
                if let Some(e) = init {
                    let want = enum_of_decl(self, name);
                    self.expr(e, want.as_deref());
                }
            }
            MemberKind::Let { name, ty, value } => {
                if let Some(t) = ty {
                    self.ty(t);
                }
                let want = enum_of_decl(self, name);
                self.expr(value, want.as_deref());
            }
            MemberKind::Sensor { ty, source, .. } | MemberKind::Actuator { ty, source, .. } => {
                if let Some(t) = ty {
                    self.ty(t);
                }
                self.expr(source, None);
            }
            MemberKind::Event { source, .. } => {
                if let Some(e) = source {
                    self.expr(e, None);
                }
            }
            MemberKind::Hormone {
                value, settings, ..
            } => {
                self.expr(value, None);
                if let Some(s) = settings {
                    self.settings("hormone", s, None, None);
                }
            }
            MemberKind::Update(b) => self.block(b),
            MemberKind::On { event, body } => {
                self.expr(event, None);
                self.block(body);
            }
            MemberKind::Personality(fields) => {
                for f in fields {
                    self.expr(&f.value, None);
                }
            }
            MemberKind::Emotions {
                ty, initial, body, ..
            } => {
                self.ty(ty);
                let en = named_type(&Some(ty.clone()));
                self.variant_ref(initial, en.as_deref());
                self.in_emotions = true;
                self.settings("emotions", body, en.as_deref(), None);
                self.in_emotions = false;
            }
            MemberKind::Tendencies { machine, arms } => {
                let mut en = None;
                if let Some(i) = self.lookup(&machine.name) {
                    self.refer(machine.span, Target::Def(i));
                    en = self.idx.defs[i].enum_ty.clone();
                }
                for arm in arms {
                    self.pattern(&arm.pattern, en.as_deref());
                    for t in &arm.targets {
                        let callee = self.callee_def(&t.name);
                        if let Some(args) = &t.args {
                            self.call_args(&callee, args);
                        }
                    }
                }
            }
            MemberKind::Drive(d) => {
                self.ty(&d.ty);
                let en = named_type(&Some(d.ty.clone()));
                self.variant_ref(&d.initial, en.as_deref());
                for e in &d.entries {
                    match e {
                        DriveEntry::Rule(r) => {
                            self.variant_ref(&r.target, en.as_deref());
                            self.expr(&r.guard, None);
                        }
                        DriveEntry::Intention(i) => {
                            if let Some(t) = &i.ty {
                                self.ty(t);
                            }
                            let want = named_type(&i.ty);
                            for arm in &i.arms {
                                for p in &arm.patterns {
                                    self.pattern(p, en.as_deref());
                                }
                                self.expr(&arm.value, want.as_deref());
                            }
                        }
                        DriveEntry::Error(_) => {}
                    }
                }
            }
            MemberKind::Memory { key, body, .. } => {
                if let Some(k) = key {
                    self.expr(k, None);
                }
                self.settings("memory", body, None, None);
            }
            MemberKind::Behavior(b) => {
                let owner = self.def_in_file0(b.name.span);
                self.settings("behavior", &b.body, None, owner)
            }
            MemberKind::Behaviors(s) => self.settings("behaviors", s, None, None),
            MemberKind::Recruitment(s) => self.settings("recruitment", &s.body, None, None),
            MemberKind::Component(s) => self.settings("component", &s.body, None, None),
            MemberKind::Main(b) => self.nodes(b),
            MemberKind::Error => {}
        }
    }

    /// A settings block. `machine` is the enum of an `emotions` block (its transitions name
    /// states); `owner` the module whose nested modules this block declares.
    fn settings(
        &mut self,
        kind: &'static str,
        block: &SettingBlock,
        machine: Option<&str>,
        owner: Option<DefId>,
    ) {
        // Nested modules are visible in the whole block (`children Search, Kick;`).
        let mut scope = HashMap::new();
        for e in &block.entries {
            if let SettingEntry::Behavior(b, span) = e {
                let vis = Visibility::Within(block.span);
                let id = self.add(
                    0,
                    &b.name,
                    DefKind::Behavior,
                    *span,
                    doc_text(&b.doc),
                    format!("behavior {}", b.name.name),
                    None,
                    owner,
                    vis,
                );
                self.idx.defs[id].fields = settings_lines(&b.body);
                scope.insert(b.name.name.clone(), id);
            }
        }
        self.scopes.push(scope);
        let schema = shape::schema(kind);
        for e in &block.entries {
            match e {
                SettingEntry::Setting(s) => {
                    if let Some(sh) = schema.and_then(|sc| sc.iter().find(|x| x.key == s.key.name))
                    {
                        self.refer(s.key.span, Target::Setting(kind, sh));
                        for (k, _) in &s.pairs {
                            if sh.pairs.contains(&k.name.as_str()) {
                                self.refer(k.span, Target::Setting(kind, sh));
                            }
                        }
                    } else if kind == "world" {
                        if let Some(w) = WORLD_SETTINGS.iter().position(|w| w.0 == s.key.name) {
                            self.refer(s.key.span, Target::WorldSetting(w));
                        }
                    }
                    // `raise loud_noise on Navigator`: names an event of that agent.
                    let mut pushed = false;
                    if kind == "world" {
                        let agent = s.pairs.iter().find_map(|(k, v)| match (&*k.name, &v.kind) {
                            ("on", ExprKind::Name(p)) if p.segments.len() == 1 => {
                                self.idx.global(&p.segments[0].name)
                            }
                            _ => None,
                        });
                        if let Some((a, d)) = agent {
                            if d.kind == DefKind::Agent {
                                let scope = self.member_scope(a);
                                self.scopes.push(scope);
                                pushed = true;
                            }
                        }
                    }
                    for a in &s.args {
                        self.expr(a, None);
                    }
                    if let Some(x) = &s.assign {
                        self.expr(x, None);
                    }
                    for (_, x) in &s.pairs {
                        self.expr(x, None);
                    }
                    if let Some(x) = &s.value {
                        self.expr(x, None);
                    }
                    if pushed {
                        self.scopes.pop();
                    }
                    if let Some(b) = &s.block {
                        let nested = if kind == "world" { "world" } else { "nested" };
                        self.settings(nested, b, None, None);
                    }
                }
                SettingEntry::Behavior(b, span) => {
                    let id = self
                        .idx
                        .defs
                        .iter()
                        .position(|d| d.file == 0 && d.span == *span && d.name == b.name.name);
                    self.settings("behavior", &b.body, None, id);
                }
                SettingEntry::Transition(t) => {
                    self.variant_ref(&t.from, machine);
                    self.variant_ref(&t.to, machine);
                    self.expr(&t.guard, None);
                }
                SettingEntry::Error(_) => {}
            }
        }
        self.scopes.pop();
    }

    fn block(&mut self, b: &Block) {
        for s in &b.stmts {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Assign { target, value, .. } => {
                self.expr(target, None);
                let want = self.enum_of(target);
                self.expr(value, want.as_deref());
            }
            StmtKind::Expr(e) => self.expr(e, None),
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                self.expr(cond, None);
                self.block(then);
                match otherwise.as_deref() {
                    Some(Else::Block(b)) => self.block(b),
                    Some(Else::If(s)) => self.stmt(s),
                    None => {}
                }
            }
            StmtKind::Error => {}
        }
    }

    fn pattern(&mut self, p: &Pattern, want: Option<&str>) {
        if let Pattern::Expr(e) = p {
            self.expr(e, want);
        }
    }

    fn name_ref(&mut self, p: &Path, want: Option<&str>) {
        match p.segments.as_slice() {
            [one] => {
                let found = self.lookup(&one.name);
                // Where an enum is expected its variants win over declarations that are not
                // values (`Frustrated => ..` names the state, not the emotion).
                let shadowed = found.is_none_or(|i| !self.idx.defs[i].kind.is_value());
                let wanted = want.and_then(|e| {
                    self.idx
                        .variants(e)
                        .into_iter()
                        .find(|(_, d)| d.name == one.name)
                        .map(|(v, _)| v)
                });
                if let (Some(v), true) = (wanted, shadowed) {
                    self.refer(one.span, Target::Def(v));
                } else if let Some(i) = found {
                    self.refer(one.span, Target::Def(i));
                } else if one.name == "intensity" && self.in_emotions {
                    self.refer(one.span, Target::Intensity);
                } else if let Some(v) = self.variant(&one.name, want) {
                    self.refer(one.span, Target::Def(v));
                }
            }
            [first, second] => {
                if let Some((i, d)) = self.idx.global(&first.name) {
                    if d.kind == DefKind::Enum {
                        let name = d.name.clone();
                        self.refer(first.span, Target::Def(i));
                        if let Some((v, _)) = self
                            .idx
                            .variants(&name)
                            .into_iter()
                            .find(|(_, d)| d.name == second.name)
                        {
                            self.refer(second.span, Target::Def(v));
                        }
                    }
                }
            }
            _ => {}
        }
    }

    fn expr(&mut self, e: &Expr, want: Option<&str>) {
        match &e.kind {
            ExprKind::Num(_)
            | ExprKind::Str(_)
            | ExprKind::Bool(_)
            | ExprKind::Root(_)
            | ExprKind::Error => {}
            ExprKind::Name(p) => self.name_ref(p, want),
            ExprKind::Unary(_, x) => self.expr(x, None),
            ExprKind::Paren(x) => self.expr(x, want),
            ExprKind::Binary(op, a, b) => {
                if matches!(op, BinOp::Eq | BinOp::Ne) {
                    let ea = self.enum_of(a);
                    let eb = self.enum_of(b);
                    self.expr(a, eb.as_deref());
                    self.expr(b, ea.as_deref());
                } else {
                    self.expr(a, None);
                    self.expr(b, None);
                }
            }
            ExprKind::Ternary(c, a, b) => {
                self.expr(c, None);
                self.expr(a, want);
                self.expr(b, want);
            }
            ExprKind::Call(f, args) => self.call(f, args),
            ExprKind::Field(recv, field) => {
                self.expr(recv, None);
                if let ExprKind::Name(p) = &recv.kind {
                    if p.segments.len() == 1 {
                        if let Some(i) = self.lookup(&p.segments[0].name) {
                            if self.idx.defs[i].kind == DefKind::Memory {
                                if let Some(m) = sema::MEMORY_METHODS
                                    .iter()
                                    .position(|(n, _, _)| *n == field.name)
                                {
                                    self.refer(field.span, Target::MemoryMethod(m));
                                }
                            }
                        }
                    }
                }
            }
            ExprKind::Index(a, b) => {
                self.expr(a, None);
                self.expr(b, None);
            }
            ExprKind::List(items) => {
                for i in items {
                    self.expr(i, want);
                }
            }
            ExprKind::Tuple(items) => {
                for i in items {
                    self.expr(i, None);
                }
            }
        }
    }

    /// A call in an expression: a function, a world function, a device driver, or anything
    /// else (`main(Kick)` in a policy).
    fn call(&mut self, f: &Expr, args: &ArgList) {
        if let ExprKind::Name(p) = &f.kind {
            if let [one] = p.segments.as_slice() {
                if self.lookup(&one.name).is_none() {
                    if let Some(sig) = functions::lookup(&one.name) {
                        self.refer(one.span, Target::Function(sig));
                    } else if let Some(w) = sema::WORLD_FUNCTIONS
                        .iter()
                        .position(|(n, _)| *n == one.name)
                    {
                        self.refer(one.span, Target::WorldFunction(w));
                    } else if let Some(d) = devices::lookup(&one.name) {
                        self.refer(one.span, Target::Driver(d));
                        for a in &args.args {
                            if let Some(n) = &a.name {
                                if let Some(k) = d.params.iter().position(|p| p.0 == n.name) {
                                    self.refer(n.span, Target::DriverParam(d, k));
                                }
                            }
                            self.expr(&a.value, None);
                        }
                        return;
                    }
                    for a in &args.args {
                        self.expr(&a.value, None);
                    }
                    return;
                }
            }
        }
        // A tree called in an expression (`run Kick(ball: ball);` in a module).
        if let ExprKind::Name(p) = &f.kind {
            if let [one] = p.segments.as_slice() {
                if let Some(i) = self.lookup(&one.name) {
                    if matches!(self.idx.defs[i].kind, DefKind::Leaf(_) | DefKind::Tree) {
                        self.refer(one.span, Target::Def(i));
                        self.call_args(&Callee::Def(i), args);
                        return;
                    }
                }
            }
        }
        self.expr(f, None);
        for a in &args.args {
            self.expr(&a.value, None);
        }
    }

    fn callee_def(&mut self, name: &Path) -> Callee {
        let [one] = name.segments.as_slice() else {
            return Callee::Unknown;
        };
        if let Some(b) = builtins::by_name(&one.name) {
            self.refer(one.span, Target::Builtin(b));
            return Callee::Builtin(b);
        }
        if let Some(i) = self.lookup(&one.name) {
            self.refer(one.span, Target::Def(i));
            if matches!(self.idx.defs[i].kind, DefKind::Leaf(_) | DefKind::Tree) {
                return Callee::Def(i);
            }
            return Callee::Unknown;
        }
        if one.name == "tendencies" {
            self.refer(one.span, Target::TendenciesNode);
            return Callee::Tendencies;
        }
        Callee::Unknown
    }

    fn call_args(&mut self, callee: &Callee, args: &ArgList) {
        let mut positional = 0;
        for a in &args.args {
            let mut want = None;
            match callee {
                Callee::Builtin(b) => {
                    if let Some(n) = &a.name {
                        if let Some(k) = b.args.iter().position(|x| x.name == n.name) {
                            self.refer(n.span, Target::BuiltinArg(b, k));
                        }
                    }
                }
                Callee::Def(d) => {
                    let ports = self.idx.ports(*d);
                    let port = match &a.name {
                        Some(n) => ports.iter().find(|(_, p)| p.name == n.name).copied(),
                        None => ports.get(positional).copied(),
                    };
                    if let Some((pi, p)) = port {
                        want = p.enum_ty.clone();
                        if let Some(n) = &a.name {
                            self.refer(n.span, Target::Def(pi));
                        }
                    }
                }
                Callee::Tendencies | Callee::Unknown => {}
            }
            if a.name.is_none() {
                positional += 1;
            }
            self.expr(&a.value, want.as_deref());
        }
    }

    fn nodes(&mut self, block: &NodeBlock) {
        for n in &block.nodes {
            self.node(n);
        }
    }

    fn node(&mut self, n: &Node) {
        self.walk_attrs(&n.attrs);
        match &n.kind {
            NodeKind::Call {
                name,
                args,
                children,
            } => {
                let callee = self.callee_def(name);
                if let Some(a) = args {
                    self.call_args(&callee, a);
                }
                if let Some(c) = children {
                    self.nodes(c);
                }
            }
            NodeKind::Script(b) => self.block(b),
            NodeKind::Check(e) => self.expr(e, None),
            NodeKind::Switch { subject, arms } => {
                self.expr(subject, None);
                let en = self.enum_of(subject);
                for arm in arms {
                    self.pattern(&arm.pattern, en.as_deref());
                    self.node(&arm.node);
                }
            }
            NodeKind::For { var, queue, body } => {
                self.expr(queue, None);
                let id = self.add(
                    0,
                    var,
                    DefKind::LoopVar,
                    var.span.to(body.span),
                    None,
                    format!("for {} in {}", var.name, format_expr(queue)),
                    None,
                    None,
                    Visibility::Within(body.span),
                );
                let mut scope = HashMap::new();
                scope.insert(var.name.clone(), id);
                self.scopes.push(scope);
                self.nodes(body);
                self.scopes.pop();
            }
            NodeKind::Error => {}
        }
        for m in &n.modifiers {
            match &m.kind {
                ModifierKind::SkipIf(e)
                | ModifierKind::SuccessIf(e)
                | ModifierKind::FailureIf(e)
                | ModifierKind::While(e) => self.expr(e, None),
                ModifierKind::OnSuccess(b)
                | ModifierKind::OnFailure(b)
                | ModifierKind::OnHalted(b)
                | ModifierKind::After(b) => self.block(b),
            }
        }
    }
}
