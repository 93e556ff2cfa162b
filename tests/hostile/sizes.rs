//! Size: ten times the sizes the issue names, each a result or a coded diagnostic in bounded
//! output. (The time and memory of each are measured in benches/hostile.rs.)

use super::*;

#[test]
fn a_run_of_closers_is_one_diagnostic_with_short_lines() {
    let dir = scratch("size_closers");
    // 300 KB of stray closers: on one line, and on lines of 100. Closers one after the other
    // are one mistake: one diagnostic, which says how many there are and where they end.
    let one_line = format!("tree T() {{\n    succeed\n}}\n{}\n", "})]".repeat(100_000));
    let lines = format!(
        "tree T() {{\n    succeed\n}}\n{}",
        format!("{}\n", "}".repeat(100)).repeat(3_000)
    );
    for (name, text, line) in [
        ("one_line.affect", one_line, 4),
        ("lines.affect", lines, 3003),
    ] {
        write(&dir, name, text);
        let out = affect_in(&dir, &["check", name]);
        assert_eq!(status(&out), 1, "{name}");
        let err = stderr(&out);
        assert!(err.len() < 20_000, "{name}: {} bytes of output", err.len());
        assert_eq!(err.matches("[E0108]").count(), 1, "{name}: {err}");
        assert!(
            err.contains(&format!(
                "299999 more closing delimiters after it, up to line {line}, close nothing either"
            )),
            "{name}: {err}"
        );
        assert!(
            err.lines().all(|l| l.len() < 400),
            "{name}: a line of {} bytes",
            err.lines().map(str::len).max().unwrap_or(0)
        );
        let (_, codes) = check(&dir, name);
        assert_eq!(codes, ["E0108"], "{name}: JSON has the same one");
    }
}

/// Stray closers with something between them are separate mistakes, each reported; JSON
/// reports every one, the human output 100.
#[test]
fn separate_stray_closers_are_each_reported() {
    let dir = scratch("size_strays");
    let n = 30_000;
    let strays: String = (0..n).map(|i| format!("action A{i}();\n}}\n")).collect();
    let text = format!("tree T() {{\n    succeed\n}}\n{strays}");
    write(&dir, "strays.affect", text);
    let (st, codes) = check(&dir, "strays.affect");
    assert_eq!(st, 1);
    assert_eq!(codes.len(), n);
    assert!(codes.iter().all(|c| c == "E0108"));
    let err = stderr(&affect_in(&dir, &["check", "strays.affect"]));
    assert_eq!(err.matches("[E0108]").count(), 100);
}

#[test]
fn a_200_000_line_program_checks() {
    let dir = scratch("size_long");
    let mut s = String::new();
    for i in 0..10_000 {
        s.push_str(&format!(
            "enum Mode{i} {{ Idle, Busy }}\nconst LIMIT{i} = {i} + 10;\naction Work{i}(in amount: num);\ntree Task{i}(in level: num) {{\n    var mode: Mode{i} = Idle;\n    sequence {{\n        check level < LIMIT{i}\n        Work{i}(amount: level * 2)\n        do {{ mode = Busy }}\n    }}\n}}\n\n"
        ));
    }
    s.push_str("agent Robot {\n    var level: num = 1;\n    main {\n        sequence {\n");
    for i in 0..10_000 {
        s.push_str(&format!("            Task{i}(level: level)\n"));
    }
    s.push_str("        }\n    }\n}\n");
    assert!(s.lines().count() > 120_000);
    write(&dir, "long.affect", &s);
    assert_eq!(check(&dir, "long.affect"), (0, vec![]));
}

#[test]
fn chains_of_30_000_constants_values_and_trees_check() {
    let dir = scratch("size_chains");
    let n = 30_000;
    let consts: String = std::iter::once("const C0 = 1;\n".to_string())
        .chain((1..n).map(|i| format!("const C{i} = C{} + 1;\n", i - 1)))
        .collect::<String>()
        + &format!(
            "agent A {{\n    var x = C{};\n    main {{ succeed }}\n}}\n",
            n - 1
        );
    let lets: String = "agent A {\n    var x = 0;\n    let L0 = x + 1;\n".to_string()
        + &(1..n)
            .map(|i| format!("    let L{i} = L{} + 1;\n", i - 1))
            .collect::<String>()
        + &format!("    main {{ do {{ x = L{} }} }}\n}}\n", n - 1);
    let cycle: String = (0..n)
        .map(|i| format!("tree T{i}() {{ T{}() }}\n", (i + 1) % n))
        .collect::<String>()
        + "agent A { main { T0() } }\n";
    write(&dir, "consts.affect", consts);
    write(&dir, "lets.affect", lets);
    write(&dir, "cycle.affect", cycle);
    assert_eq!(check(&dir, "consts.affect"), (0, vec![]));
    assert_eq!(check(&dir, "lets.affect"), (0, vec![]));
    let (st, codes) = check(&dir, "cycle.affect");
    assert_eq!(st, 1);
    assert!(codes.contains(&"E0209".to_string()), "{codes:?}");
}

