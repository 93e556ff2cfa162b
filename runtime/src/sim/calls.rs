//! Component calls (seed 001): a leaf a component declares it serves (`serves Listen;`) is a
//! call to that component. ADE's components call each other; a call to a component whose
//! users are without service cannot be answered, so the leaf fails, and once the supervisor
//! has re-bound the users to a redundant instance or restarted the component, calls go to
//! that instance.
//!
//! In simulation the call is answered in the calling process: it fails while `failed(c)` is
//! true, else the leaf runs. In a networked run (`affect launch`) a component placed on a
//! host runs in that host's process: the call goes there over the network
//! ([`Calls`](super::call_route::Calls)) and the leaf runs only once the host has answered; no answer
//! within the component's heartbeat fails the leaf. What the leaf does in the world (the
//! astronaut hearing, the robot moving) stays the calling process's, which owns its copy of
//! the world.

use super::call_route::Call;
use super::team::Link;
use crate::leaf::{Leaf, LeafCall, LeafTable};
use affect_compiler::ir::program::{AgentProgram, NodeKind, Program, Status};

/// Puts a call in front of every leaf a component of the agent (its own, else the file's)
/// serves.
pub fn wrap(table: &mut LeafTable, program: &Program, agent: &AgentProgram, link: &Link) {
    let served_by = |leaf: &str| {
        (agent.components.iter())
            .chain(&program.components)
            .find(|c| c.serves.iter().any(|s| s == leaf))
            .map(|c| c.name.clone())
    };
    let mut by_node: Vec<Option<(String, String)>> = Vec::new();
    for node in &agent.nodes {
        by_node.push(match &node.kind {
            NodeKind::Foreign { leaf, .. } => {
                let info = &program.leaves[*leaf as usize];
                served_by(&info.name).map(|c| (c, info.name.clone()))
            }
            _ => None,
        });
    }
    if by_node.iter().all(Option::is_none) {
        return;
    }
    table.wrap_all(|node, inner| match by_node.get(node as usize) {
        Some(Some((component, leaf))) => Box::new(CallLeaf {
            inner,
            link: link.clone(),
            component: component.clone(),
            leaf: leaf.clone(),
            running: false,
        }),
        _ => inner,
    });
}

/// A leaf that is a call to a component.
struct CallLeaf {
    inner: Box<dyn Leaf>,
    link: Link,
    component: String,
    leaf: String,
    /// The leaf answered RUNNING last time.
    running: bool,
}

impl CallLeaf {
    /// Whether the call is answered (every tick of the leaf is a call).
    fn answered(&self, now_ms: f64) -> bool {
        match self.link.serving(&self.component) {
            // Not a component of this team (never for a checked program): nothing to ask.
            None => return true,
            Some(None) => return false,
            Some(Some(false)) => return true,
            Some(Some(true)) => {}
        }
        let Some(route) = self.link.route(&self.component) else {
            // Not a component of this team (never for a checked program): nothing to ask.
            return true;
        };
        let Some(server) = route.served else {
            return false;
        };
        let Some(calls) = &server.calls else {
            return true;
        };
        calls
            .call(&Call {
                now_ms,
                caller: &route.caller,
                owner: server.owner.as_deref(),
                component: &server.component,
                host: server.host.as_deref(),
                leaf: &self.leaf,
                timeout_ms: server.timeout_ms,
            })
            .is_ok()
    }
}

impl Leaf for CallLeaf {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        if !self.answered(call.now_ms) {
            if std::mem::take(&mut self.running) {
                self.inner.halt(call.now_ms);
            }
            return Status::Failure;
        }
        let status = self.inner.tick(call);
        self.running = status == Status::Running;
        status
    }

    fn halt(&mut self, now_ms: f64) {
        self.running = false;
        self.inner.halt(now_ms);
    }
}
