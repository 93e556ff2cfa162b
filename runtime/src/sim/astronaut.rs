//! The failover example's task (seed 001, `examples/failover.affect`): a human teammate
//! directs the robot by voice to where the field is strong enough to transmit, the robot
//! reports the field strength it measures, and the task is done when the uplink confirms the
//! transmission. The family binds only in a world with a `teammate .. toward (x, y)`: the
//! astronaut knows roughly where to go (that point) and only the robot can measure the field.
//!
//! | leaf | does | statuses |
//! |---|---|---|
//! | `Listen(in vocabulary: [str], out utterance: str)` | the astronaut's newest word, when the astronaut has something to say (below) and the word is in `vocabulary` (the recognizer's grammar); a word said while nobody listens is lost | SUCCESS with the word; FAILURE when nothing new was heard |
//! | `Interpret(in utterance: str, out command: E)` | the command whose variant is named by the word (`"forward"` is `Forward`) | SUCCESS; FAILURE for a word it does not know |
//! | `ChatBot(in utterance: str, out command: E)` | as `Interpret`, for the chat-bot's small command set only: `stop`, `forward`, `back`, `left`, `right` | SUCCESS; FAILURE for other words |
//! | `Speak(in text: str)` | says the sentence (at once) | SUCCESS |
//! | `SayNumber(in text: str, in value: num)` | says the sentence and the number: the astronaut hears the reading | SUCCESS |
//! | `Drive(in command: E)` | one tick's step of `DRIVE_MPS` in the astronaut's frame (`Forward` +y, `Back` −y, `Left` −x, `Right` +x), steering around bodies in the way | SUCCESS; FAILURE for a command that is no movement |
//! | `StopMotors()` | the robot stands still | SUCCESS |
//! | `Transmit()` | sends the data for `UPLINK_MS`; the uplink confirms it when the field where the robot stands is at least `UPLINK_LEVEL` at the end | RUNNING, then SUCCESS or FAILURE |
//!
//! The astronaut, asked whenever the robot listens: says nothing once the data is sent. Far
//! from the goal (more than `ALIGNED_M` on an axis), wants the robot to drive along x first,
//! then y; near it, wants it stopped, then a report of the field strength, then (when the
//! reading heard is at least `UPLINK_LEVEL`) the transmission; a weak reading is asked for
//! again after `REPORT_AGAIN_MS`, a failed transmission at once. What the robot already does
//! is not said again, nor the same word within `REPEAT_MS`. Deterministic: no random draw.

use super::env::LeafEnv;
use crate::devices::sim::SharedWorld;
use crate::leaf::{Leaf, LeafCall};
use crate::world::{AgentId, Point};
use affect_compiler::ir::program::PortDir;
use affect_compiler::ir::program::{EnumInfo, LeafInfo, Status, ValueKind};
use affect_compiler::ir::world::LandmarkKind;
use std::cell::RefCell;
use std::rc::Rc;

/// The Peoplebot's driving speed, m/s (a walking pace, well under its top speed).
pub const DRIVE_MPS: f64 = 0.5;
/// How close on each axis the astronaut wants the robot to the goal.
pub const ALIGNED_M: f64 = 0.25;
/// The astronaut repeats an unanswered word after this long.
pub const REPEAT_MS: f64 = 4000.0;
/// After a weak reading, the astronaut asks again this much later (the field drifts).
pub const REPORT_AGAIN_MS: f64 = 10_000.0;
/// The field strength the uplink needs.
pub const UPLINK_LEVEL: f64 = 60.0;
/// How long a transmission takes.
pub const UPLINK_MS: f64 = 5000.0;
/// The world field the uplink depends on.
pub const FIELD: &str = "strength";
/// A drive step this recent means the robot is moving.
const MOVING_MS: f64 = 250.0;

/// The words of the task, each naming a command variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Word {
    Forward,
    Back,
    Left,
    Right,
    Stop,
    Report,
    Transmit,
}

const WORDS: [Word; 7] = [
    Word::Forward,
    Word::Back,
    Word::Left,
    Word::Right,
    Word::Stop,
    Word::Report,
    Word::Transmit,
];

