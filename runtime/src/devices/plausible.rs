//! Plausibility of device reads: a value the device could not have given, against the
//! wall-clock time since its previous read, is not used. On a Pi, clock stretching corrupts
//! I2C reads (a flipped bit, a shifted byte: Pololu's forum reports corrupted Romi encoder
//! counts on a Pi 3), and one corrupted high byte of an encoder count is a jump of thousands
//! of counts that would end or wreck a move.
//!
//! An implausible read is read again at once (a corruption is a single transfer's); if the
//! second read is implausible too, the read fails with [`DeviceError::Implausible`], which
//! fails the node as a bus error does (a `Move` stops its motors) and goes into the trace as
//! a `device` event. The check is against the time that really passed since the previous
//! read, not the tick's period, so a stall (a stopped process, a late tick) does not make a
//! true read look corrupted. After a failure the previous value is forgotten: the next read
//! starts afresh, as the first one does, so a board that really reset its counters is
//! followed again instead of being refused for ever.

use super::hcsr04::Clock;
use super::romi_drive::Wheels;
use super::DeviceError;

/// Re-reads of an implausible value before the read fails.
pub const REREADS: u32 = 1;

/// How fast a value may change: at most `per_s` a second, plus `slack` whatever the time
/// (quantisation, the moment the device sampled within the transfer).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    pub per_s: f64,
    pub slack: f64,
}

impl Rate {
    /// The largest change allowed after `dt_ns`.
    pub fn allowed(self, dt_ns: u64) -> f64 {
        self.per_s * dt_ns as f64 / 1e9 + self.slack
    }
}

/// The Romi's encoders: its gearmotors turn a wheel at about 150 rpm at full speed (3,600
/// counts a second of a 1,440-count wheel, `romi_model::COUNTS_PER_SPEED_SECOND`); half as
/// much again covers a fresh battery above nominal and a wheel pushed along, and 24 counts
/// the sampling within a transfer. At 10 Hz a count may move 564 between reads: a corrupted
/// bit 10 or above (1,024 counts, 15 cm of travel) or a corrupted high byte is caught.
pub const ROMI_ENCODER: Rate = Rate {
    per_s: 5400.0,
    slack: 24.0,
};

/// Wheels whose encoder reads are checked against the wheels' top speed.
pub struct Plausible<W, C> {
    pub wheels: W,
    clock: C,
    rate: Rate,
    name: String,
    /// The last plausible counts and when their read began.
    last: Option<(u64, (i16, i16))>,
}

impl<W: Wheels, C: Clock> Plausible<W, C> {
    pub fn new(wheels: W, clock: C, rate: Rate, name: &str) -> Plausible<W, C> {
        Plausible {
            wheels,
            clock,
            rate,
            name: name.to_string(),
            last: None,
        }
    }

    /// Why `now` could not follow the last counts after `dt_ns`; `None` when it can.
    fn implausible(&self, now: (i16, i16), at: u64) -> Option<String> {
        let (then, before) = self.last?;
        let dt = at.saturating_sub(then);
        let allowed = self.rate.allowed(dt);
        // The counters wrap at the ends of i16; a real move never covers half a wrap.
        let jump = |a: i16, b: i16| i32::from(a.wrapping_sub(b));
        let (l, r) = (jump(now.0, before.0), jump(now.1, before.1));
        let worst = if l.abs() >= r.abs() {
            ("left", l)
        } else {
            ("right", r)
        };
        (f64::from(worst.1.abs()) > allowed).then(|| {
            format!(
                "the {} encoder moved {} counts in {:.1} ms, more than the wheel's top speed allows ({:.0})",
                worst.0,
                worst.1,
                dt as f64 / 1e6,
                allowed
            )
        })
    }
}

impl<W: Wheels, C: Clock> Wheels for Plausible<W, C> {
    fn set_speeds(&mut self, left: i16, right: i16) -> Result<(), DeviceError> {
        self.wheels.set_speeds(left, right)
    }

