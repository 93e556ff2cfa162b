//! The program `affect run` runs: its file read (Groot / BehaviorTree.CPP XML imported in
//! memory) and checked, with the files it was read from (what `--watch` watches).

use super::report::Reporter;
use super::xml_in;
use super::{FAILED, USAGE};
use crate::{files, Format};
use affect_compiler::sema::Analysis;
use affect_compiler::syntax::ast::File;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// A program read and checked: its name for messages, its source, its syntax tree (what the
/// Groot exporter works on), what the checker made, and the files it was read from (the
/// program first, then those it `use`s), and the SHA-256 of the texts checked, in the order
/// read (what names the program in a record, `--record`).
pub struct Loaded {
    pub name: String,
    pub src: String,
    pub syntax: File,
    pub analysis: Analysis,
    pub files: Vec<PathBuf>,
    pub sha256: String,
}

impl Loaded {
    /// Makes each value the command line gives as text (`--bb`, `--leaf-out`) one of the
    /// program's strings, so a string or label the program never spells can be held (and
    /// the trace shows it). A replay interns its record's values in the same order, so the
    /// symbols are the same.
    pub fn intern<'v>(&mut self, values: impl IntoIterator<Item = &'v str>) {
        if let Some(p) = &mut self.analysis.program {
            for v in values {
                p.intern(v);
            }
        }
    }

    /// A reporter holding the program's diagnostics and those of the files it `use`s; the
    /// command adds what its run finds, then finishes it.
    pub fn reporter(&self) -> Reporter {
        let mut reporter = Reporter::new(Format::Human);
        reporter.add(&self.name, &self.src, &self.analysis.diagnostics);
        for (file, text, d) in &self.analysis.imported_diagnostics {
            reporter.add(file, text, std::slice::from_ref(d));
        }
        reporter
    }
}

/// A loader that notes the files it reads (what `--watch` watches).
struct Noting<L> {
    inner: L,
    /// The file the inner loader reads for a `use`d path.
    file_of: Box<dyn Fn(&str) -> PathBuf>,
    read: std::cell::RefCell<Vec<PathBuf>>,
    /// The texts read, hashed.
    texts: std::cell::RefCell<Sha256>,
}

impl<L> Noting<L> {
    fn new(file: &Path, src: &str, inner: L, file_of: Box<dyn Fn(&str) -> PathBuf>) -> Noting<L> {
        Noting {
            inner,
            file_of,
            read: std::cell::RefCell::new(vec![file.to_path_buf()]),
            texts: std::cell::RefCell::new(Sha256::new().chain_update(text_bytes(src))),
        }
    }

    /// The SHA-256 of every text read, hex.
    fn sha256(&self) -> String {
        let digest = self.texts.borrow().clone().finalize();
        digest.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// A text as hashed: its length first, so two texts never hash as their concatenation.
fn text_bytes(text: &str) -> Vec<u8> {
    let mut b = (text.len() as u64).to_le_bytes().to_vec();
    b.extend_from_slice(text.as_bytes());
    b
}

impl<L: affect_compiler::sema::Loader> affect_compiler::sema::Loader for Noting<L> {
    fn behavior_tree_xml(&self) -> bool {
        self.inner.behavior_tree_xml()
    }

    fn load(&self, path: &str) -> Result<String, affect_compiler::source::SourceError> {
        self.read.borrow_mut().push((self.file_of)(path));
        let text = self.inner.load(path)?;
        self.texts.borrow_mut().update(text_bytes(&text));
        Ok(text)
    }
}

/// Reads the file and checks it. Groot / BehaviorTree.CPP XML runs as its import would (its
/// `<include>`s imported too), straight from the XML (`xml_in`). `Err` is the exit status,
/// the problem already told.
pub fn load(file: &Path) -> Result<Loaded, u8> {
    let src = files::read_source(file).map_err(|e| {
        // Coded, and shown in the file when its bytes are at fault (E0803, E0804).
        super::report::unreadable(file, &e);
        USAGE
    })?;
    if xml_in::is_xml(file) {
        return load_xml(file, src);
    }
    let dir = file.parent().map(PathBuf::from).unwrap_or_default();
    let loader = Noting::new(
        file,
        &src,
        files::FileLoader::beside(file),
        Box::new(move |p| dir.join(p)),
    );
    let (syntax, analysis) = affect_compiler::check_source_keeping_syntax(&src, &loader);
    Ok(Loaded {
        name: file.display().to_string(),
        src,
        syntax,
        analysis,
        sha256: loader.sha256(),
        files: loader.read.into_inner(),
    })
}

/// An XML program: read once, imported with its includes, and checked as imported.
fn load_xml(file: &Path, src: String) -> Result<Loaded, u8> {
    let program = xml_in::XmlProgram::import(file, src);
    let Some(analysis) = program.check() else {
        let failed = program.import_diagnostics();
        let mut reporter = Reporter::new(Format::Human);
        for (file, text, diags) in &failed {
            reporter.add(file, text, diags);
        }
        reporter.finish(failed.len());
        eprintln!("affect run: `{}` was not imported", file.display());
        return Err(FAILED);
    };
    let mut texts = Sha256::new().chain_update(text_bytes(&program.text));
    let mut read = vec![file.to_path_buf()];
    for (path, text) in &program.included {
        texts.update(text_bytes(text));
        read.push(path.clone());
    }
    let digest = texts.finalize();
    Ok(Loaded {
        name: program.name,
        src: program.text,
        syntax: program.imported.file,
        analysis,
        sha256: digest.iter().map(|b| format!("{b:02x}")).collect(),
        files: read,
    })
}
