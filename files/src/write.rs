//! Writing: regular files are replaced atomically and durably; symlinks are followed;
//! devices and FIFOs are written into. Every error is returned, never dropped.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// What `path` means for writing: the file a chain of symbolic links leads to (which may
/// not exist yet), so a link is written through and never replaced by a regular file.
fn resolve(path: &Path) -> Result<PathBuf, String> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = fs::read_link(&p).map_err(|e| cannot(path, e))?;
                p = match p.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(format!(
        "cannot write `{}`: too many levels of symbolic links",
        path.display()
    ))
}

fn cannot(path: &Path, e: impl std::fmt::Display) -> String {
    format!("cannot write `{}`: {e}", path.display())
}

/// Replaces what `path` holds with `contents`. A regular file (or a new one) is written to a
/// temporary file beside it, synced, given the old file's permissions and renamed over it,
/// and the directory is synced: a crash leaves the old file or the new one, never half of
/// one. A read-only file is an error, not replaced. A device or FIFO is written into.
/// Temporary files a killed earlier write left behind are removed.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), String> {
    let target = resolve(path)?;
    let meta = match fs::metadata(&target) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(cannot(path, e)),
    };
    if let Some(m) = &meta {
        if m.is_dir() {
            return Err(cannot(path, "it is a directory"));
        }
        if !m.is_file() {
            return write_into(path, &target, contents);
        }
        refuse_read_only(path, &target, m)?;
    }
    let (dir, name) = dir_and_name(&target);
    remove_stale_temporaries(&dir, &name);
    let tmp = dir.join(format!("{}{}", temp_prefix(&name), std::process::id()));
    let result = (|| -> std::io::Result<()> {
        let mut f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(contents)?;
        if let Some(m) = &meta {
            f.set_permissions(m.permissions())?;
        }
        f.sync_all()?;
        fs::rename(&tmp, &target)?;
        sync_dir(&dir)
    })();
    result.map_err(|e| {
        let _ = fs::remove_file(&tmp);
        cannot(path, e)
    })
}

/// Says now, before a long run, whether `write_atomic(path, ..)` would be refused: a
/// read-only file, a directory, or a directory where no file can be created.
pub fn check_writable(path: &Path) -> Result<(), String> {
    let target = resolve(path)?;
    match fs::metadata(&target) {
        Ok(m) if m.is_dir() => return Err(cannot(path, "it is a directory")),
        // Devices and FIFOs are written into; opening a FIFO now would wait for a reader.
        Ok(m) if !m.is_file() => return Ok(()),
        Ok(m) => refuse_read_only(path, &target, &m)?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(cannot(path, e)),
    }
    let (dir, name) = dir_and_name(&target);
    let probe = dir.join(format!("{}{}", temp_prefix(&name), std::process::id()));
    match OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(_) => fs::remove_file(&probe).map_err(|e| cannot(path, e)),
        Err(e) => Err(cannot(
            path,
            format!("no file can be created in `{}` ({e})", dir.display()),
        )),
    }
}

fn refuse_read_only(path: &Path, target: &Path, meta: &fs::Metadata) -> Result<(), String> {
    let writable =
        !meta.permissions().readonly() && OpenOptions::new().write(true).open(target).is_ok();
    if writable {
        Ok(())
    } else {
        Err(cannot(
            path,
            "the file is read-only (it was left as it is; make it writable to update it)",
        ))
    }
}

/// Writes into a device or FIFO as it is (truncating means nothing there).
fn write_into(path: &Path, target: &Path, contents: &[u8]) -> Result<(), String> {
    let mut f = OpenOptions::new()
        .write(true)
        .open(target)
        .map_err(|e| cannot(path, e))?;
    f.write_all(contents)
        .and_then(|()| f.flush())
        .map_err(|e| cannot(path, e))
}

fn dir_and_name(target: &Path) -> (PathBuf, String) {
    let dir = target
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    (dir, name)
}

fn temp_prefix(name: &str) -> String {
    format!(".{name}.affect-tmp.")
}

/// Removes `.NAME.affect-tmp.PID` files (and the older `.NAME.tmpPID`) of processes that no
/// longer run: what a write killed half-way left behind.
fn remove_stale_temporaries(dir: &Path, name: &str) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name();
        let file = file.to_string_lossy();
        if let Some((target, pid)) = temporary_of(&file) {
            if target == name && pid != std::process::id() && !process_alive(pid) {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
}

/// Whether a file name is a temporary file of `write_atomic` (`.NAME.affect-tmp.PID`, or the
/// older `.NAME.tmpPID`): the name of the file it was to replace, and the writing process.
/// A directory with many targets (a cache) sweeps those of dead processes with it.
pub fn temporary_of(file_name: &str) -> Option<(&str, u32)> {
    let rest = file_name.strip_prefix('.')?;
    let (name, pid) = match rest.rsplit_once(".affect-tmp.") {
        Some(split) => split,
        None => rest.rsplit_once(".tmp")?,
    };
    let digits = !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit());
    Some((
        name,
        pid.parse().ok().filter(|_| digits && !name.is_empty())?,
    ))
}

/// Whether a process of this id runs (or may: one we may not signal counts as running).
#[cfg(unix)]
pub fn process_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only asks whether the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(not(unix))]
pub fn process_alive(_: u32) -> bool {
    true
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
fn sync_dir(_: &Path) -> std::io::Result<()> {
    Ok(())
}

/// Writes a command's result: to the file (`write_atomic`) when one is given, else to
/// standard output, where a failed write (a closed pipe, a full disk) is an error too.
pub fn write_output(path: Option<&Path>, text: &str) -> Result<(), String> {
    match path {
        Some(p) => write_atomic(p, text.as_bytes()),
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())
                .and_then(|()| out.flush())
                .map_err(|e| format!("cannot write to standard output: {e}"))
        }
    }
}

