//! The seam between a run and what carries its messages. In-process (the default) the
//! world's message bus ([`crate::radio`]) carries recruitment messages and the run's post office carries
//! commands, deterministically; a networked run (`affect run --net`, the `affect-net` crate)
//! gives the run a [`Network`] instead, whose [`Radio`] sends the same messages to robots in
//! other processes. Nothing here knows how: the runtime stays free of network code.

pub use crate::radio::{Copies, Radio};
pub use crate::sim::call_route::{Call, Calls};
use crate::sim::mail::Mail;
use crate::sim::team::Team;
use crate::trace::TraceSink;
use crate::world::World;
use std::rc::Rc;

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
