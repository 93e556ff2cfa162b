//! The Rust functions compiled code calls (JIT targets only): foreign leaves, runtime host
//! calls, lists, math functions without a machine instruction, and growth of the transition
//! buffer. Each recovers the machine's [`Services`] from the view it was given.

use super::view::{Services, View};
use crate::interp::Transition;
use crate::leaf::LeafCall;
use affect_compiler::ir::program::Status;

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

/// A checked read found `slot` unset (`Machine::unset_read`): keeps the first fault of the
/// tick with the state to roll back to, and yields 0.
pub(crate) extern "C" fn unset_read(view: *mut View, slot: u32) -> f64 {
    // SAFETY: called only by compiled code, with the view it was given.
    let (v, s) = unsafe { services(view) };
    fault_at(v, s, slot)
}

/// Whether list `id` holds no value (its variable was unset): 1 or 0.
pub(crate) extern "C" fn list_unset(view: *mut View, id: f64) -> u32 {
    // SAFETY: called only by compiled code, with the view it was given.
    let (_, s) = unsafe { services(view) };
    s.lists.is_unset(id) as u32
}

/// Keeps the first fault of the tick (a read of `slot` while it held no value) with the
/// state to roll back to (`Fault::note`): slots, write counts, lists and transitions.
fn fault_at(v: &View, s: &mut Services, slot: u32) -> f64 {
    // SAFETY: the view's slot and sequence arrays hold `slot_count` elements each, and
    // compiled code does not write them while it waits for this call.
    let (slots, seq) = unsafe {
        (
            std::slice::from_raw_parts(v.slots, s.slot_count),
            std::slice::from_raw_parts(v.seq, s.slot_count),
        )
    };
    crate::interp::Fault::note(s.fault, slot, v.trans_len, slots, seq, s.lists)
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
        // After a read of an unset variable the tick has stopped: no leaf acts any more.
        _ if s.fault.is_some() => Status::Failure,
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

/// `list.push(x)` (`Op::Host(ListPush)`), on the list whose id list slot `slot` holds.
/// Growing a list reads it: an unset one is the tick's fault (`Machine::list_checked`).
pub(crate) extern "C" fn list_push(view: *mut View, id: f64, x: f64, slot: u32) {
    // SAFETY: called only by compiled code, with the view it was given.
    let (v, s) = unsafe { services(view) };
    if s.lists.is_unset(id) {
        fault_at(v, s, slot);
    }
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

/// `Op::ListSetAt` on list slot `slot`; an unset list is the tick's fault.
pub(crate) extern "C" fn list_set_at(view: *mut View, id: f64, i: f64, x: f64, slot: u32) {
    // SAFETY: called only by compiled code, with the view it was given.
    let (v, s) = unsafe { services(view) };
    if s.lists.is_unset(id) {
        fault_at(v, s, slot);
    }
    s.lists.set_at(id, i, x);
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
/// when the queue is empty. A queue that holds no value (slot `slot`) is the tick's fault.
pub(crate) extern "C" fn list_pop_front(view: *mut View, id: f64, out: *mut f64, slot: u32) -> u32 {
    // SAFETY: called only by compiled code, with the view it was given.
    let (v, s) = unsafe { services(view) };
    if s.lists.is_unset(id) {
        fault_at(v, s, slot);
    }
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
