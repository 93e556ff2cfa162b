//! Calls of BehaviorTree.CPP's built-in nodes by their XML ID and port names:
//! `Script(code: "x := 1")`, `RetryUntilSuccessful(num_attempts: "3") { .. }`,
//! `Timeout(msec: 500) { .. }`, `BlackboardCheckString(value_A: mode, value_B: "go") { .. }`.
//! The importer keeps such calls where affect has no spelling for an element (a script it
//! cannot translate, v3's `BlackboardCheck*`), and people who know BehaviorTree.CPP write
//! them. Each call becomes the affect node it is, its port values read the way
//! BehaviorTree.CPP reads XML text: numbers, `true`/`false`, statuses, milliseconds, `{key}`
//! references and scripts.

use crate::btcpp::{model, script};
use crate::builtins::{self, ArgType};
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{
    Arg, ArgList, Expr, ExprKind, Ident, LeafKind, Node, NodeBlock, NodeKind, Path, Pattern,
    StmtKind, SwitchArm,
};
use crate::syntax::token::{NumLit, Unit};

/// What a call by a BehaviorTree.CPP ID turns into.
pub enum Desugared {
    /// The same node, spelled in affect.
    Node(Box<Node>),
    /// A built-in affect cannot run as written (a script it cannot translate): the node runs
    /// as a stand-in of this class, like a custom node nobody implemented.
    StandIn(LeafKind),
    /// BehaviorTree.CPP refuses the call when it loads the tree (a broken script).
    Error(Diagnostic),
}

/// The BehaviorTree.CPP IDs this module reads (4.x, plus v3's `SequenceStar` and
/// `BlackboardCheck*`).
pub fn is_xml_id(id: &str) -> bool {
    matches!(id, "Script" | "ScriptCondition")
        || crate::btcpp::switch_cases(id).is_some()
        || builtins::by_xml_id(id).is_some()
}

/// Rewrites `node`, a call of the BehaviorTree.CPP built-in `id`. `None` when `id` is none.
pub fn desugar(node: &Node, id: &str) -> Option<Desugared> {
    let NodeKind::Call { args, children, .. } = &node.kind else {
        return None;
    };
    let args = args.as_ref();
    let kind = match id {
        "Script" | "ScriptCondition" => desugar_script(node, id, args),
        _ => match crate::btcpp::switch_cases(id) {
            Some(n) => desugar_switch(node, id, n, args, children.as_ref()),
            None => desugar_builtin(node, id, builtins::by_xml_id(id)?, args, children),
        },
    };
    let kind = match kind {
        Ok(k) => k,
        Err(d) => return Some(*d),
    };
    Some(Desugared::Node(Box::new(Node {
        doc: node.doc.clone(),
        attrs: node.attrs.clone(),
        label: node.label.clone(),
        kind,
        modifiers: node.modifiers.clone(),
        span: node.span,
    })))
}

/// `Script(code: "..")`, `ScriptCondition(code: "..")`: the script translated, or a
/// stand-in when affect cannot say it.
fn desugar_script(
    node: &Node,
    id: &str,
    args: Option<&ArgList>,
) -> Result<NodeKind, Box<Desugared>> {
    let condition = id == "ScriptCondition";
    let code = args.and_then(|a| arg(a, "code", 0));
    let Some(code) = code else {
        return Err(Box::new(Desugared::Error(
            Diagnostic::error(
                "E0306",
                format!("`{id}` needs its `code` port"),
                span_of(node, args),
            )
            .with_label("missing")
            .with_help(format!("for example `{id}(code: \"x := 1\")`")),
        )));
    };
    let ExprKind::Str(text) = &code.kind else {
        return Err(Box::new(Desugared::Error(
            Diagnostic::error(
                "E0301",
                format!("the `code` of `{id}` is a script in a string"),
                code.span,
            )
            .with_label("not a string")
            .with_help(if condition {
                "or write `check expr`"
            } else {
                "or write `do { .. }`"
            }),
        )));
    };
    let stmts = match script::parse(text) {
        Ok(s) => s,
        Err(e) => return Err(Box::new(Desugared::Error(broken_script(id, code.span, e)))),
    };
    let translated = if condition {
        script::condition(&stmts).map(NodeKind::Check)
    } else {
        script::block(&stmts).map(NodeKind::Script)
    };
    match translated {
        Ok(k) => Ok(with_spans(k, code.span)),
        Err(_) => Err(Box::new(Desugared::StandIn(if condition {
            LeafKind::Condition
        } else {
            LeafKind::Action
        }))),
    }
}

