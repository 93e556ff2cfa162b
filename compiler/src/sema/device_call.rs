//! Sensor, event and actuator members: their driver calls, checked against the driver
//! table (`devices.rs`) and turned into the runtime's device descriptions.

use super::devices::{self, DriverSpec, ParamKind};
use super::index::Target;
use super::ty::Ty;
use super::wording::{article, mismatch_code, unit_hint};
use super::Checker;
use crate::diagnostic::Diagnostic;
use crate::ir::program::{Device, DeviceArg, DeviceRole};
use crate::ir::units::Measure;
use crate::span::Span;
use crate::syntax::ast::{self, Expr, ExprKind};

impl Checker {
    /// Checks a device constructor call: the device and the type a sensor reads.
    pub(super) fn device(
        &mut self,
        member: &ast::Ident,
        source: &Expr,
        role: DeviceRole,
    ) -> (Option<Device>, Option<Ty>) {
        let ExprKind::Call(f, args) = &source.kind else {
            self.diags.push(
                Diagnostic::error("E0317", "a device is created by a driver call", source.span)
                    .with_label("not a driver call")
                    .with_help("for example `ads1115(bus: 1, address: 0x48, channel: 0)`"),
            );
            return (None, None);
        };
        let ExprKind::Name(p) = &f.kind else {
            return (None, None);
        };
        let Some(spec) = self.driver(member, p, role) else {
            return (None, None);
        };
        let (out, given, unknown_arg) = self.device_args(spec, args);
        // An unknown argument was probably meant to be a missing one: it is reported alone.
        if !unknown_arg {
            self.missing_device_args(spec, &given, args.span);
        }
        let gives = match spec.gives {
            "num" => Some(Ty::Num),
            "bool" => Some(Ty::Bool),
            "str" => Some(Ty::Str),
            "angle" => Some(Ty::Angle),
            "length" => Some(Ty::Length),
            "Point" => Some(Ty::Tuple(vec![Ty::Length, Ty::Length])),
            _ => None,
        };
        let device = Device {
            role,
            name: member.name.clone(),
            slot: None,
            driver: spec.name.to_string(),
            args: out,
            span: source.span,
        };
        (Some(device), gives)
    }

