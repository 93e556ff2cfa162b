//! The checker's recurring errors as typed data. Each is detected where the checker knows it
//! (declaring names, folding initial values, resolving states, checking roots) and rendered
//! here, so one kind of mistake reads the same wherever it is found and its wording lives in
//! one place.

use super::ty::Ty;
use super::wording::article;
use super::{Global, Globals};
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::suggest::closest;

/// Where a name was declared twice.
#[derive(Clone, Debug)]
pub(crate) enum Scope {
    /// The program's global names; the first declaration was this.
    Program(Global),
    /// The members of an agent.
    Agent,
    /// The behaviour modules of an agent.
    AgentModules,
    /// The ports and variables of a tree.
    Tree(String),
    /// The ports of a node or tree declaration.
    Ports,
    /// The variants of an enum.
    Variants,
}

#[derive(Clone, Debug)]
pub(crate) enum SemaError {
    /// A name declared where it is already taken (`first` is where, when it is known).
    DeclaredTwice {
        name: String,
        span: Span,
        first: Option<Span>,
        scope: Scope,
    },
    /// A variable whose initial value is of another type than the one declared.
    StartsAs {
        name: String,
        declared: Ty,
        found: Ty,
        span: Span,
        help: Option<&'static str>,
    },
    /// A name that is not a variant of the enum expected there.
    NotAVariant { name: String, span: Span, of: u32 },
    /// The states of a machine or drive must be an enum.
    StatesNotAnEnum { found: Ty, span: Span },
    /// A block meant to hold one root node holds `found` (0 or several).
    Roots {
        owner: String,
        found: usize,
        span: Span,
    },
    /// A variable nobody reads or writes.
    Unused {
        name: String,
        span: Span,
        help: &'static str,
    },
    /// An initial value naming a variable (`var b = a;`): it is computed before the first
    /// tick, when no variable has a value yet.
    NotConstant {
        name: String,
        var: String,
        span: Span,
    },
    /// A write to a name that may not be written: an assignment, a `push`, or a node's
    /// `out`/`inout` port bound to it. `what` describes it ("let", "sensor", "constant", ...).
    NotAssignable {
        name: String,
        what: String,
        write: Write,
        span: Span,
        decl: Span,
        help: &'static str,
    },
    /// Values of an enum that a table does not cover.
    Uncovered {
        table: Table,
        missing: Vec<String>,
        span: Span,
    },
}

/// How a name would be written.
#[derive(Clone, Debug)]
pub(crate) enum Write {
    Assign,
    Push,
    /// Through a node's port (as the message names it: "`out` port `goal` of `GoTo`").
    Port(String),
}

/// A table with one arm per value of an enum.
#[derive(Clone, Debug)]
pub(crate) enum Table {
    /// The intention of a drive (named).
    Intention(String),
    /// The tendencies of an emotion machine (named).
    Tendencies(String),
}

