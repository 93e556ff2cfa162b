//! The Pololu Romi 32U4 control board as Pololu ships it for a Raspberry Pi
//! (`romi32u4(bus: 1, address: 20)`): an I2C slave at address 20 running Pololu's
//! `RomiRPiSlaveDemo` sketch (pololu-rpi-slave-arduino-library), whose only protocol is a
//! shared buffer. A stock board flashed with that demo works unchanged.
//!
//! The buffer is the sketch's `struct Data`, packed as the AVR lays it out (little-endian,
//! no padding), 43 bytes:
//!
//! | offset | field | type |
//! |---|---|---|
//! | 0, 1, 2 | yellow, green, red LED | bool |
//! | 3, 4, 5 | buttons A, B, C | bool |
//! | 6, 8 | left, right motor speed, -300..300 | i16 |
//! | 10 | battery millivolts | u16 |
//! | 12..24 | analog inputs 0..5 | 6 × u16 |
//! | 24 | play notes | bool |
//! | 25..39 | notes | 14 chars |
//! | 39, 41 | left, right encoder counts | i16 |
//!
//! A write transaction is `[offset, bytes...]` (at most 16 bytes after the offset); the board
//! applies it at the STOP. A read is a write of `[offset]` alone, then a read transaction:
//! the board answers from a snapshot taken when the offset arrived, advancing through the
//! buffer byte by byte. The AVR cannot follow a write with a read quickly (Pololu's
//! `a_star.py` explains: its TWI module is disabled until the STOP interrupt is handled),
//! so, as `a_star.py` does, every write is followed by a 100 µs wait and there is no
//! repeated-start write-read.
//!
//! The sketch sets the motors to the last speeds written and counts the encoders; it has no
//! notion of cells. Moves, turns and drift correction are done on the Pi from the encoder
//! counts ([`super::romi_drive`]).

use super::DeviceError;
use embedded_hal::delay::DelayNs;
use embedded_hal::i2c::I2c;

/// The slave address `RomiRPiSlaveDemo` sets (`slave.init(20)`).
pub const DEFAULT_ADDRESS: u8 = 20;
/// The wait after each write (`a_star.py`'s `time.sleep(0.0001)`).
pub const PI_DELAY_NS: u32 = 100_000;
/// The slave library buffers at most 16 bytes of one write.
pub const MAX_WRITE: usize = 16;
/// Speeds outside this are clamped by the board's `setSpeeds`.
pub const MAX_SPEED: i16 = 300;

/// Offsets into the shared buffer (the sketch's `struct Data`).
pub mod layout {
    pub const YELLOW: u8 = 0;
    pub const GREEN: u8 = 1;
    pub const RED: u8 = 2;
    pub const BUTTON_A: u8 = 3;
    pub const BUTTON_B: u8 = 4;
    pub const BUTTON_C: u8 = 5;
    pub const LEFT_MOTOR: u8 = 6;
    pub const RIGHT_MOTOR: u8 = 8;
    pub const BATTERY_MILLIVOLTS: u8 = 10;
    pub const ANALOG: u8 = 12;
    pub const PLAY_NOTES: u8 = 24;
    pub const NOTES: u8 = 25;
    pub const NOTES_LEN: usize = 14;
    pub const LEFT_ENCODER: u8 = 39;
    pub const RIGHT_ENCODER: u8 = 41;
    /// The whole buffer.
    pub const SIZE: usize = 43;
}

/// The board, through Pololu's slave protocol.
pub struct Romi32u4<I2C, D> {
    i2c: I2C,
    delay: D,
    address: u8,
    name: String,
}

