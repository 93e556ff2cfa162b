//! An agent's blackboards as Groot 2 dumps them (`ExportBlackboardToJSON` per blackboard),
//! kept up to date from the run's events: every visible variable under its name (hormones,
//! `mood`, levels, drives and intentions, emotion states and intensities, sensors), subtree
//! variables (`Step::14/direction`) in their instance's blackboard, and the affect state that
//! is not a variable as a few entries of the main blackboard:
//!
//! - `emotions`: `{machine: {"state", "intensity", "cause"}}`
//! - `drives`: `{drive: {"state", "intention"}}`
//! - `memory`: `{key: score}`, the last score each remembered key got
//! - `modules`: `{module: {"status", "value"}}`, the behaviour modules (seed 004)

use affect_runtime::trace::{Event, Value};
use serde_json::{json, Map, Value as Json};
use std::collections::BTreeMap;

/// Blackboards by name: the main tree's ID and each subtree instance's path.
#[derive(Default)]
pub struct Boards {
    main: String,
    boards: BTreeMap<String, Map<String, Json>>,
}

pub fn json_of(v: &Value) -> Json {
    match v {
        Value::Num(x) => json!(x),
        Value::Int(i) => json!(i),
        Value::Bool(b) => json!(b),
        Value::Str(s) => json!(s),
        Value::List(xs) => json!(xs),
        Value::Items(xs) => Json::Array(xs.iter().map(json_of).collect()),
    }
}

impl Boards {
    pub fn new(names: &[String]) -> Boards {
        Boards {
            main: names.first().cloned().unwrap_or_default(),
            boards: names.iter().map(|n| (n.clone(), Map::new())).collect(),
        }
    }

    fn main(&mut self) -> &mut Map<String, Json> {
        self.boards.entry(self.main.clone()).or_default()
    }

    /// Keeps what the event changes. Node transitions and messages change no blackboard.
    pub fn event(&mut self, ev: &Event) {
        match ev {
            Event::Var { name, value } => {
                // `Step::14/direction` lives in the instance `Step::14`.
                let (board, key) = match name.rsplit_once('/') {
                    Some((b, k)) if self.boards.contains_key(b) => (b.to_string(), k),
                    _ => (self.main.clone(), *name),
                };
                self.boards
                    .entry(board)
                    .or_default()
                    .insert(key.to_string(), json_of(value));
            }
            Event::Emotion {
                machine,
                to,
                intensity,
                cause,
                ..
            } => {
                let entry = json!({"state": to, "intensity": intensity, "cause": cause});
                group(self.main(), "emotions").insert(machine.to_string(), entry);
            }
            Event::Drive {
                name,
                to,
                intention,
                ..
            } => {
                let entry = json!({"state": to, "intention": intention.as_ref().map(json_of)});
                group(self.main(), "drives").insert(name.to_string(), entry);
            }
            Event::Memory { key, score, .. } => {
                group(self.main(), "memory").insert(key.to_string(), json!(score));
            }
            Event::Behavior {
                module, to, value, ..
            } => {
                let entry = json!({"status": to, "value": value});
                group(self.main(), "modules").insert(module.to_string(), entry);
            }
            _ => {}
        }
    }

    /// The BLACKBOARD reply's object for `;`-separated names; unknown names are skipped, as
    /// BehaviorTree.CPP skips them. An empty request (what `btview blackboard` sends without
    /// names) gets every blackboard.
    pub fn dump(&self, names: &str) -> Json {
        let mut out = Map::new();
        for (name, board) in &self.boards {
            let asked = names.is_empty() || names.split(';').any(|n| n == name);
            if asked {
                out.insert(name.clone(), Json::Object(board.clone()));
            }
        }
        Json::Object(out)
    }
}

fn group<'m>(board: &'m mut Map<String, Json>, name: &str) -> &'m mut Map<String, Json> {
    let slot = board
        .entry(name.to_string())
        .or_insert_with(|| Json::Object(Map::new()));
    if !slot.is_object() {
        *slot = Json::Object(Map::new());
    }
    slot.as_object_mut().expect("made an object above")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_and_affect_state_land_in_their_boards() {
        let mut b = Boards::new(&["Navigator".into(), "Step::14".into()]);
        b.event(&Event::Var {
            name: "mood",
            value: Value::Num(74.5),
        });
        b.event(&Event::Var {
            name: "Step::14/direction",
            value: Value::Str("Up"),
        });
        b.event(&Event::Memory {
            op: "encoding",
            key: "P",
            score: 62.5,
        });
        b.event(&Event::Emotion {
            machine: "fear",
            from: "Calm",
            to: "Afraid",
            intensity: 0.8,
            cause: "loud_noise",
        });
        let all = b.dump("");
        assert_eq!(all["Navigator"]["mood"], json!(74.5));
        assert_eq!(all["Step::14"]["direction"], json!("Up"));
        assert_eq!(all["Navigator"]["memory"]["P"], json!(62.5));
        assert_eq!(
            all["Navigator"]["emotions"]["fear"]["state"],
            json!("Afraid")
        );
        let one = b.dump("Step::14;Nope");
        assert_eq!(one.as_object().map(|o| o.len()), Some(1));
    }
}
