//! A component call and where it goes: what the simulator's call wrapper (`calls.rs`), the
//! team (which knows the serving instance) and a network (which carries calls to other
//! processes) share. Its own file so that none of them imports another for these types.

use std::rc::Rc;

/// A call of a leaf a component serves (`serves Listen;`), addressed to the instance that
/// serves the component's users now (itself, or the redundant one they were re-bound to).
#[derive(Clone, Debug, PartialEq)]
pub struct Call<'a> {
    /// World time of the calling tick.
    pub now_ms: f64,
    /// The calling agent instance.
    pub caller: &'a str,
    /// The serving instance's owner (an agent instance; `None` for a top-level component).
    pub owner: Option<&'a str>,
    /// The serving instance.
    pub component: &'a str,
    /// The host it runs on, as far as the supervisor knows.
    pub host: Option<&'a str>,
    /// The declared leaf called.
    pub leaf: &'a str,
    /// World time after which an unanswered call fails: the serving component's heartbeat.
    pub timeout_ms: f64,
}

/// Carries component calls to the processes that host the components.
pub trait Calls {
    /// Sends the call and waits for its answer: `Ok` when the serving instance took it, else
    /// why not (no answer within the timeout, refused, lost). Never longer than the timeout.
    fn call(&self, call: &Call) -> Result<(), String>;
}

/// Where a call goes now.
pub struct Route {
    /// The calling agent instance.
    pub caller: String,
    /// The instance serving the component's users; `None` while they are without service.
    pub served: Option<Server>,
}

/// The instance that answers a call.
pub struct Server {
    pub owner: Option<String>,
    pub component: String,
    pub host: Option<String>,
    /// An unanswered call fails after this much world time (the serving heartbeat).
    pub timeout_ms: f64,
    /// Set when the instance runs in another process: what carries the call there.
    pub calls: Option<Rc<dyn Calls>>,
}
