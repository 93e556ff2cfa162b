//! The documented deviations from BehaviorTree.CPP (docs/semantics.md, "Where affect
//! differs"): where the library throws, affect keeps the robot running with a defined status.

use affect_compiler::ir::program::Status;
use affect_compiler::sema::NoFiles;
use affect_runtime::run::{run, AgentSummary, RunConfig};
use affect_runtime::trace::{Event, TraceSink};
use std::io;

/// Node transitions as (tick, path, to).
#[derive(Default)]
struct Nodes(Vec<(u64, String, &'static str)>);

impl TraceSink for Nodes {
    fn line(&mut self, tick: u64, _t: f64, _agent: &str, ev: &Event) -> io::Result<()> {
        if let Event::Node { path, to, .. } = ev {
            self.0.push((tick, path.to_string(), to));
        }
        Ok(())
    }
}

fn run_tree(src: &str, ticks: u64) -> (Vec<AgentSummary>, Nodes) {
    let analysis = affect_compiler::check_source_with(src, &NoFiles);
    let program = analysis
        .program
        .unwrap_or_else(|| panic!("{:#?}", analysis.diagnostics));
    let mut nodes = Nodes::default();
    let config = RunConfig {
        ticks,
        ..RunConfig::default()
    };
    let summary = run(&program, &config, &mut nodes, |_| {}).unwrap_or_else(|d| panic!("{d:#?}"));
    (summary, nodes)
}

fn variable(s: &AgentSummary, name: &str) -> String {
    s.variables
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.clone())
        .unwrap_or_else(|| panic!("no variable {name} in {:?}", s.variables))
}

#[test]
fn a_skipped_if_then_else_condition_fails_the_node() {
    // BehaviorTree.CPP throws here; affect fails the node, and neither branch runs.
    let (summary, nodes) = run_tree(
        r#"
main tree Main {
    var then_ran: bool = false;
    var else_ran: bool = false;
    if_then_else {
        check true skip_if true
        do { then_ran = true }
        do { else_ran = true }
    }
}
"#,
        1,
    );
    assert_eq!(summary[0].root, Status::Failure);
    assert_eq!(variable(&summary[0], "then_ran"), "false");
    assert_eq!(variable(&summary[0], "else_ran"), "false");
    assert!(nodes
        .0
        .iter()
        .any(|(_, p, to)| p.starts_with("IfThenElse") && *to == "FAILURE"));
}

#[test]
fn a_skipped_while_do_else_condition_fails_the_node() {
    let (summary, _) = run_tree(
        r#"
main tree Main {
    var do_ran: bool = false;
    var else_ran: bool = false;
    while_do_else {
        check true skip_if true
        do { do_ran = true }
        do { else_ran = true }
    }
}
"#,
        1,
    );
    assert_eq!(summary[0].root, Status::Failure);
    assert_eq!(variable(&summary[0], "do_ran"), "false");
    assert_eq!(variable(&summary[0], "else_ran"), "false");
}

#[test]
fn two_running_children_of_a_reactive_sequence_both_keep_running() {
    // BehaviorTree.CPP throws when a second child of a reactive node is RUNNING while another
    // one is; affect lets both run (each tick restarts the sequence from the first child).
    let (summary, nodes) = run_tree(
        r#"
main tree Main {
    reactive_sequence {
        async_sequence { sleep(100ms) sleep(100ms) }
        sleep(1s)
    }
}
"#,
        3,
    );
    assert_eq!(summary[0].root, Status::Running);
    let running: Vec<&str> = nodes
        .0
        .iter()
        .filter(|(_, _, to)| *to == "RUNNING")
        .map(|(_, p, _)| p.as_str())
        .collect();
    assert!(
        running.iter().any(|p| p.starts_with("AsyncSequence")),
        "{running:?}"
    );
    assert!(running.contains(&"Sleep::5"), "{running:?}");
}

#[test]
fn a_parallel_threshold_above_its_children_at_run_time_fails() {
    // The checker rejects constant thresholds that are too large; a computed one fails the
    // node when it ticks (BehaviorTree.CPP throws).
    let (summary, _) = run_tree(
        r#"
main tree Main {
    var need: int = 3;
    var ran: bool = false;
    parallel(success: need, failure: 1) {
        do { ran = true }
        succeed
    }
}
"#,
        1,
    );
    assert_eq!(summary[0].root, Status::Failure);
}
