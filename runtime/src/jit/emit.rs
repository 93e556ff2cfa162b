//! The function builder the node and expression emitters share: where the state arrays
//! are, status changes recorded as the interpreter records them, node-state fields, halting
//! children, and routing a status to the code that handles it.

use super::plan::{bit, Params, Plan, Site, StatusSet};
use super::view::View;
use super::JitError;
use affect_compiler::ir::program::{NodeId, SlotId, Status};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, Block, BlockArg, FuncRef, InstBuilder, MemFlagsData, SigRef, Value,
};
use cranelift_frontend::FunctionBuilder;
use cranelift_module::FuncId;
use std::collections::HashMap;
use std::mem::offset_of;

/// `NodeState` as compiled code addresses it (`#[repr(C)]` in the interpreter).
pub(crate) const STATE_SIZE: i32 = 24;
pub(crate) const STATE_A: i32 = 0;
pub(crate) const STATE_B: i32 = 4;
pub(crate) const STATE_DEADLINE: i32 = 8;
pub(crate) const STATE_FLAGS: i32 = 16;

/// The functions a generated function may call.
pub(crate) struct Callees {
    pub record: FuncId,
    pub record_slow: FuncId,
    pub leaf_tick: FuncId,
    pub leaf_halt: FuncId,
    pub host_call: FuncId,
    pub list_push: FuncId,
    pub list_get: FuncId,
    pub list_len: FuncId,
    pub list_pop_front: FuncId,
    pub list_build: FuncId,
    pub list_copy: FuncId,
    pub list_set_at: FuncId,
    pub call_function: FuncId,
    pub unset_read: FuncId,
    pub list_unset: FuncId,
    /// Each unit's tick function, by unit index.
    pub ticks: Vec<FuncId>,
    /// Each unit's halt function, by unit index.
    pub halts: Vec<FuncId>,
}

/// A declared function, as generated code refers to it.
pub(crate) struct Decl {
    pub sig: cranelift_codegen::ir::Signature,
    /// Defined in this module (a direct call) rather than imported from Rust.
    pub colocated: bool,
}

/// The base pointers of the state arrays, loaded once at a function's entry.
#[derive(Clone, Copy)]
pub(crate) struct Bases {
    pub view: Value,
    pub slots: Value,
    pub seq: Value,
    pub status: Value,
    /// `status` as loaded, not moved by a shared function's node offset: for node ids a
    /// unit table entry holds.
    pub status_abs: Value,
    pub state: Value,
    pub done: Value,
    pub seen: Value,
    /// `slots` and `seq` moved by a shared function's slot offset (`share.rs`); the same as
    /// those elsewhere.
    pub slots_rel: Value,
    pub seq_rel: Value,
    /// The parameter table moved by a shared function's table offset (`share.rs`), when it
    /// reads any.
    pub table: Option<Value>,
}

pub(crate) struct Fx<'a, 'b> {
    pub b: FunctionBuilder<'b>,
    /// Every declared function's signature and whether it is local, by `FuncId`.
    pub decls: &'a [Decl],
    pub plan: &'a Plan<'a>,
    pub callees: &'a Callees,
    refs: HashMap<FuncId, FuncRef>,
    pub at: Bases,
    /// The unit whose tick function is being emitted: its own nodes are inlined.
    pub unit: Option<u32>,
    /// The tick and halt signatures, imported once for a wide node's indirect calls.
    pub unit_sigs: Option<(SigRef, SigRef)>,
    /// In a function several units share: its node, edge, slot and table offsets (i32
    /// arguments).
    pub shift: Option<[Value; 4]>,
    /// What such a function reads through the moved bases and the table.
    params: Option<&'a Params>,
    /// Checked reads already made in the current straight-line stretch of an expression:
    /// (slot, value). A second checked read of the slot there yields the same value as the
    /// first, fault or not, so it reuses it (`read_slot_checked`; `expr.rs` forgets them at
    /// jump targets, stores of the slot and calls).
    pub checked: Vec<(u32, Value)>,
    /// The block that last counted node ticks and the constant it adds (`count_tick`).
    count: Option<(Block, cranelift_codegen::ir::Inst)>,
}

pub(crate) fn flags() -> MemFlagsData {
    MemFlagsData::trusted()
}

/// The parameter table and its address do not change while compiled code runs: their loads
/// may be merged and hoisted.
fn table_flags() -> MemFlagsData {
    flags().with_readonly().with_can_move()
}

pub(crate) const P: types::Type = types::I64;

