//! Lowering checked templates to the tick program: every subtree call becomes its own copy
//! of the tree's nodes with its own slots (ports bound to the caller's variables), numbered
//! in BehaviorTree.CPP's pre-order so uids and paths match it one to one.

use super::frame::ROOT_FLAG;
use super::modules::Module;
use super::tree::{TBinding, TKind, TNode, Template, TreeCx};
use super::Checker;
use crate::builtins::NodeClass;
use crate::diagnostic::Diagnostic;
use crate::ir::program::*;
use crate::span::Span;
use crate::syntax::ast::{File, ItemKind, LeafKind};

struct Builder<'a> {
    c: &'a mut Checker,
    templates: &'a [Option<Template>],
    p: AgentProgram,
    /// Trees being instantiated, to catch a tree that calls itself.
    stack: Vec<u32>,
    /// The root blackboard's names, for `@key`.
    root_names: Vec<(String, SlotId)>,
    reported: Vec<Span>,
    /// Trees instantiated, for their pending constructs.
    used: Vec<u32>,
    /// How deep the node being built is, counting the nodes of the trees it is inlined in.
    depth: usize,
    /// E0118 or E0321 was reported: the program is not built further.
    capped: bool,
}

/// The most nodes one agent's program may have once every tree call is inlined: trees that
/// call trees several times each multiply, and a few lines could otherwise ask for billions.
pub const MAX_NODES: usize = 250_000;

