//! The tick program: every module's trees checked into templates, the main file's agents
//! checked and instantiated (`lower.rs`), clones copied, worlds lowered and their names
//! checked against the program.

use super::error::SemaError;
use super::frame::VarKind;
use super::modules::Module;
use super::tree::{TKind, TNode, Template, TreeCx};
use super::Checker;
use crate::builtins::NodeClass;
use crate::diagnostic::Diagnostic;
use crate::ir::program::*;
use crate::ir::world::WorldSpec;
use crate::span::Span;

/// How the import keeps a `main_tree_to_execute` that names no tree of its file (`groot`'s
/// `root:` attributes, written back on `<root>`).
const MAIN_TREE_ATTR: &str = "root:main_tree_to_execute";
use crate::syntax::ast::{File, ItemKind, LeafKind};

impl Checker {
    /// Checks every tree and agent and builds the tick program.
    /// Checks every tree and agent and builds the tick program.
    pub fn lower_program(&mut self, modules: &[Module], main: &File) -> Option<Program> {
        // Top-level behaviour modules, for the agents that run them.
        self.shared_behaviors = modules
            .iter()
            .flat_map(|m| m.file.items.iter())
            .filter_map(|i| match &i.kind {
                ItemKind::Behavior(b) => Some(b.clone()),
                _ => None,
            })
            .collect();
        for m in modules {
            let before = self.enter(m);
            self.check_akr_records(&m.file);
            self.set_aside(m, before);
        }
        let templates = self.check_trees(modules);
        let mut program = Program {
            enums: self
                .g
                .enums
                .iter()
                .map(|e| EnumInfo {
                    name: e.name.clone(),
                    variants: e.variants.clone(),
                    values: e.values.clone(),
                })
                .collect(),
            ..Program::default()
        };
        program.agents = self.lower_agents(main, &templates);
        if program.agents.is_empty() {
            if let Some((agent, name)) = self.main_tree_agent(main, &templates) {
                program.agents.push(agent);
                program.main_tree = Some(name);
            }
        }
        self.warn_unused_locals(program.main_tree.as_deref());
        let (worlds, world_diags) = super::world::lower_worlds(main);
        self.diags.extend(world_diags);
        self.intern_names(&worlds, &program);
        program.components = self.global_components(main);
        self.check_percepts(&program);
        for w in &worlds {
            self.check_world_names(w, &program);
        }
        program.worlds = worlds;
        program.lists = std::mem::take(&mut self.lists);
        // After every tree and agent: checking them may add stand-in leaves (BehaviorTree.CPP
        // built-ins called by ID that affect cannot run).
        program.leaves = self.leaf_infos();
        Some(program)
    }

    /// W0201 for each tree's locals nobody uses; in the main tree, `@name` (anywhere) uses
    /// its local `name`, which is the root blackboard's.
    fn warn_unused_locals(&mut self, main_tree: Option<&str>) {
        let main = main_tree.and_then(|n| self.g.trees.iter().position(|t| t.name == n));
        for (tree, name, span) in std::mem::take(&mut self.unused_locals) {
            if Some(tree) == main && self.root_keys.contains(&name) {
                continue;
            }
            self.report(SemaError::Unused {
                name,
                span,
                help: "remove it, or use it in the tree",
            });
        }
    }

    /// Every module's trees, as templates in the order trees were declared; trees that stay
    /// signatures get stand-in leaves.
    fn check_trees(&mut self, modules: &[Module]) -> Vec<Option<Template>> {
        let mut templates: Vec<Option<Template>> = vec![None; self.g.trees.len()];
        // The module each tree is in: a call cycle is reported in the file of the call.
        let mut home: Vec<usize> = vec![0; self.g.trees.len()];
        for (k, m) in modules.iter().enumerate() {
            let before = self.enter(m);
            for item in &m.file.items {
                let ItemKind::Tree(t) = &item.kind else {
                    continue;
                };
                // The declaration the program keeps under this name (not a duplicate).
                let Some(&(super::Global::Tree(i), at)) = self.g.names.get(&t.name.name) else {
                    continue;
                };
                if at != t.name.span || self.g.trees[i as usize].span != t.name.span {
                    continue;
                }
                templates[i as usize] = Some(self.tree_template(i as usize, t));
                home[i as usize] = k;
            }
            self.set_aside(m, before);
        }
        self.report_recursion(&templates, modules, &home);
        if self.behavior_tree_xml {
            self.report_undefined_calls(&templates, modules, &home);
            self.report_nodes_named_like_trees(modules);
        }
        // Trees that stayed signatures (defined in a file nobody included): each call runs a
        // stand-in, as a custom action of the same name and ports.
        for i in 0..self.g.trees.len() {
            if !self.g.trees[i].signature {
                continue;
            }
            let sig = self.g.trees[i].clone();
            self.signature_leaves
                .insert(i as u32, self.g.leaves.len() as u32);
            self.g.leaves.push(super::LeafDef {
                name: sig.name,
                kind: LeafKind::Action,
                ports: sig.ports,
                span: sig.span,
                doc: sig.doc,
            });
        }
        for t in templates.iter().flatten() {
            for (key, _) in &t.frame.root_refs {
                self.root_keys.insert(key.clone());
            }
        }
        templates
    }

