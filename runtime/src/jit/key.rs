//! What of a program the code cache's key covers: exactly the parts the JIT reads when it
//! generates an agent's code, in a canonical binary form (lengths before sequences, numbers
//! little-endian, floats by their bits, variants by fixed tags).
//!
//! The JIT reads the node table (each node's kind, children and conditions), the children
//! and conditions tables, the expression code, the roots, the process phase, of each slot
//! only whether it holds a list and whether it starts with no value, and of each declared
//! leaf only its class. Nothing else reaches the code: source spans, names and paths (traces
//! and messages look them up in the running program), slot ranges (a clamped store carries
//! its range in its instruction), devices, memories, drives, machines, recruitment,
//! components and the behaviour arbiter (the runtime serves those through host calls and
//! root ticks) stay out of the key, so a program re-formatted, commented or renamed loads
//! the code it stored before. Every struct the key reads is destructured without `..` and
//! every enum matched without a wildcard: a new field or variant does not compile until it
//! is placed on one side or the other. The tests check the omitted side: changing all of it
//! leaves the key and the generated code as they were.

use affect_compiler::builtins::NodeClass;
use affect_compiler::ir::program::{
    is_unset, AgentProgram, Arg, CaseValue, Code, Conditions, DecoratorArg, LeafInfo, Node,
    NodeKind, Op, PortBinding, Program, Slot, Status, TreeRoot, ValueKind,
};
use sha2::{Digest, Sha256};

/// Feeds an agent's code-deciding parts, and the classes of the program's leaves, into `h`.
pub(crate) fn feed(h: &mut Sha256, program: &Program, agent: &AgentProgram) {
    let Program {
        agents: _,
        enums: _,
        leaves,
        worlds: _,
        strings: _,
        lists: _,
        main_tree: _,
        components: _,
    } = program;
    let mut e = Enc(h);
    e.agent(agent);
    e.len(leaves.len());
    for l in leaves {
        e.leaf(l);
    }
}

struct Enc<'h>(&'h mut Sha256);

