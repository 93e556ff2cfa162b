//! The Romi 32U4 firmware (firmware/) on a simulated ATmega32U4: the very ELF that is flashed
//! runs in simavr, and `firmware/test/harness.c` plays the Raspberry Pi on its I2C bus, its
//! wheels' encoders, its battery and its button. The tests check the motor timeout (motors
//! stop when no speed command arrived for the configured time, and only then) and that the
//! buffer is Pololu's RomiRPiSlaveDemo layout, which affect's driver speaks.
//!
//! Needs avr-gcc, avr-libc and simavr's library (Debian: gcc-avr avr-libc libsimavr-dev;
//! scripts/test.sh installs them when missing).

mod support;

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Mutex;
use support::workspace;

/// Builds the firmware with `MOTOR_TIMEOUT_MS=timeout_ms`, and the harness, afresh (`make
/// -B`) into this test binary's own build folder (`support::built`), once per timeout (the
/// tests share a build); returns (firmware ELF, harness).
fn build(timeout_ms: u32) -> (PathBuf, PathBuf) {
    static BUILT: Mutex<Vec<(u32, (PathBuf, PathBuf))>> = Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, paths)) = built.iter().find(|(t, _)| *t == timeout_ms) {
        return paths.clone();
    }
    let paths = make(timeout_ms);
    built.push((timeout_ms, paths.clone()));
    paths
}

fn make(timeout_ms: u32) -> (PathBuf, PathBuf) {
    let out = support::built::folder()
        .join("firmware")
        .join(format!("timeout-{timeout_ms}"));
    let status = Command::new("make")
        .arg("-B")
        .arg("-s")
        .arg("-C")
        .arg(workspace().join("firmware"))
        .arg(format!("OUT={}", out.display()))
        .arg(format!("MOTOR_TIMEOUT_MS={timeout_ms}"))
        .args(["all", "harness"])
        .stdout(Stdio::null())
        .status()
        .expect("make runs");
    assert!(
        status.success(),
        "the firmware and its simavr harness build (they need gcc-avr, avr-libc and \
         libsimavr-dev, which scripts/test.sh installs when missing)"
    );
    (out.join("romi_slave.elf"), out.join("harness"))
}

/// The board in simavr, one command at a time.
struct Board {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Board {
    fn start(timeout_ms: u32) -> Board {
        let (elf, harness) = build(timeout_ms);
        let mut child = Command::new(harness)
            .arg(elf)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the harness starts");
        let input = child.stdin.take().unwrap();
        let mut output = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        while line.trim() != "ready" {
            line.clear();
            assert!(
                output.read_line(&mut line).unwrap() > 0,
                "the harness ended"
            );
        }
        let mut board = Board {
            child,
            input,
            output,
        };
        // The firmware sets itself up.
        board.run(20);
        board
    }

    fn ask(&mut self, command: &str) -> String {
        writeln!(self.input, "{command}").unwrap();
        let mut line = String::new();
        self.output.read_line(&mut line).unwrap();
        assert!(!line.is_empty(), "the harness died at `{command}`");
        line.trim().to_string()
    }

    fn run(&mut self, ms: u32) {
        assert_eq!(self.ask(&format!("run {ms}")), "ok");
    }

    fn write(&mut self, offset: u8, bytes: &[u8]) {
        let list: Vec<String> = bytes.iter().map(|b| b.to_string()).collect();
        assert_eq!(
            self.ask(&format!("write {offset} {}", list.join(" "))),
            "ack"
        );
    }

    fn bytes(answer: &str) -> Vec<u8> {
        answer
            .split(' ')
            .map(|h| u8::from_str_radix(h, 16).unwrap_or_else(|_| panic!("{answer}")))
            .collect()
    }

    fn read(&mut self, offset: u8, n: usize) -> Vec<u8> {
        let answer = self.ask(&format!("read {offset} {n}"));
        Board::bytes(&answer)
    }

    fn read_i16s(&mut self, offset: u8) -> (i16, i16) {
        let b = self.read(offset, 4);
        (
            i16::from_le_bytes([b[0], b[1]]),
            i16::from_le_bytes([b[2], b[3]]),
        )
    }

    /// What affect's driver sends: both speeds at offset 6; then 5 ms, in which the board's
    /// loop (about 2 ms: it reads 14 analog conversions) sets the motors.
    fn set_speeds(&mut self, left: i16, right: i16) {
        let [l0, l1] = left.to_le_bytes();
        let [r0, r1] = right.to_le_bytes();
        self.write(6, &[l0, l1, r0, r1]);
        self.run(5);
    }

