//! Benchmark trees: seeded BehaviorTree.CPP 4 trees of exactly N nodes, built from built-in
//! nodes only, and an independent reference of what they compute.
//!
//! Nodes: Sequence, ReactiveSequence, Fallback, ReactiveFallback, Parallel (all must succeed,
//! the first failure fails), Inverter, ForceSuccess, ForceFailure, AlwaysSuccess,
//! AlwaysFailure, Script (arithmetic on the blackboard doubles `x0..`) and ScriptCondition.
//! Every subtree is generated for a result fixed in advance (a Fallback gets failing children
//! and one succeeding last child, a Sequence the reverse, ...), conditions whose result depends
//! on the data sit only under ForceSuccess/ForceFailure, and no node returns RUNNING. So every
//! node ticks exactly once per root tick and the root succeeds: time per root tick / N is the
//! cost of one node tick. The first Script also counts root ticks in `tick_count`, so a
//! blackboard check proves how many ticks ran.
//!
//! The reference ([`Tree::expect`]) interprets the generated structure itself (not the XML,
//! not affect's runtime) with BehaviorTree.CPP's semantics for these nodes: script arithmetic
//! in double, `==`/`!=` within float epsilon. Constants are dyadic and every compound operand
//! is parenthesised (BehaviorTree.CPP 4.8.2 evaluates `a - b + c` as `a - (b + c)`), so the
//! reference's doubles are bit-identical to the library's.

use std::fmt::Write as _;

/// A small, fast, seedable generator (SplitMix64): the same seed gives the same tree on every
/// platform, with no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Uniform in lo..=hi.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo + 1) as u64) as usize
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.range(0, xs.len() - 1)]
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
}

#[derive(Clone, Debug)]
enum Expr {
    Var(usize),
    Num(f64),
    Bin(Op, Box<Expr>, Box<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Cmp {
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
}

#[derive(Clone, Debug)]
enum Cond {
    Cmp(Cmp, Expr, Expr),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Sequence,
    ReactiveSequence,
    Fallback,
    ReactiveFallback,
    Parallel,
    Inverter,
    ForceSuccess,
    ForceFailure,
    AlwaysSuccess,
    AlwaysFailure,
    Script,
    ScriptCondition,
}

#[derive(Clone, Debug)]
struct Node {
    kind: Kind,
    children: Vec<Node>,
    /// Script: assignments `(variable, value)`, in order.
    script: Vec<(usize, Expr)>,
    cond: Option<Cond>,
}

impl Node {
    fn leaf(kind: Kind) -> Node {
        Node {
            kind,
            children: Vec::new(),
            script: Vec::new(),
            cond: None,
        }
    }
    fn count(&self) -> usize {
        // Iterative: a generated tree may be deep.
        let mut n = 0;
        let mut todo = vec![self];
        while let Some(x) = todo.pop() {
            n += 1;
            todo.extend(&x.children);
        }
        n
    }
}

/// Options of a generated tree.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    pub size: usize,
    pub seed: u64,
    pub vars: usize,
    pub fanout: usize,
    /// No scripts: only the framework's own cost is measured.
    pub leaf_only: bool,
}

/// A generated tree with its initial blackboard.
pub struct Tree {
    spec: Spec,
    root: Node,
    /// Variable names (`x0..`, then `tick_count`) and their values before the first tick.
    names: Vec<String>,
    init: Vec<f64>,
}

const SUCCESS: bool = true;
const FAILURE: bool = false;

struct Gen {
    rng: Rng,
    vars: usize,
    fanout: usize,
    leaf_only: bool,
}

impl Gen {
    fn var(&mut self) -> usize {
        self.rng.range(0, self.vars - 1)
    }

    fn bin(op: Op, a: Expr, b: Expr) -> Expr {
        Expr::Bin(op, Box::new(a), Box::new(b))
    }

