//! `affect fmt`: placeholder replaced by the formatter.
pub fn run(_: &[std::path::PathBuf], _: bool, _: bool) -> u8 { 2 }
