//! The driver: declares every function, emits them with the node and expression emitters,
//! and links them into executable memory.
//!
//! Functions: one tick function per unit (a subtree with its small children inlined), one
//! halt function per unit, one entry per tree root (ticks it, resets it when it completes,
//! as `tickExactlyOnce` does), the process phase, and a helper that appends a transition
//! to the machine's buffer.

use super::emit::{flags, Callees, Decl, Fx, P};
use super::host;
use super::plan::Plan;
use super::view::{UnitEntry, View};
use super::{Compiled, HaltFn, JitError, ProcessFn, TickFn};
use affect_compiler::ir::program::{AgentProgram, NodeId, Program};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, AbiParam, InstBuilder, Signature, UserFuncName};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, FuncId, Linkage, Module, ModuleRelocTarget};
use std::mem::offset_of;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

impl From<cranelift_module::ModuleError> for JitError {
    fn from(e: cranelift_module::ModuleError) -> JitError {
        JitError::Codegen(e.to_string())
    }
}

fn sig(module: &JITModule, params: &[types::Type], ret: Option<types::Type>) -> Signature {
    let mut s = module.make_signature();
    for p in params {
        s.params.push(AbiParam::new(*p));
    }
    if let Some(r) = ret {
        s.returns.push(AbiParam::new(r));
    }
    s
}

/// Cranelift settings: `AFFECT_JIT_OPT` (`speed`, `none`) overrides the optimisation level
/// for experiments; the verifier runs in debug builds.
fn isa() -> Result<cranelift_codegen::isa::OwnedTargetIsa, JitError> {
    let mut b = settings::builder();
    let opt = std::env::var("AFFECT_JIT_OPT").unwrap_or_else(|_| "speed".into());
    let set = |b: &mut settings::Builder, k: &str, v: &str| {
        b.set(k, v)
            .map_err(|e| JitError::Codegen(format!("setting {k}={v}: {e}")))
    };
    set(&mut b, "opt_level", &opt)?;
    let regalloc = std::env::var("AFFECT_JIT_REGALLOC").unwrap_or_else(|_| "backtracking".into());
    set(&mut b, "regalloc_algorithm", &regalloc)?;
    set(
        &mut b,
        "enable_verifier",
        if cfg!(debug_assertions) {
            "true"
        } else {
            "false"
        },
    )?;
    set(&mut b, "use_colocated_libcalls", "false")?;
    set(&mut b, "is_pic", "false")?;
    let native = cranelift_native::builder().map_err(|e| {
        JitError::Unsupported(format!("no Cranelift backend for this machine: {e}"))
    })?;
    native
        .finish(settings::Flags::new(b))
        .map_err(|e| JitError::Codegen(e.to_string()))
}

pub(crate) fn compile(
    program: &Program,
    agent: &AgentProgram,
    record: bool,
) -> Result<Compiled, JitError> {
    let t0 = Instant::now();
    let plan = super::share::plan(program, agent, record)?;
    let built = build_plan(&plan, None)?;
    link_plan(&plan, built, t0)
}

/// Code generation without linking: what the background compiler of the tiered engine and
/// the code cache hand over. `cancel` stops it between two functions.
pub(crate) fn build(
    program: &Program,
    agent: &AgentProgram,
    record: bool,
    cancel: Option<&AtomicBool>,
) -> Result<Artifact, JitError> {
    build_plan(&super::share::plan(program, agent, record)?, cancel)
}

/// Links generated (or cached) code into executable memory for `agent`: the plan is made
/// again (it is cheap and deterministic, so it declares exactly the functions the code was
/// generated for, and the artifact need not carry it).
pub(crate) fn link_artifact(
    program: &Program,
    agent: &AgentProgram,
    built: Artifact,
) -> Result<Compiled, JitError> {
    let t0 = Instant::now();
    let plan = super::share::plan(program, agent, built.record)?;
    link_plan(&plan, built, t0)
}

fn build_plan(plan: &Plan, cancel: Option<&AtomicBool>) -> Result<Artifact, JitError> {
    let mut module = new_module()?;
    let services = declare_services(&mut module)?;
    let (callees, roots, process) = declare_functions(&mut module, plan, plan.agent, services)?;
    let decls = declarations(&module);
    let jobs = jobs(plan, &callees, &roots, process);
    let env = Env {
        plan,
        callees: &callees,
        decls: &decls,
        cfg: module.target_config(),
        agent: plan.agent,
        isa: module.isa(),
        cancel,
    };
    let mut funcs = Vec::with_capacity(jobs.len());
    for outs in env.compile_all(&jobs) {
        funcs.extend(outs?);
    }
    Ok(Artifact {
        record: plan.record,
        funcs,
    })
}

