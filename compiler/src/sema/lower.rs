//! Lowering checked templates to the tick program: every subtree call becomes its own copy
//! of the tree's nodes with its own slots (ports bound to the caller's variables), numbered
//! in BehaviorTree.CPP's pre-order so uids and paths match it one to one.

use super::frame::ROOT_FLAG;
use super::tree::{TBinding, TKind, TNode, Template};
use super::Checker;
use crate::diagnostic::Diagnostic;
use crate::ir::program::*;
use crate::span::Span;
use std::fmt::Write as _;

struct Builder<'a> {
    c: &'a mut Checker,
    templates: &'a [Option<Template>],
    p: AgentProgram,
    /// Trees being instantiated, to catch a tree that calls itself.
    stack: Vec<u32>,
    /// The root blackboard's names, for `@key`.
    root_names: Vec<(String, SlotId)>,
    /// Where the root blackboard's variables are declared, by slot.
    root_decls: Vec<Span>,
    reported: Vec<Span>,
    /// Trees instantiated, for their pending constructs, in order; `is_used` marks them by
    /// index (a search of `used` per call made n distinct trees cost n²).
    used: Vec<u32>,
    is_used: Vec<bool>,
    /// How deep the node being built is, counting the nodes of the trees it is inlined in.
    depth: usize,
    /// E0118 or E0321 was reported: the program is not built further.
    capped: bool,
    /// The variables declared `any` (slot, declaration), which become lists when given one.
    declared_any: Vec<(SlotId, Span)>,
    /// The program's assignments: where each stores (its index in the program's code) and
    /// where it is written (`Frame::stores` of each tree instance).
    stores: Vec<(usize, Span)>,
    /// Subtree instances' variables without an initial value (slot, declaration), for E0323.
    unset_locals: Vec<(SlotId, Span)>,
}

/// The most nodes one agent's program may have once every tree call is inlined: trees that
/// call trees several times each multiply, and a few lines could otherwise ask for billions.
pub const MAX_NODES: usize = 250_000;

