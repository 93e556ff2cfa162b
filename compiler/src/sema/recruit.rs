//! Recruitment (seed 002): `recruitment` blocks become the runtime's [`RecruitSpec`]s. The
//! types of `strategy`, `threshold`, `decay`, `resend` and `lease` are checked in
//! `settings.rs`; here the values are folded, SHAME's ignore cost `c + d(D)` is compiled as
//! code over `distance`, `decay` takes its time unit from `per`, and `requires` must name a
//! percept some agent of the program has.

use super::frame::FrameVar;
use super::tree::{Template, TreeCx};
use super::ty::Ty;
use super::Checker;
use crate::diagnostic::Diagnostic;
use crate::ir::program::{DeviceRole, Program, RecruitSpec, Strategy};
use crate::syntax::ast::{self, Expr, ExprKind, MemberKind, SettingEntry};

/// The name `ignore_cost` reads `D` by: the distance to the requester, in world units.
const DISTANCE: &str = "distance";

impl Checker {
    /// The agent's recruitment blocks. Call after the process phase is compiled: the ignore
    /// cost's code is appended to the template and must not run as part of that phase.
    pub(crate) fn recruitments(
        &mut self,
        members: &[ast::Member],
        t: &mut Template,
        traits: &[(String, f64)],
    ) -> Vec<RecruitSpec> {
        let mut out = Vec::new();
        for m in members {
            if let MemberKind::Recruitment(decl) = &m.kind {
                out.push(self.recruitment_spec(decl, t, traits));
            }
        }
        out
    }

    fn recruitment_spec(
        &mut self,
        decl: &ast::SettingsDecl,
        t: &mut Template,
        traits: &[(String, f64)],
    ) -> RecruitSpec {
        let mut spec = RecruitSpec::seed_defaults(&decl.name.name);
        let mut scope = (t, traits);
        for e in &decl.body.entries {
            let SettingEntry::Setting(s) = e else {
                continue;
            };
            let Some(a) = s.args.first() else {
                continue;
            };
            match s.key.name.as_str() {
                "strategy" => {
                    // An unknown word is reported by `settings.rs`; the default stays.
                    if let ExprKind::Name(p) = &a.kind {
                        spec.strategy = match p.to_string_path().as_str() {
                            "greedy" => Strategy::Greedy,
                            "random" => Strategy::Random,
                            _ => Strategy::Affective,
                        };
                    }
                }
                "threshold" => {
                    if let Some(v) = self.setting_const(a, &Ty::Num, Some(&mut scope)) {
                        if v >= 1.0 {
                            self.diags.push(
                                Diagnostic::error(
                                    "E0302",
                                    format!("a SHAME threshold of {v} is never exceeded"),
                                    a.span,
                                )
                                .with_label("SHAME stays within 0..1")
                                .with_help("the seed uses `threshold 0.75;`; below 0 the robot answers every HELP, as a greedy one does"),
                            );
                        } else {
                            spec.threshold = v;
                        }
                    }
                }
                "decay" => {
                    let value = self.setting_const(a, &Ty::Num, Some(&mut scope));
                    let per = s.pairs.iter().find(|(k, _)| k.name == "per");
                    let unit_ms = match per.map(|(_, v)| &v.kind) {
                        Some(ExprKind::Name(p)) => match p.to_string_path().as_str() {
                            "ms" => Some(1.0),
                            "s" => Some(1000.0),
                            "min" => Some(60_000.0),
                            "h" => Some(3_600_000.0),
                            // Another word is reported by `settings.rs`.
                            _ => None,
                        },
                        Some(_) => None,
                        None => {
                            self.diags.push(
                                Diagnostic::error(
                                    "E0303",
                                    "`decay` is SHAME lost per unit of time: say which unit",
                                    a.span,
                                )
                                .with_label("per millisecond? per second?")
                                .with_help("the seed's k(ΔT) = 0.005 ΔT is `decay 0.005 per s;`"),
                            );
                            None
                        }
                    };
                    if let (Some(v), Some(ms)) = (value, unit_ms) {
                        spec.decay_per_ms = v / ms;
                    }
                }
                "resend" | "lease" => {
                    let Some(v) = self.setting_const(a, &Ty::Duration, Some(&mut scope)) else {
                        continue;
                    };
                    if v <= 0.0 {
                        let what = if s.key.name == "resend" {
                            "HELP would be repeated without pause"
                        } else {
                            "the responder would own the task for no time at all"
                        };
                        self.diags.push(
                            Diagnostic::error(
                                "E0302",
                                format!("`{}` must be longer than zero", s.key.name),
                                a.span,
                            )
                            .with_label(what)
                            .with_help("the seed uses `resend 3s;` and `lease 30s;`"),
                        );
                    } else if s.key.name == "resend" {
                        spec.resend_ms = v;
                    } else {
                        spec.lease_ms = v;
                    }
                }
                "ignore_cost" => {
                    let (code, slot) =
                        ignore_cost(self, a, &decl.name.name, &mut *scope.0, scope.1);
                    spec.ignore_cost = code;
                    spec.distance = Some(slot);
                }
                "requires" => match percept(a) {
                    Some(p) => {
                        spec.requires = Some(p);
                        spec.requires_span = a.span;
                    }
                    None => self.diags.push(
                        Diagnostic::error("E0301", "`requires` names a percept", a.span)
                            .with_label("not a percept")
                            .with_help("write the sensor a responder needs: `requires percept(\"mine_detector\");`"),
                    ),
                },
                _ => {}
            }
        }
        spec
    }

