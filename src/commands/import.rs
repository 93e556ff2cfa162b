//! `affect import FILE.xml [-o OUT.affect]`: a Groot / BehaviorTree.CPP XML file as `.affect`.

use super::report::Reporter;
use super::xml_in::{self, XmlProgram};
use super::{FAILED, OK, USAGE};
use crate::{files, Format};
use affect_compiler::groot;
use std::collections::HashMap;
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
    let program = XmlProgram::import(&args.file, text);
    let (name, imported) = (&program.name, &program.imported);
    let mut reporter = Reporter::new(args.format);
    for (file, text, diags) in program.import_diagnostics() {
        reporter.add(&file, &text, &diags);
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
        Some(out) => import_included(
            &args.file,
            out,
            &uses,
            &modules(imported),
            &mut vec![args.file.clone()],
        ),
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

/// The included files the import imported, by their paths.
fn modules(imported: &groot::Imported) -> HashMap<PathBuf, &groot::ImportedModule> {
    imported
        .modules
        .iter()
        .map(|m| (xml_in::lexical(Path::new(&m.name)), m))
        .collect()
}

/// Writes the `.affect` text of the XML file behind each `use "X.affect"` of `from` (its
/// `X.xml`, relative to `from`, imported with the program) into `X.affect` relative to `out`,
/// and so on down the includes. `seen` breaks include cycles (BehaviorTree.CPP refuses them;
/// the import already reported one).
fn import_included(
    from: &Path,
    out: &Path,
    uses: &[String],
    modules: &HashMap<PathBuf, &groot::ImportedModule>,
    seen: &mut Vec<PathBuf>,
) -> u8 {
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
        // An include that was not read (W0403 at the include) has no module.
        let Some(module) = modules.get(&xml_in::lexical(&xml)) else {
            eprintln!(
                "error: `{}` was not read; `{u}` is not written",
                xml.display()
            );
            return USAGE;
        };
        let target = out_dir.join(u);
        if let Some(dir) = target.parent() {
            if let Err(e) = std::fs::create_dir_all(dir) {
                eprintln!("error: cannot create `{}`: {e}", dir.display());
                return USAGE;
            }
        }
        let text = affect_compiler::fmt::format_file(&module.file, &[], None);
        if let Err(e) = files::write_output(Some(&target), &text) {
            eprintln!("error: {e}");
            return USAGE;
        }
        files::tell_written(&target);
        let code = import_included(&xml, &target, &included_uses(&module.file), modules, seen);
        if code != OK {
            return code;
        }
    }
    OK
}
