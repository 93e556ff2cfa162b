//! Your own nodes in Rust: the leaves a program declares (`action MoveTo(in goal: Point)`)
//! implemented by the user's own crate, which depends on the runtime, registers each
//! implementation by the declared name with the ports it expects, and runs programs with that
//! registry in its `RunConfig` (`nodes`; see docs/custom-nodes.md and `examples/custom-node/`).
//!
//! Ports are typed as declared: the registry compares each implementation's ports with the
//! program's declaration before the first tick (E0701 for a port missing, of another kind or
//! another direction), and a node reads and writes them by name, as numbers, integers,
//! booleans, text, enum variants by name, or lists.
//!
//! A registered node is tried before every built-in implementation (hardware, simulator,
//! stand-in); `--leaf` still overrides it.

use crate::devices::sim::SharedWorld;
use crate::leaf::{Leaf, LeafCall, LeafSource};
use crate::world::AgentId;
use affect_compiler::diagnostic::Diagnostic;
use affect_compiler::ir::program::PortDir;
use affect_compiler::ir::program::{EnumInfo, LeafInfo, Program, Status, ValueKind};
use std::rc::Rc;
use std::sync::Arc;

/// What a port carries, as a node sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortType {
    /// `num`, and quantities as the runtime holds them (durations in milliseconds, lengths in
    /// metres).
    Num,
    Int,
    Bool,
    /// `str` and `Label`: the program's interned strings.
    Text,
    /// A value of any enum, by variant name.
    Variant,
    /// A list (its numbers; labels and variants as the runtime holds them).
    List,
}

impl PortType {
    fn accepts(self, kind: ValueKind) -> bool {
        matches!(
            (self, kind),
            (
                PortType::Num,
                ValueKind::Num
                    | ValueKind::Int
                    | ValueKind::Duration
                    | ValueKind::Rate
                    | ValueKind::Length
                    | ValueKind::Angle
            ) | (PortType::Int, ValueKind::Int)
                | (PortType::Bool, ValueKind::Bool)
                | (PortType::Text, ValueKind::Str)
                | (PortType::Variant, ValueKind::Enum(_))
                | (PortType::List, ValueKind::List)
        )
    }

    fn name(self) -> &'static str {
        match self {
            PortType::Num => "a number",
            PortType::Int => "an int",
            PortType::Bool => "a bool",
            PortType::Text => "a str or Label",
            PortType::Variant => "an enum",
            PortType::List => "a list",
        }
    }
}

/// Which way a port goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    In,
    Out,
    InOut,
}

impl Dir {
    fn of(d: PortDir) -> Dir {
        match d {
            PortDir::In => Dir::In,
            PortDir::Out => Dir::Out,
            PortDir::InOut => Dir::InOut,
        }
    }

    fn keyword(self) -> &'static str {
        match self {
            Dir::In => "in",
            Dir::Out => "out",
            Dir::InOut => "inout",
        }
    }
}

/// One port an implementation expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Port {
    pub name: &'static str,
    pub dir: Dir,
    pub ty: PortType,
}

impl Port {
    pub const fn input(name: &'static str, ty: PortType) -> Port {
        Port {
            name,
            dir: Dir::In,
            ty,
        }
    }

    pub const fn output(name: &'static str, ty: PortType) -> Port {
        Port {
            name,
            dir: Dir::Out,
            ty,
        }
    }

    pub const fn in_out(name: &'static str, ty: PortType) -> Port {
        Port {
            name,
            dir: Dir::InOut,
            ty,
        }
    }
}

/// A node implemented in Rust.
pub trait Node {
    /// Ticks the node: SUCCESS, FAILURE or RUNNING.
    fn tick(&mut self, ports: &mut Ports) -> Status;
    /// The node was halted while RUNNING (a `timeout` expired, a reactive parent moved on,
    /// the run is stopping): stop what it started.
    fn halt(&mut self) {}
}

/// What a port read or write can go wrong with: a name the implementation did not register,
/// a value of another type, text or a variant the program does not know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortError(pub String);

impl std::fmt::Display for PortError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PortError {}