impl Builder<'_> {
    /// Appends a template's code with its frame operands mapped to slots; returns the offset
    /// that the template's code ranges move by.
    fn copy_code(&mut self, t: &Template, map: &[SlotId]) -> u32 {
        let base = self.p.code.len() as u32;
        for op in &t.code {
            let mapped = match *op {
                Op::Load(s) => Op::Load(self.slot(t, map, s)),
                Op::Store(s) => {
                    // A list slot owns its list: storing into it copies the elements, so no
                    // two variables (nor a variable and a literal) ever share one.
                    let s = self.slot(t, map, s);
                    match self.p.slots.get(s as usize) {
                        Some(x) if x.kind == ValueKind::List => Op::ListSet(s),
                        _ => Op::Store(s),
                    }
                }
                Op::StoreClamped(s, lo, hi) => Op::StoreClamped(self.slot(t, map, s), lo, hi),
                Op::ListBuild(s, n) => Op::ListBuild(self.slot(t, map, s), n),
                Op::ListSet(s) => Op::ListSet(self.slot(t, map, s)),
                Op::ListSetAt(s) => Op::ListSetAt(self.slot(t, map, s)),
                // `xs.push(v)` names its list's slot, which is a frame operand too.
                Op::Host(crate::ir::functions::HostFn::ListPush, s, n) => Op::Host(
                    crate::ir::functions::HostFn::ListPush,
                    self.slot(t, map, s),
                    n,
                ),
                other => other,
            };
            self.p.code.push(mapped);
        }
        base
    }

    fn slot(&mut self, t: &Template, map: &[SlotId], operand: u32) -> SlotId {
        if operand & ROOT_FLAG == 0 {
            // A reference left by an error already reported points nowhere useful; the
            // program is discarded, so any slot will do.
            return map.get(operand as usize).copied().unwrap_or(0);
        }
        let (name, span) = &t.frame.root_refs[(operand & !ROOT_FLAG) as usize];
        match self.root_names.iter().find(|(n, _)| n == name) {
            Some((_, s)) => *s,
            None => {
                if !self.reported.contains(span) {
                    self.reported.push(*span);
                    let names: Vec<&str> =
                        self.root_names.iter().map(|(n, _)| n.as_str()).collect();
                    let mut d = Diagnostic::error(
                        "E0201",
                        format!("the root blackboard has no `{name}`"),
                        *span,
                    )
                    .with_label("`@` names a variable of the agent or main tree");
                    if let Some(b) = crate::suggest::closest(name, names.iter().copied()) {
                        d = d.with_help(format!("did you mean `@{b}`?"));
                    }
                    self.c.diags.push(d);
                }
                0
            }
        }
    }

    fn shift(code: Code, base: u32) -> Code {
        if code.len == 0 && code.start == 0 {
            return code;
        }
        Code {
            start: code.start + base,
            len: code.len,
        }
    }

    fn shift_arg(a: Arg, base: u32) -> Arg {
        match a {
            Arg::Expr(c) => Arg::Expr(Self::shift(c, base)),
            other => other,
        }
    }

    fn relocate(&mut self, kind: &NodeKind, t: &Template, map: &[SlotId], base: u32) -> NodeKind {
        let sh = |c: Code| Self::shift(c, base);
        let sa = |a: Arg| Self::shift_arg(a, base);
        match kind.clone() {
            NodeKind::Parallel { success, failure } => NodeKind::Parallel {
                success: sa(success),
                failure: sa(failure),
            },
            NodeKind::ParallelAll { max_failures } => NodeKind::ParallelAll {
                max_failures: sa(max_failures),
            },
            NodeKind::Switch {
                subject,
                subject_kind,
                cases,
            } => NodeKind::Switch {
                subject: sh(subject),
                subject_kind,
                cases,
            },
            NodeKind::Repeat { cycles } => NodeKind::Repeat { cycles: sa(cycles) },
            NodeKind::Retry { attempts } => NodeKind::Retry {
                attempts: sa(attempts),
            },
            NodeKind::Timeout { ms } => NodeKind::Timeout { ms: sa(ms) },
            NodeKind::Delay { ms } => NodeKind::Delay { ms: sa(ms) },
            NodeKind::Sleep { ms } => NodeKind::Sleep { ms: sa(ms) },
            NodeKind::Precondition { cond, otherwise } => NodeKind::Precondition {
                cond: sh(cond),
                otherwise,
            },
            NodeKind::EntryUpdated {
                slot,
                if_not_updated,
            } => NodeKind::EntryUpdated {
                slot: self.slot(t, map, slot),
                if_not_updated,
            },
            NodeKind::WasEntryUpdated { slot } => NodeKind::WasEntryUpdated {
                slot: self.slot(t, map, slot),
            },
            NodeKind::Loop {
                queue,
                value,
                if_empty,
            } => NodeKind::Loop {
                queue: self.slot(t, map, queue),
                value: self.slot(t, map, value),
                if_empty,
            },
            NodeKind::Script { code } => NodeKind::Script { code: sh(code) },
            NodeKind::ScriptCondition { cond } => NodeKind::ScriptCondition { cond: sh(cond) },
            NodeKind::Foreign { leaf, ports } => NodeKind::Foreign {
                leaf,
                ports: ports
                    .into_iter()
                    .map(|b| match b {
                        PortBinding::In(a) => PortBinding::In(sa(a)),
                        PortBinding::Slot(s) => PortBinding::Slot(self.slot(t, map, s)),
                        PortBinding::Absent => PortBinding::Absent,
                    })
                    .collect(),
            },
            other => other,
        }
    }

    fn conditions(c: &Conditions, base: u32) -> Conditions {
        let sh = |x: Option<Code>| x.map(|c| Self::shift(c, base));
        Conditions {
            failure_if: sh(c.failure_if),
            success_if: sh(c.success_if),
            skip_if: sh(c.skip_if),
            while_: sh(c.while_),
            on_success: sh(c.on_success),
            on_failure: sh(c.on_failure),
            post: sh(c.post),
            on_halted: sh(c.on_halted),
        }
    }

    fn path(scope_path: &str, part: &str) -> String {
        if scope_path.is_empty() {
            part.to_string()
        } else {
            format!("{scope_path}/{part}")
        }
    }

    /// Instantiates a template node (and its subtree calls) in pre-order; returns its id.
    fn node(
        &mut self,
        n: &TNode,
        t: &Template,
        map: &[SlotId],
        base: u32,
        scope_path: &str,
    ) -> NodeId {
        self.depth += 1;
        let id = self.node_inner(n, t, map, base, scope_path);
        self.depth -= 1;
        id
    }

    fn node_inner(
        &mut self,
        n: &TNode,
        t: &Template,
        map: &[SlotId],
        base: u32,
        scope_path: &str,
    ) -> NodeId {
        let id = self.p.nodes.len() as NodeId;
        let uid = id + 1;
        let name = n.label.clone().unwrap_or_else(|| n.id.clone());
        let own = if name == n.id {
            format!("{}::{uid}", n.id)
        } else {
            name.clone()
        };
        let conditions = if n.conds.is_empty() {
            None
        } else {
            self.p.conditions.push(Self::conditions(&n.conds, base));
            Some(self.p.conditions.len() as u32 - 1)
        };
        let stand_in = match &n.kind {
            TKind::SubTree { tree, .. } => self.c.signature_leaves.get(tree).copied(),
            TKind::Node(_) => None,
        };
        let kind = match (&n.kind, stand_in) {
            (TKind::SubTree { tree, .. }, Some(leaf)) => NodeKind::Foreign {
                leaf,
                ports: vec![PortBinding::Absent; self.c.g.trees[*tree as usize].ports.len()],
            },
            (TKind::Node(k), _) => self.relocate(k, t, map, base),
            // Inputs are filled in once the instance's slots exist.
            (TKind::SubTree { .. }, None) => NodeKind::SubTree { inputs: Vec::new() },
        };
        // The SubTree node's own name is the tree's ID when it has no label.
        let (node_name, node_path) = match &n.kind {
            TKind::SubTree { tree, .. } => {
                let tree_name = self.c.g.trees[*tree as usize].name.clone();
                let nm = n.label.clone().unwrap_or(tree_name.clone());
                let part = if nm == tree_name {
                    format!("{tree_name}::{uid}")
                } else {
                    nm.clone()
                };
                (nm, Self::path(scope_path, &part))
            }
            _ => (name, Self::path(scope_path, &own)),
        };
        self.p.nodes.push(Node {
            kind,
            children: (0, 0),
            conditions,
            id: n.id.clone(),
            name: node_name,
            path: node_path.clone(),
        });
        let mut kids = Vec::new();
        match &n.kind {
            TKind::Node(_) => {
                for c in &n.children {
                    kids.push(self.node(c, t, map, base, scope_path));
                }
            }
            TKind::SubTree { .. } if stand_in.is_some() => {}
            TKind::SubTree {
                tree,
                bindings,
                name_span,
            } => {
                if let Some((child, inputs)) =
                    self.subtree(*tree, bindings, *name_span, t, map, base, &node_path)
                {
                    kids.push(child);
                    self.p.nodes[id as usize].kind = NodeKind::SubTree { inputs };
                }
            }
        }
        let start = self.p.children.len() as u32;
        self.p.children.extend(&kids);
        self.p.nodes[id as usize].children = (start, kids.len() as u32);
        id
    }

    #[allow(clippy::too_many_arguments)]
    fn subtree(
        &mut self,
        tree: u32,
        bindings: &[TBinding],
        span: Span,
        caller: &Template,
        caller_map: &[SlotId],
        caller_base: u32,
        path: &str,
    ) -> Option<(NodeId, Vec<(SlotId, Code)>)> {
        if self.stack.contains(&tree) {
            let name = self.c.g.trees[tree as usize].name.clone();
            let d = Diagnostic::error("E0209", format!("tree `{name}` calls itself"), span)
                .with_label("this call is reached from inside `".to_string() + &name + "`")
                .with_help("behaviour trees are finite: a tree cannot contain itself, directly or through other trees");
            // Usually found (with the whole cycle) before lowering, by `report_recursion`.
            let known = self
                .c
                .diags
                .iter()
                .any(|x| x.code == "E0209" && x.primary.span == span);
            if !known && !self.reported.contains(&span) {
                self.reported.push(span);
                self.c.diags.push(d);
            }
            return None;
        }
        if let Some(d) = self.too_large(tree, span) {
            // Once per agent: every later call would say the same.
            if !self.capped {
                self.capped = true;
                self.c.diags.push(d);
            }
            return None;
        }
        let callee = self.templates.get(tree as usize)?.as_ref()?;
        let root = callee.root.as_ref()?;
        let scope = self.p.scopes.len() as u32 + 1;
        let tree_name = self.c.g.trees[tree as usize].name.clone();
        self.p.scopes.push(Scope {
            path: path.to_string(),
            tree: tree_name,
        });
        let mut map = Vec::with_capacity(callee.frame.vars.len());
        let mut inputs = Vec::new();
        let nports = self.c.g.trees[tree as usize].ports.len();
        for (i, v) in callee.frame.vars.iter().enumerate() {
            let bound = if i < nports {
                match bindings.get(i) {
                    Some(TBinding::Var(op)) => Some(self.slot(caller, caller_map, *op)),
                    Some(TBinding::Const(c)) => {
                        map.push(self.new_slot(v, *c, scope, path));
                        continue;
                    }
                    Some(TBinding::Expr(code)) => {
                        let s = self.new_slot(v, v.init, scope, path);
                        inputs.push((s, Self::shift(*code, caller_base)));
                        map.push(s);
                        continue;
                    }
                    _ => None,
                }
            } else {
                None
            };
            match bound {
                Some(s) => map.push(s),
                None => map.push(self.new_slot(v, v.init, scope, path)),
            }
        }
        let base = self.copy_code(callee, &map);
        if !self.used.contains(&tree) {
            self.used.push(tree);
        }
        self.stack.push(tree);
        let id = self.node(root, callee, &map, base, path);
        self.stack.pop();
        Some((id, inputs))
    }

    /// E0118 when inlining `tree` here would nest the program deeper than the syntax allows
    /// any file to (every later phase walks it recursively); E0321 when the program already
    /// has `MAX_NODES` nodes.
    fn too_large(&self, tree: u32, span: Span) -> Option<Diagnostic> {
        let name = &self.c.g.trees[tree as usize].name;
        let max = crate::syntax::depth::MAX_DEPTH;
        if self.depth > max {
            return Some(
                Diagnostic::error("E0118", format!("nested deeper than {max} levels"), span)
                    .with_label(format!(
                        "with the trees it is called from, `{name}` would start {} nodes deep",
                        self.depth
                    ))
                    .with_help("trees calling trees are inlined: make the chain of calls shorter"),
            );
        }
        if self.p.nodes.len() >= MAX_NODES {
            return Some(
                Diagnostic::error(
                    "E0321",
                    format!("more than {MAX_NODES} nodes once every tree call is inlined"),
                    span,
                )
                .with_label(format!("this call of `{name}` is where the limit was reached"))
                .with_note("each call of a tree is a copy of it: trees that call other trees several times multiply")
                .with_help("call fewer trees from trees that are themselves called many times"),
            );
        }
        None
    }

    fn new_slot(
        &mut self,
        v: &super::frame::FrameVar,
        init: f64,
        scope: u32,
        path: &str,
    ) -> SlotId {
        self.p.slots.push(Slot {
            name: Self::path(path, &v.name),
            role: role_of(v),
            kind: v.ty.value_kind(),
            init,
            range: v.range,
            visible: v.kind != super::frame::VarKind::Temp,
            scope,
            elems: v.ty.element_kinds(),
        });
        self.p.slots.len() as SlotId - 1
    }
}