    /// One tree checked into a template (a signature has no body: its calls run a stand-in).
    fn tree_template(&mut self, i: usize, t: &crate::syntax::ast::TreeDecl) -> Template {
        let ports = self.g.trees[i].ports.clone();
        let frame = super::tree::tree_frame(self, t, &ports);
        let mut tpl = Template {
            frame,
            ..Template::default()
        };
        if self.g.trees[i].signature {
            return tpl;
        }
        let owner = format!("tree `{}`", t.name.name);
        tpl.root = TreeCx::tree(self, &mut tpl).one_root(&t.body, &owner);
        for v in &tpl.frame.vars {
            if v.kind == VarKind::Local && !v.used {
                self.unused_locals.push((i, v.name.clone(), v.span));
            }
        }
        tpl
    }

    /// The main file's agents, checked and instantiated, with the clones of them, in the
    /// order the file writes them.
    fn lower_agents(&mut self, main: &File, templates: &[Option<Template>]) -> Vec<AgentProgram> {
        let mut agents: Vec<(String, AgentProgram)> = Vec::new();
        for item in &main.items {
            let ItemKind::Agent(a) = &item.kind else {
                continue;
            };
            let Some(members) = &a.members else { continue };
            let checked = self.check_agent(a, members);
            let head = super::lower::AgentHead {
                name: &checked.name,
                rate_hz: checked.rate_hz,
                process: checked.process,
                devices: checked.devices,
                drives: checked.drives,
            };
            let mut prog = self.build_agent(head, &checked.template, templates);
            prog.memories = checked.memories;
            prog.machines = checked.machines;
            // The agent's own code starts the program's, so code ranges and frame slots carry
            // over unchanged (as `process` does).
            prog.recruitments = checked.recruitments;
            prog.components = checked.components;
            agents.push((checked.name, prog));
        }
        self.clone_agents(main, &mut agents);
        let mut out = Vec::new();
        for item in &main.items {
            if let ItemKind::Agent(a) = &item.kind {
                if let Some(pos) = agents.iter().position(|(n, _)| *n == a.name.name) {
                    out.push(agents.remove(pos).1);
                }
            }
        }
        out
    }

    /// Clones: `agent Vonda = Leguin;` runs a copy of Leguin under its own name.
    fn clone_agents(&mut self, main: &File, agents: &mut Vec<(String, AgentProgram)>) {
        for item in &main.items {
            let ItemKind::Agent(a) = &item.kind else {
                continue;
            };
            let Some(base) = &a.base else { continue };
            match agents.iter().find(|(n, _)| *n == base.name) {
                Some((_, p)) => {
                    let mut copy = p.clone();
                    copy.name = a.name.name.clone();
                    if a.members.as_ref().is_some_and(|m| !m.is_empty()) {
                        copy.pending
                            .push(("clones with their own members".into(), item.span));
                    }
                    agents.push((a.name.name.clone(), copy));
                }
                None => {
                    let names: Vec<&str> = agents.iter().map(|(n, _)| n.as_str()).collect();
                    let mut d = Diagnostic::error(
                        "E0201",
                        format!("no agent `{}` to clone", base.name),
                        base.span,
                    )
                    .with_label("not an agent of this file");
                    if let Some(b) = crate::suggest::closest(&base.name, names.iter().copied()) {
                        d = d.with_help(format!("did you mean `{b}`?"));
                    }
                    self.diags.push(d);
                }
            }
        }
    }