/// What the program knows that a node needs to read its ports: strings and enums.
struct Names {
    strings: Rc<[String]>,
    enums: Rc<[EnumInfo]>,
}

/// A node's ports during one tick.
pub struct Ports<'c, 'a> {
    call: &'c mut LeafCall<'a>,
    /// For each declared port: its name and kind.
    declared: &'c [(String, Option<ValueKind>)],
    names: &'c Names,
    /// For each declared port: the node's own list that `set_list` fills, made on its first
    /// use and kept for the run (the engine copies it into the bound variable's list).
    lists: &'c mut [Option<f64>],
}

impl Ports<'_, '_> {
    /// The time of this tick, milliseconds since the start of the run.
    pub fn now_ms(&self) -> f64 {
        self.call.now_ms
    }

    /// Ticked from IDLE (a fresh start) rather than while RUNNING.
    pub fn starting(&self) -> bool {
        self.call.starting
    }

    fn index(&self, port: &str) -> Result<(usize, Option<ValueKind>), PortError> {
        self.declared
            .iter()
            .position(|(n, _)| n == port)
            .map(|i| (i, self.declared[i].1))
            .ok_or_else(|| PortError(format!("no port `{port}`")))
    }

    fn value(&self, port: &str) -> Result<(f64, Option<ValueKind>), PortError> {
        let (i, kind) = self.index(port)?;
        let v = self.call.inputs[i];
        if v.is_nan() {
            return Err(PortError(format!("`{port}` is not given")));
        }
        Ok((v, kind))
    }

    pub fn num(&self, port: &str) -> Result<f64, PortError> {
        self.value(port).map(|(v, _)| v)
    }

    pub fn int(&self, port: &str) -> Result<i64, PortError> {
        self.value(port).map(|(v, _)| v as i64)
    }

    pub fn bool(&self, port: &str) -> Result<bool, PortError> {
        self.value(port).map(|(v, _)| v != 0.0)
    }

    pub fn text(&self, port: &str) -> Result<&str, PortError> {
        let (v, _) = self.value(port)?;
        self.names
            .strings
            .get(v as usize)
            .map(String::as_str)
            .ok_or_else(|| PortError(format!("`{port}` holds no text")))
    }

    /// An enum value by variant name (`Direction::Up` reads `"Up"`).
    pub fn variant(&self, port: &str) -> Result<&str, PortError> {
        let (v, kind) = self.value(port)?;
        let Some(ValueKind::Enum(e)) = kind else {
            return Err(PortError(format!("`{port}` is not an enum")));
        };
        self.names
            .enums
            .get(e as usize)
            .and_then(|en| en.variants.get(v as usize))
            .map(String::as_str)
            .ok_or_else(|| PortError(format!("`{port}` holds no variant")))
    }

    /// A list's numbers; an error when the list variable bound to the port holds no value
    /// (`unset_blackboard`), as BehaviorTree.CPP's `getInput` fails on a missing entry.
    pub fn list(&self, port: &str) -> Result<&[f64], PortError> {
        let (v, _) = self.value(port)?;
        if self.call.lists.is_unset(v) {
            return Err(PortError(format!("`{port}` holds no value")));
        }
        Ok(self.call.lists.values(v))
    }

    fn set(&mut self, port: &str, v: f64) -> Result<(), PortError> {
        let (i, _) = self.index(port)?;
        self.call.outputs[i] = Some(v);
        Ok(())
    }

    pub fn set_num(&mut self, port: &str, v: f64) -> Result<(), PortError> {
        self.set(port, v)
    }

    pub fn set_int(&mut self, port: &str, v: i64) -> Result<(), PortError> {
        self.set(port, v as f64)
    }

    pub fn set_bool(&mut self, port: &str, v: bool) -> Result<(), PortError> {
        self.set(port, f64::from(u8::from(v)))
    }

    /// Writes text the program knows (a string or label that appears in it).
    pub fn set_text(&mut self, port: &str, text: &str) -> Result<(), PortError> {
        let symbol = self
            .names
            .strings
            .iter()
            .position(|s| s == text)
            .ok_or_else(|| PortError(format!("the program has no string `{text}`")))?;
        self.set(port, symbol as f64)
    }