fn link_plan(plan: &Plan, built: Artifact, t0: Instant) -> Result<Compiled, JitError> {
    let mut module = new_module()?;
    let services = declare_services(&mut module)?;
    let (callees, roots, process) = declare_functions(&mut module, plan, plan.agent, services)?;
    check_artifact(&module, &built)?;
    let (functions, code_bytes) = link(&mut module, built.funcs)?;
    let (roots, halts, process) = entries(&module, plan, &callees, &roots, process);
    let units = unit_table(&module, plan, &callees);
    Ok(Compiled {
        module: Some(module),
        agent_id: super::identity(plan.agent),
        record: plan.record,
        roots,
        halts,
        process,
        units,
        table: plan.share.table.clone(),
        host_fns: plan.host_fns.clone(),
        functions: plan.functions.clone(),
        stats: super::CompileStats {
            functions,
            units: plan.units.len(),
            shapes: plan.share.shapes(),
            code_bytes,
            compile_ms: t0.elapsed().as_secs_f64() * 1000.0,
        },
    })
}

/// Code read from the cache was generated for exactly these declarations: every function
/// this module defines appears once, and every relocation names a declared function or a
/// library call. Anything else is refused before a byte of it is linked.
fn check_artifact(module: &JITModule, built: &Artifact) -> Result<(), JitError> {
    let d = module.declarations();
    let count = d.get_functions().count();
    // Defined in this module (the anonymous functions), not imported from Rust.
    let local = |i: usize| {
        d.get_function_decl(FuncId::from_u32(i as u32))
            .linkage
            .is_final()
    };
    let mut defined = vec![false; count];
    let bad = |what: &str| {
        Err(JitError::Codegen(format!(
            "cached code does not fit: {what}"
        )))
    };
    for f in &built.funcs {
        let i = f.id.as_u32() as usize;
        if i >= count || !local(i) || defined[i] {
            return bad("a function is unknown or defined twice");
        }
        defined[i] = true;
        if !f.align.is_power_of_two() || f.align > 4096 {
            return bad("an alignment");
        }
        for r in &f.relocs {
            let ok = match &r.name {
                ModuleRelocTarget::User { namespace, index } => {
                    *namespace == 0 && (*index as usize) < count
                }
                ModuleRelocTarget::LibCall(_) => true,
                _ => false,
            };
            if !ok || r.offset as usize > f.bytes.len() {
                return bad("a relocation");
            }
        }
    }
    if (0..count).any(|i| local(i) && !defined[i]) {
        return bad("a function is missing");
    }
    Ok(())
}

/// A module that knows where the Rust services compiled code calls live.
fn new_module() -> Result<JITModule, JitError> {
    let mut jb = JITBuilder::with_isa(isa()?, default_libcall_names());
    jb.symbol("affect_record_slow", host::record_slow as *const u8);
    jb.symbol("affect_leaf_tick", host::leaf_tick as *const u8);
    jb.symbol("affect_leaf_halt", host::leaf_halt as *const u8);
    jb.symbol("affect_host_call", host::host_call as *const u8);
    jb.symbol("affect_list_push", host::list_push as *const u8);
    jb.symbol("affect_list_get", host::list_get as *const u8);
    jb.symbol("affect_list_len", host::list_len as *const u8);
    jb.symbol("affect_list_pop_front", host::list_pop_front as *const u8);
    jb.symbol("affect_list_build", host::list_build as *const u8);
    jb.symbol("affect_list_copy", host::list_copy as *const u8);
    jb.symbol("affect_list_set_at", host::list_set_at as *const u8);
    jb.symbol("affect_call_function", host::call_function as *const u8);
    jb.symbol("affect_unset_read", host::unset_read as *const u8);
    jb.symbol("affect_list_unset", host::list_unset as *const u8);
    Ok(JITModule::new(jb))
}

/// The Rust services, declared with the signatures their `extern "C"` definitions have, and
/// the transition helper.
struct Services {
    record: FuncId,
    record_slow: FuncId,
    leaf_tick: FuncId,
    leaf_halt: FuncId,
    host_call: FuncId,
    list_push: FuncId,
    list_get: FuncId,
    list_len: FuncId,
    list_pop_front: FuncId,
    list_build: FuncId,
    list_copy: FuncId,
    list_set_at: FuncId,
    call_function: FuncId,
    unset_read: FuncId,
    list_unset: FuncId,
}

