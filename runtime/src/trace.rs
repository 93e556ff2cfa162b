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
    /// A line the runtime or a node wants the user to see.
    Log { level: &'static str, text: String },
    /// The end of an agent's run.
    Summary {
        ticks: u64,
        statuses: [u64; 5],
        root: &'static str,
    },
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

/// Appends one event as a JSON line.
pub fn write_event(out: &mut Vec<u8>, tick: u64, t_ms: f64, agent: &str, ev: &Event) {
    let _ = write!(out, "{{\"tick\":{tick},\"t_ms\":");
    json_num(out, t_ms);
    out.extend_from_slice(b",\"agent\":");
    json_str(out, agent);
    match ev {
        Event::Node {
            uid,
            path,
            from,
            to,
        } => {
            let _ = write!(out, ",\"ev\":\"node\",\"uid\":{uid},\"path\":");
            json_str(out, path);
            let _ = write!(out, ",\"from\":\"{from}\",\"to\":\"{to}\"");
        }
        Event::Var { name, value } => {
            out.extend_from_slice(b",\"ev\":\"var\",\"name\":");
            json_str(out, name);
            out.extend_from_slice(b",\"value\":");
            json_value(out, value);
        }
        Event::Drive {
            name,
            from,
            to,
            intention,
        } => {
            out.extend_from_slice(b",\"ev\":\"drive\",\"name\":");
            json_str(out, name);
            out.extend_from_slice(b",\"from\":");
            json_str(out, from);
            out.extend_from_slice(b",\"to\":");
            json_str(out, to);
            out.extend_from_slice(b",\"intention\":");
            match intention {
                Some(v) => json_value(out, v),
                None => out.extend_from_slice(b"null"),
            }
        }
        Event::Emotion {
            machine,
            from,
            to,
            intensity,
            cause,
        } => {
            out.extend_from_slice(b",\"ev\":\"emotion\",\"machine\":");
            json_str(out, machine);
            out.extend_from_slice(b",\"from\":");
            json_str(out, from);
            out.extend_from_slice(b",\"to\":");
            json_str(out, to);
            out.extend_from_slice(b",\"intensity\":");
            json_num(out, *intensity);
            out.extend_from_slice(b",\"cause\":");
            json_str(out, cause);
        }
        Event::Memory { op, key, score } => {
            out.extend_from_slice(b",\"ev\":\"memory\",\"op\":");
            json_str(out, op);
            out.extend_from_slice(b",\"key\":");
            json_str(out, key);
            out.extend_from_slice(b",\"score\":");
            json_num(out, *score);
        }
        Event::Msg { from, to, kind } => {
            out.extend_from_slice(b",\"ev\":\"msg\",\"from\":");
            json_str(out, from);
            out.extend_from_slice(b",\"to\":");
            json_str(out, to);
            out.extend_from_slice(b",\"kind\":");
            json_str(out, kind);
        }
        Event::Behavior {
            module,
            from,
            to,
            value,
        } => {
            out.extend_from_slice(b",\"ev\":\"behavior\",\"module\":");
            json_str(out, module);
            let _ = write!(out, ",\"from\":\"{from}\",\"to\":\"{to}\",\"value\":");
            json_num(out, *value);
        }
        Event::Lost {
            from,
            to,
            kind,
            copies,
        } => {
            out.extend_from_slice(b",\"ev\":\"lost\",\"from\":");
            json_str(out, from);
            out.extend_from_slice(b",\"to\":");
            json_str(out, to);
            out.extend_from_slice(b",\"kind\":");
            json_str(out, kind);
            let _ = write!(out, ",\"copies\":{copies}");
        }
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
        } => {
            out.extend_from_slice(b",\"ev\":\"recruit\",\"block\":");
            json_str(out, block);
            out.extend_from_slice(b",\"step\":");
            json_str(out, step);
            out.extend_from_slice(b",\"peer\":");
            json_opt_str(out, *peer);
            out.extend_from_slice(b",\"shame\":");
            json_opt_num(out, *shame);
            out.extend_from_slice(b",\"distance\":");
            json_opt_num(out, *distance);
            out.extend_from_slice(b",\"eta_ms\":");
            json_opt_num(out, *eta_ms);
            out.extend_from_slice(b",\"offers\":");
            match offers {
                Some(n) => {
                    let _ = write!(out, "{n}");
                }
                None => out.extend_from_slice(b"null"),
            }
            out.extend_from_slice(b",\"lease_ms\":");
            json_opt_num(out, *lease_ms);
            out.extend_from_slice(b",\"why\":");
            json_opt_str(out, *why);
        }
        Event::Component {
            name,
            state,
            host,
            to,
            silence_ms,
        } => {
            out.extend_from_slice(b",\"ev\":\"component\",\"name\":");
            json_str(out, name);
            out.extend_from_slice(b",\"state\":");
            json_str(out, state);
            out.extend_from_slice(b",\"host\":");
            json_opt_str(out, *host);
            out.extend_from_slice(b",\"to\":");
            json_opt_str(out, *to);
            out.extend_from_slice(b",\"silence_ms\":");
            json_opt_num(out, *silence_ms);
        }
        Event::Log { level, text } => {
            let _ = write!(out, ",\"ev\":\"log\",\"level\":\"{level}\",\"text\":");
            json_str(out, text);
        }
        Event::Summary {
            ticks,
            statuses,
            root,
        } => {
            let _ = write!(
                out,
                ",\"ev\":\"summary\",\"ticks\":{ticks},\"statuses\":{{\"IDLE\":{},\"RUNNING\":{},\"SUCCESS\":{},\"FAILURE\":{},\"SKIPPED\":{}}},\"root\":\"{root}\"",
                statuses[0], statuses[1], statuses[2], statuses[3], statuses[4]
            );
        }
    }
    out.extend_from_slice(b"}\n");
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
}

impl<W: Write> JsonLines<W> {
    pub fn new(out: W) -> JsonLines<W> {
        JsonLines {
            out,
            buf: Vec::with_capacity(256),
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
        self.out.write_all(&self.buf)
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