impl Enc<'_> {
    fn u8(&mut self, x: u8) {
        self.0.update([x]);
    }
    fn u32(&mut self, x: u32) {
        self.0.update(x.to_le_bytes());
    }
    fn len(&mut self, n: usize) {
        self.0.update((n as u64).to_le_bytes());
    }
    fn f64(&mut self, x: f64) {
        // The bits: `UNSET` and other NaNs differ, and so do 0.0 and -0.0.
        self.0.update(x.to_bits().to_le_bytes());
    }
    fn bool(&mut self, b: bool) {
        self.u8(u8::from(b));
    }
    fn code(&mut self, c: Code) {
        self.u32(c.start);
        self.u32(c.len);
    }
    fn opt_code(&mut self, c: Option<Code>) {
        match c {
            None => self.u8(0),
            Some(c) => {
                self.u8(1);
                self.code(c);
            }
        }
    }
    fn arg(&mut self, a: Arg) {
        match a {
            Arg::Const(x) => {
                self.u8(0);
                self.f64(x);
            }
            Arg::Expr(c) => {
                self.u8(1);
                self.code(c);
            }
        }
    }
    fn status(&mut self, s: Status) {
        self.u8(s as u8);
    }

    fn agent(&mut self, a: &AgentProgram) {
        let AgentProgram {
            name: _,
            rate_hz: _,
            slots,
            scopes: _,
            nodes,
            children,
            conditions,
            code,
            root,
            process,
            devices: _,
            drives: _,
            machines: _,
            memories: _,
            pending: _,
            recruitments: _,
            components: _,
            roots,
            behaviors: _,
        } = a;
        self.len(slots.len());
        for s in slots {
            self.slot(s);
        }
        self.len(nodes.len());
        for n in nodes {
            self.node(n);
        }
        self.len(children.len());
        for &c in children {
            self.u32(c);
        }
        self.len(conditions.len());
        for c in conditions {
            self.conditions(c);
        }
        self.len(code.len());
        for op in code {
            self.op(op);
        }
        match root {
            None => self.u8(0),
            Some(r) => {
                self.u8(1);
                self.u32(*r);
            }
        }
        self.code(*process);
        self.len(roots.len());
        for TreeRoot { root, end } in roots {
            self.u32(*root);
            self.u32(*end);
        }
    }

    fn slot(&mut self, s: &Slot) {
        let Slot {
            name: _,
            role: _,
            kind,
            init,
            range: _,
            visible: _,
            scope: _,
            elems: _,
            any: _,
        } = s;
        self.bool(*kind == ValueKind::List);
        self.bool(is_unset(*init));
    }

    fn leaf(&mut self, l: &LeafInfo) {
        let LeafInfo {
            name: _,
            class,
            ports: _,
            span: _,
        } = l;
        self.u8(match class {
            NodeClass::Action => 0,
            NodeClass::Condition => 1,
            NodeClass::Control => 2,
            NodeClass::Decorator => 3,
        });
    }

    fn conditions(&mut self, c: &Conditions) {
        let Conditions {
            failure_if,
            success_if,
            skip_if,
            while_,
            on_success,
            on_failure,
            post,
            on_halted,
        } = c;
        for b in [
            failure_if, success_if, skip_if, while_, on_success, on_failure, post, on_halted,
        ] {
            self.opt_code(*b);
        }
    }

    fn node(&mut self, n: &Node) {
        let Node {
            kind,
            children,
            conditions,
            id: _,
            name: _,
            path: _,
        } = n;
        self.kind(kind);
        self.u32(children.0);
        self.u32(children.1);
        match conditions {
            None => self.u8(0),
            Some(c) => {
                self.u8(1);
                self.u32(*c);
            }
        }
    }

    fn kind(&mut self, k: &NodeKind) {
        use NodeKind as K;
        match k {
            K::Sequence => self.u8(0),
            K::SequenceWithMemory => self.u8(1),
            K::ReactiveSequence => self.u8(2),
            K::AsyncSequence => self.u8(3),
            K::Fallback => self.u8(4),
            K::ReactiveFallback => self.u8(5),
            K::AsyncFallback => self.u8(6),
            K::Parallel { success, failure } => {
                self.u8(7);
                self.arg(*success);
                self.arg(*failure);
            }
            K::ParallelAll { max_failures } => {
                self.u8(8);
                self.arg(*max_failures);
            }
            K::IfThenElse => self.u8(9),
            K::WhileDoElse => self.u8(10),
            K::TryCatch { catch_on_halt } => {
                self.u8(11);
                self.bool(*catch_on_halt);
            }
            K::Switch {
                subject,
                subject_kind,
                cases,
            } => {
                self.u8(12);
                self.code(*subject);
                self.value_kind(*subject_kind);
                self.len(cases.len());
                // The JIT compares by the case's value and reads a leading integer of its
                // text (as BehaviorTree.CPP does), so both count.
                for CaseValue { text, value } in cases {
                    self.len(text.len());
                    self.0.update(text.as_bytes());
                    self.f64(*value);
                }
            }
            // A family's number and its arguments, each with its kind.
            K::Decorator(d) => {
                self.u8(13);
                self.u8(d.kind as u8);
                self.len(d.args.len());
                for x in &d.args {
                    match x {
                        DecoratorArg::Value(a) => {
                            self.u8(0);
                            self.arg(*a);
                        }
                        DecoratorArg::Code(c) => {
                            self.u8(1);
                            self.code(*c);
                        }
                        DecoratorArg::Slot(s, _) => {
                            self.u8(2);
                            self.u32(*s);
                        }
                        DecoratorArg::Status(s) => {
                            self.u8(3);
                            self.status(*s);
                        }
                        DecoratorArg::Flag(f) => {
                            self.u8(4);
                            self.bool(*f);
                        }
                    }
                }
            }
            K::SubTree { inputs } => {
                self.u8(25);
                self.len(inputs.len());
                for (s, c) in inputs {
                    self.u32(*s);
                    self.code(*c);
                }
            }
            K::AlwaysSuccess => self.u8(26),
            K::AlwaysFailure => self.u8(27),
            K::Sleep { ms } => {
                self.u8(28);
                self.arg(*ms);
            }
            K::Script { code } => {
                self.u8(29);
                self.code(*code);
            }
            K::ScriptCondition { cond } => {
                self.u8(30);
                self.code(*cond);
            }
            K::WasEntryUpdated { slot } => {
                self.u8(31);
                self.u32(*slot);
            }
            K::Foreign { leaf, ports } => {
                self.u8(32);
                self.u32(*leaf);
                self.len(ports.len());
                for p in ports {
                    match p {
                        PortBinding::In(a) => {
                            self.u8(0);
                            self.arg(*a);
                        }
                        PortBinding::Slot(s) => {
                            self.u8(1);
                            self.u32(*s);
                        }
                        PortBinding::Absent => self.u8(2),
                    }
                }
            }
        }
    }

    fn value_kind(&mut self, k: ValueKind) {
        use ValueKind as V;
        match k {
            V::Num => self.u8(0),
            V::Int => self.u8(1),
            V::Bool => self.u8(2),
            V::Str => self.u8(3),
            V::Enum(e) => {
                self.u8(4);
                self.u32(e);
            }
            V::Duration => self.u8(5),
            V::Rate => self.u8(6),
            V::Length => self.u8(7),
            V::Angle => self.u8(8),
            V::Status => self.u8(9),
            V::List => self.u8(10),
        }
    }

    fn op(&mut self, op: &Op) {
        // `Function` and `HostFn` are numbered by declaration order: their file is part of
        // the engine's hash (`build.rs`), so a reordering makes new keys.
        match *op {
            Op::Const(x) => {
                self.u8(0);
                self.f64(x);
            }
            Op::Load(s) => self.op_slot(1, s),
            Op::LoadChecked(s) => self.op_slot(2, s),
            Op::Store(s) => self.op_slot(3, s),
            Op::StoreClamped(s, lo, hi) => {
                self.op_slot(4, s);
                self.f64(lo);
                self.f64(hi);
            }
            Op::Add => self.u8(5),
            Op::Sub => self.u8(6),
            Op::Mul => self.u8(7),
            Op::Div => self.u8(8),
            Op::Neg => self.u8(9),
            Op::Not => self.u8(10),
            Op::Eq => self.u8(11),
            Op::Ne => self.u8(12),
            Op::Lt => self.u8(13),
            Op::Le => self.u8(14),
            Op::Gt => self.u8(15),
            Op::Ge => self.u8(16),
            Op::BitAnd => self.u8(17),
            Op::BitOr => self.u8(18),
            Op::BitXor => self.u8(19),
            Op::BitNot => self.u8(20),
            Op::JumpIfFalse(d) => self.op_slot(21, d),
            Op::Jump(d) => self.op_slot(22, d),
            Op::JumpIfFalseKeep(d) => self.op_slot(23, d),
            Op::JumpIfTrueKeep(d) => self.op_slot(24, d),
            Op::Call(f, argc) => {
                self.u8(25);
                self.u8(f as u8);
                self.u8(argc);
            }
            Op::Pop => self.u8(26),
            Op::Index => self.u8(27),
            Op::ListBuild(s, n) => {
                self.op_slot(28, s);
                self.u8(n);
            }
            Op::ListSet(s) => self.op_slot(29, s),
            Op::ListSetAt(s) => self.op_slot(30, s),
            Op::Host(f, arg, argc) => {
                self.u8(31);
                self.u8(f as u8);
                self.u32(arg);
                self.u8(argc);
            }
        }
    }

    /// An instruction with one number (a slot or a jump).
    fn op_slot(&mut self, tag: u8, x: u32) {
        self.u8(tag);
        self.u32(x);
    }
}