fn declare_services(module: &mut JITModule) -> Result<Services, JitError> {
    use types::{F64, I32};
    let mut import = |name: &str, params: &[types::Type], ret: Option<types::Type>| {
        let s = sig(module, params, ret);
        module
            .declare_function(name, Linkage::Import, &s)
            .map_err(JitError::from)
    };
    let record_slow = import("affect_record_slow", &[P, I32, I32, I32], None)?;
    let leaf_tick = import("affect_leaf_tick", &[P, I32, I32, P, P, P, I32], Some(I32))?;
    let leaf_halt = import("affect_leaf_halt", &[P, I32], None)?;
    let host_call = import("affect_host_call", &[P, I32, I32, P, I32], Some(F64))?;
    let list_push = import("affect_list_push", &[P, F64, F64, I32], None)?;
    let list_get = import("affect_list_get", &[P, F64, F64], Some(F64))?;
    let list_len = import("affect_list_len", &[P, F64], Some(F64))?;
    let list_pop_front = import("affect_list_pop_front", &[P, F64, P, I32], Some(I32))?;
    let list_build = import("affect_list_build", &[P, F64, P, I32], None)?;
    let list_copy = import("affect_list_copy", &[P, F64, F64], None)?;
    let list_set_at = import("affect_list_set_at", &[P, F64, F64, F64, I32], None)?;
    let call_function = import("affect_call_function", &[P, I32, P, I32], Some(F64))?;
    let unset_read = import("affect_unset_read", &[P, I32], Some(F64))?;
    let list_unset = import("affect_list_unset", &[P, F64], Some(I32))?;
    let record = module.declare_anonymous_function(&sig(module, &[P, I32, I32, I32], None))?;
    Ok(Services {
        record,
        record_slow,
        leaf_tick,
        leaf_halt,
        host_call,
        list_push,
        list_get,
        list_len,
        list_pop_front,
        list_build,
        list_copy,
        list_set_at,
        call_function,
        unset_read,
        list_unset,
    })
}

/// Declares the program's functions: a tick and a halt function per unit, an entry per
/// root, the process phase when there is one.
fn declare_functions(
    module: &mut JITModule,
    plan: &Plan,
    agent: &AgentProgram,
    s: Services,
) -> Result<(Callees, Vec<FuncId>, Option<FuncId>), JitError> {
    use types::I32;
    // A unit's functions take its node, edge, slot and table offsets from the
    // representative of its shape (`share.rs`; zero when it has functions of its own).
    let tick_sig = sig(module, &[P, I32, I32, I32, I32], Some(I32));
    let halt_sig = sig(module, &[P, I32, I32, I32, I32, I32], None);
    let root_sig = sig(module, &[P], Some(I32));
    let proc_sig = sig(module, &[P], None);
    let n = plan.units.len();
    let mut ticks: Vec<Option<FuncId>> = vec![None; n];
    let mut halts: Vec<Option<FuncId>> = vec![None; n];
    // Units with nothing to halt but a status to reset (a wide node's leaves) share one
    // halt function.
    let mut reset_only = None;
    for u in (0..n).filter(|&u| plan.share.rep[u] as usize == u) {
        ticks[u] = Some(module.declare_anonymous_function(&tick_sig)?);
        halts[u] = Some(if plan.halt_members(u).is_empty() {
            match reset_only {
                Some(id) => id,
                None => *reset_only.insert(module.declare_anonymous_function(&halt_sig)?),
            }
        } else {
            module.declare_anonymous_function(&halt_sig)?
        });
    }
    let of_rep = |f: &[Option<FuncId>], u: usize| f[plan.share.rep[u] as usize].expect("declared");
    let ticks: Vec<FuncId> = (0..n).map(|u| of_rep(&ticks, u)).collect();
    let halts: Vec<FuncId> = (0..n).map(|u| of_rep(&halts, u)).collect();
    let roots: Vec<FuncId> = plan
        .roots
        .iter()
        .map(|_| {
            module
                .declare_anonymous_function(&root_sig)
                .map_err(JitError::from)
        })
        .collect::<Result<_, _>>()?;
    let process = if agent.process.is_empty() {
        None
    } else {
        Some(module.declare_anonymous_function(&proc_sig)?)
    };
    let callees = Callees {
        record: s.record,
        record_slow: s.record_slow,
        leaf_tick: s.leaf_tick,
        leaf_halt: s.leaf_halt,
        host_call: s.host_call,
        list_push: s.list_push,
        list_get: s.list_get,
        list_len: s.list_len,
        list_pop_front: s.list_pop_front,
        list_build: s.list_build,
        list_copy: s.list_copy,
        list_set_at: s.list_set_at,
        call_function: s.call_function,
        unset_read: s.unset_read,
        list_unset: s.list_unset,
        ticks,
        halts,
    };
    Ok((callees, roots, process))
}

