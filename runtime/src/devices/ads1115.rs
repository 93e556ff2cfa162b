//! The ADS1115 16-bit ADC, as seed 003 drives it (Listings 30-33): one single-shot
//! conversion per read.
//!
//! 1. write `[0x01, 0x81 | (mux << 4) | (pga << 1), 0x83]`: the config register; start a
//!    single conversion (bit 15), the channel's multiplexer, the gain, single-shot mode
//!    (bit 8, the 0x01 of 0x81), 128 samples per second and the comparator off (0x83);
//! 2. wait 9 ms (one conversion takes 1/128 s = 7.8 ms, and the data sheet allows the rate
//!    to be 10 % slow; the seed waited 9);
//! 3. check that the conversion is done, as the data sheet says: write `[0x01]`, read the
//!    config register's two bytes; its bit 15 (OS) reads 1 when no conversion is under way.
//!    While it reads 0, wait 1 ms and ask again, at most [`READY_POLLS`] times (then the read
//!    fails: a converter that never finishes is broken, not slow);
//! 4. write `[0x00]` (point at the conversion register), then read two bytes: a big-endian
//!    i16;
//! 5. scale `raw * 100 / 32767` to 0..100; negative readings clamp to 0. The seed did this in
//!    integer arithmetic (truncating); here it is real arithmetic, like the rest of the
//!    language.
//!
//! Two reads of one ADC must never overlap: a read takes `&mut Ads1115` from the config
//! write to the last byte. Several sensors on one ADC share it through [`SharedAdc`], whose
//! channels borrow the ADC for the whole read and refuse (`DeviceError::Busy`) a read that
//! would start while another is in progress; it is `!Send`, so no second thread can try.

use super::{DeviceError, Reading, Sensor};
use embedded_hal::delay::DelayNs;
use embedded_hal::i2c::I2c;
use std::cell::RefCell;
use std::rc::Rc;

pub const CONVERSION_REGISTER: u8 = 0x00;
pub const CONFIG_REGISTER: u8 = 0x01;
/// The wait between starting a conversion and reading it.
pub const CONVERSION_WAIT_NS: u32 = 9_000_000;
/// The wait between two checks of a conversion that is not done yet.
pub const READY_POLL_NS: u32 = 1_000_000;
/// How many times a conversion is checked before the read fails.
pub const READY_POLLS: u32 = 5;
/// The config register's OS bit (in its first byte): 1 when no conversion is under way.
pub const OS_IDLE: u8 = 0x80;
/// The default address (ADDR pin to ground).
pub const DEFAULT_ADDRESS: u8 = 0x48;

/// A single-ended input, A0..A3 (multiplexer 0x04..0x07).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Channel(u8);

impl Channel {
    pub fn new(n: u32) -> Result<Channel, DeviceError> {
        match u8::try_from(n) {
            Ok(n) if n <= 3 => Ok(Channel(n)),
            _ => Err(DeviceError::config(
                "ads1115",
                format!("channel {n} does not exist; the ADS1115 has channels 0 to 3"),
            )),
        }
    }

    /// The multiplexer setting: AINn against ground.
    pub fn mux(self) -> u8 {
        0x04 + self.0
    }
}

/// The programmable gain amplifier's full-scale range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gain {
    V6_144,
    V4_096,
    V2_048,
    V1_024,
    V0_512,
    V0_256,
}

impl Gain {
    const ALL: [Gain; 6] = [
        Gain::V6_144,
        Gain::V4_096,
        Gain::V2_048,
        Gain::V1_024,
        Gain::V0_512,
        Gain::V0_256,
    ];

    /// The gain for a full-scale voltage as the program writes it (`gain: 4.096`).
    pub fn from_volts(volts: f64) -> Result<Gain, DeviceError> {
        Gain::ALL.into_iter().find(|g| (g.volts() - volts).abs() < 1e-6).ok_or_else(|| {
            DeviceError::config(
                "ads1115",
                format!("gain {volts} V does not exist; use 6.144, 4.096, 2.048, 1.024, 0.512 or 0.256"),
            )
        })
    }

    pub fn volts(self) -> f64 {
        match self {
            Gain::V6_144 => 6.144,
            Gain::V4_096 => 4.096,
            Gain::V2_048 => 2.048,
            Gain::V1_024 => 1.024,
            Gain::V0_512 => 0.512,
            Gain::V0_256 => 0.256,
        }
    }

    /// The PGA bits (config bits 11:9).
    pub fn pga(self) -> u8 {
        match self {
            Gain::V6_144 => 0x00,
            Gain::V4_096 => 0x01,
            Gain::V2_048 => 0x02,
            Gain::V1_024 => 0x03,
            Gain::V0_512 => 0x04,
            Gain::V0_256 => 0x05,
        }
    }
}

