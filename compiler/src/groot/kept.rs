//! XML → `.affect` → XML gives back the file as written, by construction: the import keeps
//! the text of every element the export would not write back exactly, and the export writes
//! that kept text for everything the program did not change (the approach of `toml_edit`).
//!
//! - A node whose start tag the export would spell otherwise (`<Control ID="Sequence">`, a
//!   script `name:='x'`, `&#10;` in a value, ...) carries its start tag as written in
//!   `#[xml = "<Control ID=\"Sequence\" name=\"root\"/>"]`. The export writes the node's
//!   element as usual, then [`merge_head`] takes from the kept tag the element's form and
//!   the spelling of every attribute that still means what it meant (a script by its meaning,
//!   a blackboard reference `{=}` as `{port}`); an attribute the program changed is printed
//!   anew, one it added comes after the kept ones, one it removed is gone.
//! - A model entry (and a tree's `<SubTree>` model entry) the export would not write back
//!   exactly keeps the whole entry (ports, `<MetadataFields>`, elements and comments the
//!   import does not model) in `#[xml = ".."]` on its declaration (`#[xml_model = ".."]` on a
//!   tree with a body). The export writes the kept entry while it still reads as the
//!   declaration says, else the entry printed anew.
//!
//! - A `<BehaviorTree>` or `<include>` whose values the file spells otherwise than the writer
//!   (`'`, a raw `>`, character references) keeps its start tag in `#[xml]` on the tree or
//!   `use`, merged the same way.
//!
//! Kept text travels as an ordinary `#[..]` attribute, so it survives edits elsewhere in the
//! `.affect` file, and a file written from `.affect` source never has any.

use super::compare;
use super::xml::{self, escape_text, Element, XmlNode};
use crate::span::Span;
use crate::syntax::ast::{Attr, Expr, ExprKind, Ident};

/// `#[xml = ".."]`: a node's start tag, or a declaration's model entry, as its file wrote it.
pub const XML: &str = "xml";
/// `#[xml_model = ".."]` on a tree with a body: its `<SubTree>` model entry as written.
pub const XML_MODEL: &str = "xml_model";

/// `#[xml_models = ".."]` on the first tree: the IDs of `<TreeNodesModel>`'s entries in the
/// file's order, one a line, when the export would order them otherwise.
pub const XML_MODELS: &str = "xml_models";

/// Whether an attribute of the syntax is kept text (not an attribute of the element).
pub fn is_kept(name: &str) -> bool {
    name == XML || name == XML_MODEL || name == XML_MODELS
}

/// Puts model entries in the kept order of `xml_models` on any of `items`: the kept IDs
/// first, in their order, then the others in theirs.
pub fn order_models(items: &[crate::syntax::ast::Item], models: &mut [Element]) {
    let Some(Expr {
        kind: ExprKind::Str(order),
        ..
    }) = items
        .iter()
        .flat_map(|i| &i.attrs)
        .find(|a| a.name.name == XML_MODELS)
        .and_then(|a| a.value.as_ref())
    else {
        return;
    };
    let mut at: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, id) in order.split('\n').enumerate() {
        at.entry(id).or_insert(i);
    }
    models.sort_by_key(|m| {
        m.attr("ID")
            .and_then(|id| at.get(id).copied())
            .unwrap_or(usize::MAX)
    });
}

/// The attribute that keeps `text` under `name`.
pub fn attr(name: &str, text: String) -> Attr {
    Attr {
        name: Ident::new(name, Span::DUMMY),
        value: Some(Expr {
            kind: ExprKind::Str(text),
            span: Span::DUMMY,
        }),
        span: Span::DUMMY,
    }
}

/// The kept element under `name` among `attrs`, read back (with its attributes' spellings).
pub fn of(attrs: &[Attr], name: &str) -> Option<Element> {
    let text = attrs.iter().find(|a| a.name.name == name)?;
    let Some(Expr {
        kind: ExprKind::Str(text),
        ..
    }) = &text.value
    else {
        return None;
    };
    let parsed = xml::parse(text);
    if crate::diagnostic::has_errors(&parsed.diagnostics) {
        return None;
    }
    parsed.document.root().cloned()
}

/// The toolchain's own attributes, which the import reads and the export writes itself.
fn ours(name: &str) -> bool {
    name.starts_with("_affect") || name == super::carry::INFERRED_XML
}

/// Whether the file spells a value of the element otherwise than the writer would (`'` for
/// `&apos;`, a raw `>`, `&#x41;`): what a `<BehaviorTree>` or `<include>` keeps its start tag
/// for, as the export writes their attributes' values back already.
pub fn spelled_otherwise(el: &Element) -> bool {
    el.attrs
        .iter()
        .any(|a| !ours(&a.name) && a.raw.as_ref().is_some_and(|r| r.value == a.value))
}

