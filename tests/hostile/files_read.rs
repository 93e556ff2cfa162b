//! Files read: only regular files, at most 64 MiB, UTF-8 text without NUL bytes; every
//! refusal coded, the text ones with line and column.

use super::*;

const PROGRAM: &str = "tree Patrol() {\n    succeed\n}\n";

#[test]
fn devices_directories_and_fifos_are_e0701_without_reading() {
    let dir = scratch("read_special");
    let fifo = dir.join("pipe.affect");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    for path in ["/dev/zero", "/dev/urandom", ".", "pipe.affect"] {
        let (st, codes) = check(&dir, path);
        assert_eq!((st, codes), (2, vec!["E0801".to_string()]), "{path}");
    }
    // A program that uses them: E0206 at each `use`, saying why.
    write(
        &dir,
        "uses.affect",
        format!("use \"/dev/zero\";\nuse \"/dev/urandom\";\nuse \".\";\nuse \"pipe.affect\";\n\n{PROGRAM}"),
    );
    let (st, codes) = check(&dir, "uses.affect");
    assert_eq!(st, 1);
    assert_eq!(
        codes.iter().filter(|c| *c == "E0206").count(),
        4,
        "{codes:?}"
    );
    let out = affect_in(&dir, &["check", "uses.affect"]);
    assert!(
        stderr(&out).contains("a character device"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("a FIFO"), "{}", stderr(&out));
}

#[test]
fn a_file_over_64_mib_is_e0702() {
    let dir = scratch("read_big");
    let f = std::fs::File::create(dir.join("big.affect")).unwrap();
    f.set_len(65 * 1024 * 1024).unwrap();
    assert_eq!(check(&dir, "big.affect"), (2, vec!["E0802".to_string()]));
    write(
        &dir,
        "uses.affect",
        format!("use \"big.affect\";\n\n{PROGRAM}"),
    );
    let out = affect_in(&dir, &["check", "uses.affect"]);
    assert_eq!(status(&out), 1);
    assert!(
        stderr(&out).contains("larger than 64 MiB"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn bad_bytes_are_e0703_and_e0704_with_line_and_column() {
    let dir = scratch("read_bytes");
    write(&dir, "latin1.affect", b"tree Caf\xe9() {\n    succeed\n}\n");
    write(&dir, "nul.affect", b"tree T() {\n    suc\0ceed\n}\n");
    let out = affect_in(&dir, &["check", "--format", "json", "latin1.affect"]);
    assert_eq!(status(&out), 2);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = &doc["diagnostics"][0];
    assert_eq!(d["code"], "E0803");
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(1), Some(9))
    );
    let out = affect_in(&dir, &["check", "--format", "json", "nul.affect"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = &doc["diagnostics"][0];
    assert_eq!(d["code"], "E0804");
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(2), Some(8))
    );
    // Through a `use`: E0206 at the use, E0804 in the used file.
    write(
        &dir,
        "uses.affect",
        format!("use \"nul.affect\";\n\n{PROGRAM}"),
    );
    let (st, codes) = check(&dir, "uses.affect");
    assert_eq!(st, 1);
    assert!(codes.contains(&"E0206".to_string()), "{codes:?}");
    let out = affect_in(&dir, &["check", "uses.affect"]);
    assert!(stderr(&out).contains("[E0804]"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("line 2, column 8"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn every_command_refuses_a_device() {
    let dir = scratch("read_commands");
    for args in [
        vec!["fmt", "/dev/zero"],
        vec!["run", "/dev/zero"],
        vec!["build", "--emit", "groot", "/dev/zero"],
        vec!["import", "/dev/zero"],
        vec!["convert", "--to", "v3", "/dev/zero"],
        vec!["memory", "show", "/dev/zero"],
        vec!["bench", "/dev/zero"],
        vec!["report", "/dev/zero", "-o", "run.html"],
    ] {
        let out = affect_in(&dir, &args);
        assert_eq!(status(&out), 2, "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("[E0801]"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn an_xml_include_of_a_device_is_refused() {
    let dir = scratch("read_include");
    write(
        &dir,
        "main.xml",
        "<root BTCPP_format=\"4\" main_tree_to_execute=\"Main\">\n  <include path=\"/dev/urandom\"/>\n  <BehaviorTree ID=\"Main\">\n    <AlwaysSuccess/>\n  </BehaviorTree>\n</root>\n",
    );
    // Refused before anything is read from it (whether that fails the import is the XML
    // importer's rule: BehaviorTree.CPP refuses a file it cannot include).
    let out = affect_in(&dir, &["import", "main.xml"]);
    status(&out);
    assert!(
        stderr(&out).contains("a character device"),
        "{}",
        stderr(&out)
    );
}
