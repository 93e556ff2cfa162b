//! `affect run --groot2 [PORT]`: the run served as BehaviorTree.CPP's `Groot2Publisher`
//! serves a tree, so Groot 2, btview and any client of that protocol watch it live
//! (docs/monitoring.md).
//!
//! Each agent instance is a tree of its own, on its own pair of ports: the first agent to
//! appear in the run on PORT (REQ/REP) and PORT + 1 (PUB), the next on PORT + 2 and PORT + 3,
//! and so on; stderr names each. Files: `wire` (the protocol's bytes), `served_tree` (the
//! FULLTREE XML with `_uid`s), `board` (blackboards with the affect state), `hooks`
//! (breakpoints and result replacement), `server` (the ZeroMQ sockets).

pub mod board;
pub mod hooks;
pub mod served_tree;
pub mod server;
pub mod wire;

use affect_compiler::builtins::NodeClass;
use affect_compiler::groot::xml::Document;
use affect_compiler::ir::program::{AgentProgram, NodeKind, Program};
use affect_runtime::leaf::{Leaf, LeafWrap};
use affect_runtime::node_hooks::{NodeHookFn, NodeHooks};
use affect_runtime::trace::{Event, TraceSink};
use server::{Server, Shared};
use std::cell::RefCell;
use std::collections::HashMap;
use std::io::{self, Write};
use std::rc::Rc;
use std::sync::Arc;

/// BehaviorTree.CPP's default server port.
pub const DEFAULT_PORT: &str = "1667";

/// How to serve.
#[derive(Clone, Debug)]
pub struct Options {
    pub port: u16,
    /// The address to bind (127.0.0.1 unless `--groot2-bind` says otherwise).
    pub bind: String,
    /// `--groot2-hooks`: let clients set hooks and breakpoints, which change node results.
    pub hooks: bool,
}

/// The program of an agent instance: `UGV#2` runs `UGV`.
pub fn program_of<'p>(program: &'p Program, instance: &str) -> Option<&'p AgentProgram> {
    let base = match instance.rsplit_once('#') {
        Some((b, n)) if !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) => b,
        _ => instance,
    };
    program
        .agents
        .iter()
        .find(|a| a.name == instance)
        .or_else(|| program.agents.iter().find(|a| a.name == base))
}

/// The uids hooks may be set on: every node of the agent, as in BehaviorTree.CPP (not the
/// stand-in root over several behaviour trees, which is not a node of the program).
pub fn hookable(agent: &AgentProgram) -> Vec<u16> {
    (1..=agent.nodes.len())
        .filter_map(|uid| u16::try_from(uid).ok())
        .collect()
}

/// Whether node `node` is an action or a condition: those are hooked where the engines
/// call them out ([`LeafWrap`], both engines); every other node in the interpreter
/// ([`NodeHookFn`]).
fn is_leaf_call(program: &Program, agent: &AgentProgram, node: u32) -> bool {
    match agent.nodes.get(node as usize).map(|n| &n.kind) {
        Some(NodeKind::Foreign { leaf, .. }) => program
            .leaves
            .get(*leaf as usize)
            .is_some_and(|l| matches!(l.class, NodeClass::Action | NodeClass::Condition)),
        _ => false,
    }
}

/// The run observer that serves every agent instance as it appears.
pub struct Groot2<'p> {
    program: &'p Program,
    exported: Option<Document>,
    options: Options,
    server: Server,
    agents: Vec<Arc<Shared>>,
    /// Each served instance's name and port, in the order of `agents`.
    ports: Vec<(String, u16)>,
    names: HashMap<String, Option<usize>>,
    /// Each instance's hooks, made when its leaves are wrapped (before it runs) or when it
    /// is served, whichever comes first.
    hooks: HookTable,
    /// The program as the hooks' closures keep it (they outlive this borrow): copied once.
    owned: std::cell::OnceCell<Rc<Program>>,
    /// Why an agent could not be served; the run stops and says so.
    pub error: Option<String>,
    out: Box<dyn Write + 'p>,
}

impl<'p> Groot2<'p> {
    /// Starts the server thread. `exported` is the program's Groot XML, parsed.
    pub fn start(
        program: &'p Program,
        exported: Option<Document>,
        options: Options,
        out: Box<dyn Write + 'p>,
    ) -> Result<Groot2<'p>, String> {
        Ok(Groot2 {
            program,
            exported,
            server: Server::start(&options.bind)?,
            options,
            agents: Vec::new(),
            ports: Vec::new(),
            names: HashMap::new(),
            hooks: HookTable::default(),
            owned: std::cell::OnceCell::new(),
            error: None,
            out,
        })
    }

    /// The served agent of an instance name, serving it first if it is new. `None` for
    /// names that are not agents (`world`) and after a failure.
    fn agent(&mut self, name: &str) -> Option<usize> {
        if let Some(k) = self.names.get(name) {
            return *k;
        }
        let served = program_of(self.program, name).and_then(|p| {
            if self.error.is_some() {
                return None;
            }
            let k = self.agents.len();
            let port = u32::from(self.options.port) + 2 * k as u32;
            let Ok(port) = u16::try_from(port) else {
                self.error = Some(format!("no port left for agent `{name}` (past 65535)"));
                return None;
            };
            let tree = served_tree::build(p, &p.name, self.exported.as_ref());
            let shared = Arc::new(Shared::new(
                tree,
                wire::tree_uuid(uuid_seed(name, port)),
                self.hooks.of(p, name, self.options.hooks),
            ));
            match self.server.serve(Arc::clone(&shared), port) {
                Ok(k) => {
                    shared.hooks.set_notifier(Box::new(self.server.notifier(k)));
                    let _ = writeln!(
                        self.out,
                        "groot2: {name} on {} (PUB {})",
                        server::endpoint(&self.options.bind, port),
                        port + 1
                    );
                    self.agents.push(shared);
                    self.ports.push((name.to_string(), port));
                    Some(k)
                }
                Err(e) => {
                    self.error = Some(e);
                    None
                }
            }
        });
        self.names.insert(name.to_string(), served);
        served
    }
}

