//! Loading the modules a program `use`s: the standard library shipped inside the compiler,
//! and files relative to the program, through a loader the caller provides (the compiler does
//! no IO). Import cycles are reported.

use super::index::{FileId, MAIN_FILE};
use crate::diagnostic::Diagnostic;
use crate::source::SourceError;
use crate::span::Span;
use crate::syntax::ast::{File, ItemKind, UseTarget};
use crate::syntax::{self};
use std::borrow::Cow;

/// Reads a `use "path"` file for the checker. Paths are as written, relative to the main
/// file; the command-line tool resolves them. Loaders that read files use `affect-files`, so
/// every way in refuses the same things (devices, huge files, binary text) the same way.
pub trait Loader {
    fn load(&self, path: &str) -> Result<String, SourceError>;

    /// The main file is BehaviorTree.CPP XML imported in memory (`affect run tree.xml`): its
    /// trees keep the library's semantics, where reading an entry nothing writes is an
    /// error only when it happens (no E0323).
    fn behavior_tree_xml(&self) -> bool {
        false
    }

    /// A used file this loader holds as a syntax tree already (an `<include>`d XML file the
    /// import read and imported with its includer): checked as it is, its diagnostics shown
    /// in its own text under its own name. `None`: the file's text comes from `load`.
    fn syntax(&self, _path: &str) -> Option<Syntax> {
        None
    }
}

/// A used file given as its syntax tree (see [`Loader::syntax`]).
pub struct Syntax {
    pub file: File,
    /// The text the tree's spans point into.
    pub text: String,
    /// The file's name in diagnostics.
    pub shown: String,
}

/// A loader for programs that may not import files (the language server's unsaved
/// buffers, tests).
pub struct NoFiles;

impl Loader for NoFiles {
    fn load(&self, path: &str) -> Result<String, SourceError> {
        Err(format!("no file access here to read `{path}`").into())
    }
}

/// Files held in memory, for tests: `use "path"` reads the text given for that path.
#[cfg(test)]
pub(crate) struct MemoryFiles(pub &'static [(&'static str, &'static str)]);

#[cfg(test)]
impl Loader for MemoryFiles {
    fn load(&self, path: &str) -> Result<String, SourceError> {
        self.0
            .iter()
            .find(|(p, _)| *p == path)
            .map(|(_, t)| t.to_string())
            .ok_or_else(|| format!("no `{path}`").into())
    }
}

/// The standard library: module name → source.
pub const STDLIB: &[(&str, &str)] = &[("std::akr", include_str!("../../../stdlib/akr.affect"))];

/// A loaded module. The main file is borrowed from the caller, not copied (a copy of a large
/// program's syntax tree was a quarter of the memory of checking it).
pub struct Module<'a> {
    /// Its place in the program's list of modules: its file in the semantic index.
    pub id: FileId,
    pub name: String,
    pub file: Cow<'a, File>,
    pub is_main: bool,
    /// The source text (empty for the main file), for diagnostics in used files.
    pub text: String,
    /// Its `use`s that loaded: where each is written, and the module it names.
    pub uses: Vec<(Span, String)>,
    /// Its name in diagnostics (`name` but for a file the loader gave as a syntax tree).
    pub shown: String,
}

pub fn load_all<'a>(
    main: &'a File,
    loader: &dyn Loader,
    diags: &mut Vec<Diagnostic>,
    imported: &mut Vec<(String, String, Diagnostic)>,
) -> Vec<Module<'a>> {
    let mut modules = vec![Module {
        id: MAIN_FILE,
        name: "<main>".into(),
        file: Cow::Borrowed(main),
        is_main: true,
        text: String::new(),
        uses: Vec::new(),
        shown: String::new(),
    }];
    let mut loading = Loading {
        loader,
        diags,
        imported,
        modules: Vec::new(),
        stack: vec!["<main>".to_string()],
    };
    let uses = loading.visit(main, "", true);
    modules[0].uses = uses;
    modules.append(&mut loading.modules);
    for (i, m) in modules.iter_mut().enumerate() {
        m.id = FileId(i as u32);
        if m.shown.is_empty() {
            m.shown = m.name.clone();
        }
    }
    modules
}

/// What loading the used files keeps while it walks them.
struct Loading<'a, 'l> {
    loader: &'l dyn Loader,
    /// The main file's diagnostics.
    diags: &'l mut Vec<Diagnostic>,
    /// Diagnostics in used files: (file, its text, diagnostic).
    imported: &'l mut Vec<(String, String, Diagnostic)>,
    /// The used files loaded so far, each once (the main file is not among them).
    modules: Vec<Module<'a>>,
    /// The chain of files being loaded, the main file first.
    stack: Vec<String>,
}

