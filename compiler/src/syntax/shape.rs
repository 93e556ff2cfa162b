//! Checks on the syntax tree that a context-free grammar leaves open: the settings each
//! configuration block accepts and their shapes, assignment targets, chained comparisons,
//! duplicate modifiers, and where `..` and named arguments may stand.

use super::ast::*;
use super::visit::{self, Visitor};
use crate::diagnostic::Diagnostic;
use crate::suggest::closest;
use crate::span::Span;

/// The shape of one setting: how many leading arguments, which keyword pairs, and whether a
/// `= value`, a `: value` or a nested block may follow.
pub struct SettingShape {
    pub key: &'static str,
    pub min_args: usize,
    /// `usize::MAX` for a list (`keys legs, head`).
    pub max_args: usize,
    pub pairs: &'static [&'static str],
    pub example: &'static str,
}

const fn one(key: &'static str, example: &'static str) -> SettingShape {
    SettingShape {
        key,
        min_args: 1,
        max_args: 1,
        pairs: &[],
        example,
    }
}

const fn list(key: &'static str, example: &'static str) -> SettingShape {
    SettingShape {
        key,
        min_args: 1,
        max_args: usize::MAX,
        pairs: &[],
        example,
    }
}

const fn with_pairs(
    key: &'static str,
    pairs: &'static [&'static str],
    example: &'static str,
) -> SettingShape {
    SettingShape {
        key,
        min_args: 1,
        max_args: 1,
        pairs,
        example,
    }
}

/// Settings of each configuration block. Worlds are open-ended and checked when they run.
pub fn schema(owner: &str) -> Option<&'static [SettingShape]> {
    static MEMORY: &[SettingShape] = &[
        with_pairs("short_term", &["weights"], "short_term 7 weights [0.3, 0.21, 0.15, 0.12, 0.09, 0.06, 0.06];"),
        one("retrospection", "retrospection sigmoid(gain: 0.2, center: 50);"),
        one("persist", "persist \"feelings.eltm\";"),
        with_pairs("familiarity", &["gain", "decay"], "familiarity 22 gain 10 decay 1;"),
        one("threshold", "threshold 25;"),
    ];
    static EMOTIONS: &[SettingShape] = &[
        one("from", "from progress;"),
        one("rise", "rise 0.1 * (1 + caution);"),
        one("fall", "fall 0.2;"),
    ];
    static HORMONE: &[SettingShape] = &[
        one("baseline", "baseline 50;"),
        one("half_life", "half_life 30s;"),
    ];
    static BEHAVIOR: &[SettingShape] = &[
        one("motivation", "motivation vitality;"),
        one("satisfaction", "satisfaction 100 - vitality;"),
        one("expected", "expected ball_visible ? 20 : 0;"),
        one("alpha", "alpha 0.5;"),
        one("beta", "beta 0.6;"),
        list("keys", "keys legs, head;"),
        one("policy", "policy main(Kick);"),
        list("children", "children SearchBall, ApproachBall, Kick;"),
        one("run", "run PlayWithBall;"),
    ];
    static BEHAVIORS: &[SettingShape] = &[
        one("policy", "policy parallel;"),
        one("inhibition", "inhibition 0.15;"),
        list("modules", "modules Soccer, Charge, Chat;"),
    ];
    static RECRUITMENT: &[SettingShape] = &[
        one("strategy", "strategy affective;"),
        one("threshold", "threshold 0.75;"),
        one("ignore_cost", "ignore_cost 0.2 + 0.5 / distance;"),
        with_pairs("decay", &["per"], "decay 0.005 per s;"),
        one("resend", "resend 3s;"),
        one("lease", "lease 30s;"),
        one("requires", "requires percept(\"mine_detector\");"),
    ];
    static COMPONENT: &[SettingShape] = &[
        one("heartbeat", "heartbeat 100ms;"),
        one("timeout", "timeout 300ms;"),
        with_pairs("restart", &["within"], "restart 3 within 10s;"),
        list("redundant", "redundant lidar_backup;"),
        one("device", "device lidar;"),
    ];
    Some(match owner {
        "memory" => MEMORY,
        "emotions" => EMOTIONS,
        "hormone" => HORMONE,
        "behavior" => BEHAVIOR,
        "behaviors" => BEHAVIORS,
        "recruitment" => RECRUITMENT,
        "component" => COMPONENT,
        _ => return None,
    })
}

