//! One module per subcommand. Each returns the process exit status.

pub mod check;
pub mod explain;
pub mod fmt;
pub mod run;
mod progress;
mod report;

/// Exit statuses shared by every command.
pub const OK: u8 = 0;
pub const FAILED: u8 = 1;
pub const USAGE: u8 = 2;
