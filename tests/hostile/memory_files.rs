//! Long-term memory files: every damage class is E0603 at the program's `persist` line,
//! before the first tick, with the file left exactly as it was; writes keep permissions and
//! refuse what cannot be written before the run.

use super::*;
use std::os::unix::fs::PermissionsExt;

/// A program whose memory persists in `feelings.eltm`; its `persist` is on line 6.
const PROGRAM: &str = "agent Navigator {
    sensor place: Label = camera_label();
    var score: num = 50;
    memory feelings keyed by place {
        short_term 3 weights [0.5, 0.3, 0.2];
        persist \"feelings.eltm\";
    }
    main {
        skip_unless_updated(place) {
            do { score = feelings.remember(place, score) }
        }
    }
}
";

/// A valid memory file, as `affect run` writes it.
fn written(dir: &Path) -> Vec<u8> {
    let out = affect_in(dir, &["run", "robot.affect", "--ticks", "40", "--quiet"]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    std::fs::read(dir.join("feelings.eltm")).unwrap()
}

fn refused(dir: &Path, what: &str) {
    let before = std::fs::read(dir.join("feelings.eltm")).ok();
    let out = affect_in(dir, &["run", "robot.affect", "--ticks", "5"]);
    let err = stderr(&out);
    assert_eq!(status(&out), 1, "{what}: {err}");
    assert!(err.contains("[E0603]"), "{what}: {err}");
    assert!(
        err.contains("robot.affect:6:"),
        "{what}: not at the persist line: {err}"
    );
    assert!(
        !err.contains("ticks, root"),
        "{what}: the run started: {err}"
    );
    assert_eq!(
        std::fs::read(dir.join("feelings.eltm")).ok(),
        before,
        "{what}: the file changed"
    );
}

#[test]
fn every_damage_class_is_e0603_at_the_persist_line_before_the_run() {
    let dir = scratch("memory_damage");
    write(&dir, "robot.affect", PROGRAM);
    let good = written(&dir);
    assert!(good.starts_with(b"affect long-term memory v3\n"));
    let text = String::from_utf8(good.clone()).unwrap();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut damaged: Vec<(String, Vec<u8>)> = Vec::new();
    // Cut at every length: inside lines, and exactly between them.
    for cut in (0..good.len()).step_by(7).chain(
        lines
            .iter()
            .scan(0, |at, l| {
                *at += l.len();
                Some(*at)
            })
            .filter(|&at| at < good.len()),
    ) {
        damaged.push((format!("cut at {cut}"), good[..cut].to_vec()));
    }
    // A flipped byte anywhere, a letter of a key included.
    for i in (0..good.len()).step_by(5) {
        let mut b = good.clone();
        b[i] ^= 0x01;
        damaged.push((format!("byte {i} flipped"), b));
    }
    // A missing field, an extra field, an empty file, a binary file, a 1 MB key.
    let body = |f: &dyn Fn(&str) -> String| -> Vec<u8> {
        lines.iter().map(|l| f(l)).collect::<String>().into_bytes()
    };
    damaged.push((
        "a field missing".into(),
        body(&|l| match l.matches('\t').count() {
            2 => l.splitn(3, '\t').take(2).collect::<Vec<_>>().join("\t") + "\n",
            _ => l.to_string(),
        }),
    ));
    damaged.push((
        "a field added".into(),
        body(&|l| {
            if l.starts_with("memory") {
                format!("{}\tx\t1\t2\t3\n", l.trim_end())
            } else {
                l.to_string()
            }
        }),
    ));
    damaged.push(("empty".into(), Vec::new()));
    damaged.push((
        "binary".into(),
        vec![0x89, b'P', b'N', b'G', 0, 0xff, 0xfe, 7],
    ));
    damaged.push((
        "a 1 MB key".into(),
        format!(
            "affect long-term memory v2\nmemory feelings\n{}\t50\t50\n",
            "k".repeat(1 << 20)
        )
        .into_bytes(),
    ));
    for (what, bytes) in damaged {
        std::fs::write(dir.join("feelings.eltm"), &bytes).unwrap();
        refused(&dir, &what);
        // `affect memory show` refuses it the same way, without a panic.
        let out = affect_in(&dir, &["memory", "show", "feelings.eltm"]);
        assert_eq!(status(&out), 1, "{what}: {}", stderr(&out));
        assert!(stderr(&out).contains("E0603"), "{what}");
    }
}

#[test]
fn earlier_versions_are_read_and_rewritten_as_v3() {
    let dir = scratch("memory_versions");
    write(&dir, "robot.affect", PROGRAM);
    write(
        &dir,
        "feelings.eltm",
        "affect long-term memory v2\nmemory feelings\nA\t63.2\t42\nK\t18.5\t22\nA\tK\n",
    );
    let out = affect_in(
        &dir,
        &["memory", "show", "feelings.eltm", "--format", "json"],
    );
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    let after = written(&dir);
    assert!(after.starts_with(b"affect long-term memory v3\n"));
}

#[test]
fn writes_keep_permissions_and_refuse_before_the_run() {
    let dir = scratch("memory_permissions");
    write(&dir, "robot.affect", PROGRAM);
    written(&dir);
    let mem = dir.join("feelings.eltm");
    std::fs::set_permissions(&mem, std::fs::Permissions::from_mode(0o600)).unwrap();
    written(&dir);
    let mode = std::fs::metadata(&mem).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "permissions kept");
    // A read-only file: an error before the run, the file unchanged and still read-only.
    std::fs::set_permissions(&mem, std::fs::Permissions::from_mode(0o400)).unwrap();
    refused(&dir, "read-only file");
    let mode = std::fs::metadata(&mem).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o400);
    std::fs::set_permissions(&mem, std::fs::Permissions::from_mode(0o600)).unwrap();
    // Leftovers of a killed write are removed by the next one.
    write(&dir, ".feelings.eltm.affect-tmp.4194303", "half a file");
    written(&dir);
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.contains("affect-tmp")), "{names:?}");
}

#[test]
fn an_unwritable_directory_is_an_error_before_the_run() {
    // No one, root included, can create a file in /proc.
    let dir = scratch("memory_dir");
    write(
        &dir,
        "robot.affect",
        PROGRAM.replace("feelings.eltm", "/proc/feelings.eltm"),
    );
    let out = affect_in(&dir, &["run", "robot.affect", "--ticks", "5"]);
    assert_eq!(status(&out), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("[E0603]"), "{}", stderr(&out));
    assert!(stderr(&out).contains("robot.affect:6:"), "{}", stderr(&out));
    assert!(!stderr(&out).contains("ticks, root"), "{}", stderr(&out));
}
