//! `affect report TRACE.jsonl -o run.html`: a run's trace as one self-contained page a person
//! opens in a browser (docs/monitoring.md). `summary` reads the trace in one pass into time
//! buckets, so a trace of millions of node events becomes a page of a few megabytes; `page`
//! draws it. The page is rendered again with less detail until it fits `MAX_BYTES`.

#[cfg(test)]
mod every_event;
pub mod page;
pub mod summary;

/// The size the report stays under.
pub const MAX_BYTES: usize = 10 * 1024 * 1024;

/// The report of a trace file, at the most detail that fits `max_bytes`.
pub fn report(path: &std::path::Path, title: &str, max_bytes: usize) -> Result<String, String> {
    let open = || -> Result<Box<dyn std::io::BufRead>, String> {
        // Only a regular file: a device or a FIFO could be read forever.
        let (file, _) = affect_files::open_regular(path).map_err(|e| e.message)?;
        // A trace written compressed (`--trace FILE.jsonl.zst`) is read as it is.
        if path.extension().is_some_and(|x| x == "zst") {
            let z = zstd::Decoder::new(file)
                .map_err(|e| format!("`{}` is not Zstandard: {e}", path.display()))?;
            return Ok(Box::new(std::io::BufReader::new(z)));
        }
        Ok(Box::new(std::io::BufReader::new(file)))
    };
    let end = summary::end_ms(open()?)?;
    let run = summary::read(open()?, end)?;
    if run.lines == 0 {
        return Err(format!("`{}` holds no trace events", path.display()));
    }
    let mut detail = page::Detail::FULL;
    loop {
        let html = page::render(&run, title, detail);
        if html.len() <= max_bytes {
            return Ok(html);
        }
        match detail.less() {
            Some(d) => detail = d,
            None => {
                return Err(format!(
                    "the report of `{}` does not fit in {max_bytes} bytes even summarised",
                    path.display()
                ))
            }
        }
    }
}
