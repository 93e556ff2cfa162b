//! Groot / BehaviorTree.CPP XML, both ways: `affect import` (XML → `.affect`), `affect build
//! --emit groot|groot-v3` (`.affect` → XML), `affect convert` (v3 ↔ v4 XML), and a semantic
//! comparison of two XML documents. No IO: text in, text, syntax trees and diagnostics out;
//! `<include>` files come through [`IncludeLoader`], which the command line implements.
//!
//! The mapping in both directions, and how each BehaviorTree.CPP quirk is treated, is
//! documented in `docs/groot.md`.
//!
//! Files: `xml` (the lenient reader and the writer), `vocab` (the library's own node IDs and tags), `import/` (XML → syntax), `infer`
//! (blackboard variables and undeclared nodes of imported trees), `element/` (syntax → XML
//! elements), `export/` (documents, with the read-back check), `carry` (the `_affect`
//! attributes that keep `.affect → XML → .affect` lossless), `comments` (XML comments carried
//! as `/// <!-- -->` docs and written back in place), `convert`, `compare`, `names`
//! (BehaviorTree.CPP naming rules).
//!
//! BehaviorTree.CPP scripts and port values (`crate::btcpp::{script, model}`) are shared with
//! the checker, which reads calls by BehaviorTree.CPP IDs; `groot` depends on `sema` (the
//! exporter loads used modules with it), never the other way.
//!
//! Dependencies run one way: `element` knows nothing of `import`; `import` regenerates
//! elements with `element`; `export` builds with `element` and checks with `import` (only in
//! `export/readback.rs`).

pub mod carry;
pub mod comments;
pub mod compare;
pub mod convert;
pub(crate) mod element;
pub mod export;
pub mod import;
pub mod infer;
pub mod kept;
pub mod names;
pub mod vocab;
pub mod xml;

use crate::syntax::ast::{LeafKind, PortDecl};
use std::collections::HashMap;

pub use compare::compare;
pub use convert::{convert, Converted};
pub use export::{export, export_program, export_with, Exported, ExportedFile, ExportedProgram};
pub use import::{import, import_str, Imported, ImportedModule, IncludedFile};

/// The two XML dialects: BehaviorTree.CPP 3.x / Groot 1 and BehaviorTree.CPP 4.x / Groot 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dialect {
    V3,
    V4,
}

impl Dialect {
    pub fn name(self) -> &'static str {
        match self {
            Dialect::V3 => "v3",
            Dialect::V4 => "v4",
        }
    }
}

/// Reads the files `<include path="...">` names. `from` is the name of the including file as
/// the loader returned it (or the name given for the top file); paths are relative to it.
pub trait IncludeLoader {
    /// Returns the included file's name (for messages and nested includes) and its text.
    fn load(&mut self, from: &str, path: &str) -> Result<(String, String), IncludeError>;
}

/// Why an included file was not read.
#[derive(Clone, Debug, PartialEq)]
pub enum IncludeError {
    /// Missing or unreadable: the import goes on without it (W0403) and infers what it
    /// would have declared.
    Unreadable(String),
    /// Not a file to read: a directory, a device, a FIFO, or too large (E0418). Reading one
    /// could take forever or exhaust memory (`/dev/urandom`), so it is refused outright.
    Refused(String),
}

impl From<String> for IncludeError {
    fn from(message: String) -> IncludeError {
        IncludeError::Unreadable(message)
    }
}

/// A loader for text without a file system: every include is reported as not found.
pub struct NoIncludes;

impl IncludeLoader for NoIncludes {
    fn load(&mut self, _from: &str, path: &str) -> Result<(String, String), IncludeError> {
        Err(format!("`{path}` cannot be read here (no file system)").into())
    }
}

/// The nodes a file can call besides the built-ins: declared leaves (models) and trees.
/// The importer builds it from `<TreeNodesModel>` and `<BehaviorTree>` elements, the exporter
/// from declarations; both directions resolve names through it.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    pub leaves: HashMap<String, LeafSig>,
    /// Tree name → its ports.
    pub trees: HashMap<String, crate::syntax::ast::Ports>,
    /// Enum name → its variants (for `Enum::Variant` in scripts and switch cases).
    pub enums: HashMap<String, Vec<String>>,
    /// Constant name → its literal value (exported in its place: BehaviorTree.CPP has no
    /// constants, and an entry nobody set throws when read).
    pub consts: HashMap<String, crate::syntax::ast::Expr>,
}

#[derive(Clone, Debug)]
pub struct LeafSig {
    pub kind: LeafKind,
    pub ports: crate::syntax::ast::Ports,
}

/// A node's ports by name, built once per call: a call's arguments are matched to ports one
/// by one, and searching the list for each made a call with 200,000 ports quadratic.
pub struct PortsByName<'a>(HashMap<&'a str, &'a PortDecl>);

impl<'a> PortsByName<'a> {
    pub fn new(ports: &'a [PortDecl]) -> PortsByName<'a> {
        let mut by_name = HashMap::with_capacity(ports.len());
        for p in ports {
            // The first of a duplicated name (itself an error) is the port.
            by_name.entry(p.name.name.as_str()).or_insert(p);
        }
        PortsByName(by_name)
    }

    pub fn get(&self, name: &str) -> Option<&'a PortDecl> {
        self.0.get(name).copied()
    }
}

impl Scope {
    /// The variant name of an `Enum::Variant` path when `Enum` is declared with that variant.
    pub fn enum_variant(&self, path: &crate::syntax::ast::Path) -> Option<String> {
        if path.segments.len() != 2 {
            return None;
        }
        let variants = self.enums.get(&path.segments[0].name)?;
        let v = &path.segments[1].name;
        variants.contains(v).then(|| v.clone())
    }