/// `SwitchN(variable: .., case_1: .., ..) { .. }` with `n` cases: a `switch`.
fn desugar_switch(
    node: &Node,
    id: &str,
    n: usize,
    args: Option<&ArgList>,
    children: Option<&NodeBlock>,
) -> Result<NodeKind, Box<Desugared>> {
    let given = |port: &str| args.and_then(|a| arg(a, port, usize::MAX));
    let Some(variable) = given("variable") else {
        return Err(Box::new(Desugared::Error(
            Diagnostic::error(
                "E0306",
                format!("`{id}` needs its `variable` port"),
                span_of(node, args),
            )
            .with_label("missing"),
        )));
    };
    let subject = match &variable.kind {
        ExprKind::Str(t) => key_or_text(t, variable.span),
        _ => variable.clone(),
    };
    let kids = children
        .as_ref()
        .map(|c| c.nodes.clone())
        .unwrap_or_default();
    if kids.len() != n + 1 {
        return Err(Box::new(Desugared::Error(
            Diagnostic::error(
                "E0312",
                format!(
                    "`{id}` takes exactly {} children, found {}",
                    n + 1,
                    kids.len()
                ),
                children.map_or(node.span, |c| c.span),
            )
            .with_label(format!("one child per case and a default: {}", n + 1)),
        )));
    }
    let mut arms = Vec::new();
    for (i, child) in kids.into_iter().enumerate() {
        let pattern = if i < n {
            let port = format!("case_{}", i + 1);
            let Some(case) = given(&port) else {
                return Err(Box::new(Desugared::Error(
                    Diagnostic::error(
                        "E0306",
                        format!("`{id}` needs its `{port}` port"),
                        span_of(node, args),
                    )
                    .with_label("missing"),
                )));
            };
            Pattern::Expr(match &case.kind {
                ExprKind::Str(t) => literal(t, model::ValueKind::Unknown, case.span),
                _ => case.clone(),
            })
        } else {
            Pattern::Wildcard(child.span)
        };
        arms.push(SwitchArm {
            doc: None,
            pattern,
            span: child.span,
            node: child,
        });
    }
    Ok(NodeKind::Switch { subject, arms })
}

/// Any other built-in by its XML ID: the affect node, its port values read as
/// BehaviorTree.CPP reads XML text.
fn desugar_builtin(
    node: &Node,
    id: &str,
    b: &'static builtins::Builtin,
    args: Option<&ArgList>,
    children: &Option<NodeBlock>,
) -> Result<NodeKind, Box<Desugared>> {
    // What the compared values of v3's BlackboardCheck* are read as.
    let compared = match id {
        "BlackboardCheckInt" | "BlackboardCheckDouble" => model::ValueKind::Number,
        "BlackboardCheckBool" => model::ValueKind::Bool,
        "BlackboardCheckString" => model::ValueKind::Text,
        _ => model::ValueKind::Unknown,
    };
    let mut out = Vec::new();
    if let Some(list) = args {
        for (i, a) in list.args.iter().enumerate() {
            let spec = match &a.name {
                Some(n) => b.args.iter().find(|x| {
                    x.port == n.name || x.port_v3 == Some(n.name.as_str()) || x.name == n.name
                }),
                None => b.args.get(i),
            };
            let Some(spec) = spec else {
                // Unknown ports are the built-in's to report.
                out.push(a.clone());
                continue;
            };
            // v3 reads an empty `return_on_mismatch` as no status (its `getInput` fails, the
            // node returns FAILURE), and `affect convert --to v4` leaves it out: as absent.
            if compared != model::ValueKind::Unknown
                && spec.port == "return_on_mismatch"
                && matches!(&a.value.kind, ExprKind::Str(t) if t.is_empty())
            {
                continue;
            }
            let value = match (&a.value.kind, spec.ty) {
                (ExprKind::Str(t), ArgType::Any) if compared != model::ValueKind::Unknown => {
                    match model::blackboard_key(t) {
                        Some(_) => key_or_text(t, a.value.span),
                        None => literal(t, compared, a.value.span),
                    }
                }
                (ExprKind::Str(t), ty) => match text_value(t, ty, a.value.span) {
                    Ok(e) => e,
                    Err(e) => {
                        return Err(Box::new(Desugared::Error(broken_script(
                            id,
                            a.value.span,
                            e,
                        ))))
                    }
                },
                (ExprKind::Num(n), ArgType::Duration) if n.unit.is_none() => {
                    with_unit(n, a.value.span)
                }
                _ => a.value.clone(),
            };
            out.push(Arg {
                name: Some(Ident::new(
                    spec.name,
                    a.name.as_ref().map_or(a.span, |n| n.span),
                )),
                value,
                span: a.span,
            });
        }
    }
    Ok(NodeKind::Call {
        name: Path::single(Ident::new(b.name, name_span(node))),
        args: args.map(|list| ArgList {
            args: out,
            rest: list.rest,
            span: list.span,
        }),
        children: children.clone(),
    })
}

