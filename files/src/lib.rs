//! The one place where the toolchain touches its users' files. The compiler does no IO; the
//! CLI, the language server, the XML `<include>` loader and the runtime's memory files all
//! read and write through here, so every one of them refuses the same inputs the same way:
//!
//! - reading: only regular files (never a device, FIFO or directory: `use "/dev/zero"` is an
//!   error, not an endless read), at most `MAX_SOURCE_BYTES`, and source text must be UTF-8
//!   without NUL bytes (coded errors E0801..E0805, positioned where the text is at fault);
//! - writing: a regular file is replaced atomically and durably (temporary file, fsync,
//!   rename, fsync of the directory) keeping its permissions; a symlink is written through;
//!   a device or FIFO is written into, never replaced; every write error is reported.

mod read;
mod write;

pub use affect_compiler::source::{SourceError, MAX_SOURCE_BYTES};
pub use read::{open_regular, read_bytes, read_source};
pub use write::{
    check_writable, open_output, process_alive, temporary_of, write_atomic, write_output,
    CheckedWriter,
};
