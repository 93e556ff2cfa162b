//! Test doubles for the embedded-hal traits: a scripted I2C bus that records every
//! transaction and answers reads with programmed bytes or errors, a delay that records its
//! waits (on the bus's timeline, so tests see the order of writes, waits and reads), a pin
//! with scripted levels and a PWM channel that records its duty cycles.
//!
//! Each double is a cheap handle (`Clone` shares the state), so a test keeps one handle and
//! gives the other to the driver.

use embedded_hal::delay::DelayNs;
use embedded_hal::digital::{self, InputPin};
use embedded_hal::i2c::{self, ErrorKind, I2c, Operation, SevenBitAddress};
use embedded_hal::pwm::{self, SetDutyCycle};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

/// One operation of an I2C transaction as the bus saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    Write(Vec<u8>),
    /// A read, with the bytes the bus returned.
    Read(Vec<u8>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transaction {
    pub address: u8,
    pub ops: Vec<Op>,
    /// The transaction returned an error.
    pub failed: bool,
}

/// What happened on the bus and the linked delay, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MockEvent {
    I2c(Transaction),
    /// A wait, in nanoseconds.
    Delay(u64),
}

/// The error a scripted failure returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MockError(pub ErrorKind);

impl i2c::Error for MockError {
    fn kind(&self) -> ErrorKind {
        self.0
    }
}

#[derive(Default)]
struct BusState {
    timeline: Vec<MockEvent>,
    /// Answers for read operations, in order.
    reads: VecDeque<Vec<u8>>,
    /// Transactions (by index, counting from 0) that fail.
    failures: Vec<(usize, ErrorKind)>,
    transactions: usize,
}

/// A scripted I2C bus.
#[derive(Clone, Default)]
pub struct MockI2c {
    state: Rc<RefCell<BusState>>,
}

impl MockI2c {
    pub fn new() -> MockI2c {
        MockI2c::default()
    }

    /// The bytes the next read operation returns.
    pub fn queue_read(&self, bytes: &[u8]) {
        self.state.borrow_mut().reads.push_back(bytes.to_vec());
    }

    /// Makes transaction number `n` (from 0, counting every transaction so far) fail.
    pub fn fail_transaction(&self, n: usize, kind: ErrorKind) {
        self.state.borrow_mut().failures.push((n, kind));
    }

    /// Makes the next transaction fail.
    pub fn fail_next(&self, kind: ErrorKind) {
        let n = self.state.borrow().transactions;
        self.fail_transaction(n, kind);
    }

    /// A delay whose waits go on this bus's timeline.
    pub fn delay(&self) -> FakeDelay {
        FakeDelay {
            state: self.state.clone(),
        }
    }

    pub fn timeline(&self) -> Vec<MockEvent> {
        self.state.borrow().timeline.clone()
    }

    pub fn transactions(&self) -> Vec<Transaction> {
        self.timeline()
            .into_iter()
            .filter_map(|e| match e {
                MockEvent::I2c(t) => Some(t),
                MockEvent::Delay(_) => None,
            })
            .collect()
    }

    pub fn clear(&self) {
        self.state.borrow_mut().timeline.clear();
    }
}

impl i2c::ErrorType for MockI2c {
    type Error = MockError;
}

impl I2c<SevenBitAddress> for MockI2c {
    fn transaction(
        &mut self,
        address: u8,
        operations: &mut [Operation<'_>],
    ) -> Result<(), Self::Error> {
        let mut s = self.state.borrow_mut();
        let n = s.transactions;
        s.transactions += 1;
        let failure = s.failures.iter().find(|(i, _)| *i == n).map(|(_, k)| *k);
        let mut ops = Vec::new();
        let mut result = Ok(());
        for op in operations.iter_mut() {
            match op {
                Operation::Write(bytes) => ops.push(Op::Write(bytes.to_vec())),
                Operation::Read(buf) => {
                    if failure.is_some() {
                        ops.push(Op::Read(Vec::new()));
                        continue;
                    }
                    match s.reads.pop_front() {
                        Some(answer) if answer.len() == buf.len() => {
                            buf.copy_from_slice(&answer);
                            ops.push(Op::Read(answer));
                        }
                        // Nothing programmed, or the wrong length: the device "did not
                        // answer", which is a test's mistake made visible.
                        _ => {
                            ops.push(Op::Read(Vec::new()));
                            result = Err(MockError(ErrorKind::NoAcknowledge(
                                i2c::NoAcknowledgeSource::Data,
                            )));
                        }
                    }
                }
            }
        }
        if let Some(kind) = failure {
            result = Err(MockError(kind));
        }
        s.timeline.push(MockEvent::I2c(Transaction {
            address,
            ops,
            failed: result.is_err(),
        }));
        result
    }
}

/// A delay that records its waits instead of sleeping.
#[derive(Clone, Default)]
pub struct FakeDelay {
    state: Rc<RefCell<BusState>>,
}

impl FakeDelay {
    pub fn new() -> FakeDelay {
        FakeDelay::default()
    }

