//! The built-in tree nodes: their affect names, their BehaviorTree.CPP IDs in each dialect,
//! and their arguments. One table serves the checker, the XML exporter and the importer.
//!
//! The built-in decorators are families: each has its row in a file of its own here
//! (`builtins/retry.rs`) and its tick and halt, for the interpreter and the JIT, in the
//! runtime's file of the same name (`runtime/src/families/retry.rs`). [`decorator_families!`]
//! names them all once; the checker, both engines and the language server read that list,
//! so a new decorator is a line in it and those two files (docs/architecture.md).

/// What kind of node a built-in is, in BehaviorTree.CPP's terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeClass {
    Action,
    Condition,
    Control,
    Decorator,
}

impl NodeClass {
    pub fn xml_tag(self) -> &'static str {
        match self {
            NodeClass::Action => "Action",
            NodeClass::Condition => "Condition",
            NodeClass::Control => "Control",
            NodeClass::Decorator => "Decorator",
        }
    }
}

/// The type an argument of a built-in takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgType {
    /// A whole number (`retry(3)`; -1 means forever).
    Int,
    Bool,
    /// A duration, written with a unit (`timeout(2s)`); XML holds milliseconds.
    Duration,
    /// A node status: `success`, `failure`, `running`, `skipped`, `idle`.
    Status,
    /// A boolean expression evaluated by the node (Precondition's `if`).
    Condition,
    /// A variable, by name (SkipUnlessUpdated's `entry`).
    Variable,
    /// A value of any type, or a variable to write (SetBlackboard).
    Any,
    /// A string (UnsetBlackboard's key).
    Str,
}

/// What a node does with a variable it is given (`ArgType::Variable`): the checker refuses a
/// read-only variable where the node writes, and the IR's readers know which slots it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
    ReadWrite,
}

#[derive(Clone, Copy, Debug)]
pub struct BuiltinArg {
    /// The name in affect (`success` of `parallel(success: 2)`).
    pub name: &'static str,
    /// The port name in BehaviorTree.CPP v4 (`success_count`).
    pub port: &'static str,
    /// The port name in v3 where it differs (Parallel's `success_threshold`).
    pub port_v3: Option<&'static str>,
    pub ty: ArgType,
    /// The default, as BehaviorTree.CPP writes it; `None` when the argument is required.
    pub default: Option<&'static str>,
    /// For a variable: whether the node reads or writes it.
    pub access: Access,
}

#[derive(Clone, Copy, Debug)]
pub struct Builtin {
    /// The affect name: `sequence`, `retry`.
    pub name: &'static str,
    /// The BehaviorTree.CPP v4 ID: `Sequence`, `RetryUntilSuccessful`. `None` when the
    /// node only exists in v3.
    pub v4: Option<&'static str>,
    /// The v3 ID, `None` when v3 has no such node.
    pub v3: Option<&'static str>,
    pub class: NodeClass,
    pub args: &'static [BuiltinArg],
    /// Number of children: (min, max); `usize::MAX` for any number.
    pub children: (usize, usize),
    pub summary: &'static str,
    /// affect's own node: BehaviorTree.CPP has none by that ID. `cpp/affect_bt.hpp`
    /// implements it for a BehaviorTree.CPP application, and the export declares it in
    /// `<TreeNodesModel>` (marked `_affect_node`, which the import skips).
    pub own: bool,
}

const fn arg(
    name: &'static str,
    port: &'static str,
    ty: ArgType,
    default: Option<&'static str>,
) -> BuiltinArg {
    BuiltinArg {
        name,
        port,
        port_v3: None,
        ty,
        default,
        access: Access::Read,
    }
}

const MANY: usize = usize::MAX;

const fn control(
    name: &'static str,
    v4: &'static str,
    v3: Option<&'static str>,
    summary: &'static str,
) -> Builtin {
    Builtin {
        name,
        v4: Some(v4),
        v3,
        class: NodeClass::Control,
        args: &[],
        children: (1, MANY),
        summary,
        own: false,
    }
}

const fn decorator(
    name: &'static str,
    v4: &'static str,
    v3: Option<&'static str>,
    summary: &'static str,
) -> Builtin {
    Builtin {
        name,
        v4: Some(v4),
        v3,
        class: NodeClass::Decorator,
        args: &[],
        children: (1, 1),
        summary,
        own: false,
    }
}