/// The hooks of each instance by name, shared with the leaves they wrap.
#[derive(Clone, Default)]
pub struct HookTable(Rc<RefCell<HashMap<String, Arc<hooks::Hooks>>>>);

impl HookTable {
    fn of(&self, agent: &AgentProgram, name: &str, allowed: bool) -> Arc<hooks::Hooks> {
        Arc::clone(
            self.0
                .borrow_mut()
                .entry(name.to_string())
                .or_insert_with(|| Arc::new(hooks::Hooks::new(allowed, hookable(agent)))),
        )
    }
}

impl<'p> Groot2<'p> {
    fn owned_program(&self) -> Rc<Program> {
        Rc::clone(self.owned.get_or_init(|| Rc::new(self.program.clone())))
    }

    /// With `--groot2-hooks`: what puts the hooks around every action and condition as the
    /// run builds its agents.
    pub fn leaf_wrap(&self) -> Option<LeafWrap> {
        if !self.options.hooks {
            return None;
        }
        let table = self.hooks.clone();
        let program = self.owned_program();
        Some(LeafWrap(Rc::new(
            move |name: &str, node: u32, inner: Box<dyn Leaf>| {
                let Some(agent) = program_of(&program, name) else {
                    return inner;
                };
                if !is_leaf_call(&program, agent, node) {
                    return inner;
                }
                let hooks = table.of(agent, name, true);
                Box::new(hooks::Hooked::new(inner, (node + 1) as u16, hooks)) as Box<dyn Leaf>
            },
        )))
    }

    /// With `--groot2-hooks`: the hooks on every other node (controls, decorators, SubTrees,
    /// scripts), which the interpreter asks around their ticks.
    pub fn node_hooks(&self) -> Option<NodeHookFn> {
        if !self.options.hooks {
            return None;
        }
        let table = self.hooks.clone();
        let program = self.owned_program();
        Some(NodeHookFn(Rc::new(move |name: &str| {
            let agent = program_of(&program, name)?;
            let covered = (0..agent.nodes.len() as u32)
                .map(|n| !is_leaf_call(&program, agent, n))
                .collect();
            let hooks = table.of(agent, name, true);
            Some(Rc::new(hooks::AroundNodes { hooks, covered }) as Rc<dyn NodeHooks>)
        })))
    }
}

/// Sixteen bytes that differ from run to run (the tree id is random in BehaviorTree.CPP).
fn uuid_seed(name: &str, port: u16) -> [u8; 16] {
    use std::hash::{BuildHasher, Hasher};
    let mut out = [0u8; 16];
    for (i, half) in out.chunks_mut(8).enumerate() {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write(name.as_bytes());
        h.write_u16(port);
        h.write_usize(i);
        half.copy_from_slice(&h.finish().to_le_bytes());
    }
    out
}

impl TraceSink for Groot2<'_> {
    fn line(&mut self, _tick: u64, _t_ms: f64, agent: &str, ev: &Event) -> io::Result<()> {
        let Some(k) = self.agent(agent) else {
            return Ok(());
        };
        let mut st = self.agents[k]
            .state
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        match ev {
            Event::Node { uid, from, to, .. } => {
                let uid = u16::try_from(*uid).unwrap_or(u16::MAX);
                st.transition(uid, wire::status_number(from), wire::status_number(to));
            }
            other => st.boards.event(other),
        }
        Ok(())
    }
}

impl affect_runtime::run::Observer for Groot2<'_> {}

impl super::RunObserver for Groot2<'_> {
    fn finish(&mut self, _completed: bool) -> Result<(), String> {
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// `--watch` reloaded the program: every instance is served the new tree on the same
    /// ports under a new tree id, so connected clients stay connected and fetch it again.
    fn reloaded(&mut self, program: &Program, exported: Option<&Document>) {
        self.exported = exported.cloned();
        for (k, (name, port)) in self.ports.iter().enumerate() {
            let Some(p) = program_of(program, name) else {
                continue;
            };
            let tree = served_tree::build(p, &p.name, self.exported.as_ref());
            self.agents[k].replace(tree, wire::tree_uuid(uuid_seed(name, *port)));
            let _ = writeln!(self.out, "groot2: {name} reloaded: a new tree id");
        }
    }
}