    /// The driver a call names; it must be one for this kind of member.
    fn driver(
        &mut self,
        member: &ast::Ident,
        p: &ast::Path,
        role: DeviceRole,
    ) -> Option<&'static DriverSpec> {
        let name = p.to_string_path();
        let Some(spec) = devices::lookup(&name) else {
            let known: Vec<&str> = devices::DRIVERS
                .iter()
                .filter(|d| d.role == role)
                .map(|d| d.name)
                .collect();
            let mut d =
                Diagnostic::error("E0317", format!("unknown device driver `{name}`"), p.span)
                    .with_label("no such driver")
                    .with_note(format!(
                        "drivers for this kind of member: {}",
                        known.join(", ")
                    ));
            if let Some(b) = crate::suggest::closest(&name, known.iter().copied()) {
                d = d.with_help(format!("did you mean `{b}`?"));
            }
            self.diags.push(d);
            return None;
        };
        self.index.refer(p.span, Target::Driver(spec));
        if spec.role != role {
            let what = |r: DeviceRole| match r {
                DeviceRole::Sensor => "sensor",
                DeviceRole::Event => "event",
                DeviceRole::Actuator => "actuator",
            };
            self.diags.push(
                Diagnostic::error(
                    "E0317",
                    format!(
                        "`{name}` is {} driver, not {} one",
                        article_word(what(spec.role)),
                        article_word(what(role))
                    ),
                    p.span,
                )
                .with_label("wrong kind of device")
                .with_help(format!(
                    "declare `{}` with `{}`",
                    member.name,
                    what(spec.role)
                )),
            );
        }
        Some(spec)
    }

    /// The arguments of a driver call, by name; the names given (even with a wrong value,
    /// so they are not also reported missing); whether one was unknown.
    fn device_args(
        &mut self,
        spec: &'static DriverSpec,
        args: &ast::ArgList,
    ) -> (Vec<(String, DeviceArg)>, Vec<String>, bool) {
        let name = spec.name;
        let mut out: Vec<(String, DeviceArg)> = Vec::new();
        let mut unknown_arg = false;
        let mut given: Vec<String> = Vec::new();
        for (i, a) in args.args.iter().enumerate() {
            let pname = a
                .name
                .as_ref()
                .map(|n| n.name.clone())
                .or_else(|| spec.params.get(i).map(|p| p.0.to_string()));
            let Some(pname) = pname else {
                self.diags.push(
                    Diagnostic::error(
                        "E0310",
                        match spec.params.len() {
                            0 => format!("`{name}` takes no arguments"),
                            1 => format!("`{name}` takes 1 argument"),
                            n => format!("`{name}` takes {n} arguments"),
                        },
                        a.span,
                    )
                    .with_label("extra argument"),
                );
                continue;
            };
            if given.contains(&pname) {
                self.diags.push(
                    Diagnostic::error("E0309", format!("`{pname}` is given twice"), a.span)
                        .with_label("again here"),
                );
                continue;
            }
            given.push(pname.clone());
            let Some(k) = spec.params.iter().position(|p| p.0 == pname) else {
                self.unknown_device_arg(spec, &pname, a);
                unknown_arg = true;
                continue;
            };
            if let Some(n) = &a.name {
                self.index.refer(n.span, Target::DriverParam(spec, k));
            }
            if let Some(value) = self.device_arg(spec, &pname, spec.params[k].1, &a.value) {
                out.push((pname, value));
            }
        }
        (out, given, unknown_arg)
    }

    fn unknown_device_arg(&mut self, spec: &DriverSpec, pname: &str, a: &ast::Arg) {
        let name = spec.name;
        let names: Vec<&str> = spec.params.iter().map(|p| p.0).collect();
        let best = crate::suggest::closest(pname, names.iter().copied());
        self.diags.push(
            Diagnostic::error(
                "E0305",
                format!("`{name}` has no argument `{pname}`"),
                a.name.as_ref().map_or(a.span, |n| n.span),
            )
            .with_label("unknown argument")
            .with_help(match best {
                Some(b) => format!("did you mean `{b}`?"),
                None if names.is_empty() => format!("`{name}` takes no arguments"),
                None => format!("its arguments are `{}`", names.join("`, `")),
            }),
        );
    }

    /// One argument's value, of the kind the driver's parameter takes.
    fn device_arg(
        &mut self,
        spec: &DriverSpec,
        pname: &str,
        kind: ParamKind,
        value: &Expr,
    ) -> Option<DeviceArg> {
        let name = spec.name;
        Some(match (kind, &value.kind) {
            (ParamKind::Word(words), ExprKind::Name(p)) if p.segments.len() == 1 => {
                let w = &p.segments[0].name;
                if !words.contains(&w.as_str()) {
                    let mut d = Diagnostic::error(
                        "E0301",
                        format!("`{pname}` is one of `{}`", words.join("`, `")),
                        value.span,
                    )
                    .with_label("not one of them");
                    if let Some(b) = crate::suggest::closest(w, words.iter().copied()) {
                        d = d.with_help(format!("did you mean `{b}`?"));
                    }
                    self.diags.push(d);
                }
                DeviceArg::Name(w.clone())
            }
            (ParamKind::Name, ExprKind::Name(p)) => DeviceArg::Name(p.to_string_path()),
            (ParamKind::Str, ExprKind::Str(s)) => DeviceArg::Str(s.clone()),
            (ParamKind::Quantity(m), _) => {
                let want = match m {
                    Measure::Length => Ty::Length,
                    Measure::Time => Ty::Duration,
                    Measure::Frequency => Ty::Rate,
                    Measure::Angle => Ty::Angle,
                };
                let (v, t) = self.const_value_hint(value, Some(&want))?;
                if t != want && !t.is_error() {
                    let mut d = Diagnostic::error(
                        mismatch_code(&t, &want),
                        format!(
                            "`{pname}` of `{name}` is {}, found {}",
                            m.noun(),
                            article(&self.g.show(&t))
                        ),
                        value.span,
                    )
                    .with_label(format!("this should be {}", m.noun()));
                    if let Some(h) = unit_hint(&t, &want) {
                        d = d.with_help(h);
                    }
                    self.diags.push(d);
                    return None;
                }
                DeviceArg::Num(v)
            }
            (ParamKind::Num, _) => match self.const_value_hint(value, Some(&Ty::Num)) {
                Some((v, t)) if t.is_numeric() => DeviceArg::Num(v),
                Some((_, t)) => {
                    self.diags.push(
                        Diagnostic::error(
                            "E0301",
                            format!(
                                "`{pname}` of `{name}` is a number, found {}",
                                article(&self.g.show(&t))
                            ),
                            value.span,
                        )
                        .with_label("not a number"),
                    );
                    return None;
                }
                None => return None,
            },
            _ => {
                let want = match kind {
                    ParamKind::Str => "a string in quotes".to_string(),
                    ParamKind::Word(words) => format!("one of `{}`", words.join("`, `")),
                    ParamKind::Name => "the name of an agent or component".to_string(),
                    ParamKind::Num => "a number".to_string(),
                    ParamKind::Quantity(m) => m.noun().to_string(),
                };
                self.diags.push(
                    Diagnostic::error(
                        "E0301",
                        format!("`{pname}` of `{name}` is {want}"),
                        value.span,
                    )
                    .with_label("wrong kind of value"),
                );
                return None;
            }
        })
    }

    /// The required arguments left out, in one report.
    fn missing_device_args(&mut self, spec: &DriverSpec, given: &[String], at: Span) {
        let name = spec.name;
        let missing: Vec<&str> = spec
            .params
            .iter()
            .filter(|(pname, _, required)| *required && !given.iter().any(|n| n == pname))
            .map(|(pname, _, _)| *pname)
            .collect();
        let (what, list) = match missing.as_slice() {
            [] => return,
            [one] => ("argument", format!("`{one}`")),
            [rest @ .., last] => ("arguments", format!("`{}` and `{last}`", rest.join("`, `"))),
        };
        let example: Vec<String> = spec
            .params
            .iter()
            .filter(|(_, _, required)| *required)
            .map(|(p, k, _)| match k {
                ParamKind::Num => format!("{p}: 1"),
                ParamKind::Quantity(m) => format!("{p}: {}", m.example()),
                ParamKind::Str => format!("{p}: \"..\""),
                ParamKind::Word(w) => format!("{p}: {}", w[0]),
                ParamKind::Name => format!("{p}: name"),
            })
            .collect();
        self.diags.push(
            Diagnostic::error("E0306", format!("`{name}` needs its {list} {what}"), at)
                .with_label("missing")
                .with_help(format!("for example `{name}({})`", example.join(", "))),
        );
    }
}

/// `a sensor`, `an event`, `an actuator`.
fn article_word(w: &str) -> String {
    match w.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => format!("an {w}"),
        _ => format!("a {w}"),
    }
}
