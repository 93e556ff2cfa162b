//! The behaviour modules' part of the story (seed 004, docs/run.md): which modules start,
//! are preempted (stopped, their state preserved), resume and stop, read off the trace's
//! `behavior` events. A tick's changes become one item, each told once for the top of what
//! changed (`Soccer preempted`, not also its sub-modules), following a single chain of
//! changed sub-modules down (`Soccer/SearchBall resumes`). Modules that flap are not told
//! change by change: an item already told in the last ten simulated seconds, or more than
//! five items in ten seconds, is counted instead, and the count told with the next item.

use std::collections::HashSet;

/// How long an item told stays fresh, in simulated milliseconds, and how many items a
/// window may tell.
const WINDOW_MS: f64 = 10_000.0;
const PER_WINDOW: usize = 5;

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Change {
    Stops,
    Preempted,
    Starts,
    Resumes,
}

impl Change {
    fn verb(self) -> &'static str {
        match self {
            Change::Stops => "stops",
            Change::Preempted => "preempted",
            Change::Starts => "starts",
            Change::Resumes => "resumes",
        }
    }
}

/// One agent's modules, as the story knows them.
#[derive(Default)]
pub struct Modules {
    /// Modules running now, in the order they started.
    running: Vec<String>,
    /// Modules stopped with their state preserved: their next run resumes.
    preserved: HashSet<String>,
    /// The changes of the tick being collected.
    changes: Vec<(Change, String)>,
    /// Items told in the current window: when, and what.
    told: Vec<(f64, String)>,
    /// Items not told since `untold_since`.
    untold: usize,
    untold_since: f64,
}

impl Modules {
    /// A `behavior` event: `module` went from `from` to `to`.
    pub fn event(&mut self, module: &str, from: &str, to: &str) {
        if from == "running" {
            self.running.retain(|m| m != module);
        }
        let change = match to {
            "running" => {
                self.running.push(module.to_string());
                match self.preserved.remove(module) {
                    true => Change::Resumes,
                    false => Change::Starts,
                }
            }
            "stopped-preserved" => {
                self.preserved.insert(module.to_string());
                Change::Preempted
            }
            "stopped-initial" => {
                self.preserved.remove(module);
                // A preserved module forgotten, or a start abandoned, is no news.
                if !matches!(from, "running" | "preparing-to-stop") {
                    return;
                }
                Change::Stops
            }
            _ => return,
        };
        self.changes.push((change, module.to_string()));
    }

    /// The item of the tick just collected (at simulated time `t_ms`), if there is news to
    /// tell; the tick's changes are cleared.
    pub fn item(&mut self, t_ms: f64) -> Option<String> {
        if self.changes.is_empty() {
            return None;
        }
        let mut changes = std::mem::take(&mut self.changes);
        changes.sort();
        let mut parts = Vec::new();
        for kind in [
            Change::Stops,
            Change::Preempted,
            Change::Starts,
            Change::Resumes,
        ] {
            let modules: Vec<&str> = (changes.iter())
                .filter(|(k, _)| *k == kind)
                .map(|(_, m)| m.as_str())
                .collect();
            for m in tops(&modules) {
                parts.push(format!("{m} {}", kind.verb()));
            }
        }
        if parts.is_empty() {
            return None;
        }
        let text = parts.join(", ");
        self.told.retain(|(at, _)| t_ms - at < WINDOW_MS);
        let repeated = self.told.iter().any(|(_, t)| *t == text);
        if repeated || self.told.len() >= PER_WINDOW {
            if self.untold == 0 {
                self.untold_since = t_ms;
            }
            self.untold += 1;
            return None;
        }
        self.told.push((t_ms, text.clone()));
        let mut item = format!("modules: {text}");
        if self.untold > 0 {
            item.push_str(&format!(
                " ({} more module change{} since {:.1}s not told)",
                self.untold,
                if self.untold == 1 { "" } else { "s" },
                self.untold_since / 1000.0
            ));
            self.untold = 0;
        }
        Some(item)
    }

