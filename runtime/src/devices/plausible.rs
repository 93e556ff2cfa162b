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
//!
//! Sensors ([`PlausibleSensor`]) are checked the same way against a [`Bound`]: a rate the
//! declaration states (`max_rate: 0.5`, the reading's units a second: a battery cannot jump by
//! volts), which a value never exceeds, or the driver's own (an ADS1115 channel, the HC-SR04's
//! range), past which a jump is only believed when the read again at once confirms it (a lamp
//! switched on, an obstacle stepping in front: real steps that a rate alone cannot rule out).

use super::hcsr04::Clock;
use super::romi_drive::Wheels;
use super::{DeviceError, Reading, Sensor};

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

/// How a sensor's value may change between reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bound {
    /// Never faster than this (a declared `max_rate:`): a value past it is read again, then
    /// the read fails.
    Never(Rate),
    /// A jump past this is read again and believed when the re-read confirms it (within the
    /// same allowance of the jump); a re-read back within it of the last value means the jump
    /// was a corrupted transfer (the re-read is used); neither, and the read fails.
    Confirmed(Rate),
}

/// An ADS1115 channel, on its 0..100 scale: a jump of more than 100 a second (a tenth of the
/// scale at 10 Hz), plus 2 for noise, is read again. A corrupted bit 12 or above of the
/// conversion (12.5 of the scale) or a shifted byte is caught at 10 Hz.
pub const ADS1115_CHANNEL: Bound = Bound::Confirmed(Rate {
    per_s: 100.0,
    slack: 2.0,
});

/// The HC-SR04's range, in metres: nearer or farther by more than 5 m a second (the robot and
/// an obstacle closing at walking speed), plus 5 cm of the module's jitter, is pinged again.
pub const HCSR04_RANGE: Bound = Bound::Confirmed(Rate {
    per_s: 5.0,
    slack: 0.05,
});

/// A sensor whose numeric reads are checked against a [`Bound`]; other readings pass.
pub struct PlausibleSensor<S, C> {
    pub sensor: S,
    clock: C,
    bound: Bound,
    name: String,
    /// The last value believed and when its read began.
    last: Option<(u64, f64)>,
}

impl<S: Sensor, C: Clock> PlausibleSensor<S, C> {
    pub fn new(sensor: S, clock: C, bound: Bound, name: &str) -> PlausibleSensor<S, C> {
        PlausibleSensor {
            sensor,
            clock,
            bound,
            name: name.to_string(),
            last: None,
        }
    }

    fn rate(&self) -> Rate {
        match self.bound {
            Bound::Never(r) | Bound::Confirmed(r) => r,
        }
    }

    /// Why `now` (read by `at`) could not follow the value believed last; `None` when it can.
    fn implausible(&self, now: f64, at: u64) -> Option<String> {
        let (then, before) = self.last?;
        let dt = at.saturating_sub(then);
        let allowed = self.rate().allowed(dt);
        ((now - before).abs() > allowed).then(|| {
            format!(
                "{before} became {now} in {:.1} ms, more than it can change ({allowed:.3})",
                dt as f64 / 1e6
            )
        })
    }

    /// One read: its value, when its read began, and when it ended.
    fn timed_read(&mut self) -> Result<(Reading, u64, u64), DeviceError> {
        let start = self.clock.now_ns();
        let r = self.sensor.read()?;
        Ok((r, start, self.clock.now_ns()))
    }
}

impl<S: Sensor, C: Clock> Sensor for PlausibleSensor<S, C> {
    fn read(&mut self) -> Result<Reading, DeviceError> {
        let (first, start, end) = self.timed_read()?;
        let Reading::Num(v) = first else {
            return Ok(first);
        };
        let Some(why) = self.implausible(v, end) else {
            self.last = Some((start, v));
            return Ok(first);
        };
        // Read again at once: a corruption is a single transfer's.
        let (again, start2, end2) = self.timed_read()?;
        let Reading::Num(w) = again else {
            return Ok(again);
        };
        let confirmed = matches!(self.bound, Bound::Confirmed(_))
            && (w - v).abs() <= self.rate().allowed(end2.saturating_sub(start));
        if self.implausible(w, end2).is_none() || confirmed {
            self.last = Some((start2, w));
            return Ok(again);
        }
        self.last = None;
        Err(DeviceError::Implausible {
            device: self.name.clone(),
            detail: format!("{why}; read again: {w}"),
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

    /// Sensor reads from a list.
    struct Values(Vec<f64>, usize);

    impl Sensor for Values {
        fn read(&mut self) -> Result<Reading, DeviceError> {
            self.1 += 1;
            Ok(Reading::Num(self.0[self.1 - 1]))
        }
    }

    fn sensor(bound: Bound, reads: &[f64]) -> (PlausibleSensor<Values, Manual>, Rc<Cell<u64>>) {
        let t = Rc::new(Cell::new(0));
        let s = Values(reads.to_vec(), 0);
        (
            PlausibleSensor::new(s, Manual(t.clone()), bound, "battery"),
            t,
        )
    }

    const VOLTS: Bound = Bound::Never(Rate {
        per_s: 0.5,
        slack: 0.05,
    });

    #[test]
    fn a_declared_rate_is_never_exceeded() {
        // A battery at 7.4 V read at 10 Hz: a corrupted read (3.2 V) is read again and the
        // true value used; a jump of volts that persists fails the read, and is forgotten.
        let (mut b, t) = sensor(VOLTS, &[7.4, 3.2, 7.39, 5.0, 5.0, 5.0]);
        assert_eq!(b.read(), Ok(Reading::Num(7.4)));
        t.set(100_000_000);
        assert_eq!(b.read(), Ok(Reading::Num(7.39)), "the re-read is used");
        t.set(200_000_000);
        let e = b.read().unwrap_err();
        assert!(
            matches!(&e, DeviceError::Implausible { device, detail }
                if device == "battery" && detail.contains("7.39 became 5 in 100.0 ms") && detail.contains("read again: 5")),
            "{e}"
        );
        t.set(300_000_000);
        assert_eq!(b.read(), Ok(Reading::Num(5.0)), "afresh after a failure");
    }

    #[test]
    fn a_jump_past_a_drivers_bound_is_believed_when_the_re_read_confirms_it() {
        // A light channel at 20: a corrupted read (82.5) is read again (20.5: used); a lamp
        // switched on (90, then 90.3) is believed; a jump the re-read contradicts (15, then
        // 60) fails.
        let (mut l, t) = sensor(ADS1115_CHANNEL, &[20.0, 82.5, 20.5, 90.0, 90.3, 15.0, 60.0]);
        let at = |ms: u64| t.set(ms * 1_000_000);
        assert_eq!(l.read(), Ok(Reading::Num(20.0)));
        at(100);
        assert_eq!(l.read(), Ok(Reading::Num(20.5)));
        at(200);
        assert_eq!(l.read(), Ok(Reading::Num(90.3)));
        at(300);
        assert!(matches!(l.read(), Err(DeviceError::Implausible { .. })));
    }

    #[test]
    fn a_sensors_allowance_follows_the_time_that_passed() {
        // 1 V in 100 ms is too fast for the battery; in 3 s (a stall) it is not.
        let (mut b, t) = sensor(VOLTS, &[7.4, 6.4, 6.4, 6.4]);
        b.read().unwrap();
        t.set(100_000_000);
        assert!(b.read().is_err());
        let (mut b, t) = sensor(VOLTS, &[7.4, 6.4]);
        b.read().unwrap();
        t.set(3_000_000_000);
        assert_eq!(b.read(), Ok(Reading::Num(6.4)));
    }
}
