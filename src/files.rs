//! File access for the commands. Reading and writing follow one set of rules, kept in the
//! `affect-files` crate (shared with the language server and the runtime); this module adds
//! the loader for `use`d files and how a file that cannot be read is reported.

pub use affect_files::{read_source, write_atomic, write_output};
use std::path::Path;

/// Loads the files a program `use`s, relative to the program's own directory.
pub struct FileLoader {
    dir: std::path::PathBuf,
}

impl FileLoader {
    pub fn beside(file: &Path) -> FileLoader {
        FileLoader {
            dir: file.parent().map(Path::to_path_buf).unwrap_or_default(),
        }
    }
}

impl affect_compiler::sema::Loader for FileLoader {
    fn load(&self, path: &str) -> Result<String, affect_compiler::source::SourceError> {
        // `use "."` resolves to the empty path: the directory itself, refused as one.
        let full = self.dir.join(path);
        if full.as_os_str().is_empty() {
            return read_source(Path::new("."));
        }
        read_source(&full)
    }
}
