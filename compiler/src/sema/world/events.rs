//! What happens in a world over time: scripted and recurring events, message delivery and
//! the hosts components run on.
use super::lower::Lowering;
use super::values::bare_name;
use super::*;
use crate::diagnostic::Diagnostic;
use crate::syntax::ast::{Expr, ExprKind, Ident, Setting};

impl Lowering<'_> {
    pub(super) fn read_at(&mut self, s: &Setting) {
        let at = self.reader().time_ms(&s.args[0]);
        let action = self.event_action(s, None);
        let every = match Self::pair(s, "every") {
            Some(e) => self.reader().interval(e).map(Some),
            None => Some(None),
        };
        let until = self.until(s);
        if let (Some(at), Some(action), Some(every), Some(until_ms)) = (at, action, every, until) {
            self.spec.events.push(ScriptedEvent {
                action,
                at_ms: Some(at),
                every,
                until_ms,
                span: s.span,
            });
        }
    }

    pub(super) fn read_recurring(&mut self, s: &Setting) {
        let action = self.event_action(s, Some(&s.args[0]));
        let every = self
            .require_pair(
                s,
                "every",
                "raise treat_taken on Butler every exponential(mean: 4s);",
            )
            .and_then(|e| self.reader().interval(e));
        let until = self.until(s);
        if let (Some(action), Some(every), Some(until_ms)) = (action, every, until) {
            self.spec.events.push(ScriptedEvent {
                action,
                at_ms: None,
                every: Some(every),
                until_ms,
                span: s.span,
            });
        }
    }

    pub(super) fn until(&mut self, s: &Setting) -> Option<Option<u64>> {
        match Self::pair(s, "until") {
            Some(e) => self.reader().time_ms(e).map(Some),
            None => Some(None),
        }
    }

    /// What a scripted event does. For `at` the verb is one of the pairs; for `raise E ...`
    /// (`verb_arg`) the verb is the key and its object the argument.
    pub(super) fn event_action(
        &mut self,
        s: &Setting,
        verb_arg: Option<&Expr>,
    ) -> Option<EventAction> {
        let verbs: Vec<&(Ident, Expr)> = match verb_arg {
            Some(_) => Vec::new(),
            None => s
                .pairs
                .iter()
                .filter(|(k, _)| ["raise", "fail", "recover", "send"].contains(&k.name.as_str()))
                .collect(),
        };
        let (verb, object) = match verb_arg {
            Some(arg) => (s.key.name.as_str(), arg),
            None => match verbs.as_slice() {
                [(k, v)] => (k.name.as_str(), v),
                [] => {
                    self.diags.push(
                        Diagnostic::error("E0502", "the scripted event does nothing", s.span)
                            .with_label("say what happens at this time")
                            .with_help("write `raise EVENT on AGENT`, `fail COMPONENT on AGENT`, `recover COMPONENT on AGENT` or `send \"message\" to AGENT`"),
                    );
                    return None;
                }
                [_, (second, _), ..] => {
                    self.diags.push(
                        Diagnostic::error(
                            "E0502",
                            "one scripted event does one thing",
                            second.span,
                        )
                        .with_label("a second action")
                        .with_help("write one `at` setting per action"),
                    );
                    return None;
                }
            },
        };
        let (wrong, right): (&[&str], &str) = if verb == "send" {
            (&["on"], "to")
        } else {
            (&["to", "from"], "on")
        };
        if let Some((k, _)) = s
            .pairs
            .iter()
            .find(|(k, _)| wrong.contains(&k.name.as_str()))
        {
            self.diags.push(
                Diagnostic::error(
                    "E0502",
                    format!("`{verb}` takes `{right}`, not `{}`", k.name),
                    k.span,
                )
                .with_label(format!("use `{right}`")),
            );
            return None;
        }
        let on = |cx: &mut Self, key: &str| match Self::pair(s, key) {
            Some(e) => cx.reader().name(e, "an agent name").map(Some),
            None => Some(None),
        };
        match verb {
            "send" => {
                let message = match &object.kind {
                    ExprKind::Str(m) => Some(m.clone()),
                    _ => self.reader().name(object, "a message").map(|n| n.name),
                };
                let (to, from) = (on(self, "to"), on(self, "from"));
                Some(EventAction::Send {
                    message: message?,
                    from: from?,
                    to: to?,
                })
            }
            _ => {
                let what = if verb == "raise" {
                    "an event name"
                } else {
                    "a component name"
                };
                let name = self.reader().name(object, what);
                let agent = on(self, "on");
                let (name, agent) = (name?, agent?);
                Some(match verb {
                    "raise" => EventAction::Raise { event: name, agent },
                    "fail" => EventAction::Fail {
                        component: name,
                        agent,
                    },
                    _ => EventAction::Recover {
                        component: name,
                        agent,
                    },
                })
            }
        }
    }

    pub(super) fn read_messages(&mut self, s: &Setting) {
        let mode = match bare_name(&s.args[0]) {
            Some("broadcast") => Delivery::Broadcast,
            Some("unicast") => Delivery::Unicast,
            _ => {
                self.diags.push(
                    Diagnostic::error(
                        "E0502",
                        "messages are `broadcast` or `unicast`",
                        s.args[0].span,
                    )
                    .with_label("expected `broadcast` or `unicast`"),
                );
                return;
            }
        };
        let mut m = MessageSpec {
            mode,
            ..MessageSpec::default()
        };
        let mut ok = true;
        if let Some(e) = Self::pair(s, "loss") {
            match self.reader().plain_in(e, 0.0, 1.0) {
                Some(p) => m.loss = p,
                None => ok = false,
            }
        }
        if let Some(e) = Self::pair(s, "range") {
            match self.reader().size(e, true) {
                Some(r) => m.range_m = Some(r),
                None => ok = false,
            }
        }
        if let Some(e) = Self::pair(s, "latency") {
            match self.reader().time_ms(e) {
                Some(ms) => m.latency_ms = ms,
                None => ok = false,
            }
        }
        if ok {
            self.spec.messages = m;
        }
    }

    pub(super) fn read_host(&mut self, s: &Setting) {
        let taken: Vec<String> = self.spec.hosts.iter().map(|h| h.name.clone()).collect();
        let name = self.fresh_name(&s.args[0], "a host name", &taken);
        let runs = self.require_pair(
            s,
            "runs",
            "host laptop2 runs [speech_recognition, speech_production];",
        );
        let components = runs.and_then(|e| match &e.kind {
            ExprKind::List(items) => {
                let names: Vec<Option<NameRef>> = items
                    .iter()
                    .map(|i| self.reader().name(i, "a component name"))
                    .collect();
                names.into_iter().collect::<Option<Vec<_>>>()
            }
            _ => self
                .reader()
                .name(e, "a list of components like `[robot, laser]`")
                .map(|n| vec![n]),
        });
        // The hardware names are the components' `device` names, free words like them.
        let hardware = Self::pair(s, "has").map(|e| match &e.kind {
            ExprKind::List(items) => items
                .iter()
                .map(|i| self.reader().name(i, "a device name").map(|n| n.name))
                .collect::<Option<Vec<_>>>(),
            _ => self
                .reader()
                .name(e, "a list of devices like `[microphone, speaker]`")
                .map(|n| vec![n.name]),
        });
        let hardware = match hardware {
            None => Some(Vec::new()),
            Some(h) => h,
        };
        if let (Some(name), Some(components), Some(hardware)) = (name, components, hardware) {
            self.spec.hosts.push(HostSpec {
                name,
                components,
                hardware,
            });
        }
    }
}
