//! File access for the commands: reading sources, and writing files atomically (a temporary
//! file in the same directory, then a rename), so a crash never leaves half a file.

use std::io::Write;
use std::path::Path;

pub fn read_source(path: &Path) -> Result<String, String> {
    let bytes =
        std::fs::read(path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "cannot read `{}`: not UTF-8 text (invalid byte at offset {})",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })
}

pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), String> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(contents)?;
        f.sync_all()?;
        if let Ok(meta) = std::fs::metadata(path) {
            std::fs::set_permissions(&tmp, meta.permissions())?;
        }
        std::fs::rename(&tmp, path)
    })();
    result.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("cannot write `{}`: {e}", path.display())
    })
}

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
    fn load(&self, path: &str) -> Result<String, String> {
        read_source(&self.dir.join(path))
    }
}

/// Writes a command's result: to the file (atomically) when one is given, else to standard
/// output.
pub fn write_output(path: Option<&Path>, text: &str) -> Result<(), String> {
    match path {
        Some(p) => write_atomic(p, text.as_bytes()),
        None => {
            use std::io::Write as _;
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())
                .and_then(|()| out.flush())
                .map_err(|e| format!("cannot write to standard output: {e}"))
        }
    }
}