    pub fn set_variant(&mut self, port: &str, variant: &str) -> Result<(), PortError> {
        let (_, kind) = self.index(port)?;
        let Some(ValueKind::Enum(e)) = kind else {
            return Err(PortError(format!("`{port}` is not an enum")));
        };
        let at = self.names.enums[e as usize]
            .variants
            .iter()
            .position(|v| v == variant)
            .ok_or_else(|| PortError(format!("`{port}` has no variant `{variant}`")))?;
        self.set(port, at as f64)
    }

    /// Writes a list of numbers into the output list (its contents are replaced).
    pub fn set_list(&mut self, port: &str, values: &[f64]) -> Result<(), PortError> {
        let (i, _) = self.index(port)?;
        let id = *self.lists[i].get_or_insert_with(|| self.call.lists.alloc(&[]));
        self.call.lists.set(id, values);
        self.call.outputs[i] = Some(id);
        Ok(())
    }
}

type Factory = Arc<dyn Fn() -> Box<dyn Node> + Send + Sync>;

struct Entry {
    name: String,
    ports: Vec<Port>,
    make: Factory,
}

/// The nodes a user's crate implements, by declared name.
#[derive(Clone, Default)]
pub struct NodeRegistry {
    entries: Vec<Arc<Entry>>,
}

impl std::fmt::Debug for NodeRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.entries.iter().map(|e| &e.name))
            .finish()
    }
}

impl NodeRegistry {
    pub fn new() -> NodeRegistry {
        NodeRegistry::default()
    }

    /// Implements the declared leaf `name` (an `action` or a `condition`) with the nodes
    /// `make` builds, one per instance in the trees. `ports` are the ports the implementation
    /// uses; the declaration may have more.
    pub fn register<N, F>(&mut self, name: &str, ports: &[Port], make: F) -> &mut Self
    where
        N: Node + 'static,
        F: Fn() -> N + Send + Sync + 'static,
    {
        self.entries.retain(|e| e.name != name);
        self.entries.push(Arc::new(Entry {
            name: name.to_string(),
            ports: ports.to_vec(),
            make: Arc::new(move || Box::new(make()) as Box<dyn Node>),
        }));
        self
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The registered names, in registration order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|e| e.name.as_str())
    }

    /// E0701 for every registered node whose declaration in the program does not fit it.
    pub fn check(&self, program: &Program) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for e in &self.entries {
            let Some(info) = program.leaves.iter().find(|l| l.name == e.name) else {
                continue;
            };
            for p in &e.ports {
                let problem = match info.ports.iter().find(|d| d.name == p.name) {
                    None => Some(format!("declares no port `{}`", p.name)),
                    Some(d) if Dir::of(d.dir) != p.dir => Some(format!(
                        "declares `{}` as `{}`, but the implementation takes it as `{}`",
                        p.name,
                        Dir::of(d.dir).keyword(),
                        p.dir.keyword()
                    )),
                    Some(d) if !d.kind.is_some_and(|k| p.ty.accepts(k)) => Some(format!(
                        "declares `{}` as {}, but the implementation reads it as {}",
                        p.name,
                        d.kind
                            .map_or("an untyped port".to_string(), |k| format!("{k:?}")),
                        p.ty.name()
                    )),
                    Some(_) => None,
                };
                if let Some(problem) = problem {
                    out.push(
                        Diagnostic::error(
                            "E0701",
                            format!(
                                "the Rust implementation of `{}` does not fit its declaration: the program {problem}",
                                e.name
                            ),
                            info.span,
                        )
                        .with_label("declared here")
                        .with_help(format!(
                            "make the declaration and the ports registered for `{}` agree",
                            e.name
                        )),
                    );
                }
            }
        }
        out
    }
}