    /// A file without agents runs its main tree, whose own blackboard is the root one.
    fn main_tree_agent(
        &mut self,
        main: &File,
        templates: &[Option<Template>],
    ) -> Option<(AgentProgram, String)> {
        let i = self.main_tree(main)?;
        let sig = self.g.trees[i].clone();
        self.used_globals.insert(sig.name.clone());
        // Borrowed, not cloned: a template is the whole checked tree.
        let t = templates[i].as_ref()?;
        let head = super::lower::AgentHead {
            name: &sig.name,
            rate_hz: 10.0,
            process: Code::default(),
            devices: vec![],
            drives: vec![],
        };
        let agent = self.build_agent(head, t, templates);
        Some((agent, sig.name))
    }

    /// Names the program may compare strings with get symbols: grid labels, every agent's
    /// name (`SendCommand(robot: refiller, ..)` after `--bb refiller=Vonda`) and every
    /// instance name a world makes (`UGV#2`).
    fn intern_names(&mut self, worlds: &[WorldSpec], program: &Program) {
        for w in worlds {
            if let Some(g) = w.grid() {
                for c in g.labels.iter().flatten() {
                    self.strings.intern(&c.to_string());
                }
            }
        }
        for a in &program.agents {
            self.strings.intern(&a.name);
        }
        for w in worlds {
            for s in &w.spawns {
                let total: u32 = w
                    .spawns
                    .iter()
                    .filter(|x| x.agent.name == s.agent.name)
                    .map(|x| x.count)
                    .sum();
                for n in (1..=total).filter(|_| total > 1) {
                    self.strings.intern(&format!("{}#{n}", s.agent.name));
                }
            }
        }
    }

    fn leaf_infos(&self) -> Vec<LeafInfo> {
        self.g
            .leaves
            .iter()
            .map(|l| LeafInfo {
                name: l.name.clone(),
                class: match l.kind {
                    LeafKind::Action => NodeClass::Action,
                    LeafKind::Condition => NodeClass::Condition,
                    LeafKind::Control => NodeClass::Control,
                    LeafKind::Decorator => NodeClass::Decorator,
                },
                ports: l
                    .ports
                    .iter()
                    .map(|p| LeafPort {
                        name: p.name.to_string(),
                        dir: p.dir.into(),
                        kind: Some(p.ty(&self.index).value_kind()),
                        default: p.default,
                    })
                    .collect(),
                span: l.span,
            })
            .collect()
    }

    /// The names a world mentions must be the program's: agents to spawn, their variables,
    /// events and components.
    fn check_world_names(&mut self, w: &crate::ir::world::WorldSpec, program: &Program) {
        use crate::ir::world::{EventAction, NameRef};
        let agent_names: Vec<&str> = program.agents.iter().map(|a| a.name.as_str()).collect();
        let find_agent = |c: &mut Checker, r: &NameRef| -> Option<usize> {
            match program.agents.iter().position(|a| a.name == r.name) {
                Some(i) => Some(i),
                None => {
                    let mut d = Diagnostic::error(
                        "E0201",
                        format!(
                            "world `{}` names an agent `{}` the program does not declare",
                            w.name, r.name
                        ),
                        r.span,
                    )
                    .with_label("no such agent");
                    if let Some(b) = crate::suggest::closest(&r.name, agent_names.iter().copied()) {
                        d = d.with_help(format!("did you mean `{b}`?"));
                    }
                    c.diags.push(d);
                    None
                }
            }
        };
        let member = |c: &mut Checker,
                      agent: &AgentProgram,
                      r: &NameRef,
                      what: &str,
                      ok: &dyn Fn(&Slot) -> bool| {
            let names: Vec<&str> = agent
                .slots
                .iter()
                .filter(|s| s.scope == 0 && s.visible && ok(s))
                .map(|s| s.name.as_str())
                .collect();
            if !names.contains(&r.name.as_str()) {
                let mut d = Diagnostic::error(
                    "E0201",
                    format!("agent `{}` has no {what} `{}`", agent.name, r.name),
                    r.span,
                )
                .with_label(format!("not a {what} of `{}`", agent.name));
                if let Some(b) = crate::suggest::closest(&r.name, names.iter().copied()) {
                    d = d.with_help(format!("did you mean `{b}`?"));
                }
                c.diags.push(d);
            }
        };
        let spawned: Vec<usize> = w
            .spawns
            .iter()
            .filter_map(|s| find_agent(self, &s.agent))
            .collect();
        for s in &w.spawns {
            let Some(i) = program.agents.iter().position(|a| a.name == s.agent.name) else {
                continue;
            };
            for (name, _) in &s.init {
                member(self, &program.agents[i], name, "variable", &|_| true);
            }
            self.check_spawn_values(s, &program.agents[i], program);
        }
        // Events and components: on the named agent, else on every spawned agent.
        for e in &w.events {
            let (target, agent, what) = match &e.action {
                EventAction::Raise { event, agent } => (event, agent, "event"),
                EventAction::Fail { component, agent }
                | EventAction::Recover { component, agent } => (component, agent, "component"),
                _ => continue,
            };
            let agents: Vec<usize> = match agent {
                Some(a) => find_agent(self, a).into_iter().collect(),
                None => spawned.clone(),
            };
            for i in agents {
                if what == "event" {
                    member(self, &program.agents[i], target, "event", &|s| {
                        s.kind == ValueKind::Bool
                    });
                } else {
                    let a = &program.agents[i];
                    let known = a.components.iter().any(|c| c.name == target.name)
                        || program.components.iter().any(|c| c.name == target.name);
                    if !known {
                        self.diags.push(
                            Diagnostic::error(
                                "E0201",
                                format!("agent `{}` has no component `{}`", a.name, target.name),
                                target.span,
                            )
                            .with_label("not a component"),
                        );
                    }
                }
            }
        }
    }

