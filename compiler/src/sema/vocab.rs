//! Vocabularies the checker owns: the components of an emotion, the functions the world and
//! the runtime answer, the operations of an emotional memory and of a list. Each is one
//! table: the checker reads it, and the language server offers and explains its entries.
//! (Other tables live with what they describe: built-in nodes in `builtins`, functions in
//! `ir::functions`, drivers in `sema::devices`, settings in `syntax::shape` and
//! `ir::world`, keywords in `syntax::keywords`.)

use super::ty::Ty;
use crate::ir::functions::HostFn;

/// A component of an AKR emotion (LANGUAGE.md §6).
#[derive(Debug)]
pub struct AkrComponent {
    pub key: &'static str,
    /// The words it takes; `None` when it is checked apart (an agent's name, a tendency, a
    /// sentence).
    pub words: Option<&'static [&'static str]>,
    /// The values, as the documentation writes them.
    pub values: &'static str,
    pub meaning: &'static str,
}

/// What `agency` takes besides an agent's name.
pub const AGENCY_WORDS: &[&str] = &["self", "other"];

/// The components of an emotion: the one table the checker, the documentation and the
/// language server read.
pub static AKR_COMPONENTS: &[AkrComponent] = &[
    AkrComponent {
        key: "valence",
        words: Some(&["positive", "negative", "either"]),
        values: "`positive`, `negative`, `either`",
        meaning: "the pleasant/unpleasant dimension",
    },
    AkrComponent {
        key: "intensity",
        words: Some(&["very_low", "low", "medium", "high", "very_high"]),
        values: "`very_low`, `low`, `medium`, `high`, `very_high`, or a number in 0..1",
        meaning: "degree; relevant to urgency",
    },
    AkrComponent {
        key: "duration",
        words: Some(&["minutes", "days", "lifetime"]),
        values: "`minutes` (emotion), `days` (mood), `lifetime` (personality)",
        meaning: "time course",
    },
    AkrComponent {
        key: "focality",
        words: Some(&["event", "global"]),
        values: "`event`, `global`",
        meaning: "elicited by an event, or diffuse (moods)",
    },
    AkrComponent {
        key: "agency",
        words: None,
        values: "`self`, `other`, or an agent's name",
        meaning: "who is responsible",
    },
    AkrComponent {
        key: "expression",
        words: Some(&[
            "happy",
            "sad",
            "surprised",
            "disgusted",
            "angry",
            "fearful",
            "neutral",
        ]),
        values: "`happy`, `sad`, `surprised`, `disgusted`, `angry`, `fearful`, `neutral`",
        meaning: "the facial expression shown",
    },
    AkrComponent {
        key: "tendency",
        words: None,
        values: "a `tendency` name",
        meaning: "the suite of action plans the emotion calls into readiness",
    },
    AkrComponent {
        key: "causal_chain",
        words: None,
        values: "a string",
        meaning: "the appraisal in words, which the agent can say or log",
    },
];

pub fn component(key: &str) -> Option<&'static AkrComponent> {
    AKR_COMPONENTS.iter().find(|c| c.key == key)
}

/// What a world function gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorldResult {
    Str,
    Bool,
    Num,
    /// A value of the direction enum the context expects (`toward`).
    Direction,
}

/// A function the world or the runtime provides (`unvisited()`, `failed(c)`, ...).
#[derive(Debug)]
pub struct WorldFunction {
    pub name: &'static str,
    pub doc: &'static str,
    pub result: WorldResult,
}

const fn world(name: &'static str, result: WorldResult, doc: &'static str) -> WorldFunction {
    WorldFunction { name, doc, result }
}

pub static WORLD_FUNCTIONS: &[WorldFunction] = &[
    world(
        "unvisited",
        WorldResult::Str,
        "a place of the world this agent has not visited yet, chosen at random",
    ),
    world(
        "toward",
        WorldResult::Direction,
        "the direction of the first step from one place toward another",
    ),
    world(
        "failed",
        WorldResult::Bool,
        "true while a component has missed its heartbeat",
    ),
    world(
        "recovered",
        WorldResult::Bool,
        "true in the tick a failed component comes back",
    ),
    world(
        "percept",
        WorldResult::Str,
        "names a percept a recruitment needs",
    ),
    world(
        "triangular",
        WorldResult::Num,
        "a triangular distribution (min, mode, max) for worlds",
    ),
    world(
        "exponential",
        WorldResult::Num,
        "an exponential distribution (rate) for worlds",
    ),
    world(
        "uniform",
        WorldResult::Num,
        "a uniform distribution (min, max) for worlds",
    ),
];

