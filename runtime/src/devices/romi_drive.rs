//! Cell-by-cell moves on the Pi, from the Romi's encoder counts. Pololu's slave firmware only
//! sets wheel speeds and counts encoder ticks ([`super::romi32u4`]); seed 003's moves (one
//! 24 cm cell up, down, left or right, turning in place as needed, correcting drift) are
//! done here, one control step per call of [`Motor::status`] (once per tick while a `Move`
//! runs).
//!
//! A step is a turn in place to face the direction (none, a quarter or a half turn), then a
//! straight run of one cell. Each phase is a position loop on the wheels' travel since the
//! phase began: the command asks for about half the remaining travel by the next call, from
//! a running estimate of how far one unit of speed moves a wheel between calls (so the loop
//! adapts to the tick rate, the battery and the floor), clamped between a creeping and a top
//! speed. While driving straight, the difference between the wheels' travel is fed back as a
//! speed difference (drift correction). A phase ends within [`TOLERANCE`] counts; a wheel that
//! is commanded but does not move for [`STALL_CALLS`] calls is blocked (the step fails and the
//! motors stop).
//!
//! The robot starts facing `Up` (the grid's rows run up the page) unless told otherwise.

use super::romi32u4::Romi32u4;
use super::{DeviceError, Direction, Motor, MotorCommand, MotorStatus};
use embedded_hal::delay::DelayNs;
use embedded_hal::i2c::I2c;

/// A phase ends when the remaining travel is within this many counts (about 2.3 mm).
pub const TOLERANCE: i32 = 15;
/// Calls with the motors commanded and no wheel movement before the step is blocked.
pub const STALL_CALLS: u32 = 10;
/// The slowest command that still turns the wheels.
const CREEP: f64 = 20.0;
/// Travel asked for by the next call, as a share of what remains.
const APPROACH: f64 = 0.5;
/// Speed difference per count of difference between the wheels' travel.
const DRIFT_GAIN: f64 = 0.5;
/// The first command of a phase, before the loop has measured anything.
const START: f64 = 60.0;

/// What the controller needs from the board.
pub trait Wheels {
    fn set_speeds(&mut self, left: i16, right: i16) -> Result<(), DeviceError>;
    fn encoders(&mut self) -> Result<(i16, i16), DeviceError>;
}

impl<I2C: I2c, D: DelayNs> Wheels for Romi32u4<I2C, D> {
    fn set_speeds(&mut self, left: i16, right: i16) -> Result<(), DeviceError> {
        self.set_motors(left, right)
    }

    fn encoders(&mut self) -> Result<(i16, i16), DeviceError> {
        Romi32u4::encoders(self)
    }
}

/// The robot's dimensions and limits (the Romi chassis's by default).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Geometry {
    /// Distance between cell centres, mm.
    pub cell_mm: f64,
    pub wheel_diameter_mm: f64,
    /// Encoder counts per wheel revolution (12 CPR × 120:1 gearbox).
    pub counts_per_rev: f64,
    /// Distance between the wheels, mm.
    pub track_mm: f64,
    /// The fastest command used, of the board's 300.
    pub top_speed: f64,
    /// The way the robot faces at the start.
    pub heading: Direction,
}

impl Default for Geometry {
    fn default() -> Self {
        Geometry {
            cell_mm: 240.0,
            wheel_diameter_mm: 70.0,
            counts_per_rev: 1440.0,
            track_mm: 141.0,
            top_speed: 150.0,
            heading: Direction::Up,
        }
    }
}

impl Geometry {
    fn counts(&self, mm: f64) -> i32 {
        (mm * self.counts_per_rev / (std::f64::consts::PI * self.wheel_diameter_mm)).round() as i32
    }

    /// Wheel travel for one cell.
    pub fn cell_counts(&self) -> i32 {
        self.counts(self.cell_mm)
    }

    /// Wheel travel (each wheel, opposite ways) for a quarter turn in place.
    pub fn quarter_turn_counts(&self) -> i32 {
        self.counts(std::f64::consts::PI * self.track_mm / 4.0)
    }
}

