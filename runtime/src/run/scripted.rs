//! The world's scripted `send` events: checked before the run (E0604 for a message no
//! running robot can receive) and delivered as commands while it goes.

use crate::sim::mail::{Mail, SharedMail};
use crate::trace::{Event, TraceSink};
use crate::world::World;
use affect_compiler::diagnostic::Diagnostic;
use affect_compiler::ir::program::Program;
use affect_compiler::ir::world::EventAction;

/// The world's scripted `send` events that fired in the step just made: each becomes a
/// command for the robots it addresses, delivered before their next tick, and a `msg` line
/// (from the `from` agent, or `world`).
pub(super) fn deliver_scripted_sends(
    program: &Program,
    w: &World,
    mail: &SharedMail,
    tick: u64,
    now: f64,
    sink: &mut dyn TraceSink,
) {
    for ev in w.fired_events() {
        let EventAction::Send { message, from, to } = &ev.action else {
            continue;
        };
        let reached = mail.borrow_mut().send_scripted(
            to.as_ref().map(|t| t.name.as_str()),
            message,
            &program.enums,
        );
        let from = from.as_ref().map_or("world", |f| f.name.as_str());
        for robot in &reached {
            let _ = sink.line(
                tick,
                now,
                from,
                &Event::Msg {
                    from,
                    to: robot,
                    kind: message,
                },
            );
        }
    }
}

/// E0604 for each scripted `send` that no running robot can receive: a message is a variant
/// of the enum of the addressed robot's root variable `command`.
pub(super) fn undeliverable_sends(program: &Program, w: &World, mail: &Mail) -> Vec<Diagnostic> {
    w.spec()
        .events
        .iter()
        .filter_map(|ev| match &ev.action {
            EventAction::Send { message, to, .. } => Some((message, to, ev.span)),
            _ => None,
        })
        .filter(|(message, to, _)| {
            !mail.can_deliver_scripted(to.as_ref().map(|t| t.name.as_str()), message, &program.enums)
        })
        .map(|(message, to, event_span)| {
            let to_name = to.as_ref().map(|t| t.name.as_str());
            let span = to.as_ref().map_or(event_span, |t| t.span);
            let variants = mail.command_variants(to_name, &program.enums);
            let d = Diagnostic::error(
                "E0604",
                match to_name {
                    Some(t) => format!("the world sends `{message}`, but `{t}` cannot receive it"),
                    None => format!("the world sends `{message}`, but no robot can receive it"),
                },
                span,
            );
            if variants.is_empty() {
                d.with_label("has no root variable `command` of an enum type")
                    .with_help(format!(
                        "a message is a command: give the robot a root variable `command` of an enum with a variant `{message}`"
                    ))
            } else {
                d.with_label(format!("no robot's `command` has a variant `{message}`"))
                    .with_suggestion(message, variants.iter().copied(), || {
                        format!("its `command` takes `{}`", variants.join("`, `"))
                    })
            }
        })
        .collect()
}
