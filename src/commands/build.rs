//! `affect build FILE.affect --emit KIND [-o OUT]`: the artefacts a program compiles to.

use super::report::Reporter;
use super::xml_in::{self, XmlProgram};
use super::{FAILED, OK, USAGE};
use crate::{files, Format};
use affect_compiler::groot::{self, Dialect};
use clap::ValueEnum;
use std::path::{Path, PathBuf};

/// What `affect build` writes. New kinds are new variants here and a branch in `run`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Emit {
    /// BehaviorTree.CPP 4 / Groot 2 XML (`BTCPP_format="4"`, compact form).
    Groot,
    /// BehaviorTree.CPP 3 / Groot 1 XML (built-ins compact, custom nodes explicit).
    GrootV3,
    /// The tick program, readably: slots, the node table in uid order, code.
    Ir,
}

#[derive(clap::Args)]
pub struct BuildArgs {
    /// The program: `.affect` source, or Groot / BehaviorTree.CPP XML (checked as imported).
    #[arg(value_name = "FILE.affect|FILE.xml")]
    pub file: PathBuf,
    /// What to produce.
    #[arg(long, value_enum)]
    pub emit: Emit,
    /// Write the result here (atomically) instead of to standard output. For XML, a directory
    /// (`DIR/`) takes `FILE.xml`, and every `use`d file's XML is written too, at its path
    /// relative to the result.
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// How to print diagnostics.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// The program read and checked: `.affect` source, or XML imported (`xml_in`).
struct Source {
    name: String,
    text: String,
    file: affect_compiler::syntax::ast::File,
    analysis: affect_compiler::sema::Analysis,
}

/// Reads and checks the file; `Err` is the exit status, the problem told.
fn read(args: &BuildArgs) -> Result<(Source, Option<XmlProgram>), u8> {
    let mut reporter = Reporter::new(args.format);
    let src = match files::read_source(&args.file) {
        Ok(s) => s,
        Err(e) => {
            super::report::unreadable(&args.file, &e);
            return Err(USAGE);
        }
    };
    let name = args.file.display().to_string();
    if xml_in::is_xml(&args.file) {
        let program = XmlProgram::import(&args.file, src);
        let Some(analysis) = program.check() else {
            let failed = program.import_diagnostics();
            for (file, text, diags) in &failed {
                reporter.add(file, text, diags);
            }
            reporter.finish(failed.len());
            eprintln!("affect build: `{name}` was not imported; nothing written");
            return Err(FAILED);
        };
        let source = Source {
            name,
            text: program.text.clone(),
            file: program.imported.file.clone(),
            analysis,
        };
        return Ok((source, Some(program)));
    }
    let checked = affect_compiler::check_text(&src, &files::FileLoader::beside(&args.file));
    if !checked.parses {
        reporter.add(&name, &src, &checked.analysis.diagnostics);
        reporter.finish(1);
        eprintln!("affect build: `{name}` has syntax errors; nothing written");
        return Err(FAILED);
    }
    let source = Source {
        name,
        text: src,
        file: checked.file,
        analysis: checked.analysis,
    };
    Ok((source, None))
}

pub fn run(args: &BuildArgs) -> u8 {
    if args.format == Format::Json && args.output.is_none() {
        eprintln!("error: `--format json` prints the diagnostics to standard output; write the result with `-o FILE`");
        return USAGE;
    }
    let mut reporter = Reporter::new(args.format);
    let (source, xml) = match read(args) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let Source {
        name,
        text: src,
        file,
        analysis,
    } = source;
    // A program that does not check is not exported: its XML would be refused by
    // BehaviorTree.CPP (a port of the wrong type, a misspelt argument) or run otherwise.
    let errors = affect_compiler::diagnostic::has_errors(&analysis.diagnostics)
        || analysis
            .imported_diagnostics
            .iter()
            .any(|(_, _, d)| d.is_error());
    if errors || args.emit == Emit::Ir {
        reporter.add(&name, &src, &analysis.diagnostics);
        for (f, text, d) in &analysis.imported_diagnostics {
            reporter.add(f, text, std::slice::from_ref(d));
        }
    }
    if errors {
        reporter.finish(1);
        eprintln!("affect build: `{name}` does not check; nothing written");
        return FAILED;
    }
    if args.emit == Emit::Ir {
        let Some(program) = analysis.program else {
            reporter.finish(1);
            eprintln!("affect build: nothing written");
            return FAILED;
        };
        reporter.finish(1);
        let text = affect_compiler::ir::print::print_program(&program);
        return match files::write_output(args.output.as_deref(), &text) {
            Ok(()) => {
                if let Some(out) = &args.output {
                    files::tell_written(out);
                }
                OK
            }
            Err(e) => {
                eprintln!("error: {e}");
                USAGE
            }
        };
    }
    let dialect = if args.emit == Emit::Groot {
        Dialect::V4
    } else {
        Dialect::V3
    };
    // Each `use`d file is an `<include>`: exported too, its trees called as SubTrees.
    let program = match &xml {
        Some(x) => groot::export_program(&file, dialect, &x.loader()),
        None => groot::export_program(&file, dialect, &files::FileLoader::beside(&args.file)),
    };
    reporter.add(&name, &src, &program.load_diagnostics);
    reporter.add(&name, &src, &program.main.diagnostics);
    for (file, text, d) in &program.used_load_diagnostics {
        reporter.add(file, text, std::slice::from_ref(d));
    }
    let dir = args.file.parent().unwrap_or(Path::new(""));
    for f in &program.used {
        let used = dir.join(&f.path).display().to_string();
        reporter.add(&used, &f.text, &f.exported.diagnostics);
    }
    let failed = reporter.errors > 0;
    reporter.finish(1 + program.used.len());
    if failed {
        eprintln!("affect build: nothing written");
        return FAILED;
    }
    let Some(out) = args.output.as_deref() else {
        if !program.used.is_empty() {
            let names: Vec<String> = program
                .used
                .iter()
                .map(|f| format!("`{}`", f.path))
                .collect();
            eprintln!(
                "note: the program uses {}; write it with `-o DIR/` to write their XML files beside it",
                names.join(", ")
            );
        }
        return match files::write_output(None, &program.main.xml) {
            Ok(()) => OK,
            Err(e) => {
                eprintln!("error: {e}");
                USAGE
            }
        };
    };
    write_program(&args.file, out, &program)
}

/// Writes the main file's XML to `out` (a directory: `out/NAME.xml`) and each used file's at
/// its path relative to it, as the `use` was relative to the program.
fn write_program(file: &Path, out: &Path, program: &groot::ExportedProgram) -> u8 {
    let is_dir = out.is_dir() || out.as_os_str().to_string_lossy().ends_with('/');
    let main_out = if is_dir {
        let stem = file.file_stem().unwrap_or_default().to_string_lossy();
        out.join(format!("{stem}.xml"))
    } else {
        out.to_path_buf()
    };
    let dir = main_out.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut writes = vec![(main_out, &program.main.xml)];
    writes.extend(
        program
            .used
            .iter()
            .map(|f| (dir.join(&f.xml_path), &f.exported.xml)),
    );
    for (path, xml) in writes {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            if let Err(e) = std::fs::create_dir_all(parent) {
                eprintln!("error: cannot create `{}`: {e}", parent.display());
                return USAGE;
            }
        }
        if let Err(e) = files::write_output(Some(&path), xml) {
            eprintln!("error: {e}");
            return USAGE;
        }
        files::tell_written(&path);
    }
    OK
}
