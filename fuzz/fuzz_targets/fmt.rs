//! Any bytes through the formatter (what it asserts: `affect_fuzz::format`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| affect_fuzz::format(data));
