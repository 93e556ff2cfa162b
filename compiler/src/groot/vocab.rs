//! The Groot / BehaviorTree.CPP vocabulary both directions share: which IDs are the library's
//! own nodes, the switch IDs, the SubTree tags, and how `<root>` attributes travel on items.

use super::Dialect;
use crate::builtins;

pub const ROOT_PREFIX: &str = "root:";
/// `#[transitive]` on a `use`: a file an included file includes (no `<include>` of its own).
pub const TRANSITIVE: &str = "transitive";
/// Item attributes named `metadata:k` are Groot 2's `<MetadataFields><Metadata k=".."/>` of the
/// declaration's model entry (one `<Metadata>` per attribute, as BehaviorTree.CPP writes them).
pub const METADATA_PREFIX: &str = "metadata:";

/// Item attributes named `root:x` are attributes of `<root>` (kept from an imported file).
pub fn root_attr_name(name: &str) -> Option<&str> {
    name.strip_prefix(ROOT_PREFIX)
}

/// `SubTree` (both dialects) and v3's `SubTreePlus`.
pub fn is_subtree_tag(tag: &str) -> bool {
    tag == "SubTree" || tag == "SubTreePlus"
}

/// `#[subtree_plus]` on a tree call in a v3 file: written as `<SubTreePlus>` although a plain
/// `<SubTree>` (v3's usual element, bare keys) could say it, because the file wrote it so.
pub const SUBTREE_PLUS: &str = "subtree_plus";

/// Whether v3 writes a call of a tree with these arguments as a plain `<SubTree>`: each
/// argument binds an entry by its bare name (a plain SubTree has no literals, no `@` and no
/// `__autoremap`; it remaps every attribute to the entry it names, as SubTreePlus does with
/// `{key}`), or the call shares the parent's blackboard (`__shared_blackboard`).
pub fn v3_plain_subtree(args: &crate::syntax::ast::ArgList, shared: bool, plus: bool) -> bool {
    use crate::syntax::ast::ExprKind;
    shared
        || (!plus
            && args.rest.is_none()
            && args.args.iter().all(|a| {
                a.name.is_some()
                    && matches!(&a.value.kind, ExprKind::Name(p) if p.segments.len() == 1)
            }))
}

pub use crate::btcpp::switch_cases;

/// IDs of BehaviorTree.CPP's own nodes that a file may use by name (`Script(code: "...")`
/// when a script has no affect spelling): written back as they are, never given a model.
pub fn is_bt_builtin(id: &str, dialect: Dialect) -> bool {
    match dialect {
        Dialect::V4 => {
            V4_EXTRA.contains(&id) || builtins::BUILTINS.iter().any(|b| b.v4 == Some(id))
        }
        Dialect::V3 => {
            V3_EXTRA.contains(&id) || builtins::BUILTINS.iter().any(|b| b.v3 == Some(id))
        }
    }
}

/// Every ID [`is_bt_builtin`] accepts in `dialect` (for "did you mean" and typo checks).
pub fn bt_builtin_ids(dialect: Dialect) -> impl Iterator<Item = &'static str> {
    let extra = match dialect {
        Dialect::V4 => V4_EXTRA,
        Dialect::V3 => V3_EXTRA,
    };
    let table = builtins::BUILTINS
        .iter()
        .filter_map(move |b| match dialect {
            Dialect::V4 => b.v4,
            Dialect::V3 => b.v3,
        });
    extra.iter().copied().chain(table)
}

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

/// The tags of the explicit form (`<Action ID="X"/>`); the compact form is `<X/>`.
pub fn is_explicit_tag(tag: &str) -> bool {
    matches!(tag, "Action" | "Condition" | "Control" | "Decorator")
}

/// `#[compact]` / `#[explicit]` on a tree: its custom nodes are written in that form, which is
/// not the dialect's usual one (v4 writes compact, v3 explicit). The import sets it from the
/// file, so the export gives each tree back in the form its author used.
pub const COMPACT: &str = "compact";
pub const EXPLICIT: &str = "explicit";

/// `#[unnamed]` on a tree: its `<BehaviorTree>` has no `ID` (BehaviorTree.CPP accepts that when
/// the tree is alone in `<root>`; the import names it [`UNNAMED_TREE`]). The export writes no
/// `ID` while the tree keeps that name, so a renamed tree gets its ID.
pub const UNNAMED: &str = "unnamed";
pub const UNNAMED_TREE: &str = "MainTree";

/// Whether custom nodes are written compact, under a form marker (of the node, else of its
/// tree) or the dialect's default (v4 compact, v3 explicit).
pub fn writes_compact(form: Option<&str>, dialect: Dialect) -> bool {
    match (form, dialect) {
        (Some(f), _) => f == COMPACT,
        (None, Dialect::V4) => true,
        (None, Dialect::V3) => false,
    }
}

/// The form marker a `<BehaviorTree>` needs: the form of its custom nodes when every one of
/// them is written in the form the dialect does not use by default, else none. Walks the tree
/// with a stack (no recursion on the input).
pub fn tree_form(bt: &super::xml::Element, dialect: Dialect) -> Option<&'static str> {
    let (mut compact, mut explicit) = (0usize, 0usize);
    let mut todo: Vec<&super::xml::Element> = bt.elements().collect();
    while let Some(el) = todo.pop() {
        if is_explicit_tag(&el.name) {
            explicit += 1;
        } else if !is_bt_builtin(&el.name, dialect) && !is_subtree_tag(&el.name) {
            compact += 1;
        }
        todo.extend(el.elements());
    }
    match dialect {
        Dialect::V4 if explicit > 0 && compact == 0 => Some(EXPLICIT),
        Dialect::V3 if compact > 0 && explicit == 0 => Some(COMPACT),
        _ => None,
    }
}
