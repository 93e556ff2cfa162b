//! How the recruitment protocol's messages travel between robots: a [`Radio`]. In-process
//! the world's [`MessageBus`] is the radio (deterministic, with the world's loss, latency
//! and range); a networked run hands the team another one (see [`crate::network`]).

use crate::affect::recruit::Msg;
use crate::world::{AgentId, Envelope, MessageBus, Recipient, World};
use affect_compiler::ir::world::Delivery;

/// What became of one message handed to a radio.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Copies {
    /// Copies put on the air (one per recipient in range), lost ones included.
    pub sent: u64,
    /// Copies lost on the way (the world's `messages .. loss`).
    pub lost: u64,
}

/// Carries the recruitment protocol's messages between the robots of a team.
pub trait Radio {
    /// Sends `msg` from `from` now.
    fn send(&mut self, world: &World, from: AgentId, to: Recipient, msg: Msg) -> Copies;
    /// The messages that have reached `me` by now, oldest first.
    fn receive(&mut self, world: &World, me: AgentId) -> Vec<Envelope<Msg>>;
    /// `messages unicast`: a message to everyone goes to each robot separately.
    fn unicast(&self) -> bool;
}

impl Radio for MessageBus<Msg> {
    fn send(&mut self, world: &World, from: AgentId, to: Recipient, msg: Msg) -> Copies {
        let lost_before = self.stats().lost;
        let sent = MessageBus::send(self, world, from, to, msg) as u64;
        Copies {
            sent,
            lost: self.stats().lost - lost_before,
        }
    }

    fn receive(&mut self, world: &World, me: AgentId) -> Vec<Envelope<Msg>> {
        MessageBus::receive(self, world, me)
    }

    fn unicast(&self) -> bool {
        self.spec().mode == Delivery::Unicast
    }
}
