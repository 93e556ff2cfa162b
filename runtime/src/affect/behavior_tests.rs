//! The arbiter on small programs: values from the formula, key allocation, preemption and
//! resumption, each policy, lateral inhibition.

use super::{Arbiter, ModuleStatus};
use crate::interp::Machine;
use crate::leaf::LeafTable;
use affect_compiler::ir::program::{AgentProgram, Program};
use affect_compiler::sema::NoFiles;
use ModuleStatus::*;

/// Trees the modules run: `Hold` runs until halted; `Finish` runs until `done` holds, then
/// succeeds; `Fail` fails at once; `Steps` counts its first step into `said` and waits, then
/// adds 10 for its second step.
const TREES: &str = r#"
tree Hold() { sleep(3600s) }
tree Finish(in done: bool) {
    invert { keep_running_until_failure { check not done } }
}
tree Fail() { fail }
tree Steps(inout said: num) {
    sequence_with_memory {
        do { said += 1 }
        sleep(10s)
        do { said += 10 }
        sleep(3600s)
    }
}
"#;

fn program(agent: &str) -> Program {
    let src = format!("{TREES}\n{agent}");
    let analysis = affect_compiler::check_source_with(&src, &NoFiles);
    analysis
        .program
        .unwrap_or_else(|| panic!("{src}\n{:#?}", analysis.diagnostics))
}

struct Rig<'p> {
    agent: &'p AgentProgram,
    m: Machine<'p>,
    b: Arbiter<'p>,
    now: f64,
}

