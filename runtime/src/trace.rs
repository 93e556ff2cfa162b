//! Trace events and their JSON Lines form (docs/trace.md). Every line has `tick`, `t_ms`,
//! `agent` and `ev`; later versions add fields, never rename them.

use std::io::{self, Write};

/// What happened. Strings borrow from the program, so recording costs no allocation.
#[derive(Clone, Debug, PartialEq)]
pub enum Event<'a> {
    /// A node's status changed.
    Node {
        uid: u32,
        path: &'a str,
        from: &'static str,
        to: &'static str,
    },
    /// A visible variable changed.
    Var { name: &'a str, value: Value<'a> },
    /// A drive changed, and the intention it generated.
    Drive {
        name: &'a str,
        from: &'a str,
        to: &'a str,
        intention: Option<Value<'a>>,
    },
    /// An emotion machine changed state.
    Emotion {
        machine: &'a str,
        from: &'a str,
        to: &'a str,
        intensity: f64,
        cause: &'a str,
    },
    /// An emotional memory process ran.
    Memory {
        op: &'a str,
        key: &'a str,
        score: f64,
    },
    /// A message between agents.
    Msg {
        from: &'a str,
        to: &'a str,
        kind: &'a str,
    },
    /// A behaviour module changed status (seed 004).
    Behavior {
        module: &'a str,
        from: &'static str,
        to: &'static str,
        value: f64,
    },
    /// Copies of a message lost on their way (the world's `messages .. loss`).
    Lost {
        from: &'a str,
        to: &'a str,
        kind: &'a str,
        copies: u64,
    },
    /// A step of the recruitment protocol (seed 002): SHAME deciding on a HELP, the
    /// requester's choice, the handshake, a side giving up.
    Recruit {
        block: &'a str,
        step: &'a str,
        peer: Option<&'a str>,
        shame: Option<f64>,
        distance: Option<f64>,
        eta_ms: Option<f64>,
        offers: Option<u32>,
        lease_ms: Option<f64>,
        why: Option<&'a str>,
    },
    /// A component's state changed (seed 001): `failed`, `rebound`, `restarted`,
    /// `recovered`, `abandoned`.
    Component {
        name: &'a str,
        state: &'a str,
        host: Option<&'a str>,
        to: Option<&'a str>,
        silence_ms: Option<f64>,
    },
    /// A message from the network that this robot refused (networked runs): not signed by a
    /// member of its team, replayed, or unreadable. It was not acted on.
    Rejected {
        from: &'a str,
        kind: &'a str,
        why: &'a str,
    },
    /// A teammate's process found gone or back (networked runs, docs/network.md): `lost`
    /// when its liveliness token was withdrawn or nothing was heard from it for longer than
    /// the lease, `back` when it is heard again; `why` says which.
    Robot {
        name: &'a str,
        state: &'a str,
        why: &'a str,
    },
    /// A read of a variable that holds no value (declared without one and never written,
    /// or removed by `unset_blackboard`): BehaviorTree.CPP throws "Variable not found", and
    /// the agent's tree stops; this is its last tick.
    Error { var: &'a str, text: String },
    /// A component call over the network (networked runs): written by the host that served
    /// it (`served`) and by the caller, with the round trip (`answered`) or why it failed.
    Call {
        caller: &'a str,
        component: &'a str,
        leaf: &'a str,
        host: &'a str,
        id: u64,
        state: &'a str,
        ms: Option<f64>,
        why: Option<&'a str>,
    },
    /// A line the runtime or a node wants the user to see.
    Log { level: &'static str, text: String },
    /// A device failed (after its retries): a sensor keeps its last value, the leaf that
    /// drove an actuator fails.
    Device {
        device: &'a str,
        error: String,
        attempts: u32,
    },
    /// How long a tick's phases took on the wall clock (`--hardware`, `--realtime`); traces
    /// of different runs are not expected to agree on these.
    Timing(Timing),
    /// The timing of the whole run: percentiles of the tick time, the lateness of tick
    /// starts (jitter), and the overruns.
    TimingSummary(TimingSummary),
    /// The end of an agent's run.
    Summary {
        ticks: u64,
        statuses: [u64; 5],
        root: &'static str,
    },
}

/// One tick on the wall clock, microseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    pub sense_us: f64,
    pub process_us: f64,
    pub act_us: f64,
    /// The whole tick, sense to the last write.
    pub tick_us: f64,
    /// How late the tick started against its schedule (jitter).
    pub late_us: f64,
    /// The tick took longer than the agent's period.
    pub overrun: bool,
    /// The tick ended after its deadline: lateness plus its own time past the period.
    pub missed: bool,
    /// Periods skipped to start this tick: it started that many periods late (a stall),
    /// and the ticks due meanwhile were not run.
    pub skipped: u64,
}