impl<'a, 'b> Fx<'a, 'b> {
    /// Starts a function whose first parameter is the view: loads the bases.
    pub fn new(
        mut b: FunctionBuilder<'b>,
        decls: &'a [Decl],
        plan: &'a Plan<'a>,
        callees: &'a Callees,
        entry: Block,
    ) -> Fx<'a, 'b> {
        b.switch_to_block(entry);
        let view = b.block_params(entry)[0];
        // Loaded at the entry, where they dominate every use and stay in registers; `finish`
        // drops the loads of the bases a function does not use.
        let ld = |b: &mut FunctionBuilder, off: usize| b.ins().load(P, flags(), view, off as i32);
        let slots = ld(&mut b, offset_of!(View, slots));
        let seq = ld(&mut b, offset_of!(View, seq));
        let status = ld(&mut b, offset_of!(View, status));
        let state = ld(&mut b, offset_of!(View, state));
        let done = ld(&mut b, offset_of!(View, done));
        let seen = ld(&mut b, offset_of!(View, seen));
        Fx {
            b,
            decls,
            plan,
            callees,
            refs: HashMap::new(),
            at: Bases {
                view,
                slots,
                seq,
                status,
                status_abs: status,
                state,
                done,
                seen,
                slots_rel: slots,
                seq_rel: seq,
                table: None,
            },
            unit: None,
            unit_sigs: None,
            shift: None,
            params: None,
            checked: Vec::new(),
            count: None,
        }
    }

    /// Makes this the function of units of one shape: `d` are its node, edge, slot and
    /// table offsets from the representative whose code it is (i32 parameters), which move
    /// the state bases and the parameter table; `params` say what moves with the unit.
    pub fn shift_bases(&mut self, d: [Value; 4], params: &'a Params) {
        let wide = |fx: &mut Self, v: Value, scale: i64| {
            let v = fx.b.ins().sextend(P, v);
            fx.b.ins().imul_imm_s(v, scale)
        };
        let dn = wide(self, d[0], 1);
        self.at.status = self.b.ins().iadd(self.at.status, dn);
        let dn = wide(self, d[0], STATE_SIZE as i64);
        self.at.state = self.b.ins().iadd(self.at.state, dn);
        let de = wide(self, d[1], 1);
        self.at.done = self.b.ins().iadd(self.at.done, de);
        let dn = wide(self, d[0], 4);
        self.at.seen = self.b.ins().iadd(self.at.seen, dn);
        let ds = wide(self, d[2], 8);
        self.at.slots_rel = self.b.ins().iadd(self.at.slots, ds);
        let ds = wide(self, d[2], 4);
        self.at.seq_rel = self.b.ins().iadd(self.at.seq, ds);
        if !params.mapped.is_empty() || !params.consts.is_empty() {
            let off = offset_of!(View, table) as i32;
            let t = self.b.ins().load(P, table_flags(), self.at.view, off);
            let dk = wide(self, d[3], 8);
            self.at.table = Some(self.b.ins().iadd(t, dk));
        }
        self.shift = Some(d);
        self.params = Some(params);
    }

    /// Entry `e` of the parameter table (moved by the table offset), as a `ty`.
    fn table_entry(&mut self, e: u32, ty: types::Type) -> Value {
        let t = self.at.table.expect("a shared function with parameters");
        self.b.ins().load(ty, table_flags(), t, e as i32 * 8)
    }

    /// A constant of the code at `site`: an immediate, or in a function several units share
    /// whose constants there differ, the unit's from the parameter table.
    pub fn konst(&mut self, site: Site, v: f64) -> Value {
        match self.param(site) {
            Some(e) => self.table_entry(e, types::F64),
            None => self.f64c(v),
        }
    }

    /// A wide node's first child unit (an i64): the unit's from the parameter table in a
    /// function several units share whose wide nodes' children are numbered differently.
    pub fn wide_base(&mut self, n: NodeId) -> Value {
        match self.param(Site::Wide(n)) {
            Some(e) => self.table_entry(e, P),
            None => {
                let base = self.plan.wide[n as usize].unwrap_or(0);
                self.b.ins().iconst(P, i64::from(base))
            }
        }
    }

    /// The table entry of a parameter at `site`, if this function reads it from there.
    fn param(&self, site: Site) -> Option<u32> {
        let p = self.params?;
        let i = p.consts.binary_search_by_key(&site, |x| x.0).ok()?;
        Some(p.consts[i].1)
    }

    /// The table entry holding this unit's number of `slot`, when it is read from there.
    fn mapped(&self, slot: SlotId) -> Option<u32> {
        let p = self.params?;
        let i = p.mapped.binary_search_by_key(&slot, |x| x.0).ok()?;
        Some(p.mapped[i].1)
    }

