//! The astronaut's side of the conversation, step by step.

use super::*;

const GOAL: Point = Point { x: 10.0, y: 5.0 };

fn mission() -> Mission {
    Rc::try_unwrap(Mission::shared()).ok().unwrap().into_inner()
}

#[test]
fn the_astronaut_sends_the_robot_along_x_then_y_and_does_not_repeat_what_it_does() {
    let mut m = mission();
    let start = Point::new(0.0, 0.0);
    assert_eq!(m.utterance(0.0, start, GOAL), Some(Word::Right));
    // Not heard yet: said again only after REPEAT_MS.
    assert_eq!(m.utterance(1000.0, start, GOAL), None);
    assert_eq!(m.utterance(REPEAT_MS, start, GOAL), Some(Word::Right));
    // Driving right: nothing to say.
    m.moving = Some((Word::Right, 5000.0));
    assert_eq!(m.utterance(5000.0, Point::new(4.0, 0.0), GOAL), None);
    // Lined up with the goal: forward.
    m.moving = Some((Word::Right, 6000.0));
    assert_eq!(
        m.utterance(6000.0, Point::new(10.1, 0.0), GOAL),
        Some(Word::Forward)
    );
}

#[test]
fn near_the_goal_the_astronaut_stops_the_robot_asks_for_a_reading_and_transmits_on_a_strong_one() {
    let mut m = mission();
    let there = Point::new(10.1, 5.1);
    m.moving = Some((Word::Forward, 1000.0));
    assert_eq!(m.utterance(1000.0, there, GOAL), Some(Word::Stop));
    m.moving = None;
    assert_eq!(m.utterance(2000.0, there, GOAL), Some(Word::Report));
    // A weak reading: asked for again REPORT_AGAIN_MS later.
    m.report = Some((30.0, 3000.0));
    assert_eq!(m.utterance(4000.0, there, GOAL), None);
    assert_eq!(
        m.utterance(3000.0 + REPORT_AGAIN_MS, there, GOAL),
        Some(Word::Report)
    );
    m.report = Some((UPLINK_LEVEL + 1.0, 14_000.0));
    assert_eq!(m.utterance(14_500.0, there, GOAL), Some(Word::Transmit));
    // While the data goes out, and after, nothing more.
    m.uplink = Uplink::Sending { since_ms: 15_000.0 };
    assert_eq!(m.utterance(20_000.0, there, GOAL), None);
}

#[test]
fn words_name_command_variants_whatever_their_case() {
    assert_eq!(Word::parse("Forward"), Some(Word::Forward));
    assert_eq!(Word::parse("transmit"), Some(Word::Transmit));
    assert_eq!(Word::parse("fly"), None);
    assert!(Word::Stop.chat() && !Word::Transmit.chat());
}