    /// Every `requires percept(p)` must name something a responder can have: a sensor of
    /// some agent of the program, by its name or its driver's (the requester itself usually
    /// lacks it: that is why it recruits).
    pub(crate) fn check_percepts(&mut self, program: &Program) {
        let mut known: Vec<&str> = Vec::new();
        for a in &program.agents {
            for d in a.devices.iter().filter(|d| d.role == DeviceRole::Sensor) {
                known.push(&d.name);
                known.push(&d.driver);
            }
        }
        for a in &program.agents {
            for r in &a.recruitments {
                let Some(p) = &r.requires else { continue };
                if known.contains(&p.as_str()) {
                    continue;
                }
                let mut d = Diagnostic::error(
                    "E0201",
                    format!("no agent of this program has the percept `{p}`"),
                    r.requires_span,
                )
                .with_label("no sensor has this name or driver");
                d = match crate::suggest::closest(p, known.iter().copied()) {
                    Some(b) => d.with_help(format!("did you mean `{b}`?")),
                    None => d.with_help(format!(
                        "give a responder the sensor: `sensor {p}: num = metal_detector();`"
                    )),
                };
                // A clone shares its original's blocks: report each place once.
                if !self
                    .diags
                    .iter()
                    .any(|x| x.code == "E0201" && x.primary.span == r.requires_span)
                {
                    self.diags.push(d);
                }
            }
        }
    }
}

/// `c + d(D)` compiled as a `num` expression in which `distance` is `D`, a hidden slot the
/// runtime writes before running it. Returns the code and that slot.
fn ignore_cost(
    c: &mut Checker,
    e: &Expr,
    block: &str,
    t: &mut Template,
    traits: &[(String, f64)],
) -> (crate::ir::program::Code, u32) {
    let slot = t.frame.add(FrameVar::temp(
        format!("{block}.{DISTANCE}"),
        Ty::Num,
        0.0,
        e.span,
    ));
    // Inside the expression `distance` is D, whatever the agent calls `distance`.
    let shadowed = t.frame.by_name.insert(DISTANCE.to_string(), slot);
    let mut tc = TreeCx::agent(c, t, traits);
    let (code, _) = tc.code_expr(e, &Ty::Num, "the ignore cost `c + d(D)`");
    match shadowed {
        Some(prev) => {
            t.frame.by_name.insert(DISTANCE.to_string(), prev);
        }
        None => {
            t.frame.by_name.remove(DISTANCE);
        }
    }
    // `frame.add` named the slot `help.distance` too; only `distance` is meant to reach it.
    t.frame.by_name.remove(&format!("{block}.{DISTANCE}"));
    (code, slot)
}