/// Every declared function's signature, by id, for calls between them.
fn declarations(module: &JITModule) -> Vec<Decl> {
    let d = module.declarations();
    let count = d.get_functions().count();
    (0..count)
        .map(|i| {
            let f = d.get_function_decl(FuncId::from_u32(i as u32));
            Decl {
                sig: f.signature.clone(),
                colocated: f.linkage.is_final(),
            }
        })
        .collect()
}

/// The functions to generate, in declaration order.
fn jobs(
    plan: &Plan,
    callees: &Callees,
    roots: &[FuncId],
    process: Option<FuncId>,
) -> Vec<(FuncId, Job)> {
    let mut jobs: Vec<(FuncId, Job)> = vec![(callees.record, Job::Record)];
    let mut shared_halt = false;
    for u in (0..plan.units.len()).filter(|&u| plan.share.rep[u] as usize == u) {
        jobs.push((callees.ticks[u], Job::Tick(u)));
        // The shared reset-only halt function once, as the first unit that uses it.
        if !plan.halt_members(u).is_empty() || !std::mem::replace(&mut shared_halt, true) {
            jobs.push((callees.halts[u], Job::Halt(u)));
        }
    }
    for (k, id) in roots.iter().enumerate() {
        jobs.push((*id, Job::Root(k)));
    }
    if let Some(id) = process {
        jobs.push((id, Job::Process));
    }
    jobs
}

/// Defines the compiled functions in the module and makes them executable; returns how many
/// there are and their bytes of machine code.
fn link(module: &mut JITModule, funcs: Vec<Out>) -> Result<(usize, usize), JitError> {
    let mut code_bytes = 0usize;
    let functions = funcs.len();
    for o in funcs {
        code_bytes += o.bytes.len();
        module.define_function_bytes(o.id, o.align, &o.bytes, &o.relocs)?;
    }
    module.finalize_definitions()?;
    Ok((functions, code_bytes))
}

/// The entry points a machine calls: each root's, each node's halt (its unit's), and the
/// process phase's.
#[allow(clippy::type_complexity)]
fn entries(
    module: &JITModule,
    plan: &Plan,
    callees: &Callees,
    roots: &[FuncId],
    process: Option<FuncId>,
) -> (
    Vec<(NodeId, TickFn)>,
    Vec<Option<(HaltFn, super::plan::Delta)>>,
    Option<ProcessFn>,
) {
    // SAFETY (all transmutes below): each pointer comes from `finalize_definitions` for a
    // function declared with exactly the signature of the Rust type it becomes (a pointer
    // argument is `*mut View`, I32 is i32/u32, nothing else), in the platform's default
    // calling convention, which `extern "C"` is on both supported architectures.
    let tick_ptr = |id: FuncId| -> TickFn {
        unsafe { std::mem::transmute::<*const u8, TickFn>(module.get_finalized_function(id)) }
    };
    let halt_ptr = |id: FuncId| -> HaltFn {
        unsafe { std::mem::transmute::<*const u8, HaltFn>(module.get_finalized_function(id)) }
    };
    let root_entries = plan
        .roots
        .iter()
        .zip(roots)
        .map(|(r, id)| (*r, tick_ptr(*id)))
        .collect();
    let unit_halts: Vec<HaltFn> = callees.halts.iter().map(|id| halt_ptr(*id)).collect();
    let halts = plan
        .unit_of
        .iter()
        .map(|u| u.map(|u| (unit_halts[u as usize], plan.share.delta[u as usize])))
        .collect();
    let process = process.map(|id| unsafe {
        std::mem::transmute::<*const u8, ProcessFn>(module.get_finalized_function(id))
    });
    (root_entries, halts, process)
}

