//! Every kind of actuator reaches its safe state whatever dies, end to end: the Romi's motors
//! over the emulated I2C bus, GPIO outputs, hardware PWM and software PWM through rppal on the
//! emulated Pi (shim/pi_shim.c: the BCM2711's GPIO registers in a file mapped shared, the
//! kernel's PWM sysfs as plain files). The robot drives each away from its safe state, then:
//! the run alone is killed (`kill -9`: only the watchdog can act), or the watchdog is told to
//! stop (SIGTERM) and the run is killed right after. What is left in the emulated registers
//! and files is what a real Pi would be left driving.

mod support;

use std::process::Command;
use std::time::Duration;
use support::shim::{eventually, kill, send, Bus, Running};

/// Every actuator kind, each driven away from its safe level by the program: a pin whose safe
/// level is low driven high and one whose safe level is high driven low, two PWM channels (safe
/// duty 0 and a quarter), a software PWM toggling at half duty, and the motors.
const ROBOT: &str = "enum Direction { Up, Down, Left, Right }

action Move(in direction: Direction);

agent Robot {
    rate 10Hz;
    actuator base = romi32u4(bus: 1, address: 0x14);
    actuator led: num = gpio_out(pin: 5, safe: 0);
    actuator brake: num = gpio_out(pin: 6, safe: 1);
    actuator lamp: num = pwm(channel: 0, frequency: 2kHz, safe: 0);
    actuator fan: num = pwm(channel: 1, frequency: 25kHz, safe: 0.25);
    actuator buzzer: num = soft_pwm(pin: 13, frequency: 200Hz, safe: 0);

    update {
        led = 1;
        brake = 0;
        lamp = 0.7;
        fan = 0.9;
        buzzer = 0.5;
    }
    main {
        repeat(-1) {
            sequence {
                Move(direction: Up)
                Move(direction: Down)
            }
        }
    }
}
";

const LED: u32 = 5;
const BRAKE: u32 = 6;
const BUZZER: u32 = 13;

/// A long run of the robot on a bus of its own, with the watchdog.
fn start(name: &str) -> (Bus, Running) {
    let bus = Bus::new(name);
    let program = bus.dir.join("robot.affect");
    std::fs::write(&program, ROBOT).unwrap();
    let mut c = bus.run(&program);
    c.args(["--ticks", "100000", "--watchdog-ms", "300"])
        .stderr(std::process::Stdio::piped());
    let run = Running(Some(c.spawn().unwrap()));
    (bus, run)
}

/// Waits until every actuator has been driven away from its safe state.
fn wait_until_driven(bus: &Bus, run: &mut Running) {
    let driven = || {
        bus.speeds() != (0, 0)
            && bus.output(LED) == Some(true)
            && bus.output(BRAKE) == Some(false)
            && duty(bus, 0) == Some("0.70".into())
            && duty(bus, 1) == Some("0.90".into())
            && bus.output(BUZZER).is_some()
    };
    let ok = eventually(30, || {
        if let Ok(Some(status)) = run.child().try_wait() {
            panic!("the run ended ({status}) before driving its actuators");
        }
        driven()
    });
    assert!(ok, "not every actuator was driven: {}", state(bus));
}

/// PWM channel `channel`'s duty cycle as a share of its period, when it is exported and
/// enabled.
fn duty(bus: &Bus, channel: u32) -> Option<String> {
    let (duty, period, on) = bus.pwm(channel)?;
    on.then(|| format!("{:.2}", duty as f64 / period as f64))
}

/// What is left in its safe state, as one comparable value (so a failure shows everything).
fn state(bus: &Bus) -> String {
    format!(
        "motors {:?}, led {:?}, brake {:?}, lamp {:?}, fan {:?}, buzzer {:?}",
        bus.speeds(),
        bus.output(LED),
        bus.output(BRAKE),
        duty(bus, 0),
        duty(bus, 1),
        bus.output(BUZZER)
    )
}

/// Motors at 0, the pins at their safe levels (still outputs), the PWM channels enabled at
/// their safe duty cycles, the software PWM's pin low.
const SAFE: &str = "motors (0, 0), led Some(false), brake Some(true), lamp Some(\"0.00\"), fan Some(\"0.25\"), buzzer Some(false)";

