//! Behaviour modules (`behavior`, `behaviors`, seed 004): checked and compiled into the
//! agent's behaviour arbiter. Each module's `Mv`, `S` and `ΔS` become code over the agent's
//! variables, `α` and `β` constants in 0..1, its keys indices into the agent's key list, and
//! each tree it runs (`run`, or a tree among `children`) a call bound like a subtree call in
//! `main`, instantiated later as a root of its own. The module tree is built from the
//! `behaviors` block down (or from the agent's own modules when it has none); a module takes
//! one place in it.
//!
//! Settings left out take defaults: `Mv`, `S` and `ΔS` 0, `α` and `β` 0.5 (so a module with
//! only `expected x` is worth `x / 2`), policy `parallel`, no keys.

use super::error::{Scope, SemaError};
use super::tree::{TNode, Template, TreeCx};
use super::ty::Ty;
use super::{Checker, Global};
use crate::diagnostic::Diagnostic;
use crate::ir::program::{Arg, BehaviorChild, BehaviorModule, BehaviorPolicy, Behaviors};
use crate::span::Span;
use crate::suggest::closest;
use crate::syntax::ast::{self, Expr, ExprKind, File, ItemKind, MemberKind, SettingEntry};

const POLICIES: &str = "`simultaneous`, `parallel` or `main(child)`";

/// The runtime keeps an agent's keys in one 64-bit set.
pub const MAX_KEYS: usize = 64;

/// The module tree of one agent being built.
struct Build<'a> {
    /// The agent's own modules.
    members: Vec<&'a ast::BehaviorDecl>,
    /// Top-level modules, shared by the agents of the file.
    shared: &'a [ast::BehaviorDecl],
    out: Behaviors,
    roots: Vec<TNode>,
    /// Declarations placed in the module tree (by name span), with where each was placed.
    placed: Vec<(Span, Span)>,
    /// Where each module is placed (by module index), for messages about it.
    places: Vec<Span>,
    /// Structure only: an unused shared module, checked without an agent (its values and
    /// tree arguments may name any agent's members).
    scratch: bool,
    /// The agent's personality traits (constants its modules' values may read).
    traits: &'a [(String, f64)],
}

/// A module's child as written: its name, where, and what it resolved to.
struct ChildRef {
    name: String,
    span: Span,
    child: Option<BehaviorChild>,
}

impl Checker {
    /// An agent's behaviour modules and arbiter, compiled into `t` (`t.behaviors`,
    /// `t.roots`). Call after the process phase is compiled: the modules' code follows it.
    pub(crate) fn agent_behaviors(
        &mut self,
        members: &[ast::Member],
        t: &mut Template,
        traits: &[(String, f64)],
    ) {
        let decls: Vec<&ast::BehaviorDecl> = members
            .iter()
            .filter_map(|m| match &m.kind {
                MemberKind::Behavior(b) => Some(b),
                _ => None,
            })
            .collect();
        let blocks: Vec<(&ast::SettingBlock, Span)> = members
            .iter()
            .filter_map(|m| match &m.kind {
                MemberKind::Behaviors(s) => Some((s, m.span)),
                _ => None,
            })
            .collect();
        if decls.is_empty() && blocks.is_empty() {
            return;
        }
        let before = self.diags.len();
        for (i, d) in decls.iter().enumerate() {
            if let Some(first) = decls[..i].iter().find(|p| p.name.name == d.name.name) {
                self.report(SemaError::DeclaredTwice {
                    name: d.name.name.clone(),
                    span: d.name.span,
                    first: Some(first.name.span),
                    scope: Scope::AgentModules,
                });
            }
        }
        if let Some((_, second)) = blocks.get(1) {
            self.diags.push(
                Diagnostic::error(
                    "E0202",
                    "the agent has more than one `behaviors` block",
                    *second,
                )
                .with_label("second `behaviors`")
                .with_secondary(blocks[0].1, "first here")
                .with_help("an agent has one arbiter: put every top module in one `modules` list"),
            );
        }
        let shared = std::mem::take(&mut self.shared_behaviors);
        let mut b = Build {
            members: decls.clone(),
            shared: &shared,
            out: Behaviors::default(),
            roots: Vec::new(),
            placed: Vec::new(),
            places: Vec::new(),
            scratch: false,
            traits,
        };
        match blocks.first() {
            Some((block, _)) => self.arbiter_block(&mut b, block, t, traits),
            // Without a `behaviors` block the agent's own modules are the top ones.
            None => {
                for d in &decls {
                    if let Some(i) =
                        self.module(&mut b, d, d.name.name.clone(), None, d.name.span, t)
                    {
                        b.out.top.push(i);
                    }
                }
            }
        }
        if b.out.keys.len() > MAX_KEYS {
            let span = b.places.first().copied().unwrap_or(Span::DUMMY);
            self.diags.push(
                Diagnostic::error(
                    "E0302",
                    format!(
                        "the agent's behaviour modules use {} execution keys; at most {MAX_KEYS} are allowed",
                        b.out.keys.len()
                    ),
                    span,
                )
                .with_label("too many keys in this module tree"),
            );
        }
        // Modules with no place in the tree never run, but are still checked: compiled on
        // their own, then thrown away.
        let mut unplaced: Vec<&ast::BehaviorDecl> = Vec::new();
        for d in &decls {
            collect_unplaced(d, &b.placed, &mut unplaced);
        }
        for d in unplaced {
            let code = t.code.len();
            let mut alone = Build {
                members: decls.clone(),
                shared: &shared,
                out: Behaviors::default(),
                roots: Vec::new(),
                placed: Vec::new(),
                places: Vec::new(),
                scratch: false,
                traits,
            };
            self.module(&mut alone, d, d.name.name.clone(), None, d.name.span, t);
            t.code.truncate(code);
        }
        t.behaviors = Some(b.out);
        t.roots = b.roots;
        self.shared_behaviors = shared;
        // A shared module used by several agents is checked in each: report it once.
        let (old, new) = self.diags.split_at(before);
        let fresh: Vec<Diagnostic> = new.iter().filter(|d| !old.contains(d)).cloned().collect();
        self.diags.truncate(before);
        self.diags.extend(fresh);
    }

