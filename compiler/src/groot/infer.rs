//! What an imported file does not declare but uses: the blackboard entries of each tree
//! (they become the tree's `var`s) and custom nodes without a model (they become `#[inferred]`
//! declarations). Types come from the ports an entry is bound to and from literal script
//! assignments; an entry with no such evidence stays untyped.

use super::carry;
use super::{PortsByName, Scope};
use crate::builtins::{self, ArgType};
use crate::span::Span;
use crate::syntax::ast::*;
use std::collections::HashMap;

/// A node seen without a model, or a tree called but defined nowhere.
#[derive(Clone, Debug)]
pub struct Unknown {
    pub name: String,
    pub kind: LeafKind,
    /// Called as a `<SubTree>`.
    pub tree: bool,
    /// Port names in first-use order; `true` when some use binds a blackboard entry.
    pub ports: Vec<(String, bool)>,
    pub span: Span,
}

/// The unknown nodes met so far, in first-use order, found by name in constant time (a file may
/// use tens of thousands of them, each with many ports).
#[derive(Debug, Default)]
pub struct Unknowns {
    list: Vec<Unknown>,
    at: HashMap<String, usize>,
}

impl Unknowns {
    /// Notes one use of `name` with the ports it is given.
    pub fn note(
        &mut self,
        name: &str,
        kind: LeafKind,
        tree: bool,
        ports: &[(String, bool)],
        span: Span,
    ) {
        let i = match self.at.get(name) {
            Some(&i) => i,
            None => {
                self.list.push(Unknown {
                    name: name.to_string(),
                    kind,
                    tree,
                    ports: vec![],
                    span,
                });
                self.at.insert(name.to_string(), self.list.len() - 1);
                self.list.len() - 1
            }
        };
        let entry = &mut self.list[i];
        let mut seen: HashMap<String, usize> = HashMap::new();
        if !ports.is_empty() {
            seen.extend(
                entry
                    .ports
                    .iter()
                    .enumerate()
                    .map(|(j, (n, _))| (n.clone(), j)),
            );
        }
        for (p, key) in ports {
            match seen.get(p) {
                Some(&j) => entry.ports[j].1 |= *key,
                None => {
                    seen.insert(p.clone(), entry.ports.len());
                    entry.ports.push((p.clone(), *key));
                }
            }
        }
    }

    pub fn clear(&mut self) {
        self.list.clear();
        self.at.clear();
    }

    /// The unknown nodes in first-use order, leaving none.
    pub fn take(&mut self) -> Vec<Unknown> {
        self.at.clear();
        std::mem::take(&mut self.list)
    }
}

/// `#[inferred] action Name(in literal_port, inout bound_port);`, or `#[inferred] tree Name {}`
/// for a tree called but defined nowhere.
pub fn declaration(u: &Unknown) -> Item {
    let attrs = vec![Attr {
        name: Ident::new(carry::INFERRED, Span::DUMMY),
        value: None,
        span: Span::DUMMY,
    }];
    if u.tree {
        return Item {
            doc: None,
            attrs,
            kind: ItemKind::Tree(TreeDecl {
                is_main: false,
                name: Ident::new(&u.name, Span::DUMMY),
                ports: Default::default(),
                locals: vec![],
                body: NodeBlock {
                    nodes: vec![],
                    span: Span::DUMMY,
                },
            }),
            span: Span::DUMMY,
        };
    }
    let ports = u
        .ports
        .iter()
        .map(|(name, bound)| PortDecl {
            doc: None,
            // A port given a blackboard entry may be read or written; one given a literal
            // is read.
            dir: if *bound { PortDir::InOut } else { PortDir::In },
            name: Ident::new(name, Span::DUMMY),
            ty: None,
            default: None,
            span: Span::DUMMY,
        })
        .collect::<Vec<_>>();
    Item {
        doc: None,
        attrs,
        kind: ItemKind::Leaf(LeafDecl {
            kind: u.kind,
            name: Ident::new(&u.name, Span::DUMMY),
            ports: ports.into(),
        }),
        span: Span::DUMMY,
    }
}

fn named(name: &str) -> Type {
    Type {
        kind: TypeKind::Named(Path::single(Ident::new(name, Span::DUMMY))),
        span: Span::DUMMY,
    }
}

#[derive(Default)]
struct Vars<'s> {
    order: Vec<String>,
    types: HashMap<String, Option<Type>>,
    scope: Option<&'s Scope>,
}