/// The element's start tag as written (self-closed): what a node keeps.
pub fn start_tag(el: &Element) -> String {
    let head = Element {
        name: el.name.clone(),
        attrs: el
            .attrs
            .iter()
            .filter(|a| !ours(&a.name))
            .cloned()
            .collect(),
        ..Element::default()
    };
    fragment(&head)
}

/// The element with everything in it, as written (attribute spellings kept; whitespace
/// between markup left out, which BehaviorTree.CPP and the strict round trip ignore).
pub fn fragment(el: &Element) -> String {
    let mut out = String::new();
    // Nodes to write; `None` closes the element on the stack.
    let mut todo: Vec<Option<&XmlNode>> = Vec::new();
    let mut open: Vec<&Element> = Vec::new();
    let root = XmlNode::Element(el.clone());
    todo.push(Some(&root));
    while let Some(node) = todo.pop() {
        let Some(node) = node else {
            let e = open.pop().expect("an open element");
            out.push_str(&format!("</{}>", e.name));
            continue;
        };
        match node {
            XmlNode::Element(e) => {
                out.push('<');
                out.push_str(&e.name);
                for a in &e.attrs {
                    out.push_str(&format!(" {}={}", a.name, a.quoted()));
                }
                if e.children.is_empty() {
                    out.push_str("/>");
                } else {
                    out.push('>');
                    open.push(e);
                    todo.push(None);
                    todo.extend(e.children.iter().rev().map(Some));
                }
            }
            XmlNode::Comment(c, _) => out.push_str(&format!("<!--{c}-->")),
            XmlNode::Text(t, _) => out.push_str(&escape_text(t)),
            XmlNode::Instruction(..) => {}
        }
    }
    out
}

/// Whether `generated` (what the export writes) spells `source` exactly: the same name, the
/// same attributes with the same text (order free), and with `deep` the same children in
/// order (elements, comments, text). The toolchain's own attributes are left out.
pub fn spelled_alike(generated: &Element, source: &Element, deep: bool) -> bool {
    let mut todo = vec![(generated, source)];
    while let Some((g, s)) = todo.pop() {
        if g.name != s.name {
            return false;
        }
        if texts(g) != texts(s) {
            return false;
        }
        if !deep {
            continue;
        }
        if g.children.len() != s.children.len() {
            return false;
        }
        for (x, y) in g.children.iter().zip(&s.children) {
            match (x, y) {
                (XmlNode::Element(a), XmlNode::Element(b)) => todo.push((a, b)),
                (XmlNode::Comment(a, _), XmlNode::Comment(b, _)) if a == b => {}
                (XmlNode::Text(a, _), XmlNode::Text(b, _)) if a.trim() == b.trim() => {}
                _ => return false,
            }
        }
    }
    true
}

/// An element's attributes as [`spelled_alike`] compares them: name and text, sorted, the
/// toolchain's own left out; borrowed where the text is already there.
fn texts(e: &Element) -> Vec<(&str, std::borrow::Cow<'_, str>)> {
    let mut v: Vec<(&str, std::borrow::Cow<str>)> = e
        .attrs
        .iter()
        .filter(|a| !ours(&a.name))
        .map(|a| (a.name.as_str(), a.spelled()))
        .collect();
    v.sort();
    v
}

/// The ID an element names: `ID` in the explicit form, else the tag.
fn id_of(e: &Element) -> &str {
    match e.name.as_str() {
        "Action" | "Condition" | "Control" | "Decorator" => e.attr("ID").unwrap_or(""),
        other => other,
    }
}

fn explicit(e: &Element) -> bool {
    matches!(
        e.name.as_str(),
        "Action" | "Condition" | "Control" | "Decorator"
    )
}

/// Gives a node's `generated` element what its kept start tag still says (see the module
/// comment): the kept form while it names the same node, and the kept spelling and place of
/// every attribute whose value still means the same.
pub fn merge_head(generated: &mut Element, kept: &Element, v4: bool) {
    let id = id_of(generated).to_string();
    let same_node =
        id == id_of(kept) && (explicit(kept) || explicit(generated) || generated.name == kept.name);
    if same_node && generated.name != kept.name {
        generated.name = kept.name.clone();
        generated.remove("ID");
        if let Some(k) = kept.attribute("ID").filter(|_| explicit(kept)) {
            generated.attrs.insert(0, k.clone());
        }
    }
    // The kept attributes by name, found in constant time (an element may have 200,000).
    let mut at: std::collections::HashMap<&str, usize> =
        std::collections::HashMap::with_capacity(kept.attrs.len());
    for (i, k) in kept.attrs.iter().enumerate() {
        at.entry(k.name.as_str()).or_insert(i);
    }
    for a in &mut generated.attrs {
        if ours(&a.name) {
            continue;
        }
        let Some(k) = at.get(a.name.as_str()).map(|&i| &kept.attrs[i]) else {
            continue;
        };
        if a.value == k.value {
            a.raw = k.raw.clone();
        } else if a.name == "_description" {
            // The doc's XML comments ride here until they are put back before the element
            // (`comments::restore`); the description left then may still be the kept one.
            a.raw = Some(Box::new(xml::Raw {
                value: k.value.clone(),
                text: k.text(),
            }));
        } else if same_node && compare::same_value(&id, &a.name, &a.value, &k.value, v4) {
            a.value = k.value.clone();
            a.raw = k.raw.clone();
        }
    }
    // The kept order; what the program added comes after.
    generated
        .attrs
        .sort_by_key(|a| at.get(a.name.as_str()).copied().unwrap_or(usize::MAX));
}