    /// After a store of `slot`: its checked read no longer holds. In a function several
    /// units share, two of its slots may be one slot of a unit (`share.rs`): none holds.
    pub fn forget_checked(&mut self, slot: SlotId) {
        if self.params.is_some() {
            self.checked.clear();
        } else {
            self.checked.retain(|(t, _)| *t != slot);
        }
    }

    /// Whether `slot` moves with the unit by its slot offset.
    fn is_rel(&self, slot: SlotId) -> bool {
        self.params
            .is_some_and(|p| p.rel.binary_search(&slot).is_ok())
    }

    /// A node's id as a value: the representative's plus the node offset in a shared
    /// function.
    pub fn node_val(&mut self, n: NodeId) -> Value {
        match self.shift {
            Some(d) => self.b.ins().iadd_imm_s(d[0], i64::from(n)),
            None => self.i32c(i64::from(n)),
        }
    }

    /// The offsets to call unit `u`'s function with: its own from its representative, plus
    /// this function's.
    pub fn unit_args(&mut self, u: u32) -> [Value; 4] {
        let own = self.plan.share.delta[u as usize];
        let mut out = [self.at.view; 4];
        for (k, o) in out.iter_mut().enumerate() {
            *o = match self.shift {
                Some(d) => self.b.ins().iadd_imm_s(d[k], i64::from(own[k])),
                None => self.i32c(i64::from(own[k])),
            };
        }
        out
    }

    /// Where a slot's value and write counter are: (base, offset) of each.
    pub fn slot_place(&mut self, slot: u32) -> ((Value, i32), (Value, i32)) {
        if let Some(e) = self.mapped(slot) {
            let i = self.table_entry(e, P);
            let at8 = self.b.ins().imul_imm_s(i, 8);
            let at4 = self.b.ins().imul_imm_s(i, 4);
            let v = self.b.ins().iadd(self.at.slots, at8);
            let s = self.b.ins().iadd(self.at.seq, at4);
            return ((v, 0), (s, 0));
        }
        let (v, s) = if self.is_rel(slot) {
            (self.at.slots_rel, self.at.seq_rel)
        } else {
            (self.at.slots, self.at.seq)
        };
        ((v, slot as i32 * 8), (s, slot as i32 * 4))
    }

    /// Seals and finishes the function.
    pub fn finish(mut self, cfg: cranelift_codegen::isa::TargetFrontendConfig) {
        self.b.seal_all_blocks();
        self.drop_unused_bases();
        self.b.finalize(cfg);
    }

    /// Removes the entry's loads of bases nothing uses (a unit of scripts never touches
    /// `done` or `seen`): Cranelift keeps a load whose result is unused.
    fn drop_unused_bases(&mut self) {
        let a = self.at;
        let mut unused = vec![a.slots, a.seq, a.status, a.state, a.done, a.seen];
        let f = &self.b.func;
        for block in f.layout.blocks() {
            for inst in f.layout.block_insts(block) {
                for v in f.dfg.inst_values(inst) {
                    unused.retain(|&u| f.dfg.resolve_aliases(v) != u);
                }
            }
        }
        for v in unused {
            if let cranelift_codegen::ir::ValueDef::Result(inst, _) = self.b.func.dfg.value_def(v) {
                self.b.func.layout.remove_inst(inst);
            }
        }
    }

    pub fn func(&mut self, id: FuncId) -> FuncRef {
        if let Some(r) = self.refs.get(&id) {
            return *r;
        }
        // What `Module::declare_func_in_func` does, without the module (functions are built
        // on several threads).
        use cranelift_codegen::ir::{ExtFuncData, ExternalName, UserExternalName};
        let d = &self.decls[id.as_u32() as usize];
        let signature = self.b.import_signature(d.sig.clone());
        let name = self
            .b
            .func
            .declare_imported_user_function(UserExternalName {
                namespace: 0,
                index: id.as_u32(),
            });
        let r = self.b.import_function(ExtFuncData {
            name: ExternalName::user(name),
            signature,
            colocated: d.colocated,
            patchable: false,
        });
        self.refs.insert(id, r);
        r
    }

    pub fn call(&mut self, id: FuncId, args: &[Value]) -> Option<Value> {
        let f = self.func(id);
        let call = self.b.ins().call(f, args);
        self.b.inst_results(call).first().copied()
    }

    // ------------------------------------------------------------------ constants, blocks