/// Opens a stream written as a run goes (a trace): a regular file is created or truncated,
/// through symbolic links; a device or FIFO is opened as it is.
pub fn open_output(path: &Path) -> Result<File, String> {
    let target = resolve(path)?;
    if fs::metadata(&target).is_ok_and(|m| m.is_dir()) {
        return Err(cannot(path, "it is a directory"));
    }
    File::create(&target).map_err(|e| cannot(path, e))
}

/// A writer that remembers its first error: code that writes line by line and cannot stop
/// on each error (a trace sink) asks `finish` at the end, so a full disk or `/dev/full` fails
/// the command instead of passing in silence.
pub struct CheckedWriter<W: Write> {
    inner: W,
    error: Option<std::io::Error>,
}

impl<W: Write> CheckedWriter<W> {
    pub fn new(inner: W) -> Self {
        CheckedWriter { inner, error: None }
    }

    /// Flushes, and returns the first error of any write.
    pub fn finish(&mut self) -> std::io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.inner.flush()
    }
}

impl<W: Write> Write for CheckedWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.error.is_some() {
            // Stop writing after the first failure; report it once, at the end.
            return Ok(buf.len());
        }
        match self.inner.write_all(buf) {
            Ok(()) => Ok(buf.len()),
            Err(e) => {
                self.error = Some(e);
                Ok(buf.len())
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.error.is_some() {
            return Ok(());
        }
        if let Err(e) = self.inner.flush() {
            self.error = Some(e);
        }
        Ok(())
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// A new folder of the test's own (removed with the guard).
    fn scratch(name: &str) -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix(&format!("affect-files-write-{name}-"))
            .tempdir()
            .unwrap()
    }

    #[test]
    fn a_file_is_replaced_whole_keeping_its_permissions() {
        let tmp = scratch("perm");
        let dir = tmp.path();
        let p = dir.join("f.eltm");
        write_atomic(&p, b"one").unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        assert_eq!(
            fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o640
        );
        assert_eq!(
            fs::read_dir(dir).unwrap().count(),
            1,
            "no temporary file left"
        );
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_symlink_is_written_through() {
        let tmp = scratch("link");
        let dir = tmp.path();
        let real = dir.join("real.svg");
        fs::write(&real, "old").unwrap();
        std::os::unix::fs::symlink("real.svg", dir.join("link.svg")).unwrap();
        write_atomic(&dir.join("link.svg"), b"new").unwrap();
        assert!(fs::symlink_metadata(dir.join("link.svg"))
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read(&real).unwrap(), b"new");
        // A dangling link creates its target.
        std::os::unix::fs::symlink("later.svg", dir.join("dangling.svg")).unwrap();
        write_atomic(&dir.join("dangling.svg"), b"x").unwrap();
        assert_eq!(fs::read(dir.join("later.svg")).unwrap(), b"x");
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn devices_are_written_into_and_their_errors_reported() {
        write_atomic(Path::new("/dev/null"), b"x").unwrap();
        let e = write_atomic(Path::new("/dev/full"), b"x").unwrap_err();
        assert!(e.contains("/dev/full"), "{e}");
        use std::os::unix::fs::FileTypeExt;
        assert!(fs::metadata("/dev/full")
            .unwrap()
            .file_type()
            .is_char_device());
    }

    #[test]
    fn temporary_names_are_told_apart_from_other_files() {
        assert_eq!(temporary_of(".a.code.affect-tmp.42"), Some(("a.code", 42)));
        assert_eq!(temporary_of(".f.tmp4194305"), Some(("f", 4194305)));
        for other in [
            "a.code",
            ".a.code",
            ".a.affect-tmp.",
            ".a.affect-tmp.x1",
            "..tmp1",
            ".tmp",
        ] {
            assert_eq!(temporary_of(other), None, "{other}");
        }
    }

    #[test]
    fn stale_temporaries_are_removed_and_live_ones_kept() {
        let tmp = scratch("stale");
        let dir = tmp.path();
        // No process has pid 4194304 (above Linux's pid_max).
        fs::write(dir.join(".f.affect-tmp.4194304"), "half").unwrap();
        fs::write(dir.join(".f.tmp4194305"), "half").unwrap();
        write_atomic(&dir.join("f"), b"whole").unwrap();
        let left: Vec<_> = fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(left, vec![std::ffi::OsString::from("f")]);
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn read_only_files_and_directories_are_refused_before_and_at_writing() {
        let tmp = scratch("ro");
        let dir = tmp.path();
        let p = dir.join("f.eltm");
        fs::write(&p, "keep").unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o444)).unwrap();
        assert!(check_writable(&p).unwrap_err().contains("read-only"));
        assert!(write_atomic(&p, b"lost").unwrap_err().contains("read-only"));
        assert_eq!(fs::read(&p).unwrap(), b"keep");
        assert_eq!(
            fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o444
        );
        assert!(check_writable(dir).unwrap_err().contains("directory"));
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_checked_writer_keeps_the_first_error() {
        let f = OpenOptions::new().write(true).open("/dev/full").unwrap();
        let mut w = CheckedWriter::new(std::io::BufWriter::new(f));
        writeln!(w, "line").unwrap();
        w.flush().unwrap();
        assert!(w.finish().is_err());
    }
}
