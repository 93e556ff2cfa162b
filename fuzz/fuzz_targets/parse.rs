//! Any bytes: the parser returns a tree and diagnostics without panicking, and a text that
//! parses cleanly formats to a fixed point.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else { return };
    let parsed = affect_compiler::syntax::parse(src);
    for d in &parsed.diagnostics {
        assert!(d.primary.span.end as usize <= src.len());
    }
    if let Ok(once) = affect_compiler::fmt::format_source(src) {
        assert_eq!(affect_compiler::fmt::format_source(&once).as_deref(), Ok(once.as_str()));
    }
});
