//! The seam between a run and what carries its messages. In-process (the default) the
//! world's message bus ([`crate::radio`]) carries recruitment messages and the run's post office carries
//! commands, deterministically; a networked run (`affect run --net`, the `affect-net` crate)
//! gives the run a [`Network`] instead, whose [`Radio`] sends the same messages to robots in
//! other processes. Nothing here knows how: the runtime stays free of network code.

pub use crate::radio::{Copies, Radio};
use crate::sim::mail::Mail;
use crate::sim::team::Team;
use crate::trace::TraceSink;
use crate::world::World;
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

/// What a tick's exchange with the network reaches: the world (where the other robots
/// are), the team (recruitment, components) and the post office (commands).
pub struct Exchange<'a> {
    pub world: Option<&'a mut World>,
    pub team: &'a mut Team,
    pub mail: &'a mut Mail,
}

/// A networked run's link to the other processes of its team. The run loop calls it around
/// each tick of its (one) agent; everything it does goes through the team and the post office,
/// so the agent's program runs unchanged.
pub trait Network {
    /// The radio for recruitment messages in this world (called once, before any agent is
    /// built).
    fn radio(&mut self, world: &World) -> Box<dyn Radio>;
    /// What carries calls of leaves that components on other hosts serve (`None`: they run
    /// here, as in simulation).
    fn calls(&mut self) -> Option<Rc<dyn Calls>> {
        None
    }
    /// Robots of the world that run elsewhere (every one but the agent run here): commands
    /// to them go over the network.
    fn remote(&self, instance: &str) -> bool;
    /// Before the tick at world time `now_ms` (the run's clock has waited until it was due):
    /// hands over what arrived (where the other robots are to the world, commands to the
    /// post office, component heartbeats to the team's supervisor). False ends the run
    /// (interrupted, or the launcher is gone).
    fn before_tick(&mut self, now_ms: f64, x: Exchange) -> bool;
    /// After the tick: sends what the tick wants sent beyond the recruitment protocol (where
    /// its robot now is, commands, restart requests) and writes the network's own trace
    /// lines (`rejected`).
    fn after_tick(
        &mut self,
        tick: u64,
        now_ms: f64,
        agent: &str,
        x: Exchange,
        sink: &mut dyn TraceSink,
    );
}