impl Vars<'_> {
    fn note(&mut self, name: &str, ty: Option<Type>) {
        match self.types.get_mut(name) {
            Some(slot) => {
                if slot.is_none() {
                    *slot = ty;
                }
            }
            None => {
                self.order.push(name.to_string());
                self.types.insert(name.to_string(), ty);
            }
        }
    }

    /// A bare variable: `x` (not `Enum::X`, not `@root`).
    fn var_of(e: &Expr) -> Option<&str> {
        match &e.kind {
            ExprKind::Name(p) if p.segments.len() == 1 => Some(&p.segments[0].name),
            _ => None,
        }
    }

    fn reads(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Name(p) if p.segments.len() == 1 => self.note(&p.segments[0].name, None),
            ExprKind::Unary(_, a) | ExprKind::Paren(a) | ExprKind::Field(a, _) => self.reads(a),
            ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => {
                self.reads(a);
                self.reads(b);
            }
            ExprKind::Ternary(a, b, c) => {
                self.reads(a);
                self.reads(b);
                self.reads(c);
            }
            // The callee is a function, not an entry.
            ExprKind::Call(_, args) => args.args.iter().for_each(|a| self.reads(&a.value)),
            ExprKind::List(xs) | ExprKind::Tuple(xs) => xs.iter().for_each(|x| self.reads(x)),
            _ => {}
        }
    }

    fn block(&mut self, b: &Block) {
        for s in &b.stmts {
            match &s.kind {
                StmtKind::Assign { target, op, value } => {
                    self.reads(value);
                    if let Some(v) = Self::var_of(target) {
                        let ty = if *op == AssignOp::Set {
                            literal_type(value)
                        } else {
                            None
                        };
                        self.note(v, ty);
                    }
                }
                StmtKind::Expr(e) => self.reads(e),
                StmtKind::If {
                    cond,
                    then,
                    otherwise,
                } => {
                    self.reads(cond);
                    self.block(then);
                    let mut next = otherwise.as_deref();
                    while let Some(e) = next {
                        match e {
                            Else::Block(b) => {
                                self.block(b);
                                next = None;
                            }
                            Else::If(s) => {
                                if let StmtKind::If {
                                    cond,
                                    then,
                                    otherwise,
                                } = &s.kind
                                {
                                    self.reads(cond);
                                    self.block(then);
                                    next = otherwise.as_deref();
                                } else {
                                    next = None;
                                }
                            }
                        }
                    }
                }
                StmtKind::Error => {}
            }
        }
    }

    fn node(&mut self, n: &Node) {
        for m in &n.modifiers {
            match &m.kind {
                ModifierKind::SkipIf(e)
                | ModifierKind::SuccessIf(e)
                | ModifierKind::FailureIf(e)
                | ModifierKind::While(e) => self.reads(e),
                ModifierKind::OnSuccess(b)
                | ModifierKind::OnFailure(b)
                | ModifierKind::OnHalted(b)
                | ModifierKind::After(b) => self.block(b),
            }
        }
        match &n.kind {
            NodeKind::Call {
                name,
                args,
                children,
            } => {
                if let Some(args) = args {
                    self.call_args(name, args);
                }
                if let Some(c) = children {
                    c.nodes.iter().for_each(|x| self.node(x));
                }
            }
            NodeKind::Script(b) => self.block(b),
            NodeKind::Check(e) => self.reads(e),
            NodeKind::Switch { subject, arms } => {
                self.reads(subject);
                arms.iter().for_each(|a| self.node(&a.node));
            }
            NodeKind::For { var, queue, body } => {
                self.reads(queue);
                self.note(&var.name, None);
                body.nodes.iter().for_each(|x| self.node(x));
            }
            NodeKind::Error => {}
        }
    }

    fn call_args(&mut self, name: &Path, args: &ArgList) {
        let callee = name.to_string_path();
        let scope = self.scope;
        if let Some(b) = builtins::by_name(&callee) {
            for (i, a) in args.args.iter().enumerate() {
                let spec = match &a.name {
                    Some(n) => b.args.iter().find(|x| x.name == n.name),
                    None => b.args.get(i),
                };
                match spec.map(|s| s.ty) {
                    // `else: failure`: a status word, not an entry.
                    Some(ArgType::Status) => {}
                    Some(ty) => match Self::var_of(&a.value) {
                        Some(v) => {
                            let t = match ty {
                                ArgType::Int => Some(named("int")),
                                ArgType::Bool => Some(named("bool")),
                                _ => None,
                            };
                            self.note(v, t)
                        }
                        None => self.reads(&a.value),
                    },
                    None => self.reads(&a.value),
                }
            }
            return;
        }
        let ports = scope.and_then(|s| {
            s.leaves
                .get(&callee)
                .map(|l| &l.ports[..])
                .or_else(|| s.trees.get(&callee).map(|p| &p[..]))
        });
        let by_name = ports.map(PortsByName::new);
        for (i, a) in args.args.iter().enumerate() {
            let port = match (&a.name, &by_name) {
                (Some(n), Some(by_name)) => by_name.get(&n.name),
                (None, _) => ports.and_then(|ps| ps.get(i)),
                (Some(_), None) => None,
            };
            match Self::var_of(&a.value) {
                Some(v) => self.note(v, port.and_then(|p| p.ty.clone())),
                None => self.reads(&a.value),
            }
        }
    }
}

/// The type a literal assignment gives an entry (BehaviorTree.CPP's `x := 1` makes an int).
fn literal_type(e: &Expr) -> Option<Type> {
    Some(match &e.kind {
        ExprKind::Num(n) if n.unit.is_none() => named(if n.integer { "int" } else { "num" }),
        ExprKind::Unary(UnOp::Neg, x) => return literal_type(x),
        ExprKind::Str(_) => named("str"),
        ExprKind::Bool(_) | ExprKind::Unary(UnOp::Not, _) => named("bool"),
        ExprKind::Binary(op, ..) if op.is_comparison() || matches!(op, BinOp::And | BinOp::Or) => {
            named("bool")
        }
        ExprKind::Call(..) if super::script::concat_args(e).is_some() => named("str"),
        _ => return None,
    })
}

/// The `var`s of an imported tree: every entry its nodes use that is not one of its ports.
pub fn locals(nodes: &[Node], ports: &[PortDecl], scope: &Scope) -> Vec<LocalVar> {
    let mut vars = Vars {
        scope: Some(scope),
        ..Vars::default()
    };
    for n in nodes {
        vars.node(n);
    }
    let Vars {
        order, mut types, ..
    } = vars;
    order
        .into_iter()
        .filter(|name| !ports.iter().any(|p| p.name.name == *name))
        .map(|name| {
            // Without evidence an entry holds anything, as in BehaviorTree.CPP.
            let ty = types
                .remove(&name)
                .flatten()
                .or_else(|| Some(named(super::model::ANY)));
            LocalVar {
                doc: None,
                name: Ident::new(name, Span::DUMMY),
                ty,
                init: None,
                span: Span::DUMMY,
            }
        })
        .collect()
}
