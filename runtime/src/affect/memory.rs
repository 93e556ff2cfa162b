//! Emotional memory (LANGUAGE.md §4.6, seed 003's eSTM and eLTM), in real arithmetic.
//!
//! The short-term store holds the last `size` (key, score) elements, most recent first. The
//! long-term store maps keys to a score and a familiarity (the seed's hot index, 0..100).
//! `remember` runs the seed's processes: rehearsal of a key still in short-term memory
//! (then consolidation into long-term memory, or transfer when long-term memory does not
//! know it), or encoding of a new element (with association when long-term memory knows the
//! key), inserted as the most recent, the oldest element being transferred out. After every
//! consolidation or transfer all long-term scores drift away from neutral (rosy and blue
//! retrospection).

use affect_compiler::ir::program::MemorySpec;
use std::collections::VecDeque;

/// A memory process, as the trace names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemOp {
    Encoding,
    Rehearsal,
    Association,
    Consolidation,
    Transfer,
    Decay,
}

impl MemOp {
    pub fn name(self) -> &'static str {
        match self {
            MemOp::Encoding => "encoding",
            MemOp::Rehearsal => "rehearsal",
            MemOp::Association => "association",
            MemOp::Consolidation => "consolidation",
            MemOp::Transfer => "transfer",
            MemOp::Decay => "decay",
        }
    }
}

/// One process that ran, with the key it concerned and the resulting score.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MemEvent {
    pub op: MemOp,
    pub key: u32,
    pub score: f64,
}

/// A long-term memory trace.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Trace {
    pub key: u32,
    pub score: f64,
    pub familiarity: f64,
}

#[derive(Clone, Debug)]
pub struct Memory {
    pub spec: MemorySpec,
    /// Most recent first.
    short: VecDeque<(u32, f64)>,
    /// In the order keys first arrived (ties in `best` go to the earliest).
    long: Vec<Trace>,
    /// What happened since the caller last drained it.
    pub events: Vec<MemEvent>,
}

impl Memory {
    pub fn new(spec: MemorySpec) -> Memory {
        let size = spec.size;
        Memory {
            spec,
            short: VecDeque::with_capacity(size + 1),
            long: Vec::with_capacity(64),
            events: Vec::with_capacity(64),
        }
    }

    pub fn short_term(&self) -> impl Iterator<Item = &(u32, f64)> {
        self.short.iter()
    }

    pub fn long_term(&self) -> &[Trace] {
        &self.long
    }

    pub fn set_long_term(&mut self, traces: Vec<Trace>) {
        self.long = traces;
    }

    fn trace(&mut self, key: u32) -> Option<&mut Trace> {
        self.long.iter_mut().find(|t| t.key == key)
    }

    /// Files a feeling about `key`; returns the score after association (the given score
    /// otherwise).
    pub fn remember(&mut self, key: u32, score: f64) -> f64 {
        let gain = self.spec.familiarity_gain;
        if let Some(pos) = self.short.iter().position(|(k, _)| *k == key) {
            // Rehearsal: the element becomes the most recent and takes the present feeling,
            // so consolidation brings it into long-term memory.
            self.short.remove(pos);
            self.short.push_front((key, score));
            self.events.push(MemEvent {
                op: MemOp::Rehearsal,
                key,
                score,
            });
            match self.trace(key) {
                Some(t) => {
                    let h = (t.familiarity / 100.0).clamp(0.0, 1.0);
                    t.score = (t.score * h + score * (1.0 - h)).clamp(0.0, 100.0);
                    t.familiarity = (t.familiarity + gain).min(100.0);
                    let s = t.score;
                    self.events.push(MemEvent {
                        op: MemOp::Consolidation,
                        key,
                        score: s,
                    });
                }
                None => self.transfer(key, score),
            }
            self.decay();
            return score;
        }
        // Encoding, with association when long-term memory knows the key.
        self.events.push(MemEvent {
            op: MemOp::Encoding,
            key,
            score,
        });
        let mut s = score;
        if let Some(t) = self.trace(key) {
            let h = (t.familiarity / 100.0).clamp(0.0, 1.0);
            s = (t.score * h + score * (1.0 - h)).clamp(0.0, 100.0);
            t.familiarity = (t.familiarity + gain).min(100.0);
            self.events.push(MemEvent {
                op: MemOp::Association,
                key,
                score: s,
            });
        }
        if self.short.len() >= self.spec.size {
            if let Some((old, old_score)) = self.short.pop_back() {
                self.transfer(old, old_score);
                self.decay();
            }
        }
        self.short.push_front((key, s));
        s
    }

