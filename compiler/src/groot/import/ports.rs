//! What BehaviorTree.CPP refuses about a node's attributes when it creates a tree: a port the
//! node does not have ("a port with name [x] is found in the XML but not in the
//! providedPorts()"), and a literal its port's type cannot be read as ("The port with name
//! [x] and value [y] can not be converted to int"). Both are errors of the import, at the
//! attribute, with the nearest port name where there is one.

use super::super::names;
use super::super::vocab;
use super::super::xml::Attribute;
use super::super::Dialect;
use super::*;
use crate::btcpp::model;
use crate::builtins::{self, ArgType};
use crate::syntax::ast::{PortDecl, Type, TypeKind};

pub(super) use crate::btcpp::model::Conversion;

impl Conversion {
    fn of_builtin(ty: ArgType) -> Option<Conversion> {
        match ty {
            ArgType::Int => Some(Conversion::Signed),
            ArgType::Duration => Some(Conversion::Unsigned),
            ArgType::Bool => Some(Conversion::Bool),
            _ => None,
        }
    }

    /// The conversion of a model port's type (affect's or the C++ spelling it kept).
    pub(super) fn of_type(t: Option<&Type>) -> Option<Conversion> {
        match &t?.kind {
            TypeKind::Named(p) if p.segments.len() == 1 => match p.segments[0].name.as_str() {
                "num" => Some(Conversion::Real),
                "int" => Some(Conversion::Signed),
                "bool" => Some(Conversion::Bool),
                _ => None,
            },
            TypeKind::Range(base, ..) => Conversion::of_type(Some(base)),
            TypeKind::Foreign(s) => Conversion::of_cpp(s),
            _ => None,
        }
    }
}

/// The ports of a BehaviorTree.CPP built-in by its XML ID in `dialect`, with how each is read;
/// `None` for an ID whose ports are not known here.
pub(super) fn builtin_ports(
    id: &str,
    dialect: Dialect,
) -> Option<Vec<(String, Option<Conversion>)>> {
    let plain = |names: &[&str]| Some(names.iter().map(|n| (n.to_string(), None)).collect());
    if matches!(id, "Script" | "ScriptCondition") && dialect == Dialect::V4 {
        return plain(&["code"]);
    }
    if let Some(n) = vocab::switch_cases(id) {
        let mut ports = vec![("variable".to_string(), None)];
        ports.extend((1..=n).map(|i| (format!("case_{i}"), None)));
        return Some(ports);
    }
    if id.starts_with("Loop") && dialect == Dialect::V4 && vocab::is_bt_builtin(id, dialect) {
        // `value` is written, but its text is converted all the same when the tree is made.
        let value = match id {
            "LoopInt" => Some(Conversion::Signed),
            "LoopDouble" => Some(Conversion::Real),
            "LoopBool" => Some(Conversion::Bool),
            _ => None,
        };
        return Some(vec![
            ("queue".to_string(), None),
            ("value".to_string(), value),
            ("if_empty".to_string(), None),
        ]);
    }
    if id.starts_with("BlackboardCheck") && dialect == Dialect::V3 {
        return plain(&["value_A", "value_B", "return_on_mismatch"]);
    }
    let b = builtins::BUILTINS.iter().find(|b| match dialect {
        Dialect::V4 => b.v4 == Some(id),
        Dialect::V3 => b.v3 == Some(id),
    })?;
    Some(
        b.args
            .iter()
            .map(|a| {
                let port = match dialect {
                    Dialect::V4 => a.port,
                    Dialect::V3 => a.port_v3.unwrap_or(a.port),
                };
                (port.to_string(), Conversion::of_builtin(a.ty))
            })
            .collect(),
    )
}

/// The ports a model declares, with how each is read.
pub(super) fn model_ports(params: &[PortDecl]) -> Vec<(String, Option<Conversion>)> {
    params
        .iter()
        .map(|p| (p.name.name.clone(), Conversion::of_type(p.ty.as_ref())))
        .collect()
}

impl Reader {
    /// Whether `a` is a port attribute (BehaviorTree.CPP 4: a name starting with a letter that
    /// is not reserved; 3: everything but `_…`).
    pub(super) fn is_port(&self, a: &Attribute) -> bool {
        match self.dialect {
            Dialect::V4 => names::is_port_attr(&a.name),
            Dialect::V3 => !a.name.starts_with('_'),
        }
    }

    /// Refuses the attributes of node `id` that BehaviorTree.CPP refuses given its `ports`.
    pub(super) fn check_ports(
        &mut self,
        id: &str,
        attrs: &[&Attribute],
        ports: &[(String, Option<Conversion>)],
    ) {
        let port_attrs: Vec<&&Attribute> = attrs.iter().filter(|a| self.is_port(a)).collect();
        for a in port_attrs {
            match ports.iter().find(|(p, _)| *p == a.name) {
                None => {
                    self.error(
                        "E0420",
                        format!("`{id}` has no port `{}`", a.name),
                        a.name_span,
                    );
                    let names: Vec<&str> = ports.iter().map(|(p, _)| p.as_str()).collect();
                    let near = crate::suggest::closest(&a.name, names.iter().copied());
                    let id = id.to_string();
                    self.amend(|d| {
                        let d = d.with_label("not a port of this node").with_note(
                            "BehaviorTree.CPP refuses it (\"found in the XML but not in the \
                             providedPorts()\"); metadata attributes start with `_`",
                        );
                        match (near, names.is_empty()) {
                            (Some(p), _) => d.with_help(format!("did you mean `{p}`?")),
                            (None, true) => d.with_help(format!("`{id}` has no ports")),
                            (None, false) => {
                                d.with_help(format!("its ports are `{}`", names.join("`, `")))
                            }
                        }
                    });
                }
                Some((port, Some(conv)))
                    if model::blackboard_key(&a.value).is_none() && !conv.reads(&a.value) =>
                {
                    self.error(
                        "E0421",
                        format!(
                            "`{}` cannot be read as the {} of port `{port}`",
                            a.value,
                            conv.name()
                        ),
                        a.value_span,
                    );
                    self.amend(|d| {
                        d.with_label(format!("not {} {}", conv.article(), conv.name()))
                            .with_note(
                                "BehaviorTree.CPP converts a port's text when it creates the \
                             tree and refuses the file when it cannot",
                            )
                    });
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_as_measured_in_behaviortree_cpp() {
        use Conversion::*;
        for (c, yes, no) in [
            (
                Signed,
                &["3", "-1", "3x", "1.5", "0x10", "1e3"][..],
                &[" 1", "+1", ".5", "", "True", "inf"][..],
            ),
            (
                Unsigned,
                &["3", "3x", "1.5"][..],
                &["-1", " 1", "+1", ""][..],
            ),
            (
                Real,
                &["1.5", " 1", ".5", "inf", "nan", "-1", "+1", "0x10", "3x"][..],
                &["", "True", "fast"][..],
            ),
            (
                Bool,
                &["true", "True", "TRUE", "0", "1", "false"][..],
                &["yes", " 1", "tRue", ""][..],
            ),
        ] {
            for v in yes {
                assert!(c.reads(v), "{c:?} reads {v:?}");
            }
            for v in no {
                assert!(!c.reads(v), "{c:?} refuses {v:?}");
            }
        }
    }
}