impl Builder<'_> {
    /// Appends a template's code with its frame operands mapped to slots; returns the offset
    /// that the template's code ranges move by.
    fn copy_code(&mut self, t: &Template, map: &[SlotId]) -> u32 {
        let base = self.p.code.len() as u32;
        let stores = t.frame.stores_in(&t.code);
        (self.stores).extend(stores.map(|(i, at)| (base as usize + i, at)));
        // One tree's code at a time: reserved, so a long one (a call of 200,000 arguments)
        // does not leave the program's code up to half empty after a doubling.
        self.p.code.reserve(t.code.len());
        for (i, op) in t.code.iter().enumerate() {
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
                Op::ListSet(s) => {
                    let m = self.slot(t, map, s);
                    self.list_target(t, i, s, m);
                    Op::ListSet(m)
                }
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

    /// E0322 for a list given to a variable that holds something else: a root key
    /// (`@goal = [1, 2]`, its type unknown when the tree was checked) or a port of type
    /// `any` bound to one. An `any` variable becomes a list later (`lower_any.rs`). At the
    /// assignment (the template's op `at`), with the variable's declaration beside it.
    fn list_target(&mut self, t: &Template, at: usize, operand: u32, slot: SlotId) {
        let s = &self.p.slots[slot as usize];
        if s.kind == ValueKind::List || self.declared_any.iter().any(|(d, _)| *d == slot) {
            return;
        }
        // The root key (`@count`) or the port as the tree names it, and what it stands for.
        let (named, declared) = if operand & ROOT_FLAG != 0 {
            let named = t.frame.root_refs[(operand & !ROOT_FLAG) as usize].1;
            let root = self.root_decls.get(slot as usize).copied();
            (
                named,
                root.map(|d| (d, format!("`{}` is declared here", s.name))),
            )
        } else {
            let port = t.frame.vars.get(operand as usize).map(|v| v.span);
            let label = format!("a port bound to `{}`", s.name);
            (port.unwrap_or(Span::DUMMY), port.map(|p| (p, label)))
        };
        if self.reported.contains(&named) {
            return;
        }
        self.reported.push(named);
        // Each tree's assignments are in code order, one per op (`Frame::stored`).
        let stores = &t.frame.stores;
        let assignment = (stores.binary_search_by_key(&at, |&(i, _)| i).ok()).map(|k| stores[k].1);
        let mut d = Diagnostic::error(
            "E0322",
            format!("a list is given to `{}`, which does not hold lists", s.name),
            assignment.unwrap_or(named),
        )
        .with_label(format!("this gives `{}` a list", s.name));
        if let Some((span, label)) = declared.filter(|(d, _)| Some(*d) != assignment) {
            d = d.with_secondary(span, label);
        }
        self.c.diags.push(d);
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
            NodeKind::Sleep { ms } => NodeKind::Sleep { ms: sa(ms) },
            NodeKind::Decorator(mut d) => {
                for x in &mut d.args {
                    *x = match *x {
                        DecoratorArg::Value(a) => DecoratorArg::Value(sa(a)),
                        DecoratorArg::Code(c) => DecoratorArg::Code(sh(c)),
                        DecoratorArg::Slot(s, access) => {
                            DecoratorArg::Slot(self.slot(t, map, s), access)
                        }
                        status => status,
                    };
                }
                NodeKind::Decorator(d)
            }
            NodeKind::WasEntryUpdated { slot } => NodeKind::WasEntryUpdated {
                slot: self.slot(t, map, slot),
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

    fn path(scope_path: &str, part: String) -> String {
        if scope_path.is_empty() {
            part
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
            // `Sequence::12`: written into a string of its final size (`format!` grows one).
            let mut own = String::with_capacity(n.id.len() + 12);
            let _ = write!(own, "{}::{uid}", n.id);
            own
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
                (nm, Self::path(scope_path, part))
            }
            _ => (name, Self::path(scope_path, own)),
        };
        self.p.nodes.push(Node {
            kind,
            children: (0, 0),
            conditions,
            id: n.id.clone(),
            name: node_name,
            path: node_path,
        });
        let mut kids = Vec::with_capacity(n.children.len());
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
                autoremap,
            } => {
                let node_path = self.p.nodes[id as usize].path.clone();
                if let Some((child, inputs)) = self.subtree(
                    *tree,
                    bindings,
                    *name_span,
                    Caller {
                        t,
                        map,
                        base,
                        autoremap: *autoremap,
                    },
                    &node_path,
                ) {
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

    fn subtree(
        &mut self,
        tree: u32,
        bindings: &[TBinding],
        span: Span,
        caller: Caller<'_>,
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
                .chain(self.c.module_diags.iter().map(|(_, x)| x))
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
                // An `any` port given a list is a list variable of the list's type.
                let (binding, listed) = match bindings.get(i) {
                    Some(TBinding::List(b, ty)) => (Some(b.as_ref()), Some(ty)),
                    b => (b, None),
                };
                let typed;
                let v = match listed {
                    Some(ty) => {
                        typed = super::frame::FrameVar {
                            ty: ty.clone(),
                            ..v.clone()
                        };
                        &typed
                    }
                    None => v,
                };
                match binding {
                    Some(TBinding::Var(op)) => Some(self.slot(caller.t, caller.map, *op)),
                    Some(TBinding::Const(c)) => {
                        map.push(self.new_slot(v, *c, scope, path));
                        continue;
                    }
                    Some(TBinding::Expr(code)) => {
                        let s = self.new_slot(v, v.init, scope, path);
                        inputs.push((s, Self::shift(*code, caller.base)));
                        map.push(s);
                        continue;
                    }
                    _ => None,
                }
            } else if caller.autoremap
                && matches!(
                    v.kind,
                    super::frame::VarKind::Var | super::frame::VarKind::Local
                )
                && !v.name.starts_with('_')
            {
                // BehaviorTree.CPP's autoremapped blackboard finds an entry it lacks in its
                // parent's (and creates one there): the tree's entry is the caller's.
                caller
                    .t
                    .frame
                    .get(&v.name)
                    .map(|op| self.slot(caller.t, caller.map, op))
            } else {
                None
            };
            match bound {
                Some(s) => map.push(s),
                None => map.push(self.new_slot(v, v.init, scope, path)),
            }
        }
        let base = self.copy_code(callee, &map);
        if !self.is_used[tree as usize] {
            self.is_used[tree as usize] = true;
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
        if v.ty == super::ty::Ty::Any
            && matches!(
                v.kind,
                super::frame::VarKind::Var | super::frame::VarKind::Local
            )
        {
            self.declared_any
                .push((self.p.slots.len() as SlotId, v.span));
        }
        if v.kind == super::frame::VarKind::Local && crate::ir::program::is_unset(init) {
            self.unset_locals
                .push((self.p.slots.len() as SlotId, v.span));
        }
        self.p.slots.push(Slot {
            name: Self::path(path, v.name.clone()),
            role: role_of(v),
            kind: v.ty.value_kind(),
            init,
            range: v.range,
            visible: v.kind != super::frame::VarKind::Temp,
            scope,
            elems: v.ty.element_kinds(),
            any: v.ty == super::ty::Ty::Any,
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
        VarKind::Port(dir) => Role::Port(dir.into()),
        VarKind::Local => Role::Local,
        VarKind::Drive => Role::Drive,
        VarKind::Intention => Role::Intention,
        VarKind::Machine => Role::Emotion,
        VarKind::Intensity => Role::Intensity,
        VarKind::Temp => Role::Temp,
        VarKind::Component => Role::Component,
    }
}

/// What an agent brings to lowering besides its checked tree: its name and rate, the code
/// of its per-tick update, its devices and its drives (a main tree has none of these).
pub(super) struct AgentHead<'n> {
    pub name: &'n str,
    pub rate_hz: f64,
    pub process: Code,
    pub devices: Vec<Device>,
    pub drives: Vec<DriveInfo>,
}

/// The tree that calls a subtree, as the lowering sees it: its template, where its slots
/// went and where its code starts.
struct Caller<'a> {
    t: &'a Template,
    map: &'a [SlotId],
    base: u32,
    /// The call remaps every entry by name (BehaviorTree.CPP's `_autoremap`).
    autoremap: bool,
}

impl Checker {
    pub(super) fn build_agent(
        &mut self,
        head: AgentHead<'_>,
        t: &Template,
        templates: &[Option<Template>],
    ) -> AgentProgram {
        let AgentHead {
            name,
            rate_hz,
            process,
            devices,
            drives,
        } = head;
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
        let mut root_decls = Vec::new();
        let mut declared_any = Vec::new();
        for v in &t.frame.vars {
            if v.ty == super::ty::Ty::Any
                && matches!(
                    v.kind,
                    super::frame::VarKind::Var | super::frame::VarKind::Local
                )
            {
                declared_any.push((p.slots.len() as SlotId, v.span));
            }
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
                any: v.ty == super::ty::Ty::Any,
            });
            let s = p.slots.len() as SlotId - 1;
            map.push(s);
            root_names.push((v.name.clone(), s));
            root_decls.push(v.span);
        }
        let mut b = Builder {
            c: self,
            templates,
            p,
            stack: Vec::new(),
            root_names,
            root_decls,
            reported: Vec::new(),
            used: Vec::new(),
            is_used: vec![false; templates.len()],
            depth: 0,
            capped: false,
            declared_any,
            stores: Vec::new(),
            unset_locals: Vec::new(),
        };
        let base = b.copy_code(t, &map);
        b.p.process = Builder::shift(process, base);
        if let Some(root) = &t.root {
            // A main tree instantiated as the root is on the stack too (it may not call itself).
            if let Some(i) = b.c.g.trees.iter().position(|s| s.name == name) {
                b.stack.push(i as u32);
            }
            // Room for the tree's own nodes (called trees add theirs): the node list of a
            // large tree grew by doubling, copying its nodes and touching twice the memory.
            let own = tree_size(root);
            b.p.nodes.reserve(own);
            b.p.children.reserve(own);
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
        super::lower_any::lists_in_any(&mut b.p, &b.declared_any, &b.stores, &mut b.c.diags);
        check_unset_reads(&mut b.p);
        if !b.c.behavior_tree_xml {
            super::never_written::report(&b.p, &b.unset_locals, &mut b.c.diags);
        }
        b.p
    }
}

/// Reads of the slots that can be unset (a `var` without an initial value, a variable
/// `unset_blackboard` removes, a subtree port given one of those) become checked reads;
/// every other read stays a plain load, so a program whose variables all have values pays
/// nothing for the check.
fn check_unset_reads(p: &mut AgentProgram) {
    // (A list variable's `init` names its initial list, or is `UNSET` when it was declared
    // without one, or is an `any` variable that became a list: no value until written.)
    let mut maybe: Vec<bool> = (p.slots.iter())
        .map(|s| crate::ir::program::is_unset(s.init))
        .collect();
    for w in p.code.windows(2) {
        if let [Op::Const(v), Op::Store(s) | Op::ListSet(s)] = w {
            if crate::ir::program::is_unset(*v) {
                if let Some(m) = maybe.get_mut(*s as usize) {
                    *m = true;
                }
            }
        }
    }
    // Where BehaviorTree.CPP's `getInput` fails without throwing, or passes the entry on
    // without reading it, the read is plain: a Switch takes its default branch (`UNSET`
    // matches no case), a custom node's input port gives the node no value (NaN) to deal
    // with, and a subtree's input port receives "no value" (its slot can then be unset).
    let mut plain = vec![false; p.code.len()];
    let mut mark = |c: &Code| {
        let (a, b) = (c.start as usize, (c.start + c.len) as usize);
        if let Some(r) = plain.get_mut(a..b) {
            r.fill(true);
        }
    };
    for n in &p.nodes {
        match &n.kind {
            NodeKind::Switch { subject, .. } => mark(subject),
            NodeKind::Foreign { ports, .. } => {
                for port in ports {
                    if let PortBinding::In(Arg::Expr(c)) = port {
                        mark(c);
                    }
                }
            }
            NodeKind::SubTree { inputs } => inputs.iter().for_each(|(_, c)| mark(c)),
            _ => {}
        }
    }
    // A subtree port given a variable that can be unset can be unset (to a fixpoint: ports
    // pass on to the ports of the subtrees they call).
    let reads_maybe = |c: &Code, maybe: &[bool]| {
        let ops = p.code.get(c.start as usize..(c.start + c.len) as usize);
        ops.unwrap_or_default()
            .iter()
            .any(|op| matches!(op, Op::Load(s) if maybe.get(*s as usize) == Some(&true)))
    };
    let mut changed = true;
    while changed {
        changed = false;
        for n in &p.nodes {
            let NodeKind::SubTree { inputs } = &n.kind else {
                continue;
            };
            for (slot, c) in inputs {
                let s = *slot as usize;
                if maybe.get(s) == Some(&false) && reads_maybe(c, &maybe) {
                    maybe[s] = true;
                    changed = true;
                }
            }
        }
    }
    for (op, plain) in p.code.iter_mut().zip(plain) {
        if let Op::Load(s) = *op {
            if !plain && maybe.get(s as usize) == Some(&true) {
                *op = Op::LoadChecked(s);
            }
        }
    }
    set_blackboard_fails_when_unset(p, &maybe);
}

/// `SetBlackboard value="{src}"` whose `src` holds no value FAILS in BehaviorTree.CPP (it
/// does not throw): such a copy becomes a condition that copies and succeeds when the source
/// holds a value (it equals itself: a NaN counts as none), else fails without writing.
fn set_blackboard_fails_when_unset(p: &mut AgentProgram, maybe: &[bool]) {
    for i in 0..p.nodes.len() {
        let NodeKind::Script { code } = p.nodes[i].kind else {
            continue;
        };
        if p.nodes[i].id != "SetBlackboard" || code.len != 2 {
            continue;
        }
        let at = code.start as usize;
        let (Op::LoadChecked(src), store @ (Op::Store(_) | Op::StoreClamped(..))) =
            (p.code[at], p.code[at + 1])
        else {
            continue;
        };
        if maybe.get(src as usize) != Some(&true) {
            continue;
        }
        let start = p.code.len() as u32;
        p.code.extend([
            Op::Load(src),
            Op::Load(src),
            Op::Eq,
            Op::JumpIfFalseKeep(4),
            Op::Pop,
            Op::Load(src),
            store,
            Op::Const(1.0),
        ]);
        p.nodes[i].kind = NodeKind::ScriptCondition {
            cond: Code {
                start,
                len: p.code.len() as u32 - start,
            },
        };
    }
}

/// How many nodes a template tree has, not counting the trees it calls (iterative: the tree
/// is as deep as the input).
fn tree_size(root: &TNode) -> usize {
    let mut count = 0;
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        count += 1;
        stack.extend(&n.children);
    }
    count
}
