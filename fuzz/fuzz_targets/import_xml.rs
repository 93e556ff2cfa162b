//! Any bytes as Groot / BehaviorTree.CPP XML through the importer, converter and exporter
//! (what it asserts: `affect_fuzz::import_xml`; scripts/fuzz.sh adds `-dict=fuzz/xml.dict`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| affect_fuzz::import_xml(data));
