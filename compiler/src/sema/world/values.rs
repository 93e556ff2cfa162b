//! Reading the values of world settings: numbers with units, points, labels, names and
//! distributions. Every reader reports what it cannot use and returns `None`, so one bad
//! value never hides the next.

use super::{Interval, NameRef, Point, Triangular};
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{ArgList, Expr, ExprKind, UnOp};
use crate::syntax::token::Unit;

/// What a unit measures, and the one conversion of a quantity into the runtime's units
/// (milliseconds, hertz, metres, degrees), shared with the checker.
pub(super) use crate::ir::units::{quantity, Measure};

/// A number literal, possibly negated or parenthesised, with its unit.
pub(super) fn literal(e: &Expr) -> Option<(f64, Option<Unit>)> {
    match &e.kind {
        ExprKind::Num(n) => Some((n.value, n.unit)),
        ExprKind::Paren(inner) => literal(inner),
        ExprKind::Unary(UnOp::Neg, inner) => literal(inner).map(|(v, u)| (-v, u)),
        _ => None,
    }
}

/// A single-segment name: `P`, `Navigator`, `random`.
pub(super) fn bare_name(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Name(p) if p.segments.len() == 1 => Some(p.segments[0].name.as_str()),
        _ => None,
    }
}

/// Reads values, pushing a diagnostic for each one it cannot use.
pub(super) struct Reader<'d> {
    pub diags: &'d mut Vec<Diagnostic>,
    /// Metres in a bare length: a cell on a grid, the unit of `area` on an area.
    pub unit_m: f64,
}

