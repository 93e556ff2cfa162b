//! The Pololu Romi32U4 control board as the robot's motor board (`romi32u4(bus: 1, address:
//! 0x14)`). Seed 003's board took movement commands over I2C and executed them itself: one
//! 24 cm cell per move, turning as needed and correcting drift from the wheel encoders.
//! The seed does not publish the byte format, so the project defines one, implemented by
//! the board's firmware (see docs/devices.md):
//!
//! | command | bytes written | meaning |
//! |---|---|---|
//! | step | `[0x01, d]` | travel one cell; `d` = 0 up, 1 down, 2 left, 3 right (grid directions) |
//! | speeds | `[0x02, lh, ll, rh, rl]` | wheel speeds in mm/s, two big-endian i16, forward positive |
//! | stop | `[0x03]` | stop both motors now |
//! | status | write `[0x10]`, read 1 byte | 0 idle, 1 moving, 2 blocked (the last step was not made) |
//!
//! Each command is one write transaction; status is one write-read transaction (repeated
//! start), so no other device's transfer can come between the register and its answer.

use super::{DeviceError, Direction, Motor, MotorCommand, MotorStatus};
use embedded_hal::i2c::{Error as _, I2c};

pub const DEFAULT_ADDRESS: u8 = 0x14;
pub const CMD_STEP: u8 = 0x01;
pub const CMD_SPEEDS: u8 = 0x02;
pub const CMD_STOP: u8 = 0x03;
pub const REG_STATUS: u8 = 0x10;

/// The direction byte of a step command.
pub fn direction_code(d: Direction) -> u8 {
    match d {
        Direction::Up => 0,
        Direction::Down => 1,
        Direction::Left => 2,
        Direction::Right => 3,
    }
}

/// The bytes of a command. Only `Step` and `Stop` have fixed lengths; the buffer is the
/// longest command and the length says how much of it to send.
pub fn encode(command: MotorCommand) -> ([u8; 5], usize) {
    match command {
        MotorCommand::Step(d) => ([CMD_STEP, direction_code(d), 0, 0, 0], 2),
        MotorCommand::Speeds { left, right } => {
            let [lh, ll] = left.to_be_bytes();
            let [rh, rl] = right.to_be_bytes();
            ([CMD_SPEEDS, lh, ll, rh, rl], 5)
        }
        MotorCommand::Stop => ([CMD_STOP, 0, 0, 0, 0], 1),
    }
}

pub struct Romi32u4<I2C> {
    i2c: I2C,
    address: u8,
    name: String,
}

impl<I2C: I2c> Romi32u4<I2C> {
    pub fn new(i2c: I2C, address: u8) -> Romi32u4<I2C> {
        Romi32u4 {
            i2c,
            address,
            name: format!("romi32u4@{address:#04x}"),
        }
    }

    pub fn release(self) -> I2C {
        self.i2c
    }
}

impl<I2C: I2c> Motor for Romi32u4<I2C> {
    fn command(&mut self, command: MotorCommand) -> Result<(), DeviceError> {
        let (bytes, len) = encode(command);
        self.i2c
            .write(self.address, &bytes[..len])
            .map_err(|e| DeviceError::bus(&self.name, e.kind()))
    }

    fn status(&mut self) -> Result<MotorStatus, DeviceError> {
        let mut answer = [0u8; 1];
        self.i2c
            .write_read(self.address, &[REG_STATUS], &mut answer)
            .map_err(|e| DeviceError::bus(&self.name, e.kind()))?;
        match answer[0] {
            0 => Ok(MotorStatus::Idle),
            1 => Ok(MotorStatus::Moving),
            2 => Ok(MotorStatus::Blocked),
            other => Err(DeviceError::Bus {
                device: self.name.clone(),
                detail: format!("unknown status byte {other:#04x}"),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::devices::mock::{MockI2c, Op};
    use embedded_hal::i2c::ErrorKind;

    #[test]
    fn command_bytes() {
        let bus = MockI2c::new();
        let mut board = Romi32u4::new(bus.clone(), DEFAULT_ADDRESS);
        for d in Direction::ALL {
            board.command(MotorCommand::Step(d)).unwrap();
        }
        board
            .command(MotorCommand::Speeds {
                left: 200,
                right: -300,
            })
            .unwrap();
        board.command(MotorCommand::Stop).unwrap();
        let writes: Vec<(u8, Vec<Op>)> = bus
            .transactions()
            .into_iter()
            .map(|t| (t.address, t.ops))
            .collect();
        let w = |b: &[u8]| (0x14, vec![Op::Write(b.to_vec())]);
        assert_eq!(
            writes,
            vec![
                w(&[0x01, 0]),
                w(&[0x01, 1]),
                w(&[0x01, 2]),
                w(&[0x01, 3]),
                w(&[0x02, 0x00, 0xC8, 0xFE, 0xD4]),
                w(&[0x03]),
            ]
        );
    }

    #[test]
    fn status_is_one_write_read() {
        let bus = MockI2c::new();
        bus.queue_read(&[0]);
        bus.queue_read(&[1]);
        bus.queue_read(&[2]);
        bus.queue_read(&[9]);
        let mut board = Romi32u4::new(bus.clone(), 0x14);
        assert_eq!(board.status(), Ok(MotorStatus::Idle));
        assert_eq!(board.status(), Ok(MotorStatus::Moving));
        assert_eq!(board.status(), Ok(MotorStatus::Blocked));
        assert!(matches!(board.status(), Err(DeviceError::Bus { .. })));
        assert_eq!(
            bus.transactions()[0].ops,
            vec![Op::Write(vec![0x10]), Op::Read(vec![0])]
        );
    }

    #[test]
    fn a_bus_error_is_an_error() {
        let bus = MockI2c::new();
        bus.fail_next(ErrorKind::ArbitrationLoss);
        let mut board = Romi32u4::new(bus, 0x14);
        assert!(
            matches!(board.command(MotorCommand::Stop), Err(DeviceError::Bus { ref device, .. }) if device == "romi32u4@0x14")
        );
    }
}