impl SemaError {
    /// The diagnostic, in the program's terms (enum names from `g`).
    pub(crate) fn render(self, g: &Globals) -> Diagnostic {
        match self {
            SemaError::DeclaredTwice {
                name,
                span,
                first,
                scope,
            } => declared_twice(name, span, first, scope),
            SemaError::StartsAs {
                name,
                declared,
                found,
                span,
                help,
            } => {
                let d = Diagnostic::error(
                    "E0301",
                    format!(
                        "`{name}` is {} but starts as {}",
                        article(&g.show(&declared)),
                        article(&g.show(&found))
                    ),
                    span,
                )
                .with_label("wrong type");
                match help {
                    Some(h) => d.with_help(h),
                    None => d,
                }
            }
            SemaError::NotAVariant { name, span, of } => {
                let e = &g.enums[of as usize];
                let (en, vs) = (&e.name, e.variants.join(", "));
                let d = Diagnostic::error(
                    "E0201",
                    format!("`{name}` is not a variant of `{en}`"),
                    span,
                )
                .with_label(format!("the variants are {vs}"));
                match closest(&name, e.variants.iter().map(String::as_str)) {
                    Some(b) => d.with_help(format!("did you mean `{b}`?")),
                    None => d.with_help(format!(
                        "add it to the enum: `enum {en} {{ {vs}, {name} }}`"
                    )),
                }
            }
            SemaError::StatesNotAnEnum { found, span } => Diagnostic::error(
                "E0301",
                format!("states must be an enum, not {}", article(&g.show(&found))),
                span,
            )
            .with_label("not an enum"),
            SemaError::Roots { owner, found, span } => {
                if found == 0 {
                    Diagnostic::error("E0313", format!("{owner} is empty"), span)
                        .with_label("no node to tick")
                        .with_help("put one node here, such as `sequence { .. }`")
                } else {
                    Diagnostic::error(
                        "E0313",
                        format!("{owner} holds {found} nodes; a tree has one root"),
                        span,
                    )
                    .with_label("several roots")
                    .with_help("wrap them in `sequence { .. }` (or another control node)")
                }
            }
            SemaError::Unused { name, span, help } => {
                Diagnostic::warning("W0201", format!("`{name}` is never used"), span)
                    .with_label("declared here")
                    .with_help(help)
            }
            SemaError::NotConstant { name, var, span } => {
                Diagnostic::error("E0304", format!("`{name}` is not a constant"), span)
                    .with_label("a variable: its value is known only while the program runs")
                    .with_help(format!(
                        "an initial value is computed before the first tick: use literals, constants and enum variants here, and set `{var}` from `{name}` in a block (`update {{ }}`, `do {{ }}`)"
                    ))
            }
            SemaError::NotAssignable {
                name,
                what,
                write,
                span,
                decl,
                help,
            } => {
                let (message, label) = match write {
                    Write::Assign => (
                        format!("cannot assign to `{name}`: it is a {what}"),
                        "not assignable",
                    ),
                    Write::Push => (
                        format!("cannot push onto `{name}`: it is a {what}"),
                        "not assignable",
                    ),
                    Write::Port(port) => (
                        format!("{port} would write `{name}`, a {what}"),
                        "not writable",
                    ),
                };
                Diagnostic::error("E0311", message, span)
                    .with_label(label)
                    .with_secondary(decl, format!("`{name}` is declared here"))
                    .with_help(help)
            }
            SemaError::Uncovered {
                table,
                missing,
                span,
            } => {
                let missing = missing.join(", ");
                let (message, label) = match table {
                    Table::Intention(drive) => (
                        format!("the intention of drive `{drive}` misses {missing}"),
                        "not every drive value generates an intention".to_string(),
                    ),
                    Table::Tendencies(machine) => (
                        format!("the tendencies of `{machine}` do not cover every emotion"),
                        format!("no tendency for {missing}"),
                    ),
                };
                Diagnostic::error("E0308", message, span)
                    .with_label(label)
                    .with_help("add arms for them, or `_ => ..;`")
            }
        }
    }
}

fn declared_twice(name: String, span: Span, first: Option<Span>, scope: Scope) -> Diagnostic {
    let message = match &scope {
        Scope::Program(_) => format!("`{name}` is declared twice"),
        Scope::Agent => format!("`{name}` is declared twice in this agent"),
        Scope::AgentModules => {
            format!("behaviour module `{name}` is declared twice in this agent")
        }
        Scope::Tree(tree) => format!("`{name}` is declared twice in tree `{tree}`"),
        Scope::Ports => format!("port `{name}` is declared twice"),
        Scope::Variants => format!("variant `{name}` is declared twice"),
    };
    let (label, first_label) = match &scope {
        Scope::Program(prev) => (
            "declared again here",
            format!("first declared here, as {}", prev.describe()),
        ),
        _ => ("again here", "first here".to_string()),
    };
    let d = Diagnostic::error("E0202", message, span).with_label(label);
    match first {
        Some(f) => d.with_secondary(f, first_label),
        None => d,
    }
}