impl<I2C: I2c, D: DelayNs> Romi32u4<I2C, D> {
    pub fn new(i2c: I2C, delay: D, address: u8) -> Romi32u4<I2C, D> {
        Romi32u4 {
            i2c,
            delay,
            address,
            name: format!("romi32u4@{address}"),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    fn fail(&self, e: I2C::Error) -> DeviceError {
        DeviceError::bus(&self.name, e)
    }

    /// Writes `data` into the buffer at `offset`: one transaction, then the Pi delay.
    pub fn write_at(&mut self, offset: u8, data: &[u8]) -> Result<(), DeviceError> {
        if data.len() > MAX_WRITE || usize::from(offset) + data.len() > layout::SIZE {
            return Err(DeviceError::InvalidValue {
                device: self.name.clone(),
                detail: format!("{} bytes at offset {offset}", data.len()),
            });
        }
        let mut bytes = [0u8; MAX_WRITE + 1];
        bytes[0] = offset;
        bytes[1..=data.len()].copy_from_slice(data);
        let r = self.i2c.write(self.address, &bytes[..=data.len()]);
        self.delay.delay_ns(PI_DELAY_NS);
        r.map_err(|e| self.fail(e))
    }

    /// Reads `buf.len()` bytes of the buffer from `offset`: the offset, the Pi delay, then
    /// one read transaction.
    pub fn read_at(&mut self, offset: u8, buf: &mut [u8]) -> Result<(), DeviceError> {
        let r = self.i2c.write(self.address, &[offset]);
        self.delay.delay_ns(PI_DELAY_NS);
        r.map_err(|e| self.fail(e))?;
        self.i2c.read(self.address, buf).map_err(|e| self.fail(e))
    }

    /// Sets both motor speeds, -300..300 (clamped), forward positive.
    pub fn set_motors(&mut self, left: i16, right: i16) -> Result<(), DeviceError> {
        let [l0, l1] = left.clamp(-MAX_SPEED, MAX_SPEED).to_le_bytes();
        let [r0, r1] = right.clamp(-MAX_SPEED, MAX_SPEED).to_le_bytes();
        self.write_at(layout::LEFT_MOTOR, &[l0, l1, r0, r1])
    }

    /// The speeds the board was last told, as it holds them.
    pub fn motors(&mut self) -> Result<(i16, i16), DeviceError> {
        let mut b = [0u8; 4];
        self.read_at(layout::LEFT_MOTOR, &mut b)?;
        Ok((
            i16::from_le_bytes([b[0], b[1]]),
            i16::from_le_bytes([b[2], b[3]]),
        ))
    }

    /// The encoder counts, left and right (they wrap around at the ends of i16).
    pub fn encoders(&mut self) -> Result<(i16, i16), DeviceError> {
        let mut b = [0u8; 4];
        self.read_at(layout::LEFT_ENCODER, &mut b)?;
        Ok((
            i16::from_le_bytes([b[0], b[1]]),
            i16::from_le_bytes([b[2], b[3]]),
        ))
    }

    pub fn battery_millivolts(&mut self) -> Result<u16, DeviceError> {
        let mut b = [0u8; 2];
        self.read_at(layout::BATTERY_MILLIVOLTS, &mut b)?;
        Ok(u16::from_le_bytes(b))
    }

    /// The six analog inputs, 0..1023.
    pub fn analog(&mut self) -> Result<[u16; 6], DeviceError> {
        let mut b = [0u8; 12];
        self.read_at(layout::ANALOG, &mut b)?;
        Ok(std::array::from_fn(|i| {
            u16::from_le_bytes([b[2 * i], b[2 * i + 1]])
        }))
    }

    /// Buttons A, B and C.
    pub fn buttons(&mut self) -> Result<[bool; 3], DeviceError> {
        let mut b = [0u8; 3];
        self.read_at(layout::BUTTON_A, &mut b)?;
        Ok(b.map(|x| x != 0))
    }

    /// The yellow, green and red LEDs, in the buffer's order.
    pub fn set_leds(&mut self, yellow: bool, green: bool, red: bool) -> Result<(), DeviceError> {
        self.write_at(layout::YELLOW, &[yellow.into(), green.into(), red.into()])
    }

    /// Plays a melody in Pololu's buzzer notation (at most 14 characters).
    pub fn play_notes(&mut self, notes: &str) -> Result<(), DeviceError> {
        if notes.len() > layout::NOTES_LEN || !notes.is_ascii() {
            return Err(DeviceError::InvalidValue {
                device: self.name.clone(),
                detail: format!("notes {notes:?}: at most 14 ASCII characters"),
            });
        }
        let mut b = [0u8; 1 + layout::NOTES_LEN];
        b[0] = 1;
        b[1..=notes.len()].copy_from_slice(notes.as_bytes());
        self.write_at(layout::PLAY_NOTES, &b)
    }

    /// Checks that the board answers (before the first tick): the battery voltage is read.
    pub fn probe(&mut self) -> Result<u16, DeviceError> {
        self.battery_millivolts()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::devices::mock::{MockEvent, MockI2c, Op, Transaction};
    use embedded_hal::i2c::ErrorKind;

    fn board(bus: &MockI2c) -> Romi32u4<MockI2c, crate::devices::mock::FakeDelay> {
        Romi32u4::new(bus.clone(), bus.delay(), DEFAULT_ADDRESS)
    }

    fn t(ops: Vec<Op>) -> MockEvent {
        MockEvent::I2c(Transaction {
            address: 20,
            ops,
            failed: false,
        })
    }

    #[test]
    fn motor_speeds_are_two_little_endian_i16_at_offset_6() {
        let bus = MockI2c::new();
        board(&bus).set_motors(200, -300).unwrap();
        board(&bus).set_motors(1000, -1000).unwrap();
        assert_eq!(
            bus.timeline(),
            vec![
                t(vec![Op::Write(vec![6, 0xC8, 0x00, 0xD4, 0xFE])]),
                MockEvent::Delay(100_000),
                // Clamped to the board's range.
                t(vec![Op::Write(vec![6, 0x2C, 0x01, 0xD4, 0xFE])]),
                MockEvent::Delay(100_000),
            ]
        );
    }

    #[test]
    fn reads_write_the_offset_wait_then_read() {
        let bus = MockI2c::new();
        bus.queue_read(&[0x10, 0x00, 0xF0, 0xFF]);
        bus.queue_read(&[0x2C, 0x1D]);
        let mut b = board(&bus);
        assert_eq!(b.encoders(), Ok((16, -16)));
        assert_eq!(b.battery_millivolts(), Ok(7468));
        assert_eq!(
            bus.timeline(),
            vec![
                t(vec![Op::Write(vec![39])]),
                MockEvent::Delay(100_000),
                t(vec![Op::Read(vec![0x10, 0x00, 0xF0, 0xFF])]),
                t(vec![Op::Write(vec![10])]),
                MockEvent::Delay(100_000),
                t(vec![Op::Read(vec![0x2C, 0x1D])]),
            ]
        );
    }

    #[test]
    fn leds_buttons_analog_and_notes_follow_the_layout() {
        let bus = MockI2c::new();
        bus.queue_read(&[1, 0, 1]);
        bus.queue_read(&[1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 0xFF, 0x03]);
        let mut b = board(&bus);
        b.set_leds(true, false, true).unwrap();
        assert_eq!(b.buttons(), Ok([true, false, true]));
        assert_eq!(b.analog(), Ok([1, 2, 3, 4, 5, 1023]));
        b.play_notes("l16ceg").unwrap();
        assert!(b.play_notes("this is far too long").is_err());
        let writes: Vec<Vec<u8>> = bus
            .transactions()
            .into_iter()
            .flat_map(|t| t.ops)
            .filter_map(|op| match op {
                Op::Write(w) => Some(w),
                Op::Read(_) => None,
            })
            .collect();
        assert_eq!(
            writes,
            vec![
                vec![0, 1, 0, 1],
                vec![3],
                vec![12],
                vec![24, 1, b'l', b'1', b'6', b'c', b'e', b'g', 0, 0, 0, 0, 0, 0, 0, 0],
            ]
        );
    }

    #[test]
    fn writes_past_the_buffer_or_over_16_bytes_are_refused() {
        let bus = MockI2c::new();
        let mut b = board(&bus);
        assert!(b.write_at(40, &[0, 0, 0, 0]).is_err());
        assert!(b.write_at(0, &[0; 17]).is_err());
        assert!(bus.transactions().is_empty());
    }

    #[test]
    fn a_bus_error_names_the_board() {
        let bus = MockI2c::new();
        bus.fail_next(ErrorKind::NoAcknowledge(
            embedded_hal::i2c::NoAcknowledgeSource::Address,
        ));
        let r = board(&bus).probe();
        assert!(
            matches!(r, Err(DeviceError::Bus { ref device, .. }) if device == "romi32u4@20"),
            "{r:?}"
        );
    }
}
