//! Find references: every place that names the same definition as the name under the
//! cursor, in the document and in the files it uses (a clone's members are its base's, so a
//! world naming a clone's event is a reference to the base's event).

use crate::documents::Document;
use crate::request::{self, Reply};
use affect_compiler::sema::index::{DefId, FileId, Target, MAIN_FILE};
use affect_compiler::Span;
use lsp_types::{Location, ReferenceParams};
use serde_json::Value;

pub fn request(doc: Option<&Document>, params: Value) -> Reply {
    let p: ReferenceParams = request::parse(params)?;
    let Some(doc) = doc else {
        return Ok(request::null());
    };
    let offset = doc.offset(p.text_document_position.position);
    let found = references(doc, offset, p.context.include_declaration);
    Ok(request::to_json(found))
}

/// The definition under the cursor, if a name there resolves to one.
pub fn target(doc: &Document, offset: usize) -> Option<(Span, DefId)> {
    match doc.index.at(MAIN_FILE, offset)? {
        (span, Target::Def(d)) => Some((span, d)),
        _ => None,
    }
}

/// Where the definition under the cursor is named: (file, span), its declaration first.
pub fn places(doc: &Document, offset: usize) -> Option<Vec<(FileId, Span)>> {
    let (_, def) = target(doc, offset)?;
    Some(doc.index.references(def))
}

pub fn references(doc: &Document, offset: usize, declaration: bool) -> Option<Vec<Location>> {
    let places = places(doc, offset)?;
    let skip = usize::from(!declaration);
    Some(
        places
            .into_iter()
            .skip(skip)
            .filter_map(|(file, span)| doc.location(file, span))
            .collect(),
    )
}
