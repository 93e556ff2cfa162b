//! The code list, the explanation pages and the compiler agree: every code has a page that
//! `affect explain` prints, whose wrong example produces the code and whose corrected example
//! checks clean; every code the compiler source mentions is in the list; every code a fixture
//! produces is known.
//!
//! An example is one file, or several files each starting with a `// file: PATH` line (the
//! first is checked; the others are what it `use`s). Pages of codes `affect run` reports
//! (E06xx) pair the program with the ```sh commands that run it, and the commands are run.

mod support;

use affect_compiler::{check_source, codes, Diagnostic};
use std::path::{Path, PathBuf};
use std::process::Command;
use support::affect;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The first fenced block in the section under the heading `## {section}`: its language
/// (`affect`, `xml`, `text`, ...) and its text.
fn example<'p>(page: &'p str, section: &str) -> Option<(&'p str, &'p str)> {
    let heading = format!("\n## {section}\n");
    let rest = &page[page.find(&heading)? + heading.len()..];
    let rest = &rest[..rest.find("\n## ").unwrap_or(rest.len())];
    let fence = &rest[rest.find("```")? + 3..];
    let lang_end = fence.find('\n')?;
    let body = &fence[lang_end + 1..];
    Some((fence[..lang_end].trim(), &body[..body.find("```")?]))
}

/// The first block fenced as ```{lang} in the section under the heading `## {section}`.
fn fenced<'p>(page: &'p str, section: &str, lang: &str) -> Option<&'p str> {
    let heading = format!("\n## {section}\n");
    let rest = &page[page.find(&heading)? + heading.len()..];
    let rest = &rest[..rest.find("\n## ").unwrap_or(rest.len())];
    let open = format!("```{lang}\n");
    let body = &rest[rest.find(&open)? + open.len()..];
    Some(&body[..body.find("```")?])
}

/// The files of an example: one file (`robot.affect`), or several, each starting with a
/// `// file: PATH` line (the first is the one checked or run; the others are what it uses).
fn example_files(example: &str) -> Vec<(String, String)> {
    if !example.starts_with("// file: ") {
        return vec![("robot.affect".to_string(), example.to_string())];
    }
    let mut files: Vec<(String, String)> = Vec::new();
    for line in example.lines() {
        match line.strip_prefix("// file: ") {
            Some(name) => files.push((name.trim().to_string(), String::new())),
            None => {
                let (_, text) = files.last_mut().expect("starts with a file line");
                text.push_str(line);
                text.push('\n');
            }
        }
    }
    files
}

/// Writes an example's files into a fresh directory; returns it and the main file's path.
fn write_example(code: &str, which: &str, example: &str) -> (support::Scratch, PathBuf) {
    let dir = support::scratch("error_pages", &format!("{code}_{which}"));
    let files = example_files(example);
    for (name, text) in &files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
    }
    let main = dir.join(&files[0].0);
    (dir, main)
}

/// Every `[E0123]` / `[W0123]` code in a command's output.
fn codes_in(text: &str) -> Vec<String> {
    let mut found: Vec<String> = text
        .match_indices('[')
        .filter_map(|(i, _)| text.get(i + 1..i + 7))
        .filter(|c| {
            c.ends_with(']')
                && matches!(c.as_bytes()[0], b'E' | b'W')
                && c[1..5].bytes().all(|b| b.is_ascii_digit())
        })
        .map(|c| c[..5].to_string())
        .collect();
    found.dedup();
    found
}