impl LeafSource for NodeRegistry {
    fn bind(
        &self,
        info: &LeafInfo,
        program: &Program,
        _place: Option<(&SharedWorld, AgentId)>,
    ) -> Option<Box<dyn Leaf>> {
        let e = self.entries.iter().find(|e| e.name == info.name)?;
        Some(Box::new(NodeLeaf {
            node: (e.make)(),
            declared: info
                .ports
                .iter()
                .map(|p| (p.name.clone(), p.kind))
                .collect(),
            lists: vec![None; info.ports.len()],
            names: Names {
                strings: program.strings.clone().into(),
                enums: program.enums.clone().into(),
            },
        }))
    }
}

/// A registered node as the engines call leaves.
struct NodeLeaf {
    node: Box<dyn Node>,
    declared: Vec<(String, Option<ValueKind>)>,
    names: Names,
    /// The lists `set_list` writes, by port.
    lists: Vec<Option<f64>>,
}

impl Leaf for NodeLeaf {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        let mut ports = Ports {
            call,
            declared: &self.declared,
            names: &self.names,
            lists: &mut self.lists,
        };
        match self.node.tick(&mut ports) {
            Status::Success => Status::Success,
            Status::Running => Status::Running,
            // IDLE and SKIPPED are not a leaf's to return.
            _ => Status::Failure,
        }
    }

    fn halt(&mut self, _now_ms: f64) {
        self.node.halt();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lists::Lists;

    /// Writes the tick's count, as a list of that many numbers, to `xs`.
    struct Counter(f64);

    impl Node for Counter {
        fn tick(&mut self, ports: &mut Ports) -> Status {
            self.0 += 1.0;
            let xs: Vec<f64> = (0..self.0 as usize).map(|i| i as f64).collect();
            match ports.set_list("xs", &xs) {
                Ok(()) => Status::Success,
                Err(_) => Status::Failure,
            }
        }
    }

    /// `node` as a leaf with one list port, `xs`.
    fn with_list_port(node: Box<dyn Node>) -> NodeLeaf {
        NodeLeaf {
            node,
            declared: vec![("xs".to_string(), Some(ValueKind::List))],
            names: Names {
                strings: Rc::from(Vec::new()),
                enums: Rc::from(Vec::new()),
            },
            lists: vec![None],
        }
    }

    /// Succeeds when its `xs` input gives a list.
    struct Reader;

    impl Node for Reader {
        fn tick(&mut self, ports: &mut Ports) -> Status {
            match ports.list("xs") {
                Ok(_) => Status::Success,
                Err(_) => Status::Failure,
            }
        }
    }

    /// A list input bound to a variable that holds no value (`unset_blackboard`) is an
    /// error for the node, as `getInput` fails in BehaviorTree.CPP; written again, it reads.
    #[test]
    fn an_unset_list_input_is_not_given() {
        let mut leaf = with_list_port(Box::new(Reader));
        let mut lists = Lists::new(&[]);
        let id = lists.instantiate(affect_compiler::ir::program::UNSET);
        let mut tick = |lists: &mut Lists| {
            let mut outputs = [None];
            let mut call = LeafCall {
                now_ms: 0.0,
                starting: true,
                inputs: &[id],
                outputs: &mut outputs,
                lists,
            };
            leaf.tick(&mut call)
        };
        assert_eq!(tick(&mut lists), Status::Failure);
        lists.set(id, &[1.0]);
        assert_eq!(tick(&mut lists), Status::Success);
    }

    #[test]
    fn a_list_output_reuses_the_nodes_own_list_every_tick() {
        let mut leaf = with_list_port(Box::new(Counter(0.0)));
        let mut lists = Lists::new(&[]);
        let mut ids = Vec::new();
        for tick in 1..=3 {
            let mut outputs = [None];
            let mut call = LeafCall {
                now_ms: 0.0,
                starting: tick == 1,
                inputs: &[f64::NAN],
                outputs: &mut outputs,
                lists: &mut lists,
            };
            assert_eq!(leaf.tick(&mut call), Status::Success);
            let id = outputs[0].expect("written");
            assert_eq!(lists.values(id).len(), tick);
            ids.push(id);
        }
        assert!(
            ids.iter().all(|id| id.to_bits() == ids[0].to_bits()),
            "one list for the run, not one a tick: {ids:?}"
        );
    }
}