impl Reader<'_> {
    pub(super) fn error(
        &mut self,
        code: &'static str,
        message: impl Into<String>,
        span: Span,
        label: impl Into<String>,
    ) {
        self.diags
            .push(Diagnostic::error(code, message, span).with_label(label));
    }

    fn malformed(&mut self, e: &Expr, expected: &str) {
        self.error(
            "E0502",
            format!("expected {expected}"),
            e.span,
            format!("this should be {expected}"),
        );
    }

    fn wrong_unit(&mut self, e: &Expr, expected: &str, found: Option<Unit>, example: &str) {
        let found = match found {
            Some(u) => format!("{} (`{}`)", Measure::of(u).noun(), u.as_str()),
            None => "a plain number".to_string(),
        };
        self.diags.push(
            Diagnostic::error(
                "E0503",
                format!("expected {expected}, found {found}"),
                e.span,
            )
            .with_label(format!("this should be {expected}"))
            .with_help(format!("write it like `{example}`")),
        );
    }

    pub(super) fn out_of_range(
        &mut self,
        span: Span,
        message: impl Into<String>,
        label: impl Into<String>,
    ) {
        self.error("E0504", message, span, label);
    }

    /// A number literal of any unit.
    fn number(&mut self, e: &Expr, expected: &str) -> Option<(f64, Option<Unit>)> {
        let n = literal(e);
        if n.is_none() {
            self.malformed(e, expected);
        }
        n
    }

    /// A plain number, without a unit.
    pub(super) fn plain(&mut self, e: &Expr) -> Option<f64> {
        match self.number(e, "a number")? {
            (v, None) => Some(v),
            (_, Some(u)) => {
                self.wrong_unit(e, "a plain number", Some(u), "0.5");
                None
            }
        }
    }

    /// A plain number in `lo..=hi`.
    pub(super) fn plain_in(&mut self, e: &Expr, lo: f64, hi: f64) -> Option<f64> {
        let v = self.plain(e)?;
        if !(lo..=hi).contains(&v) {
            self.out_of_range(
                e.span,
                format!("{v} is outside {lo}..{hi}"),
                format!("must be between {lo} and {hi}"),
            );
            return None;
        }
        Some(v)
    }

    /// A whole number of at least `min`.
    pub(super) fn count(&mut self, e: &Expr, min: u64, max: u64) -> Option<u64> {
        let v = self.plain(e)?;
        if v.fract() != 0.0 {
            self.malformed(e, "a whole number");
            return None;
        }
        if v < min as f64 || v > max as f64 {
            self.out_of_range(
                e.span,
                format!("{v} is outside {min}..{max}"),
                format!("must be between {min} and {max}"),
            );
            return None;
        }
        Some(v as u64)
    }

    /// A length in metres; a bare number is in the world's unit.
    pub(super) fn length(&mut self, e: &Expr) -> Option<f64> {
        match self.number(e, "a length")? {
            (v, None) => Some(v * self.unit_m),
            (v, Some(u)) if Measure::of(u) == Measure::Length => Some(quantity(v, u)),
            (_, Some(u)) => {
                self.wrong_unit(e, "a length", Some(u), "24cm");
                None
            }
        }
    }

    /// A length that must be positive (`positive`) or at least zero.
    pub(super) fn size(&mut self, e: &Expr, positive: bool) -> Option<f64> {
        let v = self.length(e)?;
        if v < 0.0 || (positive && v == 0.0) || !v.is_finite() {
            let want = if positive {
                "greater than zero"
            } else {
                "zero or more"
            };
            self.out_of_range(
                e.span,
                format!("a size must be {want}"),
                format!("must be {want}"),
            );
            return None;
        }
        Some(v)
    }

    /// A time in milliseconds: it must carry a unit (`40s`, `500ms`) and not be negative.
    pub(super) fn time_ms(&mut self, e: &Expr) -> Option<u64> {
        let ms = self.duration_ms(e)?;
        Some(ms.round() as u64)
    }

    /// A time in milliseconds as a real number, for distributions.
    pub(super) fn duration_ms(&mut self, e: &Expr) -> Option<f64> {
        match self.number(e, "a time")? {
            (v, Some(u)) if Measure::of(u) == Measure::Time => {
                let ms = quantity(v, u);
                if ms < 0.0 || !ms.is_finite() {
                    self.out_of_range(
                        e.span,
                        "a time must not be negative",
                        "must be zero or more",
                    );
                    return None;
                }
                Some(ms)
            }
            (_, u) => {
                self.wrong_unit(e, "a time", u, "40s");
                None
            }
        }
    }

    /// An angle in degrees: `90deg` (a bare number is refused: degrees or radians?) or a
    /// direction name.
    pub(super) fn heading_deg(&mut self, e: &Expr) -> Option<f64> {
        if let Some(name) = bare_name(e) {
            let deg = match name {
                "Right" | "East" => 0.0,
                "Up" | "North" => 90.0,
                "Left" | "West" => 180.0,
                "Down" | "South" => 270.0,
                _ => {
                    self.malformed(
                        e,
                        "an angle (`90deg`) or a direction (`Up`, `Down`, `Left`, `Right`)",
                    );
                    return None;
                }
            };
            return Some(deg);
        }
        match self.number(e, "an angle")? {
            (v, Some(Unit::Deg)) => Some(v),
            (_, u) => {
                self.wrong_unit(e, "an angle", u, "90deg");
                None
            }
        }
    }

    /// `(x, y)` in metres.
    pub(super) fn point(&mut self, e: &Expr) -> Option<Point> {
        match &e.kind {
            ExprKind::Tuple(items) if items.len() == 2 => {
                let x = self.length(&items[0]);
                let y = self.length(&items[1]);
                Some(Point { x: x?, y: y? })
            }
            ExprKind::Paren(inner) if matches!(inner.kind, ExprKind::Tuple(_)) => self.point(inner),
            _ => {
                self.malformed(e, "a point like `(3m, 4m)`");
                None
            }
        }
    }

    /// A name: `Navigator`, `loud_noise`.
    pub(super) fn name(&mut self, e: &Expr, what: &str) -> Option<NameRef> {
        match bare_name(e) {
            Some(n) => Some(NameRef {
                name: n.to_string(),
                span: e.span,
            }),
            None => {
                self.malformed(e, what);
                None
            }
        }
    }

    /// A string literal.
    pub(super) fn string(&mut self, e: &Expr) -> Option<String> {
        match &e.kind {
            ExprKind::Str(s) => Some(s.clone()),
            _ => {
                self.malformed(e, "a string");
                None
            }
        }
    }

    /// A grid label as written: a one-letter name (`P`) or a one-character string (`"P"`).
    pub(super) fn label(&mut self, e: &Expr) -> Option<char> {
        let text = match &e.kind {
            ExprKind::Str(s) => Some(s.as_str()),
            _ => bare_name(e),
        };
        let mut chars = text.map(str::chars);
        match chars.as_mut().map(|c| (c.next(), c.next())) {
            Some((Some(c), None)) => Some(c),
            _ => {
                self.malformed(e, "a grid label, one letter like `P`");
                None
            }
        }
    }

    /// `triangular(min: a, mode: b, max: c)` (or positional), each value read by `read`.
    pub(super) fn triangular(
        &mut self,
        e: &Expr,
        read: &mut dyn FnMut(&mut Self, &Expr) -> Option<f64>,
    ) -> Option<Triangular> {
        let args = self.call(e, "triangular", &["min", "mode", "max"])?;
        let min = read(self, args[0]);
        let mode = read(self, args[1]);
        let max = read(self, args[2]);
        let (min, mode, max) = (min?, mode?, max?);
        if !(min <= mode && mode <= max) || min < 0.0 {
            self.out_of_range(
                e.span,
                "a triangular distribution needs 0 <= min <= mode <= max",
                format!("min {min}, mode {mode}, max {max}"),
            );
            return None;
        }
        Some(Triangular { min, mode, max })
    }

    /// The time between occurrences of a recurring event: a time (`5s`), `exponential(mean:
    /// 4s)` or `exponential(rate: 0.25Hz)`, `uniform(min: 1s, max: 3s)`, or `triangular(...)`.
    pub(super) fn interval(&mut self, e: &Expr) -> Option<Interval> {
        let positive = |r: &mut Self, e: &Expr, ms: f64| {
            if ms > 0.0 {
                Some(ms)
            } else {
                r.out_of_range(
                    e.span,
                    "an interval must be longer than zero",
                    "must be greater than zero",
                );
                None
            }
        };
        if literal(e).is_some() {
            let ms = self.duration_ms(e)?;
            return positive(self, e, ms).map(Interval::Fixed);
        }
        match callee(e) {
            Some("exponential") => {
                let ExprKind::Call(_, list) = &e.kind else {
                    return None;
                };
                match list.args.first() {
                    Some(a)
                        if list.args.len() == 1
                            && a.name.as_ref().is_some_and(|n| n.name == "rate") =>
                    {
                        let hz = match literal(&a.value) {
                            Some((v, Some(u))) if Measure::of(u) == Measure::Frequency => {
                                quantity(v, u)
                            }
                            None => {
                                self.malformed(&a.value, "a frequency like `0.25Hz`");
                                return None;
                            }
                            Some((_, unit)) => {
                                self.wrong_unit(&a.value, "a frequency", unit, "0.25Hz");
                                return None;
                            }
                        };
                        let hz = positive(self, &a.value, hz)?;
                        Some(Interval::Exponential { mean: 1000.0 / hz })
                    }
                    _ => {
                        let args = self.call(e, "exponential", &["mean"])?;
                        let ms = self.duration_ms(args[0])?;
                        positive(self, args[0], ms).map(|mean| Interval::Exponential { mean })
                    }
                }
            }
            Some("uniform") => {
                let args = self.call(e, "uniform", &["min", "max"])?;
                let (min, max) = (self.duration_ms(args[0]), self.duration_ms(args[1]));
                let (min, max) = (min?, max?);
                if min > max || max <= 0.0 {
                    self.out_of_range(
                        e.span,
                        "a uniform interval needs min <= max and max > 0",
                        "check the bounds",
                    );
                    return None;
                }
                Some(Interval::Uniform { min, max })
            }
            Some("triangular") => {
                let t = self.triangular(e, &mut |r, e| r.duration_ms(e))?;
                if t.max <= 0.0 {
                    self.out_of_range(
                        e.span,
                        "an interval must be longer than zero",
                        "must be greater than zero",
                    );
                    return None;
                }
                Some(Interval::Triangular(t))
            }
            _ => {
                self.malformed(e, "a time (`5s`) or a distribution (`exponential(mean: 4s)`, `uniform(..)`, `triangular(..)`)");
                None
            }
        }
    }

    /// The arguments of `name(p1: .., p2: ..)`, in parameter order; positional arguments are
    /// taken in that order too.
    fn call<'e>(&mut self, e: &'e Expr, name: &str, params: &[&str]) -> Option<Vec<&'e Expr>> {
        let list: &ArgList = match &e.kind {
            ExprKind::Call(f, list) if bare_name(f) == Some(name) => list,
            _ => {
                let shape = params
                    .iter()
                    .map(|p| format!("{p}: .."))
                    .collect::<Vec<_>>()
                    .join(", ");
                self.malformed(e, &format!("`{name}({shape})`"));
                return None;
            }
        };
        let mut found: Vec<Option<&Expr>> = vec![None; params.len()];
        let mut ok = true;
        for (i, arg) in list.args.iter().enumerate() {
            let slot = match &arg.name {
                Some(n) => params.iter().position(|p| *p == n.name),
                None => Some(i).filter(|i| *i < params.len()),
            };
            match slot {
                Some(s) if found[s].is_none() => found[s] = Some(&arg.value),
                _ => {
                    let what = arg
                        .name
                        .as_ref()
                        .map_or("this argument".to_string(), |n| format!("`{}`", n.name));
                    self.error(
                        "E0502",
                        format!("`{name}` does not take {what} here"),
                        arg.span,
                        format!("`{name}` takes {}", params.join(", ")),
                    );
                    ok = false;
                }
            }
        }
        let missing: Vec<&str> = params
            .iter()
            .zip(&found)
            .filter(|(_, f)| f.is_none())
            .map(|(p, _)| *p)
            .collect();
        if !missing.is_empty() {
            self.error(
                "E0502",
                format!("`{name}` is missing {}", missing.join(", ")),
                list.span,
                format!("add {}", missing.join(", ")),
            );
            return None;
        }
        if !ok {
            return None;
        }
        Some(found.into_iter().flatten().collect())
    }
}

/// The name of a called function: `exponential` in `exponential(mean: 4s)`.
fn callee(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Call(f, _) => bare_name(f),
        _ => None,
    }
}