/// What a frame variable's slot is, for the tick program's readers.
fn role_of(v: &super::frame::FrameVar) -> Role {
    use super::frame::VarKind;
    match v.kind {
        // A memory is held as a `let` whose value is the memory's index.
        VarKind::Let if v.ty == super::ty::Ty::Memory => Role::Memory,
        VarKind::Var => Role::Var,
        VarKind::Let => Role::Let,
        VarKind::Sensor => Role::Sensor,
        VarKind::Event => Role::Event,
        VarKind::Hormone => Role::Hormone,
        VarKind::Port(dir) => Role::Port(dir),
        VarKind::Local => Role::Local,
        VarKind::Drive => Role::Drive,
        VarKind::Intention => Role::Intention,
        VarKind::Machine => Role::Emotion,
        VarKind::Intensity => Role::Intensity,
        VarKind::Temp => Role::Temp,
        VarKind::Component => Role::Component,
    }
}

impl Checker {
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
            let before = self.diags.len();
            self.check_akr_records(&m.file);
            self.set_aside(m, before);
        }
        // Templates, in the order trees were declared.
        let mut templates: Vec<Option<Template>> = vec![None; self.g.trees.len()];
        for m in modules {
            let before = self.diags.len();
            for item in &m.file.items {
                let ItemKind::Tree(t) = &item.kind else {
                    continue;
                };
                let Some(i) = self.g.tree_declared_at(&t.name.name, t.name.span) else {
                    continue;
                };
                let ports = self.g.trees[i].ports.clone();
                let frame = super::tree::tree_frame(self, t, &ports);
                let mut tpl = Template {
                    frame,
                    ..Template::default()
                };
                if self.g.trees[i].signature {
                    // No body: its calls run a stand-in (below).
                    templates[i] = Some(tpl);
                    continue;
                }
                let owner = format!("tree `{}`", t.name.name);
                tpl.root = TreeCx::tree(self, &mut tpl).one_root(&t.body, &owner);
                for v in &tpl.frame.vars {
                    if v.kind == super::frame::VarKind::Local && !v.used {
                        self.report(super::error::SemaError::Unused {
                            name: v.name.clone(),
                            span: v.span,
                            help: "remove it, or use it in the tree",
                        });
                    }
                }
                templates[i] = Some(tpl);
            }
            self.set_aside(m, before);
        }
        self.report_recursion(&templates);
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

        let mut agents: Vec<(String, AgentProgram)> = Vec::new();
        for item in &main.items {
            let ItemKind::Agent(a) = &item.kind else {
                continue;
            };
            let Some(members) = &a.members else { continue };
            let checked = self.check_agent(a, members);
            let mut prog = self.build_agent(
                &checked.name,
                checked.rate_hz,
                &checked.template,
                checked.process,
                &templates,
                checked.devices,
                checked.drives,
            );
            prog.memories = checked.memories;
            prog.machines = checked.machines;
            // The agent's own code starts the program's, so code ranges and frame slots carry
            // over unchanged (as `process` does).
            prog.recruitments = checked.recruitments;
            prog.components = checked.components;
            agents.push((checked.name, prog));
        }
        // Clones: `agent Vonda = Leguin;`
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
        // The order the file wrote them in.
        let order: Vec<String> = main
            .items
            .iter()
            .filter_map(|i| match &i.kind {
                ItemKind::Agent(a) => Some(a.name.name.clone()),
                _ => None,
            })
            .collect();
        for name in order {
            if let Some(pos) = agents.iter().position(|(n, _)| *n == name) {
                program.agents.push(agents.remove(pos).1);
            }
        }

        if program.agents.is_empty() {
            if let Some(i) = self.main_tree(main) {
                let sig = self.g.trees[i].clone();
                self.used_globals.insert(sig.name.clone());
                if let Some(t) = templates[i].clone() {
                    // The main tree's own blackboard is the root one.
                    program.agents.push(self.build_agent(
                        &sig.name,
                        10.0,
                        &t,
                        Code::default(),
                        &templates,
                        vec![],
                        vec![],
                    ));
                    program.main_tree = Some(sig.name);
                }
            }
        }
        let (worlds, world_diags) = crate::ir::world::lower_worlds(main);
        self.diags.extend(world_diags);
        // Grid labels are strings the program may compare with: give each a symbol.
        for w in &worlds {
            if let Some(g) = w.grid() {
                for c in g.labels.iter().flatten() {
                    self.strings.intern(&c.to_string());
                }
            }
        }
        // So are robots' names (`SendCommand(robot: refiller, ..)` after `--bb refiller=Vonda`):
        // every agent's, and every instance name a world makes (`UGV#2`).
        for a in &program.agents {
            self.strings.intern(&a.name);
        }
        for w in &worlds {
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
                        name: p.name.clone(),
                        dir: p.dir,
                        kind: Some(p.ty.value_kind()),
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

    /// Trees that call themselves, directly or through other trees: found on the call graph,
    /// so a recursive tree is reported even when nothing instantiates it.
    fn report_recursion(&mut self, templates: &[Option<Template>]) {
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
            self.diags.push(d);
        }
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
        self.g.tree_declared_at(&t.name.name, t.name.span)
    }

    #[allow(clippy::too_many_arguments)]
    fn build_agent(
        &mut self,
        name: &str,
        rate_hz: f64,
        t: &Template,
        process: Code,
        templates: &[Option<Template>],
        devices: Vec<Device>,
        drives: Vec<DriveInfo>,
    ) -> AgentProgram {
        let mut p = AgentProgram {
            name: name.to_string(),
            rate_hz,
            devices,
            drives,
            pending: t.pending.clone(),
            ..AgentProgram::default()
        };
        let mut map = Vec::new();
        let mut root_names = Vec::new();
        for v in &t.frame.vars {
            p.slots.push(Slot {
                name: v.name.clone(),
                role: role_of(v),
                kind: v.ty.value_kind(),
                init: v.init,
                range: v.range,
                // A component is not a value: the runtime answers `failed(c)` about it.
                visible: !matches!(
                    v.kind,
                    super::frame::VarKind::Temp | super::frame::VarKind::Component
                ),
                scope: 0,
                elems: v.ty.element_kinds(),
            });
            let s = p.slots.len() as SlotId - 1;
            map.push(s);
            root_names.push((v.name.clone(), s));
        }
        let mut b = Builder {
            c: self,
            templates,
            p,
            stack: Vec::new(),
            root_names,
            reported: Vec::new(),
            used: Vec::new(),
            depth: 0,
            capped: false,
        };
        let base = b.copy_code(t, &map);
        b.p.process = Builder::shift(process, base);
        if let Some(root) = &t.root {
            // A main tree instantiated as the root is on the stack too (it may not call itself).
            if let Some(i) = b.c.g.trees.iter().position(|s| s.name == name) {
                b.stack.push(i as u32);
            }
            let r = b.node(root, t, &map, base, "");
            b.p.root = Some(r);
        }
        // The trees behaviour modules run: each a root of its own, after `main`'s nodes.
        for n in &t.roots {
            let r = b.node(n, t, &map, base, "");
            let end = b.p.nodes.len() as NodeId;
            b.p.roots.push(TreeRoot { root: r, end });
        }
        if let Some(arbiter) = &t.behaviors {
            let mut arbiter = arbiter.clone();
            for m in &mut arbiter.modules {
                m.motivation = Builder::shift_arg(m.motivation, base);
                m.satisfaction = Builder::shift_arg(m.satisfaction, base);
                m.expected = Builder::shift_arg(m.expected, base);
            }
            b.p.behaviors = Some(arbiter);
        }
        // Pending constructs of every instantiated tree.
        let mut pending = b.p.pending.clone();
        for tpl in b
            .used
            .iter()
            .filter_map(|&i| templates[i as usize].as_ref())
        {
            for item in &tpl.pending {
                if !pending.contains(item) {
                    pending.push(item.clone());
                }
            }
        }
        b.p.pending = pending;
        b.p
    }
}