    /// E0422 for each call of a tree that stayed a signature in a program of BehaviorTree.CPP
    /// XML: the library registers the trees of the file and of every file it includes, and
    /// refuses a `<SubTree>` whose ID none of them defines ("Can't find a tree with name"),
    /// whether the ID has a `<SubTree>` model entry or none (the import then infers it).
    /// Reported in the file of the call, at the ID.
    fn report_undefined_calls(
        &mut self,
        templates: &[Option<Template>],
        modules: &[Module],
        home: &[usize],
    ) {
        let defined: Vec<String> = self
            .g
            .trees
            .iter()
            .filter(|t| !t.signature)
            .map(|t| t.name.clone())
            .collect();
        for (caller, t) in templates.iter().enumerate() {
            let Some(root) = t.as_ref().and_then(|t| t.root.as_ref()) else {
                continue;
            };
            // Depth-first without recursion: trees are as deep as the file makes them.
            let mut todo = vec![root];
            let mut found = Vec::new();
            while let Some(n) = todo.pop() {
                if let TKind::SubTree {
                    tree, name_span, ..
                } = &n.kind
                {
                    if self.g.trees[*tree as usize].signature {
                        found.push((*tree, *name_span));
                    }
                }
                todo.extend(n.children.iter().rev());
            }
            let before = self.diags.len();
            for (tree, span) in found {
                let name = self.g.trees[tree as usize].name.clone();
                let mut d = Diagnostic::error(
                    "E0422",
                    format!("no file of the program defines the tree `{name}`"),
                    span,
                )
                .with_label("called here")
                .with_note(
                    "BehaviorTree.CPP refuses the file (\"Can't find a tree with name\"): it \
                     knows the trees of this file and of the files it includes",
                );
                d = match crate::suggest::closest(&name, defined.iter().map(String::as_str)) {
                    Some(near) => d.with_help(format!("did you mean `{near}`?")),
                    None => d.with_help(
                        "define it in a `<BehaviorTree>`, or `<include>` the file that defines it",
                    ),
                };
                self.diags.push(d);
            }
            if let Some(m) = home.get(caller).and_then(|&k| modules.get(k)) {
                self.set_aside(m, before);
            }
        }
    }

