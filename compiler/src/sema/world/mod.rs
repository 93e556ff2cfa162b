//! Lowering worlds: a `world Name { ... }` declaration becomes the IR's
//! [`WorldSpec`](crate::ir::world::WorldSpec), every setting it cannot use a positioned,
//! coded diagnostic (E0501..E0511). The settings table ([`SETTINGS`]) is the world's
//! vocabulary, read by the language server and the editor grammars' test. docs/worlds.md
//! describes every setting.

mod events;
mod floor;
mod lower;
mod things;
mod values;

#[cfg(test)]
mod tests;

pub use lower::{lower_world, Fits, WorldSetting, FIELD_RULES, SETTINGS, WORLD_VERBS};

use crate::ir::world::*;
use crate::span::Span;

/// Lowers every world of a file, in order, with all their diagnostics.
pub fn lower_worlds(
    file: &crate::syntax::ast::File,
) -> (Vec<WorldSpec>, Vec<crate::diagnostic::Diagnostic>) {
    let mut specs = Vec::new();
    let mut diags = Vec::new();
    for item in &file.items {
        if let crate::syntax::ast::ItemKind::World(w) = &item.kind {
            let (spec, mut d) = lower_world(w);
            specs.push(spec);
            diags.append(&mut d);
        }
    }
    (specs, diags)
}