/// The bytes that start a conversion: the config register and its two bytes.
pub fn config_write(channel: Channel, gain: Gain) -> [u8; 3] {
    [
        CONFIG_REGISTER,
        0x81 | (channel.mux() << 4) | (gain.pga() << 1),
        0x83,
    ]
}

/// A raw conversion scaled to 0..100.
/// The supply the converter runs at unless the declaration says (`supply:`): the Pi's 3.3 V.
pub const DEFAULT_SUPPLY_V: f64 = 3.3;

/// The top of the 0..100 scale a channel can reach: an input cannot go above the supply
/// (the data sheet's absolute maximum is VDD + 0.3 V), so with a gain wider than the supply
/// the top of the scale is out of reach.
pub fn max_reading(supply_v: f64, gain: Gain) -> f64 {
    (supply_v / gain.volts()).min(1.0) * 100.0
}

/// A warning when the range a sensor declares (`num in lo..hi`; the scale's 0..100 when it
/// declares none) goes above what the channel can read at its supply and gain.
pub fn range_warning(
    sensor: &str,
    supply_v: f64,
    gain: Gain,
    declared: Option<(f64, f64)>,
) -> Option<String> {
    let top = max_reading(supply_v, gain);
    let (lo, hi) = declared.unwrap_or((0.0, 100.0));
    (hi > top + 0.05).then(|| {
        format!(
            "sensor `{sensor}`: an ADS1115 at {supply_v} V with gain {} V reads at most {top:.1} of its range {lo}..{hi} (inputs cannot exceed the supply); a gain of {} V or less uses the whole scale, or declare `supply:` if the converter runs at another voltage",
            gain.volts(),
            Gain::ALL
                .into_iter()
                .find(|g| g.volts() <= supply_v)
                .map_or(0.256, Gain::volts)
        )
    })
}

pub fn scale(raw: i16) -> f64 {
    (f64::from(raw) * 100.0 / 32767.0).clamp(0.0, 100.0)
}

pub struct Ads1115<I2C, D> {
    i2c: I2C,
    delay: D,
    address: u8,
    name: String,
}