impl Word {
    fn text(self) -> &'static str {
        match self {
            Word::Forward => "forward",
            Word::Back => "back",
            Word::Left => "left",
            Word::Right => "right",
            Word::Stop => "stop",
            Word::Report => "report",
            Word::Transmit => "transmit",
        }
    }

    fn parse(text: &str) -> Option<Word> {
        WORDS
            .into_iter()
            .find(|w| w.text().eq_ignore_ascii_case(text))
    }

    /// The unit step of a movement word, in the astronaut's frame.
    fn direction(self) -> Option<(f64, f64)> {
        match self {
            Word::Forward => Some((0.0, 1.0)),
            Word::Back => Some((0.0, -1.0)),
            Word::Left => Some((-1.0, 0.0)),
            Word::Right => Some((1.0, 0.0)),
            _ => None,
        }
    }

    /// Whether the chat-bot (ADE's fallback when the action interpreter is down) knows it.
    fn chat(self) -> bool {
        !matches!(self, Word::Report | Word::Transmit)
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Uplink {
    Idle,
    Sending { since_ms: f64 },
    Sent,
}

/// What the task's leaves of one robot share: the astronaut's side of the conversation and
/// what the astronaut sees of the robot.
pub struct Mission {
    /// The last word said, and when.
    said: Option<(Word, f64)>,
    /// The robot's last drive step: its direction, and when.
    moving: Option<(Word, f64)>,
    /// When the astronaut saw the robot standing near the goal (cleared when it leaves).
    arrived_ms: Option<f64>,
    /// The last reading heard: value, and when.
    report: Option<(f64, f64)>,
    uplink: Uplink,
}

impl Mission {
    pub fn shared() -> Rc<RefCell<Mission>> {
        Rc::new(RefCell::new(Mission {
            said: None,
            moving: None,
            arrived_ms: None,
            report: None,
            uplink: Uplink::Idle,
        }))
    }

    fn moving(&self, now_ms: f64) -> Option<Word> {
        self.moving
            .filter(|(_, at)| now_ms - at <= MOVING_MS)
            .map(|(w, _)| w)
    }

    /// What the astronaut wants the robot to do now, if anything it is not doing already.
    fn wants(&mut self, now_ms: f64, here: Point, goal: Point) -> Option<Word> {
        if self.uplink != Uplink::Idle {
            return None;
        }
        let moving = self.moving(now_ms);
        let (dx, dy) = (goal.x - here.x, goal.y - here.y);
        let way = if dx.abs() > ALIGNED_M {
            Some(if dx > 0.0 { Word::Right } else { Word::Left })
        } else if dy.abs() > ALIGNED_M {
            Some(if dy > 0.0 { Word::Forward } else { Word::Back })
        } else {
            None
        };
        if let Some(way) = way {
            self.arrived_ms = None;
            return (moving != Some(way)).then_some(way);
        }
        if moving.is_some() {
            return Some(Word::Stop);
        }
        let arrived = *self.arrived_ms.get_or_insert(now_ms);
        match self.report {
            Some((value, at)) if at >= arrived && value >= UPLINK_LEVEL => Some(Word::Transmit),
            Some((_, at)) if at >= arrived && now_ms - at < REPORT_AGAIN_MS => None,
            _ => Some(Word::Report),
        }
    }

    /// The word the astronaut says now, if any.
    fn utterance(&mut self, now_ms: f64, here: Point, goal: Point) -> Option<Word> {
        let want = self.wants(now_ms, here, goal)?;
        if matches!(self.said, Some((w, at)) if w == want && now_ms - at < REPEAT_MS) {
            return None;
        }
        self.said = Some((want, now_ms));
        Some(want)
    }
}

/// Binds a declared leaf of the task when the world has a teammate heading somewhere and the
/// leaf's name and ports fit.
pub fn bind(
    info: &LeafInfo,
    env: &LeafEnv,
    strings: &Rc<Vec<String>>,
    mission: &Rc<RefCell<Mission>>,
) -> Option<Box<dyn Leaf>> {
    let goal = {
        let w = env.world.try_borrow().ok()?;
        if w.spec().grid().is_some() {
            return None;
        }
        w.landmarks()
            .iter()
            .find(|l| l.kind == LandmarkKind::Teammate)
            .and_then(|l| l.toward)?
    };
    let port = |name: &str, fits: &dyn Fn(Option<ValueKind>, PortDir) -> bool| {
        info.ports
            .iter()
            .position(|p| p.name == name && fits(p.kind, p.dir))
    };
    let text_in = |k: Option<ValueKind>, d: PortDir| k == Some(ValueKind::Str) && d != PortDir::Out;
    let text_out = |k: Option<ValueKind>, d: PortDir| k == Some(ValueKind::Str) && d != PortDir::In;
    let list_in =
        |k: Option<ValueKind>, d: PortDir| k == Some(ValueKind::List) && d != PortDir::Out;
    let number = |k: Option<ValueKind>, d: PortDir| {
        matches!(k, Some(ValueKind::Num | ValueKind::Int)) && d != PortDir::Out
    };
    let variant = |out: bool| {
        move |k: Option<ValueKind>, d: PortDir| {
            matches!(k, Some(ValueKind::Enum(_)))
                && if out {
                    d != PortDir::In
                } else {
                    d != PortDir::Out
                }
        }
    };
    let enum_of = |i: usize| match info.ports[i].kind {
        Some(ValueKind::Enum(e)) => env.enums.get(e as usize).cloned(),
        _ => None,
    };
    let task = Task {
        world: env.world.clone(),
        agent: env.agent,
        goal,
        period_ms: env.period_ms,
        strings: strings.clone(),
        mission: mission.clone(),
    };
    let leaf: Box<dyn Leaf> = match info.name.as_str() {
        "Listen" => Box::new(Listen {
            vocabulary: port("vocabulary", &list_in)?,
            utterance: port("utterance", &text_out)?,
            task,
        }),
        "Interpret" | "ChatBot" => {
            let command = port("command", &variant(true))?;
            Box::new(Understand {
                utterance: port("utterance", &text_in)?,
                command,
                commands: enum_of(command)?,
                chat_only: info.name == "ChatBot",
                task,
            })
        }
        "Speak" => {
            port("text", &text_in)?;
            Box::new(Said)
        }
        "SayNumber" => {
            port("text", &text_in)?;
            Box::new(SayNumber {
                value: port("value", &number)?,
                task,
            })
        }
        "Drive" => {
            let command = port("command", &variant(false))?;
            Box::new(Drive {
                command,
                commands: enum_of(command)?,
                task,
            })
        }
        "StopMotors" if info.ports.is_empty() => Box::new(StopMotors { task }),
        "Transmit" if info.ports.is_empty() => Box::new(Transmit { task }),
        _ => return None,
    };
    Some(leaf)
}

/// What every leaf of the task holds.
struct Task {
    world: SharedWorld,
    agent: AgentId,
    goal: Point,
    period_ms: f64,
    strings: Rc<Vec<String>>,
    mission: Rc<RefCell<Mission>>,
}

impl Task {
    fn text(&self, symbol: f64) -> Option<&str> {
        if symbol.is_nan() || symbol < 0.0 {
            return None;
        }
        self.strings.get(symbol as usize).map(String::as_str)
    }

    fn here(&self) -> Option<Point> {
        self.world.try_borrow().ok()?.position(self.agent)
    }
}

/// The word a command variant names.
fn word_of(commands: &EnumInfo, v: f64) -> Option<Word> {
    if v.is_nan() || v < 0.0 {
        return None;
    }
    Word::parse(commands.variants.get(v as usize)?)
}

struct Listen {
    task: Task,
    vocabulary: usize,
    utterance: usize,
}

impl Leaf for Listen {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        let Some(here) = self.task.here() else {
            return Status::Failure;
        };
        let Ok(mut mission) = self.task.mission.try_borrow_mut() else {
            return Status::Failure;
        };
        let Some(word) = mission.utterance(call.now_ms, here, self.task.goal) else {
            return Status::Failure;
        };
        let heard = call
            .lists
            .values(call.inputs[self.vocabulary])
            .iter()
            .copied()
            .find(|s| self.task.text(*s) == Some(word.text()));
        match heard {
            Some(symbol) => {
                call.outputs[self.utterance] = Some(symbol);
                Status::Success
            }
            None => Status::Failure,
        }
    }
}