    /// A new trace in long-term memory; known keys keep theirs (the seed's `emplace`). New
    /// knowledge makes every other trace a little less familiar.
    fn transfer(&mut self, key: u32, score: f64) {
        if self.long.iter().any(|t| t.key == key) {
            return;
        }
        let decay = self.spec.familiarity_decay;
        for t in &mut self.long {
            t.familiarity = (t.familiarity - decay).max(0.0);
        }
        self.long.push(Trace {
            key,
            score,
            familiarity: self.spec.familiarity,
        });
        self.events.push(MemEvent {
            op: MemOp::Transfer,
            key,
            score,
        });
    }

    /// Rosy and blue retrospection: scores above the centre rise, below it fall, by
    /// `2 / (1 + exp(-gain (s - center))) - 1`, clamped to 0..100.
    pub fn decay(&mut self) {
        let (gain, center) = (self.spec.gain, self.spec.center);
        for t in &mut self.long {
            let drift = 2.0 / (1.0 + (-gain * (t.score - center)).exp()) - 1.0;
            t.score = (t.score + drift).clamp(0.0, 100.0);
            self.events.push(MemEvent {
                op: MemOp::Decay,
                key: t.key,
                score: t.score,
            });
        }
    }

    /// The weighted average of the short-term scores, most recent first, normalised by the
    /// weights of the elements present; 50 when empty.
    pub fn recent(&self) -> f64 {
        if self.short.is_empty() {
            return 50.0;
        }
        let mut sum = 0.0;
        let mut weights = 0.0;
        for ((_, s), w) in self.short.iter().zip(&self.spec.weights) {
            sum += s * w;
            weights += w;
        }
        if weights > 0.0 {
            sum / weights
        } else {
            50.0
        }
    }

    /// The long-term score of a key; 50 when unknown.
    pub fn score(&self, key: u32) -> f64 {
        self.long
            .iter()
            .find(|t| t.key == key)
            .map(|t| t.score)
            .unwrap_or(50.0)
    }

    pub fn familiarity(&self, key: u32) -> f64 {
        self.long
            .iter()
            .find(|t| t.key == key)
            .map(|t| t.familiarity)
            .unwrap_or(0.0)
    }

    /// The key with the highest long-term score (the earliest on a tie).
    pub fn best(&self) -> Option<u32> {
        let mut best: Option<&Trace> = None;
        for t in &self.long {
            if best.is_none_or(|b| t.score > b.score) {
                best = Some(t);
            }
        }
        best.map(|t| t.key)
    }

