//! The CARS leaves end to end: commands between robots, locating, walking and driving in
//! an area (`area_leaves`, `mail`).

use crate::run::{run, RunConfig};
use crate::trace::JsonLines;
use affect_compiler::sema::NoFiles;
use serde_json::Value;

/// The leaves, two robots and a clone nobody addresses, in a 50 × 50 ft hall.
const HALL: &str = r#"
enum Command { Idle, Refill, Hurry, GoHome }

action SendCommand(in robot: str, in command: Command);
action Locate(in robot: str, out position: Point);
action RandomWalk(in speed: num);
action GoTo(in goal: Point, in speed: num);
action Stop();
action Say(in text: str);
condition Near(in robot: str, in range: length = 4ft);

agent Boss {
    rate 10Hz;
    var sent: bool = false;
    var helper: str = "Helper";
    sensor position: Point = odometry();
    sensor gap: length = distance_to(robot: helper);

    main {
        sequence {
            SendCommand(robot: helper, command: Command::Refill) skip_if sent on_success {
                sent = true;
            }
            Say(text: "hello")
            RandomWalk(speed: 1)
        }
    }
}

agent Helper {
    rate 10Hz;
    var command: Command = Command::Idle;
    var target: Point = (0m, 0m);
    sensor position: Point = odometry();

    main {
        switch command {
            Command::Idle => Stop()
            Command::Refill => sequence {
                Locate(robot: "Boss", position: target)
                GoTo(goal: target, speed: 2)
            }
            _ => Stop()
        }
    }
}

agent Twin = Helper;

world Hall {
    area 50ft x 50ft cell 2ft;
    obstacle table at (25ft, 49ft) size 4ft x 2ft;
    spawn Boss at (25ft, 25ft);
    spawn Helper at (25ft, 45ft);
    spawn Twin at (5ft, 45ft);
    ticks 300;
    seed 1;
}
"#;

const FT: f64 = 0.3048;

fn trace_of(src: &str, config: &RunConfig) -> (String, Vec<Value>) {
    let analysis = affect_compiler::check_source_with(src, &NoFiles);
    let program = analysis
        .program
        .unwrap_or_else(|| panic!("{:#?}", analysis.diagnostics));
    let mut sink = JsonLines::new(Vec::new());
    run(&program, config, &mut sink, |_| {}).unwrap_or_else(|d| panic!("{d:#?}"));
    let text = String::from_utf8(sink.into_inner()).unwrap();
    let lines = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (text, lines)
}

fn config(ticks: u64) -> RunConfig {
    RunConfig {
        ticks,
        seed: 1,
        ..RunConfig::default()
    }
}

/// Every value `name` of `agent` took, in order, with its time (the first is the value
/// before the first tick).
fn var<'a>(lines: &'a [Value], agent: &str, name: &str) -> Vec<(f64, &'a Value)> {
    lines
        .iter()
        .filter(|l| l["ev"] == "var" && l["agent"] == agent && l["name"] == name)
        .map(|l| (l["t_ms"].as_f64().unwrap(), &l["value"]))
        .collect()
}

fn point(v: &Value) -> (f64, f64) {
    (v[0].as_f64().unwrap(), v[1].as_f64().unwrap())
}

fn dist(a: (f64, f64), b: (f64, f64)) -> f64 {
    ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt()
}

#[test]
fn a_command_reaches_the_robot_it_names_and_no_other() {
    let (_, lines) = trace_of(HALL, &config(300));
    let msgs: Vec<&Value> = lines.iter().filter(|l| l["ev"] == "msg").collect();
    assert_eq!(msgs.len(), 1, "{msgs:?}");
    assert_eq!(msgs[0]["agent"], "Boss");
    assert_eq!(msgs[0]["from"], "Boss");
    assert_eq!(msgs[0]["to"], "Helper");
    assert_eq!(msgs[0]["kind"], "Refill");
    // Delivered before the helper's tick of the same time (it ticks after Boss).
    let cmd = var(&lines, "Helper", "command");
    assert_eq!(cmd.len(), 2, "the initial value, then Refill: {cmd:?}");
    assert_eq!(cmd[1].1, "Refill");
    assert_eq!(cmd[1].0, msgs[0]["t_ms"].as_f64().unwrap());
    // The clone answers only to her own name: never commanded, never moving.
    assert_eq!(var(&lines, "Twin", "command").len(), 1);
    assert_eq!(
        var(&lines, "Twin", "position").len(),
        2,
        "before and at the first tick"
    );
    // Say writes its sentence.
    assert!(lines
        .iter()
        .any(|l| l["ev"] == "log" && l["agent"] == "Boss" && l["text"] == "hello"));
}