#[cfg(test)]
mod tests {
    use super::super::cache::CodeCache;
    use super::super::compile::{build, Artifact};
    use affect_compiler::builtins::NodeClass;
    use affect_compiler::ir::program::{NodeKind, Op, Program, Role, ValueKind, UNSET};
    use affect_compiler::sema::NoFiles;
    use affect_compiler::span::Span;

    /// Programs that between them use every part of the IR: behaviour modules, memories with
    /// files, devices, emotion machines, drives, recruitment, components, subtrees, worlds.
    const SOURCES: &[(&str, &str)] = &[
        ("soccer", include_str!("../../../examples/soccer.affect")),
        (
            "navigator",
            include_str!("../../../examples/navigator.affect"),
        ),
        ("waiter", include_str!("../../../examples/waiter.affect")),
        (
            "recruitment",
            include_str!("../../../examples/recruitment.affect"),
        ),
        (
            "failover",
            include_str!("../../../examples/failover.affect"),
        ),
        (
            "timeout",
            include_str!("../../tests/fixtures/work_and_timeout.affect"),
        ),
    ];

    fn program(source: &str) -> Program {
        affect_compiler::check_source_with(source, &NoFiles)
            .program
            .expect("compiles")
    }

    fn key(p: &Program, agent: usize) -> String {
        CodeCache::key(p, &p.agents[agent], true).expect("a JIT here")
    }

