//! `affect install-service` through the binary: the unit it prints (`--dry-run`) and writes
//! (`-o`), the `affect run` options it checks before writing anything, and that
//! docs/raspberry-pi.md shows the unit the command writes.

mod support;

use support::{affect, scratch, stderr, workspace};

/// The navigator's unit as the docs show it: the paths of this checkout replaced by the
/// robot's.
fn navigator_unit(extra: &[&str]) -> std::process::Output {
    let file = workspace().join("examples/navigator.affect");
    let args = [
        "install-service",
        file.to_str().unwrap(),
        "--user",
        "pi",
        "--affect",
        "/home/pi/affect",
    ];
    affect(&[&args[..], extra].concat())
}

#[test]
fn the_unit_runs_the_program_on_hardware_and_restarts_it() {
    let out = navigator_unit(&[
        "--dry-run",
        "--",
        "--sim-device",
        "place",
        "--record",
        "/home/pi/robot/runs.rec",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let unit = String::from_utf8(out.stdout).unwrap();
    let examples = workspace().join("examples");
    let exec = format!(
        "ExecStart=/home/pi/affect run {}/navigator.affect --hardware --sim-device place --record /home/pi/robot/runs.rec --ticks 864000\n",
        examples.display()
    );
    assert!(unit.contains(&exec), "{unit}");
    let stop_post = format!(
        "ExecStopPost=/home/pi/affect safe-stop {}/navigator.affect --sim-device place\n",
        examples.display()
    );
    for line in [
        "User=pi\n",
        &format!("WorkingDirectory={}\n", examples.display()),
        "KillSignal=SIGTERM\n",
        "KillMode=mixed\n",
        "Type=notify\n",
        "NotifyAccess=main\n",
        "WatchdogSec=5\n",
        &stop_post,
        "Restart=always\n",
        "WantedBy=multi-user.target\n",
    ] {
        assert!(unit.contains(line), "{line:?} in {unit}");
    }
    // The docs show this unit, for the program at /home/pi/robot.
    let as_on_the_robot = unit.replace(&examples.display().to_string(), "/home/pi/robot");
    let docs = std::fs::read_to_string(workspace().join("docs/raspberry-pi.md")).unwrap();
    assert!(
        docs.contains(&format!("```ini\n{as_on_the_robot}```")),
        "docs/raspberry-pi.md shows the unit:\n{as_on_the_robot}"
    );
}

#[test]
fn the_unit_is_written_where_asked_and_options_are_checked_first() {
    let dir = scratch("install_service", "output");
    let path = dir.join("robot.service");
    let out = navigator_unit(&[
        "-o",
        path.to_str().unwrap(),
        "--name",
        "robot",
        "--",
        "--ticks",
        "50",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let unit = std::fs::read_to_string(&path).unwrap();
    assert!(
        unit.contains("--hardware --ticks 50\n"),
        "its own --ticks: {unit}"
    );
    assert!(unit.contains("`robot` runs"), "{unit}");
    // An option `affect run` does not take: nothing written.
    let bad = dir.join("bad.service");
    let out = navigator_unit(&["-o", bad.to_str().unwrap(), "--", "--no-such-option"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--no-such-option"),
        "{}",
        stderr(&out)
    );
    assert!(!bad.exists());
    // A program that does not check: nothing written.
    let broken = dir.join("broken.affect");
    std::fs::write(&broken, "agent A { main { nope } }\n").unwrap();
    let out = affect(&[
        "install-service",
        broken.to_str().unwrap(),
        "-o",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(!bad.exists());
    // A name systemd would not take.
    let out = navigator_unit(&["--dry-run", "--name", "my robot"]);
    assert_eq!(out.status.code(), Some(2));
}
