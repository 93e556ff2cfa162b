//! C++ port types ↔ affect types, and port values ↔ affect expressions.
//!
//! The type mapping is a bijection, so a `<TreeNodesModel>` survives `XML → .affect → XML`
//! byte for byte in its types:
//!
//! | C++ (`type=`)           | affect                    |
//! |-------------------------|---------------------------|
//! | `std::string`           | `str`                     |
//! | `double`                | `num`                     |
//! | `int`                   | `int`                     |
//! | `bool`                  | `bool`                    |
//! | `BT::NodeStatus`        | `status`                  |
//! | `BT::AnyTypeAllowed`    | `any`                     |
//! | (no `type`)             | (no type)                 |
//! | `std::vector<T>`        | `[T]` (when `T` maps)     |
//! | `affect::Name`          | `Name` (affect's own named types: enums, `Point`, ...) |
//! | anything else           | `"the C++ spelling"` (a foreign type) |
//!
//! Other spellings of the same C++ types (`string`, `float`, `unsigned int`, `uint16`, ...)
//! stay foreign types with their exact spelling, so nothing is renamed on the way back;
//! [`foreign_family`] tells which affect type such a foreign type behaves like.

use crate::span::Span;
use crate::syntax::ast::*;

pub const STATUS: &str = "status";
pub const ANY: &str = "any";

fn named(name: &str) -> Type {
    Type {
        kind: TypeKind::Named(Path::single(Ident::new(name, Span::DUMMY))),
        span: Span::DUMMY,
    }
}

/// The affect type for a C++ type spelling.
pub fn type_from_cpp(cpp: &str) -> Type {
    let core = match cpp {
        "std::string" => Some("str"),
        "double" => Some("num"),
        "int" => Some("int"),
        "bool" => Some("bool"),
        "BT::NodeStatus" => Some(STATUS),
        "BT::AnyTypeAllowed" => Some(ANY),
        _ => None,
    };
    if let Some(n) = core {
        return named(n);
    }
    if let Some(rest) = cpp.strip_prefix("affect::") {
        let segs: Vec<&str> = rest.split("::").collect();
        if segs.iter().all(|s| crate::fmt::is_plain_ident(s)) {
            return Type {
                kind: TypeKind::Named(Path {
                    segments: segs.iter().map(|s| Ident::new(*s, Span::DUMMY)).collect(),
                    span: Span::DUMMY,
                }),
                span: Span::DUMMY,
            };
        }
    }
    if let Some(inner) = cpp
        .strip_prefix("std::vector<")
        .and_then(|r| r.strip_suffix('>'))
    {
        let t = type_from_cpp(inner);
        if !matches!(t.kind, TypeKind::Foreign(_)) {
            return Type {
                kind: TypeKind::List(Box::new(t)),
                span: Span::DUMMY,
            };
        }
    }
    Type {
        kind: TypeKind::Foreign(cpp.to_string()),
        span: Span::DUMMY,
    }
}

/// The C++ spelling of an affect type (`None` for a type with no C++ counterpart at all).
pub fn type_to_cpp(t: &Type) -> Option<String> {
    Some(match &t.kind {
        TypeKind::Named(p) if p.segments.len() == 1 => match p.segments[0].name.as_str() {
            "str" => "std::string".into(),
            "num" => "double".into(),
            "int" => "int".into(),
            "bool" => "bool".into(),
            STATUS => "BT::NodeStatus".into(),
            ANY => "BT::AnyTypeAllowed".into(),
            other => format!("affect::{other}"),
        },
        TypeKind::Named(p) => format!("affect::{}", p.to_string_path()),
        TypeKind::Range(base, ..) => return type_to_cpp(base),
        TypeKind::List(inner) => format!("std::vector<{}>", type_to_cpp(inner)?),
        TypeKind::Foreign(s) => s.clone(),
        TypeKind::Error => return None,
    })
}