    fn statement(&mut self) -> (usize, Expr) {
        let (v, w) = (self.var(), self.var());
        let k = self.rng.unit();
        let add_or_sub = |r: &mut Rng| if r.unit() < 0.5 { Op::Add } else { Op::Sub };
        let value = if k < 0.45 {
            // Drift: v + c.
            let c = self.rng.pick(&[0.125, 0.25, 0.5, 1.0, 1.5]);
            Self::bin(add_or_sub(&mut self.rng), Expr::Var(v), Expr::Num(c))
        } else if k < 0.8 {
            // Contraction: (v * a ± w * b) ± c, a + b <= 1.
            let a = self.rng.pick(&[0.25, 0.5, 0.75]);
            let b = self.rng.pick(&[0.125, 0.25]);
            let c = self.rng.pick(&[0.25, 0.5, 1.0, 2.0]);
            let inner = Self::bin(
                add_or_sub(&mut self.rng),
                Self::bin(Op::Mul, Expr::Var(v), Expr::Num(a)),
                Self::bin(Op::Mul, Expr::Var(w), Expr::Num(b)),
            );
            Self::bin(add_or_sub(&mut self.rng), inner, Expr::Num(c))
        } else if k < 0.92 {
            // Mean: (v + w) * 0.5.
            let sum = Self::bin(Op::Add, Expr::Var(v), Expr::Var(w));
            Self::bin(Op::Mul, sum, Expr::Num(0.5))
        } else {
            // w / d + c.
            let d = self.rng.pick(&[2.0, 4.0]);
            let c = self.rng.pick(&[0.5, 1.0]);
            Self::bin(
                Op::Add,
                Self::bin(Op::Div, Expr::Var(w), Expr::Num(d)),
                Expr::Num(c),
            )
        };
        (v, value)
    }

    fn script(&mut self) -> Node {
        let n = if self.rng.unit() < 0.8 { 1 } else { 2 };
        let mut node = Node::leaf(Kind::Script);
        node.script = (0..n).map(|_| self.statement()).collect();
        node
    }

    fn operand(&mut self) -> Expr {
        if self.rng.unit() < 0.5 {
            Expr::Var(self.var())
        } else {
            Expr::Num(self.rng.pick(&[-1.0, 0.0, 0.5, 2.0, 10.0]))
        }
    }

    /// A condition whose result depends on the data (only under ForceSuccess/ForceFailure).
    fn condition(&mut self) -> Node {
        let k = self.rng.unit();
        let order = [Cmp::Lt, Cmp::Gt, Cmp::Le, Cmp::Ge];
        let cond = if k < 0.7 {
            let op = self.rng.pick(&order);
            Cond::Cmp(op, Expr::Var(self.var()), self.operand())
        } else if k < 0.85 {
            let c = self.operand();
            Cond::And(
                Box::new(Cond::Cmp(Cmp::Ge, Expr::Var(self.var()), c.clone())),
                Box::new(Cond::Cmp(Cmp::Le, Expr::Var(self.var()), c)),
            )
        } else {
            let (v, w) = (self.var(), self.var());
            let c = self.rng.pick(&[0.0, 0.5, 2.0]);
            Cond::Or(
                Box::new(Cond::Cmp(Cmp::Ne, Expr::Var(v), Expr::Var(w))),
                Box::new(Cond::Cmp(Cmp::Eq, Expr::Var(v), Expr::Num(c))),
            )
        };
        let mut node = Node::leaf(Kind::ScriptCondition);
        node.cond = Some(cond);
        node
    }

    /// A condition with a fixed result: `v < v + c` holds for every value these trees reach.
    fn fixed_condition(&mut self, want: bool) -> Node {
        let v = self.var();
        let c = self.rng.pick(&[1.0, 2.0, 4.0]);
        let op = match (want, self.rng.unit() < 0.5) {
            (SUCCESS, true) => Cmp::Lt,
            (SUCCESS, false) => Cmp::Le,
            (FAILURE, true) => Cmp::Gt,
            (FAILURE, false) => Cmp::Ge,
        };
        let sum = Self::bin(Op::Add, Expr::Var(v), Expr::Num(c));
        let mut node = Node::leaf(Kind::ScriptCondition);
        node.cond = Some(Cond::Cmp(op, Expr::Var(v), sum));
        node
    }

