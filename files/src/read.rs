//! Reading: only regular files, bounded, and (for source) checked as text.

use affect_compiler::source::{self, SourceError, MAX_SOURCE_BYTES};
use std::fs::{File, Metadata};
use std::io::Read;
use std::path::Path;

/// A source file's text: a regular file of at most `MAX_SOURCE_BYTES`, UTF-8 without NUL.
pub fn read_source(path: &Path) -> Result<String, SourceError> {
    log_read(path);
    let bytes = read_bytes(path, MAX_SOURCE_BYTES)?;
    source::decode(&path.display().to_string(), bytes)
}

/// With `AFFECT_LOG_READS` set, says on standard error which source file is read, each time
/// one is: how a test through the binary counts the reads of a command (`affect run` reads
/// each file of a program once, `tests/cli_check.rs`).
fn log_read(path: &Path) {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *ON.get_or_init(|| std::env::var_os("AFFECT_LOG_READS").is_some()) {
        eprintln!("affect: reading {}", path.display());
    }
}

/// The bytes of a regular file of at most `limit` bytes. A device, FIFO, socket or
/// directory is E0801, a larger file E0802, any other failure E0805; nothing is read from
/// them.
pub fn read_bytes(path: &Path, limit: u64) -> Result<Vec<u8>, SourceError> {
    let (file, meta) = open_regular(path)?;
    let cannot = |e: std::io::Error| cannot_read(path, e);
    let too_large = || {
        SourceError::new(
            "E0802",
            format!(
                "`{}` is larger than {} MiB: files this large are refused",
                path.display(),
                limit / (1024 * 1024)
            ),
        )
    };
    if meta.len() > limit {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // The file may grow while it is read: never read more than the limit allows.
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

/// A regular file opened for reading, with its metadata, for readers that stream a file too
/// large to hold (a trace): a directory, device, FIFO or socket is E0801, any other failure
/// E0805.
pub fn open_regular(path: &Path) -> Result<(File, Metadata), SourceError> {
    let cannot = |e: std::io::Error| cannot_read(path, e);
    let file = open_without_blocking(path).map_err(cannot)?;
    // The kind is asked of the opened file, so nothing can swap the path in between.
    let meta = file.metadata().map_err(cannot)?;
    if !meta.is_file() {
        return Err(SourceError::new(
            "E0801",
            format!(
                "`{}` is {}, not a regular file: only regular files are read",
                path.display(),
                kind(&meta)
            ),
        ));
    }
    Ok((file, meta))
}

fn cannot_read(path: &Path, e: std::io::Error) -> SourceError {
    SourceError::new("E0805", format!("cannot read `{}`: {e}", path.display()))
}

/// Opens for reading without waiting for a writer: opening a FIFO would otherwise block
/// until someone writes to it.
fn open_without_blocking(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

/// What a file that is not a regular file is, for messages.
pub(crate) fn kind(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_symlink() {
        return "a symbolic link";
    }
    "a special file"
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A new folder of the test's own (removed with the guard).
    fn scratch(name: &str) -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix(&format!("affect-files-read-{name}-"))
            .tempdir()
            .unwrap()
    }

    #[test]
    fn a_regular_file_is_read() {
        let tmp = scratch("regular");
        let dir = tmp.path();
        std::fs::write(dir.join("a.affect"), "tree T() { succeed }\n").unwrap();
        assert_eq!(
            read_source(&dir.join("a.affect")).unwrap(),
            "tree T() { succeed }\n"
        );
    }

    #[test]
    fn devices_and_directories_are_e0701() {
        for p in ["/dev/zero", "/dev/null", "."] {
            let e = read_source(Path::new(p)).unwrap_err();
            assert_eq!(e.code, "E0801", "{p}: {e}");
        }
        assert!(read_source(Path::new("/dev/zero"))
            .unwrap_err()
            .message
            .contains("a character device"));
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_waiting_for_a_writer() {
        let tmp = scratch("fifo");
        let dir = tmp.path();
        let fifo = dir.join("pipe");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read_source(&fifo).unwrap_err();
        assert_eq!(e.code, "E0801");
        assert!(e.message.contains("a FIFO"), "{e}");
    }

    #[test]
    fn a_file_over_the_limit_is_e0702_and_a_missing_one_e0705() {
        let tmp = scratch("limit");
        let dir = tmp.path();
        std::fs::write(dir.join("big"), vec![b'a'; 2000]).unwrap();
        assert_eq!(
            read_bytes(&dir.join("big"), 1000).unwrap_err().code,
            "E0802"
        );
        assert_eq!(read_bytes(&dir.join("big"), 2000).unwrap().len(), 2000);
        let e = read_source(&dir.join("missing")).unwrap_err();
        assert_eq!(e.code, "E0805");
        assert!(e.message.starts_with("cannot read `"), "{e}");
    }
}