    /// The generated code as the cache stores it, in a form to compare.
    fn code(p: &Program, agent: usize) -> Vec<(u32, u64, Vec<u8>, Vec<String>)> {
        let Artifact { funcs, .. } = build(p, &p.agents[agent], true, None).expect("compiles");
        let mut v: Vec<_> = funcs
            .into_iter()
            .map(|f| {
                let relocs = f
                    .relocs
                    .iter()
                    .map(|r| format!("{} {:?} {:?} {}", r.offset, r.kind, r.name, r.addend));
                (f.id.as_u32(), f.align, f.bytes, relocs.collect())
            })
            .collect();
        v.sort_by_key(|f| f.0);
        v
    }

    /// Changes everything the key leaves out, and nothing it covers.
    fn scramble(p: &mut Program) {
        let moved = |s: &mut Span| {
            s.start += 7;
            s.end += 7;
        };
        for a in &mut p.agents {
            a.name.push_str("_renamed");
            a.rate_hz += 3.0;
            for s in &mut a.slots {
                s.name.push_str("_renamed");
                s.role = Role::Temp;
                s.range = match s.range {
                    None => Some((-1e9, 1e9)),
                    Some(_) => None,
                };
                s.visible = !s.visible;
                s.scope += 1;
                s.elems.push(ValueKind::Bool);
                if s.kind != ValueKind::List {
                    s.kind = match s.kind {
                        ValueKind::Num => ValueKind::Int,
                        _ => ValueKind::Num,
                    };
                    if !affect_compiler::ir::program::is_unset(s.init) {
                        s.init += 1.0;
                    }
                }
            }
            for s in &mut a.scopes {
                s.path.push_str("_renamed");
                s.tree.push_str("_renamed");
            }
            for n in &mut a.nodes {
                n.id.push_str("_renamed");
                n.name.push_str("_renamed");
                n.path.push_str("_renamed");
            }
            for d in &mut a.devices {
                moved(&mut d.span);
                d.name.push_str("_renamed");
            }
            for m in &mut a.memories {
                moved(&mut m.persist_span);
                m.size += 1;
                m.threshold += 1.0;
            }
            for r in &mut a.recruitments {
                moved(&mut r.requires_span);
                r.threshold += 0.1;
            }
            a.drives.clear();
            a.machines.clear();
            a.components.clear();
            a.behaviors = None;
            a.pending.push(("something".into(), Span::DUMMY));
        }
        for l in &mut p.leaves {
            l.name.push_str("_renamed");
            l.ports.clear();
            moved(&mut l.span);
        }
        for e in &mut p.enums {
            e.name.push_str("_renamed");
        }
        for s in &mut p.strings {
            s.push_str("_renamed");
        }
        for l in &mut p.lists {
            l.push(1.0);
        }
        p.worlds.clear();
        p.components.clear();
        p.main_tree = Some("Elsewhere".into());
    }

