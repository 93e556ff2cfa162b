//! The message bus between the agents of one world: unicast or broadcast, each copy lost
//! with the world's loss probability and never delivered beyond its range, delivered after
//! its latency. Generic over the payload, which the runtime defines (recruitment messages,
//! commands between robots).
//!
//! Deterministic: copies are queued in send order and, for a broadcast, in recipient order.
//! Each copy's loss is one draw keyed by the copy itself (sender, recipient, time of sending
//! and the sender's how-manieth message at that time), not the next number of one stream:
//! with a stream, a run at 10 % loss that lost one more copy than the same seed at 5 % drew
//! every later copy's fate from a shifted position, so the two runs' losses were unrelated
//! from there on and cells of an experiment differed by chance more than by the loss rate.
//! Keyed, a copy lost at 5 % is lost at 10 % too, for as long as the two runs send the same
//! messages (docs/worlds.md). Each recipient has its own queue, so receiving costs what that
//! robot gets, not what the whole team has in flight (one queue for all made a broadcast to
//! 10,000 robots cost 10,000² to hand out).

use super::{AgentId, World};
use crate::rng::Rng;
use affect_compiler::ir::world::MessageSpec;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recipient {
    Agent(AgentId),
    /// Every other agent in range.
    Broadcast,
}

impl Recipient {
    /// The agents a message from `from` is addressed to, in the world's order (range aside):
    /// the one named, if the world has it, or every other agent.
    pub fn agents(self, world: &World, from: AgentId) -> Vec<AgentId> {
        match self {
            Recipient::Agent(id) => world.agent(id).map(|a| a.id).into_iter().collect(),
            Recipient::Broadcast => world
                .agents()
                .iter()
                .map(|a| a.id)
                .filter(|id| *id != from)
                .collect(),
        }
    }
}

/// One delivered copy of a message.
#[derive(Clone, Debug, PartialEq)]
pub struct Envelope<P> {
    pub from: AgentId,
    pub to: Recipient,
    pub sent_ms: u64,
    pub payload: P,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BusStats {
    /// Copies put on the air (one per recipient in range).
    pub sent: u64,
    /// Copies lost at random.
    pub lost: u64,
    /// Copies not sent because the recipient was out of range.
    pub out_of_range: u64,
    /// Copies handed to their recipient.
    pub delivered: u64,
}

struct InFlight<P> {
    deliver_at: u64,
    envelope: Envelope<P>,
}

pub struct MessageBus<P> {
    spec: MessageSpec,
    /// The seed of the loss draws (the world's seed and the stream's name).
    loss_seed: u64,
    /// By sender (the agent id's index): the time of its last message and how many it has
    /// sent at that time, which tells two messages of one sender and tick apart.
    sends_at: Vec<(u64, u64)>,
    /// Copies on their way, by recipient (the agent id's index), in send order.
    in_flight: Vec<Vec<InFlight<P>>>,
    /// How many copies `in_flight` holds.
    pending: usize,
    stats: BusStats,
}

impl<P: Clone> MessageBus<P> {
    pub fn new(spec: &MessageSpec, seed: u64) -> MessageBus<P> {
        MessageBus {
            spec: spec.clone(),
            loss_seed: Rng::named(seed, "messages").next_u64(),
            sends_at: Vec::new(),
            in_flight: Vec::new(),
            pending: 0,
            stats: BusStats::default(),
        }
    }

    /// The bus of a world, with its delivery settings and seed.
    pub fn for_world(world: &World) -> MessageBus<P> {
        MessageBus::new(&world.spec().messages, world.spec().seed)
    }

    pub fn spec(&self) -> &MessageSpec {
        &self.spec
    }

    pub fn stats(&self) -> BusStats {
        self.stats
    }

    /// Sends a message now; returns how many copies went on the air (lost ones included).
    /// Sending to an unknown agent sends nothing.
    pub fn send(&mut self, world: &World, from: AgentId, to: Recipient, payload: P) -> usize {
        let Some(origin) = world.position(from) else {
            return 0;
        };
        let now = world.now_ms();
        let nth = self.nth_at(from, now);
        let mut sent = 0;
        for recipient in to.agents(world, from) {
            let in_range = match (self.spec.range_m, world.position(recipient)) {
                (Some(range), Some(p)) => origin.distance(p) <= range,
                (None, Some(_)) => true,
                (_, None) => false,
            };
            if !in_range {
                self.stats.out_of_range += 1;
                continue;
            }
            sent += 1;
            self.stats.sent += 1;
            // No draw when nothing is ever lost.
            if self.spec.loss > 0.0
                && Rng::keyed(
                    self.loss_seed,
                    &[from.0.into(), recipient.0.into(), now, nth],
                )
                .chance(self.spec.loss)
            {
                self.stats.lost += 1;
                continue;
            }
            let i = recipient.index();
            if self.in_flight.len() <= i {
                self.in_flight.resize_with(i + 1, Vec::new);
            }
            self.pending += 1;
            self.in_flight[i].push(InFlight {
                deliver_at: now.saturating_add(self.spec.latency_ms),
                envelope: Envelope {
                    from,
                    to,
                    sent_ms: now,
                    payload: payload.clone(),
                },
            });
        }
        sent
    }

    /// How many messages `from` has sent before this one at `now`.
    fn nth_at(&mut self, from: AgentId, now: u64) -> u64 {
        let i = from.index();
        if self.sends_at.len() <= i {
            self.sends_at.resize(i + 1, (u64::MAX, 0));
        }
        let (at, n) = &mut self.sends_at[i];
        if *at != now {
            (*at, *n) = (now, 0);
        }
        *n += 1;
        *n - 1
    }

    /// The messages that have reached an agent by now, oldest first.
    pub fn receive(&mut self, world: &World, agent: AgentId) -> Vec<Envelope<P>> {
        let now = world.now_ms();
        let Some(queue) = self.in_flight.get_mut(agent.index()) else {
            return Vec::new();
        };
        if queue.is_empty() {
            return Vec::new();
        }
        let out: Vec<_> = queue
            .extract_if(.., |m| m.deliver_at <= now)
            .map(|m| m.envelope)
            .collect();
        self.pending -= out.len();
        self.stats.delivered += out.len() as u64;
        out
    }

    /// Copies still on their way.
    pub fn pending(&self) -> usize {
        self.pending
    }
}