#[test]
fn tokens_of_10_mb_check() {
    let dir = scratch("size_tokens");
    let big = 10 * 1024 * 1024;
    let name = "n".repeat(big);
    let cases = [
        (
            "ident.affect",
            format!("tree {name}() {{\n    succeed\n}}\n"),
            vec![],
        ),
        (
            "string.affect",
            format!("const S = \"{}\";\n", "s".repeat(big)),
            vec![],
        ),
        (
            "comment.affect",
            format!("// {}\ntree T() {{\n    succeed\n}}\n", "c".repeat(big)),
            vec![],
        ),
        (
            "block_comment.affect",
            format!("/* {} */\ntree T() {{\n    succeed\n}}\n", "*".repeat(big)),
            vec![],
        ),
        (
            "unterminated.affect",
            format!("const S = \"{}\n", "s".repeat(big)),
            vec!["E0103"],
        ),
        // The message quotes the literal: cut in the middle, like a long source line.
        (
            "number.affect",
            format!("const N = {};\n", "9".repeat(big)),
            vec!["E0106"],
        ),
    ];
    for (file, text, want) in cases {
        write(&dir, file, text);
        let (st, codes) = check(&dir, file);
        assert_eq!(codes, want, "{file}");
        assert_eq!(st, if want.is_empty() { 0 } else { 1 }, "{file}");
        for args in [vec!["check", file], vec!["check", "--format", "json", file]] {
            let out = affect_in(&dir, &args);
            let printed = stderr(&out) + &stdout(&out);
            assert!(printed.len() < 20_000, "{args:?}: output echoes the token");
        }
    }
}

#[test]
fn half_a_million_declarations_check() {
    let dir = scratch("size_decls");
    let s: String = (0..500_000)
        .map(|i| format!("action Step{i}();\n"))
        .collect();
    write(&dir, "decls.affect", s);
    assert_eq!(check(&dir, "decls.affect"), (0, vec![]));
}

/// A node with `n` children, each a script.
fn wide(n: usize) -> String {
    let mut s = String::from("agent A {\n    var x = 0;\n    main {\n        sequence {\n");
    for _ in 0..n {
        s.push_str("            do { x = x + 1 }\n");
    }
    s.push_str("        }\n    }\n}\n");
    s
}

#[test]
fn a_node_with_100_000_children_runs_in_the_interpreter() {
    let dir = scratch("size_wide");
    write(&dir, "wide.affect", wide(100_000));
    let out = affect_in(
        &dir,
        &["run", "wide.affect", "--ticks", "3", "--engine", "interp"],
    );
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains("x = 300000"), "{}", stderr(&out));
}

/// A reactive fallback of 10,000 children (conditions, scripts, a sleep that keeps it
/// running) in the JIT, whose code for such a node is a loop (it once needed gigabytes at
/// 1,000 children): the same trace and result as the interpreter's, under the memory limit.
#[test]
fn a_node_with_10_000_children_runs_in_the_jit_as_in_the_interpreter() {
    let dir = scratch("size_wide_jit");
    let mut s =
        String::from("agent A {\n    var x = 0;\n    main {\n        reactive_fallback {\n");
    for i in 0..10_000 {
        s.push_str(&match i % 4 {
            0 => "            check x < 0\n".to_string(),
            1 => "            invert { do { x = x + 1 } }\n".to_string(),
            2 if i == 9_998 => "            sleep(250ms)\n".to_string(),
            _ => "            check x > 1000000\n".to_string(),
        });
    }
    s.push_str("        }\n    }\n}\n");
    write(&dir, "wide.affect", s);
    let run = |engine: &str| {
        let trace = format!("{engine}.jsonl");
        let out = affect_in(
            &dir,
            &[
                "run",
                "wide.affect",
                "--ticks",
                "4",
                "--engine",
                engine,
                "--trace",
                &trace,
            ],
        );
        assert_eq!(status(&out), 0, "{engine}: {}", stderr(&out));
        assert!(!stderr(&out).contains("not available"), "{}", stderr(&out));
        // The summary without the line that says how long the run took, nor the one that
        // names the engine's own trace file.
        let summary: Vec<String> = stderr(&out)
            .lines()
            .filter(|l| !l.starts_with("ran ") && !l.starts_with("wrote "))
            .map(str::to_string)
            .collect();
        (summary, std::fs::read_to_string(dir.join(trace)).unwrap())
    };
    let (interp, interp_trace) = run("interp");
    let (jit, jit_trace) = run("jit");
    assert!(interp.iter().any(|l| l.contains("x = 10000")), "{interp:?}");
    assert!(interp_trace.lines().count() > 40_000);
    assert_eq!(interp, jit);
    assert!(interp_trace == jit_trace, "the traces differ");
}