impl<I2C: I2c, D: DelayNs> Ads1115<I2C, D> {
    pub fn new(i2c: I2C, delay: D, address: u8) -> Ads1115<I2C, D> {
        Ads1115 {
            i2c,
            delay,
            address,
            name: format!("ads1115@{address:#04x}"),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// One conversion, raw.
    pub fn read_raw(&mut self, channel: Channel, gain: Gain) -> Result<i16, DeviceError> {
        let fail = |e: I2C::Error| DeviceError::bus(&self.name, e);
        self.i2c
            .write(self.address, &config_write(channel, gain))
            .map_err(fail)?;
        self.delay.delay_ns(CONVERSION_WAIT_NS);
        let mut config = [0u8; 2];
        for poll in 0..READY_POLLS {
            if poll > 0 {
                self.delay.delay_ns(READY_POLL_NS);
            }
            self.i2c
                .write(self.address, &[CONFIG_REGISTER])
                .map_err(fail)?;
            self.i2c.read(self.address, &mut config).map_err(fail)?;
            if config[0] & OS_IDLE != 0 {
                break;
            }
        }
        if config[0] & OS_IDLE == 0 {
            return Err(DeviceError::Bus {
                device: self.name.clone(),
                detail: "the conversion did not finish".into(),
            });
        }
        self.i2c
            .write(self.address, &[CONVERSION_REGISTER])
            .map_err(fail)?;
        let mut buf = [0u8; 2];
        self.i2c.read(self.address, &mut buf).map_err(fail)?;
        Ok(i16::from_be_bytes(buf))
    }

    /// One conversion, scaled to 0..100.
    pub fn read(&mut self, channel: Channel, gain: Gain) -> Result<f64, DeviceError> {
        self.read_raw(channel, gain).map(scale)
    }

    /// Shares the ADC between several sensors.
    pub fn into_shared(self) -> SharedAdc<I2C, D> {
        SharedAdc {
            adc: Rc::new(RefCell::new(self)),
        }
    }

    pub fn release(self) -> (I2C, D) {
        (self.i2c, self.delay)
    }
}

/// One ADC shared by the sensors on its channels.
pub struct SharedAdc<I2C, D> {
    adc: Rc<RefCell<Ads1115<I2C, D>>>,
}

impl<I2C, D> Clone for SharedAdc<I2C, D> {
    fn clone(&self) -> Self {
        SharedAdc {
            adc: self.adc.clone(),
        }
    }
}

impl<I2C: I2c, D: DelayNs> SharedAdc<I2C, D> {
    /// A sensor on one channel (`ads1115(bus: 1, address: 0x48, channel: 0, gain: 4.096)`).
    pub fn channel(
        &self,
        channel: u32,
        gain_volts: f64,
    ) -> Result<AdcChannel<I2C, D>, DeviceError> {
        Ok(AdcChannel {
            adc: self.adc.clone(),
            channel: Channel::new(channel)?,
            gain: Gain::from_volts(gain_volts)?,
        })
    }
}

/// A sensor reading one channel of a shared ADC.
pub struct AdcChannel<I2C, D> {
    adc: Rc<RefCell<Ads1115<I2C, D>>>,
    channel: Channel,
    gain: Gain,
}

impl<I2C: I2c, D: DelayNs> Sensor for AdcChannel<I2C, D> {
    fn read(&mut self) -> Result<Reading, DeviceError> {
        let mut adc = self.adc.try_borrow_mut().map_err(|_| DeviceError::Busy {
            device: format!("ads1115 channel {}", self.channel.0),
        })?;
        adc.read(self.channel, self.gain).map(Reading::Num)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gain_wider_than_the_supply_cannot_reach_the_top_of_the_range() {
        // 3.3 V with gain 4.096: the top is 3.3 / 4.096 of the scale.
        assert!((max_reading(3.3, Gain::V4_096) - 80.566).abs() < 0.001);
        let w = range_warning("light", 3.3, Gain::V4_096, Some((0.0, 100.0))).unwrap();
        assert!(
            w.contains("reads at most 80.6 of its range 0..100") && w.contains("gain of 2.048 V"),
            "{w}"
        );
        // No declared range: the scale's 0..100.
        assert!(range_warning("light", 3.3, Gain::V4_096, None).is_some());
        // A range within reach, a narrower gain, a 5 V supply: nothing to say.
        assert_eq!(
            range_warning("light", 3.3, Gain::V4_096, Some((0.0, 80.0))),
            None
        );
        assert_eq!(range_warning("sound", 3.3, Gain::V2_048, None), None);
        assert_eq!(range_warning("light", 5.0, Gain::V4_096, None), None);
    }
    use crate::devices::mock::{MockEvent, MockI2c, Op, Transaction};
    use embedded_hal::i2c::ErrorKind;

    fn adc(bus: &MockI2c) -> Ads1115<MockI2c, crate::devices::mock::FakeDelay> {
        Ads1115::new(bus.clone(), bus.delay(), DEFAULT_ADDRESS)
    }

    fn t(ops: Vec<Op>) -> MockEvent {
        MockEvent::I2c(Transaction {
            address: 0x48,
            ops,
            failed: false,
        })
    }

    /// Programs one conversion: the config register read back (done) and the result.
    fn conversion(bus: &MockI2c, result: [u8; 2]) {
        bus.queue_read(&[0xC3, 0x83]);
        bus.queue_read(&result);
    }

    #[test]
    fn light_on_a0_is_the_seeds_transaction_with_the_data_sheets_ready_check() {
        let bus = MockI2c::new();
        conversion(&bus, [0x40, 0x00]);
        let value = adc(&bus)
            .read(Channel::new(0).unwrap(), Gain::from_volts(4.096).unwrap())
            .unwrap();
        // 0x81 | (0x04 << 4) | (0x01 << 1) = 0xC3
        assert_eq!(
            bus.timeline(),
            vec![
                t(vec![Op::Write(vec![0x01, 0xC3, 0x83])]),
                MockEvent::Delay(9_000_000),
                t(vec![Op::Write(vec![0x01])]),
                t(vec![Op::Read(vec![0xC3, 0x83])]),
                t(vec![Op::Write(vec![0x00])]),
                t(vec![Op::Read(vec![0x40, 0x00])]),
            ]
        );
        assert!((value - 16384.0 * 100.0 / 32767.0).abs() < 1e-12);
    }

    #[test]
    fn sound_on_a1_uses_its_multiplexer_and_gain() {
        let bus = MockI2c::new();
        conversion(&bus, [0x00, 0x10]);
        adc(&bus)
            .read(Channel::new(1).unwrap(), Gain::from_volts(2.048).unwrap())
            .unwrap();
        // 0x81 | (0x05 << 4) | (0x02 << 1) = 0xD5
        assert_eq!(
            bus.transactions()[0].ops,
            vec![Op::Write(vec![0x01, 0xD5, 0x83])]
        );
    }

    #[test]
    fn the_wait_is_at_least_one_conversion() {
        let bus = MockI2c::new();
        conversion(&bus, [0, 0]);
        adc(&bus)
            .read(Channel::new(2).unwrap(), Gain::V6_144)
            .unwrap();
        let waits = bus.delay().waits_ns();
        assert_eq!(waits.len(), 1);
        assert!(waits[0] >= 1_000_000_000 / 128, "at least 1/128 s");
        assert!(waits[0] >= 9_000_000);
    }

    #[test]
    fn a_conversion_still_under_way_is_waited_for_then_given_up() {
        let bus = MockI2c::new();
        // OS reads 0 twice (converting), then 1.
        bus.queue_read(&[0x43, 0x83]);
        bus.queue_read(&[0x43, 0x83]);
        conversion(&bus, [0x12, 0x34]);
        assert_eq!(
            adc(&bus).read_raw(Channel::new(0).unwrap(), Gain::V4_096),
            Ok(0x1234)
        );
        assert_eq!(
            bus.delay().waits_ns(),
            vec![9_000_000, 1_000_000, 1_000_000]
        );
        let bus = MockI2c::new();
        for _ in 0..READY_POLLS {
            bus.queue_read(&[0x43, 0x83]);
        }
        let r = adc(&bus).read_raw(Channel::new(0).unwrap(), Gain::V4_096);
        assert!(
            matches!(r, Err(DeviceError::Bus { ref detail, .. }) if detail.contains("did not finish")),
            "{r:?}"
        );
        assert_eq!(bus.transactions().len(), 1 + 2 * READY_POLLS as usize);
    }

    #[test]
    fn scaling() {
        assert_eq!(scale(0x7FFF), 100.0);
        assert_eq!(scale(0), 0.0);
        assert_eq!(scale(-5), 0.0, "negative clamps at 0");
        assert_eq!(scale(i16::MIN), 0.0);
        let bus = MockI2c::new();
        conversion(&bus, [0x7F, 0xFF]);
        conversion(&bus, [0xFF, 0x38]); // -200
        let mut a = adc(&bus);
        let ch = Channel::new(0).unwrap();
        assert_eq!(a.read(ch, Gain::V4_096), Ok(100.0));
        assert_eq!(a.read_raw(ch, Gain::V4_096), Ok(-200));
    }

    #[test]
    fn every_gain_and_channel() {
        let pgas: Vec<(f64, u8)> = Gain::ALL.iter().map(|g| (g.volts(), g.pga())).collect();
        assert_eq!(
            pgas,
            vec![
                (6.144, 0),
                (4.096, 1),
                (2.048, 2),
                (1.024, 3),
                (0.512, 4),
                (0.256, 5)
            ]
        );
        assert_eq!(
            (0..4)
                .map(|c| Channel::new(c).unwrap().mux())
                .collect::<Vec<_>>(),
            vec![4, 5, 6, 7]
        );
        assert!(matches!(Channel::new(4), Err(DeviceError::Config { .. })));
        assert!(matches!(
            Gain::from_volts(3.0),
            Err(DeviceError::Config { .. })
        ));
    }

    #[test]
    fn a_bus_error_is_an_error_not_a_panic() {
        for failing in 0..5 {
            let bus = MockI2c::new();
            conversion(&bus, [1, 2]);
            bus.fail_transaction(
                failing,
                ErrorKind::NoAcknowledge(embedded_hal::i2c::NoAcknowledgeSource::Address),
            );
            let r = adc(&bus).read(Channel::new(0).unwrap(), Gain::V4_096);
            assert!(
                matches!(r, Err(DeviceError::Bus { ref device, .. }) if device == "ads1115@0x48"),
                "{r:?}"
            );
            assert_eq!(
                bus.transactions().len(),
                failing + 1,
                "stops at the failed transfer"
            );
        }
        // Nothing to read: the device did not answer.
        let bus = MockI2c::new();
        assert!(adc(&bus)
            .read(Channel::new(0).unwrap(), Gain::V4_096)
            .is_err());
    }

    #[test]
    fn shared_channels_read_in_turn_and_never_overlap() {
        let bus = MockI2c::new();
        conversion(&bus, [0x40, 0x00]);
        conversion(&bus, [0x20, 0x00]);
        let shared = adc(&bus).into_shared();
        let mut light = shared.channel(0, 4.096).unwrap();
        let mut sound = shared.channel(1, 2.048).unwrap();
        assert!(matches!(light.read(), Ok(Reading::Num(v)) if v > 49.0));
        assert!(matches!(sound.read(), Ok(Reading::Num(v)) if v > 24.0));
        // Each read is one complete sequence: config, wait, ready check, pointer, read.
        let tl = bus.timeline();
        assert_eq!(tl.len(), 12);
        assert!(
            matches!(&tl[6], MockEvent::I2c(t) if t.ops == vec![Op::Write(vec![0x01, 0xD5, 0x83])])
        );
        // A read that starts while another holds the ADC is refused.
        let _held = shared.adc.borrow_mut();
        assert!(matches!(sound.read(), Err(DeviceError::Busy { .. })));
        assert!(shared.channel(9, 4.096).is_err());
    }
}