impl Loading<'_, '_> {
    /// Loads the modules `file` uses; `text` is its source (for diagnostics in used files; the
    /// main file's diagnostics go to `diags`). Returns the uses of `file` that loaded.
    fn visit(&mut self, file: &File, text: &str, is_main: bool) -> Vec<(Span, String)> {
        let mut uses = Vec::new();
        for item in &file.items {
            let ItemKind::Use(u) = &item.kind else {
                continue;
            };
            let use_span = match &u.target {
                UseTarget::Module(p) => p.span,
                UseTarget::File(_, s) => *s,
            };
            // Relative to the file that uses it; the loader takes paths relative to the main file.
            let base = if is_main {
                ""
            } else {
                self.stack.last().map_or("", String::as_str)
            };
            let name = match &u.target {
                UseTarget::Module(p) => p.to_string_path(),
                UseTarget::File(path, _) => relative_to(base, path),
            };
            if self.stack.contains(&name) {
                uses.push((use_span, name.clone()));
                if is_main || self.stack.len() > 1 {
                    let chain = self
                        .stack
                        .iter()
                        .skip(1)
                        .chain(std::iter::once(&name))
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(" -> ");
                    let d = Diagnostic::error(
                        "E0205",
                        format!("`{name}` is imported in a cycle"),
                        use_span,
                    )
                    .with_label("this import leads back to a file already being loaded")
                    .with_note(format!("the cycle: {chain}"));
                    self.report(is_main, text, d);
                }
                continue;
            }
            // A file used from several places is read and parsed once.
            if self.modules.iter().any(|m| m.name == name) {
                uses.push((use_span, name));
                continue;
            }
            // Files are loaded depth-first: a chain of uses is as deep as it is long.
            let max = crate::syntax::depth::MAX_DEPTH;
            if self.stack.len() > max {
                let d = Diagnostic::error(
                "E0118",
                format!("nested deeper than {max} levels"),
                use_span,
            )
            .with_label(format!(
                "this is the {}th file in a chain of uses",
                self.stack.len()
            ))
            .with_help(
                "files may use each other at most 256 deep: use the files from a file higher up",
            );
                self.report(is_main, text, d);
                continue;
            }
            // A used file comes as its syntax tree (imported XML) or as text to parse; either
            // way it is loaded the same.
            let given = match self.loader.syntax(&name) {
                Some(given) => given,
                None => match source(&u.target, &name, self.loader) {
                    Ok(src) => {
                        let parsed = syntax::parse(&src);
                        for d in &parsed.diagnostics {
                            if d.is_error() {
                                self.imported.push((name.clone(), src.clone(), d.clone()));
                            }
                        }
                        Syntax {
                            file: parsed.file,
                            text: src,
                            shown: String::new(),
                        }
                    }
                    Err(e) => {
                        let (d, bad_bytes) = *e;
                        self.report(is_main, text, d);
                        // Bad bytes are shown where they are, in the used file.
                        if let Some((text, d)) = bad_bytes {
                            self.imported.push((name.clone(), text, d));
                        }
                        continue;
                    }
                },
            };
            uses.push((use_span, name.clone()));
            self.stack.push(name.clone());
            let its_uses = self.visit(&given.file, &given.text, false);
            self.stack.pop();
            self.modules.push(Module {
                id: MAIN_FILE, // numbered in `load_all` once every file is loaded
                name,
                file: Cow::Owned(given.file),
                is_main: false,
                text: given.text,
                uses: its_uses,
                shown: given.shown,
            });
        }
        uses
    }

    /// A diagnostic about the file being loaded (`text`): the main file's, or a used file's.
    fn report(&mut self, is_main: bool, text: &str, d: Diagnostic) {
        if is_main {
            self.diags.push(d);
        } else {
            let file = self.stack.last().cloned().unwrap_or_default();
            self.imported.push((file, text.to_string(), d));
        }
    }
}

/// The text of a used module: the standard library's, or a file's through the loader (`name`
/// is its path relative to the main file).
/// A diagnostic at the `use`, and for a used file with bad bytes, its text and the
/// diagnostic at them.
type UseError = Box<(Diagnostic, Option<(String, Diagnostic)>)>;