    /// Knows `name` as a constant when its value is a literal (a number, a string, a
    /// boolean): the export writes that value in its place, and the import, which reads the
    /// constants in `<root _affect>`, regenerates carried nodes the same way.
    pub fn add_const(&mut self, name: &str, value: &crate::syntax::ast::Expr) {
        fn literal(e: &crate::syntax::ast::Expr) -> bool {
            use crate::syntax::ast::{ExprKind, UnOp};
            match &e.kind {
                ExprKind::Num(_) | ExprKind::Str(_) | ExprKind::Bool(_) => true,
                ExprKind::Unary(UnOp::Neg, x) => matches!(x.kind, ExprKind::Num(_)),
                ExprKind::Paren(x) => literal(x),
                _ => false,
            }
        }
        if literal(value) {
            self.consts.insert(name.to_string(), value.clone());
        }
    }

    /// An agent's `let`s, written out where its nodes use them (they are expressions of its
    /// state, which BehaviorTree.CPP has no other way to compute): known like constants while
    /// the agent's tree is written or read. Returns what to give [`Scope::pop_lets`].
    pub fn push_lets(
        &mut self,
        members: &[crate::syntax::ast::Member],
    ) -> Vec<(String, Option<crate::syntax::ast::Expr>)> {
        use crate::syntax::ast::{Expr, ExprKind, MemberKind};
        members
            .iter()
            .filter_map(|m| match &m.kind {
                MemberKind::Let { name, value, .. } => Some((name, value)),
                _ => None,
            })
            .map(|(n, v)| {
                let paren = Expr {
                    kind: ExprKind::Paren(Box::new(v.clone())),
                    span: v.span,
                };
                (n.name.clone(), self.consts.insert(n.name.clone(), paren))
            })
            .collect()
    }

    /// Forgets the `let`s [`Scope::push_lets`] added.
    pub fn pop_lets(&mut self, saved: Vec<(String, Option<crate::syntax::ast::Expr>)>) {
        for (n, old) in saved.into_iter().rev() {
            match old {
                Some(v) => self.consts.insert(n, v),
                None => self.consts.remove(&n),
            };
        }
    }

    /// The literal value of a constant the file declares, for a name that is one.
    pub fn constant(&self, name: &str) -> Option<crate::syntax::ast::Expr> {
        self.consts.get(name).cloned()
    }
}

/// A custom node of an imported file: what `affect run` needs to stand in for it (the
/// BehaviorTree.CPP oracle registers the same nodes from the file's `<TreeNodesModel>`).
#[derive(Clone, Debug, PartialEq)]
pub struct CustomNode {
    pub name: String,
    pub kind: LeafKind,
    pub ports: Vec<String>,
    /// Declared by a `<TreeNodesModel>` entry (false: inferred from its use).
    pub declared: bool,
}

/// The XML document of a checked syntax tree in `dialect`, as `affect build --emit groot`
/// writes it: what `affect run --groot2` and `--btlog` serve with `_uid`s. `None` when the
/// tree does not export (the served tree then has no ports).
pub fn exported_document(
    file: &crate::syntax::ast::File,
    dialect: Dialect,
) -> Option<xml::Document> {
    let (doc, diagnostics) = export::export_document(file, dialect);
    (!crate::diagnostic::has_errors(&diagnostics)).then_some(doc)
}

/// The custom (non-built-in) nodes an imported or written `.affect` file declares, in order.
pub fn custom_nodes(file: &crate::syntax::ast::File) -> Vec<CustomNode> {
    use crate::syntax::ast::ItemKind;
    file.items
        .iter()
        .filter_map(|item| match &item.kind {
            ItemKind::Leaf(l) => Some(CustomNode {
                name: l.name.name.clone(),
                kind: l.kind,
                ports: l.ports.iter().map(|p| p.name.name.clone()).collect(),
                declared: !item.attrs.iter().any(|a| a.name.name == carry::INFERRED),
            }),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn custom_nodes_of_an_import() {
        let xml = r#"<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence>
            <Dock goal="{g}"/><Wait sec="2"/></Sequence></BehaviorTree>
            <TreeNodesModel><Action ID="Dock"><input_port name="goal"/></Action></TreeNodesModel></root>"#;
        let imported = import_str(xml);
        let nodes = custom_nodes(&imported.file);
        let names: Vec<(&str, bool)> = nodes
            .iter()
            .map(|n| (n.name.as_str(), n.declared))
            .collect();
        assert_eq!(names, vec![("Dock", true), ("Wait", false)]);
        assert_eq!(nodes[1].ports, vec!["sec".to_string()]);
    }

    #[test]
    fn literal_lists_and_points_in_ports_are_vector_text() {
        let src = r#"action GoTo(in goal: Point);
action Pick(in ids: [int]);
main tree Main {
    var a: num = 0;
    sequence {
        GoTo(goal: (3m, 40cm))
        Pick(ids: [1, -2, 3])
        GoTo(goal: (a * 1m, 4m))
    }
}
"#;
        let parsed = crate::syntax::parse(src);
        let out = export(&parsed.file, Dialect::V4);
        assert!(out.xml.contains(r#"<GoTo goal="3.0;0.4""#), "{}", out.xml);
        assert!(out.xml.contains(r#"<Pick ids="1;-2;3""#), "{}", out.xml);
        // A computed point is a host entry, with its warning.
        assert!(out.xml.contains(r#"<GoTo goal="{_affect_"#), "{}", out.xml);
        let warned: Vec<&str> = out.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(warned, vec!["W0451"], "{:?}", out.diagnostics);
    }
}
