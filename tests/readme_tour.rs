//! The README's tour works as written: every `affect ...` line of its "one-minute tour" (and
//! the first of its two commands) runs through the binary, in order, in a scratch copy of
//! `examples/` (the tour writes `nav.jsonl`, `nav.affect`, `tree.xml` and the navigator's
//! memory file, and `affect fmt` rewrites a file in place), and succeeds. So every file a line
//! names is in the repository or made by an earlier line.
//!
//! The tour's last line, `python3 scripts/compare.py`, is a benchmark (a release build and
//! minutes of timing, with the oracle and py_trees installed): here it only has to start and
//! describe itself (`--help`).

mod support;

use std::path::Path;
use std::process::Command;

/// The lines of the README's tour block, continuation comments dropped.
fn tour() -> Vec<String> {
    let readme = std::fs::read_to_string(support::workspace().join("README.md")).unwrap();
    let start = readme
        .find("## A one-minute tour")
        .expect("the README has a tour");
    let block = &readme[start..];
    let open = block.find("```sh\n").expect("the tour is a sh block") + 6;
    let close = open + block[open..].find("```").expect("the block ends");
    block[open..close]
        .lines()
        .map(|l| l.split(" #").next().unwrap_or("").trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let dest = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &dest);
        } else {
            std::fs::copy(entry.path(), dest).unwrap();
        }
    }
}

/// `examples/*.affect` expanded as a shell would.
fn expand(word: &str, dir: &Path) -> Vec<String> {
    let Some((prefix, suffix)) = word.split_once('*') else {
        return vec![word.to_string()];
    };
    let folder = Path::new(&prefix[..prefix.rfind('/').unwrap_or(0)]);
    let mut names: Vec<String> = std::fs::read_dir(dir.join(folder))
        .unwrap()
        .map(|e| folder.join(e.unwrap().file_name()).display().to_string())
        .filter(|n| n.starts_with(prefix) && n.ends_with(suffix))
        .collect();
    names.sort();
    assert!(!names.is_empty(), "{word} matches nothing");
    names
}

#[test]
fn the_readme_tour_runs_as_written() {
    let dir = support::scratch("readme_tour", "tour");
    copy_dir(
        &support::workspace().join("examples"),
        &dir.join("examples"),
    );
    std::fs::create_dir_all(dir.join("scripts")).unwrap();
    // compare.py and the script it imports (it reports how much of `startup.order` the
    // release binary has).
    for script in ["scripts/compare.py", "scripts/startup_order.py"] {
        std::fs::copy(support::workspace().join(script), dir.join(script)).unwrap();
    }
    let lines = tour();
    assert!(lines.len() >= 10, "{lines:?}");
    let mut others = Vec::new();
    // What each line said on stderr, by its first words.
    let mut said: Vec<(String, String)> = Vec::new();
    // The README's first command, then the tour.
    let first = "affect run examples/navigator.affect".to_string();
    for line in std::iter::once(&first).chain(&lines) {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words[0] != "affect" {
            others.push(line.clone());
            continue;
        }
        let args: Vec<String> = words[1..].iter().flat_map(|w| expand(w, &dir)).collect();
        let out = Command::new(env!("CARGO_BIN_EXE_affect"))
            .args(&args)
            .current_dir(&dir)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "`{line}` failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        said.push((
            line.clone(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ));
    }
    let told = |start: &str| -> &str {
        let found = said.iter().find(|(l, _)| l.starts_with(start));
        &found.unwrap_or_else(|| panic!("no tour line `{start}`")).1
    };
    // Lines that write files say so.
    for (line, file) in [
        (
            "affect run examples/navigator.affect --ticks 600",
            "wrote nav.jsonl (",
        ),
        ("affect report", "wrote nav.html ("),
        ("affect import", "wrote nav.affect ("),
        ("affect gen-tree", "wrote tree.xml ("),
    ] {
        assert!(told(line).contains(file), "`{line}`: {}", told(line));
    }
    assert!(
        told("affect fmt").contains("1 file"),
        "{}",
        told("affect fmt")
    );
    // The stand-ins' line gives them what the program reads: no warning about it.
    let watch = told("affect run examples/xml/watch.affect");
    assert!(!watch.contains("never wrote"), "{watch}");
    // The failover launch lasts until the restarted component is back.
    let failover = told("affect launch examples/failover.affect");
    assert!(
        failover.contains("speech_production of Peoplebot: detected after")
            && failover.contains("recovered")
            && !failover.contains("not recovered"),
        "{failover}"
    );
    // The team's launch shows its progress and its handovers.
    let team = told("affect launch examples/recruitment.affect");
    assert!(
        team.contains("launch: ") && team.contains("handed over"),
        "{team}"
    );
    // What the lines say they make.
    for made in [
        "nav.jsonl",
        "nav.svg",
        "nav.affect",
        "tree.xml",
        "team.jsonl.zst",
    ] {
        assert!(dir.join(made).is_file(), "the tour did not make {made}");
    }
    assert!(dir.join("examples/feelings.eltm").is_file());
    assert_eq!(others, vec!["python3 scripts/compare.py".to_string()]);
    let out = Command::new("python3")
        .args(["scripts/compare.py", "--help"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("BehaviorTree.CPP"));
}