/// Which affect type a foreign C++ type behaves like, when it is one of the usual spellings
/// of a number, a string or a boolean (`unsigned int` → `int`, `float` → `num`,
/// `string` → `str`). The type checker can use it; the XML keeps the exact spelling.
pub fn foreign_family(cpp: &str) -> Option<&'static str> {
    let c = cpp.trim().trim_start_matches("std::");
    Some(match c {
        "string" | "basic_string<char>" | "__cxx11::basic_string<char>" => "str",
        "double" | "float" | "long double" => "num",
        "int" | "unsigned" | "unsigned int" | "long" | "unsigned long" | "long long"
        | "unsigned long long" | "short" | "unsigned short" | "signed char" | "unsigned char"
        | "size_t" | "int8_t" | "int16_t" | "int32_t" | "int64_t" | "uint8_t" | "uint16_t"
        | "uint32_t" | "uint64_t" | "int8" | "int16" | "int32" | "int64" | "uint8" | "uint16"
        | "uint32" | "uint64" => "int",
        "bool" => "bool",
        "chrono::milliseconds" | "chrono::seconds" | "chrono::duration<double>" => "duration",
        _ => return None,
    })
}

/// What kind of value a port holds, for reading literals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueKind {
    Number,
    Bool,
    Text,
    Unknown,
}

pub fn value_kind(t: Option<&Type>) -> ValueKind {
    let Some(t) = t else {
        return ValueKind::Unknown;
    };
    match &t.kind {
        TypeKind::Named(p) if p.segments.len() == 1 => match p.segments[0].name.as_str() {
            "num" | "int" => ValueKind::Number,
            "bool" => ValueKind::Bool,
            "str" => ValueKind::Text,
            _ => ValueKind::Unknown,
        },
        TypeKind::Range(base, ..) => value_kind(Some(base)),
        TypeKind::Foreign(s) => match foreign_family(s) {
            Some("num" | "int") => ValueKind::Number,
            Some("bool") => ValueKind::Bool,
            Some("str") => ValueKind::Text,
            _ => ValueKind::Unknown,
        },
        _ => ValueKind::Unknown,
    }
}

fn expr(kind: ExprKind) -> Expr {
    Expr {
        kind,
        span: Span::DUMMY,
    }
}

/// A literal port value as an affect expression: a number when it is spelled like an affect
/// number (and the port is not a string), `true`/`false` for booleans, else a string.
pub fn literal(value: &str, kind: ValueKind) -> Expr {
    if kind != ValueKind::Text {
        if let Some(n) = super::script::number(value) {
            return expr(ExprKind::Num(n));
        }
        if let Some(digits) = value.strip_prefix('-') {
            if let Some(n) = super::script::number(digits) {
                return expr(ExprKind::Unary(UnOp::Neg, Box::new(expr(ExprKind::Num(n)))));
            }
        }
    }
    if kind != ValueKind::Text && (value == "true" || value == "false") {
        return expr(ExprKind::Bool(value == "true"));
    }
    expr(ExprKind::Str(value.to_string()))
}

/// A blackboard reference `{key}` / `{@key}` (surrounding spaces allowed, as BehaviorTree.CPP
/// strips them). Returns the key with its `@`, or `None` for a literal.
pub fn blackboard_key(value: &str) -> Option<&str> {
    let t = value.trim();
    if t.len() >= 3 && t.starts_with('{') && t.ends_with('}') {
        Some(t[1..t.len() - 1].trim())
    } else {
        None
    }
}

/// The expression for a blackboard key: a variable, `@key` for the root blackboard. `None`
/// when affect cannot spell the key as a name.
pub fn key_expr(key: &str) -> Option<Expr> {
    if let Some(root) = key.strip_prefix('@') {
        if !crate::fmt::is_plain_ident(root) {
            return None;
        }
        return Some(expr(ExprKind::Root(Ident::new(root, Span::DUMMY))));
    }
    if key.is_empty() || key.contains('`') || key.contains('\n') || key.contains('@') {
        return None;
    }
    Some(Expr::name(key, Span::DUMMY))
}

