//! `<include path="...">`: a `use`, and the included files' models and trees in the scope.

use super::super::xml::{self, Element};
use super::super::IncludeError;
use super::super::{IncludeLoader, LeafSig};
use super::*;
use crate::diagnostic::has_errors;
use crate::span::Span;
use crate::syntax::ast::*;

impl Reader {
    pub(super) fn use_item(&mut self, el: &Element, docs: Vec<String>) -> Option<Item> {
        let Some(path) = el.attr("path") else {
            self.error("E0415", "`<include>` without `path`", el.name_span);
            self.amend(|d| {
                d.with_label("which file?")
                    .with_help("write `<include path=\"other.xml\"/>`")
            });
            return None;
        };
        let affect_path = match path.strip_suffix(".xml") {
            Some(stem) => format!("{stem}.affect"),
            None => path.to_string(),
        };
        let mut attrs: Vec<Attr> = el
            .attrs
            .iter()
            .filter(|a| a.name != "path")
            .map(|a| attr(&a.name, &a.value))
            .collect();
        if super::super::kept::spelled_otherwise(el) {
            attrs.push(super::super::kept::attr(
                super::super::kept::XML,
                super::super::kept::start_tag(el),
            ));
        }
        Some(Item {
            doc: node_doc(docs),
            attrs,
            kind: ItemKind::Use(UseDecl {
                target: UseTarget::File(affect_path, Span::DUMMY),
            }),
            span: Span::DUMMY,
        })
    }

    /// Reads an included file's models and tree names into the scope (recursively).
    pub(super) fn include(
        &mut self,
        el: &Element,
        from: &str,
        loader: &mut dyn IncludeLoader,
        included: &mut Vec<IncludedFile>,
        chain: &mut Vec<String>,
        prefix: &str,
    ) {
        let Some(path) = el.attr("path") else { return };
        // Where the file is relative to the top file: an include of an included file is
        // one BehaviorTree.CPP reads too (its trees and nodes are the top file's as well).
        let relative = format!("{prefix}{path}");
        if chain.len() > 1 && el.attr("ros_pkg").is_none() {
            self.nested.push(relative.clone());
        }
        let dir = match relative.rfind('/') {
            Some(i) => relative[..=i].to_string(),
            None => String::new(),
        };
        let span = el
            .attribute("path")
            .map(|a| a.value_span)
            .unwrap_or(el.name_span);
        if el.attr("ros_pkg").is_some() {
            self.warn(
                "W0403",
                format!("`{path}` is found through a ROS package; its nodes are not read"),
                span,
            );
            return;
        }
        let (name, text) = match loader.load(from, path) {
            Ok(x) => x,
            Err(IncludeError::Refused(e)) => {
                self.error(
                    "E0418",
                    format!("the included `{path}` is not a file to read"),
                    span,
                );
                self.amend(|d| {
                    d.with_label(e)
                        .with_help("include a regular XML file of BehaviorTree.CPP trees")
                });
                return;
            }
            Err(IncludeError::Unreadable(e)) => {
                self.warn(
                    "W0403",
                    format!("cannot read the included file `{path}`"),
                    span,
                );
                self.amend(|d| {
                    d.with_label(e).with_note(
                        "its trees and models are unknown, so nodes it declares are inferred",
                    )
                });
                return;
            }
        };
        if chain.contains(&name) || chain.len() > 16 {
            self.error("E0415", format!("`{path}` includes itself"), span);
            let chain_text = chain.join(" → ");
            self.amend(|d| {
                d.with_label("include cycle")
                    .with_note(format!("through {chain_text}"))
            });
            return;
        }
        let parsed = xml::parse(&text);
        let mut sub = Reader::new(self.dialect);
        let mut diags = parsed.diagnostics;
        if !has_errors(&diags) {
            if let Some(root) = parsed.document.root() {
                if let Some(m) = root.elements().find(|e| e.name == "TreeNodesModel") {
                    for entry in sub.models(m) {
                        match entry.item.kind {
                            ItemKind::Leaf(l) if !entry.inferred => {
                                self.scope.leaves.entry(entry.id).or_insert(LeafSig {
                                    kind: l.kind,
                                    ports: l.ports,
                                });
                            }
                            ItemKind::Tree(t) => {
                                self.scope.trees.entry(entry.id).or_insert(t.ports);
                            }
                            _ => {}
                        }
                    }
                }
                for bt in root.elements().filter(|e| e.name == "BehaviorTree") {
                    if let Some(id) = bt.attr("ID") {
                        self.scope.trees.entry(id.to_string()).or_default();
                    }
                }
                chain.push(name.clone());
                for inc in root.elements().filter(|e| e.name == "include") {
                    sub.include(inc, &name, loader, included, chain, &dir);
                }
                chain.pop();
                self.nested.append(&mut sub.nested);
                for (k, v) in sub.scope.leaves.drain() {
                    self.scope.leaves.entry(k).or_insert(v);
                }
                for (k, v) in sub.scope.trees.drain() {
                    self.scope.trees.entry(k).or_insert(v);
                }
            }
        }
        diags.extend(sub.diags);
        if !diags.is_empty() {
            included.push(IncludedFile {
                name,
                text,
                diagnostics: diags,
            });
        }
    }
}
