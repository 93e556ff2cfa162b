//! Component calls over the network, the caller's side (docs/network.md): a call of a leaf a
//! component serves goes to the host that runs the instance serving the caller now, as a
//! signed `call` message, and the leaf runs once that host's signed `reply` says it took the
//! call. The call waits for the reply (the leaf is the tree's synchronous call to the
//! component, as ADE's remote calls are), at most the serving component's heartbeat of world
//! time: a dead, hung, cut-off or partitioned component fails the leaf within that, never
//! stalls the robot longer, and once one call to an instance has gone unanswered, the next
//! ones fail at once until a heartbeat of it is heard again. The world's message loss applies to the call (drawn here) and to
//! the reply (drawn by the host); a lost one is a call not answered in time.

use crate::node::{Inbox, Node};
use crate::wire::Body;
use affect_runtime::network::Call;
use affect_runtime::rng::Rng;
use affect_runtime::trace::{Event, TraceSink};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// A call made during a tick, for the caller's trace.
#[derive(Clone, Debug, PartialEq)]
pub struct Note {
    pub t_ms: f64,
    pub component: String,
    pub leaf: String,
    pub host: String,
    pub id: u64,
    /// World time from sending to the answer, when answered.
    pub ms: Option<f64>,
    pub why: Option<String>,
}

/// The caller's side of component calls: the robot's `reply` subscription, its own random
/// stream for loss (so calls leave the recruitment protocol's draws alone), the last call's
/// number, world time per wall time, the calls made since the last tick's trace, and the
/// instances (owner, name) that left a call unanswered, with when: further calls to them fail
/// at once until they are heard again.
pub(crate) struct Caller {
    pub(crate) reply_in: Inbox,
    pub(crate) rng: Rng,
    pub(crate) last: u64,
    pub(crate) speed: f64,
    pub(crate) notes: Vec<Note>,
    pub(crate) unanswered: HashMap<(Option<String>, String), f64>,
}

impl Caller {
    pub(crate) fn new(reply_in: Inbox, rng: Rng, speed: f64) -> Caller {
        Caller {
            reply_in,
            rng,
            last: 0,
            speed: if speed > 0.0 { speed } else { 1.0 },
            notes: Vec::new(),
            unanswered: HashMap::new(),
        }
    }

    /// A heartbeat of the instance was heard: it may be called again.
    pub(crate) fn heard(&mut self, owner: &Option<String>, component: &str) {
        self.unanswered
            .retain(|(o, c), _| o != owner || c != component);
    }

    /// Makes `call` over `node` (`cut_off`: the launcher's partition holds; `loss`: the
    /// world's message loss) and notes it for the trace.
    pub(crate) fn call(
        &mut self,
        node: &mut Node,
        cut_off: bool,
        loss: f64,
        call: &Call,
    ) -> Result<(), String> {
        let Some(host) = call.host else {
            return Err(format!("`{}` runs on no host", call.component));
        };
        self.last += 1;
        let id = self.last;
        let (ms, why) = match self.round_trip(node, cut_off, loss, call, host, id) {
            Ok(ms) => (Some(ms), None),
            Err(why) => (None, Some(why)),
        };
        self.notes.push(Note {
            t_ms: call.now_ms,
            component: call.component.to_string(),
            leaf: call.leaf.to_string(),
            host: host.to_string(),
            id,
            ms,
            why: why.clone(),
        });
        why.map_or(Ok(()), Err)
    }

    /// Sends call `id` and waits for its answer; the world time it took.
    fn round_trip(
        &mut self,
        node: &mut Node,
        cut_off: bool,
        loss: f64,
        call: &Call,
        host: &str,
        id: u64,
    ) -> Result<f64, String> {
        if cut_off {
            return Err("cut off".into());
        }
        // An instance that left a call unanswered is not waited for again until it is heard:
        // a dead or cut-off host costs the robot one wait, not one per tick.
        let instance = (call.owner.map(str::to_string), call.component.to_string());
        if let Some(since) = self.unanswered.get(&instance) {
            return Err(format!(
                "no answer since {since} ms: waiting for its next heartbeat"
            ));
        }
        // Answers to calls that timed out are old news.
        drop(self.reply_in.drain());
        let lost = loss > 0.0 && self.rng.chance(loss);
        let sent = Instant::now();
        node.publish(
            call.now_ms,
            Some(host.to_string()),
            if lost {
                vec![host.to_string()]
            } else {
                Vec::new()
            },
            Body::Call {
                id,
                owner: call.owner.map(str::to_string),
                component: call.component.to_string(),
                leaf: call.leaf.to_string(),
            },
        );
        let limit = Duration::from_secs_f64((call.timeout_ms / self.speed).max(1.0) / 1000.0);
        let me = node.me.clone();
        while let Some(left) = limit.checked_sub(sent.elapsed()) {
            let Some(raw) = self.reply_in.wait(left) else {
                break;
            };
            let Some(m) = node.accept(&raw) else {
                continue;
            };
            let Body::Reply {
                id: answered,
                served,
                why,
            } = m.body
            else {
                continue;
            };
            if answered != id || m.to.as_deref() != Some(me.as_str()) || m.lost_for.contains(&me) {
                continue;
            }
            return match served {
                true => Ok(sent.elapsed().as_secs_f64() * 1000.0 * self.speed),
                false => Err(why.unwrap_or_else(|| "refused".into())),
            };
        }
        self.unanswered.insert(instance, call.now_ms);
        Err(format!("no answer within {} ms", call.timeout_ms))
    }
}

/// Writes the calls of the tick to the caller's trace.
pub(crate) fn trace(notes: &mut Vec<Note>, tick: u64, agent: &str, sink: &mut dyn TraceSink) {
    for n in notes.drain(..) {
        let _ = sink.line(
            tick,
            n.t_ms.max(0.0),
            agent,
            &Event::Call {
                caller: agent,
                component: &n.component,
                leaf: &n.leaf,
                host: &n.host,
                id: n.id,
                state: if n.why.is_none() {
                    "answered"
                } else {
                    "failed"
                },
                ms: n.ms,
                why: n.why.as_deref(),
            },
        );
    }
}