/// The run's watchdog (its one child process).
fn watchdog_of(run: u32) -> u32 {
    let out = Command::new("pgrep")
        .args(["-P", &run.to_string()])
        .output()
        .expect("pgrep runs");
    let pids: Vec<u32> = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    assert_eq!(
        pids.len(),
        1,
        "the run has one child, its watchdog: {pids:?}"
    );
    pids[0]
}

/// Holds for a while after it first holds: nothing is left to move anything.
fn stays_safe(bus: &Bus, what: &str) {
    let reached = eventually(10, || state(bus) == SAFE);
    assert!(reached, "{what}: left {}", state(bus));
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(state(bus), SAFE, "{what}");
}

/// What `pid` (the watchdog) set each output to never was anything but its safe level: it
/// opens each pin on a fresh handle at that level, so a brake whose safe level is high is not
/// released for a moment on the way. A PWM channel is the exception rppal makes: opening one
/// disables it and zeroes its duty cycle before anything else (rppal 0.22's `Pwm::new` and
/// `with_frequency`), so a fan whose safe duty cycle is a quarter is off for a moment
/// (docs/raspberry-pi.md).
fn only_safe_levels_from(bus: &Bus, pid: u32) {
    let safe = |what: char, place: &str, value: u64| match (what, place) {
        ('G', "5") | ('G', "13") => value == 0,
        ('G', "6") => value == 1,
        ('P', "pwmchip0/pwm0") => value == 0,
        // A quarter of the 25 kHz period (40 µs), or rppal's zero on opening.
        ('P', "pwmchip0/pwm1") => value == 10_000 || value == 0,
        _ => false,
    };
    let by_watchdog: Vec<_> = (bus.gpio_log().into_iter())
        .filter(|(p, ..)| *p == pid)
        .collect();
    assert!(!by_watchdog.is_empty(), "the watchdog set the outputs");
    for (_, what, place, value) in &by_watchdog {
        assert!(
            safe(*what, place, *value),
            "the watchdog set {what} {place} to {value}: {by_watchdog:?}"
        );
    }
}

#[test]
fn a_killed_run_has_every_actuator_set_safe_by_the_watchdog() {
    let (bus, mut run) = start("kill");
    wait_until_driven(&bus, &mut run);
    let watchdog = watchdog_of(run.child().id());
    run.signal("KILL");
    drop(run);
    stays_safe(&bus, "kill -9 of the run");
    only_safe_levels_from(&bus, watchdog);
}

#[test]
fn sigterm_to_the_watchdog_then_kill_9_of_the_run_leaves_every_actuator_safe() {
    for round in 0..3 {
        let (bus, mut run) = start(&format!("term-kill-{round}"));
        wait_until_driven(&bus, &mut run);
        let watchdog = watchdog_of(run.child().id());
        kill(watchdog, "TERM");
        // Within the time the run takes to notice, or not.
        std::thread::sleep(Duration::from_millis(round * 40));
        send(run.child().id(), "KILL");
        drop(run);
        stays_safe(&bus, &format!("round {round}"));
        only_safe_levels_from(&bus, watchdog);
    }
}

/// Without a watchdog a killed run leaves everything driven (what the tests above would see
/// if the watchdog did nothing); `affect safe-stop`, the unit's `ExecStopPost=`, then sets
/// every actuator safe from a process of its own.
#[test]
fn safe_stop_sets_every_actuator_a_killed_run_left_driven() {
    let bus = Bus::new("safe-stop");
    let program = bus.dir.join("robot.affect");
    std::fs::write(&program, ROBOT).unwrap();
    let mut c = bus.run(&program);
    c.args(["--ticks", "100000", "--watchdog-ms", "0"])
        .stderr(std::process::Stdio::piped());
    let mut run = Running(Some(c.spawn().unwrap()));
    wait_until_driven(&bus, &mut run);
    run.signal("KILL");
    drop(run);
    std::thread::sleep(Duration::from_millis(300));
    let left = state(&bus);
    assert!(
        left.contains("led Some(true), brake Some(false), lamp Some(\"0.70\"), fan Some(\"0.90\")"),
        "nothing set them safe: {left}"
    );
    assert_ne!(bus.speeds(), (0, 0), "nothing stopped the motors");
    let out = bus
        .affect()
        .arg("safe-stop")
        .arg(&program)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", support::stderr(&out));
    assert!(
        support::stderr(&out).contains("safe: 6 actuators"),
        "{}",
        support::stderr(&out)
    );
    assert_eq!(state(&bus), SAFE);
}
