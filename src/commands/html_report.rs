//! `affect report TRACE.jsonl -o run.html`: the HTML report of a run (see `html_report`).

use super::{FAILED, OK, USAGE};
use crate::files;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct ReportArgs {
    /// A JSON Lines trace (`affect run --trace FILE.jsonl`), or one compressed with
    /// Zstandard (`FILE.jsonl.zst`, as `--trace` writes it for such a name).
    #[arg(value_name = "TRACE.jsonl")]
    pub trace: PathBuf,
    /// Where to write the page.
    #[arg(short, long, value_name = "FILE.html")]
    pub output: PathBuf,
    /// The most bytes the page may take; detail is reduced until it fits.
    #[arg(long, value_name = "BYTES", default_value_t = crate::html_report::MAX_BYTES)]
    pub max_bytes: usize,
}

pub fn run(args: &ReportArgs) -> u8 {
    // Only a regular file is read (docs/reliability.md): a device or a FIFO is refused here.
    if let Err(e) = affect_files::open_regular(&args.trace) {
        eprintln!("[{}] Error: {}", e.code, e.message);
        return USAGE;
    }
    let title = format!(
        "affect run: {}",
        args.trace.file_name().map_or_else(
            || args.trace.display().to_string(),
            |f| f.to_string_lossy().into_owned()
        )
    );
    let html = match crate::html_report::report(&args.trace, &title, args.max_bytes) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("error: {e}");
            return FAILED;
        }
    };
    match files::write_atomic(&args.output, html.as_bytes()) {
        Ok(()) => {
            files::tell_written(&args.output);
            OK
        }
        Err(e) => {
            eprintln!("error: {e}");
            USAGE
        }
    }
}