    /// Top-level modules no agent uses: only what they name and their constants are checked
    /// (in an agent they may read its members).
    pub(crate) fn check_shared_behaviors(&mut self, file: &File) {
        let shared = std::mem::take(&mut self.shared_behaviors);
        for item in &file.items {
            let ItemKind::Behavior(d) = &item.kind else {
                continue;
            };
            if self.used_globals.contains(&d.name.name) {
                continue;
            }
            let mut b = Build {
                members: Vec::new(),
                shared: &shared,
                out: Behaviors::default(),
                roots: Vec::new(),
                placed: Vec::new(),
                places: Vec::new(),
                scratch: true,
                traits: &[],
            };
            let mut t = Template::default();
            self.module(&mut b, d, d.name.name.clone(), None, d.name.span, &mut t);
        }
        self.shared_behaviors = shared;
    }

    /// `behaviors { policy ..; inhibition ..; modules ..; }`.
    fn arbiter_block(
        &mut self,
        b: &mut Build,
        block: &ast::SettingBlock,
        t: &mut Template,
        traits: &[(String, f64)],
    ) {
        let mut names: Vec<ChildRef> = Vec::new();
        let mut policy: Option<&Expr> = None;
        for e in &block.entries {
            let SettingEntry::Setting(s) = e else {
                continue;
            };
            match s.key.name.as_str() {
                "modules" => {
                    for a in &s.args {
                        let child = self.top_module(b, a, t);
                        names.push(ChildRef {
                            name: target_name(a).unwrap_or_default(),
                            span: a.span,
                            child: child.map(BehaviorChild::Module),
                        });
                        b.out.top.extend(child);
                    }
                }
                "inhibition" => {
                    if let Some(a) = s.args.first() {
                        b.out.inhibition = self.share(a, "`inhibition`", 0.0, t, traits);
                    }
                }
                "policy" => policy = s.args.first(),
                _ => {}
            }
        }
        if let Some(p) = policy {
            b.out.policy = self.module_policy(p, &names, "behaviors");
            // `main(X)` counts among the modules that resolved.
            if let BehaviorPolicy::Main(i) = b.out.policy {
                let target = names[i as usize].child;
                b.out.policy = match b
                    .out
                    .top
                    .iter()
                    .position(|&m| Some(BehaviorChild::Module(m)) == target)
                {
                    Some(k) => BehaviorPolicy::Main(k as u32),
                    None => BehaviorPolicy::Parallel,
                };
            }
        }
    }

