//! Variables of type `any` given a list. An entry of an imported tree that nothing types
//! (`var x: any;`) may still be given a list: by a script (`@x = @path`, where `path` is a
//! list) or by a `var x: any` assignment of a list. Holding the list's id would make the two
//! share one list, so such a variable becomes a list variable: it owns a list, assignment
//! copies into it (at every depth) and traces show it as a list, as BehaviorTree.CPP copies a
//! `std::vector` entry. A variable given a list and also something else is E0322.

use crate::diagnostic::Diagnostic;
use crate::ir::program::{is_unset, AgentProgram, Op, SlotId, ValueKind};
use crate::span::Span;

/// Turns the `any` variables `declared` (slot, declaration) that the program gives lists
/// into list variables; reports E0322 for a variable given a list and something else.
pub(super) fn lists_in_any(
    p: &mut AgentProgram,
    declared: &[(SlotId, Span)],
    stores: &[(usize, Span)],
    diags: &mut Vec<Diagnostic>,
) {
    let mut decl: Vec<Option<Span>> = vec![None; p.slots.len()];
    for &(s, span) in declared {
        decl[s as usize] = Some(span);
    }
    let mut listed = vec![false; p.slots.len()];
    // To a fixpoint: an `any` variable that became a list makes a copy of it a list too.
    // Each round but the last lists at least one more variable.
    loop {
        let mut changed = false;
        for i in 0..p.code.len() {
            let s = match p.code[i] {
                // The checker knew the value was a list (`x = [1, 2]`, `x = q`).
                Op::ListSet(s)
                    if p.slots
                        .get(s as usize)
                        .is_some_and(|x| x.kind != ValueKind::List) =>
                {
                    // Its elements' kinds, for traces, when the value is a variable's.
                    let from = match i.checked_sub(1).map(|j| p.code[j]) {
                        Some(Op::Load(t) | Op::LoadChecked(t) | Op::ListBuild(t, _)) => Some(t),
                        _ => None,
                    };
                    // (A program with errors may name slots it never made.)
                    let elems = from
                        .and_then(|t| p.slots.get(t as usize))
                        .map(|t| t.elems.clone());
                    if let Some(elems) = elems {
                        if p.slots[s as usize].elems.is_empty() {
                            p.slots[s as usize].elems = elems;
                        }
                    }
                    s
                }
                // `@x = @y`: only the lowering knows that `y` is a list.
                Op::Store(s) if i > 0 && decl.get(s as usize).is_some_and(Option::is_some) => {
                    match p.code[i - 1] {
                        Op::Load(t) | Op::LoadChecked(t)
                            if p.slots
                                .get(t as usize)
                                .is_some_and(|x| x.kind == ValueKind::List) =>
                        {
                            p.code[i] = Op::ListSet(s);
                            if p.slots[s as usize].elems.is_empty() {
                                p.slots[s as usize].elems = p.slots[t as usize].elems.clone();
                            }
                            s
                        }
                        _ => continue,
                    }
                }
                _ => continue,
            };
            if decl[s as usize].is_none() {
                // Reported when the code was copied (`Builder::list_target`).
                continue;
            }
            let slot = &mut p.slots[s as usize];
            if slot.kind != ValueKind::List {
                slot.kind = ValueKind::List;
                slot.any = false;
                if slot.elems.is_empty() {
                    slot.elems = vec![ValueKind::Num];
                }
                listed[s as usize] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    // `unset_blackboard` of a variable that became a list takes the list's value away.
    for i in 1..p.code.len() {
        if let (Op::Const(v), Op::Store(s)) = (p.code[i - 1], p.code[i]) {
            if is_unset(v) && listed.get(s as usize) == Some(&true) {
                p.code[i] = Op::ListSet(s);
            }
        }
    }
    report_mixed(p, &decl, &listed, stores, diags);
}

/// E0322 for each variable that became a list and is also given another value: at the
/// later of the two assignments (where the variable stops holding one kind of value), with
/// the earlier one and the declaration beside it. An assignment the code does not place
/// (a node's output port, an initial value) leaves the error at what is known.
fn report_mixed(
    p: &AgentProgram,
    decl: &[Option<Span>],
    listed: &[bool],
    stores: &[(usize, Span)],
    diags: &mut Vec<Diagnostic>,
) {
    if !listed.contains(&true) {
        return;
    }
    let written: std::collections::HashMap<usize, Span> = stores.iter().copied().collect();
    // Per slot: whether something stores a value that is not a list, and the first
    // assignment of a list and of another value that the code places.
    let mut stored = vec![false; p.slots.len()];
    let mut list_at: Vec<Option<Span>> = vec![None; p.slots.len()];
    let mut other_at: Vec<Option<Span>> = vec![None; p.slots.len()];
    for (i, op) in p.code.iter().enumerate() {
        let (s, first) = match *op {
            Op::ListSet(s) => (s as usize, &mut list_at),
            Op::Store(s) | Op::StoreClamped(s, ..) => {
                if let Some(x) = stored.get_mut(s as usize) {
                    *x = true;
                }
                (s as usize, &mut other_at)
            }
            _ => continue,
        };
        if let Some(slot @ None) = first.get_mut(s) {
            *slot = written.get(&i).copied();
        }
    }
    for (s, span) in decl.iter().enumerate() {
        let Some(declared) = *span else { continue };
        let initial = !is_unset(p.slots[s].init);
        if !listed[s] || !(stored[s] || initial) {
            continue;
        }
        let name = &p.slots[s].name;
        let list_label = "this gives it a list";
        let other_label = "this gives it a value that is not a list";
        let d = match (list_at[s], other_at[s]) {
            (Some(list), Some(other)) => {
                let ((first, first_label), (second, second_label)) = if other.start < list.start {
                    ((other, other_label), (list, list_label))
                } else {
                    ((list, list_label), (other, other_label))
                };
                mixed(name, second)
                    .with_label(second_label)
                    .with_secondary(first, first_label)
                    .with_secondary(declared, "declared `any` here")
            }
            // Given a value by its declaration, then a list.
            (Some(list), None) if initial && !stored[s] => mixed(name, list)
                .with_label(list_label)
                .with_secondary(declared, "declared `any` with a value that is not a list"),
            (Some(list), None) => mixed(name, list)
                .with_label(list_label)
                .with_secondary(declared, "declared `any` here"),
            (None, _) => mixed(name, declared).with_label("declared `any` here"),
        };
        diags.push(d.with_help(format!(
            "a variable holds lists or other values, not both: declare its type \
             (`var {name}: [num]`) and keep the other value in a variable of its own"
        )));
    }
}

fn mixed(name: &str, at: Span) -> Diagnostic {
    Diagnostic::error(
        "E0322",
        format!("`{name}` is given a list and a value that is not a list"),
        at,
    )
}

#[cfg(test)]
mod tests {
    use crate::ir::program::{is_unset, AgentProgram, Op, ValueKind};

    fn lowered(src: &str) -> AgentProgram {
        let a = crate::check_source_with(src, &crate::sema::NoFiles);
        let errors: Vec<&str> = (a.diagnostics.iter())
            .filter(|d| d.code.starts_with('E'))
            .map(|d| d.code)
            .collect();
        assert!(errors.is_empty(), "{errors:?}");
        a.program.expect("compiles").agents.remove(0)
    }

    fn slot(p: &AgentProgram, name: &str) -> u32 {
        p.slots.iter().position(|s| s.name == name).expect("a slot") as u32
    }

    /// An `any` variable given a list and unset is a list variable whose list is marked
    /// unset (not E0322: taking the value away is not another value), and reading it checks.
    #[test]
    fn unsetting_an_any_list_is_not_another_value() {
        let p = lowered(
            "main tree T {\n    var a: any;\n    var b: [int] = [1];\n    sequence { do { a = b } unset_blackboard(\"a\") do { b = a } }\n}\n",
        );
        let a = slot(&p, "a");
        assert_eq!(p.slots[a as usize].kind, ValueKind::List);
        assert!(p
            .code
            .windows(2)
            .any(|w| matches!(w, [Op::Const(v), Op::ListSet(s)] if is_unset(*v) && *s == a)));
        assert!(p.code.contains(&Op::LoadChecked(a)));
    }

    /// `unset_blackboard` of a typed list runs (no E0601): the list is marked unset and its
    /// reads are checked; a subtree's port given it can be unset too.
    #[test]
    fn an_unset_list_and_the_ports_given_it_have_checked_reads() {
        let p = lowered(
            "tree Sum(in xs: [num], out n: num) {\n    do { n = len(xs) }\n}\n\nmain tree T {\n    var xs: [num] = [1];\n    var ys: [num] = [];\n    var n: num = 0;\n    sequence { unset_blackboard(\"xs\") do { ys = xs } Sum(xs: [n, 1], n: n) }\n}\n",
        );
        assert!(p.pending.is_empty(), "{:?}", p.pending);
        let xs = slot(&p, "xs");
        assert!(p.code.contains(&Op::LoadChecked(xs)));
        assert!(!p.code.contains(&Op::Load(xs)));
    }

    /// An `in` port of type `any` given a list is a list port of the list's type (it gets a
    /// copy when the subtree starts); given a number it stays a number.
    #[test]
    fn an_any_port_given_a_list_is_a_list_port() {
        let p = lowered(
            "tree Keep(in v: any, out o: [num]) {\n    do { o = v }\n}\n\nmain tree T {\n    var g: [[num]] = [[1]];\n    var o: [num] = [];\n    var n: num = 1;\n    sequence { Keep(v: g[0], o: o) Keep(v: [n, 2], o: o) Keep(v: [3, 4], o: o) Keep(v: n + 1, o: o) }\n}\n",
        );
        let kinds: Vec<ValueKind> = (p.slots.iter())
            .filter(|s| s.name.ends_with("/v"))
            .map(|s| s.kind)
            .collect();
        assert_eq!(
            kinds,
            [
                ValueKind::List,
                ValueKind::List,
                ValueKind::List,
                ValueKind::Num
            ]
        );
    }
}