    /// Every wait so far, in nanoseconds.
    pub fn waits_ns(&self) -> Vec<u64> {
        self.state
            .borrow()
            .timeline
            .iter()
            .filter_map(|e| match e {
                MockEvent::Delay(ns) => Some(*ns),
                MockEvent::I2c(_) => None,
            })
            .collect()
    }
}

impl DelayNs for FakeDelay {
    fn delay_ns(&mut self, ns: u32) {
        self.state
            .borrow_mut()
            .timeline
            .push(MockEvent::Delay(u64::from(ns)));
    }
}

/// The error of a fake pin or PWM channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FakeError;

impl digital::Error for FakeError {
    fn kind(&self) -> digital::ErrorKind {
        digital::ErrorKind::Other
    }
}

impl pwm::Error for FakeError {
    fn kind(&self) -> pwm::ErrorKind {
        pwm::ErrorKind::Other
    }
}

#[derive(Default)]
struct PinState {
    /// Levels still to be read, in order; the last one repeats.
    levels: VecDeque<Result<bool, FakeError>>,
    last: bool,
    reads: usize,
}

/// An input pin that reads scripted levels.
#[derive(Clone, Default)]
pub struct FakePin {
    state: Rc<RefCell<PinState>>,
}

impl FakePin {
    pub fn new(initial: bool) -> FakePin {
        let pin = FakePin::default();
        pin.state.borrow_mut().last = initial;
        pin
    }

    /// The levels the next reads return, in order; after them the last one holds.
    pub fn script(&self, levels: &[bool]) {
        self.state
            .borrow_mut()
            .levels
            .extend(levels.iter().map(|l| Ok(*l)));
    }

    /// The next read fails.
    pub fn fail_next(&self) {
        self.state.borrow_mut().levels.push_back(Err(FakeError));
    }

    pub fn reads(&self) -> usize {
        self.state.borrow().reads
    }
}

impl digital::ErrorType for FakePin {
    type Error = FakeError;
}

impl InputPin for FakePin {
    fn is_high(&mut self) -> Result<bool, FakeError> {
        let mut s = self.state.borrow_mut();
        s.reads += 1;
        match s.levels.pop_front() {
            Some(Ok(level)) => {
                s.last = level;
                Ok(level)
            }
            Some(Err(e)) => Err(e),
            None => Ok(s.last),
        }
    }

    fn is_low(&mut self) -> Result<bool, FakeError> {
        self.is_high().map(|h| !h)
    }
}

#[derive(Default)]
struct PwmState {
    duties: Vec<u16>,
    fail: bool,
    /// Asked to keep its state when dropped ([`super::Lasting`]).
    lasting: bool,
    /// Like a software PWM: only fully off or on outlasts the handle.
    software: bool,
}

/// A PWM channel that records every duty cycle set.
#[derive(Clone)]
pub struct FakePwm {
    max: u16,
    state: Rc<RefCell<PwmState>>,
}

impl FakePwm {
    pub fn new(max_duty: u16) -> FakePwm {
        FakePwm {
            max: max_duty,
            state: Rc::default(),
        }
    }

    pub fn duties(&self) -> Vec<u16> {
        self.state.borrow().duties.clone()
    }

    /// Every later write fails.
    pub fn fail(&self) {
        self.state.borrow_mut().fail = true;
    }

    /// Behaves as a software PWM: only fully off or on outlasts the handle.
    pub fn software(&self) {
        self.state.borrow_mut().software = true;
    }

    /// Whether it was asked to keep its state when dropped.
    pub fn lasting(&self) -> bool {
        self.state.borrow().lasting
    }
}

impl super::Lasting for FakePwm {
    fn lasting(&mut self, level: f64) -> f64 {
        let mut s = self.state.borrow_mut();
        s.lasting = true;
        match s.software {
            true if level >= 0.5 => 1.0,
            true => 0.0,
            false => level,
        }
    }
}

impl pwm::ErrorType for FakePwm {
    type Error = FakeError;
}

impl SetDutyCycle for FakePwm {
    fn max_duty_cycle(&self) -> u16 {
        self.max
    }

    fn set_duty_cycle(&mut self, duty: u16) -> Result<(), FakeError> {
        let mut s = self.state.borrow_mut();
        if s.fail {
            return Err(FakeError);
        }
        s.duties.push(duty);
        Ok(())
    }
}