/// `Interpret` and `ChatBot`.
struct Understand {
    task: Task,
    utterance: usize,
    command: usize,
    commands: EnumInfo,
    chat_only: bool,
}

impl Leaf for Understand {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        let word = self
            .task
            .text(call.inputs[self.utterance])
            .and_then(Word::parse);
        let word = word.filter(|w| !self.chat_only || w.chat());
        let variant = word.and_then(|w| {
            self.commands
                .variants
                .iter()
                .position(|v| v.eq_ignore_ascii_case(w.text()))
        });
        match variant {
            Some(i) => {
                call.outputs[self.command] = Some(i as f64);
                Status::Success
            }
            None => Status::Failure,
        }
    }
}

/// `Speak`: a sentence is said at once.
struct Said;

impl Leaf for Said {
    fn tick(&mut self, _: &mut LeafCall) -> Status {
        Status::Success
    }
}

struct SayNumber {
    task: Task,
    value: usize,
}

impl Leaf for SayNumber {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        let value = call.inputs[self.value];
        match self.task.mission.try_borrow_mut() {
            Ok(mut m) if value.is_finite() => {
                m.report = Some((value, call.now_ms));
                Status::Success
            }
            _ => Status::Failure,
        }
    }
}

struct Drive {
    task: Task,
    command: usize,
    commands: EnumInfo,
}