    /// Seed 003's path score: the mean score of the path's places (50 for unknown ones),
    /// divided by the path's length. An empty path scores 0.
    pub fn path_score(&self, path: &[f64]) -> f64 {
        if path.is_empty() {
            return 0.0;
        }
        let n = path.len() as f64;
        let sum: f64 = path.iter().map(|k| self.score(*k as u32)).sum();
        sum / n / n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory() -> Memory {
        Memory::new(MemorySpec::default())
    }

    fn sigmoid_drift(s: f64) -> f64 {
        2.0 / (1.0 + (-0.2 * (s - 50.0)).exp()) - 1.0
    }

    #[test]
    fn recent_is_fifty_when_empty_and_a_weighted_average_otherwise() {
        let mut m = memory();
        assert_eq!(m.recent(), 50.0);
        m.remember(1, 80.0);
        assert_eq!(m.recent(), 80.0);
        m.remember(2, 40.0);
        // Most recent first: 40 weighs 0.3, 80 weighs 0.21.
        let expected = (40.0 * 0.3 + 80.0 * 0.21) / (0.3 + 0.21);
        assert!((m.recent() - expected).abs() < 1e-12);
    }

    #[test]
    fn encoding_then_transfer_of_the_oldest_with_decay() {
        let mut m = memory();
        for k in 0..7 {
            m.remember(k, 60.0);
        }
        assert!(
            m.long_term().is_empty(),
            "nothing leaves a short-term store that is not full"
        );
        m.remember(7, 60.0);
        // Key 0 was the oldest: transferred with its score, then every trace decays once.
        assert_eq!(m.long_term().len(), 1);
        let t = m.long_term()[0];
        assert_eq!(t.key, 0);
        assert!((t.score - (60.0 + sigmoid_drift(60.0))).abs() < 1e-12);
        assert_eq!(t.familiarity, 22.0);
        let ops: Vec<MemOp> = m.events.iter().map(|e| e.op).collect();
        assert!(ops.ends_with(&[MemOp::Encoding, MemOp::Transfer, MemOp::Decay]));
    }

    #[test]
    fn rehearsal_moves_to_front_and_transfers_or_consolidates() {
        let mut m = memory();
        m.remember(1, 70.0);
        m.remember(2, 30.0);
        let out = m.remember(1, 90.0);
        assert_eq!(out, 90.0, "rehearsal keeps the caller's score");
        assert_eq!(m.short_term().next(), Some(&(1, 90.0)));
        // Unknown to long-term memory: transfer, then decay.
        assert_eq!(m.long_term()[0].key, 1);
        let after_transfer = m.long_term()[0].score;
        assert!((after_transfer - (90.0 + sigmoid_drift(90.0))).abs() < 1e-12);
        // Rehearsed again: consolidation with h = 22 / 100, familiarity + 10, then decay.
        m.remember(1, 40.0);
        let h = 0.22;
        let consolidated = after_transfer * h + 40.0 * (1.0 - h);
        let t = m.long_term()[0];
        assert!((t.score - (consolidated + sigmoid_drift(consolidated))).abs() < 1e-12);
        assert_eq!(t.familiarity, 32.0);
    }

    #[test]
    fn association_blends_what_long_term_memory_knows() {
        let mut m = memory();
        m.set_long_term(vec![Trace {
            key: 5,
            score: 20.0,
            familiarity: 50.0,
        }]);
        let s = m.remember(5, 80.0);
        assert_eq!(
            s,
            20.0 * 0.5 + 80.0 * 0.5,
            "old * h + new * (1 - h), h = familiarity / 100"
        );
        assert_eq!(m.familiarity(5), 60.0);
        assert!(m.events.iter().any(|e| e.op == MemOp::Association));
    }

    #[test]
    fn scores_and_paths() {
        let mut m = memory();
        m.set_long_term(vec![
            Trace {
                key: 1,
                score: 90.0,
                familiarity: 22.0,
            },
            Trace {
                key: 2,
                score: 10.0,
                familiarity: 22.0,
            },
            Trace {
                key: 3,
                score: 90.0,
                familiarity: 22.0,
            },
        ]);
        assert_eq!(m.score(9), 50.0, "unknown places count 50");
        assert_eq!(m.best(), Some(1), "ties go to the earliest");
        // (90 + 50) / 2 / 2 = 35; (10 + 90 + 50) / 3 / 3 = 16.67
        assert_eq!(m.path_score(&[1.0, 9.0]), 35.0);
        assert!((m.path_score(&[2.0, 3.0, 9.0]) - 150.0 / 9.0).abs() < 1e-12);
    }

    #[test]
    fn decay_is_rosy_above_and_blue_below_neutral_and_clamped() {
        let mut m = memory();
        m.set_long_term(vec![
            Trace {
                key: 1,
                score: 99.9,
                familiarity: 0.0,
            },
            Trace {
                key: 2,
                score: 50.0,
                familiarity: 0.0,
            },
            Trace {
                key: 3,
                score: 0.05,
                familiarity: 0.0,
            },
        ]);
        m.decay();
        let s: Vec<f64> = m.long_term().iter().map(|t| t.score).collect();
        assert_eq!(s, vec![100.0, 50.0, 0.0]);
    }
}