    /// A name in `modules`: one of the agent's modules, or a top-level one.
    fn top_module(&mut self, b: &mut Build, a: &Expr, t: &mut Template) -> Option<u32> {
        let Some(name) = target_name(a) else {
            self.diags.push(
                Diagnostic::error("E0301", "`modules` lists behaviour modules by name", a.span)
                    .with_label("not a name"),
            );
            return None;
        };
        if let Some(d) = b.members.iter().copied().find(|d| d.name.name == name) {
            self.no_module_arguments(a, &name);
            return self.module(b, d, name, None, a.span, t);
        }
        let shared = b.shared;
        if let Some(d) = shared.iter().find(|d| d.name.name == name) {
            self.used_globals.insert(name.clone());
            self.no_module_arguments(a, &name);
            return self.module(b, d, name, None, a.span, t);
        }
        let mut known: Vec<String> = b.members.iter().map(|d| d.name.name.clone()).collect();
        known.extend(b.shared.iter().map(|d| d.name.name.clone()));
        known.sort();
        let mut d = Diagnostic::error("E0201", format!("no behaviour module `{name}`"), a.span)
            .with_label("not a `behavior` of this agent or of the file");
        d = d.with_suggestion(&name, known.iter().map(String::as_str), || {
            format!("declare it: `behavior {name} {{ .. }}`, in the agent or at the top level")
        });
        self.diags.push(d);
        None
    }

    /// A module named at `at`: the module of this file declared there, else the top-level
    /// module of that name (shared modules may come from a used file).
    fn refer_module(&mut self, decl: &ast::BehaviorDecl, at: Span) {
        let here = self
            .index
            .declared_at(decl.name.span)
            .filter(|&d| self.index.def(d).name == decl.name.name);
        let def = here.or_else(|| self.index.global(&decl.name.name).map(|(d, _)| d));
        self.index.refer_def(at, def);
    }

    /// `Soccer(x: 1)`: a module is not called.
    fn no_module_arguments(&mut self, a: &Expr, name: &str) {
        if let ExprKind::Call(_, args) = &a.kind {
            self.diags.push(
                Diagnostic::error(
                    "E0310",
                    format!("behaviour module `{name}` takes no arguments"),
                    args.span,
                )
                .with_label("a module is named, not called")
                .with_help(format!(
                    "write `{name}`; the trees it runs take arguments (`run Tree(x: 1);`)"
                )),
            );
        }
    }

    /// Places one module (and, through its `children`, its subtree) in the module tree;
    /// returns its index.
    fn module(
        &mut self,
        b: &mut Build,
        decl: &ast::BehaviorDecl,
        path: String,
        parent: Option<u32>,
        at: Span,
        t: &mut Template,
    ) -> Option<u32> {
        let traits = b.traits;
        if !self.may_place(b, decl, parent, at) {
            return None;
        }
        b.placed.push((decl.name.span, at));
        if at != decl.name.span {
            self.refer_module(decl, at);
        }
        let idx = b.out.modules.len() as u32;
        b.out.modules.push(BehaviorModule {
            name: path.clone(),
            parent,
            motivation: Arg::Const(0.0),
            satisfaction: Arg::Const(0.0),
            expected: Arg::Const(0.0),
            alpha: 0.5,
            beta: 0.5,
            keys: Vec::new(),
            policy: BehaviorPolicy::Parallel,
            children: Vec::new(),
        });
        b.places.push(at);
        let nested = self.nested_modules(decl);
        let mut children: Vec<ChildRef> = Vec::new();
        let mut keys: Vec<(u32, Span)> = Vec::new();
        let mut policy: Option<&Expr> = None;
        let (mut motivation, mut satisfaction, mut expected) =
            (Arg::Const(0.0), Arg::Const(0.0), Arg::Const(0.0));
        let (mut alpha, mut beta) = (0.5, 0.5);
        for e in &decl.body.entries {
            let SettingEntry::Setting(s) = e else {
                continue;
            };
            let what = format!("`{}`", s.key.name);
            match s.key.name.as_str() {
                "motivation" | "satisfaction" | "expected" => {
                    let Some(a) = s.args.first() else { continue };
                    let v = self.module_value(b, a, &what, t, traits);
                    match s.key.name.as_str() {
                        "motivation" => motivation = v,
                        "satisfaction" => satisfaction = v,
                        _ => expected = v,
                    }
                }
                "alpha" | "beta" => {
                    let Some(a) = s.args.first() else { continue };
                    let v = self.share(a, &what, 0.5, t, traits);
                    if s.key.name == "alpha" {
                        alpha = v;
                    } else {
                        beta = v;
                    }
                }
                "keys" => self.module_keys(b, &s.args, &mut keys),
                "run" => {
                    if let Some(a) = s.args.first() {
                        let child = self.module_tree(b, a, "run", &nested, t, traits);
                        children.push(ChildRef {
                            name: target_name(a).unwrap_or_default(),
                            span: a.span,
                            child,
                        });
                    }
                }
                "children" => {
                    for a in &s.args {
                        let under = (&path[..], idx, &nested[..]);
                        children.push(self.module_child(b, a, under, t, traits));
                    }
                }
                "policy" => policy = s.args.first(),
                _ => {}
            }
        }
        let mut kind = BehaviorPolicy::Parallel;
        if let Some(p) = policy {
            kind = self.module_policy(p, &children, &decl.name.name);
        }
        let resolved: Vec<BehaviorChild> = children.iter().filter_map(|c| c.child).collect();
        if let BehaviorPolicy::Main(i) = kind {
            let target = children[i as usize].child;
            kind = match resolved.iter().position(|c| Some(*c) == target) {
                Some(k) => BehaviorPolicy::Main(k as u32),
                None => BehaviorPolicy::Parallel,
            };
        }
        {
            let m = &mut b.out.modules[idx as usize];
            m.motivation = motivation;
            m.satisfaction = satisfaction;
            m.expected = expected;
            m.alpha = alpha;
            m.beta = beta;
            m.keys = keys.iter().map(|(k, _)| *k).collect();
            m.policy = kind;
            m.children = resolved;
        }
        if let (BehaviorPolicy::Simultaneous, Some(p)) = (kind, policy) {
            self.simultaneous_keys(b, &children, p, &decl.name.name);
        }
        Some(idx)
    }

