//! What the runtime's unit tests share: a world built from its source text.

use crate::world::World;
use affect_compiler::ir::world::WorldSpec;

/// The spec of the first world in `src`, which must parse and lower cleanly.
pub(crate) fn world_spec(src: &str) -> WorldSpec {
    let (worlds, diags) = affect_compiler::worlds_of(src);
    assert!(diags.is_empty(), "{diags:?}");
    worlds.into_iter().next().expect("a world")
}

/// The first world in `src`, built.
pub(crate) fn world(src: &str) -> World {
    World::new(&world_spec(src)).expect("a world")
}
