//! The built-in decorators, one file per family (`retry.rs`): each holds the family's tick
//! and halt as the interpreter runs them, step for step as BehaviorTree.CPP 4.8, and right
//! beside them the JIT's emission of the same steps. The modules and the dispatch below are
//! made from the compiler's list (`affect_compiler::decorator_families!`), so a new family
//! is a line there, its row (`compiler/src/builtins/NAME.rs`) and its file here.
//!
//! The families live with the interpreter, the reference, and reach the JIT's code
//! generator through `compiled::Emit`, which `jit::emit::Fx` implements: the JIT depends on
//! the interpreter, never the other way round (tests/structure.rs). Each file's compiled
//! half is a `compiled` module built where the JIT is (x86-64 and aarch64).

use super::Machine;
use affect_compiler::ir::program::{Decorator, DecoratorKind, NodeId, Status};
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
use compiled::{Compiled, Emit};
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
use cranelift_codegen::ir::Block;

/// What the JIT asks of a family, and what a family asks of the JIT.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) mod compiled;

/// A timer's node has started it (timeout, delay).
pub(crate) const STARTED: u8 = 1;
/// Timeout: the timer halted the child. Delay: the delay is over.
pub(crate) const TIMER_DONE: u8 = 2;
/// RunOnce has run its child to completion.
pub(crate) const RAN_ONCE: u8 = 8;
/// Precondition, SkipUnlessUpdated and Loop: the child is still running.
pub(crate) const CHILD_RUNNING: u8 = 16;

/// A family of built-in decorators, as the interpreter runs it (`compiled.rs`: as the JIT
/// emits it). The defaults are `DecoratorNode`'s: a halt resets the child, then the node,
/// and no timer.
pub(crate) trait Family {
    /// The node's own `tick()` (its status is set by `execute_tick`, as for every node).
    fn tick(m: &mut Machine, n: NodeId, d: &Decorator) -> Status;

    /// The node's own `halt()`.
    fn halt(m: &mut Machine, n: NodeId, _d: &Decorator) {
        m.decorator_halt(n);
    }

    /// The node's timer expired (BehaviorTree.CPP's timer callback): whether that woke the
    /// tree up.
    fn fire_timer(_m: &mut Machine, _n: NodeId) -> bool {
        false
    }
}

macro_rules! families {
    ($($kind:ident $module:ident,)*) => {
        $(mod $module;)*

        /// The family's `tick()`.
        pub(crate) fn tick(m: &mut Machine, n: NodeId, d: &Decorator) -> Status {
            match d.kind {
                $(DecoratorKind::$kind => <$module::Node as Family>::tick(m, n, d),)*
            }
        }

        /// The family's `halt()`.
        pub(crate) fn halt(m: &mut Machine, n: NodeId, d: &Decorator) {
            match d.kind {
                $(DecoratorKind::$kind => <$module::Node as Family>::halt(m, n, d),)*
            }
        }

        /// The node's timer expired.
        pub(crate) fn fire_timer(m: &mut Machine, n: NodeId, d: &Decorator) -> bool {
            match d.kind {
                $(DecoratorKind::$kind => <$module::Node as Family>::fire_timer(m, n),)*
            }
        }

        /// The family's compiled `tick()`.
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        pub(crate) fn emit<'x, E: Emit<'x>>(
            fx: &mut E,
            n: NodeId,
            d: &Decorator,
            out: Block,
        ) -> Result<(), E::Error> {
            match d.kind {
                $(DecoratorKind::$kind => <$module::Node as Compiled>::emit(fx, n, d, out),)*
            }
        }

        /// The family's compiled `halt()`.
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        pub(crate) fn emit_halt<'x, E: Emit<'x>>(
            fx: &mut E,
            n: NodeId,
            d: &Decorator,
        ) -> Result<(), E::Error> {
            match d.kind {
                $(DecoratorKind::$kind => <$module::Node as Compiled>::emit_halt(fx, n, d),)*
            }
        }
    };
}

affect_compiler::decorator_families!(families);