impl Leaf for Drive {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        let Some(word) = word_of(&self.commands, call.inputs[self.command]) else {
            return Status::Failure;
        };
        let Some((ux, uy)) = word.direction() else {
            return Status::Failure;
        };
        let Ok(mut w) = self.task.world.try_borrow_mut() else {
            return Status::Failure;
        };
        let Some(here) = w.position(self.task.agent) else {
            return Status::Failure;
        };
        let step = DRIVE_MPS * self.task.period_ms / 1000.0;
        // Far ahead in that direction, so the step steers round what is in the way.
        let ahead = Point::new(here.x + ux * 1000.0, here.y + uy * 1000.0);
        let _ = w.steer_toward(self.task.agent, ahead, step, true);
        match self.task.mission.try_borrow_mut() {
            Ok(mut m) => {
                m.moving = Some((word, call.now_ms));
                Status::Success
            }
            Err(_) => Status::Failure,
        }
    }
}

struct StopMotors {
    task: Task,
}

impl Leaf for StopMotors {
    fn tick(&mut self, _: &mut LeafCall) -> Status {
        match self.task.mission.try_borrow_mut() {
            Ok(mut m) => {
                m.moving = None;
                Status::Success
            }
            Err(_) => Status::Failure,
        }
    }
}

struct Transmit {
    task: Task,
}

impl Leaf for Transmit {
    fn tick(&mut self, call: &mut LeafCall) -> Status {
        let field = match self.task.world.try_borrow() {
            Ok(w) => w.field(FIELD, self.task.agent),
            Err(_) => None,
        };
        let Ok(mut m) = self.task.mission.try_borrow_mut() else {
            return Status::Failure;
        };
        let since_ms = match m.uplink {
            Uplink::Sending { since_ms } if !call.starting => since_ms,
            _ => {
                m.uplink = Uplink::Sending {
                    since_ms: call.now_ms,
                };
                call.now_ms
            }
        };
        if call.now_ms - since_ms < UPLINK_MS {
            return Status::Running;
        }
        if field.is_some_and(|f| f >= UPLINK_LEVEL) {
            m.uplink = Uplink::Sent;
            Status::Success
        } else {
            // Lost: the astronaut asks for a new reading.
            m.uplink = Uplink::Idle;
            m.report = None;
            Status::Failure
        }
    }

    fn halt(&mut self, _: f64) {
        if let Ok(mut m) = self.task.mission.try_borrow_mut() {
            if m.uplink != Uplink::Sent {
                m.uplink = Uplink::Idle;
            }
        }
    }
}

#[cfg(test)]
#[path = "astronaut_tests.rs"]
mod tests;
