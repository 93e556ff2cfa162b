//! Scalar fields (light, sound, field strength): a base value, local rules applied in
//! written order (a later rule covering a point overrides an earlier one), and an optional
//! drift that moves the whole field by a random step at fixed times.

use super::geometry::{distance_sq, Cell, Point};
use crate::rng::Rng;
use affect_compiler::ir::world::{FieldRule, FieldSpec, WorldSpec};

#[derive(Debug)]
pub(super) struct FieldState {
    /// The drift so far of each field, in spec order.
    offsets: Vec<f64>,
    rngs: Vec<Rng>,
}

impl FieldState {
    pub(super) fn new(spec: &WorldSpec) -> FieldState {
        FieldState {
            offsets: vec![0.0; spec.fields.len()],
            rngs: spec
                .fields
                .iter()
                .map(|f| Rng::named(spec.seed, &format!("field:{}", f.name)))
                .collect(),
        }
    }

    /// Applies every drift step due at a multiple of its period in `(t0, t1]`.
    pub(super) fn drift(&mut self, spec: &WorldSpec, t0: u64, t1: u64) {
        for (i, field) in spec.fields.iter().enumerate() {
            let Some(drift) = field.drift else { continue };
            if drift.every_ms == 0 {
                continue;
            }
            let due = t1 / drift.every_ms - t0 / drift.every_ms;
            for _ in 0..due {
                self.offsets[i] += self.rngs[i].uniform(-drift.amount, drift.amount);
            }
        }
    }

    fn find<'s>(&self, spec: &'s WorldSpec, name: &str) -> Option<(usize, &'s FieldSpec)> {
        spec.fields.iter().enumerate().find(|(_, f)| f.name == name)
    }

    pub(super) fn at_cell(&self, spec: &WorldSpec, name: &str, cell: Cell) -> Option<f64> {
        let (i, field) = self.find(spec, name)?;
        let mut v = field.base;
        for rule in &field.rules {
            match *rule {
                FieldRule::NearCell {
                    centre,
                    radius,
                    value,
                } => {
                    // Whole cells: the squared distance is exact, so `radius 2` reaches
                    // exactly the cells two steps away in a straight line.
                    let dc = f64::from(cell.col) - f64::from(centre.col);
                    let dr = f64::from(cell.row) - f64::from(centre.row);
                    if dc * dc + dr * dr <= radius * radius {
                        v = value;
                    }
                }
                FieldRule::AtCell { cell: at, value } if at == cell => v = value,
                _ => {}
            }
        }
        Some(v + self.offsets[i])
    }

    pub(super) fn at_point(&self, spec: &WorldSpec, name: &str, p: Point) -> Option<f64> {
        let (i, field) = self.find(spec, name)?;
        let mut v = field.base;
        for rule in &field.rules {
            if let FieldRule::NearPoint {
                centre,
                radius,
                value,
            } = *rule
            {
                if distance_sq(p, centre) <= radius * radius {
                    v = value;
                }
            }
        }
        Some(v + self.offsets[i])
    }
}
