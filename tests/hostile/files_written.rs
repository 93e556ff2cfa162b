//! Files written: write errors are errors; symlinks are written through; devices and FIFOs are
//! written into, never replaced; read-only files are refused and left alone.

use super::*;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};

const PROGRAM: &str = "agent A {\n    var x = 0;\n    main {\n        do { x = x + 1 }\n    }\n}\n";

#[test]
fn a_full_device_fails_the_command() {
    let dir = scratch("write_full");
    write(&dir, "a.affect", PROGRAM);
    for args in [
        vec![
            "run",
            "a.affect",
            "--ticks",
            "5",
            "--quiet",
            "--trace",
            "/dev/full",
        ],
        vec![
            "run",
            "a.affect",
            "--ticks",
            "5",
            "--quiet",
            "--plot",
            "/dev/full",
        ],
        vec!["build", "--emit", "groot", "a.affect", "-o", "/dev/full"],
    ] {
        let out = affect_in(&dir, &args);
        assert_ne!(status(&out), 0, "{args:?}");
        assert!(
            stderr(&out).contains("/dev/full"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    assert!(std::fs::metadata("/dev/full")
        .unwrap()
        .file_type()
        .is_char_device());
    // Standard output that refuses writes.
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "\"{}\" build --emit groot a.affect > /dev/full",
            env!("CARGO_BIN_EXE_affect")
        ))
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
}

#[test]
fn symlinks_are_written_through() {
    let dir = scratch("write_links");
    write(&dir, "a.affect", PROGRAM);
    std::os::unix::fs::symlink("real.xml", dir.join("out.xml")).unwrap();
    std::os::unix::fs::symlink("real.svg", dir.join("plot.svg")).unwrap();
    let out = affect_in(
        &dir,
        &["build", "--emit", "groot", "a.affect", "-o", "out.xml"],
    );
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    let out = affect_in(
        &dir,
        &[
            "run", "a.affect", "--ticks", "5", "--quiet", "--plot", "plot.svg",
        ],
    );
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    for (link, real) in [("out.xml", "real.xml"), ("plot.svg", "real.svg")] {
        let meta = std::fs::symlink_metadata(dir.join(link)).unwrap();
        assert!(meta.file_type().is_symlink(), "{link} was replaced");
        assert!(
            std::fs::read(dir.join(real)).unwrap().len() > 100,
            "{real} empty"
        );
    }
    // `affect fmt` on a link formats the file it points at.
    write(&dir, "messy.affect", "agent A { main { succeed } }\n");
    std::os::unix::fs::symlink("messy.affect", dir.join("tidy.affect")).unwrap();
    let out = affect_in(&dir, &["fmt", "tidy.affect"]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    assert!(std::fs::symlink_metadata(dir.join("tidy.affect"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::read_to_string(dir.join("messy.affect"))
        .unwrap()
        .contains("\n    main"));
}

#[test]
fn a_fifo_is_written_into() {
    let dir = scratch("write_fifo");
    write(&dir, "a.affect", PROGRAM);
    let fifo = dir.join("out.xml");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let out = affect_in(
        &dir,
        &["build", "--emit", "groot", "a.affect", "-o", "out.xml"],
    );
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    let got = reader.join().unwrap();
    assert!(String::from_utf8_lossy(&got).contains("<root"));
    assert!(
        std::fs::metadata(&fifo).unwrap().file_type().is_fifo(),
        "replaced"
    );
}

#[test]
fn a_read_only_file_is_refused_and_left_alone() {
    let dir = scratch("write_read_only");
    let p = write(&dir, "messy.affect", "agent A { main { succeed } }\n");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o444)).unwrap();
    let out = affect_in(&dir, &["fmt", "messy.affect"]);
    assert_ne!(status(&out), 0);
    assert!(stderr(&out).contains("read-only"), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&p).unwrap(),
        "agent A { main { succeed } }\n"
    );
    assert_eq!(
        std::fs::metadata(&p).unwrap().permissions().mode() & 0o777,
        0o444
    );
}
