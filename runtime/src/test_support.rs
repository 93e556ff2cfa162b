//! What the runtime's unit tests share: a world built from its source text.

use crate::world::World;
use affect_compiler::ir::world::{lower_world, WorldSpec};
use affect_compiler::syntax::ast::ItemKind;

/// The spec of the first world in `src`, which must parse and lower cleanly.
pub(crate) fn world_spec(src: &str) -> WorldSpec {
    let parsed = affect_compiler::syntax::parse(src);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let decl = parsed
        .file
        .items
        .iter()
        .find_map(|i| match &i.kind {
            ItemKind::World(w) => Some(w),
            _ => None,
        })
        .expect("a world");
    let (spec, diags) = lower_world(decl);
    assert!(diags.is_empty(), "{diags:?}");
    spec
}

/// The first world in `src`, built.
pub(crate) fn world(src: &str) -> World {
    World::new(&world_spec(src)).expect("a world")
}