    /// The value of an `f64const`, if `v` is one (node arguments are usually constants).
    pub fn const_f64(&self, v: Value) -> Option<f64> {
        use cranelift_codegen::ir::{InstructionData, Opcode, ValueDef};
        let ValueDef::Result(inst, _) = self.b.func.dfg.value_def(v) else {
            return None;
        };
        match self.b.func.dfg.insts[inst] {
            InstructionData::UnaryIeee64 {
                opcode: Opcode::F64const,
                imm,
            } => Some(f64::from_bits(imm.bits())),
            _ => None,
        }
    }

    /// The value of an `iconst`, if `v` is one.
    pub fn const_int(&self, v: Value) -> Option<i64> {
        use cranelift_codegen::ir::{InstructionData, Opcode, ValueDef};
        let ValueDef::Result(inst, _) = self.b.func.dfg.value_def(v) else {
            return None;
        };
        match self.b.func.dfg.insts[inst] {
            InstructionData::UnaryImm {
                opcode: Opcode::Iconst,
                imm,
            } => Some(imm.bits()),
            _ => None,
        }
    }

    pub fn i32c(&mut self, v: i64) -> Value {
        self.b.ins().iconst(types::I32, v)
    }

    pub fn f64c(&mut self, v: f64) -> Value {
        self.b.ins().f64const(v)
    }

    pub fn status_c(&mut self, s: Status) -> Value {
        self.i32c(s as i64)
    }

    /// A block that receives a status.
    pub fn status_block(&mut self) -> Block {
        let blk = self.b.create_block();
        self.b.append_block_param(blk, types::I32);
        blk
    }

    pub fn jump_status(&mut self, to: Block, s: Value) {
        self.b.ins().jump(to, &[BlockArg::Value(s)]);
    }

    pub fn exit(&mut self, to: Block, s: Status) {
        let v = self.status_c(s);
        self.jump_status(to, v);
    }

    /// `if cond { then } ; continue` helper: returns (then block, continuation), with the
    /// branch emitted; the caller fills `then` and jumps to the continuation.
    pub fn if_then(&mut self, cond: Value) -> (Block, Block) {
        let then = self.b.create_block();
        let cont = self.b.create_block();
        self.b.ins().brif(cond, then, &[], cont, &[]);
        self.b.switch_to_block(then);
        (then, cont)
    }

    pub fn end_if(&mut self, cont: Block) {
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(cont);
    }

    pub fn eq_imm(&mut self, v: Value, k: i64) -> Value {
        self.b.ins().icmp_imm_s(IntCC::Equal, v, k)
    }

    pub fn ne_imm(&mut self, v: Value, k: i64) -> Value {
        self.b.ins().icmp_imm_s(IntCC::NotEqual, v, k)
    }

    /// Sends `s` to the first arm whose set holds it, testing only the statuses `possible`
    /// allows. Every possible status must be in some arm.
    pub fn route(&mut self, s: Value, possible: StatusSet, arms: &[(StatusSet, Block)]) {
        let mut targets: Vec<(Block, Vec<i64>)> = Vec::new();
        for st in 0..5u8 {
            if possible & (1 << st) == 0 {
                continue;
            }
            let Some((_, blk)) = arms.iter().find(|(m, _)| m & (1 << st) != 0) else {
                continue;
            };
            match targets.iter_mut().find(|(b, _)| b == blk) {
                Some((_, list)) => list.push(st as i64),
                None => targets.push((*blk, vec![st as i64])),
            }
        }
        let Some(((last, _), rest)) = targets.split_last() else {
            // No status is possible: the code is unreachable; any arm will do.
            let blk = arms[0].1;
            self.b.ins().jump(blk, &[]);
            return;
        };
        for (blk, list) in rest {
            let mut cond = self.eq_imm(s, list[0]);
            for &k in &list[1..] {
                let c = self.eq_imm(s, k);
                cond = self.b.ins().bor(cond, c);
            }
            let next = self.b.create_block();
            self.b.ins().brif(cond, *blk, &[], next, &[]);
            self.b.switch_to_block(next);
        }
        self.b.ins().jump(*last, &[]);
    }

    /// `s` is SUCCESS or FAILURE (as a 0/1 i8).
    pub fn is_completed(&mut self, s: Value) -> Value {
        let a = self.eq_imm(s, Status::Success as i64);
        let b = self.eq_imm(s, Status::Failure as i64);
        self.b.ins().bor(a, b)
    }

    pub fn possible(&self, n: NodeId) -> StatusSet {
        self.plan.possible[n as usize]
    }

    pub fn can(&self, n: NodeId, s: Status) -> bool {
        self.possible(n) & bit(s) != 0
    }

    // ------------------------------------------------------------------ state

