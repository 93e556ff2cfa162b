//! Hooks around the tick of any node (Groot 2's HOOK_INSERT on a control, a decorator, a
//! SubTree or a script, as BehaviorTree.CPP's `Groot2Publisher` accepts them). Actions and
//! conditions are hooked where they are called out to ([`crate::leaf::LeafWrap`], in both
//! engines); the other nodes only the interpreter can stop at, so a run with node hooks runs
//! the interpreter (and says so, as every fallback from the JIT is told).

use affect_compiler::ir::program::{NodeId, Status};
use std::rc::Rc;

/// The hooks of one agent instance, asked by the interpreter in BehaviorTree.CPP's
/// `TreeNode::executeTick` order: preconditions first; the pre-tick hook only when the node
/// is not completed, a SUCCESS or FAILURE from it replacing the tick; then the
/// postconditions; then the post-tick hook, whose SUCCESS or FAILURE replaces the status.
pub trait NodeHooks {
    /// Whether this node is hooked here (the interpreter asks once, when it is built).
    fn covers(&self, node: NodeId) -> bool;
    /// Before the tick: `Some` replaces it.
    fn pre(&self, node: NodeId) -> Option<Status>;
    /// After the tick, with its status: `Some` replaces the status.
    fn post(&self, node: NodeId, status: Status) -> Option<Status>;
}

/// Makes the hooks of each agent instance by its name as the run builds it (`None`: no
/// hooks on that instance).
#[derive(Clone)]
pub struct NodeHookFn(pub Rc<MakeHooks>);

/// `(instance) -> its hooks`.
pub type MakeHooks = dyn Fn(&str) -> Option<Rc<dyn NodeHooks>>;

impl std::fmt::Debug for NodeHookFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NodeHookFn")
    }
}