    fn leaf(&mut self, want: bool) -> Node {
        let r = self.rng.unit();
        match want {
            FAILURE if self.leaf_only || r < 0.3 => Node::leaf(Kind::AlwaysFailure),
            FAILURE => self.fixed_condition(FAILURE),
            SUCCESS if self.leaf_only || r < 0.12 => Node::leaf(Kind::AlwaysSuccess),
            SUCCESS if r < 0.25 => self.fixed_condition(SUCCESS),
            SUCCESS => self.script(),
        }
    }

    /// `total` split into `k` positive parts, balanced with some jitter.
    fn split(&mut self, total: usize, k: usize) -> Vec<usize> {
        let weights: Vec<f64> = (0..k).map(|_| 0.5 + self.rng.unit()).collect();
        let sum: f64 = weights.iter().sum();
        let rest = (total - k) as f64;
        let mut parts: Vec<usize> = weights
            .iter()
            .map(|w| 1 + (rest * w / sum) as usize)
            .collect();
        let mut i = 0;
        while parts.iter().sum::<usize>() < total {
            parts[i % k] += 1;
            i += 1;
        }
        parts
    }

    /// A subtree of exactly `budget` nodes that returns `want`. Explicit work list instead of
    /// recursion: the tree's depth is not bounded by the stack.
    fn tree(&mut self, budget: usize, want: bool) -> Node {
        enum Work {
            Make(usize, bool),
            Close(Kind, usize),
        }
        let mut work = vec![Work::Make(budget, want)];
        let mut done: Vec<Node> = Vec::new();
        while let Some(w) = work.pop() {
            match w {
                Work::Close(kind, n) => {
                    let children = done.split_off(done.len() - n);
                    let mut node = Node::leaf(kind);
                    node.children = children;
                    done.push(node);
                }
                Work::Make(1, want) => {
                    let leaf = self.leaf(want);
                    done.push(leaf);
                }
                Work::Make(budget, want) if budget == 2 || self.rng.unit() < 0.12 => {
                    let d = self.rng.unit();
                    if d < 0.45 {
                        work.push(Work::Close(Kind::Inverter, 1));
                        work.push(Work::Make(budget - 1, !want));
                        continue;
                    }
                    let kind = if want {
                        Kind::ForceSuccess
                    } else {
                        Kind::ForceFailure
                    };
                    work.push(Work::Close(kind, 1));
                    if budget == 2 {
                        let child = if self.leaf_only {
                            Node::leaf(self.rng.pick(&[Kind::AlwaysSuccess, Kind::AlwaysFailure]))
                        } else {
                            self.condition()
                        };
                        done.push(child);
                    } else {
                        let any = self.rng.unit() < 0.5;
                        work.push(Work::Make(budget - 1, any));
                    }
                }
                Work::Make(budget, want) => {
                    let k = self.rng.range(2, self.fanout.min(budget - 1));
                    let parts = self.split(budget - 1, k);
                    let kind = self.rng.pick(&[
                        Kind::Sequence,
                        Kind::ReactiveSequence,
                        Kind::Fallback,
                        Kind::ReactiveFallback,
                        Kind::Parallel,
                    ]);
                    // Sequences: successes, then the wanted result; fallbacks: failures,
                    // then the wanted result.
                    let others = !matches!(kind, Kind::Fallback | Kind::ReactiveFallback);
                    work.push(Work::Close(kind, k));
                    // Pushed in reverse so the first child is made (and numbered) first.
                    for (i, p) in parts.iter().enumerate().rev() {
                        let w = if i + 1 == k { want } else { others };
                        work.push(Work::Make(*p, w));
                    }
                }
            }
        }
        done.pop().expect("one tree")
    }
}

/// The name of the tick counter the first script increments.
pub const COUNTER: &str = "tick_count";

impl Tree {
    pub fn generate(spec: Spec) -> Tree {
        assert!(spec.size >= 1 && spec.vars >= 1 && spec.fanout >= 2);
        let mut g = Gen {
            rng: Rng(spec.seed),
            vars: spec.vars,
            fanout: spec.fanout,
            leaf_only: spec.leaf_only,
        };
        let mut init: Vec<f64> = (0..spec.vars)
            .map(|_| g.rng.pick(&[-1.5, -0.5, 0.0, 0.25, 1.0, 2.5]))
            .collect();
        let mut root = g.tree(spec.size, SUCCESS);
        let mut names: Vec<String> = (0..spec.vars).map(|i| format!("x{i}")).collect();
        names.push(COUNTER.into());
        init.push(0.0);
        if let Some(first) = first_script(&mut root) {
            let counter = spec.vars;
            let next = Gen::bin(Op::Add, Expr::Var(counter), Expr::Num(1.0));
            first.script.insert(0, (counter, next));
        }
        Tree {
            spec,
            root,
            names,
            init,
        }
    }