/// A run's timing, microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TimingSummary {
    pub ticks: u64,
    pub tick_p50_us: f64,
    pub tick_p99_us: f64,
    pub tick_max_us: f64,
    pub late_p50_us: f64,
    pub late_p99_us: f64,
    pub late_max_us: f64,
    pub overruns: u64,
    /// Ticks that missed their deadline.
    pub missed: u64,
    /// Periods skipped after stalls.
    pub skipped: u64,
    /// The agent's period.
    pub period_us: f64,
}

/// Whether a slot's value changed, as the trace sees it: bit for bit, except that every NaN
/// is the same value. Which NaN an operation yields differs between the engines and
/// between CPUs (x86's default NaN is negative, Arm's positive), and the trace prints every
/// NaN as `null`; comparing NaN bits would make a run's events depend on the engine and
/// the platform.
pub fn same_value(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// A value as the trace shows it.
#[derive(Clone, Debug, PartialEq)]
pub enum Value<'a> {
    Num(f64),
    Int(i64),
    Bool(bool),
    Str(&'a str),
    List(Vec<f64>),
    /// A list of anything but numbers: labels, strings, enum variants, lists.
    Items(Vec<Value<'a>>),
}

fn json_str(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    for c in s.chars() {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\t' => out.extend_from_slice(b"\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    out.push(b'"');
}

/// Numbers in the shortest form that reads back to the same bits; non-finite as `null`.
fn json_num(out: &mut Vec<u8>, v: f64) {
    if v.is_finite() {
        if v.fract() == 0.0 && v.abs() < 1e15 {
            let _ = write!(out, "{}.0", v as i64);
        } else {
            let _ = write!(out, "{v}");
        }
    } else {
        out.extend_from_slice(b"null");
    }
}

fn json_opt_str(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => json_str(out, s),
        None => out.extend_from_slice(b"null"),
    }
}

fn json_opt_num(out: &mut Vec<u8>, v: Option<f64>) {
    match v {
        Some(v) => json_num(out, v),
        None => out.extend_from_slice(b"null"),
    }
}

fn json_value(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Num(x) => json_num(out, *x),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Value::Str(s) => json_str(out, s),
        Value::List(items) => {
            out.push(b'[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                json_num(out, *x);
            }
            out.push(b']');
        }
        Value::Items(items) => {
            out.push(b'[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                json_value(out, x);
            }
            out.push(b']');
        }
    }
}

/// Writes the `,"key":value` pairs of one event.
struct Fields<'o>(&'o mut Vec<u8>);

impl Fields<'_> {
    fn key(&mut self, k: &str) -> &mut Vec<u8> {
        self.0.extend_from_slice(b",\"");
        self.0.extend_from_slice(k.as_bytes());
        self.0.extend_from_slice(b"\":");
        self.0
    }

    fn str(&mut self, k: &str, v: &str) -> &mut Self {
        json_str(self.key(k), v);
        self
    }

    fn num(&mut self, k: &str, v: f64) -> &mut Self {
        json_num(self.key(k), v);
        self
    }

    fn int(&mut self, k: &str, v: impl std::fmt::Display) -> &mut Self {
        let _ = write!(self.key(k), "{v}");
        self
    }

    fn value(&mut self, k: &str, v: &Value) -> &mut Self {
        json_value(self.key(k), v);
        self
    }

    fn opt_str(&mut self, k: &str, v: Option<&str>) -> &mut Self {
        json_opt_str(self.key(k), v);
        self
    }

    fn opt_num(&mut self, k: &str, v: Option<f64>) -> &mut Self {
        json_opt_num(self.key(k), v);
        self
    }

    fn opt_value(&mut self, k: &str, v: Option<&Value>) -> &mut Self {
        match v {
            Some(v) => self.value(k, v),
            None => self.null(k),
        }
    }

    fn opt_int(&mut self, k: &str, v: Option<u32>) -> &mut Self {
        match v {
            Some(n) => self.int(k, n),
            None => self.null(k),
        }
    }

    fn bool(&mut self, k: &str, v: bool) -> &mut Self {
        self.key(k)
            .extend_from_slice(if v { b"true" } else { b"false" });
        self
    }

    fn null(&mut self, k: &str) -> &mut Self {
        self.key(k).extend_from_slice(b"null");
        self
    }
}

