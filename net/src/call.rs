//! Component calls over the network, the caller's side (docs/network.md): a call of a leaf a
//! component serves goes to the host that runs the instance serving the caller now, as a
//! signed `call` message, and the leaf runs once that host's signed `reply` says it took the
//! call. The call waits for the reply (the leaf is the tree's synchronous call to the
//! component, as ADE's remote calls are), at most the serving component's heartbeat of world
//! time: a dead, hung, cut-off or partitioned component fails the leaf within that, never
//! stalls the robot longer, and once one call to an instance has gone unanswered, the next
//! ones fail at once until a heartbeat of it is heard again. The world's message loss applies to the call (drawn here) and to
//! the reply (drawn by the host); a lost one is a call not answered in time.

use crate::robot::Shared;
use crate::wire::Body;
use affect_runtime::network::{Call, Calls};
use affect_runtime::trace::{Event, TraceSink};
use std::cell::RefCell;
use std::rc::Rc;
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

/// The robot's [`Calls`]: over its node, waiting on its `reply` subscription.
pub struct NetCalls {
    shared: Rc<RefCell<Shared>>,
}

impl NetCalls {
    pub(crate) fn new(shared: Rc<RefCell<Shared>>) -> NetCalls {
        NetCalls { shared }
    }
}

impl Calls for NetCalls {
    fn call(&self, call: &Call) -> Result<(), String> {
        let Ok(mut s) = self.shared.try_borrow_mut() else {
            return Err("the network is busy".into());
        };
        let s = &mut *s;
        let Some(host) = call.host else {
            return Err(format!("`{}` runs on no host", call.component));
        };
        s.last_call += 1;
        let id = s.last_call;
        let (ms, why) = match round_trip(s, call, host, id) {
            Ok(ms) => (Some(ms), None),
            Err(why) => (None, Some(why)),
        };
        s.call_notes.push(Note {
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
}

/// Sends call `id` and waits for its answer; the world time it took.
fn round_trip(s: &mut Shared, call: &Call, host: &str, id: u64) -> Result<f64, String> {
    if s.cut_off() {
        return Err("cut off".into());
    }
    // An instance that left a call unanswered is not waited for again until it is heard:
    // a dead or cut-off host costs the robot one wait, not one per tick.
    let instance = (call.owner.map(str::to_string), call.component.to_string());
    if let Some(since) = s.unanswered.get(&instance) {
        return Err(format!(
            "no answer since {since} ms: waiting for its next heartbeat"
        ));
    }
    // Answers to calls that timed out are old news.
    drop(s.reply_in.drain());
    let lost = s.loss > 0.0 && {
        let loss = s.loss;
        s.call_rng.chance(loss)
    };
    let sent = Instant::now();
    s.node.publish(
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
    let limit = Duration::from_secs_f64((call.timeout_ms / s.speed).max(1.0) / 1000.0);
    let me = s.node.me.clone();
    while let Some(left) = limit.checked_sub(sent.elapsed()) {
        let Some(raw) = s.reply_in.wait(left) else {
            break;
        };
        let Some(m) = s.node.accept(&raw) else {
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
            true => Ok(sent.elapsed().as_secs_f64() * 1000.0 * s.speed),
            false => Err(why.unwrap_or_else(|| "refused".into())),
        };
    }
    s.unanswered.insert(instance, call.now_ms);
    Err(format!("no answer within {} ms", call.timeout_ms))
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
