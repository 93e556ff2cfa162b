//! Components and failure (seed 001): `component` blocks become the runtime's
//! [`ComponentSpec`]s, and `on failed(c)` / `on recovered(c)` handlers become process-phase
//! code. Each setting's type is checked in `settings.rs`; here come the checks only the
//! values allow (a timeout no longer than the heartbeat would fail a healthy component) and
//! the defaults. `failed(c)` and `recovered(c)` in expressions are compiled in `expr.rs`.

use super::frame::Frame;
use super::tree::{Template, TreeCx};
use super::ty::Ty;
use super::Checker;
use crate::diagnostic::Diagnostic;
use crate::ir::functions::HostFn;
use crate::ir::program::{ComponentSpec, Op};
use crate::syntax::ast::{self, Expr, ExprKind, File, ItemKind, MemberKind, SettingEntry};

/// How many heartbeats a component may miss when its block gives no `timeout`.
const MISSED_BEATS: f64 = 3.0;

impl Checker {
    /// The agent's own components, in written order.
    pub(crate) fn member_components(
        &mut self,
        members: &[ast::Member],
        t: &mut Template,
        traits: &[(String, f64)],
    ) -> Vec<ComponentSpec> {
        members
            .iter()
            .filter_map(|m| match &m.kind {
                MemberKind::Component(c) => Some(self.component_spec(c, Some((&mut *t, traits)))),
                _ => None,
            })
            .collect()
    }

    /// The file's top-level components, shared by every agent.
    pub(crate) fn global_components(&mut self, file: &File) -> Vec<ComponentSpec> {
        file.items
            .iter()
            .filter_map(|i| match &i.kind {
                ItemKind::Component(c) => Some(self.component_spec(c, None)),
                _ => None,
            })
            .collect()
    }

    fn component_spec(
        &mut self,
        decl: &ast::SettingsDecl,
        mut scope: Option<(&mut Template, &[(String, f64)])>,
    ) -> ComponentSpec {
        let mut spec = ComponentSpec::named(&decl.name.name);
        let mut heartbeat: Option<(f64, &Expr)> = None;
        let mut timeout: Option<(f64, &Expr)> = None;
        for e in &decl.body.entries {
            let SettingEntry::Setting(s) = e else {
                continue;
            };
            let Some(a) = s.args.first() else {
                continue;
            };
            match s.key.name.as_str() {
                "heartbeat" | "timeout" => {
                    let Some(v) = self.setting_const(a, &Ty::Duration, scope.as_mut()) else {
                        continue;
                    };
                    if v <= 0.0 {
                        self.diags.push(
                            Diagnostic::error(
                                "E0302",
                                format!("a component's `{}` must be longer than zero", s.key.name),
                                a.span,
                            )
                            .with_label("no time at all")
                            .with_help(format!("for example `{} 100ms;`", s.key.name)),
                        );
                        continue;
                    }
                    if s.key.name == "heartbeat" {
                        heartbeat = Some((v, a));
                    } else {
                        timeout = Some((v, a));
                    }
                }
                key @ ("startup" | "confirm" | "lookup") => {
                    if let Some(v) = self.lasting(key, a, scope.as_mut()) {
                        match key {
                            "startup" => spec.startup_ms = v,
                            "confirm" => spec.confirm_ms = v,
                            _ => spec.lookup_ms = v,
                        }
                    }
                }
                "restart" => {
                    if let Some(n) = self.setting_const(a, &Ty::Int, scope.as_mut()) {
                        if n < 0.0 {
                            self.diags.push(
                                Diagnostic::error(
                                    "E0302",
                                    "a component cannot be restarted a negative number of times",
                                    a.span,
                                )
                                .with_label("below zero")
                                .with_help("write `restart 0 within 10s;` or leave `restart` out to never restart it"),
                            );
                        } else {
                            spec.restarts = n.min(f64::from(u32::MAX)) as u32;
                        }
                    }
                    // Without `within`, the allowance is for the whole run.
                    spec.restart_window_ms = f64::INFINITY;
                    for (k, v) in &s.pairs {
                        if k.name != "within" {
                            continue;
                        }
                        match self.setting_const(v, &Ty::Duration, scope.as_mut()) {
                            Some(w) if w > 0.0 => spec.restart_window_ms = w,
                            Some(_) => self.diags.push(
                                Diagnostic::error(
                                    "E0302",
                                    "the restart window must be longer than zero",
                                    v.span,
                                )
                                .with_label("no time at all")
                                .with_help("count restarts over a window: `restart 3 within 10s;`"),
                            ),
                            None => {}
                        }
                    }
                }
                "redundant" => {
                    for a in &s.args {
                        if let ExprKind::Name(p) = &a.kind {
                            let name = p.to_string_path();
                            // A component is never its own backup; the runtime skips it.
                            if name != decl.name.name && !spec.redundant.contains(&name) {
                                spec.redundant.push(name);
                            }
                        }
                    }
                }
                "serves" => {
                    for a in &s.args {
                        if let ExprKind::Name(p) = &a.kind {
                            let name = p.to_string_path();
                            if !spec.serves.contains(&name) {
                                spec.serves.push(name);
                            }
                        }
                    }
                }
                "device" => {
                    spec.device = match &a.kind {
                        ExprKind::Name(p) => Some(p.to_string_path()),
                        ExprKind::Str(s) => Some(s.clone()),
                        _ => None,
                    };
                }
                _ => {}
            }
        }
        if let Some((hb, _)) = heartbeat {
            spec.heartbeat_ms = hb;
            spec.timeout_ms = hb * MISSED_BEATS;
        }
        if let Some((to, e)) = timeout {
            if to <= spec.heartbeat_ms {
                self.diags.push(
                    Diagnostic::error(
                        "E0302",
                        format!(
                            "component `{}` times out after {}, no longer than its heartbeat ({})",
                            decl.name.name,
                            show_ms(to),
                            show_ms(spec.heartbeat_ms)
                        ),
                        e.span,
                    )
                    .with_label("a healthy component would count as failed between two heartbeats")
                    .with_help(format!(
                        "allow a few missed heartbeats, such as `timeout {};`",
                        show_ms(spec.heartbeat_ms * MISSED_BEATS)
                    )),
                );
            } else {
                spec.timeout_ms = to;
            }
        }
        spec
    }

