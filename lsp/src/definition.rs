//! Go to definition: from a name to its declaration, in the document or in a file it `use`s.

use crate::documents::{path_to_uri, Document, Lines};
use crate::resolve::Target;
use lsp_types::{Location, Position, Range};

pub fn definition(doc: &Document, offset: usize) -> Option<Location> {
    let (_, target) = doc.index.at(offset)?;
    match target {
        Target::Def(i) => {
            let d = doc.index.defs.get(i)?;
            if d.file == 0 {
                return Some(Location::new(doc.uri.clone(), doc.range(d.name_span)));
            }
            let f = doc.index.files.get(d.file)?;
            let uri = path_to_uri(f.path.as_ref()?)?;
            let lines = Lines::new(&f.text);
            Some(Location::new(uri, lines.range(&f.text, d.name_span)))
        }
        Target::File(i) => {
            let f = doc.index.files.get(i)?;
            let uri = path_to_uri(f.path.as_ref()?)?;
            let start = Position::new(0, 0);
            Some(Location::new(uri, Range::new(start, start)))
        }
        _ => None,
    }
}