    /// Whether `decl` can take a place under `parent`: it has none yet (a module has one
    /// parent) and the chain of parents is within the depth limit.
    fn may_place(
        &mut self,
        b: &Build,
        decl: &ast::BehaviorDecl,
        parent: Option<u32>,
        at: Span,
    ) -> bool {
        if let Some((_, first)) = b.placed.iter().find(|(d, _)| *d == decl.name.span) {
            self.diags.push(
                Diagnostic::error(
                    "E0202",
                    format!("behaviour module `{}` already has a place in the module tree", decl.name.name),
                    at,
                )
                .with_label("placed again here")
                .with_secondary(*first, "first placed here")
                .with_help("a module has one parent (and does not contain itself): declare another module to run the same trees"),
            );
            return false;
        }
        // Modules name their children, so a chain of top-level modules is as deep as the
        // file is long; the module tree is built (and later walked) recursively.
        let max = crate::syntax::depth::MAX_DEPTH;
        let depth = std::iter::successors(parent, |&p| b.out.modules[p as usize].parent).count();
        if depth >= max {
            self.diags.push(
                Diagnostic::error("E0118", format!("nested deeper than {max} levels"), at)
                    .with_label(format!(
                        "`{}` would be the {}th module of a chain of children",
                        decl.name.name,
                        depth + 1
                    ))
                    .with_help("give the module tree fewer levels: list more modules as children of one parent"),
            );
            return false;
        }
        true
    }

