//! Units and what they measure, and the one conversion of a quantity into the runtime's
//! unit for its measure (milliseconds, hertz, metres, degrees). `value.rs` reads typed values
//! with it; worlds (`sema/world`) and the checker's literals (`sema::expr::literal_value`) too.

use crate::syntax::token::Unit;
use serde::Serialize;

/// What a unit measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Measure {
    Length,
    Time,
    Frequency,
    Angle,
}

impl Measure {
    pub fn of(unit: Unit) -> Measure {
        match unit {
            Unit::Mm | Unit::Cm | Unit::M | Unit::Ft => Measure::Length,
            Unit::Ms | Unit::S | Unit::Min | Unit::H => Measure::Time,
            Unit::Hz | Unit::KHz => Measure::Frequency,
            Unit::Deg => Measure::Angle,
        }
    }

    /// "a time", "a length": what the messages call it.
    pub fn noun(self) -> &'static str {
        match self {
            Measure::Length => "a length",
            Measure::Time => "a time",
            Measure::Frequency => "a frequency",
            Measure::Angle => "an angle",
        }
    }

    /// How to write one: the example a message gives.
    pub fn example(self) -> &'static str {
        match self {
            Measure::Length => "24cm",
            Measure::Time => "10s",
            Measure::Frequency => "10Hz",
            Measure::Angle => "90deg",
        }
    }

    /// The units that measure it, as written.
    pub fn units(self) -> String {
        let names: Vec<&str> = Unit::ALL
            .iter()
            .filter(|u| Measure::of(**u) == self)
            .map(|u| u.as_str())
            .collect();
        names.join(", ")
    }
}

/// A quantity in the runtime's unit for its measure: milliseconds, hertz, metres, degrees.
pub fn quantity(value: f64, unit: Unit) -> f64 {
    match unit {
        Unit::Ms => value,
        Unit::S => value * 1000.0,
        Unit::Min => value * 60_000.0,
        Unit::H => value * 3_600_000.0,
        Unit::Hz => value,
        Unit::KHz => value * 1000.0,
        Unit::Mm => value / 1000.0,
        Unit::Cm => value / 100.0,
        Unit::M => value,
        Unit::Ft => value * 0.3048,
        Unit::Deg => value,
    }
}