    /// The modules running now, for a line's state: the tops of the running set, each
    /// followed down a single chain (`Soccer/ApproachBall`).
    pub fn now(&self) -> Option<String> {
        let running: Vec<&str> = self.running.iter().map(String::as_str).collect();
        let tops = tops(&running);
        (!tops.is_empty()).then(|| format!("running {}", tops.join(" + ")))
    }
}

/// The tops of a set of module paths (those with no ancestor in the set), each followed
/// down while exactly one of its children is in the set.
fn tops<'m>(modules: &[&'m str]) -> Vec<&'m str> {
    let is_under =
        |m: &str, a: &str| m.len() > a.len() && m.starts_with(a) && m[a.len()..].starts_with('/');
    let children = |a: &str| -> Vec<&'m str> {
        (modules.iter().copied())
            .filter(|m| is_under(m, a) && !m[a.len() + 1..].contains('/'))
            .collect()
    };
    let mut out = Vec::new();
    for &m in modules {
        if modules.iter().any(|a| is_under(m, a)) || out.contains(&m) {
            continue;
        }
        let mut cur = m;
        while let [only] = children(cur).as_slice() {
            cur = *only;
        }
        if !out.contains(&cur) {
            out.push(cur);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{tops, Modules};

    #[test]
    fn the_top_of_a_change_is_told_following_a_single_chain_down() {
        assert_eq!(
            tops(&["Soccer", "Soccer/SearchBall"]),
            ["Soccer/SearchBall"]
        );
        assert_eq!(
            tops(&[
                "Soccer/ApproachBall",
                "Soccer/ApproachBall/Walk",
                "Soccer/ApproachBall/Speak"
            ]),
            ["Soccer/ApproachBall"]
        );
        assert_eq!(
            tops(&["Chat", "SoundAttention"]),
            ["Chat", "SoundAttention"]
        );
        // `Soccer/Kick` is not under `Soccer/K`.
        assert_eq!(
            tops(&["Soccer/K", "Soccer/Kick"]),
            ["Soccer/K", "Soccer/Kick"]
        );
    }

    #[test]
    fn starts_preemptions_resumes_and_stops_are_told() {
        let mut m = Modules::default();
        m.event("Soccer", "stopped-initial", "preparing-to-run");
        m.event("Soccer", "preparing-to-run", "running");
        m.event("Soccer/SearchBall", "stopped-initial", "running");
        assert_eq!(
            m.item(0.0).as_deref(),
            Some("modules: Soccer/SearchBall starts")
        );
        assert_eq!(m.now().as_deref(), Some("running Soccer/SearchBall"));
        m.event("Soccer", "running", "preparing-to-stop");
        m.event("Soccer/SearchBall", "running", "preparing-to-stop");
        assert_eq!(m.item(50.0), None, "preparing to stop is not news yet");
        m.event("Soccer", "preparing-to-stop", "stopped-preserved");
        m.event(
            "Soccer/SearchBall",
            "preparing-to-stop",
            "stopped-preserved",
        );
        m.event("Chat", "stopped-initial", "running");
        assert_eq!(
            m.item(100.0).as_deref(),
            Some("modules: Soccer/SearchBall preempted, Chat starts")
        );
        m.event("Chat", "running", "stopped-initial");
        m.event("Soccer", "stopped-preserved", "running");
        m.event("Soccer/SearchBall", "stopped-preserved", "running");
        assert_eq!(
            m.item(200.0).as_deref(),
            Some("modules: Chat stops, Soccer/SearchBall resumes")
        );
    }

    #[test]
    fn a_flapping_module_is_counted_not_told_change_by_change() {
        let mut m = Modules::default();
        let mut told = Vec::new();
        for i in 0..400 {
            let t = i as f64 * 50.0;
            if i % 2 == 0 {
                m.event("Kick", "stopped-initial", "running");
            } else {
                m.event("Kick", "running", "stopped-initial");
            }
            told.extend(m.item(t));
        }
        // 20 s of flapping at 20 Hz: each change told once per ten seconds, the second
        // time with the count of those not told.
        assert_eq!(told.len(), 4, "{told:#?}");
        assert!(
            told[2].contains("(198 more module changes since 0.1s not told)"),
            "{told:#?}"
        );
    }
}
