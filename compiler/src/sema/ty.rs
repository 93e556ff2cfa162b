//! Types of the language: what a variable, port or expression holds, and which values may
//! go where. Units are types: a duration is not a rate is not a number.

use crate::ir::program::ValueKind;
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    Num,
    Int,
    Bool,
    Str,
    Duration,
    Rate,
    Length,
    Angle,
    /// A node status (`success`, `failure`, ...).
    Status,
    /// The enum `enums[i]`.
    Enum(u32),
    List(Box<Ty>),
    /// `(x, y)`
    Tuple(Vec<Ty>),
    /// A C++ type kept by name, opaque to the program.
    Foreign(String),
    /// Accepts anything (untyped ports of imported nodes).
    Any,
    /// An event: true in the tick it fires.
    Event,
    /// An emotional memory (methods: recent, remember, score, best, ...).
    Memory,
    /// Statements and calls that give no value.
    Void,
    /// Something already reported; accepted everywhere to avoid cascades.
    Error,
}

impl Ty {
    pub fn is_numeric(&self) -> bool {
        matches!(self, Ty::Num | Ty::Int | Ty::Error | Ty::Any)
    }

    /// A quantity with a unit, or a plain number.
    pub fn is_quantity(&self) -> bool {
        matches!(
            self,
            Ty::Num
                | Ty::Int
                | Ty::Duration
                | Ty::Rate
                | Ty::Length
                | Ty::Angle
                | Ty::Error
                | Ty::Any
        )
    }

    pub fn is_error(&self) -> bool {
        matches!(self, Ty::Error)
    }

    /// The affect type a foreign C++ type behaves like (`"float"` is a `num`, `"unsigned
    /// int"` an `int`), when it is one of the usual spellings of a number, string or boolean.
    pub fn foreign_like(&self) -> Option<Ty> {
        let Ty::Foreign(cpp) = self else {
            return None;
        };
        Some(match crate::btcpp::model::foreign_family(cpp)? {
            "num" => Ty::Num,
            "int" => Ty::Int,
            "bool" => Ty::Bool,
            "str" => Ty::Str,
            _ => return None,
        })
    }

    /// Can a value of type `self` be stored where `target` is expected?
    pub fn fits(&self, target: &Ty) -> bool {
        if let Some(t) = target.foreign_like() {
            if self.fits(&t) {
                return true;
            }
        }
        if let Some(t) = self.foreign_like() {
            if t.fits(target) {
                return true;
            }
        }
        match (self, target) {
            (Ty::Error, _) | (_, Ty::Error) | (_, Ty::Any) | (Ty::Any, _) => true,
            (Ty::Int, Ty::Num) => true,
            (Ty::Event, Ty::Bool) => true,
            (Ty::Str, Ty::Foreign(_)) | (Ty::Foreign(_), Ty::Str) => true,
            (Ty::Foreign(a), Ty::Foreign(b)) => a == b,
            (Ty::List(a), Ty::List(b)) => a.fits(b) || matches!(**a, Ty::Any),
            (Ty::Tuple(a), Ty::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.fits(y))
            }
            (a, b) => a == b,
        }
    }

    /// How the runtime reads a slot of this type.
    pub fn value_kind(&self) -> ValueKind {
        match self {
            Ty::Num | Ty::Error | Ty::Any => ValueKind::Num,
            Ty::Int => ValueKind::Int,
            Ty::Bool | Ty::Event => ValueKind::Bool,
            Ty::Foreign(_) => match self.foreign_like() {
                Some(t) => t.value_kind(),
                None => ValueKind::Str,
            },
            Ty::Str | Ty::Memory | Ty::Void => ValueKind::Str,
            Ty::Duration => ValueKind::Duration,
            Ty::Rate => ValueKind::Rate,
            Ty::Length => ValueKind::Length,
            Ty::Angle => ValueKind::Angle,
            Ty::Status => ValueKind::Status,
            Ty::Enum(i) => ValueKind::Enum(*i),
            Ty::List(_) | Ty::Tuple(_) => ValueKind::List,
        }
    }
}

