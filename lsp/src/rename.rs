//! Rename: every place that names a definition (see `references`), in the document and in
//! the files it uses, gets the new name. Refused for names the program does not declare
//! (built-ins, the standard library) and for new names that are not identifiers or are
//! keywords.

use crate::documents::Document;
use crate::message::code;
use crate::references;
use crate::request::{self, Reply};
use affect_compiler::sema::index::{DefId, FileId};
use affect_compiler::syntax::lexer;
use affect_compiler::syntax::token::Tok;
use lsp_types::{
    PrepareRenameResponse, RenameParams, TextDocumentPositionParams, TextEdit, Uri, WorkspaceEdit,
};
use serde_json::Value;
use std::collections::HashMap;

pub fn prepare(doc: Option<&Document>, params: Value) -> Reply {
    let p: TextDocumentPositionParams = request::parse(params)?;
    let Some(doc) = doc else {
        return Ok(request::null());
    };
    let offset = doc.offset(p.position);
    let Some((span, def)) = references::target(doc, offset) else {
        return Ok(request::null());
    };
    renamable(doc, def).map_err(|m| (code::REQUEST_FAILED, m))?;
    let placeholder = doc.index.def(def).name.clone();
    Ok(request::to_json(Some(
        PrepareRenameResponse::RangeWithPlaceholder {
            range: doc.range(span),
            placeholder,
        },
    )))
}

pub fn request(doc: Option<&Document>, params: Value) -> Reply {
    let p: RenameParams = request::parse(params)?;
    let Some(doc) = doc else {
        return Ok(request::null());
    };
    let offset = doc.offset(p.text_document_position.position);
    let edit = rename(doc, offset, &p.new_name).map_err(|m| (code::REQUEST_FAILED, m))?;
    Ok(request::to_json(edit))
}

/// The edits that rename the definition under the cursor; `None` when no name there.
// `WorkspaceEdit` keys its changes by `Uri`, whose interior mutability is a parse cache that
// leaves its hash and equality alone.
#[allow(clippy::mutable_key_type)]
pub fn rename(doc: &Document, offset: usize, new: &str) -> Result<Option<WorkspaceEdit>, String> {
    let Some((_, def)) = references::target(doc, offset) else {
        return Ok(None);
    };
    renamable(doc, def)?;
    if !is_identifier(new) {
        return Err(format!(
            "`{new}` is not a name: write a letter, then letters, digits or `_`, and no keyword"
        ));
    }
    let mut changes: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
    for (file, span) in doc.index.references(def) {
        let Some(loc) = doc.location(file, span) else {
            return Err("a use is in a file that is not on disk".into());
        };
        changes.entry(loc.uri).or_default().push(TextEdit {
            range: loc.range,
            new_text: new.to_string(),
        });
    }
    Ok(Some(WorkspaceEdit {
        changes: Some(changes),
        ..Default::default()
    }))
}

/// A definition can be renamed when every place naming it is in a file the editor can edit.
fn renamable(doc: &Document, def: DefId) -> Result<(), String> {
    let d = doc.index.def(def);
    let std = |f: FileId| doc.index.files.get(f.index()).is_some_and(|f| f.stdlib);
    if std(d.file) {
        return Err(format!("`{}` is declared in the standard library", d.name));
    }
    if doc
        .index
        .references(def)
        .iter()
        .any(|(f, _)| doc.file_uri(*f).is_none() || std(*f))
    {
        return Err(format!(
            "`{}` is used in a file that cannot be edited",
            d.name
        ));
    }
    Ok(())
}

/// One identifier the lexer reads as a name, not a keyword.
fn is_identifier(s: &str) -> bool {
    let lexed = lexer::lex(s);
    matches!(lexed.tokens.as_slice(), [(0, Tok::Ident(t), end)] if *end as usize == s.len() && *t == s)
        && lexed.diagnostics.is_empty()
}