    /// The modules `decl` declares inside itself; two of one name are E0202.
    fn nested_modules<'d>(&mut self, decl: &'d ast::BehaviorDecl) -> Vec<&'d ast::BehaviorDecl> {
        let nested: Vec<&'d ast::BehaviorDecl> = decl
            .body
            .entries
            .iter()
            .filter_map(|e| match e {
                SettingEntry::Behavior(n, _) => Some(&**n),
                _ => None,
            })
            .collect();
        for (i, n) in nested.iter().enumerate() {
            if let Some(first) = nested[..i].iter().find(|p| p.name.name == n.name.name) {
                self.diags.push(
                    Diagnostic::error(
                        "E0202",
                        format!(
                            "`{}` declares two modules named `{}`",
                            decl.name.name, n.name.name
                        ),
                        n.name.span,
                    )
                    .with_label("again here")
                    .with_secondary(first.name.span, "first here"),
                );
            }
        }
        nested
    }

    /// `keys legs, head;`: the execution keys a module needs, each once.
    fn module_keys(&mut self, b: &mut Build, args: &[Expr], keys: &mut Vec<(u32, Span)>) {
        for a in args {
            let Some(k) = self.key(b, a) else { continue };
            match keys.iter().find(|(x, _)| *x == k) {
                Some((_, first)) => self.diags.push(
                    Diagnostic::error(
                        "E0202",
                        format!("key `{}` is listed twice", b.out.keys[k as usize]),
                        a.span,
                    )
                    .with_label("again here")
                    .with_secondary(*first, "first here"),
                ),
                None => keys.push((k, a.span)),
            }
        }
    }

    /// A name among `children`: a nested module, one of the agent's or a shared one (placed
    /// under the module at `under`: its path, index and nested modules), or a tree.
    fn module_child(
        &mut self,
        b: &mut Build,
        a: &Expr,
        under: (&str, u32, &[&ast::BehaviorDecl]),
        t: &mut Template,
        traits: &[(String, f64)],
    ) -> ChildRef {
        let (path, idx, nested) = under;
        let name = target_name(a).unwrap_or_default();
        let own = nested
            .iter()
            .copied()
            .find(|d| d.name.name == name)
            .or_else(|| b.members.iter().copied().find(|d| d.name.name == name));
        let shared = b.shared;
        let module = match own {
            Some(d) => Some(d),
            None => {
                let d = shared.iter().find(|d| d.name.name == name);
                if d.is_some() {
                    self.used_globals.insert(name.clone());
                }
                d
            }
        };
        let child = match module {
            Some(d) => {
                self.no_module_arguments(a, &name);
                let p = format!("{path}/{name}");
                self.module(b, d, p, Some(idx), a.span, t)
                    .map(BehaviorChild::Module)
            }
            None => self.module_tree(b, a, "children", nested, t, traits),
        };
        ChildRef {
            name,
            span: a.span,
            child,
        }
    }

    /// `motivation`, `satisfaction`, `expected`: a number the agent computes every tick.
    fn module_value(
        &mut self,
        b: &Build,
        e: &Expr,
        what: &str,
        t: &mut Template,
        traits: &[(String, f64)],
    ) -> Arg {
        if b.scratch {
            return Arg::Const(0.0);
        }
        let mut tc = TreeCx::agent(self, t, traits);
        let (code, _) = tc.code_expr(e, &Ty::Num, what);
        let ops = &t.code[code.start as usize..(code.start + code.len) as usize];
        match crate::ir::eval::eval_const(ops) {
            Some(v) => {
                t.code.truncate(code.start as usize);
                Arg::Const(v)
            }
            None => Arg::Expr(code),
        }
    }

    /// `alpha`, `beta`, `inhibition`: a constant share in 0..1.
    fn share(
        &mut self,
        e: &Expr,
        what: &str,
        default: f64,
        t: &mut Template,
        traits: &[(String, f64)],
    ) -> f64 {
        let start = t.code.len();
        let before = self.diags.len();
        let mut tc = TreeCx::agent(self, t, traits);
        tc.code_expr(e, &Ty::Num, what);
        let value = crate::ir::eval::eval_const(&t.code[start..]);
        t.code.truncate(start);
        if self.diags.len() > before {
            return default;
        }
        match value {
            None => {
                self.diags.push(
                    Diagnostic::error("E0304", format!("{what} must be a constant"), e.span)
                        .with_label("known only while the program runs")
                        .with_help(format!(
                            "write a number in 0..1, such as `{} 0.5;`",
                            what.trim_matches('`')
                        )),
                );
                default
            }
            Some(v) if !(0.0..=1.0).contains(&v) => {
                self.diags.push(
                    Diagnostic::error(
                        "E0302",
                        format!("{what} must be in 0..1, found {v}"),
                        e.span,
                    )
                    .with_label("outside 0..1")
                    .with_help("it is a share: 0 is none, 1 is all"),
                );
                default
            }
            Some(v) => v,
        }
    }

    /// A key name in `keys`: its index in the agent's key list.
    fn key(&mut self, b: &mut Build, a: &Expr) -> Option<u32> {
        let name = match &a.kind {
            ExprKind::Name(p) if p.segments.len() == 1 => p.segments[0].name.clone(),
            _ => {
                self.diags.push(
                    Diagnostic::error("E0301", "`keys` lists execution keys by name", a.span)
                        .with_label("not a key name")
                        .with_help("name the body parts and resources the module needs: `keys legs, head;`"),
                );
                return None;
            }
        };
        Some(match b.out.keys.iter().position(|k| *k == name) {
            Some(i) => i as u32,
            None => {
                b.out.keys.push(name);
                b.out.keys.len() as u32 - 1
            }
        })
    }

    /// `run Tree`, `run Tree(args)`, or a tree among `children`: a declared tree (or
    /// action), bound like a call in `main` and instantiated as a root of its own.
    fn module_tree(
        &mut self,
        b: &mut Build,
        e: &Expr,
        what: &str,
        nested: &[&ast::BehaviorDecl],
        t: &mut Template,
        traits: &[(String, f64)],
    ) -> Option<BehaviorChild> {
        let (path, args) = match &e.kind {
            ExprKind::Name(p) => (p, None),
            ExprKind::Call(f, args) => match &f.kind {
                ExprKind::Name(p) => (p, Some(args)),
                _ => {
                    self.not_a_tree(e, what);
                    return None;
                }
            },
            _ => {
                self.not_a_tree(e, what);
                return None;
            }
        };
        let name = path.to_string_path();
        match self.g.names.get(&name).map(|(g, _)| *g) {
            Some(Global::Tree(_) | Global::Leaf(_)) => {
                self.used_globals.insert(name);
                if b.scratch {
                    return None;
                }
                let node = ast::Node {
                    doc: None,
                    attrs: Vec::new(),
                    label: None,
                    kind: ast::NodeKind::Call {
                        name: path.clone(),
                        args: args.cloned(),
                        children: None,
                    },
                    modifiers: Vec::new(),
                    span: e.span,
                };
                let mut tc = TreeCx::agent(self, t, traits);
                let root = tc.node(&node);
                b.roots.push(root);
                Some(BehaviorChild::Tree(b.roots.len() as u32 - 1))
            }
            _ => {
                let mut candidates: Vec<&str> =
                    self.g.trees.iter().map(|t| t.name.as_str()).collect();
                if what != "run" {
                    candidates.extend(nested.iter().map(|d| d.name.name.as_str()));
                    candidates.extend(b.members.iter().map(|d| d.name.name.as_str()));
                }
                let best = closest(&name, candidates).map(str::to_string);
                // The tree the typo meant is not "never used" on top of this.
                self.used_globals.extend(best.clone());
                let (msg, label) = if what == "run" {
                    (
                        format!("unknown tree `{name}`"),
                        "not a tree of this program",
                    )
                } else {
                    (
                        format!("`{name}` is neither a behaviour module nor a tree"),
                        "not a child this module can run",
                    )
                };
                let mut d = Diagnostic::error("E0201", msg, path.span).with_label(label);
                d = match best {
                    Some(best) => d.with_help(format!("did you mean `{best}`?")),
                    None if what == "run" => {
                        d.with_help(format!("declare it: `tree {name}() {{ .. }}`"))
                    }
                    None => d.with_help(format!(
                        "declare it as a nested module (`behavior {name} {{ .. }}`) or a tree"
                    )),
                };
                self.diags.push(d);
                None
            }
        }
    }

    fn not_a_tree(&mut self, e: &Expr, what: &str) {
        self.diags.push(
            Diagnostic::error("E0301", format!("`{what}` names trees"), e.span)
                .with_label("not a tree name")
                .with_help("write the tree's name, with its arguments if it has ports: `run Play(speed: 1);`"),
        );
    }

    /// `simultaneous`, `parallel` or `main(child)` with one of the listed children
    /// (`Main` holds the child's index among `children`).
    fn module_policy(&mut self, e: &Expr, children: &[ChildRef], owner: &str) -> BehaviorPolicy {
        let names: Vec<&str> = children.iter().map(|c| c.name.as_str()).collect();
        match &e.kind {
            ExprKind::Name(p) if p.segments.len() == 1 && p.segments[0].name == "simultaneous" => {
                BehaviorPolicy::Simultaneous
            }
            ExprKind::Name(p) if p.segments.len() == 1 && p.segments[0].name == "parallel" => {
                BehaviorPolicy::Parallel
            }
            ExprKind::Call(f, args) if matches!(&f.kind, ExprKind::Name(p) if p.to_string_path() == "main") =>
            {
                let [arg] = args.args.as_slice() else {
                    self.diags.push(
                        Diagnostic::error("E0310", "`main(..)` names one child", args.span)
                            .with_label("one child expected"),
                    );
                    return BehaviorPolicy::Parallel;
                };
                let Some(name) = target_name(&arg.value) else {
                    self.diags.push(
                        Diagnostic::error("E0301", "`main(..)` names one child", arg.value.span)
                            .with_label("not a name"),
                    );
                    return BehaviorPolicy::Parallel;
                };
                if let Some(i) = names.iter().position(|n| *n == name) {
                    return BehaviorPolicy::Main(i as u32);
                }
                let (msg, label) = if owner == "behaviors" {
                    (
                        format!("`{name}` is not among the `modules`"),
                        "the main module must be one of the modules",
                    )
                } else {
                    (
                        format!("`{name}` is not a child of `{owner}`"),
                        "the main child must be one of the children",
                    )
                };
                let mut d = Diagnostic::error("E0201", msg, arg.value.span).with_label(label);
                d = match closest(&name, names.iter().copied()) {
                    Some(b) => d.with_help(format!("did you mean `{b}`?")),
                    None if names.is_empty() => {
                        d.with_help("list the children first: `children A, B;`")
                    }
                    None => d.with_help(format!("the children are `{}`", names.join("`, `"))),
                };
                self.diags.push(d);
                BehaviorPolicy::Parallel
            }
            _ => {
                let word = match &e.kind {
                    ExprKind::Name(p) => Some(p.to_string_path()),
                    _ => None,
                };
                let mut d = Diagnostic::error("E0301", format!("a policy is {POLICIES}"), e.span)
                    .with_label("not a policy");
                if let Some(b) =
                    word.and_then(|w| closest(&w, ["simultaneous", "parallel"]).map(str::to_string))
                {
                    d = d.with_help(format!("did you mean `{b}`?"));
                }
                self.diags.push(d);
                BehaviorPolicy::Parallel
            }
        }
    }

    /// Children that must run at once cannot need the same key.
    fn simultaneous_keys(&mut self, b: &Build, children: &[ChildRef], policy: &Expr, owner: &str) {
        let needs: Vec<(&ChildRef, u64)> = children
            .iter()
            .filter_map(|c| match c.child {
                Some(BehaviorChild::Module(m)) => Some((c, required_keys(&b.out, m))),
                _ => None,
            })
            .collect();
        for (i, (a, ka)) in needs.iter().enumerate() {
            for (c, kc) in &needs[..i] {
                let shared = ka & kc;
                if shared == 0 {
                    continue;
                }
                let key = &b.out.keys[shared.trailing_zeros() as usize];
                self.diags.push(
                    Diagnostic::error(
                        "E0319",
                        format!(
                            "the children of `{owner}` run at once, but `{}` and `{}` both need `{key}`",
                            c.name, a.name
                        ),
                        policy.span,
                    )
                    .with_label("all children run together")
                    .with_secondary(c.span, format!("needs `{key}`"))
                    .with_secondary(a.span, format!("needs `{key}` too"))
                    .with_help("a key goes to one module at a time: use `policy parallel;`, or give the key to one of them"),
                );
                return;
            }
        }
    }
}

/// The keys a module must get to run: its own, and with `simultaneous` its module
/// children's as well (as a set of key indices).
pub(crate) fn required_keys(b: &Behaviors, m: u32) -> u64 {
    let module = &b.modules[m as usize];
    let mut set = module
        .keys
        .iter()
        .filter(|&&k| (k as usize) < MAX_KEYS)
        .fold(0u64, |s, &k| s | 1 << k);
    if module.policy == BehaviorPolicy::Simultaneous {
        for c in &module.children {
            if let BehaviorChild::Module(c) = c {
                set |= required_keys(b, *c);
            }
        }
    }
    set
}

/// A module and its nested modules that have no place in the module tree (an unplaced
/// module's nested ones are checked with it).
fn collect_unplaced<'d>(
    d: &'d ast::BehaviorDecl,
    placed: &[(Span, Span)],
    out: &mut Vec<&'d ast::BehaviorDecl>,
) {
    if !placed.iter().any(|(p, _)| *p == d.name.span) {
        out.push(d);
        return;
    }
    for e in &d.body.entries {
        if let SettingEntry::Behavior(n, _) = e {
            collect_unplaced(n, placed, out);
        }
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
