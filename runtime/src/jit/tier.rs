//! The tiered engine's background compiler: code generation (or a code cache look-up) on a
//! thread of its own while the interpreter ticks. The result is generated code, not yet
//! linked; the ticking thread links it and installs it at a tick boundary (`Machine::
//! install_jit`). Both engines work on the machine's own state and compute the same
//! results bit for bit (tests/jit_differential.rs), so the tick at which the switch happens
//! changes nothing a run observes; `tests/tiered.rs` forces it at several ticks.

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
use super::cache::{CodeCache, Lookup};
use super::{Artifact, Compiled, JitError};
use affect_compiler::ir::program::{AgentProgram, Program};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError};
use std::sync::Arc;

/// What the background compiler produced: the code, and what the code cache said (`None`
/// without a cache).
pub struct Ready {
    pub code: Result<Artifact, JitError>,
    pub cache: Option<&'static str>,
}

/// A compilation under way. Dropping it cancels it (between two functions).
pub struct Pending {
    rx: Option<Receiver<Ready>>,
    cancel: Arc<AtomicBool>,
}

impl Drop for Pending {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

/// Starts compiling agent `agent` of `program` on a background thread, through the code
/// cache in `cache` when there is one. `record`: as `compile_with`.
pub fn spawn(program: Arc<Program>, agent: usize, record: bool, cache: Option<PathBuf>) -> Pending {
    let cancel = Arc::new(AtomicBool::new(false));
    let (tx, rx) = std::sync::mpsc::channel();
    let stop = cancel.clone();
    let spawned = std::thread::Builder::new()
        .name("affect-jit".into())
        .spawn(move || {
            lower_priority();
            let Some(a) = program.agents.get(agent) else {
                return;
            };
            let _ = tx.send(generate(&program, a, record, cache, &stop));
        });
    Pending {
        rx: spawned.ok().map(|_| rx),
        cancel,
    }
}

/// The compiler thread yields to the ticking thread: on a machine with few cores the
/// interpreter's first ticks would otherwise wait for Cranelift's time slices.
fn lower_priority() {
    #[cfg(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    ))]
    // SAFETY: `gettid` has no preconditions; `setpriority` on this thread's id only changes
    // its own nice value (Linux keeps one per thread), and a failure changes nothing.
    unsafe {
        let tid = libc::gettid();
        libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, 10);
    }
}

impl Pending {
    /// The result if it is there; `None` while the compiler works.
    pub fn poll(&mut self) -> Option<Ready> {
        let rx = self.rx.as_ref()?;
        match rx.try_recv() {
            Ok(r) => {
                self.rx = None;
                Some(r)
            }
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => {
                self.rx = None;
                Some(failed())
            }
        }
    }

    /// Waits for the result.
    pub fn wait(&mut self) -> Ready {
        let Some(rx) = self.rx.take() else {
            return failed();
        };
        rx.recv().unwrap_or_else(|_| failed())
    }
}

fn failed() -> Ready {
    Ready {
        code: Err(JitError::Codegen(
            "the compiler thread stopped without a result".into(),
        )),
        cache: None,
    }
}

/// Generates an agent's code, or loads it from the cache (and stores what it generated).
pub(crate) fn generate(
    program: &Program,
    agent: &AgentProgram,
    record: bool,
    cache: Option<PathBuf>,
    cancel: &AtomicBool,
) -> Ready {
    if let Err(e) = super::preflight(program, agent) {
        return Ready {
            code: Err(e),
            cache: None,
        };
    }
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    {
        let Some(cache) = cache.map(CodeCache::new) else {
            return Ready {
                code: super::compile::build(program, agent, record, Some(cancel)),
                cache: None,
            };
        };
        let key = match CodeCache::key(program, agent, record) {
            Ok(k) => k,
            Err(e) => {
                return Ready {
                    code: Err(e),
                    cache: None,
                }
            }
        };
        let lookup = match cache.load(&key) {
            Ok(code) => {
                return Ready {
                    code: Ok(code),
                    cache: Some(Lookup::Hit.name()),
                }
            }
            Err(l) => l,
        };
        let code = super::compile::build(program, agent, record, Some(cancel));
        if let Ok(c) = &code {
            // A cache that cannot be written only means the next start compiles again.
            let _ = cache.store(&key, c);
        }
        Ready {
            code,
            cache: Some(lookup.name()),
        }
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = (program, record, cache, cancel);
        Ready {
            code: super::supported().map(|_| unreachable!("no backend")),
            cache: None,
        }
    }
}

/// Links generated code for `agent` (which must be the agent it was generated from, or one
/// equal to it): executable, ready to install.
pub fn link(program: &Program, agent: &AgentProgram, code: Artifact) -> Result<Compiled, JitError> {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    {
        super::compile::link_artifact(program, agent, code)
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = (program, agent);
        match code {}
    }
}