/// Appends one event as a JSON line.
// One piece: a flat match with one arm per event kind, its fields in docs/trace.md's order.
pub fn write_event(out: &mut Vec<u8>, tick: u64, t_ms: f64, agent: &str, ev: &Event) {
    let _ = write!(out, "{{\"tick\":{tick},\"t_ms\":");
    json_num(out, t_ms);
    let mut f = Fields(out);
    f.str("agent", agent);
    match ev {
        Event::Node {
            uid,
            path,
            from,
            to,
        } => f
            .str("ev", "node")
            .int("uid", uid)
            .str("path", path)
            .str("from", from)
            .str("to", to),
        Event::Var { name, value } => f.str("ev", "var").str("name", name).value("value", value),
        Event::Drive {
            name,
            from,
            to,
            intention,
        } => f
            .str("ev", "drive")
            .str("name", name)
            .str("from", from)
            .str("to", to)
            .opt_value("intention", intention.as_ref()),
        Event::Emotion {
            machine,
            from,
            to,
            intensity,
            cause,
        } => f
            .str("ev", "emotion")
            .str("machine", machine)
            .str("from", from)
            .str("to", to)
            .num("intensity", *intensity)
            .str("cause", cause),
        Event::Memory { op, key, score } => f
            .str("ev", "memory")
            .str("op", op)
            .str("key", key)
            .num("score", *score),
        Event::Msg { from, to, kind } => f
            .str("ev", "msg")
            .str("from", from)
            .str("to", to)
            .str("kind", kind),
        Event::Behavior {
            module,
            from,
            to,
            value,
        } => f
            .str("ev", "behavior")
            .str("module", module)
            .str("from", from)
            .str("to", to)
            .num("value", *value),
        Event::Lost {
            from,
            to,
            kind,
            copies,
        } => f
            .str("ev", "lost")
            .str("from", from)
            .str("to", to)
            .str("kind", kind)
            .int("copies", copies),
        Event::Recruit {
            block,
            step,
            peer,
            shame,
            distance,
            eta_ms,
            offers,
            lease_ms,
            why,
        } => f
            .str("ev", "recruit")
            .str("block", block)
            .str("step", step)
            .opt_str("peer", *peer)
            .opt_num("shame", *shame)
            .opt_num("distance", *distance)
            .opt_num("eta_ms", *eta_ms)
            .opt_int("offers", *offers)
            .opt_num("lease_ms", *lease_ms)
            .opt_str("why", *why),
        Event::Component {
            name,
            state,
            host,
            to,
            silence_ms,
        } => f
            .str("ev", "component")
            .str("name", name)
            .str("state", state)
            .opt_str("host", *host)
            .opt_str("to", *to)
            .opt_num("silence_ms", *silence_ms),
        Event::Rejected { from, kind, why } => f
            .str("ev", "rejected")
            .str("from", from)
            .str("kind", kind)
            .str("why", why),
        Event::Robot { name, state, why } => f
            .str("ev", "robot")
            .str("name", name)
            .str("state", state)
            .str("why", why),
        Event::Error { var, text } => f.str("ev", "error").str("var", var).str("text", text),
        Event::Call {
            caller,
            component,
            leaf,
            host,
            id,
            state,
            ms,
            why,
        } => f
            .str("ev", "call")
            .str("caller", caller)
            .str("component", component)
            .str("leaf", leaf)
            .str("host", host)
            .int("id", id)
            .str("state", state)
            .opt_num("ms", *ms)
            .opt_str("why", *why),
        Event::Log { level, text } => f.str("ev", "log").str("level", level).str("text", text),
        Event::Device {
            device,
            error,
            attempts,
        } => f
            .str("ev", "device")
            .str("device", device)
            .str("error", error)
            .int("attempts", attempts),
        Event::Timing(t) => timing_fields(&mut f, t),
        Event::TimingSummary(s) => timing_summary_fields(&mut f, s),
        Event::Summary {
            ticks,
            statuses,
            root,
        } => summary_fields(&mut f, *ticks, statuses, root),
    };
    out.extend_from_slice(b"}\n");
}

/// The fields of a `timing` event: one tick measured on the wall clock.
fn timing_fields<'f, 'o>(f: &'f mut Fields<'o>, t: &Timing) -> &'f mut Fields<'o> {
    f.str("ev", "timing")
        .num("sense_us", t.sense_us)
        .num("process_us", t.process_us)
        .num("act_us", t.act_us)
        .num("tick_us", t.tick_us)
        .num("late_us", t.late_us)
        .bool("overrun", t.overrun)
        .bool("missed", t.missed)
        .int("skipped", t.skipped)
}