    /// A leading comment moves every span; scrambling changes every name and everything
    /// else the key omits. Neither changes the key, and neither changes a byte of the code
    /// or a relocation: the check that what the key omits is really not in the code.
    #[test]
    fn the_code_does_not_depend_on_what_the_key_leaves_out() {
        for (name, src) in SOURCES {
            let p = program(src);
            let shifted = program(&format!("// a comment\n\n// and a blank line\n{src}"));
            assert_ne!(
                format!("{:?}", p.leaves),
                format!("{:?}", shifted.leaves),
                "{name}: the comment moved no span"
            );
            let mut scrambled = p.clone();
            scramble(&mut scrambled);
            for a in 0..p.agents.len() {
                let (k, want) = (key(&p, a), code(&p, a));
                assert_eq!(
                    key(&shifted, a),
                    k,
                    "{name} agent {a}: shifted, another key"
                );
                assert!(
                    code(&shifted, a) == want,
                    "{name} agent {a}: shifted, other code"
                );
                assert_eq!(
                    key(&scrambled, a),
                    k,
                    "{name} agent {a}: scrambled, another key"
                );
                assert!(
                    code(&scrambled, a) == want,
                    "{name} agent {a}: scrambled, other code: the key must cover what changed"
                );
            }
        }
    }

    /// Every part the key covers, changed alone, changes it.
    #[test]
    fn the_key_follows_what_the_code_depends_on() {
        let p = program(SOURCES[5].1);
        let base = key(&p, 0);
        let changed = |what: &str, f: &dyn Fn(&mut Program)| {
            let mut q = p.clone();
            f(&mut q);
            assert_ne!(key(&q, 0), base, "{what}: the same key");
        };
        changed("a constant", &|q| {
            let c = q.agents[0].code.iter_mut().find_map(|op| match op {
                Op::Const(x) => Some(x),
                _ => None,
            });
            *c.expect("a constant") += 1.0;
        });
        changed("a node's kind", &|q| {
            let n = q.agents[0]
                .nodes
                .iter_mut()
                .find(|n| n.kind == NodeKind::Sequence);
            n.expect("a sequence").kind = NodeKind::Fallback;
        });
        changed("a node's children", &|q| q.agents[0].children.swap(0, 1));
        changed("a slot that may hold no value", &|q| {
            q.agents[0].slots[0].init = UNSET
        });
        changed("a slot that holds a list", &|q| {
            q.agents[0].slots[0].kind = ValueKind::List
        });
        changed("a leaf's class", &|q| {
            q.leaves[0].class = NodeClass::Condition
        });
        changed("the root", &|q| {
            q.agents[0].root = q.agents[0].root.map(|r| r + 1)
        });
        changed("an instruction", &|q| q.agents[0].code.push(Op::Pop));
        assert_ne!(
            CodeCache::key(&p, &p.agents[0], false).unwrap(),
            base,
            "recording or not: the same key"
        );
        // A NaN is not `UNSET`: their bits differ, and so does the code that reads them.
        let mut a = p.clone();
        let mut b = p.clone();
        a.agents[0].code.push(Op::Const(f64::NAN));
        b.agents[0].code.push(Op::Const(UNSET));
        assert_ne!(key(&a, 0), key(&b, 0), "NaN and UNSET: the same key");
    }
}
