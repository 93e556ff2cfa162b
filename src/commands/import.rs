//! `affect import FILE.xml [-o OUT.affect]`: a Groot / BehaviorTree.CPP XML file as `.affect`.

use super::report::Reporter;
use super::{FAILED, OK, USAGE};
use crate::{files, Format};
use affect_compiler::groot::{self, IncludeError, IncludeLoader};
use affect_compiler::Diagnostic;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct ImportArgs {
    /// The XML file (BehaviorTree.CPP 3 or 4, any Groot version).
    #[arg(value_name = "FILE.xml")]
    pub file: PathBuf,
    /// Write the `.affect` text here (atomically) instead of to standard output.
    #[arg(short, long, value_name = "OUT.affect")]
    pub output: Option<PathBuf>,
    /// How to print diagnostics.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// Reads `<include>`d files relative to the including file, as BehaviorTree.CPP does.
pub struct IncludeFiles;

impl IncludeLoader for IncludeFiles {
    fn load(&mut self, from: &str, path: &str) -> Result<(String, String), IncludeError> {
        let base = Path::new(from).parent().unwrap_or(Path::new(""));
        let full = base.join(path);
        // The one reader of the toolchain: only regular files of at most 64 MiB are read
        // (`/dev/urandom`, a FIFO or a directory would read forever, block, or fail late).
        let text = files::read_source(&full).map_err(|e| match e.code {
            "E0801" | "E0802" => IncludeError::Refused(e.message),
            _ => IncludeError::Unreadable(e.message),
        })?;
        Ok((full.display().to_string(), text))
    }
}

/// An XML file imported in memory (`affect run FILE.xml`): the `.affect` text, or the
/// import's diagnostics (with the names and texts of the files they are about) when it has
/// errors.
pub fn import_in_memory(path: &Path) -> Result<String, Vec<(String, String, Vec<Diagnostic>)>> {
    let name = path.display().to_string();
    let text = files::read_source(path).map_err(|e| {
        let text = e.at.as_ref().map(|(t, _)| t.clone()).unwrap_or_default();
        vec![(name.clone(), text, vec![e.diagnostic()])]
    })?;
    let imported = groot::import(&text, &name, &mut IncludeFiles);
    if imported.has_errors() {
        let mut out = vec![(name, text, imported.diagnostics)];
        for f in imported.included {
            out.push((f.name, f.text, f.diagnostics));
        }
        return Err(out);
    }
    Ok(imported.text())
}

/// Loads the files an imported program `use`s: an `<include>`d XML file (the import wrote
/// `use "child.affect"` for `<include path="child.xml"/>`) is imported in memory too; a
/// `.affect` file without an XML file of the same name is read as it is.
pub struct ImportingLoader {
    dir: PathBuf,
}

impl ImportingLoader {
    pub fn beside(file: &Path) -> ImportingLoader {
        ImportingLoader {
            dir: file.parent().map(Path::to_path_buf).unwrap_or_default(),
        }
    }
}

impl ImportingLoader {
    /// The file `load(path)` reads, and whether it is XML (imported) rather than affect.
    pub fn file_of(&self, path: &str) -> (PathBuf, bool) {
        let full = self.dir.join(path);
        let xml = match path.strip_suffix(".affect") {
            Some(stem) => self.dir.join(format!("{stem}.xml")),
            None => full.clone(),
        };
        let looks_xml = xml.exists()
            && (xml != full
                || files::read_source(&full).is_ok_and(|t| t.trim_start().starts_with('<')));
        if looks_xml {
            (xml, true)
        } else {
            (full, false)
        }
    }
}

impl affect_compiler::sema::Loader for ImportingLoader {
    fn behavior_tree_xml(&self) -> bool {
        true
    }

    fn load(&self, path: &str) -> Result<String, affect_compiler::source::SourceError> {
        let (xml, looks_xml) = self.file_of(path);
        if !looks_xml {
            return files::read_source(&xml);
        }
        import_in_memory(&xml).map_err(|failed| {
            let errors: Vec<String> = failed
                .iter()
                .flat_map(|(f, _, ds)| {
                    ds.iter()
                        .filter(|d| d.is_error())
                        .map(move |d| format!("{f}: {} {}", d.code, d.message))
                })
                .collect();
            format!("`{}` does not import: {}", xml.display(), errors.join("; ")).into()
        })
    }
}

pub fn run(args: &ImportArgs) -> u8 {
    if args.format == Format::Json && args.output.is_none() {
        eprintln!("error: `--format json` prints the diagnostics to standard output; write the result with `-o FILE`");
        return USAGE;
    }
    let text = match files::read_source(&args.file) {
        Ok(t) => t,
        Err(e) => {
            super::report::unreadable(&args.file, &e);
            return USAGE;
        }
    };
    let name = args.file.display().to_string();
    let imported = groot::import(&text, &name, &mut IncludeFiles);
    let mut reporter = Reporter::new(args.format);
    reporter.add(&name, &text, &imported.diagnostics);
    for f in &imported.included {
        reporter.add(&f.name, &f.text, &f.diagnostics);
    }
    let failed = imported.has_errors();
    reporter.finish(1 + imported.included.len());
    if failed {
        eprintln!("affect import: `{name}` was not imported");
        return FAILED;
    }
    if let Err(e) = files::write_output(args.output.as_deref(), &imported.text()) {
        eprintln!("error: {e}");
        return USAGE;
    }
    if let Some(out) = &args.output {
        files::tell_written(out);
    }
    let uses = included_uses(&imported.file);
    match &args.output {
        // Each `<include>`d file becomes the `.affect` file its `use` names, beside the
        // output, as the include was beside the input.
        Some(out) => import_included(&args.file, out, &uses, &mut vec![args.file.clone()]),
        None if !uses.is_empty() => {
            eprintln!(
                "note: the program uses {}; write it with `-o OUT.affect` to import the included files beside it",
                uses.iter().map(|u| format!("`{u}`")).collect::<Vec<_>>().join(", ")
            );
            OK
        }
        None => OK,
    }
}

/// The `use "FILE.affect"` paths of an imported file: one per `<include>`.
fn included_uses(file: &affect_compiler::syntax::ast::File) -> Vec<String> {
    use affect_compiler::syntax::ast::{ItemKind, UseTarget};
    file.items
        .iter()
        .filter_map(|item| match &item.kind {
            ItemKind::Use(u) => match &u.target {
                UseTarget::File(path, _) => Some(path.clone()),
                UseTarget::Module(_) => None,
            },
            _ => None,
        })
        .collect()
}

/// Imports the XML file behind each `use "X.affect"` of `from` (its `X.xml`, relative to
/// `from`) into `X.affect` relative to `out`, and so on down the includes. `seen` breaks
/// include cycles (BehaviorTree.CPP refuses them; the import already reported one).
fn import_included(from: &Path, out: &Path, uses: &[String], seen: &mut Vec<PathBuf>) -> u8 {
    let (in_dir, out_dir) = (
        from.parent().unwrap_or(Path::new("")),
        out.parent().unwrap_or(Path::new("")),
    );
    for u in uses {
        let Some(stem) = u.strip_suffix(".affect") else {
            continue;
        };
        let xml = in_dir.join(format!("{stem}.xml"));
        if seen.contains(&xml) {
            continue;
        }
        seen.push(xml.clone());
        let text = match files::read_source(&xml) {
            Ok(t) => t,
            Err(e) => {
                super::report::unreadable(&xml, &e);
                return USAGE;
            }
        };
        // Its diagnostics were reported with the including file.
        let imported = groot::import(&text, &xml.display().to_string(), &mut IncludeFiles);
        let target = out_dir.join(u);
        if let Some(dir) = target.parent() {
            if let Err(e) = std::fs::create_dir_all(dir) {
                eprintln!("error: cannot create `{}`: {e}", dir.display());
                return USAGE;
            }
        }
        if let Err(e) = files::write_output(Some(&target), &imported.text()) {
            eprintln!("error: {e}");
            return USAGE;
        }
        files::tell_written(&target);
        let code = import_included(&xml, &target, &included_uses(&imported.file), seen);
        if code != OK {
            return code;
        }
    }
    OK
}