    /// The value of a setting the runtime needs before the run starts. It is folded quietly:
    /// a wrong type is `settings.rs`'s to report, so diagnostics raised here are dropped and
    /// the setting keeps its default. A value read from a variable is E0304.
    /// A duration setting that may be zero but not negative (`startup`, `confirm`, `lookup`).
    fn lasting(
        &mut self,
        key: &str,
        a: &Expr,
        scope: Option<&mut (&mut Template, &[(String, f64)])>,
    ) -> Option<f64> {
        let v = self.setting_const(a, &Ty::Duration, scope)?;
        if v < 0.0 {
            self.diags.push(
                Diagnostic::error(
                    "E0302",
                    format!("a component's `{key}` cannot be negative"),
                    a.span,
                )
                .with_label("below zero")
                .with_help(format!(
                    "for example `{key} 1s;`, or `{key} 0s;` for no time at all"
                )),
            );
            return None;
        }
        Some(v)
    }

    pub(crate) fn setting_const(
        &mut self,
        e: &Expr,
        want: &Ty,
        scope: Option<&mut (&mut Template, &[(String, f64)])>,
    ) -> Option<f64> {
        let before = self.diags.len();
        let mut scratch = Template {
            frame: Frame::default(),
            ..Template::default()
        };
        let (t, traits): (&mut Template, &[(String, f64)]) = match scope {
            Some((t, traits)) => (&mut **t, *traits),
            None => (&mut scratch, &[]),
        };
        let start = t.code.len();
        let pending = t.pending.len();
        let mut tc = TreeCx::agent(self, t, traits);
        let (code, _) = tc.code_expr(e, want, "this setting");
        let ops = &t.code[code.start as usize..(code.start + code.len) as usize];
        let value = crate::ir::eval::eval_const(ops);
        t.code.truncate(start);
        t.pending.truncate(pending);
        if self.diags.len() > before {
            self.diags.truncate(before);
            return None;
        }
        if value.is_none() {
            self.diags.push(
                Diagnostic::error("E0304", "this setting must be a constant", e.span)
                    .with_label("known only while the program runs")
                    .with_help("the runtime needs it before the first tick: use literals, constants and personality traits"),
            );
        }
        value.filter(|v| v.is_finite())
    }

