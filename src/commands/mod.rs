//! One module per subcommand. Each returns the process exit status.

pub mod bench;
pub mod build;
pub mod check;
pub mod convert;
pub mod experiment;
pub mod explain;
pub mod fmt;
pub mod gen_tree;
pub mod html_report;
pub mod import;
pub mod lsp;
pub mod memory;
mod memory_files;
#[cfg(feature = "net")]
pub mod net;
pub mod record;
mod report;
mod robot;
pub mod run;
pub mod safe_stop;
pub mod service;
mod source;
mod stand_ins;
mod summary;
mod watch;
mod xml_in;

/// Exit statuses shared by every command.
pub const OK: u8 = 0;
pub const FAILED: u8 = 1;
pub const USAGE: u8 = 2;