/// The controls, in BehaviorTree.CPP's order of its documentation.
const CONTROLS: &[Builtin] = &[
    control("sequence", "Sequence", Some("Sequence"), "Ticks its children in order until one fails; a running child is resumed without re-ticking the ones before it."),
    control("sequence_with_memory", "SequenceWithMemory", Some("SequenceStar"), "A sequence that does not restart after a failure: the failed child is ticked again next time."),
    control("reactive_sequence", "ReactiveSequence", Some("ReactiveSequence"), "Re-ticks every child from the first on every tick; a running child halts the ones after it."),
    control("async_sequence", "AsyncSequence", None, "A sequence that returns RUNNING after each successful child."),
    control("fallback", "Fallback", Some("Fallback"), "Tries its children in order until one succeeds."),
    control("reactive_fallback", "ReactiveFallback", Some("ReactiveFallback"), "A fallback that re-checks earlier children every tick."),
    control("async_fallback", "AsyncFallback", None, "A fallback that returns RUNNING between children."),
    Builtin {
        name: "parallel",
        v4: Some("Parallel"),
        v3: Some("Parallel"),
        class: NodeClass::Control,
        args: &[
            BuiltinArg { name: "success", port: "success_count", port_v3: Some("success_threshold"), ty: ArgType::Int, default: Some("-1"), access: Access::Read },
            BuiltinArg { name: "failure", port: "failure_count", port_v3: Some("failure_threshold"), ty: ArgType::Int, default: Some("1"), access: Access::Read },
        ],
        children: (1, MANY),
        summary: "Ticks all children every tick; succeeds when `success` children succeeded (-1: all), fails when `failure` failed.",
        own: false,
    },
    Builtin {
        name: "parallel_all",
        v4: Some("ParallelAll"),
        v3: None,
        class: NodeClass::Control,
        args: &[arg("max_failures", "max_failures", ArgType::Int, Some("1"))],
        children: (1, MANY),
        summary: "Runs all children to completion; fails when more than `max_failures` failed.",
        own: false,
    },
    Builtin {
        name: "if_then_else",
        children: (2, 3),
        ..control("if_then_else", "IfThenElse", Some("IfThenElse"), "If the first child succeeds, tick the second, else the third (or fail).")
    },
    Builtin {
        name: "while_do_else",
        children: (2, 3),
        ..control("while_do_else", "WhileDoElse", Some("WhileDoElse"), "While the first child succeeds tick the second, else the third; re-checked every tick.")
    },
    Builtin {
        name: "try_catch",
        v4: Some("TryCatch"),
        v3: None,
        class: NodeClass::Control,
        args: &[arg("catch_on_halt", "catch_on_halt", ArgType::Bool, Some("false"))],
        children: (2, MANY),
        summary: "Runs all children but the last as a sequence; on failure runs the last (the catch) and fails.",
        own: false,
    },
];

/// The actions and conditions, and v3's `BlackboardCheck*` (a decorator that lowers to the
/// precondition family's node).
const OTHERS: &[Builtin] = &[
    Builtin {
        name: "succeed",
        v4: Some("AlwaysSuccess"),
        v3: Some("AlwaysSuccess"),
        class: NodeClass::Action,
        args: &[],
        children: (0, 0),
        summary: "Returns SUCCESS.",
        own: false,
    },
    Builtin {
        name: "fail",
        v4: Some("AlwaysFailure"),
        v3: Some("AlwaysFailure"),
        class: NodeClass::Action,
        args: &[],
        children: (0, 0),
        summary: "Returns FAILURE.",
        own: false,
    },
    Builtin {
        name: "sleep",
        v4: Some("Sleep"),
        v3: None,
        class: NodeClass::Action,
        args: &[arg("msec", "msec", ArgType::Duration, None)],
        children: (0, 0),
        summary: "RUNNING for the duration, then SUCCESS.",
        own: false,
    },
    Builtin {
        name: "set_blackboard",
        v4: Some("SetBlackboard"),
        v3: Some("SetBlackboard"),
        class: NodeClass::Action,
        args: &[
            arg("value", "value", ArgType::Any, None),
            BuiltinArg { access: Access::Write, ..arg("output_key", "output_key", ArgType::Variable, None) },
        ],
        children: (0, 0),
        summary: "Writes a value into a variable (prefer `do { x = value }`).",
        own: false,
    },
    Builtin {
        name: "unset_blackboard",
        v4: Some("UnsetBlackboard"),
        v3: None,
        class: NodeClass::Action,
        args: &[arg("key", "key", ArgType::Str, None)],
        children: (0, 0),
        summary: "Removes an entry from the blackboard.",
        own: false,
    },
    Builtin {
        name: "was_updated",
        v4: Some("WasEntryUpdated"),
        v3: None,
        class: NodeClass::Action,
        args: &[arg("entry", "entry", ArgType::Variable, None)],
        children: (0, 0),
        summary: "SUCCESS when the variable changed since the last check, else FAILURE.",
        own: false,
    },
    Builtin {
        args: &[
            BuiltinArg { name: "value_a", port: "value_A", port_v3: None, ty: ArgType::Any, default: None, access: Access::Read },
            BuiltinArg { name: "value_b", port: "value_B", port_v3: None, ty: ArgType::Any, default: None, access: Access::Read },
            arg("return_on_mismatch", "return_on_mismatch", ArgType::Status, Some("FAILURE")),
        ],
        v4: None,
        ..decorator("blackboard_check", "", Some("BlackboardCheckDouble"), "v3 only: ticks the child when value_a equals value_b, else returns `return_on_mismatch`.")
    },
];

/// Every built-in: the controls, the decorator families in their list's order, the others.
pub static BUILTINS: &[Builtin] = &ALL;

const ALL_LEN: usize = CONTROLS.len() + DECORATORS.len() + OTHERS.len();
const ALL: [Builtin; ALL_LEN] = concat([CONTROLS, &DECORATORS, OTHERS]);