/// `percept("mine_detector")` or `percept(mine_detector)`: the percept's name.
fn percept(e: &Expr) -> Option<String> {
    let ExprKind::Call(f, args) = &e.kind else {
        return None;
    };
    let ExprKind::Name(p) = &f.kind else {
        return None;
    };
    if p.to_string_path() != "percept" {
        return None;
    }
    match args.args.as_slice() {
        [a] if a.name.is_none() => match &a.value.kind {
            ExprKind::Str(s) if !s.is_empty() => Some(s.clone()),
            ExprKind::Name(n) => Some(n.to_string_path()),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::program::{Op, Program, Strategy};

    use crate::sema::check_for_test as check;

    const UGV: &str = "agent UGV {
    sensor mine_detector: num in 0..100 = metal_detector(channel: 0);
    recruitment help {
        SETTINGS
    }
}
";

    fn ugv(settings: &str) -> (Option<Program>, Vec<String>) {
        check(&UGV.replace("SETTINGS", settings))
    }

    #[test]
    fn settings_are_folded_into_the_spec_with_their_units() {
        let (p, d) = ugv("strategy greedy; threshold 0.5; decay 0.3 per min; resend 2s; lease 1min; requires percept(\"mine_detector\");");
        assert!(d.is_empty(), "{d:?}");
        let p = p.unwrap();
        let r = &p.agents[0].recruitments[0];
        assert_eq!(r.name, "help");
        assert_eq!(r.strategy, Strategy::Greedy);
        assert_eq!(r.threshold, 0.5);
        assert!((r.decay_per_ms - 0.3 / 60_000.0).abs() < 1e-15);
        assert_eq!((r.resend_ms, r.lease_ms), (2000.0, 60_000.0));
        assert_eq!(r.requires.as_deref(), Some("mine_detector"));
        // Nothing given: the seed's values.
        let (p, _) = ugv("strategy affective;");
        let r = &p.unwrap().agents[0].recruitments[0];
        assert_eq!(
            (r.threshold, r.resend_ms, r.lease_ms),
            (0.75, 3000.0, 30_000.0)
        );
        assert!((r.decay_per_ms - 0.005 / 1000.0).abs() < 1e-15);
        assert!(r.ignore_cost.is_empty() && r.distance.is_none());
    }

    #[test]
    fn the_ignore_cost_is_code_over_a_hidden_distance_slot() {
        let (p, d) = ugv("ignore_cost 0.2 + 0.5 / distance;");
        assert!(d.is_empty(), "{d:?}");
        let p = p.unwrap();
        let a = &p.agents[0];
        let r = &a.recruitments[0];
        let slot = r.distance.unwrap();
        assert!(
            !a.slots[slot as usize].visible,
            "D is not a variable of the agent"
        );
        let code = &a.code[r.ignore_cost.start as usize..][..r.ignore_cost.len as usize];
        assert!(code.contains(&Op::Load(slot)), "{code:?}");
        // It is not part of the process phase.
        let process = a.process.start..a.process.start + a.process.len;
        assert!(!process.contains(&r.ignore_cost.start));
        // A cost that is not a number is a type error.
        let (_, d) = ugv("ignore_cost distance > 2;");
        assert!(d.iter().any(|m| m.starts_with("E0301")), "{d:?}");
    }

    #[test]
    fn values_the_protocol_cannot_use_are_reported() {
        let (_, d) = ugv("threshold 1.2;");
        assert!(d.iter().any(|m| m.starts_with("E0302")), "{d:?}");
        let (_, d) = ugv("decay 0.005;");
        assert!(d.iter().any(|m| m.starts_with("E0303")), "{d:?}");
        let (_, d) = ugv("resend 0s;");
        assert!(d.iter().any(|m| m.starts_with("E0302")), "{d:?}");
        let (_, d) = ugv("requires mine_detector;");
        assert!(d.iter().any(|m| m.starts_with("E0301")), "{d:?}");
        // A setting that only the running program knows.
        let (_, d) = check(
            "agent UGV {\n    var t: num = 0.5;\n    recruitment help { threshold t; }\n    main { check t > 0 }\n}\n",
        );
        assert!(d.iter().any(|m| m.starts_with("E0304")), "{d:?}");
    }

    #[test]
    fn the_required_percept_must_be_some_agents_sensor() {
        // The requester lacks the detector, a responder has it (by name or by driver).
        let two = "agent UAV {\n    recruitment help { requires percept(\"PERCEPT\"); }\n}\nagent UGV {\n    sensor mine_detector: num in 0..100 = metal_detector(channel: 0);\n}\n";
        for ok in ["mine_detector", "metal_detector"] {
            let (_, d) = check(&two.replace("PERCEPT", ok));
            assert!(d.is_empty(), "{ok}: {d:?}");
        }
        let (_, d) = check(&two.replace("PERCEPT", "mine_detectr"));
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(d[0].starts_with("E0201 no agent of this program has the percept `mine_detectr`"));
    }
}