    pub fn status_of(&mut self, n: NodeId) -> Value {
        self.b
            .ins()
            .uload8(types::I32, flags(), self.at.status, n as i32)
    }

    /// `set_status`: stores the status, recording a change.
    pub fn set_status(&mut self, n: NodeId, s: Value) {
        if !self.plan.record {
            self.b.ins().istore8(flags(), s, self.at.status, n as i32);
            return;
        }
        let prev = self.status_of(n);
        self.b.ins().istore8(flags(), s, self.at.status, n as i32);
        let changed = self.b.ins().icmp(IntCC::NotEqual, prev, s);
        self.record_if(changed, n, prev, s);
    }

    pub fn set_status_c(&mut self, n: NodeId, s: Status) {
        let v = self.status_c(s);
        self.set_status(n, v);
    }

    /// `reset_status`: back to IDLE, recording a change.
    pub fn reset_status(&mut self, n: NodeId) {
        if !self.plan.record {
            let idle = self.status_c(Status::Idle);
            self.b
                .ins()
                .istore8(flags(), idle, self.at.status, n as i32);
            return;
        }
        let prev = self.status_of(n);
        let idle = self.status_c(Status::Idle);
        self.b
            .ins()
            .istore8(flags(), idle, self.at.status, n as i32);
        let changed = self.ne_imm(prev, 0);
        self.record_if(changed, n, prev, idle);
    }

    /// Records a transition when `changed`.
    fn record_if(&mut self, go: Value, n: NodeId, from: Value, to: Value) {
        let blk = self.b.create_block();
        let cont = self.b.create_block();
        self.b.set_cold_block(blk);
        self.b.ins().brif(go, blk, &[], cont, &[]);
        self.b.switch_to_block(blk);
        let node = self.node_val(n);
        self.call(self.callees.record, &[self.at.view, node, from, to]);
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(cont);
    }

    /// Resets a node whose id is only known at run time (a halt function's default case;
    /// in a shared function, the representative's id unless `absolute`).
    pub fn reset_status_dyn(&mut self, n: Value, absolute: bool) {
        let off = self.b.ins().uextend(P, n);
        let base = if absolute {
            self.at.status_abs
        } else {
            self.at.status
        };
        let addr = self.b.ins().iadd(base, off);
        let prev = self.b.ins().uload8(types::I32, flags(), addr, 0);
        let idle = self.status_c(Status::Idle);
        self.b.ins().istore8(flags(), idle, addr, 0);
        if !self.plan.record {
            return;
        }
        let changed = self.ne_imm(prev, 0);
        let (_, cont) = self.if_then(changed);
        let n = match self.shift {
            Some(d) if !absolute => self.b.ins().iadd(n, d[0]),
            _ => n,
        };
        self.call(self.callees.record, &[self.at.view, n, prev, idle]);
        self.end_if(cont);
    }

    fn state_off(n: NodeId, field: i32) -> i32 {
        n as i32 * STATE_SIZE + field
    }

    pub fn load_a(&mut self, n: NodeId) -> Value {
        self.b.ins().load(
            types::I32,
            flags(),
            self.at.state,
            Self::state_off(n, STATE_A),
        )
    }

    pub fn store_a(&mut self, n: NodeId, v: Value) {
        self.b
            .ins()
            .store(flags(), v, self.at.state, Self::state_off(n, STATE_A));
    }

    pub fn store_a_c(&mut self, n: NodeId, k: i64) {
        let v = self.i32c(k);
        self.store_a(n, v);
    }

    pub fn load_b(&mut self, n: NodeId) -> Value {
        self.b.ins().load(
            types::I32,
            flags(),
            self.at.state,
            Self::state_off(n, STATE_B),
        )
    }

    pub fn store_b(&mut self, n: NodeId, v: Value) {
        self.b
            .ins()
            .store(flags(), v, self.at.state, Self::state_off(n, STATE_B));
    }

    pub fn store_b_c(&mut self, n: NodeId, k: i64) {
        let v = self.i32c(k);
        self.store_b(n, v);
    }

    /// `field += 1` of `a` or `b`.
    pub fn incr(&mut self, n: NodeId, field: i32) {
        let off = Self::state_off(n, field);
        let v = self.b.ins().load(types::I32, flags(), self.at.state, off);
        let v = self.b.ins().iadd_imm_s(v, 1);
        self.b.ins().store(flags(), v, self.at.state, off);
    }

    pub fn load_flags(&mut self, n: NodeId) -> Value {
        self.b.ins().uload8(
            types::I32,
            flags(),
            self.at.state,
            Self::state_off(n, STATE_FLAGS),
        )
    }