    /// E0414 for an element named like a tree of the program (`<CheckStatus/>` beside an
    /// included `<BehaviorTree ID="CheckStatus">`): BehaviorTree.CPP looks an element up among
    /// its registered nodes ("Node not recognized") and calls a tree only as `<SubTree ID="..">`.
    /// The import declares the name an `#[inferred]` node and keeps the element's start tag
    /// (`#[xml = "<CheckStatus/>"]`), which tells it from a `<SubTree>` call of the same name.
    fn report_nodes_named_like_trees(&mut self, modules: &[Module]) {
        use crate::syntax::ast;
        use crate::syntax::visit::{walk_node, Visitor};
        let trees: std::collections::HashSet<&str> = modules
            .iter()
            .flat_map(|m| &m.file.items)
            .filter_map(|i| match &i.kind {
                ItemKind::Tree(t) if !super::is_signature(i, t) => Some(t.name.name.as_str()),
                _ => None,
            })
            .collect();
        struct Elements<'a> {
            names: Vec<&'a str>,
            found: Vec<(String, Span)>,
        }
        impl Visitor for Elements<'_> {
            fn visit_node(&mut self, n: &ast::Node) {
                if let ast::NodeKind::Call { name, .. } = &n.kind {
                    let element = n.attrs.iter().any(|a| {
                        a.name.name == "xml"
                            && matches!(&a.value, Some(ast::Expr { kind: ast::ExprKind::Str(t), .. })
                                if !t.starts_with("<SubTree"))
                    });
                    if let ([one], true) = (name.segments.as_slice(), element) {
                        if self.names.contains(&one.name.as_str()) {
                            self.found.push((one.name.clone(), one.span));
                        }
                    }
                }
                walk_node(self, n);
            }
        }
        for m in modules {
            let names: Vec<&str> = m
                .file
                .items
                .iter()
                .filter_map(|i| match &i.kind {
                    ItemKind::Leaf(l)
                        if i.attrs.iter().any(|a| a.name.name == "inferred")
                            && trees.contains(l.name.name.as_str()) =>
                    {
                        Some(l.name.name.as_str())
                    }
                    _ => None,
                })
                .collect();
            if names.is_empty() {
                continue;
            }
            let mut elements = Elements {
                names,
                found: Vec::new(),
            };
            for item in &m.file.items {
                if let ItemKind::Tree(t) = &item.kind {
                    for n in &t.body.nodes {
                        elements.visit_node(n);
                    }
                }
            }
            let before = self.diags.len();
            for (name, span) in elements.found {
                self.diags.push(
                    Diagnostic::error(
                        "E0414",
                        format!("`<{name}>` names a tree, not a node"),
                        span,
                    )
                    .with_label("no node has this name")
                    .with_help(format!("call the tree as `<SubTree ID=\"{name}\"/>`"))
                    .with_note(
                        "BehaviorTree.CPP looks an element up among its registered nodes \
                             and refuses the file (\"Node not recognized\")",
                    ),
                );
            }
            self.set_aside(m, before);
        }
    }

    /// Trees that call themselves, directly or through other trees: found on the call graph,
    /// so a recursive tree is reported even when nothing instantiates it.
    fn report_recursion(
        &mut self,
        templates: &[Option<Template>],
        modules: &[Module],
        home: &[usize],
    ) {
        fn calls(n: &TNode, out: &mut Vec<(u32, Span)>) {
            if let TKind::SubTree {
                tree, name_span, ..
            } = &n.kind
            {
                out.push((*tree, *name_span));
            }
            for c in &n.children {
                calls(c, out);
            }
        }
        let graph: Vec<Vec<(u32, Span)>> = templates
            .iter()
            .map(|t| {
                let mut out = Vec::new();
                if let Some(root) = t.as_ref().and_then(|t| t.root.as_ref()) {
                    calls(root, &mut out);
                }
                out
            })
            .collect();
        // Depth-first without recursion: a chain of trees calling trees is as long as the
        // file makes it.
        let mut found: Vec<(Span, Vec<usize>)> = Vec::new();
        crate::graph::depth_first(
            &graph,
            |&(callee, _)| callee as usize,
            |&(_, span), cycle| {
                if !found.iter().any(|(s, _)| *s == span) {
                    found.push((span, cycle.to_vec()));
                }
            },
        );
        for (span, cycle) in found {
            let name = self.g.trees[cycle[0]].name.clone();
            let mut d = Diagnostic::error("E0209", format!("tree `{name}` calls itself"), span)
                .with_help("behaviour trees are finite: a tree cannot contain itself, directly or through other trees");
            if cycle.len() == 1 {
                d = d.with_label(format!("`{name}` calls `{name}` here"));
            } else {
                let last = self.g.trees[*cycle.last().expect("not empty")].name.clone();
                let chain: Vec<&str> = cycle
                    .iter()
                    .chain(std::iter::once(&cycle[0]))
                    .map(|&i| self.g.trees[i].name.as_str())
                    .collect();
                d = d
                    .with_label(format!("`{last}` calls `{name}` here"))
                    .with_note(format!("the calls: {}", chain.join(" -> ")));
            }
            // In the file of the tree that makes the call.
            let caller = *cycle.last().expect("not empty");
            let before = self.diags.len();
            self.diags.push(d);
            if let Some(m) = home.get(caller).and_then(|&k| modules.get(k)) {
                self.set_aside(m, before);
            }
        }
    }

    /// The tree BehaviorTree.CPP creates from an XML file none of whose trees is
    /// `main_tree_to_execute`: the one that attribute names in an included file (the import
    /// keeps it as `root:main_tree_to_execute`), else the only tree of the file and its
    /// includes. E0423 where the library refuses ("[main_tree_to_execute] was not specified
    /// correctly"): the name is no tree of the program, or it is absent and there are several.
    fn xml_main_tree(&mut self, main: &File) -> Option<usize> {
        let defined: Vec<usize> = (0..self.g.trees.len())
            .filter(|&i| !self.g.trees[i].signature)
            .collect();
        let named = main
            .items
            .iter()
            .flat_map(|i| &i.attrs)
            .find(|a| a.name.name == MAIN_TREE_ATTR)
            .and_then(|a| a.value.as_ref());
        let Some(value) = named else {
            if defined.len() < 2 {
                return defined.first().copied();
            }
            let here: Vec<Span> = main
                .items
                .iter()
                .filter_map(|i| match &i.kind {
                    ItemKind::Tree(t) if !super::is_signature(i, t) => Some(t.name.span),
                    _ => None,
                })
                .collect();
            // A file without trees of its own (a Groot 2 project of includes) is no program
            // to create a tree from: it runs nothing, and is no mistake.
            let &at = here.get(1).or(here.first())?;
            let trees: Vec<String> = defined
                .iter()
                .map(|&i| format!("`{}`", self.g.trees[i].name))
                .collect();
            self.diags.push(
                Diagnostic::error(
                    "E0423",
                    format!(
                        "{} trees and no `main_tree_to_execute`: which one runs?",
                        defined.len()
                    ),
                    at,
                )
                .with_label("one of them")
                .with_note(format!(
                    "BehaviorTree.CPP refuses to create a tree from the file (\"[main_tree_to_execute] \
                     was not specified correctly\"): the file and its includes define {}",
                    trees.join(", ")
                ))
                .with_help(format!(
                    "name the tree to run: `<root main_tree_to_execute=\"{}\">`",
                    self.g.trees[defined[0]].name
                )),
            );
            return None;
        };
        let crate::syntax::ast::ExprKind::Str(name) = &value.kind else {
            return None;
        };
        if let Some(&i) = defined.iter().find(|&&i| &self.g.trees[i].name == name) {
            return Some(i);
        }
        let names: Vec<&str> = defined
            .iter()
            .map(|&i| self.g.trees[i].name.as_str())
            .collect();
        let mut d = Diagnostic::error(
            "E0423",
            format!("`main_tree_to_execute` names `{name}`, which no file of the program defines"),
            value.span,
        )
        .with_label("no such tree")
        .with_note(
            "BehaviorTree.CPP refuses to create a tree from the file (\"[main_tree_to_execute] \
             was not specified correctly\")",
        );
        if let Some(near) = crate::suggest::closest(name, names.iter().copied()) {
            d = d.with_help(format!("did you mean `{near}`?"));
        }
        self.diags.push(d);
        None
    }

    fn main_tree(&mut self, main: &File) -> Option<usize> {
        let mut marked = main.items.iter().filter_map(|i| match &i.kind {
            ItemKind::Tree(t) if t.is_main => Some(t),
            _ => None,
        });
        let first = marked.next();
        if let Some(second) = marked.next() {
            self.diags.push(
                Diagnostic::error("E0202", "more than one `main tree`", second.name.span)
                    .with_label("a file runs one main tree"),
            );
        }
        let t = match first {
            Some(t) => t,
            None if self.behavior_tree_xml => return self.xml_main_tree(main),
            None => {
                let trees: Vec<_> = main
                    .items
                    .iter()
                    .filter_map(|i| match &i.kind {
                        ItemKind::Tree(t) if !super::is_signature(i, t) => Some(t),
                        _ => None,
                    })
                    .collect();
                if trees.len() != 1 {
                    return None;
                }
                trees[0]
            }
        };
        self.g
            .trees
            .iter()
            .position(|s| s.name == t.name.name && s.span == t.name.span)
    }
}