#[test]
fn a_helper_drives_toward_the_robot_it_locates_and_the_walker_keeps_walking() {
    let (_, lines) = trace_of(HALL, &config(300));
    // Positions as sensed from the first tick on.
    let helper = var(&lines, "Helper", "position")[1..].to_vec();
    let boss = var(&lines, "Boss", "position")[1..].to_vec();
    assert!(helper.len() > 50 && boss.len() > 50);
    let start = point(helper[0].1);
    assert!(dist(start, (25.0 * FT, 45.0 * FT)) < 1e-9);
    // Never faster than 2 ft/s: 0.2 ft a tick.
    for w in helper.windows(2) {
        let step = dist(point(w[0].1), point(w[1].1));
        assert!(step <= 0.2 * FT + 1e-9, "a step of {step} m");
    }
    for w in boss.windows(2) {
        let step = dist(point(w[0].1), point(w[1].1));
        assert!(step <= 0.1 * FT + 1e-9, "a step of {step} m");
    }
    // The helper ends up near the walker: within a body and a bit.
    let (h, b) = (
        point(helper.last().unwrap().1),
        point(boss.last().unwrap().1),
    );
    assert!(dist(h, b) < 4.0 * FT, "helper {h:?} boss {b:?}");
    // RandomWalk never finishes: the boss's root keeps running.
    let walk_done = lines.iter().any(|l| {
        l["ev"] == "node"
            && l["agent"] == "Boss"
            && l["path"].as_str().unwrap().starts_with("RandomWalk")
            && (l["to"] == "SUCCESS" || l["to"] == "FAILURE")
    });
    assert!(!walk_done);
    // Everybody stays in the hall.
    for (_, p) in boss.iter().chain(&helper) {
        let (x, y) = point(p);
        assert!((0.0..=50.0 * FT).contains(&x) && (0.0..=50.0 * FT).contains(&y));
    }
    // The distance sensor follows the helper.
    let gaps = var(&lines, "Boss", "gap");
    assert!(gaps.last().unwrap().1.as_f64().unwrap() < 4.0 * FT);
}

#[test]
fn the_same_seed_gives_the_same_trace_and_another_seed_another() {
    let (a, _) = trace_of(HALL, &config(200));
    let (b, _) = trace_of(HALL, &config(200));
    assert_eq!(a, b);
    let (c, _) = trace_of(
        HALL,
        &RunConfig {
            seed: 2,
            ..config(200)
        },
    );
    assert_ne!(a, c, "the random walk follows the seed");
}

#[test]
fn a_command_line_variable_can_be_set_on_one_agent_only() {
    let analysis = affect_compiler::check_source_with(HALL, &NoFiles);
    let program = analysis.program.unwrap();
    let run_with = |bb: &[(&str, &str)]| {
        let cfg = RunConfig {
            bb: bb
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            // No tick: the values as set, before Boss sends its command.
            ..config(0)
        };
        run(&program, &cfg, &mut crate::trace::NoTrace, |_| {})
    };
    let value = |out: &[crate::run::AgentSummary], agent: &str, var: &str| {
        let a = out.iter().find(|s| s.agent == agent).unwrap();
        a.variables
            .iter()
            .find(|(n, _)| n == var)
            .unwrap()
            .1
            .clone()
    };
    // Plain: every agent with the key (Helper and its clone Twin).
    let out = run_with(&[("target", "x")]);
    assert!(out.is_err(), "a point cannot be set from the command line");
    let out = run_with(&[("command", "Hurry")]).unwrap();
    assert_eq!(value(&out, "Helper", "command"), "Hurry");
    assert_eq!(value(&out, "Twin", "command"), "Hurry");
    // Scoped: that agent only, by program or instance name.
    let out = run_with(&[("Twin.command", "GoHome")]).unwrap();
    assert_eq!(value(&out, "Helper", "command"), "Idle");
    assert_eq!(value(&out, "Twin", "command"), "GoHome");
    // A scoped key the agent does not have is an error, with a suggestion.
    let err = run_with(&[("Twin.comand", "GoHome")]).unwrap_err();
    assert_eq!(err[0].code, "E0602");
    // A dotted key that names no agent is a key like any other.
    assert!(run_with(&[("nobody.x", "1")]).is_ok());
}

