//! Any bytes as Groot / BehaviorTree.CPP XML: the importer, the converter and (for what imports
//! cleanly) the formatter, the parser and the exporter must never panic.
//!   cargo +nightly fuzz run import_xml -- -dict=fuzz/xml.dict
#![no_main]

use affect_compiler::groot::{self, Dialect};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let imported = groot::import_str(&text);
    for d in &imported.diagnostics {
        assert!(d.primary.span.end as usize <= text.len());
    }
    if !imported.has_errors() {
        let affect = imported.text();
        let parsed = affect_compiler::syntax::parse(&affect);
        assert!(
            !affect_compiler::diagnostic::has_errors(&parsed.diagnostics),
            "an import does not parse:\n{affect}"
        );
        let _ = groot::export(&parsed.file, imported.dialect);
    }
    let _ = groot::convert(&text, Dialect::V4);
    let _ = groot::convert(&text, Dialect::V3);
});
