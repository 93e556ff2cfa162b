//! The devices of a recording run and of a replay. Recording, each of the robot's devices
//! is wrapped: every call goes to the device, and what it returned also goes to the
//! [`Tape`], tagged with the declaration's place among the agent's devices. Replaying, each
//! device is a stand-in that returns what the [`ReplayTape`] holds for it, in order; a call
//! the record does not have at that point (another program, another binary that behaves
//! differently) is a divergence, told as E0614 when the tick is done.
//!
//! The devices (`crate::hardware`) wear the tape; the record file and its replay
//! (`crate::record`) store and read it. [`entry`] is what one call is on disk.

pub mod entry;

use crate::devices::{
    DeviceError, Edge, EdgeSource, Motor, MotorCommand, MotorStatus, Output, Reading, Sensor,
};
use entry::Entry;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

/// A run's devices recorded or replayed (`RunConfig::recording`).
#[derive(Clone, Debug)]
pub enum Recording {
    /// Every call on the robot's devices also goes to this tape (`--record`).
    Record(Tape),
    /// The robot's devices are stand-ins that answer from this tape (`affect replay`).
    Replay(ReplayTape),
}

/// Where a recording run's device calls go, until the recorder takes them.
#[derive(Clone, Default)]
pub struct Tape(Rc<RefCell<Vec<(u16, Entry)>>>);

impl Tape {
    fn push(&self, device: u16, e: Entry) {
        self.0.borrow_mut().push((device, e));
    }

    /// The calls since the last take.
    pub fn take(&self) -> Vec<(u16, Entry)> {
        std::mem::take(&mut self.0.borrow_mut())
    }
}

impl std::fmt::Debug for Tape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tape")
    }
}

/// A device whose calls are recorded.
pub struct Taped<D: ?Sized> {
    pub tape: Tape,
    pub index: u16,
    pub device: Box<D>,
}

impl Sensor for Taped<dyn Sensor> {
    fn read(&mut self) -> Result<Reading, DeviceError> {
        let r = self.device.read();
        self.tape
            .push(self.index, Entry::Read(entry::fail(&r, entry::Value::from)));
        r
    }
}

impl EdgeSource for Taped<dyn EdgeSource> {
    fn poll(&mut self) -> Result<Option<Edge>, DeviceError> {
        let r = self.device.poll();
        self.tape
            .push(self.index, Entry::Poll(entry::fail(&r, entry::edge)));
        r
    }
}

impl Output for Taped<dyn Output> {
    fn set_level(&mut self, level: f64) -> Result<(), DeviceError> {
        let r = self.device.set_level(level);
        self.tape
            .push(self.index, Entry::Level(level, entry::fail(&r, |()| ())));
        r
    }
}

/// The motor board, recorded (shared: the `Move` leaves and the safe stop both drive it).
pub struct TapedMotor {
    pub tape: Tape,
    pub index: u16,
    pub drive: Rc<RefCell<dyn Motor>>,
}

impl Motor for TapedMotor {
    fn command(&mut self, command: MotorCommand) -> Result<(), DeviceError> {
        let r = self.drive.borrow_mut().command(command);
        let e = Entry::Command(command.into(), entry::fail(&r, |()| ()));
        self.tape.push(self.index, e);
        r
    }

    fn status(&mut self) -> Result<MotorStatus, DeviceError> {
        let r = self.drive.borrow_mut().status();
        let e = Entry::Status(entry::fail(&r, entry::status));
        self.tape.push(self.index, e);
        r
    }
}

/// A replay's device calls, one record at a time.
#[derive(Clone, Default)]
pub struct ReplayTape(Rc<RefCell<Playing>>);

#[derive(Default)]
struct Playing {
    /// The calls of the record being played, in order.
    entries: VecDeque<(u16, Entry)>,
    /// When the tick being played started.
    t_ms: f64,
    /// The first call that did not match the record.
    divergence: Option<String>,
    /// The record has ended without its end record (the run was killed): calls past it
    /// are not divergences, the devices just have nothing to say.
    lenient: bool,
}

impl std::fmt::Debug for ReplayTape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ReplayTape")
    }
}

impl ReplayTape {
    /// Plays a record's calls next; the calls left of the previous one, if any, are a
    /// divergence.
    pub fn load(&self, t_ms: f64, entries: Vec<(u16, Entry)>) {
        let mut p = self.0.borrow_mut();
        if let Some((device, e)) = p.entries.front() {
            if p.divergence.is_none() {
                p.divergence = Some(format!(
                    "the record has {} of device #{device} that the replay did not make",
                    e.kind()
                ));
            }
        }
        p.entries = entries.into();
        p.t_ms = t_ms;
    }

    /// The record ends here, without its end record.
    pub fn lenient(&self) {
        let mut p = self.0.borrow_mut();
        p.lenient = true;
        p.entries.clear();
    }

    pub fn t_ms(&self) -> f64 {
        self.0.borrow().t_ms
    }

    /// The first divergence, if any (taken: told once).
    pub fn divergence(&self) -> Option<String> {
        self.0.borrow_mut().divergence.take()
    }

