//! How the checker's messages say things: "a number", "an event", which code a type
//! mismatch gets and what hint a unit mismatch earns.

use super::ty::Ty;

pub fn article(s: &str) -> String {
    let first = s.chars().next().unwrap_or('x').to_ascii_lowercase();
    let an = matches!(first, 'a' | 'e' | 'i' | 'o' | 'u');
    if s.starts_with('[')
        || s.starts_with('(')
        || s.starts_with('"')
        || s.starts_with('{')
        || s == "nothing"
    {
        return s.to_string();
    }
    format!("{} `{s}`", if an { "an" } else { "a" })
}

/// The code of a value of type `got` where `want` is expected: a unit mismatch (E0303) when
/// both are quantities and one of them carries a unit, else a type mismatch (E0301).
pub fn mismatch_code(got: &Ty, want: &Ty) -> &'static str {
    let unit = |t: &Ty| matches!(t, Ty::Duration | Ty::Rate | Ty::Length | Ty::Angle);
    let known = |t: &Ty| !matches!(t, Ty::Any | Ty::Error);
    if got.is_quantity()
        && want.is_quantity()
        && known(got)
        && known(want)
        && (unit(got) || unit(want))
    {
        "E0303"
    } else {
        "E0301"
    }
}

/// A help line when a unit is missing or wrong: `timeout(2)` wants `2s`.
pub fn unit_hint(got: &Ty, want: &Ty) -> Option<String> {
    match (got, want) {
        (Ty::Num | Ty::Int, Ty::Duration) => {
            Some("durations carry a unit: write `500ms`, `2s` or `1min`".into())
        }
        (Ty::Num | Ty::Int, Ty::Rate) => Some("rates carry a unit: write `10Hz` or `2kHz`".into()),
        (Ty::Num | Ty::Int, Ty::Length) => {
            Some("lengths carry a unit: write `24cm`, `1.5m` or `50ft`".into())
        }
        (Ty::Num | Ty::Int, Ty::Angle) => Some("angles carry a unit: write `90deg`".into()),
        (Ty::Duration, Ty::Num | Ty::Int) => {
            Some("to use a duration as a number of milliseconds, divide it: `d / 1ms`".into())
        }
        (Ty::Rate, Ty::Duration) | (Ty::Duration, Ty::Rate) => {
            Some("a rate is not a duration: `10Hz` ticks every `100ms`".into())
        }
        _ => None,
    }
}
