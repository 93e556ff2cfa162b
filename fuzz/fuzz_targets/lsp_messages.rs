//! Any bytes as a language-server session (what it asserts: `affect_fuzz::lsp_messages`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| affect_fuzz::lsp_messages(data));
