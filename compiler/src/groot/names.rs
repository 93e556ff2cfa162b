//! BehaviorTree.CPP's naming rules (4.8.4+, `basic_types.cpp findForbiddenChar`, also applied
//! by Groot2): model names (node IDs, tree IDs) and port names may not contain space,
//! `\t \n \r < > & " ' / \ : * ? | .` or ASCII control characters; bytes ≥ 0x80 are allowed.
//! Model names may not be `Root`/`root`; port names may not start with a digit or be reserved.
//! Before 4.8.4 nothing was checked, so files in the wild break these rules: the importer
//! accepts them, the exporter warns.

/// Attributes BehaviorTree.CPP reserves on a node: never ports.
pub const RESERVED_ATTRS: &[&str] = &[
    "ID",
    "name",
    "_autoremap",
    "_failureIf",
    "_successIf",
    "_skipIf",
    "_while",
    "_onHalted",
    "_onFailure",
    "_onSuccess",
    "_post",
];

/// The pre- and post-condition attributes, in the order BehaviorTree.CPP documents them.
pub const PRE_POST: &[&str] = &[
    "_skipIf",
    "_successIf",
    "_failureIf",
    "_while",
    "_onSuccess",
    "_onFailure",
    "_onHalted",
    "_post",
];

/// The first character BehaviorTree.CPP 4.8.4+ refuses in a model or port name.
pub fn forbidden_char(name: &str) -> Option<char> {
    name.chars().find(|&c| {
        matches!(
            c,
            ' ' | '\t'
                | '\n'
                | '\r'
                | '<'
                | '>'
                | '&'
                | '"'
                | '\''
                | '/'
                | '\\'
                | ':'
                | '*'
                | '?'
                | '|'
                | '.'
        ) || (c as u32) < 32
            || c as u32 == 127
    })
}

/// Why a node or tree ID is refused outright (not just by newer versions), if it is.
pub fn model_name_error(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("an ID may not be empty".into());
    }
    if name == "Root" || name == "root" {
        return Some(format!("`{name}` is reserved by BehaviorTree.CPP"));
    }
    None
}

/// Why a port name is refused outright, if it is.
pub fn port_name_error(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("a port name may not be empty".into());
    }
    if RESERVED_ATTRS.contains(&name) {
        return Some(format!("`{name}` is a reserved attribute of every node"));
    }
    if name.starts_with('_') {
        return Some("names starting with `_` are metadata, never ports".into());
    }
    None
}

/// The XML spelling of a port name BehaviorTree.CPP reserves (`name`, `ID`, `_x`, ...): `name_`,
/// `ID_`, `p_x`. Other names stay as they are.
pub fn xml_port(name: &str) -> std::borrow::Cow<'_, str> {
    if port_name_error(name).is_none() || name.is_empty() {
        return std::borrow::Cow::Borrowed(name);
    }
    if name.starts_with('_') {
        std::borrow::Cow::Owned(format!("p{name}"))
    } else {
        std::borrow::Cow::Owned(format!("{name}_"))
    }
}

/// Whether a name can be an XML tag (the compact form); other IDs use the explicit form.
pub fn is_xml_name(name: &str) -> bool {
    let mut chars = name.chars();
    match chars.next() {
        Some(c) if c.is_alphabetic() || c == '_' || c == ':' => {}
        _ => return false,
    }
    chars.all(|c| c.is_alphanumeric() || matches!(c, '_' | ':' | '.' | '-'))
}

/// Whether BehaviorTree.CPP 4 treats an attribute as a port: its first character is an ASCII
/// letter and it is not reserved (`IsAllowedPortName`).
pub fn is_port_attr(name: &str) -> bool {
    name.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) && !RESERVED_ATTRS.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules() {
        assert_eq!(forbidden_char("Pick All"), Some(' '));
        assert_eq!(forbidden_char("request.name"), Some('.'));
        assert_eq!(forbidden_char("Navigate_ünï"), None);
        assert!(model_name_error("Root").is_some());
        assert!(port_name_error("name").is_some());
        assert!(port_name_error("goal").is_none());
        assert!(is_port_attr("goal") && !is_port_attr("_collapsed") && !is_port_attr("name"));
    }
}
