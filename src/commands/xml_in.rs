//! Groot / BehaviorTree.CPP XML straight in: `affect run`, `check`, `build` and `bench` read an
//! XML file once, import it and every file it `<include>`s (each read and imported once) to
//! syntax trees, and check those trees as they are. No `.affect` text is printed and parsed
//! again, so every diagnostic (the reader's, the import's, the checker's) is positioned in
//! the XML file it is about.

use crate::files;
use affect_compiler::groot::{self, Imported, IncludeError, IncludeLoader};
use affect_compiler::sema::{Analysis, Loader, Syntax};
use affect_compiler::source::SourceError;
use affect_compiler::Diagnostic;
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

/// Whether a file is read as XML (by its extension, as the commands always did).
pub fn is_xml(file: &Path) -> bool {
    file.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("xml"))
}

/// Reads `<include>`d files relative to the including file, as BehaviorTree.CPP does, with the
/// toolchain's one reader, noting each file read and its text.
#[derive(Default)]
pub struct IncludeFiles {
    /// The files read, in order, with their texts.
    pub read: Vec<(PathBuf, String)>,
}

impl IncludeLoader for IncludeFiles {
    fn load(&mut self, from: &str, path: &str) -> Result<(String, String), IncludeError> {
        let base = Path::new(from).parent().unwrap_or(Path::new(""));
        // One name per file (`sub/../c.xml` is `c.xml`): the import imports a file once
        // under its name, and a file included from several places is read once.
        let full = lexical(&base.join(path));
        let name = full.display().to_string();
        if let Some((_, text)) = self.read.iter().find(|(p, _)| *p == full) {
            return Ok((name, text.clone()));
        }
        // Only regular files of at most 64 MiB are read (`/dev/urandom`, a FIFO or a
        // directory would read forever, block, or fail late).
        let text = files::read_source(&full).map_err(|e| match e.code {
            "E0801" | "E0802" => IncludeError::Refused(e.message),
            _ => IncludeError::Unreadable(e.message),
        })?;
        self.read.push((full, text.clone()));
        Ok((name, text))
    }
}

/// An XML program read and imported: the file's text and import, and the files it includes
/// as they were read.
pub struct XmlProgram {
    pub name: String,
    pub text: String,
    pub imported: Imported,
    /// Every included file read, in order, with its text.
    pub included: Vec<(PathBuf, String)>,
    dir: PathBuf,
}

/// The files a diagnostic list is about: (name, text, diagnostics).
pub type Failed = Vec<(String, String, Vec<Diagnostic>)>;

impl XmlProgram {
    /// Imports `text`, the XML file `file` already read, with its includes.
    pub fn import(file: &Path, text: String) -> XmlProgram {
        let name = file.display().to_string();
        let mut includes = IncludeFiles::default();
        let imported = groot::import(&text, &name, &mut includes);
        XmlProgram {
            name,
            text,
            imported,
            included: includes.read,
            dir: file.parent().map(Path::to_path_buf).unwrap_or_default(),
        }
    }

    /// The import's diagnostics, each file's with its name and text (the program's first).
    pub fn import_diagnostics(&self) -> Failed {
        let mut out = vec![(
            self.name.clone(),
            self.text.clone(),
            self.imported.diagnostics.clone(),
        )];
        for f in &self.imported.included {
            out.push((f.name.clone(), f.text.clone(), f.diagnostics.clone()));
        }
        out
    }

    /// The loader of the files the program uses: the included files as imported.
    pub fn loader(&self) -> impl Loader + '_ {
        ModuleLoader::new(&self.dir, &self.imported)
    }

    /// Checks the imported syntax tree with the included files' trees, as BehaviorTree.CPP XML
    /// (its trees keep the library's semantics): the import's diagnostics and the checker's,
    /// all in the XML. `None` when the import has errors (nothing to check).
    pub fn check(&self) -> Option<Analysis> {
        if self.imported.has_errors() {
            return None;
        }
        let mut analysis = affect_compiler::sema::analyze(&self.imported.file, &self.loader());
        analysis
            .diagnostics
            .extend(self.imported.diagnostics.iter().cloned());
        analysis
            .diagnostics
            .sort_by_key(|d| (d.primary.span.start, d.primary.span.end));
        for f in &self.imported.included {
            for d in &f.diagnostics {
                analysis
                    .imported_diagnostics
                    .push((f.name.clone(), f.text.clone(), d.clone()));
            }
        }
        Some(analysis)
    }
}

/// Gives the checker the included files the import made syntax trees of; a `use` of any
/// other file is read as `.affect` text beside the program.
struct ModuleLoader<'a> {
    dir: PathBuf,
    modules: HashMap<PathBuf, &'a groot::ImportedModule>,
}

impl<'a> ModuleLoader<'a> {
    fn new(dir: &Path, imported: &'a Imported) -> ModuleLoader<'a> {
        ModuleLoader {
            dir: dir.to_path_buf(),
            modules: imported
                .modules
                .iter()
                .map(|m| (lexical(Path::new(&m.name)), m))
                .collect(),
        }
    }
}

impl Loader for ModuleLoader<'_> {
    fn behavior_tree_xml(&self) -> bool {
        true
    }

    fn syntax(&self, path: &str) -> Option<Syntax> {
        // The import writes `use "child.affect"` for `<include path="child.xml"/>`.
        let xml = format!("{}.xml", path.strip_suffix(".affect")?);
        let m = self.modules.get(&lexical(&self.dir.join(xml)))?;
        Some(Syntax {
            file: m.file.clone(),
            text: m.text.clone(),
            shown: m.name.clone(),
        })
    }

    fn load(&self, path: &str) -> Result<String, SourceError> {
        // An include that could not be imported (unreadable: W0403 at the include).
        files::read_source(&self.dir.join(path))
    }
}

/// A path with `.` and `dir/..` taken out, without asking the file system: the name the
/// import gave an included file and the one a `use` of it names are the same file.
pub fn lexical(p: &Path) -> PathBuf {
    let mut out: Vec<Component> = Vec::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out.iter().collect()
}

#[cfg(test)]
mod tests {
    use super::lexical;
    use std::path::Path;

    #[test]
    fn lexical_paths() {
        assert_eq!(lexical(Path::new("a/sub/../c.xml")), Path::new("a/c.xml"));
        assert_eq!(lexical(Path::new("./a/./b.xml")), Path::new("a/b.xml"));
        assert_eq!(lexical(Path::new("../b.xml")), Path::new("../b.xml"));
    }
}
