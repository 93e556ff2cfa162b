use affect_compiler::groot::{self, Dialect};
use std::time::Instant;

fn main() {
    let xml = std::fs::read_to_string("/tmp/prof/t.xml").unwrap();
    let imp = groot::import_str(&xml);
    let text = imp.text();
    let parsed = affect_compiler::syntax::parse(&text);
    let mut best = [f64::MAX; 5];
    for _ in 0..10 {
        let t = Instant::now();
        let _ = groot::xml::parse(&xml);
        best[0] = best[0].min(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let _ = groot::import_str(&xml);
        best[1] = best[1].min(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let _ = groot::export(&parsed.file, Dialect::V4);
        best[2] = best[2].min(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let _ = groot::export(&parsed.file, Dialect::V3);
        best[3] = best[3].min(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let _ = imp.text();
        best[4] = best[4].min(t.elapsed().as_secs_f64() * 1e3);
    }
    eprintln!("min ms: xml {:.1} import {:.1} export-v4 {:.1} export-v3(no check) {:.1} print {:.1}", best[0], best[1], best[2], best[3], best[4]);
}