/// The argument for `port`: named so, or at `position` when none is named.
fn arg<'a>(list: &'a ArgList, port: &str, position: usize) -> Option<&'a Expr> {
    list.args
        .iter()
        .find(|a| a.name.as_ref().is_some_and(|n| n.name == port))
        .or_else(|| {
            list.args
                .get(position)
                .filter(|_| list.args.iter().all(|a| a.name.is_none()))
        })
        .map(|a| &a.value)
}

fn span_of(node: &Node, args: Option<&ArgList>) -> Span {
    args.map_or(name_span(node), |a| a.span)
}

fn name_span(node: &Node) -> Span {
    match &node.kind {
        NodeKind::Call { name, .. } => name.span,
        _ => node.span,
    }
}

fn broken_script(id: &str, span: Span, e: script::ScriptError) -> Diagnostic {
    let d = Diagnostic::error(
        "E0413",
        format!("broken script in `{id}`: {}", e.message),
        span,
    )
    .with_label(e.message.clone())
    .with_note("BehaviorTree.CPP refuses a tree when it loads a script it cannot parse");
    match e.help {
        Some(h) => d.with_help(h),
        None => d,
    }
}

/// XML text for a port of type `ty`, read as BehaviorTree.CPP reads it.
fn text_value(t: &str, ty: ArgType, span: Span) -> Result<Expr, script::ScriptError> {
    if model::blackboard_key(t).is_some() {
        return Ok(key_or_text(t, span));
    }
    Ok(match ty {
        ArgType::Int => literal(t, model::ValueKind::Number, span),
        ArgType::Duration => match script::number(t.trim()) {
            Some(n) => with_unit(&n, span),
            None => str_expr(t, span),
        },
        ArgType::Bool => match t.trim() {
            "true" | "TRUE" | "True" | "1" => at(ExprKind::Bool(true), span),
            "false" | "FALSE" | "False" | "0" => at(ExprKind::Bool(false), span),
            _ => str_expr(t, span),
        },
        ArgType::Status => match t.trim() {
            s @ ("SUCCESS" | "FAILURE" | "RUNNING" | "SKIPPED" | "IDLE") => {
                Expr::name(s.to_lowercase(), span)
            }
            _ => str_expr(t, span),
        },
        ArgType::Condition => {
            let stmts = script::parse(t)?;
            match script::condition(&stmts) {
                Ok(e) => with_expr_spans(e, span),
                Err(_) => str_expr(t, span),
            }
        }
        // An entry named directly (`entry="x"`, SetBlackboard's `output_key="x"`).
        ArgType::Variable => match model::key_expr(t.trim()) {
            Some(e) => with_expr_spans(e, span),
            None => str_expr(t, span),
        },
        ArgType::Any => literal(t, model::ValueKind::Unknown, span),
        ArgType::Str => str_expr(t, span),
    })
}

/// `{key}` as the variable, anything else as text.
fn key_or_text(t: &str, span: Span) -> Expr {
    match model::blackboard_key(t).and_then(model::key_expr) {
        Some(e) => with_expr_spans(e, span),
        None => str_expr(t, span),
    }
}