/// A model entry to write: the kept one (`kept`, which the caller found to read as the
/// declaration does), with the `_description` the declaration's doc gives now (its XML
/// comments go back before the entry later).
pub fn entry(generated: &Element, mut kept: Element) -> Element {
    match generated.attribute("_description") {
        Some(g) => match kept.attrs.iter_mut().find(|a| a.name == "_description") {
            Some(k) => {
                if k.value != g.value {
                    k.raw = Some(Box::new(xml::Raw {
                        value: k.value.clone(),
                        text: k.text(),
                    }));
                    k.value = g.value.clone();
                }
            }
            None => kept.set("_description", g.value.clone()),
        },
        None => {
            kept.remove("_description");
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use crate::groot::{export, import_str, Dialect};

    /// Imports `xml`, applies `edit` to the `.affect` text, and exports the result.
    fn round(xml: &str, edit: impl Fn(&str) -> String) -> String {
        let imported = import_str(xml);
        assert!(!imported.has_errors(), "{:?}", imported.diagnostics);
        let text = edit(&imported.text());
        let parsed = crate::syntax::parse(&text);
        assert!(
            !crate::diagnostic::has_errors(&parsed.diagnostics),
            "{text}"
        );
        let out = export(&parsed.file, Dialect::V4);
        assert!(
            !crate::diagnostic::has_errors(&out.diagnostics),
            "{:?}",
            out.diagnostics
        );
        out.xml
    }

    const TREE: &str = r#"<root BTCPP_format="4" main_tree_to_execute="M"><BehaviorTree ID="M"><Control ID="Sequence" name="root"><Script code="n:='x'"/><Say message="It&apos;s" _skipIf="a>5"/></Control></BehaviorTree><TreeNodesModel><Action ID="Say"><input_port name="message" type="std::string"/><Unknown/></Action></TreeNodesModel></root>"#;

    #[test]
    fn unchanged_elements_come_back_as_written() {
        let xml = round(TREE, str::to_string);
        for written in [
            r#"<Control ID="Sequence" name="root">"#,
            r#"<Script code="n:='x'"/>"#,
            r#"message="It&apos;s""#,
            r#"_skipIf="a>5""#,
            "<Unknown/>",
        ] {
            assert!(xml.contains(written), "{written} in\n{xml}");
        }
    }

    #[test]
    fn what_the_program_changed_is_printed_anew_and_only_that() {
        // An edited script is written anew; the node's other attributes keep their text.
        let xml = round(TREE, |t| t.replace("skip_if a > 5", "skip_if a > 6"));
        assert!(xml.contains(r#"_skipIf="a &gt; 6""#), "{xml}");
        assert!(xml.contains(r#"message="It&apos;s""#), "{xml}");
        // A renamed node is the new node, in the form the export writes.
        let xml = round(TREE, |t| t.replace("sequence {", "fallback {"));
        assert!(xml.contains("<Fallback name=\"root\">"), "{xml}");
        // An edited model entry is printed from the declaration (without what was not
        // modelled); the kept one while it reads as the declaration.
        let xml = round(TREE, |t| {
            t.replace("in message: str", "in message: str, in loud: bool")
        });
        assert!(
            xml.contains(r#"<input_port name="loud" type="bool"/>"#),
            "{xml}"
        );
        assert!(!xml.contains("<Unknown/>"), "{xml}");
    }

    #[test]
    fn a_tree_model_entry_is_kept_with_what_the_import_does_not_model() {
        let tree = r#"<root BTCPP_format="4" main_tree_to_execute="M"><BehaviorTree ID="M"><SubTree ID="S"/></BehaviorTree><BehaviorTree ID="S"><AlwaysSuccess/></BehaviorTree><TreeNodesModel><SubTree ID="S" editable="true"><MetadataFields><Metadata a="1" b="2"/></MetadataFields></SubTree></TreeNodesModel></root>"#;
        let xml = round(tree, str::to_string);
        assert!(
            xml.contains(r#"<Metadata a="1" b="2"/>"#) && xml.contains(r#"editable="true""#),
            "{xml}"
        );
    }
}