pub fn check(file: &File) -> Vec<Diagnostic> {
    let mut c = Checker { diags: Vec::new() };
    visit::walk_file(&mut c, file);
    c.diags
}

struct Checker {
    diags: Vec<Diagnostic>,
}

impl Checker {
    fn check_setting_block(&mut self, owner: &str, block: &SettingBlock) {
        let Some(shapes) = schema(owner) else {
            return;
        };
        let mut seen: Vec<(&str, Span)> = Vec::new();
        for e in &block.entries {
            let s = match e {
                SettingEntry::Setting(s) => s,
                SettingEntry::Behavior(b, span) => {
                    if owner != "behavior" {
                        self.diags.push(
                            Diagnostic::error(
                                "E0112",
                                format!("a `{owner}` block cannot hold a behaviour module"),
                                *span,
                            )
                            .with_label(format!("`behavior {}` is not allowed here", b.name.name)),
                        );
                    }
                    continue;
                }
                SettingEntry::Transition(t) => {
                    if owner != "emotions" {
                        self.diags.push(
                            Diagnostic::error(
                                "E0112",
                                format!("transitions belong in an `emotions` block, not a `{owner}` block"),
                                t.span,
                            )
                            .with_label("transition outside an emotion machine"),
                        );
                    }
                    continue;
                }
                SettingEntry::Error(_) => continue,
            };
            let key = s.key.name.as_str();
            let Some(shape) = shapes.iter().find(|sh| sh.key == key) else {
                let names: Vec<&str> = shapes.iter().map(|sh| sh.key).collect();
                let mut d = Diagnostic::error(
                    "E0112",
                    format!("unknown setting `{key}` in a `{owner}` block"),
                    s.key.span,
                )
                .with_label("not a setting of this block")
                .with_note(format!("a `{owner}` block takes: {}", names.join(", ")));
                if let Some(best) = closest(key, names.iter().copied()) {
                    d = d.with_help(format!("did you mean `{best}`?"));
                }
                self.diags.push(d);
                continue;
            };
            if let Some((_, first)) = seen.iter().find(|(k, _)| *k == key) {
                self.diags.push(
                    Diagnostic::error("E0114", format!("`{key}` is set twice"), s.key.span)
                        .with_label("set again here")
                        .with_secondary(*first, "first set here"),
                );
            } else {
                seen.push((key, s.key.span));
            }
            self.check_shape(owner, shape, s);
        }
    }

    fn check_shape(&mut self, owner: &str, shape: &SettingShape, s: &Setting) {
        let malformed = |what: String, span: Span| {
            Diagnostic::error(
                "E0113",
                format!("malformed `{}` setting in a `{owner}` block", shape.key),
                span,
            )
            .with_label(what)
            .with_help(format!("write it like `{}`", shape.example))
        };
        let n = s.args.len();
        if n < shape.min_args {
            self.diags
                .push(malformed("a value is missing".into(), s.key.span));
        } else if n > shape.max_args {
            let extra = s.args[shape.max_args].span.to(s.args[n - 1].span);
            self.diags
                .push(malformed(format!("`{}` takes one value", shape.key), extra));
        }
        for (k, _) in &s.pairs {
            if !shape.pairs.contains(&k.name.as_str()) {
                let label = if shape.pairs.is_empty() {
                    format!("`{}` takes no `{}` part", shape.key, k.name)
                } else {
                    format!("expected {} here", shape.pairs.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(" or "))
                };
                self.diags.push(malformed(label, k.span));
            }
        }
        if let Some(a) = &s.assign {
            self.diags
                .push(malformed("no `=` belongs in this setting".into(), a.span));
        }
        if let Some(v) = &s.value {
            self.diags
                .push(malformed("no `:` belongs in this setting".into(), v.span));
        }
        if let Some(b) = &s.block {
            self.diags
                .push(malformed("this setting takes no block".into(), b.span));
        }
    }