#[test]
fn a_variable_set_on_the_command_line_redirects_commands_and_the_distance_sensor() {
    let cfg = RunConfig {
        bb: vec![("helper".into(), "Twin".into())],
        ..config(100)
    };
    let (_, lines) = trace_of(HALL, &cfg);
    let msg = lines.iter().find(|l| l["ev"] == "msg").unwrap();
    assert_eq!(msg["to"], "Twin");
    assert_eq!(var(&lines, "Twin", "command")[1].1, "Refill");
    assert_eq!(var(&lines, "Helper", "command").len(), 1);
    let gap = var(&lines, "Boss", "gap")[1].1.as_f64().unwrap();
    assert!(
        (gap - dist((25.0, 25.0), (5.0, 45.0)) * FT).abs() < 1e-6,
        "{gap}"
    );
}

#[test]
fn addressing_nobody_fails_and_a_bad_goal_or_speed_fails() {
    let src = r#"
enum Command { Idle, Go }
action SendCommand(in robot: str, in command: Command);
action GoTo(in goal: Point, in speed: num);
action Locate(in robot: str, out position: Point);
condition Near(in robot: str, in range: length);
action RandomWalk(in speed: num);

agent A {
    rate 10Hz;
    var empty: Point = (1m, 1m);
    var corner: Point = (1m, 1m);
    var n: int = 0;

    main {
        sequence {
            invert { SendCommand(robot: "Nobody", command: Command::Go) }
            invert { Locate(robot: "Nobody", position: empty) }
            invert { Near(robot: "Nobody", range: 100m) }
            invert { GoTo(goal: corner, speed: -1) }
            invert { RandomWalk(speed: -1) }
            do { n = n + 1 }
        }
    }
}

world W {
    area 10m x 10m;
    spawn A at (5m, 5m);
    ticks 3;
}
"#;
    let (_, lines) = trace_of(src, &config(3));
    let n = var(&lines, "A", "n");
    assert_eq!(
        n.last().unwrap().1,
        3,
        "every tick: five failures: {lines:#?}"
    );
}

#[test]
fn go_to_arrives_within_a_foot_and_a_goal_inside_an_obstacle_from_beside_it() {
    let src = r#"
action GoTo(in goal: Point, in speed: num);
action Stop();

agent A {
    rate 10Hz;
    var arrived: int = 0;
    var left: Point = (2m, 5m);
    var wall: Point = (8m, 5m);
    sensor position: Point = odometry();

    main {
        sequence {
            GoTo(goal: left, speed: 1)
            do { arrived = arrived + 1 }
            GoTo(goal: wall, speed: 1)
            Stop()
        }
    }
}

world W {
    area 10m x 10m;
    obstacle wall at (8m, 5m) size 1m;
    spawn A at (5m, 5m);
    ticks 200;
}
"#;
    let (_, lines) = trace_of(src, &config(200));
    let arrived = var(&lines, "A", "arrived");
    // (The sequence then goes on to the wall and starts over: it arrives again later.)
    assert!(arrived.len() >= 2, "arrives: {arrived:?}");
    // 3 m at 1 m/s, within 0.3 m: 27 ticks or so.
    let t = arrived[1].0;
    assert!((2600.0..=2800.0).contains(&t), "arrived at {t} ms");
    // Where it stood when it reached the wall: the last place before it turned back.
    let pos = var(&lines, "A", "position");
    let last = pos
        .iter()
        .map(|(_, p)| point(p))
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .unwrap();
    // The wall's edge is at 7.5 m, the body half a metre wide: it stops at 7.25 m at most,
    // and that is beside the wall that stands on its goal (within a body and a foot).
    assert!(
        last.0 <= 7.25 + 1e-9 && last.0 >= 8.0 - 0.5 - 0.3048,
        "{last:?}"
    );
    let succeeded = lines
        .iter()
        .filter(|l| l["ev"] == "node" && l["path"].as_str().unwrap().starts_with("GoTo"))
        .filter(|l| l["to"] == "SUCCESS")
        .count();
    assert!(succeeded >= 2, "the goal in the wall is reached beside it");
    assert!(lines.iter().any(|l| l["ev"] == "node"
        && l["path"].as_str().unwrap().starts_with("Stop")
        && l["to"] == "SUCCESS"));
}

#[test]
fn leaves_with_ports_that_do_not_fit_run_as_stand_ins() {
    let src = r#"
action GoTo(in goal: num);
action Say(in words: str);

agent A {
    rate 10Hz;

    main { sequence { GoTo(goal: 1) Say(words: "x") } }
}

world W {
    area 10m x 10m;
    spawn A at (5m, 5m);
    ticks 2;
}
"#;
    let analysis = affect_compiler::check_source_with(src, &NoFiles);
    let program = analysis.program.unwrap();
    let mut sink = crate::trace::NoTrace;
    let out = run(&program, &config(2), &mut sink, |_| {}).unwrap();
    assert_eq!(
        out[0].stand_ins,
        vec!["GoTo".to_string(), "Say".to_string()]
    );
}
