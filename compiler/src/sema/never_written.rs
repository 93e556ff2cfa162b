//! E0323: a subtree's `var` without an initial value that nothing in the program can ever
//! write, read where a read without a value stops the tree. Only a subtree instance's own
//! variables qualify: the root's can be given a value with `--bb`, and a port's by the
//! caller. Anything that may write a slot counts as a write (a script, a node's output
//! port, a `for` loop's item, a subtree's input), so the error is reported only when it is
//! certain; the run-time error (E0605) covers the rest.

use crate::diagnostic::Diagnostic;
use crate::ir::functions::HostFn;
use crate::ir::program::{is_unset, AgentProgram, NodeKind, Op, PortBinding, SlotId};
use crate::span::Span;

/// Reports E0323 for each declaration in `locals` (subtree variables without an initial
/// value: slot, declaration) whose slot the lowered program reads with a checked read and
/// never writes. Runs after the checked reads are chosen.
pub(super) fn report(p: &AgentProgram, locals: &[(SlotId, Span)], diags: &mut Vec<Diagnostic>) {
    if locals.is_empty() {
        return;
    }
    let written = writes(p);
    let mut read = vec![false; p.slots.len()];
    for op in &p.code {
        if let Op::LoadChecked(s) = op {
            read[*s as usize] = true;
        }
    }
    let mut reported: Vec<Span> = Vec::new();
    for &(s, span) in locals {
        let s = s as usize;
        if !read[s] || written[s] || reported.contains(&span) {
            continue;
        }
        reported.push(span);
        let name = p.slots[s].name.rsplit('/').next().unwrap_or_default();
        diags.push(
            Diagnostic::error(
                "E0323",
                format!("`{name}` is read, but nothing ever gives it a value"),
                span,
            )
            .with_label("declared without an initial value, and never written")
            .with_help(format!(
                "give it an initial value (`var {name}: .. = ..`), assign it before it is read, \
                 or make it a port so the caller passes it"
            )),
        );
    }
}

/// For each slot, whether anything in the program may write a value into it (taking a
/// value away with `unset_blackboard` is not a write).
fn writes(p: &AgentProgram) -> Vec<bool> {
    let mut w = vec![false; p.slots.len()];
    let mut mark = |s: SlotId| {
        if let Some(x) = w.get_mut(s as usize) {
            *x = true;
        }
    };
    for (i, op) in p.code.iter().enumerate() {
        match *op {
            Op::Store(s) | Op::ListSet(s) => {
                let unset = matches!(
                    i.checked_sub(1).map(|j| p.code[j]),
                    Some(Op::Const(v)) if is_unset(v)
                );
                if !unset {
                    mark(s);
                }
            }
            Op::StoreClamped(s, ..) | Op::ListSetAt(s) | Op::Host(HostFn::ListPush, s, _) => {
                mark(s)
            }
            _ => {}
        }
    }
    for node in &p.nodes {
        match &node.kind {
            NodeKind::Decorator(d) => d.slots(true).for_each(&mut mark),
            NodeKind::SubTree { inputs } => inputs.iter().for_each(|(s, _)| mark(*s)),
            NodeKind::Foreign { ports, .. } => {
                for port in ports {
                    if let PortBinding::Slot(s) = port {
                        mark(*s);
                    }
                }
            }
            _ => {}
        }
    }
    w
}

#[cfg(test)]
mod tests {
    fn codes(src: &str) -> Vec<String> {
        crate::check_source_with(src, &crate::sema::NoFiles)
            .diagnostics
            .iter()
            .map(|d| d.code.to_string())
            .filter(|c| c.starts_with('E'))
            .collect()
    }

    fn tree(body: &str) -> String {
        format!(
            "action Sense(out v: num);\naction Show(in v: num);\ntree Sub(in k: num) {{\n    var x: num;\n    var y: num = 0;\n    sequence {{ {body} }}\n}}\nmain tree Main {{\n    var top: num;\n    sequence {{ Sub(k: 1) do {{ top = top + 1 }} }}\n}}\n"
        )
    }

    #[test]
    fn a_subtree_variable_nothing_writes_is_an_error_where_it_is_read() {
        assert_eq!(codes(&tree("do { y = x + 1 }")), ["E0323"]);
        assert_eq!(codes(&tree("check x > 0")), ["E0323"]);
        // Taking its value away is not giving it one.
        assert_eq!(
            codes(&tree("unset_blackboard(\"x\") do { y = x }")),
            ["E0323"]
        );
    }

    #[test]
    fn anything_that_may_write_it_keeps_the_check_for_run_time() {
        // Written by a script (even later, or in a branch), a node's output, a loop item.
        assert!(codes(&tree("do { y = x } do { x = 1 }")).is_empty());
        assert!(codes(&tree("do { if y > 0 { x = 2; } y = x }")).is_empty());
        assert!(codes(&tree("Sense(v: x) do { y = x }")).is_empty());
        // Not read where a missing value stops the tree: an input port passes it on.
        assert!(codes(&tree("Show(v: x)")).is_empty());
        // The root's variables can be set with `--bb` (`top` above is read unwritten).
        assert!(codes(&tree("succeed")).is_empty());
    }
}