/// The three tables as one, at compile time (a `static` slice cannot be built otherwise).
const fn concat(parts: [&[Builtin]; 3]) -> [Builtin; ALL_LEN] {
    let mut out = [CONTROLS[0]; ALL_LEN];
    let (mut i, mut k) = (0, 0);
    while i < parts.len() {
        let mut j = 0;
        while j < parts[i].len() {
            out[k] = parts[i][j];
            k += 1;
            j += 1;
        }
        i += 1;
    }
    out
}

/// Every family of built-in decorators: its [`DecoratorKind`] variant, then its module, which
/// is `builtins/NAME.rs` here (the row) and `runtime/src/families/NAME.rs` (the tick and
/// halt of both engines). Calls `$then! { Variant module, .. }`, so each reader of the list
/// (this file's declarations, the runtime's modules and dispatch) is made from it: adding a
/// line here is all the registration a new decorator needs.
#[macro_export]
macro_rules! decorator_families {
    ($then:ident) => {
        $then! {
            Invert invert,
            ForceSuccess force_success,
            ForceFailure force_failure,
            Repeat repeat,
            Retry retry,
            KeepRunningUntilFailure keep_running_until_failure,
            Timeout timeout,
            Delay delay,
            RunOnce run_once,
            Precondition precondition,
            SkipUnlessUpdated skip_unless_updated,
            WaitUpdate wait_update,
            Loop loop_queue,
            Cooldown cooldown,
        }
    };
}

macro_rules! declare_families {
    ($($kind:ident $module:ident,)*) => {
        $(pub mod $module;)*

        /// A built-in decorator, as the IR names it (`ir::decorator::Decorator`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum DecoratorKind {
            $($kind,)*
        }

        impl DecoratorKind {
            /// Every family, in the list's order.
            pub const ALL: &[DecoratorKind] = &[$(DecoratorKind::$kind,)*];
        }

        /// The families' rows, in [`DecoratorKind`]'s order.
        const DECORATORS: [Builtin; DecoratorKind::ALL.len()] = [$($module::ROW,)*];
    };
}

decorator_families!(declare_families);

impl DecoratorKind {
    /// The family's row in the table.
    pub fn row(self) -> &'static Builtin {
        &BUILTINS[CONTROLS.len() + self as usize]
    }

    /// The family of a built-in, by its affect name (`None` for controls and leaves).
    pub fn of(b: &Builtin) -> Option<DecoratorKind> {
        DecoratorKind::ALL
            .iter()
            .copied()
            .find(|k| k.row().name == b.name)
    }
}

/// The node kinds written with their own syntax, and their BehaviorTree.CPP IDs.
pub const SCRIPT_ID: &str = "Script";
pub const SCRIPT_CONDITION_ID: &str = "ScriptCondition";
pub const SUBTREE_ID: &str = "SubTree";

pub fn by_name(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.name == name)
}

/// Finds a built-in by a BehaviorTree.CPP ID of either dialect (`SequenceStar` included).
pub fn by_xml_id(id: &str) -> Option<&'static Builtin> {
    match id {
        "LoopInt" | "LoopBool" | "LoopString" | "LoopDouble" => return by_name("loop"),
        "BlackboardCheckInt"
        | "BlackboardCheckDouble"
        | "BlackboardCheckString"
        | "BlackboardCheckBool" => return by_name("blackboard_check"),
        _ => {}
    }
    BUILTINS
        .iter()
        .find(|b| b.v4 == Some(id) || b.v3 == Some(id))
}

/// `Switch2` … `Switch6`: the switch node with N cases.
pub fn switch_id(cases: usize) -> Option<String> {
    (2..=6).contains(&cases).then(|| format!("Switch{cases}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_ids_are_unique() {
        for (i, a) in BUILTINS.iter().enumerate() {
            for b in &BUILTINS[i + 1..] {
                assert_ne!(a.name, b.name);
                if a.v4.is_some() {
                    assert_ne!(a.v4, b.v4, "{}", a.name);
                }
            }
        }
    }

    #[test]
    fn each_family_is_its_own_row() {
        for &k in DecoratorKind::ALL {
            let row = k.row();
            assert_eq!(row.class, NodeClass::Decorator, "{k:?}");
            assert_eq!(DecoratorKind::of(row), Some(k), "{}", row.name);
        }
        assert_eq!(DecoratorKind::Retry.row().v4, Some("RetryUntilSuccessful"));
        assert_eq!(DecoratorKind::of(by_name("sequence").unwrap()), None);
    }

    #[test]
    fn lookups() {
        assert_eq!(
            by_xml_id("SequenceStar").unwrap().name,
            "sequence_with_memory"
        );
        assert_eq!(by_xml_id("RetryUntilSuccessful").unwrap().name, "retry");
        assert_eq!(by_name("parallel").unwrap().args[0].port, "success_count");
        assert_eq!(by_xml_id("LoopInt").unwrap().name, "loop");
        assert!(by_xml_id("Switch3").is_none());
        assert_eq!(switch_id(3).as_deref(), Some("Switch3"));
    }
}
