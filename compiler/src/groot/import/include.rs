//! `<include path="...">`: a `use`, and the included files' models and trees in the scope.

use super::super::xml::{self, Element};
use super::super::{Dialect, IncludeError};
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
            .map(attr_of)
            .collect();
        if super::super::kept::spelled_otherwise(el) {
            attrs.push(super::super::kept::attr(
                super::super::kept::XML,
                super::super::kept::start_tag(el),
            ));
        }
        let path_span = el.attribute("path").map_or(el.name_span, |a| a.value_span);
        Some(Item {
            doc: node_doc(docs),
            attrs,
            kind: ItemKind::Use(UseDecl {
                target: UseTarget::File(affect_path, path_span),
            }),
            span: el.span,
        })
    }

    /// Imports the file `<include>` names (once per file: a file included from several places
    /// is read and imported once), and takes its models and trees, and those of the files it
    /// includes, into the scope. `prefix` is where the including file is, relative to the top
    /// file.
    pub(super) fn include(&mut self, el: &Element, from: &str, ctx: &mut Includes, prefix: &str) {
        let Some(path) = el.attr("path") else { return };
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
        let (name, text) = match ctx.loader.load(from, path) {
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
        if ctx.chain.contains(&name) || ctx.chain.len() > 16 {
            self.error("E0415", format!("`{path}` includes itself"), span);
            let chain_text = ctx.chain.join(" → ");
            self.amend(|d| {
                d.with_label("include cycle")
                    .with_note(format!("through {chain_text}"))
            });
            return;
        }
        let at = match ctx.modules.iter().position(|m| m.name == name) {
            Some(at) => at,
            None => import_module(name, text, ctx),
        };
        let module = &ctx.modules[at];
        for (k, v) in &module.leaves {
            self.scope
                .leaves
                .entry(k.clone())
                .or_insert_with(|| v.clone());
        }
        for (k, v) in &module.trees {
            self.scope
                .trees
                .entry(k.clone())
                .or_insert_with(|| v.clone());
        }
        // The files it includes are the top file's too (BehaviorTree.CPP reads them all):
        // relative to the top file, for the `#[transitive] use`s.
        let relative = format!("{prefix}{path}");
        let dir = match relative.rfind('/') {
            Some(i) => &relative[..=i],
            None => "",
        };
        let nested: Vec<String> = module
            .includes
            .iter()
            .map(|p| format!("{dir}{p}"))
            .collect();
        if ctx.chain.len() > 1 {
            self.nested.push(relative.clone());
        }
        self.nested.extend(nested);
    }
}

/// Imports an included file whole, as `affect import` would import it alone, and keeps it
/// with what its includes bring into scope. Returns its place in `ctx.modules`.
fn import_module(name: String, text: String, ctx: &mut Includes) -> usize {
    let parsed = xml::parse(&text);
    let mut diagnostics = parsed.diagnostics;
    let mut sub = Reader::new(Dialect::V4);
    let mut file = File {
        items: vec![],
        span: Span::DUMMY,
    };
    let mut includes = Vec::new();
    if !has_errors(&diagnostics) {
        if let Some(root) = parsed.document.root() {
            sub.start(&text, &parsed.document);
            ctx.chain.push(name.clone());
            file = sub.document(root, &name, ctx);
            ctx.chain.pop();
            // Every file it includes, relative to it, each followed by those it includes.
            includes = std::mem::take(&mut sub.nested);
        }
    }
    diagnostics.append(&mut sub.diags);
    diagnostics.sort_by_key(|d| (d.primary.span.start, d.primary.span.end));
    if !diagnostics.is_empty() {
        ctx.files.push(IncludedFile {
            name: name.clone(),
            text: text.clone(),
            diagnostics,
        });
    }
    ctx.modules.push(ImportedModule {
        name,
        text,
        file,
        dialect: sub.dialect,
        leaves: sub.scope.leaves,
        trees: sub.scope.trees,
        includes,
    });
    ctx.modules.len() - 1
}