fn source(target: &UseTarget, name: &str, loader: &dyn Loader) -> Result<String, UseError> {
    match target {
        UseTarget::Module(p) => match STDLIB.iter().find(|(n, _)| *n == name) {
            Some((_, src)) => Ok((*src).to_string()),
            None => {
                let known: Vec<&str> = STDLIB.iter().map(|(n, _)| *n).collect();
                let mut d =
                    Diagnostic::error("E0207", format!("there is no module `{name}`"), p.span)
                        .with_label("unknown module")
                        .with_note(format!("the standard library has: {}", known.join(", ")));
                // Compare the last segments: `std::math` is not close to `std::akr`.
                let last = |n: &'static str| n.rsplit("::").next().unwrap_or(n);
                let wanted = name.rsplit("::").next().unwrap_or(name);
                if let Some(b) = crate::suggest::closest(wanted, known.iter().map(|n| last(n)))
                    .and_then(|b| known.iter().find(|n| last(n) == b))
                {
                    d = d.with_help(format!("did you mean `{b}`?"));
                }
                Err(Box::new((d, None)))
            }
        },
        // `use "."` or `use "dir/"` names a directory: say so, not "cannot read ``".
        UseTarget::File(path, span)
            if name.is_empty() || matches!(path.rsplit('/').next(), Some("" | "." | "..")) =>
        {
            Err(Box::new((
                Diagnostic::error("E0206", format!("cannot load `{path}`"), *span)
                    .with_label("a directory, not a regular file")
                    .with_help("name the file itself, e.g. `use \"parts.affect\";`"),
                None,
            )))
        }
        UseTarget::File(path, span) => loader.load(name).map_err(|e| {
            let at_use = Diagnostic::error("E0206", format!("cannot load `{path}`"), *span)
                .with_label(e.message.clone())
                .with_help("paths are relative to the file that uses them");
            let bad_bytes =
                e.at.as_ref()
                    .map(|(text, _)| (text.clone(), e.diagnostic()));
            Box::new((at_use, bad_bytes))
        }),
    }
}

/// `path` written in the file `base` (a path relative to the main file, or empty for the
/// main file itself), as a path relative to the main file: `lib/a.affect` using `b.affect`
/// means `lib/b.affect`; `..` goes up.
fn relative_to(base: &str, path: &str) -> String {
    if path.starts_with('/') {
        return path.to_string();
    }
    let mut parts: Vec<&str> = base.split('/').collect();
    parts.pop(); // the file name of `base`
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    parts.retain(|p| !p.is_empty());
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::{load_all, relative_to, Loader};
    use std::cell::RefCell;

    /// Files in memory, counting how often each is read.
    struct Counting {
        files: &'static [(&'static str, &'static str)],
        reads: RefCell<Vec<String>>,
    }

    impl Loader for Counting {
        fn load(&self, path: &str) -> Result<String, crate::source::SourceError> {
            self.reads.borrow_mut().push(path.to_string());
            super::MemoryFiles(self.files).load(path)
        }
    }

    #[test]
    fn a_file_used_from_several_files_is_read_once() {
        let loader = Counting {
            files: &[
                ("b.affect", "use \"d.affect\";\ntree B {\n    D()\n}\n"),
                ("c.affect", "use \"d.affect\";\ntree C {\n    D()\n}\n"),
                ("d.affect", "tree D {\n    succeed\n}\n"),
            ],
            reads: RefCell::default(),
        };
        let main = crate::syntax::parse(
            "use \"b.affect\";\nuse \"c.affect\";\nuse \"d.affect\";\nmain tree M {\n    B()\n}\n",
        );
        let (mut diags, mut imported) = (Vec::new(), Vec::new());
        let modules = load_all(&main.file, &loader, &mut diags, &mut imported);
        assert!(
            diags.is_empty() && imported.is_empty(),
            "{diags:?} {imported:?}"
        );
        let names: Vec<&str> = modules.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["<main>", "d.affect", "b.affect", "c.affect"]);
        assert_eq!(*loader.reads.borrow(), ["b.affect", "d.affect", "c.affect"]);
        // Every use still names its module.
        assert_eq!(modules[0].uses.len(), 3);
        assert_eq!(modules[3].uses[0].1, "d.affect");
    }

    #[test]
    fn paths_are_relative_to_the_using_file() {
        assert_eq!(relative_to("", "lib/grid.affect"), "lib/grid.affect");
        assert_eq!(
            relative_to("lib/grid.affect", "cells.affect"),
            "lib/cells.affect"
        );
        assert_eq!(relative_to("lib/a.affect", "../b.affect"), "b.affect");
        assert_eq!(relative_to("a.affect", "../b.affect"), "../b.affect");
        assert_eq!(
            relative_to("lib/a.affect", "./x/b.affect"),
            "lib/x/b.affect"
        );
    }
}