/// How BehaviorTree.CPP 4.8 reads a port's text when it creates the node: `from_chars` for
/// integers (a prefix: `3x` is 3, ` 3` and `+3` are refused), `strtod` for reals, a fixed set
/// of words for booleans (measured with the oracle).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conversion {
    Signed,
    Unsigned,
    Real,
    Bool,
}

impl Conversion {
    pub fn article(self) -> &'static str {
        match self {
            Conversion::Signed | Conversion::Unsigned => "an",
            Conversion::Real | Conversion::Bool => "a",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Conversion::Signed => "int",
            Conversion::Unsigned => "unsigned int",
            Conversion::Real => "double",
            Conversion::Bool => "bool",
        }
    }

    /// Whether BehaviorTree.CPP reads `v` (a literal, not `{key}`).
    pub fn reads(self, v: &str) -> bool {
        let digit_at = |s: &str| s.as_bytes().first().is_some_and(u8::is_ascii_digit);
        match self {
            Conversion::Signed => digit_at(v.strip_prefix('-').unwrap_or(v)),
            Conversion::Unsigned => digit_at(v),
            Conversion::Real => {
                let t = v.trim_start();
                let t = t
                    .strip_prefix('-')
                    .or_else(|| t.strip_prefix('+'))
                    .unwrap_or(t);
                let lower = t.to_ascii_lowercase();
                digit_at(t)
                    || t.strip_prefix('.').is_some_and(digit_at)
                    || lower.starts_with("inf")
                    || lower.starts_with("nan")
            }
            Conversion::Bool => matches!(
                v,
                "0" | "1" | "true" | "TRUE" | "True" | "false" | "FALSE" | "False"
            ),
        }
    }

    /// The conversion of a C++ type spelling (`float`, `unsigned int`, `int64_t`), if
    /// BehaviorTree.CPP converts text to it.
    pub fn of_cpp(cpp: &str) -> Option<Conversion> {
        let s: String = cpp.chars().filter(|c| !c.is_whitespace()).collect();
        match s.as_str() {
            "double" | "float" => Some(Conversion::Real),
            "bool" => Some(Conversion::Bool),
            "unsignedint" | "unsigned" | "uint32_t" | "unsignedlong" | "uint64_t" | "size_t"
            | "std::size_t" | "unsignedshort" | "uint16_t" | "uint8_t" => {
                Some(Conversion::Unsigned)
            }
            "int" | "int32_t" | "long" | "int64_t" | "short" | "int16_t" | "int8_t" => {
                Some(Conversion::Signed)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_round_trip() {
        for cpp in [
            "std::string",
            "double",
            "int",
            "bool",
            "BT::NodeStatus",
            "BT::AnyTypeAllowed",
            "string",
            "unsigned int",
            "geometry_msgs::msg::PoseStamped",
            "std::vector<double>",
            "std::vector<std::vector<affect::Label>>",
            "vector<int>",
            "{dock_type}",
            "affect::geo::Pose",
        ] {
            let t = type_from_cpp(cpp);
            assert_eq!(type_to_cpp(&t).as_deref(), Some(cpp), "{cpp} -> {t:?}");
        }
        assert!(matches!(type_from_cpp("string").kind, TypeKind::Foreign(_)));
        assert_eq!(foreign_family("unsigned int"), Some("int"));
    }

    #[test]
    fn literals() {
        assert!(matches!(
            literal("3", ValueKind::Unknown).kind,
            ExprKind::Num(_)
        ));
        assert!(matches!(
            literal("3", ValueKind::Text).kind,
            ExprKind::Str(_)
        ));
        assert!(matches!(
            literal("-2.5", ValueKind::Number).kind,
            ExprKind::Unary(..)
        ));
        assert!(matches!(
            literal("2s", ValueKind::Number).kind,
            ExprKind::Str(_)
        ));
        assert!(matches!(
            literal("true", ValueKind::Bool).kind,
            ExprKind::Bool(true)
        ));
        assert_eq!(blackboard_key(" { goal } "), Some("goal"));
        assert_eq!(blackboard_key("{}"), None);
    }
}