    fn encoders(&mut self) -> Result<(i16, i16), DeviceError> {
        let mut why = String::new();
        for _ in 0..=REREADS {
            // The board samples sometime during the transfer, which a slow slave can
            // stretch: the allowance runs from the start of the last read to the end of
            // this one, and this one is said to have sampled at its start.
            let start = self.clock.now_ns();
            let counts = self.wheels.encoders()?;
            let end = self.clock.now_ns();
            match self.implausible(counts, end) {
                None => {
                    self.last = Some((start, counts));
                    return Ok(counts);
                }
                Some(w) => why = w,
            }
        }
        self.last = None;
        Err(DeviceError::Implausible {
            device: self.name.clone(),
            detail: format!("{why}, read {} times", REREADS + 1),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::rc::Rc;

    /// Encoder reads from a list; a clock the test moves.
    struct Script {
        reads: Vec<(i16, i16)>,
        at: usize,
    }

    impl Wheels for Script {
        fn set_speeds(&mut self, _: i16, _: i16) -> Result<(), DeviceError> {
            Ok(())
        }
        fn encoders(&mut self) -> Result<(i16, i16), DeviceError> {
            self.at += 1;
            Ok(self.reads[self.at - 1])
        }
    }

    #[derive(Clone)]
    struct Manual(Rc<Cell<u64>>);

    impl Clock for Manual {
        fn now_ns(&mut self) -> u64 {
            self.0.get()
        }
    }

    fn wheels(reads: &[(i16, i16)]) -> (Plausible<Script, Manual>, Rc<Cell<u64>>) {
        let t = Rc::new(Cell::new(0));
        let w = Script {
            reads: reads.to_vec(),
            at: 0,
        };
        (
            Plausible::new(w, Manual(t.clone()), ROMI_ENCODER, "base"),
            t,
        )
    }

    #[test]
    fn a_corrupted_high_byte_is_read_again_and_the_true_value_used() {
        // 100 ms apart; the second read's left high byte is corrupted (+32,768 counts).
        let (mut w, t) = wheels(&[(100, 100), (i16::MIN + 400, 400), (400, 400)]);
        assert_eq!(w.encoders(), Ok((100, 100)));
        t.set(100_000_000);
        assert_eq!(w.encoders(), Ok((400, 400)), "the re-read is used");
        assert_eq!(w.wheels.at, 3);
    }

    #[test]
    fn a_value_implausible_twice_fails_the_read_and_is_forgotten() {
        let (mut w, t) = wheels(&[(0, 0), (0, 4096), (0, 4100), (0, 4200)]);
        w.encoders().unwrap();
        t.set(100_000_000);
        let e = w.encoders().unwrap_err();
        assert!(
            matches!(&e, DeviceError::Implausible { device, detail }
                if device == "base" && detail.contains("right encoder moved 4100 counts in 100.0 ms")),
            "{e}"
        );
        // The next read starts afresh.
        t.set(200_000_000);
        assert_eq!(w.encoders(), Ok((0, 4200)));
    }

    #[test]
    fn the_allowance_follows_the_time_that_passed_not_the_period() {
        // 2,000 counts in 100 ms is too fast; in 1.08 s (a stall) it is a wheel at speed.
        let (mut w, t) = wheels(&[
            (0, 0),
            (2000, 2000),
            (2000, 2000),
            (2000, 2000),
            (4000, 4000),
        ]);
        w.encoders().unwrap();
        t.set(100_000_000);
        assert!(w.encoders().is_err(), "read twice, too fast both times");
        t.set(200_000_000);
        assert_eq!(w.encoders(), Ok((2000, 2000)));
        t.set(1_280_000_000);
        assert_eq!(w.encoders(), Ok((4000, 4000)));
    }

    #[test]
    fn counts_that_wrap_around_are_plausible() {
        let (mut w, t) = wheels(&[(32_700, -32_700), (-32_736, 32_736)]);
        w.encoders().unwrap();
        t.set(100_000_000);
        assert_eq!(w.encoders(), Ok((-32_736, 32_736)));
    }
}
