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
    /// Port names in first-use order; `true` when every use binds a blackboard entry.
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
                // A port given a literal anywhere is read (`in`): a literal cannot take a write.
                Some(&j) => entry.ports[j].1 &= *key,
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
            // A port given a blackboard entry in every use may be read or written; one given
            // a literal somewhere is read.
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
    /// One piece of evidence for an entry's type. BehaviorTree.CPP types an entry a script
    /// creates dynamically: an entry that holds an int and then a double is a number
    /// (`num`), one that holds several kinds of value is `any`.
    fn note(&mut self, name: &str, ty: Option<Type>) {
        match self.types.get_mut(name) {
            Some(slot) => {
                *slot = match (slot.take(), ty) {
                    (None, t) | (t, None) => t,
                    (Some(a), Some(b)) => Some(join(a, b)),
                };
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
                        // `x := ..` stores the value's kind; `x += 1.5` makes a double of x.
                        let ty = match value_type(value) {
                            Some(t) if *op == AssignOp::Set || is_named(&t, "num") => Some(t),
                            _ => None,
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

fn is_named(t: &Type, name: &str) -> bool {
    matches!(&t.kind, TypeKind::Named(p) if p.segments.len() == 1 && p.segments[0].name == name)
}

/// The type of an entry that holds values of types `a` and `b`: an int that also holds a
/// double is a `num`; two different kinds make `any`.
fn join(a: Type, b: Type) -> Type {
    let text = |t: &Type| crate::fmt::format_type(t);
    if text(&a) == text(&b) {
        return a;
    }
    let numeric = |t: &Type| is_named(t, "int") || is_named(t, "num");
    if numeric(&a) && numeric(&b) {
        return named("num");
    }
    named(crate::btcpp::model::ANY)
}

/// The type of a value a script stores: a literal's (see [`literal_type`]), or `num` for
/// arithmetic where a double can come out (a non-integer literal in it), `int` for
/// arithmetic on integer literals alone.
fn value_type(e: &Expr) -> Option<Type> {
    if let Some(t) = literal_type(e) {
        return Some(t);
    }
    match &e.kind {
        ExprKind::Paren(x) => value_type(x),
        ExprKind::Unary(UnOp::Neg, x) => value_type(x),
        ExprKind::Binary(op, a, b)
            if matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div) =>
        {
            let (x, y) = (value_type(a), value_type(b));
            let num = |t: &Option<Type>| t.as_ref().is_some_and(|t| is_named(t, "num"));
            let int = |t: &Option<Type>| t.as_ref().is_some_and(|t| is_named(t, "int"));
            if num(&x) || num(&y) || (*op == BinOp::Div && (int(&x) || int(&y))) {
                Some(named("num"))
            } else if int(&x) && int(&y) {
                Some(named("int"))
            } else {
                None
            }
        }
        _ => None,
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
        ExprKind::Call(..) if crate::btcpp::script::concat_args(e).is_some() => named("str"),
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
                .or_else(|| Some(named(crate::btcpp::model::ANY)));
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

#[cfg(test)]
mod tests {
    /// The `var` lines of the imported fixture, and whether the import checks.
    fn imported(name: &str) -> (Vec<String>, Vec<crate::diagnostic::Diagnostic>) {
        let path = format!(
            "{}/../tests/fixtures/xml/dynamic_types/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        let xml = std::fs::read_to_string(&path).expect("the fixture");
        let imported = crate::groot::import_str(&xml);
        assert!(!imported.has_errors(), "{:?}", imported.diagnostics);
        let text = imported.text();
        let vars = text
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with("var "))
            .map(str::to_string)
            .collect();
        let errors = crate::check_source(&text)
            .into_iter()
            .filter(|d| d.severity == crate::diagnostic::Severity::Error)
            .collect();
        (vars, errors)
    }

    #[test]
    fn an_entry_that_takes_a_double_is_a_number() {
        let (vars, errors) = imported("int_then_double.xml");
        assert_eq!(vars, ["var total: num;", "var count: num;"]);
        assert!(errors.is_empty(), "{errors:?}");
    }

    #[test]
    fn an_entry_of_several_kinds_takes_any_value() {
        let (vars, errors) = imported("several_kinds.xml");
        assert_eq!(vars, ["var state: any;", "var ratio: num;"]);
        assert!(errors.is_empty(), "{errors:?}");
    }

    #[test]
    fn a_literal_on_an_output_port_checks() {
        let (vars, errors) = imported("literal_on_output_port.xml");
        assert_eq!(vars, ["var gripped: str;"]);
        assert!(errors.is_empty(), "{errors:?}");
    }
}
