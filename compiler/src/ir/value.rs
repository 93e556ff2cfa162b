//! The one conversion of a typed value into the number a slot holds. A quantity is held in
//! the runtime's unit for its measure: milliseconds, hertz, metres, degrees (`10s` is
//! 10,000; `units.rs` holds the units and `quantity`, apart so that worlds can use them
//! without the program's types). Every entry of a value into a program converts here: literals in the checker
//! (`sema::expr::literal_value`, so declarations, tree parameters and defaults, component
//! settings), world settings and spawn values (`sema/world`), and text given on the command
//! line, in a record's header or an experiment's parameters ([`parse_text`]). A number
//! without its unit where the type needs one is refused, never guessed.

use super::program::{Program, ValueKind};
pub use super::units::{quantity, Measure};
use crate::syntax::token::Unit;

/// The measure a slot of this kind holds, if it is a quantity with a unit.
pub fn measure_of(kind: ValueKind) -> Option<Measure> {
    match kind {
        ValueKind::Duration => Some(Measure::Time),
        ValueKind::Length => Some(Measure::Length),
        ValueKind::Rate => Some(Measure::Frequency),
        ValueKind::Angle => Some(Measure::Angle),
        _ => None,
    }
}

/// Why a number cannot be a value of a kind.
#[derive(Clone, Debug, PartialEq)]
pub enum NumberError {
    /// A plain number where a quantity is needed: `wait 10` for a duration.
    NeedsUnit(Measure),
    /// A quantity of another measure, or one where a plain number is needed (`None`).
    WrongUnit {
        want: Option<Measure>,
        found: Measure,
    },
    /// A fraction for an `int`.
    NotWhole,
    /// A number for a kind that holds no numbers (a bool, a string, a list, ...).
    NotANumber,
}

impl std::fmt::Display for NumberError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NumberError::NeedsUnit(m) => write!(
                f,
                "{} needs its unit ({}): write it like `{}`",
                m.noun(),
                m.units(),
                m.example()
            ),
            NumberError::WrongUnit {
                want: Some(w),
                found,
            } => write!(
                f,
                "expected {}, found {}: write it like `{}`",
                w.noun(),
                found.noun(),
                w.example()
            ),
            NumberError::WrongUnit { want: None, found } => {
                write!(f, "expected a plain number, found {}", found.noun())
            }
            NumberError::NotWhole => f.write_str("expected a whole number"),
            NumberError::NotANumber => f.write_str("this value is not a number"),
        }
    }
}

/// A number as written (its unit, if any) as the value a slot of `kind` holds.
pub fn number_as(value: f64, unit: Option<Unit>, kind: ValueKind) -> Result<f64, NumberError> {
    let want = measure_of(kind);
    match (unit, want) {
        (None, Some(m)) => Err(NumberError::NeedsUnit(m)),
        (Some(u), Some(m)) if Measure::of(u) == m => Ok(quantity(value, u)),
        (Some(u), want) => Err(NumberError::WrongUnit {
            want,
            found: Measure::of(u),
        }),
        (None, None) => match kind {
            ValueKind::Num => Ok(value),
            ValueKind::Int if value.fract() == 0.0 => Ok(value),
            ValueKind::Int => Err(NumberError::NotWhole),
            _ => Err(NumberError::NotANumber),
        },
    }
}

/// A number and its unit as written in text: `10s`, `-2.5 m`, `2kHz`, `7`. `None` when the
/// text is no number (`shelf`).
pub fn parse_number(text: &str) -> Option<(f64, Option<Unit>)> {
    let t = text.trim();
    let finite = |s: &str| {
        let s = s.trim_end();
        // Rust also reads `inf` and `NaN`: not numbers a program could write.
        let digits = s.bytes().any(|b| b.is_ascii_digit());
        s.parse::<f64>().ok().filter(|v| v.is_finite() && digits)
    };
    if let Some(v) = finite(t) {
        return Some((v, None));
    }
    Unit::ALL.iter().find_map(|&u| {
        let number = t.strip_suffix(u.as_str())?;
        finite(number).map(|v| (v, Some(u)))
    })
}

/// What a variable of a kind takes, for messages: "a duration", "an int".
pub fn kind_noun(program: &Program, kind: ValueKind) -> String {
    match kind {
        ValueKind::Num => "a number".into(),
        ValueKind::Int => "an int".into(),
        ValueKind::Bool => "a bool".into(),
        ValueKind::Str => "a string".into(),
        ValueKind::Enum(e) => match program.enums.get(e as usize) {
            Some(info) => format!("a `{}`", info.name),
            None => "an enum".into(),
        },
        ValueKind::Duration => "a duration".into(),
        ValueKind::Rate => "a rate".into(),
        ValueKind::Length => "a length".into(),
        ValueKind::Angle => "an angle".into(),
        ValueKind::Status => "a status".into(),
        ValueKind::List => "a list".into(),
    }
}