impl<'p> Rig<'p> {
    fn new(p: &'p Program) -> Rig<'p> {
        let agent = &p.agents[0];
        let m = Machine::new(p, agent, LeafTable::new(agent.nodes.len()));
        let b = Arbiter::new(agent.behaviors.as_ref().expect("modules"), &agent.roots);
        Rig {
            agent,
            m,
            b,
            now: 0.0,
        }
    }

    fn set(&mut self, name: &str, v: f64) {
        let slot = self
            .agent
            .slots
            .iter()
            .position(|s| s.scope == 0 && s.name == name)
            .unwrap_or_else(|| panic!("no variable {name}"));
        self.m.write(slot as u32, v);
    }

    fn get(&self, name: &str) -> f64 {
        let slot = self
            .agent
            .slots
            .iter()
            .position(|s| s.scope == 0 && s.name == name)
            .unwrap();
        self.m.slots[slot]
    }

    /// One tick, 100 ms after the last.
    fn tick(&mut self) {
        self.now += 100.0;
        self.m.advance(self.now, false);
        self.m.now_ms = self.now;
        self.m.process();
        self.m.tick_tree();
        self.b.tick(&mut self.m);
    }

    fn module(&self, name: &str) -> u32 {
        self.b
            .spec()
            .modules
            .iter()
            .position(|m| m.name == name)
            .unwrap_or_else(|| panic!("no module {name}")) as u32
    }

    fn status(&self, name: &str) -> ModuleStatus {
        self.b.status(self.module(name))
    }

    fn statuses(&self) -> Vec<(String, ModuleStatus)> {
        self.b
            .spec()
            .modules
            .iter()
            .enumerate()
            .map(|(i, m)| (m.name.clone(), self.b.status(i as u32)))
            .collect()
    }

    /// The changes since the last call, as (module, from, to).
    fn changes(&mut self) -> Vec<(String, ModuleStatus, ModuleStatus)> {
        let spec = self.b.spec();
        self.b
            .changes
            .drain(..)
            .map(|c| (spec.modules[c.module as usize].name.clone(), c.from, c.to))
            .collect()
    }
}

#[test]
fn the_behaviour_value_is_the_formula_worked_by_hand() {
    // Rv = α·ΔS + (1 − α)(S + ΔS) = 0.25·20 + 0.75·(30 + 20) = 42.5
    // Bv = β·Mv + (1 − β)·Rv = 0.6·40 + 0.4·42.5 = 41
    let p = program(
        r#"
agent A {
    var mv: num = 40;
    behavior M {
        motivation mv;
        satisfaction 30;
        expected 20;
        alpha 0.25;
        beta 0.6;
        run Hold;
    }
    behavior Defaults {
        expected 30;
        run Hold;
    }
}
"#,
    );
    let mut r = Rig::new(&p);
    r.tick();
    assert!((r.b.value(r.module("M")) - 41.0).abs() < 1e-9);
    // Left out: Mv = S = 0, α = β = 0.5: Rv = 15 + 15, Bv = 0.5·30.
    assert!((r.b.value(r.module("Defaults")) - 15.0).abs() < 1e-9);
    // The motivation is read every tick.
    r.set("mv", 90.0);
    r.tick();
    assert!((r.b.value(r.module("M")) - 71.0).abs() < 1e-9);
}

#[test]
fn keys_go_to_the_highest_values_and_free_keys_to_anyone() {
    let p = program(
        r#"
agent A {
    behavior Play { expected 50; alpha 1; beta 0; keys legs, head; run Hold; }
    behavior Walk { expected 30; alpha 1; beta 0; keys legs; run Hold; }
    behavior Talk { expected 10; alpha 1; beta 0; keys voice; run Hold; }
    behavior Nothing { expected 0; alpha 1; beta 0; keys arms; run Hold; }
}
"#,
    );
    let mut r = Rig::new(&p);
    r.tick();
    assert_eq!(
        r.statuses(),
        vec![
            ("Play".into(), Running),
            ("Walk".into(), StoppedInitial),
            ("Talk".into(), Running),
            // Worth nothing: not run even with its key free.
            ("Nothing".into(), StoppedInitial),
        ]
    );
    let keys = &r.b.spec().keys;
    let legs = keys.iter().position(|k| k == "legs").unwrap();
    assert_ne!(r.b.held(r.module("Play")) & (1 << legs), 0);
    // A module that can start at once prepares and runs in the same tick.
    assert!(r
        .changes()
        .contains(&("Talk".into(), PreparingToRun, Running)));
}

#[test]
fn a_preempted_module_keeps_its_state_and_resumes_where_it_was() {
    let p = program(
        r#"
agent A {
    var said: num = 0;
    var urge: num = 0;
    behavior Chat { expected 50; alpha 1; beta 0; keys voice; run Steps(said: said); }
    behavior Shout { expected urge; alpha 1; beta 0; keys voice; run Hold; }
}
"#,
    );
    let mut r = Rig::new(&p);
    r.tick();
    assert_eq!(r.status("Chat"), Running);
    assert_eq!(r.get("said"), 1.0);
    r.changes();
    // A higher value needs the voice: Chat prepares to stop (its tree halted now), Shout
    // prepares to run and waits for the voice.
    r.set("urge", 90.0);
    r.tick();
    assert_eq!(r.status("Chat"), PreparingToStop);
    assert_eq!(r.status("Shout"), PreparingToRun);
    // Next tick the stop completes, the key is released and Shout runs.
    r.tick();
    assert_eq!(r.status("Chat"), StoppedPreserved);
    assert_eq!(r.status("Shout"), Running);
    // Shout's need passes: Chat resumes its conversation where it was (the first step is
    // not said again).
    r.set("urge", 0.0);
    r.tick();
    r.tick();
    assert_eq!(r.status("Chat"), Running);
    let changes = r.changes();
    assert!(
        changes.contains(&("Chat".into(), StoppedPreserved, PreparingToRun)),
        "{changes:?}"
    );
    assert_eq!(r.get("said"), 1.0);
    // Its second step comes when the first one's wait is over.
    for _ in 0..100 {
        r.tick();
    }
    assert_eq!(r.get("said"), 11.0);
}

#[test]
fn a_finished_module_starts_afresh() {
    let p = program(
        r#"
agent A {
    var said: num = 0;
    var done: bool = false;
    behavior Chat {
        expected 50;
        alpha 1;
        beta 0;
        keys voice;
        policy simultaneous;
        children Steps(said: said), Finish(done: done);
    }
}
"#,
    );
    let mut r = Rig::new(&p);
    r.tick();
    assert_eq!(r.get("said"), 1.0);
    r.set("done", 1.0);
    r.tick();
    // One child finished, so the simultaneous module did.
    assert!(r
        .changes()
        .contains(&("Chat".into(), Running, StoppedInitial)));
    r.set("done", 0.0);
    r.tick();
    assert_eq!(r.status("Chat"), Running);
    // Restarted from its initial state: the first step again.
    assert_eq!(r.get("said"), 2.0);
}

#[test]
fn simultaneous_runs_all_children_or_none() {
    let p = program(
        r#"
agent A {
    var rival: num = 0;
    behavior Pair {
        expected 40;
        alpha 1;
        beta 0;
        policy simultaneous;
        children Look, Talk;
        behavior Look { expected 5; alpha 1; beta 0; keys head; run Hold; }
        behavior Talk { expected 5; alpha 1; beta 0; keys voice; run Hold; }
    }
    behavior Rival { expected rival; alpha 1; beta 0; keys voice; run Hold; }
}
"#,
    );
    let mut r = Rig::new(&p);
    r.tick();
    assert_eq!(r.status("Pair/Look"), Running);
    assert_eq!(r.status("Pair/Talk"), Running);
    // The voice goes to a module worth more: the head alone is not enough for the pair.
    r.set("rival", 90.0);
    r.tick();
    r.tick();
    assert_eq!(r.status("Rival"), Running);
    assert_eq!(r.status("Pair"), StoppedPreserved);
    assert_eq!(r.status("Pair/Look"), StoppedPreserved);
    assert_eq!(r.status("Pair/Talk"), StoppedPreserved);
}

#[test]
fn one_simultaneous_child_stopping_stops_the_others() {
    let p = program(
        r#"
agent A {
    var fail: bool = false;
    behavior Chat {
        expected 40;
        alpha 1;
        beta 0;
        policy simultaneous;
        children Track, Talk;
        behavior Track { expected 5; alpha 1; beta 0; keys head; run Finish(done: fail); }
        behavior Talk { expected 5; alpha 1; beta 0; keys voice; run Hold; }
    }
}
"#,
    );
    let mut r = Rig::new(&p);
    r.tick();
    assert_eq!(r.status("Chat/Talk"), Running);
    r.set("fail", 1.0);
    r.tick();
    assert_eq!(
        r.statuses(),
        vec![
            ("Chat".into(), StoppedInitial),
            ("Chat/Track".into(), StoppedInitial),
            ("Chat/Talk".into(), StoppedInitial),
        ]
    );
}

#[test]
fn parallel_runs_as_many_children_as_the_keys_allow() {
    let p = program(
        r#"
agent A {
    var walked: bool = false;
    behavior Approach {
        expected 40;
        alpha 1;
        beta 0;
        keys legs;
        policy parallel;
        children Walk, Speak, Wave;
        behavior Walk {
            expected walked ? 0 : 20;
            alpha 1;
            beta 0;
            keys legs;
            run Finish(done: walked);
        }
        behavior Speak { expected 10; alpha 1; beta 0; keys voice; run Hold; }
        behavior Wave { expected 5; alpha 1; beta 0; keys legs; run Hold; }
    }
}
"#,
    );
    let mut r = Rig::new(&p);
    r.tick();
    assert_eq!(r.status("Approach/Walk"), Running);
    // An optional key beyond the parent's own.
    assert_eq!(r.status("Approach/Speak"), Running);
    // The legs are taken.
    assert_eq!(r.status("Approach/Wave"), StoppedInitial);
    // Walking is worth nothing any more: it stops, and waving gets the legs once they are
    // released; the parent goes on meanwhile.
    r.set("walked", 1.0);
    r.tick();
    assert_eq!(r.status("Approach/Walk"), PreparingToStop);
    assert_eq!(r.status("Approach/Wave"), PreparingToRun);
    r.tick();
    assert_eq!(r.status("Approach/Walk"), StoppedPreserved);
    assert_eq!(r.status("Approach/Wave"), Running);
    assert_eq!(r.status("Approach"), Running);
}

#[test]
fn the_main_child_decides_the_subtree() {
    let p = program(
        r#"
agent A {
    var kicked: bool = false;
    var searched: bool = false;
    behavior Soccer {
        expected 40;
        alpha 1;
        beta 0;
        keys legs, head;
        policy main(Kick);
        children Search, Kick;
        behavior Search { expected 30; alpha 1; beta 0; keys head; run Finish(done: searched); }
        behavior Kick { expected 60; alpha 1; beta 0; keys legs; run Finish(done: kicked); }
    }
}
"#,
    );
    let mut r = Rig::new(&p);
    r.tick();
    assert_eq!(r.status("Soccer/Search"), Running);
    assert_eq!(r.status("Soccer/Kick"), Running);
    // Another child finishing does not end the game.
    r.set("searched", 1.0);
    r.tick();
    assert_eq!(r.status("Soccer/Search"), StoppedInitial);
    assert_eq!(r.status("Soccer"), Running);
    r.set("searched", 0.0);
    r.tick();
    assert_eq!(r.status("Soccer/Search"), Running);
    // The main child finishing does, and stops the others.
    r.set("kicked", 1.0);
    r.tick();
    assert_eq!(
        r.statuses(),
        vec![
            ("Soccer".into(), StoppedInitial),
            ("Soccer/Search".into(), StoppedInitial),
            ("Soccer/Kick".into(), StoppedInitial),
        ]
    );
}

#[test]
fn a_parent_without_a_runnable_child_does_not_take_its_keys() {
    let p = program(
        r#"
agent A {
    behavior Soccer {
        expected 80;
        alpha 1;
        beta 0;
        keys legs;
        children Kick;
        behavior Kick { expected 0; alpha 1; beta 0; keys legs; run Hold; }
    }
    behavior Idle { expected 10; alpha 1; beta 0; keys legs; run Hold; }
}
"#,
    );
    let mut r = Rig::new(&p);
    r.tick();
    assert_eq!(r.status("Soccer"), StoppedInitial);
    assert_eq!(r.status("Idle"), Running);
}

/// Two modules wanting the legs, values alternating around each other; how often the
/// running module changes.
fn switches(inhibition: &str) -> usize {
    let p = program(&format!(
        r#"
agent A {{
    var a: num = 50;
    var b: num = 40;
    behavior First {{ expected a; alpha 1; beta 0; keys legs; run Hold; }}
    behavior Second {{ expected b; alpha 1; beta 0; keys legs; run Hold; }}
    behaviors {{ policy parallel; {inhibition} modules First, Second; }}
}}
"#
    ));
    let mut r = Rig::new(&p);
    r.tick();
    r.tick();
    assert_eq!(r.status("First"), Running);
    r.changes();
    let mut count = 0;
    for k in 0..40 {
        // Second is worth 3 more, then 3 less, in turn.
        r.set("b", if k % 4 < 2 { 53.0 } else { 47.0 });
        r.tick();
        count += r
            .changes()
            .iter()
            .filter(|(_, _, to)| *to == Running)
            .count();
    }
    count
}

#[test]
fn lateral_inhibition_keeps_close_values_from_flipping() {
    // 0.15 × 50 = 7.5: a module must be worth 7.5 more than the running one to take over.
    assert_eq!(switches("inhibition 0.15;"), 0);
    assert!(switches("") >= 10, "without inhibition the robot dithers");
}

#[test]
fn inhibition_still_lets_a_much_higher_value_through() {
    let p = program(
        r#"
agent A {
    var b: num = 0;
    behavior First { expected 50; alpha 1; beta 0; keys legs; run Hold; }
    behavior Second { expected b; alpha 1; beta 0; keys legs; run Hold; }
    behaviors { policy parallel; inhibition 0.15; modules First, Second; }
}
"#,
    );
    let mut r = Rig::new(&p);
    r.tick();
    // 57 − 7.5 < 50: not enough.
    r.set("b", 57.0);
    r.tick();
    r.tick();
    assert_eq!(r.status("First"), Running);
    // 58 − 7.5 > 50.
    r.set("b", 58.0);
    r.tick();
    r.tick();
    assert_eq!(r.status("Second"), Running);
    assert_eq!(r.status("First"), StoppedPreserved);
}

#[test]
fn a_module_whose_tree_fails_finishes() {
    let p = program(
        r#"
agent A {
    behavior Try { expected 50; alpha 1; beta 0; keys legs; run Fail; }
}
"#,
    );
    let mut r = Rig::new(&p);
    r.tick();
    let changes = r.changes();
    assert_eq!(
        changes,
        vec![
            ("Try".into(), StoppedInitial, PreparingToRun),
            ("Try".into(), PreparingToRun, Running),
            ("Try".into(), Running, StoppedInitial),
        ]
    );
}

#[test]
fn the_top_block_applies_its_main_policy() {
    let p = program(
        r#"
agent A {
    var done: bool = false;
    behavior Task { expected 50; alpha 1; beta 0; keys legs; run Finish(done: done); }
    behavior Chatter { expected 20; alpha 1; beta 0; keys voice; run Hold; }
    behaviors { policy main(Task); modules Task, Chatter; }
}
"#,
    );
    let mut r = Rig::new(&p);
    r.tick();
    assert_eq!(r.status("Chatter"), Running);
    r.set("done", 1.0);
    r.tick();
    // The main module finished: the others stop with it (and start afresh later).
    assert_eq!(r.status("Task"), StoppedInitial);
    assert_eq!(r.status("Chatter"), StoppedInitial);
}
