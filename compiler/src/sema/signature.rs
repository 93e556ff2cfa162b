//! Declarations as one line of text, formatted the way `affect fmt` writes them, and the
//! `key value` lines of records and settings blocks: what the index shows of each
//! definition (hover, completion details, the outline).

use crate::fmt::{arg_name, format_expr, format_type};
use crate::syntax::ast::*;

pub(crate) fn type_suffix(t: Option<&Type>) -> String {
    t.map(|t| format!(": {}", format_type(t)))
        .unwrap_or_default()
}

pub(crate) fn init_suffix(e: Option<&Expr>) -> String {
    e.map(|e| format!(" = {}", format_expr(e)))
        .unwrap_or_default()
}

/// `in speed: num = 1`
pub fn port(p: &PortDecl) -> String {
    format!(
        "{} {}{}{}",
        p.dir.keyword(),
        arg_name(&p.name.name),
        type_suffix(p.ty.as_ref()),
        init_suffix(p.default.as_deref())
    )
}

/// Ports listed in a node's or tree's one-line signature; the rest are counted (`, ... N
/// more`): a signature is read in a hover, and one of 200,000 ports was 3 MB.
const MAX_PORTS_SHOWN: usize = 100;

pub(crate) fn ports(ports: &[PortDecl]) -> String {
    let (shown, rest) = ports.split_at(ports.len().min(MAX_PORTS_SHOWN));
    let mut out = shown.iter().map(port).collect::<Vec<_>>().join(", ");
    if !rest.is_empty() {
        out.push_str(&format!(", ... {} more", rest.len()));
    }
    out
}

/// `action Move(in d: Dir, in speed: num = 1)`
pub(crate) fn leaf(l: &LeafDecl) -> String {
    format!("{} {}({})", l.kind.keyword(), l.name.name, ports(&l.ports))
}

/// `main tree Walk(in d: Dir)`
pub(crate) fn tree(t: &TreeDecl) -> String {
    format!(
        "{}tree {}({})",
        if t.is_main { "main " } else { "" },
        crate::fmt::name(&t.name.name),
        ports(&t.ports)
    )
}

/// `enum Dir { Up, Down }`
pub(crate) fn enum_decl(e: &EnumDecl) -> String {
    let names: Vec<&str> = e.variants.iter().map(|v| v.name.name.as_str()).collect();
    format!("enum {} {{ {} }}", e.name.name, names.join(", "))
}

/// `Dir::Up = 2`
pub(crate) fn variant(e: &EnumDecl, v: &Variant) -> String {
    format!(
        "{}::{}{}",
        e.name.name,
        v.name.name,
        init_suffix(v.value.as_ref())
    )
}

/// `const LIMIT: num = 3`
pub(crate) fn const_decl(c: &ConstDecl) -> String {
    format!(
        "const {}{}{}",
        c.name.name,
        type_suffix(c.ty.as_ref()),
        init_suffix(Some(&c.value))
    )
}

/// `var steps: int = 0`
pub(crate) fn var(name: &Ident, ty: Option<&Type>, init: Option<&Expr>) -> String {
    format!("var {}{}{}", name.name, type_suffix(ty), init_suffix(init))
}

/// An agent member as declared, with its own `key value` lines (settings, fields).
pub(crate) fn member(m: &MemberKind) -> Option<(String, Vec<(String, String)>)> {
    let plain = |s: String| Some((s, Vec::new()));
    match m {
        MemberKind::Var { name, ty, init } => plain(var(name, ty.as_ref(), init.as_ref())),
        MemberKind::Let { name, ty, value } => plain(format!(
            "let {}{} = {}",
            name.name,
            type_suffix(ty.as_ref()),
            format_expr(value)
        )),
        MemberKind::Sensor { name, ty, source } => plain(format!(
            "sensor {}{} = {}",
            name.name,
            type_suffix(ty.as_ref()),
            format_expr(source)
        )),
        MemberKind::Actuator { name, ty, source } => plain(format!(
            "actuator {}{} = {}",
            name.name,
            type_suffix(ty.as_ref()),
            format_expr(source)
        )),
        MemberKind::Event { name, source } => plain(format!(
            "event {}{}",
            name.name,
            init_suffix(source.as_ref())
        )),
        MemberKind::Hormone {
            name,
            value,
            settings,
        } => Some((
            format!("hormone {} = {}", name.name, format_expr(value)),
            settings.as_ref().map(settings_lines).unwrap_or_default(),
        )),
        MemberKind::Emotions {
            name, ty, initial, ..
        } => plain(format!(
            "emotions {}: {} = {}",
            name.name,
            format_type(ty),
            initial.name
        )),
        MemberKind::Drive(d) => plain(format!(
            "drive {}: {} = {}",
            d.name.name,
            format_type(&d.ty),
            d.initial.name
        )),
        MemberKind::Memory { name, key, body } => Some((
            match key {
                Some(k) => format!("memory {} keyed by {}", name.name, format_expr(k)),
                None => format!("memory {}", name.name),
            },
            settings_lines(body),
        )),
        MemberKind::Behavior(b) => {
            Some((format!("behavior {}", b.name.name), settings_lines(&b.body)))
        }
        MemberKind::Recruitment(s) => Some((
            format!("recruitment {}", s.name.name),
            settings_lines(&s.body),
        )),
        MemberKind::Component(s) => Some((
            format!("component {}", s.name.name),
            settings_lines(&s.body),
        )),
        _ => None,
    }
}

/// `intention target: Place`
pub(crate) fn intention(i: &Intention) -> String {
    format!("intention {}{}", i.name.name, type_suffix(i.ty.as_ref()))
}

/// The fields of an `emotion` or `tendency` as `key value` lines.
pub(crate) fn record_fields(r: &RecordDecl) -> Vec<(String, String)> {
    r.fields
        .iter()
        .map(|f| (f.key.name.clone(), format_expr(&f.value)))
        .collect()
}

/// The settings of a block as `key value` lines.
pub(crate) fn settings_lines(block: &SettingBlock) -> Vec<(String, String)> {
    block
        .entries
        .iter()
        .filter_map(|e| match e {
            SettingEntry::Setting(s) => Some((s.key.name.clone(), setting_text(s))),
            _ => None,
        })
        .collect()
}

/// A setting's values on one line: `7 weights [0.3, ...]`.
pub fn setting_text(s: &Setting) -> String {
    let mut out = s
        .args
        .iter()
        .map(format_expr)
        .collect::<Vec<_>>()
        .join(", ");
    for (k, v) in &s.pairs {
        out.push_str(&format!(" {} {}", k.name, format_expr(v)));
    }
    if let Some(a) = &s.assign {
        out.push_str(&format!(" = {}", format_expr(a)));
    }
    if let Some(v) = &s.value {
        out.push_str(&format!(": {}", format_expr(v)));
    }
    if s.block.is_some() {
        out.push_str(" { .. }");
    }
    out.trim().to_string()
}
