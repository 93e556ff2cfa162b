use affect_compiler::groot::{self, Dialect};
use std::time::Instant;
#[test]
fn prof() {
    let xml = std::fs::read_to_string("/tmp/prof/t.xml").unwrap();
    for _ in 0..8 {
        let t = Instant::now();
        let p = groot::xml::parse(&xml);
        let t1 = t.elapsed();
        let t = Instant::now();
        let imp = groot::import_str(&xml);
        let t2 = t.elapsed();
        let t = Instant::now();
        let text = imp.text();
        let t3 = t.elapsed();
        let t = Instant::now();
        let parsed = affect_compiler::syntax::parse(&text);
        let t4 = t.elapsed();
        let t = Instant::now();
        let e = groot::export(&parsed.file, Dialect::V4);
        let t5 = t.elapsed();
        let t = Instant::now();
        let _ = groot::xml::write(&p.document);
        let t6 = t.elapsed();
        let t7 = 0;
        eprintln!("xml {t1:?} import {t2:?} print {t3:?} parse {t4:?} export {t5:?} write {t6:?} dbg {t7:?} len {}", e.xml.len());
    }
}
