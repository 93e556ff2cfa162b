//! What compiled code sees of a machine: a `#[repr(C)]` view of the interpreter's own state
//! arrays (so both engines share one state and the run loop reads the same `Machine`), and
//! on the JIT's targets the [`Services`] behind it, which the Rust functions compiled code
//! calls use (`host.rs`).

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
use crate::interp::{Host, Lists};
use crate::interp::{Machine, NodeState, Transition};
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
use crate::leaf::LeafTable;
use affect_compiler::ir::functions::{Function, HostFn};
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
use affect_compiler::ir::program::Status;
use std::ffi::c_void;

/// The state compiled code works on. Every pointer points into a `Machine`'s vectors, which
/// neither grow nor move while compiled code runs (the transition buffer excepted: it grows
/// only through `host::record_slow`, which updates the view).
#[repr(C)]
pub(crate) struct View {
    /// `Machine::slots`: one f64 per slot.
    pub slots: *mut f64,
    /// `Machine::seq`: the write counter of each slot.
    pub seq: *mut u32,
    /// `Machine::status`: one `Status` byte per node.
    pub status: *mut u8,
    /// `Machine::state`: a 24-byte `NodeState` per node.
    pub state: *mut NodeState,
    /// `Machine::done`: one bool byte per edge of the children table.
    pub done: *mut u8,
    /// `Machine::seen`: the last sequence id each entry-watching node saw.
    pub seen: *mut u32,
    /// `Machine::transitions`: its buffer, length and capacity.
    pub trans_ptr: *mut Transition,
    pub trans_len: usize,
    pub trans_cap: usize,
    pub now_ms: f64,
    /// Node ticks, added to `Machine::node_ticks`.
    pub node_ticks: u64,
    /// A `*mut Services` for the calls into Rust.
    pub services: *mut c_void,
    /// Set to 1 when a node signals a wake-up.
    pub woken: u8,
    /// The compiled program's [`UnitEntry`] table, by unit (set by the code's entries;
    /// wide nodes call their children through it).
    pub units: *const UnitEntry,
    /// The compiled program's parameter table (`share.rs`), set like `units`.
    pub table: *const u64,
}

/// One unit of compiled code as a wide node calls it: its tick and halt functions and the
/// node it roots. Code finds it at run time, so it holds no address of another function.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct UnitEntry {
    pub tick: *const u8,
    pub halt: *const u8,
    pub node: u32,
    /// The unit's node, edge, slot and table offsets, its functions' arguments.
    pub delta: [i32; 4],
}

/// What the calls into Rust need besides the view: the parts of the machine compiled code
/// never touches itself. Only the JIT's targets have code that calls them.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) struct Services<'a, 'p> {
    pub leaves: &'a mut LeafTable,
    pub lists: &'a mut Lists,
    pub host: Option<&'a mut (dyn Host + 'p)>,
    pub transitions: &'a mut Vec<Transition>,
    pub outputs: &'a mut Vec<Option<f64>>,
    pub default_leaf: Status,
    /// The compiled program's tables: a host call or a function call names its entry.
    pub host_fns: &'a [HostFn],
    pub functions: &'a [Function],
    /// `Machine::fault`, and how many slots the view's arrays hold (to keep their state).
    pub fault: &'a mut Option<crate::interp::Fault>,
    pub slot_count: usize,
}

impl Machine<'_> {
    /// Runs `f` with a view of this machine's state; what compiled code changed in the view
    /// (transitions, node ticks, the wake-up flag) is written back afterwards.
    pub(crate) fn with_view<R>(
        &mut self,
        host_fns: &[HostFn],
        functions: &[Function],
        f: impl FnOnce(*mut View) -> R,
    ) -> R {
        let mut view = View {
            slots: self.slots.as_mut_ptr(),
            seq: self.seq.as_mut_ptr(),
            // `Status` is `repr(u8)`: the vector is a byte array of valid statuses, and
            // compiled code stores only the values 0..=4.
            status: self.status.as_mut_ptr().cast::<u8>(),
            state: self.state.as_mut_ptr(),
            done: self.done.as_mut_ptr().cast::<u8>(),
            seen: self.seen.as_mut_ptr(),
            trans_ptr: self.transitions.as_mut_ptr(),
            trans_len: self.transitions.len(),
            trans_cap: self.transitions.capacity(),
            now_ms: self.now_ms,
            node_ticks: self.node_ticks,
            services: std::ptr::null_mut(),
            woken: u8::from(self.woken),
            units: std::ptr::null(),
            table: std::ptr::null(),
        };
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        let mut services = Services {
            leaves: &mut self.leaves,
            lists: &mut self.lists,
            host: self.host.as_deref_mut(),
            transitions: &mut self.transitions,
            outputs: &mut self.outputs,
            default_leaf: self.default_leaf,
            host_fns,
            functions,
            fault: &mut self.fault,
            slot_count: self.slots.len(),
        };
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        {
            view.services = (&mut services as *mut Services).cast::<c_void>();
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        let _ = (host_fns, functions);
        let r = f(&mut view);
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        let transitions = services.transitions;
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        let transitions = &mut self.transitions;
        // SAFETY: compiled code wrote a complete `Transition` (node, from, to, all valid) at
        // every index in `old len..trans_len`, within the capacity the view was given (or
        // that `record_slow` set), and nothing else changed the vector meanwhile.
        unsafe { transitions.set_len(view.trans_len) };
        self.node_ticks = view.node_ticks;
        self.woken = view.woken != 0;
        r
    }
}