/// The fields of a `timing_summary` event: the wall-clock ticks of a whole run.
fn timing_summary_fields<'f, 'o>(f: &'f mut Fields<'o>, s: &TimingSummary) -> &'f mut Fields<'o> {
    f.str("ev", "timing_summary")
        .int("ticks", s.ticks)
        .num("tick_p50_us", s.tick_p50_us)
        .num("tick_p99_us", s.tick_p99_us)
        .num("tick_max_us", s.tick_max_us)
        .num("late_p50_us", s.late_p50_us)
        .num("late_p99_us", s.late_p99_us)
        .num("late_max_us", s.late_max_us)
        .int("overruns", s.overruns)
        .int("missed", s.missed)
        .int("skipped", s.skipped)
        .num("period_us", s.period_us)
}

/// The fields of the `summary` event that ends an agent's trace.
fn summary_fields<'f, 'o>(
    f: &'f mut Fields<'o>,
    ticks: u64,
    statuses: &[u64; 5],
    root: &str,
) -> &'f mut Fields<'o> {
    f.str("ev", "summary").int("ticks", ticks);
    let _ = write!(
        f.key("statuses"),
        "{{\"IDLE\":{},\"RUNNING\":{},\"SUCCESS\":{},\"FAILURE\":{},\"SKIPPED\":{}}}",
        statuses[0],
        statuses[1],
        statuses[2],
        statuses[3],
        statuses[4]
    );
    f.str("root", root)
}

/// Where trace lines go.
pub trait TraceSink {
    fn line(&mut self, tick: u64, t_ms: f64, agent: &str, ev: &Event) -> io::Result<()>;
}

/// Discards everything.
pub struct NoTrace;

impl TraceSink for NoTrace {
    fn line(&mut self, _: u64, _: f64, _: &str, _: &Event) -> io::Result<()> {
        Ok(())
    }
}

/// JSON Lines into any writer, through a reused buffer.
pub struct JsonLines<W: Write> {
    out: W,
    buf: Vec<u8>,
    /// `"pid":N,` at the start of every line (networked runs: the process that wrote it).
    pid: Option<Vec<u8>>,
}

impl<W: Write> JsonLines<W> {
    pub fn new(out: W) -> JsonLines<W> {
        JsonLines {
            out,
            buf: Vec::with_capacity(256),
            pid: None,
        }
    }

    /// Lines that also say which process wrote them (`"pid"`), for traces merged from
    /// several processes.
    pub fn with_pid(out: W, pid: u32) -> JsonLines<W> {
        JsonLines {
            pid: Some(format!("\"pid\":{pid},").into_bytes()),
            ..JsonLines::new(out)
        }
    }

    pub fn into_inner(self) -> W {
        self.out
    }

    /// Flushes the writer, reporting what it could not write.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

impl<W: Write> TraceSink for JsonLines<W> {
    fn line(&mut self, tick: u64, t_ms: f64, agent: &str, ev: &Event) -> io::Result<()> {
        self.buf.clear();
        write_event(&mut self.buf, tick, t_ms, agent, ev);
        match &self.pid {
            Some(pid) if self.buf.first() == Some(&b'{') => {
                self.out.write_all(b"{")?;
                self.out.write_all(pid)?;
                self.out.write_all(&self.buf[1..])
            }
            _ => self.out.write_all(&self.buf),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(ev: &Event) -> String {
        let mut out = Vec::new();
        write_event(&mut out, 3, 300.0, "Nav", ev);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn node_lines_have_the_common_fields_first() {
        let l = line(&Event::Node {
            uid: 4,
            path: "seq/Move::4",
            from: "IDLE",
            to: "RUNNING",
        });
        assert_eq!(
            l,
            "{\"tick\":3,\"t_ms\":300.0,\"agent\":\"Nav\",\"ev\":\"node\",\"uid\":4,\"path\":\"seq/Move::4\",\"from\":\"IDLE\",\"to\":\"RUNNING\"}\n"
        );
        let v: serde_json::Value = serde_json::from_str(&l).unwrap();
        assert_eq!(v["uid"], 4);
    }

    #[test]
    fn strings_are_escaped_and_non_finite_numbers_are_null() {
        let l = line(&Event::Var {
            name: "a\"b",
            value: Value::Num(f64::NAN),
        });
        let v: serde_json::Value = serde_json::from_str(&l).unwrap();
        assert_eq!(v["name"], "a\"b");
        assert!(v["value"].is_null());
    }
}
