//! Each agent's summary after a run (`affect run`, `affect replay`): ticks, the root's
//! status, transitions and the root blackboard.

use affect_runtime::run::AgentSummary;
use std::io::Write;

pub fn print(summaries: &[AgentSummary]) {
    let mut err = std::io::stderr().lock();
    for s in summaries {
        let _ = writeln!(
            err,
            "{}: {} tick{}, root {}; transitions: {} RUNNING, {} SUCCESS, {} FAILURE, {} IDLE",
            s.agent,
            s.ticks,
            if s.ticks == 1 { "" } else { "s" },
            s.root.name(),
            s.statuses[1],
            s.statuses[2],
            s.statuses[3],
            s.statuses[0]
        );
        for (k, v) in &s.variables {
            let _ = writeln!(err, "  {k} = {v}");
        }
    }
}
