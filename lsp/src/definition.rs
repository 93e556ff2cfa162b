//! Go to definition: from a name to its declaration, in the document or in a file it `use`s
//! (the checker's answer: the definition the name resolved to).

use crate::documents::Document;
use crate::request::{self, Reply};
use affect_compiler::sema::index::{Target, MAIN_FILE};
use affect_compiler::Span;
use lsp_types::{GotoDefinitionParams, GotoDefinitionResponse, Location};
use serde_json::Value;

pub fn request(doc: Option<&Document>, params: Value) -> Reply {
    let p: GotoDefinitionParams = request::parse(params)?;
    let Some(doc) = doc else {
        return Ok(request::null());
    };
    let offset = doc.offset(p.text_document_position_params.position);
    let found = definition(doc, offset).map(GotoDefinitionResponse::Scalar);
    Ok(request::to_json(found))
}

pub fn definition(doc: &Document, offset: usize) -> Option<Location> {
    let (_, target) = doc.index.at(MAIN_FILE, offset)?;
    match target {
        Target::Def(i) => {
            let d = doc.index.def(i);
            doc.location(d.file, d.name_span)
        }
        // A `use`: the start of the file.
        Target::File(f) => doc.location(f, Span::new(0, 0)),
        _ => None,
    }
}