fn literal(t: &str, kind: model::ValueKind, span: Span) -> Expr {
    with_expr_spans(model::literal(t, kind), span)
}

fn with_unit(n: &NumLit, span: Span) -> Expr {
    at(
        ExprKind::Num(NumLit {
            value: n.value,
            integer: n.integer,
            unit: Some(Unit::Ms),
            text: format!("{}ms", n.text),
        }),
        span,
    )
}

fn str_expr(t: &str, span: Span) -> Expr {
    at(ExprKind::Str(t.to_string()), span)
}

fn at(kind: ExprKind, span: Span) -> Expr {
    Expr { kind, span }
}

/// Points every part of a generated expression at `span` (diagnostics then show the port
/// value they came from).
fn with_expr_spans(mut e: Expr, span: Span) -> Expr {
    respan(&mut e, span);
    e
}

fn respan(e: &mut Expr, span: Span) {
    e.span = span;
    match &mut e.kind {
        ExprKind::Name(p) => {
            p.span = span;
            for s in &mut p.segments {
                s.span = span;
            }
        }
        ExprKind::Root(id) => id.span = span,
        ExprKind::Unary(_, a) | ExprKind::Paren(a) => respan(a, span),
        ExprKind::Field(a, id) => {
            respan(a, span);
            id.span = span;
        }
        ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => {
            respan(a, span);
            respan(b, span);
        }
        ExprKind::Ternary(a, b, c) => {
            respan(a, span);
            respan(b, span);
            respan(c, span);
        }
        ExprKind::Call(f, args) => {
            respan(f, span);
            args.span = span;
            for a in &mut args.args {
                a.span = span;
                respan(&mut a.value, span);
            }
        }
        ExprKind::List(xs) | ExprKind::Tuple(xs) => {
            for x in xs {
                respan(x, span);
            }
        }
        ExprKind::Num(_) | ExprKind::Str(_) | ExprKind::Bool(_) | ExprKind::Error => {}
    }
}

