//! `affect import`, `affect build --emit groot|groot-v3` and `affect convert` through the
//! built binary: outputs, files written atomically, exit statuses, and every exporter and
//! converter diagnostic (the importer's have their fixtures in `fixtures/xml`).

mod support;

use support::affect;

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

const NAV2: &str = "examples/xml/nav2_tree.xml";

#[test]
fn import_prints_affect_or_writes_the_file() {
    let out = affect(&["import", NAV2]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let affect_text = text(&out.stdout);
    assert!(affect_text.contains("main tree "), "{affect_text}");
    // The nav2 nodes are declared by the file's models (none inferred).
    assert!(
        affect_text.contains("control RecoveryNode(") && !affect_text.contains("#[inferred]"),
        "{affect_text}"
    );

    let path_dir = support::scratch("groot_cli", "nav_affect");
    let path = path_dir.join("nav.affect");
    let out = affect(&["import", NAV2, "-o", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), affect_text);

    // The written file checks (syntax) and builds back.
    let out = affect(&["build", path.to_str().unwrap(), "--emit", "groot"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("<root BTCPP_format=\"4\""));
}

#[test]
fn import_refuses_what_behaviortree_cpp_refuses() {
    let path_dir = support::scratch("groot_cli", "never_affect");
    let path = path_dir.join("never.affect");
    let out = affect(&[
        "import",
        "tests/fixtures/xml/fail/unclosed_element.xml",
        "-o",
        path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("[E0403]"),
        "{}",
        text(&out.stderr)
    );
    assert!(!path.exists(), "nothing is written for a refused file");
    let json_out_dir = support::scratch("groot_cli", "never2_affect");
    let json_out = json_out_dir.join("never2.affect");
    let out = affect(&[
        "import",
        "tests/fixtures/xml/fail/unclosed_element.xml",
        "--format",
        "json",
        "-o",
        json_out.to_str().unwrap(),
    ]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(doc["diagnostics"][0]["code"], "E0403");
    assert_eq!(doc["diagnostics"][0]["line"], 6);
    let out = affect(&["import", "no/such/file.xml"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn build_writes_both_dialects() {
    let v4 = affect(&[
        "build",
        "tests/fixtures/groot/portable.affect",
        "--emit",
        "groot",
    ]);
    assert_eq!(v4.status.code(), Some(0), "{}", text(&v4.stderr));
    let x = text(&v4.stdout);
    assert!(
        x.contains("<root BTCPP_format=\"4\" main_tree_to_execute=\"Patrol\""),
        "{x}"
    );
    assert!(
        x.contains("<SequenceWithMemory>") && x.contains("success_count=\"1\""),
        "{x}"
    );
    assert!(x.contains("<SubTree ID=\"Sub\" port=\"{target}\"/>"), "{x}");
    assert!(
        x.contains("<Timeout msec=\"5000\">") && x.contains("<Delay delay_msec=\"100\">"),
        "{x}"
    );

    let path_dir = support::scratch("groot_cli", "portable_v3_xml");
    let path = path_dir.join("portable_v3.xml");
    let v3 = affect(&[
        "build",
        "tests/fixtures/groot/portable.affect",
        "--emit",
        "groot-v3",
        "-o",
        path.to_str().unwrap(),
    ]);
    assert_eq!(v3.status.code(), Some(0), "{}", text(&v3.stderr));
    let x = std::fs::read_to_string(&path).unwrap();
    assert!(x.contains("<root main_tree_to_execute=\"Patrol\""), "{x}");
    assert!(
        x.contains("<SequenceStar>") && x.contains("success_threshold=\"1\""),
        "{x}"
    );
    assert!(
        x.contains("<Action ID=\"Dock\" goal=\"{target}\" docked=\"{done}\"/>"),
        "{x}"
    );
    // v3 calls a tree with Groot 1's plain SubTree and bare keys where that can say it.
    assert!(x.contains("<SubTree ID=\"Sub\" port=\"target\"/>"), "{x}");

    // Deterministic.
    let again = affect(&[
        "build",
        "tests/fixtures/groot/portable.affect",
        "--emit",
        "groot",
    ]);
    assert_eq!(again.stdout, v4.stdout);
}

/// Runs a command with `--format json -o <scratch>`; the diagnostics' codes.
fn run_json(args: &[&str]) -> (Option<i32>, Vec<String>) {
    let out_path_dir = support::scratch("groot_cli", "json_out");
    let out_path = out_path_dir.join("json-out");
    let mut all: Vec<&str> = args.to_vec();
    let p = out_path.to_str().unwrap().to_string();
    all.extend(["--format", "json", "-o", &p]);
    let out = affect(&all);
    (out.status.code(), support::json_codes(&out))
}

#[test]
fn every_exporter_and_converter_code_is_reported() {
    let (status, mut seen) = run_json(&[
        "build",
        "tests/fixtures/groot/export_codes.affect",
        "--emit",
        "groot",
    ]);
    assert_eq!(status, Some(1));
    let (status, c) = run_json(&[
        "build",
        "tests/fixtures/groot/v4_only.affect",
        "--emit",
        "groot-v3",
    ]);
    assert_eq!(status, Some(1));
    seen.extend(c);
    let (status, c) = run_json(&[
        "convert",
        "tests/fixtures/groot/v3_shared_blackboard.xml",
        "--to",
        "v4",
    ]);
    assert_eq!(status, Some(0));
    seen.extend(c);
    seen.extend(
        run_json(&[
            "convert",
            "tests/fixtures/xml/fail/broken_precondition.xml",
            "--to",
            "v3",
        ])
        .1,
    );
    seen.extend(
        run_json(&[
            "convert",
            "tests/fixtures/groot/v3_shared_blackboard.xml",
            "--to",
            "v3",
        ])
        .1,
    );
    let (status, c) = run_json(&[
        "build",
        "tests/fixtures/groot/v4_only.affect",
        "--emit",
        "groot",
    ]);
    assert_eq!(status, Some(0));
    seen.extend(c);
    seen.extend(run_json(&["build", "examples/navigator.affect", "--emit", "groot"]).1);
    // JSON on standard output leaves no room for the result there.
    assert_eq!(
        affect(&[
            "build",
            "examples/navigator.affect",
            "--emit",
            "groot",
            "--format",
            "json"
        ])
        .status
        .code(),
        Some(2)
    );
    // A program the checker refuses is not exported: the exporter's E0454 (a switch of 7
    // cases, a `for` without body, ..) and W0454 (an undeclared node) are the checker's
    // E0315, E0204, .. first, which `build` reports instead.
    let (status, c) = run_json(&[
        "build",
        "tests/fixtures/types/switch_too_many_cases.affect",
        "--emit",
        "groot",
    ]);
    assert_eq!(status, Some(1));
    assert!(c.iter().any(|c| c == "E0315"), "{c:?}");
    let checker_first = ["E0454", "W0454"];
    for info in affect_compiler::codes::CODES {
        let n: u32 = info.code[1..].parse().unwrap();
        if (451..470).contains(&n) && !checker_first.contains(&info.code) {
            assert!(
                seen.iter().any(|c| c == info.code),
                "nothing reports {} ({}); seen {seen:?}",
                info.code,
                info.title
            );
        }
    }
}

#[test]
fn convert_v3_to_v4_and_back() {
    let out = affect(&[
        "convert",
        "tests/fixtures/groot/v3_shared_blackboard.xml",
        "--to",
        "v4",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let x = text(&out.stdout);
    assert!(
        x.contains("<root BTCPP_format=\"4\" main_tree_to_execute=\"Main\">"),
        "{x}"
    );
    assert!(
        x.contains("<SubTree ID=\"Dock\" _autoremap=\"true\"/>"),
        "{x}"
    );
    assert!(
        x.contains("<Precondition if=\"state == &apos;done&apos;\" else=\"FAILURE\">"),
        "{x}"
    );
    assert!(text(&out.stderr).contains("W0461"));

    let path_dir = support::scratch("groot_cli", "v4_xml");
    let path = path_dir.join("v4.xml");
    std::fs::write(&path, &x).unwrap();
    let back = affect(&["convert", path.to_str().unwrap(), "--to", "v3"]);
    assert_eq!(back.status.code(), Some(1), "Precondition has no v3 form");
    assert!(text(&back.stderr).contains("[E0461]"));
}

#[test]
fn explain_knows_the_xml_codes() {
    let out = affect(&["explain", "e0404"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).starts_with("# E0404: document type declaration refused"));
}

#[test]
fn import_writes_included_files_beside_the_output() {
    let dir_dir = support::scratch("groot_cli", "includes");
    let dir = dir_dir.join("includes");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // mission -> child/dock: paths stay relative.
    let out_file = dir.join("mission.affect");
    let out = affect(&[
        "import",
        "examples/xml/include/mission.xml",
        "-o",
        out_file.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    for written in ["mission.affect", "child/dock.affect"] {
        let path = dir.join(written);
        let t = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{} was not written: {e}", path.display()));
        assert!(t.contains("tree "), "{written}: {t}");
    }
    // The imported program checks and runs from the written files alone.
    let out = affect(&["run", out_file.to_str().unwrap(), "--ticks", "2"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    // Without -o, the included files are not written, and the user is told how.
    let out = affect(&["import", "examples/xml/include/mission.xml"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("-o OUT.affect"),
        "{}",
        text(&out.stderr)
    );
}

/// `tendencies(..)` is affect's own node: the export writes the agent's table as a switch on
/// the machine's state, with nothing for BehaviorTree.CPP to register (issue 18: the waiter
/// example got `action tendencies(...)`; issue 12: it is a Switch now).
#[test]
fn exporting_tendencies_writes_the_table_as_a_switch() {
    let out_path_dir = support::scratch("groot_cli", "waiter_xml");
    let out_path = out_path_dir.join("waiter.xml");
    let out = affect(&[
        "build",
        "--emit",
        "groot",
        "examples/waiter.affect",
        "-o",
        out_path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        !err.contains("`tendencies` is exported as an action"),
        "{err}"
    );
    let xml = std::fs::read_to_string(&out_path).unwrap();
    assert!(
        xml.contains(r#"<Switch5 name="act" variable="{waiter}" case_1="Happy" case_2="Confident" case_3="Concerned" case_4="Frustrated" case_5="Angry""#),
        "{xml}"
    );
    assert!(!xml.contains(r#"ID="tendencies""#), "{xml}");
}

/// A tendency table of more than six states (BehaviorTree.CPP's largest Switch has six cases)
/// is written as a chain of switches on the same entry, each the previous one's default, and
/// imports back as the `tendencies(..)` node.
#[test]
fn a_tendency_table_of_eight_states_exports_as_a_chain_of_switches() {
    let src_dir = support::scratch("groot_cli", "eight_affect");
    let src = src_dir.join("eight.affect");
    std::fs::write(
        &src,
        "enum Mood { A, B, C, D, E, F, G, H }\n\naction Do(in x: int);\n\nagent R {\n    var level: num = 0;\n    emotions mood: Mood = A {\n        from level;\n        rise 0.1;\n        fall 0.1;\n        A -> B when intensity > 0.5;\n    }\n    tendencies mood {\n        A => Do(x: 1);\n        B => Do(x: 2);\n        C => Do(x: 3);\n        D => Do(x: 4);\n        E => Do(x: 5);\n        F => Do(x: 6);\n        G => Do(x: 7);\n        H => Do(x: 8);\n    }\n    main {\n        act: tendencies(mood)\n    }\n}\n",
    )
    .unwrap();
    let xml_path_dir = support::scratch("groot_cli", "eight_xml");
    let xml_path = xml_path_dir.join("eight.xml");
    let out = affect(&[
        "build",
        src.to_str().unwrap(),
        "--emit",
        "groot",
        "-o",
        xml_path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let xml = std::fs::read_to_string(&xml_path).unwrap();
    let outer = xml.find(r#"<Switch6 name="act" variable="{mood}" case_1="A""#);
    let inner = xml.find(r#"<Switch2 variable="{mood}" case_1="G" case_2="H""#);
    assert!(
        matches!((outer, inner), (Some(o), Some(i)) if o < i),
        "{xml}"
    );
    assert_eq!(xml.matches("</Switch2>\n").count(), 1, "{xml}");
    let back_dir = support::scratch("groot_cli", "eight_back_affect");
    let back = back_dir.join("eight_back.affect");
    let out = affect(&[
        "import",
        xml_path.to_str().unwrap(),
        "-o",
        back.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let back = std::fs::read_to_string(&back).unwrap();
    assert!(back.contains("act: tendencies(mood)"), "{back}");
}

/// A program that `use`s files (an import of a file with `<include>`s) builds into a directory
/// with every used file's XML beside it; trees of used files are called as SubTrees.
#[test]
fn build_into_a_directory_writes_the_used_files() {
    let dir_dir = support::scratch("groot_cli", "with_includes");
    let dir = dir_dir.join("with_includes");
    let _ = std::fs::remove_dir_all(&dir);
    let program = dir.join("src/mission.affect");
    std::fs::create_dir_all(program.parent().unwrap()).unwrap();
    let fixture = "tests/fixtures/xml/lossless/v4_tree_from_included_file.xml";
    let out = affect(&["import", fixture, "-o", program.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(dir.join("src/include/report.affect").is_file());

    // Without -o: the main file on stdout and a note naming the used files.
    let out = affect(&["build", program.to_str().unwrap(), "--emit", "groot"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("`include/approach.affect`"));

    // `affect build PROGRAM --emit groot -o DIR/`.
    let build_into = |out_dir: &std::path::Path| {
        let target = format!("{}/", out_dir.display());
        let program = program.to_str().unwrap();
        affect(&["build", program, "--emit", "groot", "-o", &target])
    };
    let out_dir = dir.join("xml");
    let out = build_into(&out_dir);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let main = std::fs::read_to_string(out_dir.join("mission.xml")).unwrap();
    assert!(
        main.contains("<include path=\"include/approach.xml\"/>")
            && main.contains("<SubTree ID=\"Approach\" target=\"{dock}\"/>")
            && main.contains("<SubTree ID=\"Report\"/>")
            && !main.contains("_inferred"),
        "{main}"
    );
    let approach = std::fs::read_to_string(out_dir.join("include/approach.xml")).unwrap();
    assert!(
        approach.contains("<include path=\"report.xml\"/>")
            && approach.contains("<SubTree ID=\"Report\"/>"),
        "{approach}"
    );
    assert!(out_dir.join("include/report.xml").is_file());

    // A used file that is gone is an error, and nothing is written.
    std::fs::remove_file(dir.join("src/include/report.affect")).unwrap();
    let again = dir.join("again");
    let out = build_into(&again);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("E0206"), "{}", text(&out.stderr));
    assert!(!again.exists());
}

/// `affect build --emit groot|groot-v3` exports only a program that checks: one with a port of
/// the wrong type and a misspelt argument gets the checker's diagnostics, exit 1, and nothing
/// is written (BehaviorTree.CPP would refuse the XML).
#[test]
fn build_refuses_a_program_that_does_not_check() {
    let dir = support::scratch("groot_cli", "unchecked");
    let src = dir.join("wrong.affect");
    std::fs::write(
        &src,
        "action Dock(in goal: str, in speed: num);\n\nmain tree T {\n    sequence {\n        Dock(goal: \"home\", speed: \"fast\")\n        Dock(goal: \"home\", sped: 2)\n    }\n}\n",
    )
    .unwrap();
    for emit in ["groot", "groot-v3"] {
        let xml = dir.join(format!("{emit}.xml"));
        let out = affect(&[
            "build",
            src.to_str().unwrap(),
            "--emit",
            emit,
            "-o",
            xml.to_str().unwrap(),
        ]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{emit}: {err}");
        assert!(
            err.contains("E0301") && err.contains("E0305"),
            "{emit}: {err}"
        );
        assert!(
            err.contains("does not check; nothing written"),
            "{emit}: {err}"
        );
        assert!(!xml.exists(), "{emit}: {} was written", xml.display());
    }
}

/// `affect run` reads each file of an XML program once, however many files include it: the
/// reads counted through the toolchain's one reader (`AFFECT_LOG_READS`).
#[test]
fn run_reads_each_xml_file_once() {
    let dir = support::scratch("groot_cli", "reads");
    let tree = |id: &str, includes: &[&str], body: &str| {
        let inc: String = includes
            .iter()
            .map(|p| format!("<include path=\"{p}\"/>"))
            .collect();
        format!(
            "<root BTCPP_format=\"4\">{inc}<BehaviorTree ID=\"{id}\">{body}</BehaviorTree></root>"
        )
    };
    // A diamond: main includes a and sub/b, both include c.
    support::write_temp(&dir, "c.xml", &tree("C", &[], "<AlwaysSuccess/>"));
    support::write_temp(&dir, "a.xml", &tree("A", &["c.xml"], "<SubTree ID=\"C\"/>"));
    support::write_temp(
        &dir.join("sub"),
        "b.xml",
        &tree("B", &["../c.xml"], "<SubTree ID=\"C\"/>"),
    );
    let main = support::write_temp(
        &dir,
        "main.xml",
        &tree(
            "Main",
            &["a.xml", "sub/b.xml"],
            "<Sequence><SubTree ID=\"A\"/><SubTree ID=\"B\"/></Sequence>",
        )
        .replace("<root ", "<root main_tree_to_execute=\"Main\" "),
    );
    let out = support::affect_command()
        .env("AFFECT_LOG_READS", "1")
        .args(["run", main.to_str().expect("UTF-8"), "--no-persist"])
        .output()
        .expect("the affect binary runs");
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    let mut reads: Vec<String> = err
        .lines()
        .filter_map(|l| l.strip_prefix("affect: reading "))
        .map(|p| {
            // `sub/../c.xml` is `c.xml`.
            let p = std::path::Path::new(p);
            let parent = p
                .parent()
                .expect("a directory")
                .canonicalize()
                .expect("exists");
            parent
                .join(p.file_name().expect("a file"))
                .display()
                .to_string()
        })
        .collect();
    reads.sort();
    let mut expected: Vec<String> = ["a.xml", "c.xml", "main.xml", "sub/b.xml"]
        .iter()
        .map(|f| {
            dir.canonicalize()
                .expect("exists")
                .join(f)
                .display()
                .to_string()
        })
        .collect();
    expected.sort();
    assert_eq!(reads, expected, "{err}");
    assert!(err.contains("root SUCCESS"), "{err}");
}

/// `affect build FILE.xml` builds the XML as imported, with its includes, without a `.affect`
/// file in between: the same XML as `import -o` then `build`, the included file written
/// beside it with `-o DIR/`; `--emit ir` too.
#[test]
fn build_takes_xml_as_imported() {
    let dir = support::scratch("groot_cli", "build_xml");
    let mission = "examples/xml/include/mission.xml";
    let direct = affect(&["build", mission, "--emit", "groot"]);
    assert_eq!(direct.status.code(), Some(0), "{}", text(&direct.stderr));
    let affect_file = dir.join("m.affect");
    let imported = affect(&["import", mission, "-o", affect_file.to_str().unwrap()]);
    assert_eq!(
        imported.status.code(),
        Some(0),
        "{}",
        text(&imported.stderr)
    );
    let via = affect(&["build", affect_file.to_str().unwrap(), "--emit", "groot"]);
    assert_eq!(via.status.code(), Some(0), "{}", text(&via.stderr));
    assert_eq!(text(&direct.stdout), text(&via.stdout));
    assert!(text(&direct.stdout).contains("<include path=\"child/dock.xml\"/>"));

    let out_dir = dir.join("out");
    let out = format!("{}/", out_dir.display());
    let written = affect(&["build", mission, "--emit", "groot", "-o", &out]);
    assert_eq!(written.status.code(), Some(0), "{}", text(&written.stderr));
    let child = std::fs::read_to_string(out_dir.join("child/dock.xml")).expect("written");
    assert!(child.contains("<BehaviorTree ID=\"Dock\">"), "{child}");
    assert!(out_dir.join("mission.xml").is_file());

    let ir = affect(&["build", mission, "--emit", "ir"]);
    assert_eq!(ir.status.code(), Some(0), "{}", text(&ir.stderr));
    assert!(!ir.stdout.is_empty());
}