    /// The motor outputs: PWM compare values, negative backwards.
    fn motors(&mut self) -> (i32, i32) {
        let answer = self.ask("motors");
        let (l, r) = answer.split_once(' ').expect("two numbers");
        (l.parse().unwrap(), r.parse().unwrap())
    }
}

impl Drop for Board {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn motors_run_while_commanded_and_stop_after_the_timeout() {
    let mut board = Board::start(300);
    assert_eq!(board.motors(), (0, 0), "stopped at power-up");
    board.set_speeds(150, -100);
    assert_eq!(board.motors(), (150, -100));
    assert_eq!(board.read_i16s(6), (150, -100));
    // A command every 100 ms (a 10 Hz tick) keeps them running for as long as it comes.
    for _ in 0..10 {
        board.run(100);
        assert_eq!(board.motors(), (150, -100));
        board.set_speeds(150, -100);
    }
    board.run(270);
    assert_eq!(board.motors(), (150, -100), "275 ms after the last command");
    board.run(35);
    assert_eq!(board.motors(), (0, 0), "310 ms after the last command");
    assert_eq!(
        board.read_i16s(6),
        (0, 0),
        "the buffer says they were stopped"
    );
    // A new command after the stop is obeyed.
    board.set_speeds(-50, 60);
    assert_eq!(board.motors(), (-50, 60));
    board.run(305);
    assert_eq!(board.motors(), (0, 0));
}

#[test]
fn other_traffic_is_not_a_motor_command() {
    let mut board = Board::start(300);
    board.set_speeds(200, 200);
    // LEDs written and encoders read at 10 Hz, the speeds never again.
    for i in 0..2u8 {
        board.run(100);
        board.write(0, &[i, 1, 0]);
        board.read(39, 4);
    }
    board.run(74);
    assert_eq!(board.motors(), (200, 200), "about 280 ms: not yet");
    assert_eq!(board.ask("leds"), "1 1 0");
    board.run(30);
    assert_eq!(board.motors(), (0, 0), "about 310 ms");
    // A write that covers only one speed is a motor command too.
    board.set_speeds(100, 100);
    board.run(200);
    board.write(8, &[90, 0]);
    board.run(5);
    assert_eq!(board.motors(), (100, 90));
    board.run(200);
    assert_eq!(
        board.motors(),
        (100, 90),
        "400 ms after both, 200 after the right"
    );
    board.run(120);
    assert_eq!(board.motors(), (0, 0));
}

#[test]
fn the_timeout_is_chosen_at_build_time_and_0_turns_it_off() {
    let mut slow = Board::start(1000);
    slow.set_speeds(80, 80);
    slow.run(975);
    assert_eq!(slow.motors(), (80, 80));
    slow.run(30);
    assert_eq!(slow.motors(), (0, 0));

    let mut never = Board::start(0);
    never.set_speeds(80, -80);
    never.run(3000);
    assert_eq!(
        never.motors(),
        (80, -80),
        "as Pololu's demo: the last speeds stay"
    );
}

#[test]
fn the_buffer_is_romi_rpi_slave_demos() {
    let mut board = Board::start(300);
    // Battery on A1 (ADC6) through its 1/3 divider: 2.4 V at the pin is 7.2 V (491 counts).
    assert_eq!(board.ask("adc 6 2400"), "ok");
    assert_eq!(board.ask("adc 7 1000"), "ok"); // A0
    assert_eq!(board.ask("adc 0 5000"), "ok"); // A5
    assert_eq!(board.ask("pin B 3 0"), "ok"); // button A pressed
    assert_eq!(board.ask("quad left 10"), "ok");
    assert_eq!(board.ask("quad right -3"), "ok");
    board.run(10);
    let b = board.read(0, 43);
    let u16_at = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
    assert_eq!(u16_at(10), 7192, "battery millivolts at 10");
    let analog: Vec<u16> = (0..6).map(|i| u16_at(12 + 2 * i)).collect();
    assert_eq!(analog[0], 204, "A0 at 12: {analog:?}");
    assert_eq!(analog[1], 491, "A1 at 14: {analog:?}");
    assert_eq!(analog[5], 1023, "A5 at 22: {analog:?}");
    assert_eq!(&b[3..6], &[1, 0, 0], "buttons A, B, C at 3");
    assert_eq!(board.read_i16s(39), (10, -3), "encoders at 39 and 41");
    assert_eq!(board.ask("pin B 3 1"), "ok");
    board.run(5);
    assert_eq!(board.read(3, 3), vec![0, 0, 0]);

    // a_star.py reads one byte per transaction after writing the offset: the offset goes on.
    assert_eq!(board.read(39, 1), vec![10]);
    let rest: Vec<u8> = (0..3)
        .flat_map(|_| Board::bytes(&board.ask("readmore 1")))
        .collect();
    assert_eq!(rest, vec![0, 0xFD, 0xFF]);

    // Speeds beyond 300 are clamped at the motors; the buffer keeps what was written.
    board.set_speeds(1000, -1000);
    assert_eq!(board.motors(), (300, -300));
    assert_eq!(board.read_i16s(6), (1000, -1000));
    // LEDs at 0, 1, 2.
    board.write(0, &[1, 0, 1]);
    board.run(5);
    assert_eq!(board.ask("leds"), "1 0 1");
}

#[test]
fn a_melody_plays_once_and_its_flag_drops() {
    let mut board = Board::start(300);
    // play_notes at 24, the notes at 25: "!o5 a8" is A5 (880 Hz) for an eighth at 120 bpm.
    let mut request = vec![1u8];
    request.extend_from_slice(b"!o5 a8");
    board.write(24, &request);
    board.run(20);
    assert_eq!(board.ask("tone"), "880");
    assert_eq!(board.read(24, 1), vec![1], "still playing");
    board.run(260);
    assert_eq!(board.ask("tone"), "0");
    assert_eq!(board.read(24, 1), vec![0], "done: the flag drops");
    // "c" after "!o5" is C5 (523 Hz): the octave lasts from one melody to the next.
    board.write(24, &[1, b'c', 0]);
    board.run(20);
    assert_eq!(board.ask("tone"), "523");
}