    pub fn store_flags(&mut self, n: NodeId, v: Value) {
        self.b
            .ins()
            .istore8(flags(), v, self.at.state, Self::state_off(n, STATE_FLAGS));
    }

    /// `flags & mask != 0`.
    pub fn flag_set(&mut self, n: NodeId, mask: u8) -> Value {
        let f = self.load_flags(n);
        let m = self.b.ins().band_imm_s(f, mask as i64);
        self.ne_imm(m, 0)
    }

    pub fn flags_or(&mut self, n: NodeId, mask: u8) {
        let f = self.load_flags(n);
        let f = self.b.ins().bor_imm_s(f, mask as i64);
        self.store_flags(n, f);
    }

    pub fn flags_clear(&mut self, n: NodeId, mask: u8) {
        let f = self.load_flags(n);
        let f = self.b.ins().band_imm_s(f, !(mask as i64) & 0xff);
        self.store_flags(n, f);
    }

    /// `set_flag(n, mask, on)` with `on` known at run time (an i8).
    pub fn flags_set_to(&mut self, n: NodeId, mask: u8, on: Value) {
        let f = self.load_flags(n);
        let cleared = self.b.ins().band_imm_s(f, !(mask as i64) & 0xff);
        let on = self.b.ins().uextend(types::I32, on);
        let bitv = self.b.ins().imul_imm_s(on, mask as i64);
        let f = self.b.ins().bor(cleared, bitv);
        self.store_flags(n, f);
    }

    pub fn store_deadline(&mut self, n: NodeId, v: Value) {
        self.b.ins().store(
            flags(),
            v,
            self.at.state,
            Self::state_off(n, STATE_DEADLINE),
        );
    }

    pub fn disarm(&mut self, n: NodeId) {
        let nan = self.f64c(f64::NAN);
        self.store_deadline(n, nan);
    }

    pub fn now(&mut self) -> Value {
        self.b.ins().load(
            types::F64,
            flags(),
            self.at.view,
            offset_of!(View, now_ms) as i32,
        )
    }

    pub fn wake(&mut self) {
        let one = self.i32c(1);
        self.b
            .ins()
            .istore8(flags(), one, self.at.view, offset_of!(View, woken) as i32);
    }

    pub fn done_flag(&mut self, edge: usize) -> Value {
        self.b
            .ins()
            .uload8(types::I32, flags(), self.at.done, edge as i32)
    }

    pub fn set_done(&mut self, edge: usize, on: bool) {
        let v = self.i32c(i64::from(on));
        self.b.ins().istore8(flags(), v, self.at.done, edge as i32);
    }

    /// Writes a slot and counts the write (`Machine::write`).
    pub fn write_slot(&mut self, slot: u32, v: Value) {
        let ((slots, off), _) = self.slot_place(slot);
        self.b.ins().store(flags(), v, slots, off);
        self.count_write_of(slot, v);
    }

    /// Counts a write of `v` into `slot`: one more, or 0 for `UNSET`, which removes the
    /// entry (`Machine::write`); only a slot that can be unset needs the test.
    fn count_write_of(&mut self, slot: u32, v: Value) {
        if !self.plan.can_be_unset(slot) {
            self.count_write(slot);
            return;
        }
        let (_, (seq, off)) = self.slot_place(slot);
        let s = self.b.ins().load(types::I32, flags(), seq, off);
        let s = self.b.ins().iadd_imm_s(s, 1);
        let bits = self.b.ins().bitcast(types::I64, MemFlagsData::new(), v);
        let unset = self.b.ins().icmp_imm_s(
            IntCC::Equal,
            bits,
            affect_compiler::ir::program::UNSET_BITS as i64,
        );
        let zero = self.b.ins().iconst(types::I32, 0);
        let s = self.b.ins().select(unset, zero, s);
        self.b.ins().store(flags(), s, seq, off);
    }

    /// Counts a write of a slot without changing its number (a list slot's elements
    /// changed).
    pub fn count_write(&mut self, slot: u32) {
        let (_, (seq, off)) = self.slot_place(slot);
        let s = self.b.ins().load(types::I32, flags(), seq, off);
        let s = self.b.ins().iadd_imm_s(s, 1);
        self.b.ins().store(flags(), s, seq, off);
    }

    /// Assigns list `from` to a list slot (`Machine::copy_list`).
    pub fn copy_list(&mut self, slot: u32, from: Value) {
        let to = self.read_slot(slot);
        let f = self.callees.list_copy;
        self.call(f, &[self.at.view, from, to]);
        self.count_write_of(slot, from);
    }

