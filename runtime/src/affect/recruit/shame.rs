//! SHAME, the emotion that decides when a robot lets itself be recruited, and the seed's
//! ignore cost.

/// SHAME, a standards-based emotion (Ortony): `s` in 0..1, from 0. On each HELP it first
/// loses `k·ΔT` (ΔT since the previous HELP); then the robot answers if `s > t`, else it
/// ignores the HELP and `s` gains `c + d(D)`. Being recruited resets it to 0.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Shame {
    pub level: f64,
    last_help_ms: Option<f64>,
}

fn unit_interval(x: f64) -> f64 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

impl Shame {
    /// A HELP at `now_ms`: decays SHAME since the previous one, then says whether it exceeds
    /// the threshold (answer) or not (ignore, then call [`Shame::ignored`]).
    pub fn on_help(&mut self, now_ms: f64, decay_per_ms: f64, threshold: f64) -> bool {
        if let Some(last) = self.last_help_ms {
            let dt = (now_ms - last).max(0.0);
            self.level = unit_interval(self.level - decay_per_ms * dt);
        }
        self.last_help_ms = Some(now_ms);
        self.level > threshold
    }

    /// The HELP was ignored: SHAME grows by the ignore cost `c + d(D)` (an infinite cost, a
    /// requester at distance 0, fills it; a cost that is not a number adds nothing).
    pub fn ignored(&mut self, cost: f64) {
        let cost = if cost.is_nan() { 0.0 } else { cost };
        self.level = unit_interval(self.level + cost);
    }

    /// Recruited: SHAME starts again from 0.
    pub fn reset(&mut self) {
        self.level = 0.0;
    }
}

/// The seed's ignore cost, `c + d(D) = 0.2 + 0.5 / D`, for a block that gives none.
pub fn seed_ignore_cost(distance: f64) -> f64 {
    0.2 + 0.5 / distance
}