/// Each unit's tick and halt functions and root, for wide nodes' calls (`View::units`).
fn unit_table(module: &JITModule, plan: &Plan, callees: &Callees) -> Vec<UnitEntry> {
    plan.units
        .iter()
        .zip(callees.ticks.iter().zip(&callees.halts))
        .zip(&plan.share.delta)
        .map(|((&node, (&tick, &halt)), &delta)| UnitEntry {
            tick: module.get_finalized_function(tick),
            halt: module.get_finalized_function(halt),
            node,
            delta,
        })
        .collect()
}

/// One function to generate.
#[derive(Clone, Copy)]
enum Job {
    /// The transition helper: append to the buffer, or let Rust grow it.
    Record,
    /// A unit's tick function.
    Tick(usize),
    /// A unit's halt function.
    Halt(usize),
    /// The entry of a tree root.
    Root(usize),
    /// The process phase.
    Process,
}

/// A compiled function, ready to link.
pub(crate) struct Out {
    pub id: FuncId,
    pub align: u64,
    pub bytes: Vec<u8>,
    pub relocs: Vec<cranelift_module::ModuleReloc>,
}

/// Generated code before linking: every function's machine code and relocations, for
/// machines that record status changes or not.
pub struct Artifact {
    pub(crate) record: bool,
    pub(crate) funcs: Vec<Out>,
}

/// What every worker reads.
struct Env<'a> {
    plan: &'a Plan<'a>,
    callees: &'a Callees,
    decls: &'a [Decl],
    cfg: cranelift_codegen::isa::TargetFrontendConfig,
    agent: &'a AgentProgram,
    isa: &'a dyn cranelift_codegen::isa::TargetIsa,
    /// Set when nobody waits for the code any more (the tiered engine's run ended).
    cancel: Option<&'a AtomicBool>,
}

