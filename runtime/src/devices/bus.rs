//! Sharing one I2C bus between several drivers (the ADS1115 and the Romi32U4 sit on the Pi's
//! bus 1), and a delay for real hardware.
//!
//! [`SharedI2c`] hands each driver a handle; every transaction borrows the bus for its
//! duration, so transactions never interleave. A transaction attempted while another is in
//! progress (only possible through re-entrancy) is refused with an error, never a panic.
//! Handles are `!Send`: one thread owns the bus, so there is no lock to poison.

use embedded_hal::delay::DelayNs;
use embedded_hal::i2c::{ErrorKind, ErrorType, I2c, Operation, SevenBitAddress};
use std::cell::RefCell;
use std::rc::Rc;

pub struct SharedI2c<B> {
    bus: Rc<RefCell<B>>,
}

impl<B> Clone for SharedI2c<B> {
    fn clone(&self) -> Self {
        SharedI2c {
            bus: self.bus.clone(),
        }
    }
}

impl<B> SharedI2c<B> {
    pub fn new(bus: B) -> SharedI2c<B> {
        SharedI2c {
            bus: Rc::new(RefCell::new(bus)),
        }
    }
}

/// The error of a shared bus: the bus's own, or "busy" for a re-entrant transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SharedError<E> {
    Bus(E),
    Busy,
}

impl<E: embedded_hal::i2c::Error> embedded_hal::i2c::Error for SharedError<E> {
    fn kind(&self) -> ErrorKind {
        match self {
            SharedError::Bus(e) => e.kind(),
            SharedError::Busy => ErrorKind::Other,
        }
    }
}

impl<B: I2c> ErrorType for SharedI2c<B> {
    type Error = SharedError<B::Error>;
}

impl<B: I2c> I2c<SevenBitAddress> for SharedI2c<B> {
    fn transaction(
        &mut self,
        address: u8,
        operations: &mut [Operation<'_>],
    ) -> Result<(), Self::Error> {
        let mut bus = self.bus.try_borrow_mut().map_err(|_| SharedError::Busy)?;
        bus.transaction(address, operations)
            .map_err(SharedError::Bus)
    }
}

/// A delay that sleeps the thread, for real hardware (rppal brings its own as well).
#[derive(Clone, Copy, Debug, Default)]
pub struct StdDelay;

impl DelayNs for StdDelay {
    fn delay_ns(&mut self, ns: u32) {
        std::thread::sleep(std::time::Duration::from_nanos(u64::from(ns)));
    }
}
