//! BehaviorTree.CPP's own small languages, which both the checker and the XML bridge read:
//! its scripts (`script`), the text of its port values and the C++ spellings of port types
//! (`model`), and its switch nodes' IDs. Neither `sema` nor `groot`: the checker reads calls by
//! BehaviorTree.CPP IDs (`sema/xml_ids.rs`) and the XML bridge reads and writes files with
//! them, and the two modules depend one way (`groot` on `sema`), both on this one.

pub mod model;
pub mod script;

/// `Switch2`..`Switch6` → the number of cases.
pub fn switch_cases(id: &str) -> Option<usize> {
    let n: usize = id.strip_prefix("Switch")?.parse().ok()?;
    (2..=6).contains(&n).then_some(n)
}
