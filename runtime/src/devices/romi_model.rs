//! A model of a Romi 32U4 board running Pololu's `RomiRPiSlaveDemo`, on an embedded-hal I2C
//! bus, for tests: the slave library's buffer semantics (an offset byte, a snapshot for reads
//! taken when the offset arrives, at most 16 written bytes applied at the STOP) and wheels
//! whose encoder counts follow the commanded speeds as time is advanced by the test. The
//! LD_PRELOAD shim (`shim/`) models the same board in C for rppal's real I2C path.

use super::romi32u4::layout;
use embedded_hal::i2c::{self, ErrorKind, I2c, NoAcknowledgeSource, Operation, SevenBitAddress};
use std::cell::RefCell;
use std::rc::Rc;

/// Encoder counts per second per unit of speed: 300 (full) is about 150 rpm of a 1440-count
/// wheel, 3600 counts a second.
pub const COUNTS_PER_SPEED_SECOND: f64 = 12.0;

struct Board {
    buffer: [u8; layout::SIZE],
    /// The slave library's read buffer: a copy of `buffer` taken when an offset arrives.
    snapshot: [u8; layout::SIZE],
    index: usize,
    /// Fractional encoder counts.
    counts: (f64, f64),
    gains: (f64, f64),
    fail_reads: bool,
}

/// The board; clones share it (the test keeps one, the driver gets another).
#[derive(Clone)]
pub struct RomiBoard {
    board: Rc<RefCell<Board>>,
    address: u8,
}

impl Default for RomiBoard {
    fn default() -> Self {
        RomiBoard::new()
    }
}

fn i16_at(b: &[u8], at: u8) -> i16 {
    i16::from_le_bytes([b[usize::from(at)], b[usize::from(at) + 1]])
}

impl RomiBoard {
    pub fn new() -> RomiBoard {
        let mut buffer = [0u8; layout::SIZE];
        buffer[usize::from(layout::BATTERY_MILLIVOLTS)..][..2]
            .copy_from_slice(&7400u16.to_le_bytes());
        RomiBoard {
            board: Rc::new(RefCell::new(Board {
                buffer,
                snapshot: buffer,
                index: 0,
                counts: (0.0, 0.0),
                gains: (1.0, 1.0),
                fail_reads: false,
            })),
            address: super::romi32u4::DEFAULT_ADDRESS,
        }
    }

    /// The wheels turn this much of the nominal speed (0 stalls them).
    pub fn set_left_gain(&self, g: f64) {
        self.board.borrow_mut().gains.0 = g;
    }

    pub fn set_right_gain(&self, g: f64) {
        self.board.borrow_mut().gains.1 = g;
    }

    pub fn fail_reads(&self, fail: bool) {
        self.board.borrow_mut().fail_reads = fail;
    }

    pub fn set_encoders(&self, left: i16, right: i16) {
        let mut b = self.board.borrow_mut();
        b.counts = (f64::from(left), f64::from(right));
        b.publish_encoders();
    }

    /// The motor speeds the board holds.
    pub fn motors(&self) -> (i16, i16) {
        let b = self.board.borrow();
        (
            i16_at(&b.buffer, layout::LEFT_MOTOR),
            i16_at(&b.buffer, layout::RIGHT_MOTOR),
        )
    }

    pub fn encoders(&self) -> (i16, i16) {
        let b = self.board.borrow();
        (
            i16_at(&b.buffer, layout::LEFT_ENCODER),
            i16_at(&b.buffer, layout::RIGHT_ENCODER),
        )
    }

    /// Lets `ms` pass: the wheels turn at the speeds held.
    pub fn advance_ms(&self, ms: u32) {
        let (l, r) = self.motors();
        let mut b = self.board.borrow_mut();
        let dt = f64::from(ms) / 1000.0;
        b.counts.0 += f64::from(l) * COUNTS_PER_SPEED_SECOND * b.gains.0 * dt;
        b.counts.1 += f64::from(r) * COUNTS_PER_SPEED_SECOND * b.gains.1 * dt;
        b.publish_encoders();
    }
}

impl Board {
    fn publish_encoders(&mut self) {
        // The firmware's `getCountsLeft()` is an int16 that wraps.
        let wrap = |c: f64| (c.round() as i64) as i16;
        let (l, r) = (wrap(self.counts.0), wrap(self.counts.1));
        self.buffer[usize::from(layout::LEFT_ENCODER)..][..2].copy_from_slice(&l.to_le_bytes());
        self.buffer[usize::from(layout::RIGHT_ENCODER)..][..2].copy_from_slice(&r.to_le_bytes());
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoardError(pub ErrorKind);

impl i2c::Error for BoardError {
    fn kind(&self) -> ErrorKind {
        self.0
    }
}

impl i2c::ErrorType for RomiBoard {
    type Error = BoardError;
}

impl I2c<SevenBitAddress> for RomiBoard {
    /// One START..STOP per operation, as rppal does it (a `read()` or `write()` each).
    fn transaction(
        &mut self,
        address: u8,
        operations: &mut [Operation<'_>],
    ) -> Result<(), Self::Error> {
        if address != self.address {
            return Err(BoardError(ErrorKind::NoAcknowledge(
                NoAcknowledgeSource::Address,
            )));
        }
        let mut b = self.board.borrow_mut();
        for op in operations {
            match op {
                Operation::Write(bytes) => {
                    let Some((&offset, data)) = bytes.split_first() else {
                        continue;
                    };
                    b.snapshot = b.buffer;
                    b.index = usize::from(offset);
                    // The library keeps 16 bytes and applies them at the STOP.
                    let data = &data[..data.len().min(16)];
                    let end = (b.index + data.len()).min(layout::SIZE);
                    let n = end.saturating_sub(b.index);
                    let at = b.index;
                    b.buffer[at..end].copy_from_slice(&data[..n]);
                }
                Operation::Read(buf) => {
                    if b.fail_reads {
                        return Err(BoardError(ErrorKind::Bus));
                    }
                    for x in buf.iter_mut() {
                        *x = b.snapshot.get(b.index).copied().unwrap_or(0);
                        b.index += 1;
                    }
                }
            }
        }
        Ok(())
    }
}
