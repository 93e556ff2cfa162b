//! Slot values as traces and summaries show them: numbers, integers, booleans, strings and
//! enum variants by name, lists of labels and lists of lists as such; and values given on the
//! command line (`--bb`, `--leaf-out`) read as a variable's kind wants them.

use crate::interp::Machine;
use crate::trace::Value;
use affect_compiler::ir::program::{Program, Slot, Status, ValueKind};

/// Shows a slot's value in summaries: numbers to four significant digits (`90`, not
/// `89.99908444471572`), quantities in their unit (`2.5s`, `1.2m`, `10Hz`, `90deg`).
pub fn show_value(program: &Program, m: &Machine, slot: usize) -> String {
    let s = &m.program().slots[slot];
    let v = m.slots[slot];
    if m.holds_no_value(slot as u32) {
        return "null".to_string();
    }
    match s.kind {
        ValueKind::Num => round(v),
        // Durations are held in milliseconds, rates in Hz, lengths in metres, angles in degrees.
        ValueKind::Duration if v.abs() >= 1000.0 => format!("{}s", round(v / 1000.0)),
        ValueKind::Duration => format!("{}ms", round(v)),
        ValueKind::Rate => format!("{}Hz", round(v)),
        ValueKind::Length => format!("{}m", round(v)),
        ValueKind::Angle => format!("{}deg", round(v)),
        _ => show(&trace_value(program, m, s, v)),
    }
}

/// Four significant digits, every digit before the point kept, no trailing zeros.
fn round(x: f64) -> String {
    if x == 0.0 {
        return "0".to_string();
    }
    if !x.is_finite() || x == x.trunc() {
        return format!("{x}");
    }
    let decimals = (3 - x.abs().log10().floor() as i32).clamp(0, 12) as usize;
    let text = format!("{x:.decimals$}");
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        &text
    };
    text.to_string()
}

fn show(v: &Value) -> String {
    match v {
        Value::Num(x) => format!("{x}"),
        Value::Int(i) => format!("{i}"),
        Value::Bool(b) => format!("{b}"),
        Value::Str(t) => t.to_string(),
        Value::List(items) => format!("{items:?}"),
        Value::Items(items) => {
            let shown: Vec<String> = items.iter().map(show).collect();
            format!("[{}]", shown.join(", "))
        }
    }
}

pub(super) fn trace_value<'a>(program: &'a Program, m: &Machine, s: &Slot, v: f64) -> Value<'a> {
    if s.kind == ValueKind::List && m.lists.is_unset(v) {
        // A list variable without a value: written as `null`, as an unset entry is.
        return Value::Num(f64::NAN);
    }
    value_of(program, m, s.kind, &s.elems, v)
}

/// A value of the given kind; `elems` are a list's element kinds, outermost first.
fn value_of<'a>(
    program: &'a Program,
    m: &Machine,
    kind: ValueKind,
    elems: &[ValueKind],
    v: f64,
) -> Value<'a> {
    match kind {
        ValueKind::Int => Value::Int(v as i64),
        ValueKind::Bool => Value::Bool(v != 0.0),
        ValueKind::Str => Value::Str(
            program
                .strings
                .get(v as usize)
                .map(String::as_str)
                .unwrap_or(""),
        ),
        ValueKind::Enum(e) => Value::Str(
            program
                .enums
                .get(e as usize)
                .and_then(|en| en.variants.get(v as usize))
                .map(String::as_str)
                .unwrap_or("?"),
        ),
        ValueKind::Status => Value::Str(Status::from_index(v as u8).name()),
        ValueKind::List => {
            let items = m.lists.values(v);
            match elems.split_first() {
                // Numbers (and quantities, in SI units) stay a list of numbers.
                None
                | Some((
                    ValueKind::Num
                    | ValueKind::Duration
                    | ValueKind::Rate
                    | ValueKind::Length
                    | ValueKind::Angle,
                    _,
                )) => Value::List(items.to_vec()),
                Some((&inner, rest)) => Value::Items(
                    items
                        .iter()
                        .map(|&x| value_of(program, m, inner, rest, x))
                        .collect(),
                ),
            }
        }
        _ => Value::Num(v),
    }
}

/// Reads a `--bb` or `--leaf-out` value as variable `slot` wants it: through the compiler's
/// one conversion (`ir::value::parse_text`), so `10s` is 10,000 ms here as in the program.
pub(super) fn parse_value(program: &Program, slot: &Slot, text: &str) -> Result<f64, String> {
    affect_compiler::ir::value::parse_text(program, &slot.name, slot.kind, slot.any, text)
}

#[cfg(test)]
mod tests {
    use super::round;

    #[test]
    fn summary_numbers_keep_four_significant_digits() {
        assert_eq!(round(89.99908444471572), "90");
        assert_eq!(round(12.3456), "12.35");
        assert_eq!(round(1234.5678), "1235");
        assert_eq!(round(0.012345), "0.01235");
        assert_eq!(round(-0.00001), "-0.00001");
        assert_eq!(round(3.0), "3");
        assert_eq!(round(-0.0), "0");
    }
}