/// Quarter turns counter-clockwise from `from` to `to`: 0..=3.
fn quarters(from: Direction, to: Direction) -> i32 {
    let angle = |d: Direction| -> i32 {
        match d {
            Direction::Right => 0,
            Direction::Up => 1,
            Direction::Left => 2,
            Direction::Down => 3,
        }
    };
    (angle(to) - angle(from)).rem_euclid(4)
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    /// Turning in place: +1 counter-clockwise (left wheel back), -1 clockwise.
    Turn {
        sign: i32,
        target: i32,
    },
    Drive {
        target: i32,
    },
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum State {
    Idle,
    Moving {
        phase: Phase,
        /// Then drive (after a turn).
        then_drive: bool,
    },
    Blocked,
}

/// A [`Motor`] that makes grid steps with a Romi (or any [`Wheels`]).
pub struct RomiDrive<W> {
    wheels: W,
    geometry: Geometry,
    heading: Direction,
    state: State,
    /// Encoder counts at the last reading, and each wheel's travel in this phase.
    last: Option<(i16, i16)>,
    travel: (i32, i32),
    /// The command sent at the last call (signed, per wheel).
    command: (f64, f64),
    /// Counts one unit of command moves a wheel between two calls (running estimate).
    gain: Option<f64>,
    still: u32,
    /// Steps made since the start, for a world that follows the robot.
    steps: u64,
}

impl<W: Wheels> RomiDrive<W> {
    pub fn new(wheels: W, geometry: Geometry) -> RomiDrive<W> {
        RomiDrive {
            wheels,
            heading: geometry.heading,
            geometry,
            state: State::Idle,
            last: None,
            travel: (0, 0),
            command: (0.0, 0.0),
            gain: None,
            still: 0,
            steps: 0,
        }
    }

    pub fn heading(&self) -> Direction {
        self.heading
    }

    /// Steps completed since the start.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    pub fn wheels_mut(&mut self) -> &mut W {
        &mut self.wheels
    }

    fn begin(&mut self, phase: Phase, then_drive: bool) -> Result<(), DeviceError> {
        self.travel = (0, 0);
        self.still = 0;
        self.last = Some(self.wheels.encoders()?);
        self.state = State::Moving { phase, then_drive };
        self.control()
    }

    fn stop(&mut self) -> Result<(), DeviceError> {
        self.command = (0.0, 0.0);
        self.wheels.set_speeds(0, 0)
    }

    /// Reads the encoders and updates the travel of this phase and the gain estimate.
    fn measure(&mut self) -> Result<(i32, i32), DeviceError> {
        let now = self.wheels.encoders()?;
        let (l0, r0) = self.last.unwrap_or(now);
        // The counters wrap at the ends of i16; a call never sees half a wrap.
        let d = (
            i32::from(now.0.wrapping_sub(l0)),
            i32::from(now.1.wrapping_sub(r0)),
        );
        self.last = Some(now);
        self.travel.0 += d.0;
        self.travel.1 += d.1;
        let commanded = self.command.0.abs() + self.command.1.abs();
        if commanded > 0.0 {
            let moved = f64::from(d.0.abs() + d.1.abs());
            if moved == 0.0 {
                self.still += 1;
            } else {
                self.still = 0;
                let g = moved / commanded;
                self.gain = Some(match self.gain {
                    Some(old) => 0.5 * old + 0.5 * g,
                    None => g,
                });
            }
        }
        Ok(d)
    }

    /// One control step of the phase under way.
    fn control(&mut self) -> Result<(), DeviceError> {
        let State::Moving { phase, then_drive } = self.state else {
            return Ok(());
        };
        let (sign, target) = match phase {
            Phase::Turn { sign, target } => (sign, target),
            Phase::Drive { target } => (0, target),
        };
        // Travel along the phase's own direction: forward, or each wheel its turning way.
        let (tl, tr) = if sign == 0 {
            self.travel
        } else {
            (-sign * self.travel.0, sign * self.travel.1)
        };
        let remaining = target - (tl + tr) / 2;
        if remaining.abs() <= TOLERANCE {
            self.stop()?;
            match phase {
                Phase::Turn { .. } if then_drive => {
                    let target = self.geometry.cell_counts();
                    return self.begin(Phase::Drive { target }, false);
                }
                Phase::Turn { .. } => self.state = State::Idle,
                Phase::Drive { .. } => {
                    self.steps += 1;
                    self.state = State::Idle;
                }
            }
            return Ok(());
        }
        if self.still >= STALL_CALLS {
            self.stop()?;
            self.state = State::Blocked;
            return Ok(());
        }
        let top = self.geometry.top_speed;
        let want = match self.gain {
            Some(g) if g > 0.0 => f64::from(remaining) * APPROACH / g,
            _ => START.copysign(f64::from(remaining)),
        };
        let base = want.abs().clamp(CREEP, top).copysign(want);
        // Drift: the wheel that is ahead slows down, the other speeds up.
        let drift = f64::from(tl - tr) * DRIFT_GAIN;
        let (cl, cr) = (base - drift, base + drift);
        let (cl, cr) = if sign == 0 {
            (cl, cr)
        } else {
            (-f64::from(sign) * cl, f64::from(sign) * cr)
        };
        self.command = (cl, cr);
        self.wheels.set_speeds(
            cl.round().clamp(-top, top) as i16,
            cr.round().clamp(-top, top) as i16,
        )
    }
}

