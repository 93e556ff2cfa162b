//! Any bytes through the whole checker and lowering (what it asserts: `affect_fuzz::check`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| affect_fuzz::check(data));