    pub fn nodes(&self) -> usize {
        self.root.count()
    }

    /// The initial blackboard as `KEY=VALUE` (doubles, written so BehaviorTree.CPP reads them
    /// as doubles).
    pub fn presets(&self) -> Vec<String> {
        self.names
            .iter()
            .zip(&self.init)
            .map(|(k, v)| format!("{k}={}", num(*v)))
            .collect()
    }

    /// The tree as BehaviorTree.CPP 4 XML; the first comment records the initial values.
    pub fn xml(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#);
        // No `--` inside the comment: XML forbids it there (Python's parser, which the
        // py_trees benchmark reads the tree with, refuses the file).
        let _ = writeln!(
            out,
            "<!-- affect gen-tree, size {}, seed {}: blackboard doubles before the first tick: {} -->",
            self.spec.size,
            self.spec.seed,
            self.presets().join(" ")
        );
        out.push_str("<root BTCPP_format=\"4\" main_tree_to_execute=\"Main\">\n");
        out.push_str("  <BehaviorTree ID=\"Main\">\n");
        // Iterative writer: (node, depth, closing?).
        let mut todo: Vec<(&Node, usize, bool)> = vec![(&self.root, 2, false)];
        while let Some((n, depth, close)) = todo.pop() {
            let pad = "  ".repeat(depth);
            let name = format!("{:?}", n.kind);
            if close {
                let _ = writeln!(out, "{pad}</{name}>");
                continue;
            }
            let attrs = match n.kind {
                Kind::Parallel => r#" success_count="-1" failure_count="1""#.to_string(),
                Kind::Script => format!(r#" code="{}""#, self.script_text(&n.script)),
                Kind::ScriptCondition => {
                    format!(
                        r#" code="{}""#,
                        xml_escape(&self.cond_text(n.cond.as_ref().unwrap()))
                    )
                }
                _ => String::new(),
            };
            if n.children.is_empty() {
                let _ = writeln!(out, "{pad}<{name}{attrs}/>");
            } else {
                let _ = writeln!(out, "{pad}<{name}{attrs}>");
                todo.push((n, depth, true));
                for c in n.children.iter().rev() {
                    todo.push((c, depth + 1, false));
                }
            }
        }
        out.push_str("  </BehaviorTree>\n</root>\n");
        out
    }

    fn script_text(&self, script: &[(usize, Expr)]) -> String {
        let parts: Vec<String> = script
            .iter()
            .map(|(v, e)| format!("{} := {}", self.names[*v], self.expr_text(e, false)))
            .collect();
        parts.join("; ")
    }

    fn expr_text(&self, e: &Expr, nested: bool) -> String {
        match e {
            Expr::Var(i) => self.names[*i].clone(),
            Expr::Num(x) => num(*x),
            Expr::Bin(op, a, b) => {
                let sym = match op {
                    Op::Add => "+",
                    Op::Sub => "-",
                    Op::Mul => "*",
                    Op::Div => "/",
                };
                let text = format!(
                    "{} {sym} {}",
                    self.expr_text(a, true),
                    self.expr_text(b, true)
                );
                if nested {
                    format!("({text})")
                } else {
                    text
                }
            }
        }
    }

    fn cond_text(&self, c: &Cond) -> String {
        match c {
            Cond::Cmp(op, a, b) => {
                let sym = match op {
                    Cmp::Lt => "<",
                    Cmp::Gt => ">",
                    Cmp::Le => "<=",
                    Cmp::Ge => ">=",
                    Cmp::Eq => "==",
                    Cmp::Ne => "!=",
                };
                format!(
                    "{} {sym} {}",
                    self.expr_text(a, false),
                    self.expr_text(b, false)
                )
            }
            Cond::And(a, b) => format!("{} && {}", self.cond_text(a), self.cond_text(b)),
            Cond::Or(a, b) => format!("{} || {}", self.cond_text(a), self.cond_text(b)),
        }
    }

    /// What the tree computes in `ticks` root ticks, by the reference interpreter.
    pub fn expect(&self, ticks: u64) -> Expectation {
        let mut r = Reference {
            env: self.init.clone(),
            node_ticks: 0,
        };
        let mut roots = Vec::new();
        let mut per_tick = Vec::new();
        let mut done = 0;
        // Interpret the first ticks node by node; once they have shown that every node ticks
        // once and the root succeeds, the rest only needs the scripts, in tree order.
        while done < ticks.min(3) {
            let before = r.node_ticks;
            roots.push(r.tick(&self.root));
            per_tick.push(r.node_ticks - before);
            done += 1;
        }
        let nodes = self.nodes() as u64;
        let invariant = roots.iter().all(|s| *s) && per_tick.iter().all(|n| *n == nodes);
        let mut scripts = Vec::new();
        collect_scripts(&self.root, &mut scripts);
        while done < ticks {
            if invariant {
                for (v, e) in &scripts {
                    r.env[*v] = r.eval(e);
                }
            } else {
                let before = r.node_ticks;
                roots.push(r.tick(&self.root));
                per_tick.push(r.node_ticks - before);
            }
            done += 1;
        }
        roots.dedup();
        per_tick.dedup();
        Expectation {
            ticks,
            nodes: nodes as usize,
            root_success: roots,
            node_ticks_per_tick: per_tick,
            blackboard: self.names.iter().cloned().zip(r.env).collect(),
        }
    }
}

/// The reference's result after some ticks.
pub struct Expectation {
    pub ticks: u64,
    pub nodes: usize,
    /// The distinct root results (true: SUCCESS), and node ticks per root tick, in order of
    /// first appearance.
    pub root_success: Vec<bool>,
    pub node_ticks_per_tick: Vec<u64>,
    pub blackboard: Vec<(String, f64)>,
}

fn first_script(n: &mut Node) -> Option<&mut Node> {
    if n.kind == Kind::Script {
        return Some(n);
    }
    n.children.iter_mut().find_map(first_script)
}

fn collect_scripts<'a>(n: &'a Node, out: &mut Vec<&'a (usize, Expr)>) {
    let mut todo = vec![n];
    while let Some(n) = todo.pop() {
        out.extend(n.script.iter());
        todo.extend(n.children.iter().rev());
    }
}

/// A double as BehaviorTree.CPP's script reads one (always with a `.`).
fn num(x: f64) -> String {
    format!("{x:?}")
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// BehaviorTree.CPP's `==` on doubles: equal within float epsilon.
const FLOAT_EPSILON: f64 = f32::EPSILON as f64;

struct Reference {
    env: Vec<f64>,
    node_ticks: u64,
}

impl Reference {
    fn eval(&self, e: &Expr) -> f64 {
        match e {
            Expr::Var(i) => self.env[*i],
            Expr::Num(x) => *x,
            Expr::Bin(op, a, b) => {
                let (a, b) = (self.eval(a), self.eval(b));
                match op {
                    Op::Add => a + b,
                    Op::Sub => a - b,
                    Op::Mul => a * b,
                    Op::Div => a / b,
                }
            }
        }
    }

    fn test(&self, c: &Cond) -> bool {
        match c {
            Cond::And(a, b) => self.test(a) && self.test(b),
            Cond::Or(a, b) => self.test(a) || self.test(b),
            Cond::Cmp(op, a, b) => {
                let (a, b) = (self.eval(a), self.eval(b));
                match op {
                    Cmp::Lt => a < b,
                    Cmp::Gt => a > b,
                    Cmp::Le => a <= b,
                    Cmp::Ge => a >= b,
                    Cmp::Eq => (a - b).abs() <= FLOAT_EPSILON,
                    Cmp::Ne => (a - b).abs() > FLOAT_EPSILON,
                }
            }
        }
    }

    /// One tick of a node (true: SUCCESS). Recursion is fine here: the reference runs on
    /// generated trees, whose depth grows with the logarithm of their size.
    fn tick(&mut self, n: &Node) -> bool {
        self.node_ticks += 1;
        match n.kind {
            Kind::AlwaysSuccess => SUCCESS,
            Kind::AlwaysFailure => FAILURE,
            Kind::Script => {
                for (v, e) in &n.script {
                    self.env[*v] = self.eval(e);
                }
                SUCCESS
            }
            Kind::ScriptCondition => self.test(n.cond.as_ref().expect("a condition")),
            Kind::Inverter => !self.tick(&n.children[0]),
            Kind::ForceSuccess => {
                self.tick(&n.children[0]);
                SUCCESS
            }
            Kind::ForceFailure => {
                self.tick(&n.children[0]);
                FAILURE
            }
            Kind::Sequence | Kind::ReactiveSequence | Kind::Parallel => {
                n.children.iter().all(|c| self.tick(c))
            }
            Kind::Fallback | Kind::ReactiveFallback => n.children.iter().any(|c| self.tick(c)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(size: usize, seed: u64) -> Spec {
        Spec {
            size,
            seed,
            vars: 6,
            fanout: 8,
            leaf_only: false,
        }
    }

    #[test]
    fn trees_have_exactly_the_asked_size_and_every_node_ticks_once() {
        for size in [1, 2, 3, 7, 100, 1000] {
            for seed in 1..4 {
                let t = Tree::generate(spec(size, seed));
                assert_eq!(t.nodes(), size);
                let e = t.expect(5);
                assert_eq!(e.root_success, vec![true], "size {size} seed {seed}");
                assert_eq!(e.node_ticks_per_tick, vec![size as u64]);
            }
        }
    }

    /// XML forbids `--` inside a comment; Python's parser (the py_trees benchmark) refuses it.
    #[test]
    fn comments_hold_no_double_hyphen() {
        let xml = Tree::generate(spec(100, 1)).xml();
        for c in xml.split("<!--").skip(1) {
            let body = c.split("-->").next().unwrap_or_default();
            assert!(!body.contains("--"), "{body}");
        }
        assert!(xml.contains("<!--"), "the tree records its initial values");
    }

    #[test]
    fn the_same_seed_gives_the_same_tree_and_another_seed_another() {
        let a = Tree::generate(spec(300, 7)).xml();
        assert_eq!(a, Tree::generate(spec(300, 7)).xml());
        assert_ne!(a, Tree::generate(spec(300, 8)).xml());
    }

    #[test]
    fn the_fast_replay_agrees_with_interpreting_every_tick() {
        let t = Tree::generate(spec(500, 3));
        let fast = t.expect(40).blackboard;
        let mut r = Reference {
            env: t.init.clone(),
            node_ticks: 0,
        };
        for _ in 0..40 {
            r.tick(&t.root);
        }
        let slow: Vec<(String, f64)> = t.names.iter().cloned().zip(r.env).collect();
        assert_eq!(fast, slow);
        // The counter counts root ticks when the tree has a script.
        assert!(slow.iter().any(|(k, v)| k == COUNTER && *v == 40.0));
    }

    #[test]
    fn deep_requests_do_not_overflow_the_stack() {
        let t = Tree::generate(Spec {
            fanout: 2,
            ..spec(50_000, 1)
        });
        assert_eq!(t.nodes(), 50_000);
        assert!(t.xml().len() > 50_000);
    }
}
