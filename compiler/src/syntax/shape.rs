//! Checks on the syntax tree that a context-free grammar leaves open: the settings each
//! configuration block accepts and their shapes, assignment targets, chained comparisons,
//! duplicate modifiers, and where `..` and named arguments may stand.

use super::ast::*;
use super::visit::{self, Visitor};
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::suggest::closest;

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
        with_pairs(
            "short_term",
            &["weights"],
            "short_term 7 weights [0.3, 0.21, 0.15, 0.12, 0.09, 0.06, 0.06];",
        ),
        one(
            "retrospection",
            "retrospection sigmoid(gain: 0.2, center: 50);",
        ),
        one("persist", "persist \"feelings.eltm\";"),
        with_pairs(
            "familiarity",
            &["gain", "decay"],
            "familiarity 22 gain 10 decay 1;",
        ),
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
        one("startup", "startup 20s;"),
        one("confirm", "confirm 1s;"),
        one("lookup", "lookup 1s;"),
        list("serves", "serves Listen, ChatBot;"),
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

/// "a `memory` block", "an `emotions` block".
fn a_block(owner: &str) -> String {
    let article = if owner.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} `{owner}` block")
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
                                format!(
                                    "a behaviour module cannot be nested in {}",
                                    a_block(owner)
                                ),
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
                                format!(
                                    "transitions belong in an `emotions` block, not in {}",
                                    a_block(owner)
                                ),
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
                    format!("unknown setting `{key}` in {}", a_block(owner)),
                    s.key.span,
                )
                .with_label("not a setting of this block")
                .with_note(format!(
                    "{} takes: {}",
                    a_block(owner),
                    names.join(", ")
                ));
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
                        .with_secondary(*first, "first set here")
                        .with_help("keep one of the two: a setting has one value"),
                );
            } else {
                seen.push((key, s.key.span));
            }
            self.check_shape(owner, shapes, shape, s);
        }
    }

    fn check_shape(
        &mut self,
        owner: &str,
        shapes: &[SettingShape],
        shape: &SettingShape,
        s: &Setting,
    ) {
        let malformed = |what: String, span: Span| {
            Diagnostic::error(
                "E0113",
                format!("malformed `{}` setting in {}", shape.key, a_block(owner)),
                span,
            )
            .with_label(what)
            .with_help(format!("write it like `{}`", shape.example))
        };
        // `short_term 7 weights [..]` then `persist "x";` on the next line reads as one
        // setting with a `persist` part: a `;` is missing, not a part.
        let mut prev_end = s.args.last().map(|a| a.span.end);
        for (k, v) in &s.pairs {
            if !shape.pairs.contains(&k.name.as_str()) && shapes.iter().any(|sh| sh.key == k.name) {
                let at = Span::at(prev_end.unwrap_or(s.key.span.end) as usize);
                self.diags.push(
                    Diagnostic::error("E0109", "expected `;`", at)
                        .with_label(format!("add `;` here (the setting `{}` follows)", k.name))
                        .with_note(format!(
                            "without the `;`, `{}` reads as a part of the `{}` setting",
                            k.name, shape.key
                        )),
                );
                return;
            }
            prev_end = Some(v.span.end);
        }
        let n = s.args.len();
        let wrong_separator = n == 0 && (s.assign.is_some() || s.value.is_some());
        if wrong_separator {
            // `threshold = 0.75;` / `baseline: 50;`: one error, about the separator.
        } else if n < shape.min_args {
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
                    format!(
                        "expected {} here",
                        shape
                            .pairs
                            .iter()
                            .map(|p| format!("`{p}`"))
                            .collect::<Vec<_>>()
                            .join(" or ")
                    )
                };
                self.diags.push(malformed(label, k.span));
            }
        }
        if let Some(a) = &s.assign {
            let what = if wrong_separator {
                format!("settings are written `{} value;`, without `=`", shape.key)
            } else {
                "no `=` belongs in this setting".into()
            };
            self.diags.push(malformed(what, a.span));
        }
        if let Some(v) = &s.value {
            let what = if wrong_separator {
                format!("settings are written `{} value;`, without `:`", shape.key)
            } else {
                "no `:` belongs in this setting".into()
            };
            self.diags.push(malformed(what, v.span));
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

fn value_of(stmt: &Stmt) -> &Expr {
    match &stmt.kind {
        StmtKind::Assign { value, .. } => value,
        _ => unreachable!("only assignments have a target"),
    }
}

fn path_text(p: &Path) -> String {
    p.segments
        .iter()
        .map(|s| s.name.as_str())
        .collect::<Vec<_>>()
        .join("::")
}

impl Visitor for Checker {
    fn visit_node(&mut self, node: &Node) {
        let mut seen: Vec<(&'static str, Span)> = Vec::new();
        for m in &node.modifiers {
            let kw = m.kind.keyword();
            if let Some((_, first)) = seen.iter().find(|(k, _)| *k == kw) {
                let help = match &m.kind {
                    ModifierKind::While(_) => {
                        "combine the two conditions into one with `and`".to_string()
                    }
                    ModifierKind::SkipIf(_)
                    | ModifierKind::SuccessIf(_)
                    | ModifierKind::FailureIf(_) => {
                        format!("combine the two conditions into one: `{kw} a or b`")
                    }
                    _ => format!("merge the two blocks into one `{kw} {{ ... }}`"),
                };
                self.diags.push(
                    Diagnostic::error(
                        "E0114",
                        format!("`{kw}` is given twice on one node"),
                        m.span,
                    )
                    .with_label("second one")
                    .with_secondary(*first, "first one")
                    .with_help(help),
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
                ExprKind::Name(_)
                    | ExprKind::Root(_)
                    | ExprKind::Field(..)
                    | ExprKind::Index(..)
                    | ExprKind::Error
            );
            if !ok {
                let mut d =
                    Diagnostic::error("E0110", "cannot assign to this expression", target.span)
                        .with_label("not a variable");
                // `50 = score`: written backwards.
                let swapped = match (&target.kind, &value_of(stmt).kind) {
                    (ExprKind::Num(n), ExprKind::Name(p)) => Some((n.text.clone(), path_text(p))),
                    (ExprKind::Str(t), ExprKind::Name(p)) => Some((format!("{t:?}"), path_text(p))),
                    _ => None,
                };
                d = match swapped {
                    Some((lit, var)) => d.with_help(format!(
                        "the variable goes on the left: `{var} = {lit}`"
                    )),
                    None => d.with_help(
                        "the left side of `=` must be a variable, a field or an element, such as `score`, `@goal` or `scores[0]`",
                    ),
                };
                self.diags.push(d);
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
                            .with_help(format!(
                                "split it with `and`: `a {} b and b {} c`",
                                inner.as_str(),
                                op.as_str()
                            )),
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
                        format!(
                            "drive `{}` has more than one `intention` block",
                            d.name.name
                        ),
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