impl Ty {
    /// The element kinds of a list or point, outermost first; empty for other types.
    pub fn element_kinds(&self) -> Vec<ValueKind> {
        let inner = match self {
            Ty::List(t) => t.as_ref(),
            Ty::Tuple(ts) => match ts.first() {
                Some(t) => t,
                None => return Vec::new(),
            },
            _ => return Vec::new(),
        };
        let mut kinds = vec![inner.value_kind()];
        kinds.extend(inner.element_kinds());
        kinds
    }
}

/// Names types by their spelling in the language; enums need the checker's names.
pub struct TyDisplay<'a> {
    pub ty: &'a Ty,
    pub enum_names: &'a [String],
}

impl fmt::Display for TyDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.ty {
            Ty::Num => f.write_str("num"),
            Ty::Int => f.write_str("int"),
            Ty::Bool => f.write_str("bool"),
            Ty::Str => f.write_str("str"),
            Ty::Duration => f.write_str("duration"),
            Ty::Rate => f.write_str("rate"),
            Ty::Length => f.write_str("length"),
            Ty::Angle => f.write_str("angle"),
            Ty::Status => f.write_str("status"),
            Ty::Enum(i) => f.write_str(
                self.enum_names
                    .get(*i as usize)
                    .map(String::as_str)
                    .unwrap_or("enum"),
            ),
            Ty::List(t) => write!(
                f,
                "[{}]",
                TyDisplay {
                    ty: t,
                    enum_names: self.enum_names
                }
            ),
            Ty::Tuple(ts) => {
                f.write_str("(")?;
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(
                        f,
                        "{}",
                        TyDisplay {
                            ty: t,
                            enum_names: self.enum_names
                        }
                    )?;
                }
                f.write_str(")")
            }
            Ty::Foreign(s) => write!(f, "\"{s}\""),
            Ty::Any => f.write_str("any"),
            Ty::Event => f.write_str("event"),
            Ty::Memory => f.write_str("memory"),
            Ty::Void => f.write_str("nothing"),
            Ty::Error => f.write_str("{unknown}"),
        }
    }
}

/// The type of a place in the plane, `(x, y)` in lengths.
pub const POINT: &str = "Point";

/// The field names of a tuple, by position: a point's `x` and `y`, a triple's `z`.
pub const TUPLE_FIELDS: &[&str] = &["x", "y", "z"];

impl Ty {
    /// Field `name` of a record-like value (a point, or another tuple): its position and
    /// type. A point's fields are lengths, so they carry its unit.
    pub fn field(&self, name: &str) -> Option<(u32, Ty)> {
        let Ty::Tuple(elems) = self else {
            return None;
        };
        let i = TUPLE_FIELDS.iter().position(|f| *f == name)?;
        elems.get(i).map(|t| (i as u32, t.clone()))
    }

    /// The fields a record-like value has, in order (none for other types).
    pub fn fields(&self) -> Vec<(&'static str, Ty)> {
        match self {
            Ty::Tuple(elems) => TUPLE_FIELDS
                .iter()
                .copied()
                .zip(elems.iter().cloned())
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// The built-in type names, with what they mean.
pub const BUILTIN_TYPES: &[(&str, Ty)] = &[
    ("num", Ty::Num),
    ("int", Ty::Int),
    ("bool", Ty::Bool),
    ("str", Ty::Str),
    ("Label", Ty::Str),
    ("duration", Ty::Duration),
    ("rate", Ty::Rate),
    ("length", Ty::Length),
    ("angle", Ty::Angle),
    ("status", Ty::Status),
    ("any", Ty::Any),
];

/// The statuses, as values of the `status` type.
pub const STATUS_NAMES: &[&str] = &["idle", "running", "success", "failure", "skipped"];
