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

/// Says on stderr what a command wrote, with its size: `wrote nav.html (141 KB)`. On stderr,
/// so that what a command prints on stdout stays clean for a pipe. A file that cannot be
/// looked at (a device, since removed) is named without its size.
pub fn tell_written(path: &Path) {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => eprintln!("wrote {} ({})", path.display(), size(m.len())),
        _ => eprintln!("wrote {}", path.display()),
    }
}

/// A size as people read it: `812 bytes`, `4.2 KB`, `141 KB`, `185 MB` (1 KB = 1024 bytes),
/// to two or three significant digits.
pub fn size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes < 1024 {
        return match bytes {
            1 => "1 byte".to_string(),
            n => format!("{n} bytes"),
        };
    }
    let mut x = bytes as f64 / 1024.0;
    let mut unit = 0;
    while x >= 1023.5 && unit + 1 < UNITS.len() {
        x /= 1024.0;
        unit += 1;
    }
    if x < 9.95 {
        format!("{x:.1} {}", UNITS[unit])
    } else {
        format!("{x:.0} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::size;

    #[test]
    fn sizes_read_as_people_say_them() {
        assert_eq!(size(0), "0 bytes");
        assert_eq!(size(1), "1 byte");
        assert_eq!(size(1023), "1023 bytes");
        assert_eq!(size(1024), "1.0 KB");
        assert_eq!(size(4300), "4.2 KB");
        assert_eq!(size(144_384), "141 KB");
        assert_eq!(size(1024 * 1024 - 1), "1.0 MB");
        assert_eq!(size(185 * 1024 * 1024), "185 MB");
        assert_eq!(size(3 << 30), "3.0 GB");
    }
}
