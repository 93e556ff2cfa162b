//! What compiled code sees of a machine: a `#[repr(C)]` view of the interpreter's own state
//! arrays (so both engines share one state and the run loop reads the same `Machine`), and
//! the Rust services compiled code calls: foreign leaves, runtime host calls, lists, math
//! functions without a machine instruction, and growth of the transition buffer.

use crate::interp::{Host, Lists, Machine, NodeState, Transition};
use crate::leaf::{LeafCall, LeafTable};
use affect_compiler::ir::functions::{Function, HostFn};
use affect_compiler::ir::program::Status;
use std::ffi::c_void;

/// The state compiled code works on. Every pointer points into a `Machine`'s vectors, which
/// neither grow nor move while compiled code runs (the transition buffer excepted: it grows
/// only through [`record_slow`], which updates the view).
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
}

/// What the calls into Rust need besides the view: the parts of the machine compiled code
/// never touches itself.
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
        let mut services = Services {
            leaves: &mut self.leaves,
            lists: &mut self.lists,
            host: self.host.as_deref_mut(),
            transitions: &mut self.transitions,
            outputs: &mut self.outputs,
            default_leaf: self.default_leaf,
            host_fns,
            functions,
        };
        let mut view = View {
            slots: self.slots.as_mut_ptr(),
            seq: self.seq.as_mut_ptr(),
            // `Status` is `repr(u8)`: the vector is a byte array of valid statuses, and
            // compiled code stores only the values 0..=4.
            status: self.status.as_mut_ptr().cast::<u8>(),
            state: self.state.as_mut_ptr(),
            done: self.done.as_mut_ptr().cast::<u8>(),
            seen: self.seen.as_mut_ptr(),
            trans_ptr: services.transitions.as_mut_ptr(),
            trans_len: services.transitions.len(),
            trans_cap: services.transitions.capacity(),
            now_ms: self.now_ms,
            node_ticks: self.node_ticks,
            services: std::ptr::null_mut(),
            woken: u8::from(self.woken),
        };
        view.services = (&mut services as *mut Services).cast::<c_void>();
        let r = f(&mut view);
        // SAFETY: compiled code wrote a complete `Transition` (node, from, to, all valid) at
        // every index in `old len..trans_len`, within the capacity the view was given (or
        // that `record_slow` set), and nothing else changed the vector meanwhile.
        unsafe { services.transitions.set_len(view.trans_len) };
        self.node_ticks = view.node_ticks;
        self.woken = view.woken != 0;
        r
    }
}

/// Recovers the services of a view.
///
/// # Safety
/// `view` must be the view `with_view` handed to compiled code, during that call.
unsafe fn services<'v>(view: *mut View) -> (&'v mut View, &'v mut Services<'v, 'v>) {
    // SAFETY: the caller guarantees both pointers are live and unaliased for the call: the
    // view is on `with_view`'s stack, the services too, and compiled code does not touch
    // either while it waits for this call.
    unsafe {
        let v = &mut *view;
        let s = &mut *(v.services.cast::<Services>());
        (v, s)
    }
}

/// A transition when the buffer is full: grows the vector and updates the view.
pub(crate) extern "C" fn record_slow(view: *mut View, node: u32, from: u32, to: u32) {
    // SAFETY: called only by compiled code, with the view it was given.
    let (v, s) = unsafe { services(view) };
    // SAFETY: as in `with_view`: the elements below `trans_len` are initialised.
    unsafe { s.transitions.set_len(v.trans_len) };
    s.transitions.push(Transition {
        node,
        from: Status::from_index(from as u8),
        to: Status::from_index(to as u8),
    });
    v.trans_ptr = s.transitions.as_mut_ptr();
    v.trans_len = s.transitions.len();
    v.trans_cap = s.transitions.capacity();
}

/// Ticks a foreign action or condition: `inputs` holds `n` port values; the leaf's outputs
/// go to `outputs`, with `written[k]` = 1 for each it set. Returns the status (IDLE and
/// SKIPPED read as FAILURE, as the interpreter reads them).
pub(crate) extern "C" fn leaf_tick(
    view: *mut View,
    node: u32,
    starting: u32,
    inputs: *const f64,
    outputs: *mut f64,
    written: *mut u8,
    n: u32,
) -> u32 {
    // SAFETY: called only by compiled code, with the view it was given.
    let (v, s) = unsafe { services(view) };
    let n = n as usize;
    // SAFETY: compiled code passes buffers of `n` elements on its own stack.
    let (inputs, outputs, written) = unsafe {
        (
            std::slice::from_raw_parts(inputs, n),
            std::slice::from_raw_parts_mut(outputs, n),
            std::slice::from_raw_parts_mut(written, n),
        )
    };
    s.outputs.clear();
    s.outputs.resize(n, None);
    let status = match s.leaves.get_mut(node) {
        Some(leaf) => {
            let mut call = LeafCall {
                now_ms: v.now_ms,
                starting: starting != 0,
                inputs,
                outputs: s.outputs,
                lists: s.lists,
            };
            leaf.tick(&mut call)
        }
        None => s.default_leaf,
    };
    for k in 0..n {
        match s.outputs[k] {
            Some(x) => {
                outputs[k] = x;
                written[k] = 1;
            }
            None => written[k] = 0,
        }
    }
    match status {
        Status::Idle | Status::Skipped => Status::Failure as u32,
        s => s as u32,
    }
}