    /// A value the runtime produced, written as `Machine::store` writes it: a list slot
    /// gets a copy of the list.
    pub fn store_value(&mut self, slot: u32, v: Value) {
        let is_list = self
            .plan
            .agent
            .slots
            .get(slot as usize)
            .is_some_and(|s| s.kind == affect_compiler::ir::program::ValueKind::List);
        if is_list {
            self.copy_list(slot, v);
        } else {
            self.write_slot(slot, v);
        }
    }

    pub fn read_slot(&mut self, slot: u32) -> Value {
        if (slot as usize) < self.plan.agent.slots.len() {
            let ((slots, off), _) = self.slot_place(slot);
            self.b.ins().load(types::F64, flags(), slots, off)
        } else {
            self.f64c(f64::NAN)
        }
    }

    /// A checked read (`Op::LoadChecked`): the slot's value, or, when it holds `UNSET`, a
    /// call that records the fault and yields 0 (on a cold path: only programs with
    /// variables that can be unset have such reads).
    pub fn read_slot_checked(&mut self, slot: u32) -> Value {
        if slot as usize >= self.plan.agent.slots.len() {
            return self.f64c(f64::NAN);
        }
        if self.is_list(slot) {
            return self.read_list_checked(slot);
        }
        if let Some(&(_, v)) = self.checked.iter().find(|(s, _)| *s == slot) {
            return v;
        }
        // `UNSET` is a NaN: the hot path tests the value for NaN (one compare of a register
        // with itself), and only a NaN has its bits compared, on a cold path.
        let v = self.read_slot(slot);
        let nan = self.b.ins().fcmp(FloatCC::Unordered, v, v);
        let is_nan = self.b.create_block();
        let unset = self.b.create_block();
        let cont = self.b.create_block();
        self.b.append_block_param(cont, types::F64);
        self.b.set_cold_block(is_nan);
        self.b.set_cold_block(unset);
        self.b
            .ins()
            .brif(nan, is_nan, &[], cont, &[BlockArg::Value(v)]);
        self.b.switch_to_block(is_nan);
        let bits = self.b.ins().bitcast(types::I64, MemFlagsData::new(), v);
        let is_unset = self.b.ins().icmp_imm_s(
            IntCC::Equal,
            bits,
            affect_compiler::ir::program::UNSET_BITS as i64,
        );
        self.b
            .ins()
            .brif(is_unset, unset, &[], cont, &[BlockArg::Value(v)]);
        self.b.switch_to_block(unset);
        let s = self.slot_number(slot);
        let zero = self
            .call(self.callees.unset_read, &[self.at.view, s])
            .expect("returns a value");
        self.b.ins().jump(cont, &[BlockArg::Value(zero)]);
        self.b.switch_to_block(cont);
        let r = self.b.block_params(cont)[0];
        self.checked.push((slot, r));
        r
    }

    /// The number of `slot` in this instance, for Rust (a shared function's slots that move
    /// with its unit are the representative's plus the unit's slot offset).
    pub fn slot_number(&mut self, slot: u32) -> Value {
        if let Some(e) = self.mapped(slot) {
            let i = self.table_entry(e, P);
            return self.b.ins().ireduce(types::I32, i);
        }
        match self.shift {
            Some(d) if self.is_rel(slot) => self.b.ins().iadd_imm_s(d[2], i64::from(slot)),
            _ => self.i32c(slot as i64),
        }
    }

    /// Whether `slot` is a list variable's.
    pub fn is_list(&self, slot: u32) -> bool {
        self.plan
            .agent
            .slots
            .get(slot as usize)
            .is_some_and(|s| s.kind == affect_compiler::ir::program::ValueKind::List)
    }

    /// Whether the list list slot `slot` holds is unset (`Lists::is_unset`), as an `i32`.
    pub fn list_is_unset(&mut self, slot: u32) -> Value {
        let id = self.read_slot(slot);
        self.call(self.callees.list_unset, &[self.at.view, id])
            .expect("returns a value")
    }

    /// A checked read of a list slot (`Machine::list_checked`): the list's id, after
    /// recording the fault on a cold path when the list holds no value.
    fn read_list_checked(&mut self, slot: u32) -> Value {
        let unset = self.list_is_unset(slot);
        let cold = self.b.create_block();
        let cont = self.b.create_block();
        self.b.set_cold_block(cold);
        self.b.ins().brif(unset, cold, &[], cont, &[]);
        self.b.switch_to_block(cold);
        let s = self.slot_number(slot);
        self.call(self.callees.unset_read, &[self.at.view, s]);
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(cont);
        self.read_slot(slot)
    }

