//! The Groot / BehaviorTree.CPP vocabulary both directions share: which IDs are the library's
//! own nodes, the switch IDs, the SubTree tags, and how `<root>` attributes travel on items.

use super::Dialect;
use crate::builtins;

pub const ROOT_PREFIX: &str = "root:";

/// Item attributes named `root:x` are attributes of `<root>` (kept from an imported file).
pub fn root_attr_name(name: &str) -> Option<&str> {
    name.strip_prefix(ROOT_PREFIX)
}

/// `SubTree` (both dialects) and v3's `SubTreePlus`.
pub fn is_subtree_tag(tag: &str) -> bool {
    tag == "SubTree" || tag == "SubTreePlus"
}

/// `Switch2`..`Switch6` → the number of cases.
pub fn switch_cases(id: &str) -> Option<usize> {
    let n: usize = id.strip_prefix("Switch")?.parse().ok()?;
    (2..=6).contains(&n).then_some(n)
}

/// IDs of BehaviorTree.CPP's own nodes that a file may use by name (`Script(code: "...")`
/// when a script has no affect spelling): written back as they are, never given a model.
pub fn is_bt_builtin(id: &str, dialect: Dialect) -> bool {
    const V4_EXTRA: &[&str] = &[
        "Script",
        "ScriptCondition",
        "LoopInt",
        "LoopBool",
        "LoopDouble",
        "LoopString",
        "SubTree",
        "Switch2",
        "Switch3",
        "Switch4",
        "Switch5",
        "Switch6",
        "ManualSelector",
        "SequenceStar",
    ];
    const V3_EXTRA: &[&str] = &[
        "BlackboardCheckInt",
        "BlackboardCheckDouble",
        "BlackboardCheckString",
        "BlackboardCheckBool",
        "SubTree",
        "SubTreePlus",
        "Switch2",
        "Switch3",
        "Switch4",
        "Switch5",
        "Switch6",
        "ManualSelector",
    ];
    match dialect {
        Dialect::V4 => {
            V4_EXTRA.contains(&id) || builtins::BUILTINS.iter().any(|b| b.v4 == Some(id))
        }
        Dialect::V3 => {
            V3_EXTRA.contains(&id) || builtins::BUILTINS.iter().any(|b| b.v3 == Some(id))
        }
    }
}