    fn check_args(&mut self, args: &ArgList, allow_rest: bool) {
        if let (Some(rest), false) = (args.rest, allow_rest) {
            self.diags.push(
                Diagnostic::error("E0117", "`..` is only allowed when calling a tree", rest)
                    .with_label("`..` binds the remaining ports of a tree call")
                    .with_help("remove `..`: functions take their arguments explicitly"),
            );
        }
        let mut named_seen: Option<Span> = None;
        for a in &args.args {
            match (&a.name, named_seen) {
                (Some(n), _) => named_seen = named_seen.or(Some(n.span)),
                (None, Some(first)) => self.diags.push(
                    Diagnostic::error(
                        "E0117",
                        "positional argument after a named argument",
                        a.span,
                    )
                    .with_label("this argument has no name")
                    .with_secondary(first, "named arguments start here")
                    .with_help("put positional arguments first, or name this one"),
                ),
                (None, None) => {}
            }
        }
    }
}

impl Visitor for Checker {
    fn visit_node(&mut self, node: &Node) {
        let mut seen: Vec<(&'static str, Span)> = Vec::new();
        for m in &node.modifiers {
            let kw = m.kind.keyword();
            if let Some((_, first)) = seen.iter().find(|(k, _)| *k == kw) {
                self.diags.push(
                    Diagnostic::error("E0114", format!("`{kw}` is given twice on one node"), m.span)
                        .with_label("second one")
                        .with_secondary(*first, "first one")
                        .with_help(format!("combine the two: `{kw}` takes one condition or block")),
                );
            } else {
                seen.push((kw, m.span));
            }
        }
        if let NodeKind::Call { args: Some(a), .. } = &node.kind {
            self.check_args(a, true);
            for arg in &a.args {
                self.visit_expr(&arg.value);
            }
        } else {
            visit::walk_node(self, node);
            return;
        }
        if let NodeKind::Call {
            children: Some(c), ..
        } = &node.kind
        {
            visit::walk_nodes(self, c);
        }
        for m in &node.modifiers {
            self.visit_modifier(m);
        }
    }

    fn visit_stmt(&mut self, stmt: &Stmt) {
        if let StmtKind::Assign { target, .. } = &stmt.kind {
            let ok = matches!(
                &target.kind,
                ExprKind::Name(_) | ExprKind::Root(_) | ExprKind::Field(..) | ExprKind::Index(..) | ExprKind::Error
            );
            if !ok {
                self.diags.push(
                    Diagnostic::error("E0110", "cannot assign to this expression", target.span)
                        .with_label("not a variable")
                        .with_help("the left side of `=` must be a variable, such as `score` or `@goal`"),
                );
            }
        }
        visit::walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &Expr) {
        match &expr.kind {
            ExprKind::Binary(op, lhs, _) if op.is_comparison() => {
                if let ExprKind::Binary(inner, _, _) = &lhs.kind {
                    if inner.is_comparison() {
                        self.diags.push(
                            Diagnostic::error(
                                "E0111",
                                "comparison operators cannot be chained",
                                expr.span,
                            )
                            .with_label(format!(
                                "`{}` compares the result of `{}`",
                                op.as_str(),
                                inner.as_str()
                            ))
                            .with_help("split it with `and`: `a < b and b < c`"),
                        );
                    }
                }
            }
            ExprKind::Call(_, args) => self.check_args(args, false),
            _ => {}
        }
        visit::walk_expr(self, expr);
    }

    fn visit_member(&mut self, member: &Member) {
        if let MemberKind::Drive(d) = &member.kind {
            let intentions: Vec<Span> = d
                .entries
                .iter()
                .filter_map(|e| match e {
                    DriveEntry::Intention(i) => Some(i.span),
                    _ => None,
                })
                .collect();
            if intentions.len() > 1 {
                self.diags.push(
                    Diagnostic::error(
                        "E0114",
                        format!("drive `{}` has more than one `intention` block", d.name.name),
                        intentions[1],
                    )
                    .with_label("second intention")
                    .with_secondary(intentions[0], "first intention")
                    .with_help("a drive generates one intention; merge the arms into one block"),
                );
            }
        }
        visit::walk_member(self, member);
    }

    fn visit_settings(&mut self, owner: &str, block: &SettingBlock) {
        self.check_setting_block(owner, block);
        visit::walk_settings(self, owner, block);
    }
}
