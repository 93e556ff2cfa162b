//! Built-in functions of the expression language: their names, arities, and how they
//! compute. The checker types calls with `signature`; the runtime evaluates with `apply`.

/// A built-in function. Numbers in, a number out; booleans are 0/1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Function {
    Abs,
    Min,
    Max,
    Clamp,
    /// `fold(x, c)`: `x > c ? 2c - x : x`, a level that counts up to `c` and back down
    /// (seed 003's cortisol: 0 → 50 → 0).
    Fold,
    Floor,
    Ceil,
    Round,
    Sqrt,
    Exp,
    Ln,
    Pow,
    Sin,
    Cos,
    Atan2,
    /// `sigmoid(x, gain, center)`: `1 / (1 + exp(-gain (x - center)))`.
    Sigmoid,
    /// Number of elements of a list.
    Len,
}

/// How the checker types a function's parameters and result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Numbers (or one unit kind throughout: `max(2s, 3s)` is a duration).
    Numeric,
    /// A list, giving an int.
    ListLen,
}

pub struct Signature {
    pub name: &'static str,
    pub function: Function,
    pub params: &'static [&'static str],
    pub shape: Shape,
    pub doc: &'static str,
}

pub static FUNCTIONS: &[Signature] = &[
    Signature {
        name: "abs",
        function: Function::Abs,
        params: &["x"],
        shape: Shape::Numeric,
        doc: "The absolute value.",
    },
    Signature {
        name: "min",
        function: Function::Min,
        params: &["a", "b"],
        shape: Shape::Numeric,
        doc: "The smaller of two values.",
    },
    Signature {
        name: "max",
        function: Function::Max,
        params: &["a", "b"],
        shape: Shape::Numeric,
        doc: "The larger of two values.",
    },
    Signature {
        name: "clamp",
        function: Function::Clamp,
        params: &["x", "lo", "hi"],
        shape: Shape::Numeric,
        doc: "`x` limited to `lo..hi`.",
    },
    Signature {
        name: "fold",
        function: Function::Fold,
        params: &["x", "center"],
        shape: Shape::Numeric,
        doc: "`x > center ? 2 * center - x : x`: counts up to `center` and back down (seed 003).",
    },
    Signature {
        name: "floor",
        function: Function::Floor,
        params: &["x"],
        shape: Shape::Numeric,
        doc: "Rounds down.",
    },
    Signature {
        name: "ceil",
        function: Function::Ceil,
        params: &["x"],
        shape: Shape::Numeric,
        doc: "Rounds up.",
    },
    Signature {
        name: "round",
        function: Function::Round,
        params: &["x"],
        shape: Shape::Numeric,
        doc: "Rounds to the nearest whole number, halves away from zero.",
    },
    Signature {
        name: "sqrt",
        function: Function::Sqrt,
        params: &["x"],
        shape: Shape::Numeric,
        doc: "The square root.",
    },
    Signature {
        name: "exp",
        function: Function::Exp,
        params: &["x"],
        shape: Shape::Numeric,
        doc: "e to the power x.",
    },
    Signature {
        name: "ln",
        function: Function::Ln,
        params: &["x"],
        shape: Shape::Numeric,
        doc: "The natural logarithm.",
    },
    Signature {
        name: "pow",
        function: Function::Pow,
        params: &["x", "y"],
        shape: Shape::Numeric,
        doc: "x to the power y.",
    },
    Signature {
        name: "sin",
        function: Function::Sin,
        params: &["x"],
        shape: Shape::Numeric,
        doc: "Sine of radians.",
    },
    Signature {
        name: "cos",
        function: Function::Cos,
        params: &["x"],
        shape: Shape::Numeric,
        doc: "Cosine of radians.",
    },
    Signature {
        name: "atan2",
        function: Function::Atan2,
        params: &["y", "x"],
        shape: Shape::Numeric,
        doc: "The angle of (x, y) in radians.",
    },
    Signature {
        name: "sigmoid",
        function: Function::Sigmoid,
        params: &["x", "gain", "center"],
        shape: Shape::Numeric,
        doc: "`1 / (1 + exp(-gain * (x - center)))`.",
    },
    Signature {
        name: "len",
        function: Function::Len,
        params: &["list"],
        shape: Shape::ListLen,
        doc: "The number of elements of a list.",
    },
];