fn with_spans(kind: NodeKind, span: Span) -> NodeKind {
    match kind {
        NodeKind::Check(e) => NodeKind::Check(with_expr_spans(e, span)),
        NodeKind::Script(mut b) => {
            for s in &mut b.stmts {
                s.span = span;
                match &mut s.kind {
                    StmtKind::Assign { target, value, .. } => {
                        respan(target, span);
                        respan(value, span);
                    }
                    StmtKind::Expr(e) => respan(e, span),
                    _ => {}
                }
            }
            b.span = span;
            NodeKind::Script(b)
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::program::{DecoratorKind, NodeKind, PortBinding};
    use crate::sema::{Loader, NoFiles};

    fn program(src: &str, loader: &dyn Loader) -> crate::ir::program::Program {
        let a = crate::check_source_with(src, loader);
        let errors: Vec<String> = a
            .diagnostics
            .iter()
            .chain(a.imported_diagnostics.iter().map(|(_, _, d)| d))
            .filter(|d| d.is_error())
            .map(|d| format!("{} {}", d.code, d.message))
            .collect();
        a.program
            .unwrap_or_else(|| panic!("does not check: {errors:?}"))
    }

    #[test]
    fn builtins_by_xml_id_are_the_affect_nodes_under_their_ids() {
        let p = program(
            r#"action Go();
main tree M {
    var x: int = 0;
    var s: str = "a";
    sequence {
        Script(code: "x := x + 1")
        RetryUntilSuccessful(num_attempts: "3") { Go() }
        Timeout(msec: "250") { Go() }
        Switch2(variable: s, case_1: "a", case_2: "b") { Go() Go() AlwaysFailure }
        BlackboardCheckInt(value_A: x, value_B: "1", return_on_mismatch: "SUCCESS") { Go() }
    }
}"#,
            &NoFiles,
        );
        let nodes = &p.agents[0].nodes;
        let ids: Vec<&str> = nodes.iter().map(|n| n.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "Sequence",
                "Script",
                "RetryUntilSuccessful",
                "Go",
                "Timeout",
                "Go",
                "Switch2",
                "Go",
                "Go",
                "AlwaysFailure",
                "BlackboardCheckInt",
                "Go"
            ]
        );
        assert!(matches!(nodes[1].kind, NodeKind::Script { .. }));
        let decorator = |n: &crate::ir::program::Node| match &n.kind {
            NodeKind::Decorator(d) => Some(d.clone()),
            _ => None,
        };
        let retry = decorator(&nodes[2]).expect("a decorator");
        assert_eq!(retry.kind, DecoratorKind::Retry);
        assert_eq!(retry.value(0), crate::ir::program::Arg::Const(3.0));
        let timeout = decorator(&nodes[4]).expect("a decorator");
        assert_eq!(timeout.kind, DecoratorKind::Timeout);
        assert_eq!(timeout.value(0), crate::ir::program::Arg::Const(250.0));
        assert!(matches!(nodes[6].kind, NodeKind::Switch { .. }));
        let pre = decorator(&nodes[10]).expect("a decorator");
        assert_eq!(pre.kind, DecoratorKind::Precondition);
        assert_eq!(pre.status(1), crate::ir::program::Status::Success);
    }

    #[test]
    fn an_untranslatable_script_is_a_stand_in() {
        let p = program(
            r#"main tree M {
    var a: int = 0;
    var b: int = 0;
    sequence { Script(code: "a := (b := 1)") ScriptCondition(code: "a == (b := 2)") }
}"#,
            &NoFiles,
        );
        let n = &p.agents[0].nodes;
        for (i, class) in [
            (1, crate::builtins::NodeClass::Action),
            (2, crate::builtins::NodeClass::Condition),
        ] {
            let NodeKind::Foreign { leaf, .. } = n[i].kind else {
                panic!("{:?}", n[i].kind)
            };
            assert_eq!(p.leaves[leaf as usize].class, class);
            assert_eq!(p.leaves[leaf as usize].name, n[i].id);
        }
    }

    use crate::sema::modules::MemoryFiles as Files;

    #[test]
    fn signatures_are_replaced_by_definitions_or_stand_in() {
        let files = Files(&[(
            "child.affect",
            "tree Child(in goal: num) {\n    succeed\n}\n",
        )]);
        let p = program(
            r#"use "child.affect";

tree Child(in goal: num) {}
tree Elsewhere(in goal: num, out done) {}

#[model]
tree Bare {}

main tree M {
    var done: any;
    sequence { Child(goal: 1.0) Elsewhere(goal: 2.0, done: done) Bare() }
}"#,
            &files,
        );
        let n = &p.agents[0].nodes;
        // Child is the used file's tree: a SubTree with its `succeed`.
        assert!(matches!(n[1].kind, NodeKind::SubTree { .. }), "{:?}", n[1]);
        assert_eq!(n[2].id, "AlwaysSuccess");
        for (i, name) in [(3, "Elsewhere"), (4, "Bare")] {
            let NodeKind::Foreign { leaf, .. } = n[i].kind else {
                panic!("{:?}", n[i])
            };
            assert_eq!(p.leaves[leaf as usize].name, name);
        }
        assert_eq!(n[3].path, "Elsewhere::4");
    }

    #[test]
    fn an_unmarked_empty_tree_without_ports_is_still_empty() {
        let a = crate::check_source_with("tree T {}\nmain tree M {\n    T()\n}\n", &NoFiles);
        assert!(a.diagnostics.iter().any(|d| d.code == "E0313"));
    }

    #[test]
    fn defaults_as_btcpp_has_them() {
        let p = program(
            r#"action Report(out result = last, in level: "unsigned int" = 3, in lim: "double" = "inf", in seen = last);
main tree M {
    var last: int = 0;
    sequence { Report() Report(result: last, level: 4) }
}"#,
            &NoFiles,
        );
        let n = &p.agents[0].nodes;
        let NodeKind::Foreign { ports, .. } = &n[1].kind else {
            panic!()
        };
        let last = p.agents[0]
            .slots
            .iter()
            .position(|s| s.name == "last")
            .unwrap() as u32;
        assert_eq!(ports[0], PortBinding::Slot(last));
        assert!(matches!(
            ports[1],
            PortBinding::In(crate::ir::program::Arg::Const(3.0))
        ));
        assert!(matches!(
            ports[3],
            PortBinding::In(crate::ir::program::Arg::Expr(_))
        ));
    }
}
