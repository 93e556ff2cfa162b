//! Hostile XML through the binary, under a 4 GiB address-space limit: nesting at any depth
//! (elements, scripts in attributes) gets a coded diagnostic and never a stack overflow; an
//! element with 200,000 attributes and a file with 50,000 declarations go through; an
//! `<include>` of a device is refused. Results are asserted, never times (those are in
//! `benches/groot.rs`).

mod support;

use std::fmt::Write as _;
use std::process::{Command, Output};

/// `affect ARGS` with at most 4 GiB of address space, so a runaway fails instead of swapping.
fn limited(args: &[&str]) -> Output {
    Command::new("bash")
        .arg("-c")
        .arg("ulimit -v 4194304; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_affect"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("bash runs")
}

fn import(name: &str, xml: &str) -> Output {
    let dir = support::scratch("groot_limits", name);
    let path = support::write_temp(&dir, &format!("{name}.xml"), xml);
    limited(&["import", path.to_str().unwrap()])
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn tree(body: &str) -> String {
    format!(r#"<root BTCPP_format="4"><BehaviorTree ID="Main">{body}</BehaviorTree></root>"#)
}

#[test]
fn elements_nested_10000_deep_are_e0406() {
    let n = 10_000;
    let body = "<Sequence>".repeat(n) + "<AlwaysSuccess/>" + &"</Sequence>".repeat(n);
    let out = import("deep_elements", &tree(&body));
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("E0406"), "{}", stderr(&out));
}

#[test]
fn scripts_nested_10000_deep_are_e0406() {
    let n = 10_000;
    let deep = [
        format!("x := {}1{}", "(".repeat(n), ")".repeat(n)),
        format!("x := {}1", "-".repeat(n)),
        format!("x := {}", vec!["1"; 100_000].join(" + ")),
    ];
    for (i, code) in deep.iter().enumerate() {
        let out = import(
            &format!("deep_script_{i}"),
            &tree(&format!(r#"<Script code="{code}"/>"#)),
        );
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("E0406") && err.contains("nests"), "{err}");
    }
    // Long chains are not nesting: a sum of 800 terms inside 100 parentheses and 100 prefix
    // minuses imports (the tree is then 1,000 deep, within MAX_TREE).
    let sum = vec!["x"; 800].join(" + ");
    let code = format!(
        "x := {}{}{sum}{}",
        "-".repeat(100),
        "(".repeat(100),
        ")".repeat(100)
    );
    let out = import("long_chain", &tree(&format!(r#"<Script code="{code}"/>"#)));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("x + x + x"));
    // In a pre/post condition too.
    let code = format!("{}x{}", "(".repeat(n), ")".repeat(n));
    let out = import(
        "deep_precondition",
        &tree(&format!(r#"<AlwaysSuccess _skipIf="{code}"/>"#)),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("E0406"), "{}", stderr(&out));
}

#[test]
fn an_element_with_200000_attributes_imports() {
    let n = 200_000;
    let mut attrs = String::new();
    for i in 0..n {
        let _ = write!(attrs, r#" p{i}="{i}""#);
    }
    let out = import("wide", &tree(&format!("<Wide{attrs}/>")));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("p199999: 199999"),
        "the last attribute is kept"
    );
    // A duplicate at the very end is still found.
    let out = import("wide_duplicate", &tree(&format!("<Wide{attrs} p0=\"x\"/>")));
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("E0405"), "{}", stderr(&out));
}

#[test]
fn fifty_thousand_declarations_export() {
    let n = 50_000;
    let mut src = String::new();
    for i in 0..n {
        let _ = writeln!(src, "action A{i}(in x: num);");
    }
    src.push_str("\nmain tree Main {\n    sequence {\n");
    for i in (0..n).step_by(1000) {
        let _ = writeln!(src, "        A{i}(x: 1)");
    }
    src.push_str("    }\n}\n");
    let dir = support::scratch("groot_limits", "declarations");
    let path = support::write_temp(&dir, "many.affect", &src);
    let out = limited(&["build", path.to_str().unwrap(), "--emit", "groot"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let xml = String::from_utf8_lossy(&out.stdout);
    assert_eq!(xml.matches("<Action ID=").count(), n);
}

#[test]
fn an_include_of_a_device_is_e0418() {
    for device in ["/dev/urandom", "/dev/zero", "."] {
        let xml = format!(
            r#"<root BTCPP_format="4"><include path="{device}"/><BehaviorTree ID="Main"><AlwaysSuccess/></BehaviorTree></root>"#
        );
        let out = import("device_include", &xml);
        assert_eq!(out.status.code(), Some(1), "{device}: {}", stderr(&out));
        assert!(stderr(&out).contains("E0418"), "{device}: {}", stderr(&out));
    }
}