#[test]
fn trees_that_multiply_are_e0321() {
    let dir = scratch("size_multiply");
    let mut s: String = (0..40)
        .map(|i| {
            format!(
                "tree T{i}() {{\n    sequence {{\n        T{0}()\n        T{0}()\n    }}\n}}\n",
                i + 1
            )
        })
        .collect();
    s.push_str("tree T40() {\n    succeed\n}\nagent A {\n    main { T0() }\n}\n");
    write(&dir, "multiply.affect", s);
    assert_eq!(
        check(&dir, "multiply.affect"),
        (1, vec!["E0321".to_string()])
    );
}

#[test]
fn fifty_thousand_trees_check_run_and_export() {
    // Each tree called once from `main`, and a chain of 10,000 trees calling the next: the
    // checker and the exporter once did per-tree work over every tree (n²).
    let dir = scratch("size_trees");
    let n = 50_000;
    let mut s: String = (0..n)
        .map(|i| format!("tree T{i}() {{\n    succeed\n}}\n"))
        .collect();
    s.push_str("main tree Main {\n    sequence {\n");
    for i in 0..n {
        s.push_str(&format!("        T{i}()\n"));
    }
    s.push_str("    }\n}\n");
    write(&dir, "trees.affect", s);
    assert_eq!(check(&dir, "trees.affect"), (0, vec![]));
    let out = affect_in(&dir, &["run", "trees.affect", "--ticks", "1", "--quiet"]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    let out = affect_in(&dir, &["build", "--emit", "groot", "trees.affect"]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out).matches("<BehaviorTree ID=").count(), n + 1);
    assert!(stdout(&out).contains(&format!("<SubTree ID=\"T{}\"/>", n - 1)));

    let chain = 10_000;
    let mut s: String = (0..chain)
        .map(|i| format!("tree T{i}() {{\n    T{}()\n}}\n", i + 1))
        .collect();
    s.push_str(&format!(
        "tree T{chain}() {{\n    succeed\n}}\nmain tree Main {{\n    T0()\n}}\n"
    ));
    write(&dir, "chain.affect", s);
    // Deeper than a run can inline: the checker refuses it (E0118), and `build` exports only
    // what checks, so it says so, in bounded time and without a crash.
    let out = affect_in(&dir, &["build", "--emit", "groot", "chain.affect"]);
    assert_eq!(status(&out), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("E0118"), "{}", stderr(&out));
    assert!(stdout(&out).is_empty(), "nothing exported");
}

#[test]
fn a_call_with_200_000_ports_exports_and_runs() {
    // The exporter and its read-back matched each argument to a port (and set each
    // attribute) by searching lists (n²: over 60 s); the JIT took 500 MB to compile the
    // call, which now runs in the interpreter.
    let dir = scratch("size_ports");
    let n = 200_000;
    let ports: Vec<String> = (0..n).map(|i| format!("in p{i}: num")).collect();
    let args: Vec<String> = (0..n).map(|i| format!("p{i}: {i}")).collect();
    let src = format!(
        "action Wide({});\nmain tree Main {{\n    Wide({})\n}}\n",
        ports.join(", "),
        args.join(", ")
    );
    write(&dir, "ports.affect", src);
    assert_eq!(check(&dir, "ports.affect"), (0, vec![]));
    let out = affect_in(&dir, &["build", "--emit", "groot", "ports.affect"]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    let xml = stdout(&out);
    let call = xml
        .lines()
        .find(|l| l.trim_start().starts_with("<Wide "))
        .expect("the call is an element");
    assert_eq!(call.matches("=\"").count(), n, "one attribute per port");
    assert!(call.contains(" p0=\"0\"") && call.contains(" p199999=\"199999\""));
    // The JIT engine and the tiered default both fall back to the interpreter and say so.
    for engine in ["jit", "tiered"] {
        let out = affect_in(
            &dir,
            &[
                "run",
                "ports.affect",
                "--ticks",
                "2",
                "--quiet",
                "--engine",
                engine,
            ],
        );
        assert_eq!(status(&out), 0, "{}", stderr(&out));
        assert!(
            stderr(&out).contains("the JIT is not available (a call binds 200000 ports"),
            "{engine}: {}",
            stderr(&out)
        );
    }
}
