//! Any bytes as a long-term memory file (what it asserts: `affect_fuzz::memory_file`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| affect_fuzz::memory_file(data));
