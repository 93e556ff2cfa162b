//! What every simulated leaf of an agent instance may use: its world and its place in it,
//! its tick period, the program's labels and enums, and the agent's affect state. The leaf
//! families (`grid_leaves`, `area_leaves`, `minefield`, `qrio`) take this and, where they
//! keep state of their own per instance, that state besides.

use super::host::AgentAffect;
use super::labels::Labels;
use crate::devices::sim::SharedWorld;
use crate::world::AgentId;
use affect_compiler::ir::program::EnumInfo;
use std::cell::RefCell;
use std::rc::Rc;

pub struct LeafEnv {
    pub world: SharedWorld,
    pub agent: AgentId,
    /// A grid world (else an area).
    pub is_grid: bool,
    /// The agent's tick period: how long one tick's movement lasts.
    pub period_ms: f64,
    pub labels: Rc<Labels>,
    pub enums: Rc<Vec<EnumInfo>>,
    pub affect: Rc<RefCell<AgentAffect>>,
}

/// The tick period of an agent ticking at `rate_hz`; 100 ms for a rate that is no rate.
pub fn period_ms(rate_hz: f64) -> f64 {
    if rate_hz > 0.0 && rate_hz.is_finite() {
        1000.0 / rate_hz
    } else {
        100.0
    }
}