    /// Counts a node tick in the view. (A counter in memory rather than an SSA variable:
    /// a variable would become a parameter of nearly every block, which makes compiling
    /// large trees slow; the increment costs about a cycle of throughput.)
    ///
    /// The nodes ticked in one block share one increment: a block runs whole or not at all,
    /// and nothing reads the counter before the tick ends (a unit called in between adds its
    /// own), so the total is the same with one memory update instead of a chain of them.
    pub fn count_tick(&mut self) {
        use cranelift_codegen::ir::{immediates::Imm64, InstructionData, Opcode};
        let here = self.b.current_block();
        if let Some((blk, k)) = self.count {
            if Some(blk) == here {
                if let InstructionData::UnaryImm {
                    opcode: Opcode::Iconst,
                    imm,
                } = self.b.func.dfg.insts[k]
                {
                    self.b.func.dfg.insts[k] = InstructionData::UnaryImm {
                        opcode: Opcode::Iconst,
                        imm: Imm64::new(imm.bits() + 1),
                    };
                    return;
                }
            }
        }
        let off = offset_of!(View, node_ticks) as i32;
        let old = self.b.ins().load(types::I64, flags(), self.at.view, off);
        let one = self.b.ins().iconst(types::I64, 1);
        let new = self.b.ins().iadd(old, one);
        self.b.ins().store(flags(), new, self.at.view, off);
        if let (Some(blk), cranelift_codegen::ir::ValueDef::Result(k, _)) =
            (here, self.b.func.dfg.value_def(one))
        {
            self.count = Some((blk, k));
        }
    }

    // ------------------------------------------------------------------ halting

    /// `halt_node(c)`: the halt function of the node's unit.
    pub fn halt_node(&mut self, c: NodeId) -> Result<(), JitError> {
        let Some(u) = self.plan.unit_of[c as usize] else {
            return Err(JitError::Unsupported(format!("node {c} has no code")));
        };
        let f = self.callees.halts[u as usize];
        let id = self.node_val(c);
        let [dn, de, ds, dk] = self.unit_args(u);
        self.call(f, &[self.at.view, id, dn, de, ds, dk]);
        Ok(())
    }

    /// `ControlNode::haltChild`: halt a running child, then reset it.
    pub fn halt_child(&mut self, n: NodeId, k: usize) -> Result<(), JitError> {
        let c = self.plan.children(n)[k];
        if self.plan.may_run[c as usize] {
            let st = self.status_of(c);
            let running = self.eq_imm(st, Status::Running as i64);
            let (_, cont) = self.if_then(running);
            self.halt_node(c)?;
            self.end_if(cont);
        }
        self.reset_status(c);
        Ok(())
    }

    /// `halt_child` of a child whose index is known only at run time.
    pub fn halt_child_dyn(&mut self, n: NodeId, k: Value) -> Result<(), JitError> {
        let count = self.plan.children(n).len();
        let join = self.b.create_block();
        let blocks: Vec<Block> = (0..count).map(|_| self.b.create_block()).collect();
        self.br_table(k, &blocks, join);
        for (j, blk) in blocks.into_iter().enumerate() {
            self.b.switch_to_block(blk);
            self.halt_child(n, j)?;
            self.b.ins().jump(join, &[]);
        }
        self.b.switch_to_block(join);
        Ok(())
    }

    /// `ControlNode::resetChildren`.
    pub fn reset_children(&mut self, n: NodeId) -> Result<(), JitError> {
        if self.plan.wide[n as usize].is_some() {
            let zero = self.i32c(0);
            return self.halt_children_from(n, zero);
        }
        for k in 0..self.plan.children(n).len() {
            self.halt_child(n, k)?;
        }
        Ok(())
    }

    /// `DecoratorNode::resetChild`.
    pub fn reset_child(&mut self, n: NodeId) -> Result<(), JitError> {
        if !self.plan.children(n).is_empty() {
            self.halt_child(n, 0)?;
        }
        Ok(())
    }

    /// Jumps to `blocks[index]`, or `default` when the index (an i32, read as unsigned) is
    /// out of range.
    pub fn br_table(&mut self, index: Value, blocks: &[Block], default: Block) {
        use cranelift_codegen::ir::JumpTableData;
        let dfg = &mut self.b.func.dfg;
        let def = dfg.block_call(default, &[]);
        let table: Vec<_> = blocks.iter().map(|b| dfg.block_call(*b, &[])).collect();
        let jt = self.b.create_jump_table(JumpTableData::new(def, &table));
        self.b.ins().br_table(index, jt);
    }
}