pub fn lookup(name: &str) -> Option<&'static Signature> {
    FUNCTIONS.iter().find(|s| s.name == name)
}

impl Function {
    /// Computes the function over its arguments (numeric functions only; `Len` is the
    /// runtime's, as lists live there).
    pub fn apply(self, a: &[f64]) -> f64 {
        let x = a.first().copied().unwrap_or(0.0);
        let y = a.get(1).copied().unwrap_or(0.0);
        match self {
            Function::Abs => x.abs(),
            Function::Min => x.min(y),
            Function::Max => x.max(y),
            Function::Clamp => {
                let hi = a.get(2).copied().unwrap_or(0.0);
                x.max(y).min(hi)
            }
            Function::Fold => {
                if x > y {
                    2.0 * y - x
                } else {
                    x
                }
            }
            Function::Floor => x.floor(),
            Function::Ceil => x.ceil(),
            Function::Round => x.round(),
            Function::Sqrt => x.sqrt(),
            // libm, not the C library: the last bit of a trace must not depend on the
            // platform (x86_64, aarch64 and armv7 give the same traces).
            Function::Exp => libm::exp(x),
            Function::Ln => libm::log(x),
            Function::Pow => libm::pow(x, y),
            Function::Sin => libm::sin(x),
            Function::Cos => libm::cos(x),
            Function::Atan2 => libm::atan2(x, y),
            Function::Sigmoid => {
                let c = a.get(2).copied().unwrap_or(0.0);
                1.0 / (1.0 + libm::exp(-y * (x - c)))
            }
            Function::Len => 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fold_counts_up_and_back_down() {
        assert_eq!(Function::Fold.apply(&[30.0, 50.0]), 30.0);
        assert_eq!(Function::Fold.apply(&[50.0, 50.0]), 50.0);
        assert_eq!(Function::Fold.apply(&[80.0, 50.0]), 20.0);
    }

    #[test]
    fn clamp_and_sigmoid() {
        assert_eq!(Function::Clamp.apply(&[120.0, 0.0, 100.0]), 100.0);
        assert!((Function::Sigmoid.apply(&[50.0, 0.2, 50.0]) - 0.5).abs() < 1e-12);
    }
}

/// Operations the runtime provides rather than the expression machine: emotional memory,
/// world queries, list growth. The interpreter and the JIT call into the runtime for them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HostFn {
    /// `memory.recent()`
    MemRecent,
    /// `memory.remember(key, score)`
    MemRemember,
    /// `memory.score(key)`
    MemScore,
    /// `memory.familiarity(key)`
    MemFamiliarity,
    /// `memory.best()`
    MemBest,
    /// `memory.best_path(paths)`
    MemBestPath,
    /// `memory.path_score(path)`
    MemPathScore,
    /// `memory.suitable(path)`: the path's mean score reaches the memory's `threshold`.
    MemSuitable,
    /// `unvisited()`: a place not visited yet.
    Unvisited,
    /// `toward(from, to)`: the enum variant of the first step's direction.
    Toward,
    /// `list.push(x)`
    ListPush,
    /// `failed(c)`: 1 while the component named by the symbol `arg` (or the one serving its
    /// users) is failed (seed 001).
    ComponentFailed,
    /// `recovered(c)`: 1 in the agent's tick in which component `arg` is back.
    ComponentRecovered,
    /// `on failed(c)`: 1 in the agent's tick in which component `arg` was found failed.
    ComponentFailedNow,
}
