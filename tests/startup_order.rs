//! `startup.order`, the list `build.rs` hands the linker so that release builds place the
//! functions of a start side by side (made by `scripts/startup_order.py`).

use std::collections::HashSet;

fn listed() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/startup.order");
    let text = std::fs::read_to_string(path).expect("startup.order is read");
    text.lines().map(str::to_string).collect()
}

#[test]
fn the_list_names_each_function_once_as_the_linker_spells_it() {
    let names = listed();
    let unique: HashSet<&String> = names.iter().collect();
    assert_eq!(unique.len(), names.len(), "a function is listed twice");
    for name in &names {
        assert!(
            !name.is_empty() && !name.contains(char::is_whitespace),
            "not one symbol name: {name:?}"
        );
    }
}

/// The start `affect bench` times comes first: its entry point, the XML reader and the
/// checker precede the command line's `main`, which the rest of the process runs.
#[test]
fn the_timed_start_comes_before_the_rest_of_the_process() {
    let names = listed();
    let at = |prefix: &str| {
        names
            .iter()
            .position(|n| n.starts_with(prefix))
            .unwrap_or_else(|| panic!("startup.order names no {prefix}..."))
    };
    let main = at("_ZN6affect4main17h");
    for timed in [
        "_ZN6affect8commands5bench3run17h",
        "_ZN15affect_compiler5groot3xml4read5parse17h",
        "_ZN15affect_compiler4sema7analyze17h",
    ] {
        assert!(at(timed) < main, "{timed} comes after main");
    }
}