    /// The next call, which device `index` (`name`) makes as `kind`: the record's, or a
    /// divergence.
    fn next(&self, index: u16, name: &str, kind: &str) -> Option<Entry> {
        let mut p = self.0.borrow_mut();
        match p.entries.pop_front() {
            Some((i, e)) if i == index && e.kind() == kind => return Some(e),
            None if p.lenient => {}
            found => {
                if p.divergence.is_none() {
                    p.divergence = Some(match found {
                        Some((i, e)) => format!(
                            "`{name}` made {kind} where the record has {} of device #{i}",
                            e.kind()
                        ),
                        None => format!("`{name}` made {kind} that the record does not have"),
                    });
                }
            }
        }
        None
    }
}

/// A device of the replay.
pub struct Replayed {
    pub tape: ReplayTape,
    pub index: u16,
    pub name: String,
}

impl Replayed {
    fn missing(&self) -> DeviceError {
        DeviceError::unavailable(&self.name, "the record does not have this call")
    }
}

impl Sensor for Replayed {
    fn read(&mut self) -> Result<Reading, DeviceError> {
        match self.tape.next(self.index, &self.name, "a sensor read") {
            Some(Entry::Read(r)) => entry::unfail(&r, Reading::from),
            _ => Err(self.missing()),
        }
    }
}

impl EdgeSource for Replayed {
    fn poll(&mut self) -> Result<Option<Edge>, DeviceError> {
        match self.tape.next(self.index, &self.name, "an event poll") {
            Some(Entry::Poll(r)) => entry::unfail(&r, entry::unedge),
            _ => Err(self.missing()),
        }
    }
}

impl Output for Replayed {
    fn set_level(&mut self, level: f64) -> Result<(), DeviceError> {
        match self.tape.next(self.index, &self.name, "an actuator write") {
            Some(Entry::Level(l, r)) if l.to_bits() == level.to_bits() => {
                entry::unfail(&r, |()| ())
            }
            Some(Entry::Level(l, _)) => {
                self.diverge(format!(
                    "`{}` was set to {level}, in the record to {l}",
                    self.name
                ));
                Err(self.missing())
            }
            _ => Err(self.missing()),
        }
    }
}

impl Motor for Replayed {
    fn command(&mut self, command: MotorCommand) -> Result<(), DeviceError> {
        match self.tape.next(self.index, &self.name, "a motor command") {
            Some(Entry::Command(c, r)) if c == command.into() => entry::unfail(&r, |()| ()),
            Some(Entry::Command(c, _)) => {
                self.diverge(format!(
                    "`{}` was commanded {command:?}, in the record {c:?}",
                    self.name
                ));
                Err(self.missing())
            }
            _ => Err(self.missing()),
        }
    }

    fn status(&mut self) -> Result<MotorStatus, DeviceError> {
        match self
            .tape
            .next(self.index, &self.name, "a motor status read")
        {
            Some(Entry::Status(r)) => entry::unfail(&r, entry::unstatus),
            _ => Err(self.missing()),
        }
    }
}

impl Replayed {
    fn diverge(&self, what: String) {
        let mut p = self.tape.0.borrow_mut();
        if p.divergence.is_none() {
            p.divergence = Some(what);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::entry::{Command, Fail, Value};
    use super::*;

    struct Fixed;

    impl Sensor for Fixed {
        fn read(&mut self) -> Result<Reading, DeviceError> {
            Ok(Reading::Num(4.5))
        }
    }

    #[test]
    fn a_taped_device_is_replayed_call_for_call() {
        let tape = Tape::default();
        let mut sensor = Taped::<dyn Sensor> {
            tape: tape.clone(),
            index: 2,
            device: Box::new(Fixed),
        };
        assert_eq!(sensor.read(), Ok(Reading::Num(4.5)));
        let calls = tape.take();
        assert_eq!(calls, [(2, Entry::Read(Ok(Value::Num(4.5))))]);
        let replay = ReplayTape::default();
        replay.load(100.0, calls);
        let mut played = Replayed {
            tape: replay.clone(),
            index: 2,
            name: "light".into(),
        };
        assert_eq!(played.read(), Ok(Reading::Num(4.5)));
        assert_eq!((replay.t_ms(), replay.divergence()), (100.0, None));
    }

    #[test]
    fn a_call_the_record_does_not_have_is_a_divergence() {
        let replay = ReplayTape::default();
        let fail = Fail(0, "base".into(), "no ack".into());
        replay.load(
            0.0,
            vec![
                (1, Entry::Command(Command::Stop, Err(fail.clone()))),
                (1, Entry::Status(Ok(1))),
            ],
        );
        let mut base = Replayed {
            tape: replay.clone(),
            index: 1,
            name: "base".into(),
        };
        // The recorded failure comes back as it was.
        assert_eq!(
            base.command(MotorCommand::Stop),
            Err(DeviceError::from(&fail))
        );
        // A read where the record has a status read.
        assert!(Sensor::read(&mut base).is_err());
        let d = replay.divergence().unwrap();
        assert!(
            d.contains("a sensor read") && d.contains("a motor status read"),
            "{d}"
        );
        // Calls left over when the next tick is loaded are a divergence too.
        replay.load(0.0, vec![(1, Entry::Status(Ok(0)))]);
        replay.load(100.0, vec![]);
        assert!(replay.divergence().unwrap().contains("did not make"));
        // Past the end of a record without its end, calls are not divergences.
        replay.lenient();
        assert!(base.status().is_err());
        assert_eq!(replay.divergence(), None);
    }
}
