//! A program with the files it `use`s, as BehaviorTree.CPP reads it: each `use "x.affect"` is
//! an `<include path="x.xml"/>`, so every used file is exported too, and the trees and nodes
//! they declare are called by name (a tree from a used file is a `<SubTree>`), as
//! BehaviorTree.CPP finds them through the include.

use super::{export_with, Exported};
use crate::diagnostic::Diagnostic;
use crate::groot::Dialect;
use crate::sema::modules::{self, Loader, Module, STDLIB};
use crate::syntax::ast::File;
use std::collections::HashMap;

/// One `use`d file, exported.
#[derive(Debug)]
pub struct ExportedFile {
    /// Its path as the checker names it: relative to the main file (`child/x.affect`).
    pub path: String,
    /// Where its XML goes, relative to the main file's XML (`child/x.xml`).
    pub xml_path: String,
    /// Its `.affect` text (the export's diagnostics point into it).
    pub text: String,
    pub exported: Exported,
}

/// The main file's export and every used file's, in the order the checker loads them.
#[derive(Debug)]
pub struct ExportedProgram {
    pub main: Exported,
    pub used: Vec<ExportedFile>,
    /// Files that could not be loaded, with the main file (E0206, E0205, ...).
    pub load_diagnostics: Vec<Diagnostic>,
    /// The same in used files: the file's name, its text, the diagnostic.
    pub used_load_diagnostics: Vec<(String, String, Diagnostic)>,
}

/// Exports `main` and each file it uses (through `loader`, as the checker loads them) in
/// `dialect`, each with the declarations of the files it reaches through its own uses.
pub fn export_program(main: &File, dialect: Dialect, loader: &dyn Loader) -> ExportedProgram {
    let mut load_diagnostics = Vec::new();
    let mut used_load_diagnostics = Vec::new();
    let modules = modules::load_all(
        main,
        loader,
        &mut load_diagnostics,
        &mut used_load_diagnostics,
    );
    let by_name: HashMap<&str, usize> = modules
        .iter()
        .enumerate()
        .map(|(i, m)| (m.name.as_str(), i))
        .collect();
    let export = |m: &Module| {
        let reached: Vec<&File> = reachable(m, &modules, &by_name)
            .into_iter()
            .map(|i| &*modules[i].file)
            .collect();
        export_with(&m.file, dialect, &reached)
    };
    let main_export = export(&modules[0]);
    let used = modules
        .iter()
        .skip(1)
        .filter(|m| !STDLIB.iter().any(|(n, _)| *n == m.name))
        .map(|m| ExportedFile {
            path: m.name.clone(),
            xml_path: match m.name.strip_suffix(".affect") {
                Some(stem) => format!("{stem}.xml"),
                None => format!("{}.xml", m.name),
            },
            text: m.text.clone(),
            exported: export(m),
        })
        .collect();
    ExportedProgram {
        main: main_export,
        used,
        load_diagnostics,
        used_load_diagnostics,
    }
}

/// The modules `m` reaches through its uses (not itself), each once; a worklist, so chains
/// of any length (the loader bounds them) and cycles are fine.
fn reachable(m: &Module, modules: &[Module], by_name: &HashMap<&str, usize>) -> Vec<usize> {
    let mut seen = vec![false; modules.len()];
    seen[m.id.index()] = true;
    let mut out = Vec::new();
    let mut todo: Vec<&str> = m.uses.iter().map(|(_, n)| n.as_str()).collect();
    while let Some(name) = todo.pop() {
        let Some(&i) = by_name.get(name) else {
            continue;
        };
        if std::mem::replace(&mut seen[i], true) {
            continue;
        }
        out.push(i);
        todo.extend(modules[i].uses.iter().map(|(_, n)| n.as_str()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sema::modules::MemoryFiles as Files;

    #[test]
    fn trees_of_used_files_are_subtrees_and_each_file_is_written() {
        let main = crate::syntax::parse(
            "use \"lib/a.affect\";\nmain tree Main {\n    sequence {\n        Approach()\n        Dock()\n    }\n}\n",
        )
        .file;
        let files = Files(&[
            (
                "lib/a.affect",
                "use \"b.affect\";\ntree Approach {\n    Dock()\n}\n",
            ),
            ("lib/b.affect", "action Dock();\n"),
        ]);
        let out = export_program(&main, Dialect::V4, &files);
        assert!(
            out.load_diagnostics.is_empty(),
            "{:?}",
            out.load_diagnostics
        );
        let xml = &out.main.xml;
        assert!(xml.contains("<include path=\"lib/a.xml\"/>"), "{xml}");
        assert!(xml.contains("<SubTree ID=\"Approach\"/>"), "{xml}");
        // Declared in a file reached through `lib/a.affect`: no inferred model here.
        assert!(!xml.contains("_inferred"), "{xml}");
        let paths: Vec<&str> = out.used.iter().map(|f| f.xml_path.as_str()).collect();
        assert_eq!(paths, vec!["lib/b.xml", "lib/a.xml"]);
        let a = &out.used[1].exported.xml;
        assert!(
            a.contains("<include path=\"b.xml\"/>") && a.contains("<Dock/>"),
            "{a}"
        );
        assert!(!a.contains("_inferred"), "{a}");
    }

    #[test]
    fn a_missing_used_file_is_reported() {
        let main = crate::syntax::parse("use \"gone.affect\";\ntree T {\n    succeed\n}\n").file;
        let out = export_program(&main, Dialect::V4, &Files(&[]));
        let codes: Vec<&str> = out.load_diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes, vec!["E0206"]);
        assert!(out.used.is_empty());
    }
}