impl<W: Wheels> Motor for RomiDrive<W> {
    fn command(&mut self, command: MotorCommand) -> Result<(), DeviceError> {
        match command {
            MotorCommand::Step(d) => {
                let q = quarters(self.heading, d);
                if q == 0 {
                    let target = self.geometry.cell_counts();
                    self.begin(Phase::Drive { target }, false)?;
                } else {
                    // Three quarters counter-clockwise is one clockwise.
                    let (sign, n) = if q == 3 { (-1, 1) } else { (1, q) };
                    let target = n * self.geometry.quarter_turn_counts();
                    self.begin(Phase::Turn { sign, target }, true)?;
                }
                // Only a step that began turns the robot: after a failed transfer the next
                // step is measured from the heading it really has.
                self.heading = d;
                Ok(())
            }
            MotorCommand::Speeds { left, right } => {
                self.state = State::Idle;
                self.command = (f64::from(left), f64::from(right));
                self.wheels.set_speeds(left, right)
            }
            MotorCommand::Stop => {
                self.state = State::Idle;
                self.stop()
            }
        }
    }

    fn status(&mut self) -> Result<MotorStatus, DeviceError> {
        if let State::Moving { .. } = self.state {
            if let Err(e) = self.measure().and_then(|_| self.control()) {
                // A failed transfer ends the step; the motors are told to stop (if the bus
                // lets us).
                self.state = State::Blocked;
                let _ = self.stop();
                return Err(e);
            }
        }
        Ok(match self.state {
            State::Idle => MotorStatus::Idle,
            State::Moving { .. } => MotorStatus::Moving,
            State::Blocked => MotorStatus::Blocked,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::devices::romi_model::RomiBoard;

    fn drive(board: &RomiBoard) -> RomiDrive<Romi32u4<RomiBoard, crate::devices::sim::NoDelay>> {
        RomiDrive::new(
            Romi32u4::new(board.clone(), crate::devices::sim::NoDelay, 20),
            Geometry::default(),
        )
    }

    /// Ticks at 10 Hz until the step ends; returns the number of calls.
    fn run(d: &mut RomiDrive<impl Wheels>, board: &RomiBoard) -> (MotorStatus, u32) {
        for n in 1..200 {
            board.advance_ms(100);
            match d.status().unwrap() {
                MotorStatus::Moving => continue,
                s => return (s, n),
            }
        }
        panic!("the step never ended");
    }

    #[test]
    fn geometry_of_the_romi() {
        let g = Geometry::default();
        // 1440 counts per 219.9 mm of wheel circumference.
        assert_eq!(g.cell_counts(), 1572);
        assert_eq!(g.quarter_turn_counts(), 725);
        assert_eq!(quarters(Direction::Up, Direction::Left), 1);
        assert_eq!(quarters(Direction::Up, Direction::Right), 3);
        assert_eq!(quarters(Direction::Up, Direction::Down), 2);
        assert_eq!(quarters(Direction::Left, Direction::Left), 0);
    }

    #[test]
    fn a_straight_step_travels_one_cell_and_stops() {
        let board = RomiBoard::new();
        let mut d = drive(&board);
        d.command(MotorCommand::Step(Direction::Up)).unwrap();
        let (status, calls) = run(&mut d, &board);
        assert_eq!(status, MotorStatus::Idle);
        assert!(calls < 30, "{calls} ticks for one cell");
        let (l, r) = board.encoders();
        assert!((i32::from(l) - 1572).abs() <= TOLERANCE + 5, "left {l}");
        assert!((i32::from(r) - 1572).abs() <= TOLERANCE + 5, "right {r}");
        assert_eq!(board.motors(), (0, 0), "stopped at the end");
        assert_eq!(d.steps(), 1);
    }

    #[test]
    fn drift_is_corrected_when_one_wheel_is_weaker() {
        let board = RomiBoard::new();
        board.set_right_gain(0.9);
        let mut d = drive(&board);
        d.command(MotorCommand::Step(Direction::Up)).unwrap();
        assert_eq!(run(&mut d, &board).0, MotorStatus::Idle);
        let (l, r) = board.encoders();
        assert!(
            (i32::from(l) - i32::from(r)).abs() <= 40,
            "wheels {l} and {r} apart"
        );
    }

    #[test]
    fn a_turn_comes_before_the_step_and_the_heading_is_kept() {
        let board = RomiBoard::new();
        let mut d = drive(&board);
        d.command(MotorCommand::Step(Direction::Left)).unwrap();
        assert_eq!(run(&mut d, &board).0, MotorStatus::Idle);
        let (l, r) = board.encoders();
        // A quarter turn counter-clockwise (left back 725, right forward 725), then a cell.
        assert!(
            (i32::from(l) - (1572 - 725)).abs() <= 2 * TOLERANCE + 5,
            "left {l}"
        );
        assert!(
            (i32::from(r) - (1572 + 725)).abs() <= 2 * TOLERANCE + 5,
            "right {r}"
        );
        assert_eq!(d.heading(), Direction::Left);
        // Right from facing left: a half turn.
        d.command(MotorCommand::Step(Direction::Right)).unwrap();
        assert_eq!(run(&mut d, &board).0, MotorStatus::Idle);
        assert_eq!(d.steps(), 2);
    }

    #[test]
    fn stalled_wheels_block_the_step_and_stop_the_motors() {
        let board = RomiBoard::new();
        board.set_right_gain(0.0);
        board.set_left_gain(0.0);
        let mut d = drive(&board);
        d.command(MotorCommand::Step(Direction::Up)).unwrap();
        let (status, calls) = run(&mut d, &board);
        assert_eq!(status, MotorStatus::Blocked);
        assert_eq!(calls, STALL_CALLS);
        assert_eq!(board.motors(), (0, 0));
    }

    #[test]
    fn stop_zeroes_the_speeds_and_a_failed_read_stops_too() {
        let board = RomiBoard::new();
        let mut d = drive(&board);
        d.command(MotorCommand::Step(Direction::Up)).unwrap();
        board.advance_ms(100);
        d.status().unwrap();
        assert_ne!(board.motors(), (0, 0));
        d.command(MotorCommand::Stop).unwrap();
        assert_eq!(board.motors(), (0, 0));
        d.command(MotorCommand::Step(Direction::Up)).unwrap();
        board.fail_reads(true);
        assert!(d.status().is_err());
        assert_eq!(
            board.motors(),
            (0, 0),
            "writes still work, so the motors stop"
        );
        board.fail_reads(false);
        assert_eq!(d.status(), Ok(MotorStatus::Blocked));
    }

    #[test]
    fn a_step_that_could_not_begin_keeps_the_heading() {
        let board = RomiBoard::new();
        let mut d = drive(&board);
        board.fail_reads(true);
        assert!(d.command(MotorCommand::Step(Direction::Left)).is_err());
        assert_eq!(d.heading(), Direction::Up, "the robot did not turn");
        board.fail_reads(false);
        // Still facing up: a step up is a straight cell, no turn first.
        d.command(MotorCommand::Step(Direction::Up)).unwrap();
        assert_eq!(run(&mut d, &board).0, MotorStatus::Idle);
        let (l, r) = board.encoders();
        assert!((i32::from(l) - 1572).abs() <= TOLERANCE + 5, "left {l}");
        assert!((i32::from(r) - 1572).abs() <= TOLERANCE + 5, "right {r}");
    }

    #[test]
    fn encoder_wraparound_is_followed() {
        let board = RomiBoard::new();
        board.set_encoders(32000, 32000);
        let mut d = drive(&board);
        d.command(MotorCommand::Step(Direction::Up)).unwrap();
        assert_eq!(run(&mut d, &board).0, MotorStatus::Idle);
        let (l, _) = board.encoders();
        assert!(l < 0, "wrapped past 32767");
    }

    /// The board's firmware (firmware/) stops the wheels when no speed command has come for a
    /// while (300 ms by default): while a step is under way, every call (one a tick) sends
    /// the speeds again, the last one the stop.
    #[test]
    fn every_call_during_a_step_sends_the_speeds() {
        use std::cell::Cell;
        use std::rc::Rc;
        struct Counting<W> {
            wheels: W,
            sent: Rc<Cell<u32>>,
        }
        impl<W: Wheels> Wheels for Counting<W> {
            fn set_speeds(&mut self, left: i16, right: i16) -> Result<(), DeviceError> {
                self.sent.set(self.sent.get() + 1);
                self.wheels.set_speeds(left, right)
            }
            fn encoders(&mut self) -> Result<(i16, i16), DeviceError> {
                self.wheels.encoders()
            }
        }
        let board = RomiBoard::new();
        let sent = Rc::new(Cell::new(0));
        let wheels = Counting {
            wheels: Romi32u4::new(board.clone(), crate::devices::sim::NoDelay, 20),
            sent: sent.clone(),
        };
        let mut d = RomiDrive::new(wheels, Geometry::default());
        let mut calls = 0;
        // A quarter turn and a cell, a cell straight on, a half turn and a cell.
        for direction in [Direction::Left, Direction::Left, Direction::Right] {
            d.command(MotorCommand::Step(direction)).unwrap();
            loop {
                board.advance_ms(100);
                let before = sent.get();
                let status = d.status().unwrap();
                calls += 1;
                assert!(sent.get() > before, "call {calls} sent no speeds");
                if status != MotorStatus::Moving {
                    assert_eq!(status, MotorStatus::Idle);
                    break;
                }
            }
        }
        assert_eq!(board.motors(), (0, 0));
        assert!(calls > 10, "{calls} calls");
    }
}
