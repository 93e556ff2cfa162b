//! The read-back check: every element the exporter writes is read again by the importer, and
//! where that would not give the source's syntax, the element carries the source text
//! (`_affect`, see `carry`). This is the one place the exporter uses the importer.

use super::super::carry;
use super::super::import::Reader;
use super::super::kept;
use super::super::xml::Element;
use super::super::{Dialect, Scope};
use crate::syntax::ast::*;

pub(super) struct ReadBack {
    reader: Reader,
}

impl ReadBack {
    pub(super) fn new(scope: Scope) -> ReadBack {
        let mut reader = Reader::new(Dialect::V4);
        reader.scope = scope;
        // One element at a time: children are placeholders.
        reader.shallow = true;
        ReadBack { reader }
    }

    pub(super) fn set_scope(&mut self, scope: Scope) {
        self.reader.scope = scope;
    }

    /// The locals an import infers for a tree's body, the tree itself called with the
    /// ports an import reads from its model (`back_ports`). The scope is changed for the
    /// call and put back, not copied: a copy per tree made exporting n trees cost n².
    pub(super) fn tree_locals(
        &mut self,
        name: &str,
        back_ports: &Ports,
        nodes: &[Node],
        ports: &[PortDecl],
    ) -> Vec<LocalVar> {
        let trees = &mut self.reader.scope.trees;
        let before = trees.insert(name.to_string(), back_ports.clone());
        let locals = super::super::infer::locals(nodes, ports, &self.reader.scope);
        let trees = &mut self.reader.scope.trees;
        match before {
            Some(p) => trees.insert(name.to_string(), p),
            None => trees.remove(name),
        };
        locals
    }

    /// The source text to carry on a node's element, when reading the element back does not
    /// give the node's head.
    /// `form` is the form marker of the tree being written.
    pub(super) fn node(
        &mut self,
        el: &Element,
        n: &Node,
        form: Option<&'static str>,
    ) -> Option<String> {
        self.reader.form = form;
        let mut back = self.reader.node(el, vec![]);
        self.reader.diags.clear();
        self.reader.unknown.clear();
        // Kept text (`kept`) is how the element is spelled, not what it says.
        back.attrs.retain(|a| !kept::is_kept(&a.name.name));
        if n.attrs.iter().any(|a| kept::is_kept(&a.name.name)) {
            let mut bare = carry::head(n);
            bare.attrs.retain(|a| !kept::is_kept(&a.name.name));
            return carry::head_differs(&bare, back);
        }
        carry::head_differs(n, back)
    }

    /// What an import makes of a model entry.
    pub(super) fn model(&mut self, el: &Element, kind: Option<LeafKind>, id: &str) -> Item {
        self.reader.model_item_pub(el, kind, id)
    }

    /// Carries the declaration on its model entry when the entry reads back differently.
    pub(super) fn carry_model(
        &mut self,
        el: &mut Element,
        item: &Item,
        kind: Option<LeafKind>,
        id: &str,
    ) {
        let back = self.model(el, kind, id);
        // `<root>`'s attributes ride on the first declaration but are not the entry's.
        let mut own = item.clone();
        own.attrs
            .retain(|a| super::super::vocab::root_attr_name(&a.name.name).is_none());
        if !carry::same_item(&own, &back) {
            el.set(carry::AFFECT, carry::format_item(item).trim_end());
        }
    }
}