pub fn world_function(name: &str) -> Option<&'static WorldFunction> {
    WORLD_FUNCTIONS.iter().find(|f| f.name == name)
}

impl WorldFunction {
    /// The type of a call, given what the context expects.
    pub fn result_type(&self, hint: Option<&Ty>) -> Ty {
        match self.result {
            WorldResult::Str => Ty::Str,
            WorldResult::Bool => Ty::Bool,
            WorldResult::Num => Ty::Num,
            WorldResult::Direction => match hint {
                Some(t @ Ty::Enum(_)) => t.clone(),
                _ => Ty::Any,
            },
        }
    }
}

/// The type of a parameter or result of a memory operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemTy {
    Num,
    Bool,
    /// A key: a place or any label (a string symbol).
    Label,
    /// A path: a list of places.
    Path,
    /// A list of paths.
    Paths,
}

impl MemTy {
    pub fn ty(self) -> Ty {
        let path = || Ty::List(Box::new(Ty::Str));
        match self {
            MemTy::Num => Ty::Num,
            MemTy::Bool => Ty::Bool,
            MemTy::Label => Ty::Str,
            MemTy::Path => path(),
            MemTy::Paths => Ty::List(Box::new(path())),
        }
    }
}

/// An operation of an emotional memory (LANGUAGE.md §4.6).
#[derive(Debug)]
pub struct MemoryMethod {
    pub name: &'static str,
    /// The parameters as the documentation writes them: `(key, score)`.
    pub params_text: &'static str,
    pub doc: &'static str,
    pub params: &'static [MemTy],
    pub result: MemTy,
    /// What the runtime runs.
    pub host: HostFn,
}

const fn mem(
    name: &'static str,
    params_text: &'static str,
    params: &'static [MemTy],
    result: MemTy,
    host: HostFn,
    doc: &'static str,
) -> MemoryMethod {
    MemoryMethod {
        name,
        params_text,
        doc,
        params,
        result,
        host,
    }
}

pub static MEMORY_METHODS: &[MemoryMethod] = &[
    mem(
        "recent",
        "()",
        &[],
        MemTy::Num,
        HostFn::MemRecent,
        "the weighted average of the short-term scores, most recent first; 50 when empty",
    ),
    mem(
        "remember",
        "(key, score)",
        &[MemTy::Label, MemTy::Num],
        MemTy::Num,
        HostFn::MemRemember,
        "files a feeling about a key (rehearsal or encoding); gives the score after association",
    ),
    mem(
        "score",
        "(key)",
        &[MemTy::Label],
        MemTy::Num,
        HostFn::MemScore,
        "the long-term score of a key; 50 when unknown",
    ),
    mem(
        "familiarity",
        "(key)",
        &[MemTy::Label],
        MemTy::Num,
        HostFn::MemFamiliarity,
        "the hot index of a key, 0..100",
    ),
    mem(
        "best",
        "()",
        &[],
        MemTy::Label,
        HostFn::MemBest,
        "the key with the highest long-term score",
    ),
    mem(
        "best_path",
        "(paths)",
        &[MemTy::Paths],
        MemTy::Path,
        HostFn::MemBestPath,
        "the path whose places score best on average, per unit of length",
    ),
    mem(
        "path_score",
        "(path)",
        &[MemTy::Path],
        MemTy::Num,
        HostFn::MemPathScore,
        "the mean remembered score of a path's places divided by its length",
    ),
    mem(
        "suitable",
        "(path)",
        &[MemTy::Path],
        MemTy::Bool,
        HostFn::MemSuitable,
        "true when the mean remembered score of a path's places reaches the memory's `threshold`",
    ),
];

pub fn memory_method(name: &str) -> Option<&'static MemoryMethod> {
    MEMORY_METHODS.iter().find(|m| m.name == name)
}

/// An operation of a list variable.
#[derive(Debug)]
pub struct ListMethod {
    pub name: &'static str,
    pub params_text: &'static str,
    pub doc: &'static str,
}

pub static LIST_METHODS: &[ListMethod] = &[
    ListMethod {
        name: "push",
        params_text: "(x)",
        doc: "adds a value at the end of the list",
    },
    ListMethod {
        name: "len",
        params_text: "()",
        doc: "the number of values in the list",
    },
];