/// Runs a page's shell commands (`affect run ...`) in the directory of its example files:
/// the exit status and everything printed.
fn run_commands(dir: &Path, commands: &str) -> (Option<i32>, String) {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_affect"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .arg("-c")
        .arg(commands)
        .current_dir(dir)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .output()
        .expect("bash runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), text)
}

/// The problems of a page of a code `affect run` or file reading reports (E06xx, E08xx): its
/// examples are a program and the ```sh commands that run it.
fn run_page_problems(code: &str, page: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let (Some(wrong), Some(corrected), Some(command)) = (
        fenced(page, "Wrong", "affect"),
        fenced(page, "Corrected", "affect"),
        fenced(page, "Wrong", "sh"),
    ) else {
        return vec![
            "the page needs a `## Wrong` section with an ```affect program and the ```sh commands that run it, and a `## Corrected` section with an ```affect program".to_string(),
        ];
    };
    let corrected_command = fenced(page, "Corrected", "sh").unwrap_or(command);
    let (dir, _) = write_example(code, "wrong", wrong);
    let (status, text) = run_commands(&dir, command);
    let codes = codes_in(&text);
    if !codes.iter().any(|c| c == code) {
        problems.push(format!(
            "the wrong example does not produce {code} (exit {status:?}): {}",
            text.lines().take(3).collect::<Vec<_>>().join(" / ")
        ));
    }
    if let Some(other) = codes.iter().find(|c| c.starts_with("E0") && *c != code) {
        problems.push(format!("the wrong example produces {other} as well"));
    }
    let (dir, _) = write_example(code, "corrected", corrected);
    let (status, text) = run_commands(&dir, corrected_command);
    if status != Some(0) || codes_in(&text).iter().any(|c| c.starts_with('E')) {
        problems.push(format!(
            "the corrected example fails (exit {status:?}): {}",
            text.lines().take(3).collect::<Vec<_>>().join(" / ")
        ));
    }
    problems
}

/// A diagnostic as either checker reports it.
struct Found {
    code: String,
    severity: String,
    message: String,
}

/// Every diagnostic of an example: `check_source` (the syntax checks) and `affect check` run
/// on a file (every phase, as a user runs it), without duplicates.
fn diagnose(code: &str, which: &str, example: &str) -> Vec<Found> {
    let (_dir, file) = write_example(code, which, example);
    let main_text = std::fs::read_to_string(&file).unwrap();
    let mut found: Vec<Found> = check_source(&main_text)
        .iter()
        .map(|d: &Diagnostic| Found {
            code: d.code.to_string(),
            severity: d.severity.as_str().to_string(),
            message: d.message.clone(),
        })
        .collect();
    let out = affect(&["check", "--format", "json", file.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(file.parent().unwrap());
    match serde_json::from_slice::<serde_json::Value>(&out.stdout) {
        Ok(doc) => {
            for d in doc["diagnostics"].as_array().into_iter().flatten() {
                let f = Found {
                    code: d["code"].as_str().unwrap_or("?").to_string(),
                    severity: d["severity"].as_str().unwrap_or("?").to_string(),
                    message: d["message"].as_str().unwrap_or("").to_string(),
                };
                if !found
                    .iter()
                    .any(|g| g.code == f.code && g.message == f.message)
                {
                    found.push(f);
                }
            }
        }
        Err(_) => found.push(Found {
            code: "CRASH".into(),
            severity: "error".into(),
            message: format!(
                "`affect check` printed no JSON (exit {:?}): {}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .next()
                    .unwrap_or("")
            ),
        }),
    }
    found
}

fn describe(diags: &[Found]) -> String {
    diags
        .iter()
        .map(|d| format!("{} {}", d.code, d.message))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Checks one code's page; returns what is wrong with it.
fn page_problems(info: &codes::CodeInfo) -> Vec<String> {
    let code = info.code;
    let page = info.page;
    let mut problems = Vec::new();
    let title_line = format!("# {code}: {}", info.title);
    if page.lines().next() != Some(title_line.as_str()) {
        problems.push(format!("the page must start with `{title_line}`"));
    }
    if page.lines().count() <= 10 {
        problems.push("the page is still a placeholder".to_string());
        return problems;
    }

    let out = affect(&["explain", code]);
    if out.status.code() != Some(0) {
        problems.push(format!(
            "`affect explain {code}` exits {:?}",
            out.status.code()
        ));
    }
    if String::from_utf8_lossy(&out.stdout) != page {
        problems.push(format!("`affect explain {code}` does not print the page"));
    }
    // Diagnostics of `affect run` and of reading files: the page's commands run its program.
    if code.starts_with("E06") || code.starts_with("E08") {
        problems.extend(run_page_problems(code, page));
        return problems;
    }

    let (Some((lang, wrong)), Some((_, corrected))) =
        (example(page, "Wrong"), example(page, "Corrected"))
    else {
        problems.push(
            "the page needs a `## Wrong` and a `## Corrected` section, each with an example"
                .to_string(),
        );
        return problems;
    };
    // Pages of diagnostics that other commands report (the XML importer, the exporters) show
    // XML or annotated source; only `affect` examples can be checked here.
    if lang != "affect" {
        return problems;
    }
    let diags = diagnose(code, "wrong", wrong);
    if !diags.iter().any(|d| d.code == code) {
        problems.push(format!(
            "the wrong example does not produce {code}; it gives [{}]",
            describe(&diags)
        ));
    }
    // Exactly this code among the codes of its family (E01xx/W01xx for syntax, E02xx/W02xx
    // for names, ...): the example shows this mistake and no other.
    let family = &code[1..3];
    if diags
        .iter()
        .any(|d| &d.code[1..3] == family && d.code != code)
    {
        problems.push(format!(
            "the wrong example produces other codes as well: [{}]",
            describe(&diags)
        ));
    }
    let diags = diagnose(code, "corrected", corrected);
    if diags.iter().any(|d| d.severity == "error") {
        problems.push(format!(
            "the corrected example has errors: [{}]",
            describe(&diags)
        ));
    }
    problems
}

#[test]
fn every_code_has_a_page_with_examples_that_hold() {
    assert!(!codes::CODES.is_empty());
    let problems: Vec<String> = codes::CODES
        .iter()
        .flat_map(|info| {
            page_problems(info)
                .into_iter()
                .map(move |p| format!("{}: {p}", info.code))
        })
        .collect();
    assert!(
        problems.is_empty(),
        "{} problem(s) with the error pages (docs/errors/CODE.md):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn error_index_lists_every_code() {
    let index = std::fs::read_to_string(root().join("docs/errors/README.md")).unwrap();
    let missing: Vec<String> = codes::CODES
        .iter()
        .map(|info| format!("| [{0}]({0}.md) | {1} |", info.code, info.title))
        .filter(|row| !index.contains(row.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/errors/README.md lacks the rows:\n{}",
        missing.join("\n")
    );
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every `"E0123"` / `"W0123"` string literal in the text.
fn code_literals(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    for i in 0..bytes.len() {
        let is_code = bytes[i] == b'"'
            && matches!(bytes.get(i + 1), Some(b'E' | b'W'))
            && bytes.get(i + 2) == Some(&b'0')
            && bytes.len() > i + 6
            && bytes[i + 3..i + 6].iter().all(u8::is_ascii_digit)
            && bytes[i + 6] == b'"';
        if is_code {
            found.push(text[i + 1..i + 6].to_string());
        }
    }
    found
}

#[test]
fn every_code_in_the_compiler_source_is_listed() {
    let mut files = Vec::new();
    rust_files(&root().join("compiler/src"), &mut files);
    files.sort();
    assert!(!files.is_empty());
    let mut checked = 0;
    let mut unknown = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for code in code_literals(&text) {
            checked += 1;
            if codes::lookup(&code).is_none() {
                let shown = f.strip_prefix(root()).unwrap_or(&f).display().to_string();
                unknown.push(format!("{shown} uses {code}"));
            }
        }
    }
    unknown.sort();
    unknown.dedup();
    assert!(checked > 20, "found only {checked} code literals");
    assert!(
        unknown.is_empty(),
        "codes used in the compiler but missing from codes::CODES:\n{}",
        unknown.join("\n")
    );
}

#[test]
fn every_fixture_code_is_known() {
    for dir in ["tests/fixtures/syntax/fail", "tests/fixtures/syntax/pass"] {
        for entry in std::fs::read_dir(root().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "affect") {
                continue;
            }
            let src = std::fs::read_to_string(&path).unwrap();
            for d in check_source(&src) {
                assert!(
                    codes::lookup(d.code).is_some(),
                    "{}: unknown code {}",
                    path.display(),
                    d.code
                );
            }
        }
    }
}

#[test]
fn explain_ignores_case() {
    let upper = affect(&["explain", "E0101"]);
    let lower = affect(&["explain", "e0101"]);
    assert_eq!(lower.status.code(), Some(0));
    assert_eq!(lower.stdout, upper.stdout);
    assert!(String::from_utf8_lossy(&lower.stdout).starts_with("# E0101: unexpected token"));
}

#[test]
fn explain_unknown_code_fails_with_a_suggestion() {
    let out = affect(&["explain", "E9999"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("`E9999` is not a diagnostic code"), "{err}");
    // Nothing is close to E9999: the list of codes is the suggestion.
    for info in codes::CODES {
        assert!(
            err.contains(info.code),
            "the codes listed lack {}: {err}",
            info.code
        );
    }

    // A near miss gets a "did you mean".
    let out = affect(&["explain", "E0119"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("did you mean `E01"), "{err}");
}