impl Env<'_> {
    /// Compiles every job. Functions are independent: each worker builds and compiles every
    /// `workers`-th one; linking is sequential.
    fn compile_all(&self, jobs: &[(FuncId, Job)]) -> Vec<Result<Vec<Out>, JitError>> {
        let workers = if jobs.len() < 16 {
            1
        } else {
            std::thread::available_parallelism().map_or(1, |n| n.get().min(4))
        };
        if workers == 1 {
            return vec![self.compile_jobs(jobs, 0, 1)];
        }
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..workers)
                .map(|w| s.spawn(move || self.compile_jobs(jobs, w, workers)))
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(JitError::Codegen("a compiler thread panicked".into()))
                    })
                })
                .collect()
        })
    }

    /// Builds and compiles jobs `first`, `first + step`, ...
    fn compile_jobs(
        &self,
        jobs: &[(FuncId, Job)],
        first: usize,
        step: usize,
    ) -> Result<Vec<Out>, JitError> {
        let mut ctx = Context::new();
        let mut fctx = FunctionBuilderContext::new();
        let mut out = Vec::new();
        let disasm = std::env::var_os("AFFECT_JIT_DISASM");
        let dump = std::env::var_os("AFFECT_JIT_DUMP");
        for &(id, job) in jobs.iter().skip(first).step_by(step) {
            if self.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                return Err(JitError::Unsupported("compiling was cancelled".into()));
            }
            ctx.clear();
            let d = &self.decls[id.as_u32() as usize];
            ctx.func.signature = d.sig.clone();
            ctx.func.name = UserFuncName::user(0, id.as_u32());
            {
                let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
                let entry = b.create_block();
                b.append_block_params_for_function_params(entry);
                let mut fx = Fx::new(b, self.decls, self.plan, self.callees, entry);
                self.body(&mut fx, job)?;
                fx.finish(self.cfg);
            }
            if let Some(dir) = &dump {
                // Debugging aid: the generated IR of every function, one file each.
                let path = std::path::Path::new(dir).join(format!("f{}.clif", id.as_u32()));
                let _ = std::fs::write(path, ctx.func.display().to_string());
            }
            ctx.set_disasm(disasm.is_some());
            ctx.compile(self.isa, &mut Default::default())
                .map_err(|e| JitError::Codegen(format!("{:?}", e.inner)))?;
            let code = ctx.compiled_code().expect("just compiled");
            let align = code.buffer.alignment as u64;
            let bytes = code.code_buffer().to_vec();
            if let (Some(dir), Some(text)) = (&disasm, &code.vcode) {
                // Debugging aid: the machine code of every function.
                let path = std::path::Path::new(dir).join(format!("f{}.s", id.as_u32()));
                let _ = std::fs::write(path, text);
            }
            let relocs = code
                .buffer
                .relocs()
                .iter()
                .map(|r| cranelift_module::ModuleReloc::from_mach_reloc(r, &ctx.func, id))
                .collect();
            out.push(Out {
                id,
                align,
                bytes,
                relocs,
            });
        }
        if std::env::var_os("AFFECT_JIT_TIMING").is_some() {
            // Debugging aid: where Cranelift spent its time (this thread's share).
            eprintln!("{}", cranelift_codegen::timing::take_current());
        }
        Ok(out)
    }

    fn body<'e>(&'e self, fx: &mut Fx<'e, '_>, job: Job) -> Result<(), JitError> {
        match job {
            Job::Record => {
                let entry = fx.b.current_block().expect("entry");
                let p = fx.b.block_params(entry).to_vec();
                let (v, node, from, to) = (p[0], p[1], p[2], p[3]);
                let len =
                    fx.b.ins()
                        .load(P, flags(), v, offset_of!(View, trans_len) as i32);
                let cap =
                    fx.b.ins()
                        .load(P, flags(), v, offset_of!(View, trans_cap) as i32);
                let room = fx.b.ins().icmp(IntCC::UnsignedLessThan, len, cap);
                let fast = fx.b.create_block();
                let slow = fx.b.create_block();
                fx.b.ins().brif(room, fast, &[], slow, &[]);
                fx.b.switch_to_block(fast);
                let base =
                    fx.b.ins()
                        .load(P, flags(), v, offset_of!(View, trans_ptr) as i32);
                let off = fx.b.ins().imul_imm_s(len, 8);
                let at = fx.b.ins().iadd(base, off);
                fx.b.ins().store(flags(), node, at, 0);
                fx.b.ins().istore8(flags(), from, at, 4);
                fx.b.ins().istore8(flags(), to, at, 5);
                let len1 = fx.b.ins().iadd_imm_s(len, 1);
                fx.b.ins()
                    .store(flags(), len1, v, offset_of!(View, trans_len) as i32);
                fx.b.ins().return_(&[]);
                fx.b.switch_to_block(slow);
                fx.call(self.callees.record_slow, &[v, node, from, to]);
                fx.b.ins().return_(&[]);
            }
            Job::Tick(u) => {
                fx.unit = Some(u as u32);
                let plan = self.plan;
                if let Some(params) = &plan.share.params[u] {
                    let entry = fx.b.current_block().expect("entry");
                    let p = fx.b.block_params(entry).to_vec();
                    fx.shift_bases([p[1], p[2], p[3], p[4]], params);
                }
                let s = fx.execute_tick(self.plan.units[u])?;
                fx.b.ins().return_(&[s]);
            }
            Job::Halt(u) => {
                let entry = fx.b.current_block().expect("entry");
                let p = fx.b.block_params(entry).to_vec();
                let mut n = p[1];
                // The shared reset-only function resets the node it is given, as it is.
                let plan = self.plan;
                if let (Some(params), false) =
                    (&plan.share.params[u], plan.halt_members(u).is_empty())
                {
                    fx.shift_bases([p[2], p[3], p[4], p[5]], params);
                    n = fx.b.ins().isub(n, p[2]);
                }
                fx.halt_function(u as u32, n)?;
            }
            Job::Root(k) => {
                let root = self.plan.roots[k];
                let s = fx.execute_tick(root)?;
                let completed = fx.is_completed(s);
                let (_, cont) = fx.if_then(completed);
                fx.reset_status(root);
                fx.end_if(cont);
                fx.b.ins().return_(&[s]);
            }
            Job::Process => {
                fx.run(self.agent.process)?;
                fx.b.ins().return_(&[]);
            }
        }
        Ok(())
    }
}

/// What besides the program decides the generated code, for the code cache's key: this
/// engine's sources (hashed when it was built, `build.rs`), the target, Cranelift's
/// settings and the CPU features it detected, the size of a function, whether units share
/// functions, and from how many children a control loops over them.
pub(crate) fn fingerprint() -> Result<String, JitError> {
    let isa = isa()?;
    let mut s = format!(
        "{}\n{}\n{}\nunit {}\nshare {}\nwide {}\n",
        env!("AFFECT_ENGINE_HASH"),
        isa.triple(),
        isa.flags(),
        super::plan::unit_budget(),
        super::share::enabled(),
        super::plan::wide_threshold()
    );
    for v in isa.isa_flags() {
        s.push_str(&format!("{v}\n"));
    }
    Ok(s)
}
