//! The server's log: standard error, which editors show in their output panel.

pub fn log(line: &str) {
    eprintln!("affect lsp: {line}");
}