/// Text given from outside the program (`--bb`, `--leaf-out`, a record's header, an
/// experiment's parameter) as the value of variable `name`, of kind `kind`. A variable
/// declared `any` (`untyped`) takes a number as a number and any other text as a string.
/// Strings are the program's symbols: the caller interns the texts it will give first.
pub fn parse_text(
    program: &Program,
    name: &str,
    kind: ValueKind,
    untyped: bool,
    text: &str,
) -> Result<f64, String> {
    let is = |what: String, how: &str| format!("`{name}` is {what}: {how}");
    let noun = kind_noun(program, kind);
    match kind {
        _ if untyped => Ok(match parse_number(text) {
            Some((v, None)) => v,
            _ => symbol(program, text),
        }),
        ValueKind::Bool => match text {
            "true" | "1" => Ok(1.0),
            "false" | "0" => Ok(0.0),
            _ => Err(is(noun, "give true or false")),
        },
        ValueKind::Str => Ok(symbol(program, text)),
        ValueKind::Enum(e) => {
            let variants = program.enums.get(e as usize).map(|i| &i.variants[..]);
            let variants = variants.unwrap_or(&[]);
            (variants.iter().position(|v| v == text))
                .map(|i| i as f64)
                .ok_or_else(|| is(noun, &format!("one of {}", variants.join(", "))))
        }
        ValueKind::List => Err(is(noun, "it cannot be set from the command line")),
        ValueKind::Status => Err(is(noun, "it cannot be set from the command line")),
        _ => {
            let Some((v, unit)) = parse_number(text) else {
                let how = match measure_of(kind) {
                    Some(m) => format!("write it with its unit, like `{}`", m.example()),
                    None => "give a number".into(),
                };
                return Err(is(noun, &how));
            };
            number_as(v, unit, kind).map_err(|e| match e {
                NumberError::NeedsUnit(m) => is(
                    noun,
                    &format!(
                        "a number without its unit is refused ({}): write it like `{}`",
                        m.units(),
                        m.example()
                    ),
                ),
                e => is(noun, &e.to_string()),
            })
        }
    }
}

/// A text's symbol; -1 when the program has none for it (no string of the program
/// equals it).
fn symbol(program: &Program, text: &str) -> f64 {
    program.symbol(text).map(f64::from).unwrap_or(-1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_unit_converts_to_the_runtime_unit_of_its_measure() {
        let ms = |v, u| number_as(v, Some(u), ValueKind::Duration).unwrap();
        assert_eq!(ms(10.0, Unit::S), 10_000.0);
        assert_eq!(ms(250.0, Unit::Ms), 250.0);
        assert_eq!(ms(2.0, Unit::Min), 120_000.0);
        assert_eq!(ms(1.0, Unit::H), 3_600_000.0);
        let m = |v, u| number_as(v, Some(u), ValueKind::Length).unwrap();
        assert_eq!(m(24.0, Unit::Cm), 0.24);
        assert_eq!(m(1500.0, Unit::Mm), 1.5);
        assert_eq!(m(10.0, Unit::Ft), 3.048);
        assert_eq!(number_as(2.0, Some(Unit::KHz), ValueKind::Rate), Ok(2000.0));
        assert_eq!(number_as(90.0, Some(Unit::Deg), ValueKind::Angle), Ok(90.0));
    }

    #[test]
    fn a_quantity_without_its_unit_or_with_another_is_refused() {
        assert_eq!(
            number_as(10.0, None, ValueKind::Duration),
            Err(NumberError::NeedsUnit(Measure::Time))
        );
        assert_eq!(
            number_as(10.0, Some(Unit::M), ValueKind::Duration),
            Err(NumberError::WrongUnit {
                want: Some(Measure::Time),
                found: Measure::Length
            })
        );
        assert_eq!(
            number_as(10.0, Some(Unit::S), ValueKind::Num),
            Err(NumberError::WrongUnit {
                want: None,
                found: Measure::Time
            })
        );
        assert_eq!(
            number_as(1.5, None, ValueKind::Int),
            Err(NumberError::NotWhole)
        );
        assert_eq!(
            number_as(1.0, None, ValueKind::Bool),
            Err(NumberError::NotANumber)
        );
    }

    #[test]
    fn text_reads_a_number_and_its_unit() {
        assert_eq!(parse_number("10s"), Some((10.0, Some(Unit::S))));
        assert_eq!(parse_number(" 10 ms "), Some((10.0, Some(Unit::Ms))));
        assert_eq!(parse_number("5min"), Some((5.0, Some(Unit::Min))));
        assert_eq!(parse_number("2kHz"), Some((2.0, Some(Unit::KHz))));
        assert_eq!(parse_number("-1.5m"), Some((-1.5, Some(Unit::M))));
        assert_eq!(parse_number("7"), Some((7.0, None)));
        for bad in ["shelf", "", "s", "inf", "NaN", "10 parsecs", "1e999s"] {
            assert_eq!(parse_number(bad), None, "{bad}");
        }
    }

    #[test]
    fn command_line_text_takes_units_and_refuses_bare_quantities() {
        let p = Program::default();
        let v = |kind, text| parse_text(&p, "x", kind, false, text);
        assert_eq!(v(ValueKind::Duration, "10s"), Ok(10_000.0));
        assert_eq!(v(ValueKind::Length, "30cm"), Ok(0.3));
        assert_eq!(v(ValueKind::Angle, "45deg"), Ok(45.0));
        assert_eq!(v(ValueKind::Rate, "5Hz"), Ok(5.0));
        assert_eq!(v(ValueKind::Num, "2.5"), Ok(2.5));
        let e = v(ValueKind::Duration, "10").unwrap_err();
        assert!(e.contains("without its unit") && e.contains("`10s`"), "{e}");
        assert!(v(ValueKind::Num, "3s").is_err());
        assert!(v(ValueKind::Int, "2.5").is_err());
        assert!(v(ValueKind::Num, "fast").is_err());
        // An untyped variable takes a number as a number, other text as a string.
        assert_eq!(parse_text(&p, "x", ValueKind::Num, true, "4"), Ok(4.0));
        assert_eq!(parse_text(&p, "x", ValueKind::Num, true, "shelf"), Ok(-1.0));
    }
}