/// A foreign action halted while RUNNING.
pub(crate) extern "C" fn leaf_halt(view: *mut View, node: u32) {
    // SAFETY: called only by compiled code, with the view it was given.
    let (v, s) = unsafe { services(view) };
    if let Some(l) = s.leaves.get_mut(node) {
        l.halt(v.now_ms);
    }
}

/// `Op::Host`: a runtime service (emotional memory, world questions).
pub(crate) extern "C" fn host_call(
    view: *mut View,
    f: u32,
    arg: u32,
    args: *const f64,
    n: u32,
) -> f64 {
    // SAFETY: called only by compiled code, with the view it was given.
    let (_, s) = unsafe { services(view) };
    // SAFETY: compiled code passes `n` arguments on its own stack.
    let args = unsafe { std::slice::from_raw_parts(args, n as usize) };
    let Some(&f) = s.host_fns.get(f as usize) else {
        return f64::NAN;
    };
    match s.host.as_mut() {
        Some(h) => h.call(f, arg, args, s.lists),
        None => f64::NAN,
    }
}

/// `list.push(x)` (`Op::Host(ListPush)`), on the list whose id the slot holds.
pub(crate) extern "C" fn list_push(view: *mut View, id: f64, x: f64) {
    // SAFETY: called only by compiled code, with the view it was given.
    let (_, s) = unsafe { services(view) };
    s.lists.push(id, x);
}

/// `Op::ListBuild`: the `n` values at `values` become list `id`'s elements.
pub(crate) extern "C" fn list_build(view: *mut View, id: f64, values: *const f64, n: u32) {
    // SAFETY: called only by compiled code, with the view it was given.
    let (_, s) = unsafe { services(view) };
    // SAFETY: compiled code passes `n` values on its own stack.
    let values = unsafe { std::slice::from_raw_parts(values, n as usize) };
    s.lists.set(id, values);
}

/// `Op::ListSet` and lists the runtime writes: list `from`'s elements copied into `to`.
pub(crate) extern "C" fn list_copy(view: *mut View, from: f64, to: f64) {
    // SAFETY: called only by compiled code, with the view it was given.
    let (_, s) = unsafe { services(view) };
    s.lists.copy(from, to);
}

/// `Op::ListSetAt`.
pub(crate) extern "C" fn list_set_at(view: *mut View, id: f64, i: f64, v: f64) {
    // SAFETY: called only by compiled code, with the view it was given.
    let (_, s) = unsafe { services(view) };
    s.lists.set_at(id, i, v);
}

/// `Op::Index`.
pub(crate) extern "C" fn list_get(view: *mut View, id: f64, i: f64) -> f64 {
    // SAFETY: called only by compiled code, with the view it was given.
    let (_, s) = unsafe { services(view) };
    s.lists.get(id, i)
}

/// `len(list)`.
pub(crate) extern "C" fn list_len(view: *mut View, id: f64) -> f64 {
    // SAFETY: called only by compiled code, with the view it was given.
    let (_, s) = unsafe { services(view) };
    s.lists.len_of(id) as f64
}

/// A `loop` node takes the queue's first element: returns 1 and writes it to `out`, or 0
/// when the queue is empty.
pub(crate) extern "C" fn list_pop_front(view: *mut View, id: f64, out: *mut f64) -> u32 {
    // SAFETY: called only by compiled code, with the view it was given.
    let (_, s) = unsafe { services(view) };
    match s.lists.pop_front(id) {
        Some(x) => {
            // SAFETY: `out` is an f64 on compiled code's stack.
            unsafe { *out = x };
            1
        }
        None => 0,
    }
}

/// A built-in function without a machine instruction of its own (rounding halves away from
/// zero, min/max with Rust's NaN rules, transcendental functions): computed by the very
/// code the interpreter runs, so both engines agree to the bit.
pub(crate) extern "C" fn call_function(view: *mut View, f: u32, args: *const f64, n: u32) -> f64 {
    // SAFETY: called only by compiled code, with the view it was given.
    let (_, s) = unsafe { services(view) };
    // SAFETY: compiled code passes `n` arguments on its own stack.
    let args = unsafe { std::slice::from_raw_parts(args, n as usize) };
    match s.functions.get(f as usize) {
        Some(func) => func.apply(args),
        None => f64::NAN,
    }
}
