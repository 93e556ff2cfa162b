//! Any bytes through the parser (what it asserts: `affect_fuzz::parse`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| affect_fuzz::parse(data));