    /// `on failed(c) { .. }` runs once, in the tick the failure is found, and `on
    /// recovered(c) { .. }` in the tick the component (or a redundant one) serves again.
    pub(crate) fn component_handler(
        &mut self,
        event: &Expr,
        body: &ast::Block,
        t: &mut Template,
        traits: &[(String, f64)],
    ) {
        let mut tc = TreeCx::agent(self, t, traits);
        tc.cx_expr(event);
        // `failed(c)` is a level, true for as long as the failure lasts; the handler wants
        // its rising edge.
        if let Some(Op::Host(f, _, _)) = t.code.last_mut() {
            if *f == HostFn::ComponentFailed {
                *f = HostFn::ComponentFailedNow;
            }
        }
        let at = t.code.len();
        t.code.push(Op::JumpIfFalse(0));
        let mut tc = TreeCx::agent(self, t, traits);
        tc.code_block(body);
        let offset = (t.code.len() - at - 1) as u32;
        t.code[at] = Op::JumpIfFalse(offset);
    }
}

/// A duration in milliseconds as the language writes it: `300ms`, `1.5s`.
pub(crate) fn show_ms(ms: f64) -> String {
    if ms >= 1000.0 {
        format!("{}s", ms / 1000.0)
    } else {
        format!("{ms}ms")
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::functions::HostFn;
    use crate::ir::program::{Op, Program};

    use crate::sema::check_for_test as check;

    const ROVER: &str = "component registry { heartbeat 1s; }

agent Rover {
    component lidar {
        SETTINGS
    }
    component lidar_backup { heartbeat 100ms; }
    var blind: bool = false;
    on failed(lidar) { blind = true; }
    on recovered(lidar) { blind = false; }
    main { check not failed(lidar) and not failed(registry) }
}
";

    fn rover(settings: &str) -> (Option<Program>, Vec<String>) {
        check(&ROVER.replace("SETTINGS", settings))
    }

    #[test]
    fn components_become_specs_with_their_defaults() {
        let (p, d) = rover("heartbeat 100ms; timeout 300ms; restart 3 within 10s; redundant lidar_backup; device lidar; startup 2s; confirm 1s; lookup 500ms;");
        assert!(d.is_empty(), "{d:?}");
        let p = p.unwrap();
        let a = &p.agents[0];
        assert!(a.pending.is_empty(), "components run: {:?}", a.pending);
        let lidar = &a.components[0];
        assert_eq!((lidar.heartbeat_ms, lidar.timeout_ms), (100.0, 300.0));
        assert_eq!((lidar.restarts, lidar.restart_window_ms), (3, 10_000.0));
        assert_eq!(lidar.redundant, ["lidar_backup"]);
        assert_eq!(lidar.device.as_deref(), Some("lidar"));
        assert_eq!(lidar.startup_ms, 2000.0);
        assert_eq!((lidar.confirm_ms, lidar.lookup_ms), (1000.0, 500.0));
        assert_eq!(
            a.components[1].startup_ms, 0.0,
            "no start-up time unless declared"
        );
        // Without a timeout: three missed heartbeats; without anything: 1 s and 3 s.
        assert_eq!(a.components[1].timeout_ms, 300.0);
        assert_eq!(p.components[0].name, "registry");
        assert_eq!(p.components[0].timeout_ms, 3000.0);
        assert_eq!(p.components[0].restarts, 0);
        // Components are not variables a trace shows.
        assert!(a.slots.iter().all(|s| s.name != "lidar" || !s.visible));
    }

    #[test]
    fn serves_names_declared_leaves() {
        let with_leaves = |settings: &str| {
            check(&format!(
                "action Scan(out range: num);\ncondition Clear();\n{}",
                ROVER.replace("SETTINGS", settings)
            ))
        };
        let (p, d) = with_leaves("serves Scan, Clear, Scan;");
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(p.unwrap().agents[0].components[0].serves, ["Scan", "Clear"]);
        let (_, d) = with_leaves("serves Scna;");
        assert!(
            d.iter()
                .any(|d| d.contains("E0201") && d.contains("no action or condition `Scna`")),
            "{d:?}"
        );
        let (_, d) = with_leaves("serves lidar_backup;");
        assert!(d.iter().any(|d| d.contains("E0201")), "{d:?}");
    }

    #[test]
    fn failed_and_recovered_ask_the_runtime_by_name() {
        let (p, _) = rover("heartbeat 100ms;");
        let p = p.unwrap();
        let a = &p.agents[0];
        let lidar = p.symbol("lidar").unwrap();
        let hosts: Vec<(HostFn, u32)> = a
            .code
            .iter()
            .filter_map(|op| match op {
                Op::Host(f, arg, 0) => Some((*f, *arg)),
                _ => None,
            })
            .collect();
        // The handlers want the edge of `failed`; the tree its level.
        assert!(hosts.contains(&(HostFn::ComponentFailedNow, lidar)));
        assert!(hosts.contains(&(HostFn::ComponentRecovered, lidar)));
        assert!(hosts.contains(&(HostFn::ComponentFailed, lidar)));
        let registry = p.symbol("registry").unwrap();
        assert!(hosts.contains(&(HostFn::ComponentFailed, registry)));
        // The handlers are in the process phase.
        let process = &a.code[a.process.start as usize..][..a.process.len as usize];
        assert!(process.contains(&Op::Host(HostFn::ComponentFailedNow, lidar, 0)));
    }

    #[test]
    fn a_timeout_within_a_heartbeat_is_refused() {
        let (_, d) = rover("heartbeat 100ms; timeout 100ms;");
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(d[0].starts_with("E0302 component `lidar` times out after 100ms"));
        let (_, d) = rover("heartbeat 0ms;");
        assert!(d.iter().any(|m| m.starts_with("E0302")), "{d:?}");
        let (_, d) = rover("restart 2 within 0s;");
        assert!(d.iter().any(|m| m.starts_with("E0302")), "{d:?}");
        let (_, d) = rover("startup -1s;");
        assert!(d.iter().any(|m| m.starts_with("E0302")), "{d:?}");
        let (_, d) = rover("startup 0s;");
        assert!(d.is_empty(), "an instant start is allowed: {d:?}");
        for key in ["confirm", "lookup"] {
            let (_, d) = rover(&format!("{key} -1s;"));
            assert!(d.iter().any(|m| m.starts_with("E0302")), "{key}: {d:?}");
            let (_, d) = rover(&format!("{key} 2;"));
            assert_eq!(d.len(), 1, "{key} needs a unit: {d:?}");
        }
        // A wrong type is reported once, by the settings check.
        let (_, d) = rover("heartbeat 100;");
        assert_eq!(d.len(), 1, "{d:?}");
        let (_, d) = rover("startup 20;");
        assert_eq!(d.len(), 1, "a start-up time needs a unit: {d:?}");
    }

    #[test]
    fn the_world_may_fail_only_components_the_program_has() {
        let world = "world W {\n    area 10m x 10m;\n    spawn Rover at (1m, 1m);\n    at 1s fail NAME on Rover;\n}\n";
        let src = |name: &str| {
            format!(
                "{}{}",
                ROVER.replace("SETTINGS", ""),
                world.replace("NAME", name)
            )
        };
        for ok in ["lidar", "registry"] {
            let (_, d) = check(&src(ok));
            assert!(d.is_empty(), "{ok}: {d:?}");
        }
        let (_, d) = check(&src("lidr"));
        assert!(
            d.iter()
                .any(|m| m.starts_with("E0201 agent `Rover` has no component `lidr`")),
            "{d:?}"
        );
    }
}
