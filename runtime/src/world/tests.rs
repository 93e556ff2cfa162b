use super::*;
use crate::test_support::{world, world_spec as spec};

const FLOOR: &str = r#"world FloorGrid {
    grid 5 x 5 cell 24cm labels "OITWG / SDA.U / HXKVN / CMFRE / PQLBJ";
    field light = 50 { near O radius 2: 90; at X: 10; at K: 10; }
    field sound = 50 { near J radius 1: 80; }
    spawn Navigator at P;
    spawn Other at C;
    at 40s raise loud_noise on Navigator;
    ticks 600;
    seed 7;
}"#;

fn id(w: &World, name: &str) -> AgentId {
    w.agent_by_name(name).expect("an agent")
}

// ------------------------------------------------------------------ grids

#[test]
fn grid_agents_stand_on_labels() {
    let w = world(FLOOR);
    let nav = id(&w, "Navigator");
    assert_eq!(w.label_at(nav), Some('P'));
    assert_eq!(w.cell_of(nav), Some(Cell { col: 0, row: 4 }));
    let p = w.position(nav).unwrap();
    assert!(
        (p.x - 0.12).abs() < 1e-12 && (p.y - 0.12).abs() < 1e-12,
        "bottom-left cell centre"
    );
    assert_eq!(w.label_at(id(&w, "Other")), Some('C'));
}

#[test]
fn grid_moves_are_blocked_by_edges_blanks_and_occupants() {
    let mut w = world(FLOOR);
    let nav = id(&w, "Navigator");
    let other = id(&w, "Other");
    assert_eq!(w.try_move(nav, Direction::Left), Err(Blocked::Edge));
    assert_eq!(w.try_move(nav, Direction::Down), Err(Blocked::Edge));
    assert_eq!(
        w.try_move(nav, Direction::Up),
        Err(Blocked::Agent(other)),
        "C is taken"
    );
    assert_eq!(w.label_at(nav), Some('P'), "a blocked move is not made");
    assert_eq!(
        w.try_move(nav, Direction::Right).map(|c| w.label_of(c)),
        Ok(Some('Q'))
    );
    assert_eq!(w.label_at(nav), Some('Q'));
    // Walk to A, next to the blank cell.
    for d in [
        Direction::Up,
        Direction::Right,
        Direction::Up,
        Direction::Up,
    ] {
        w.try_move(nav, d).unwrap();
    }
    assert_eq!(w.label_at(nav), Some('A'));
    assert_eq!(w.try_move(nav, Direction::Right), Err(Blocked::Blank));
    assert_eq!(
        w.try_move(nav, Direction::Up).map(|c| w.label_of(c)),
        Ok(Some('T'))
    );
}

#[test]
fn grid_fields() {
    let w = world(FLOOR);
    let light = |label: char| {
        w.field_at(
            "light",
            w.spec()
                .grid()
                .unwrap()
                .centre(w.cell_of_label(label).unwrap()),
        )
    };
    // Within two cells of O (Euclidean): O, I, T, S, D, H.
    for l in ['O', 'I', 'T', 'S', 'D', 'H'] {
        assert_eq!(light(l), Some(90.0), "{l}");
    }
    for l in ['W', 'A', 'C', 'P'] {
        assert_eq!(light(l), Some(50.0), "{l}");
    }
    assert_eq!(light('X'), Some(10.0));
    assert_eq!(light('K'), Some(10.0));
    let nav = id(&w, "Navigator");
    assert_eq!(w.field("sound", nav), Some(50.0));
    assert_eq!(w.field("light", nav), Some(50.0));
    assert_eq!(w.field("smell", nav), None);
}

#[test]
fn shortest_paths_and_all_paths() {
    let w = world(FLOOR);
    assert_eq!(w.shortest_path('P', 'O'), Some(vec!['C', 'H', 'S', 'O']));
    assert_eq!(w.shortest_path('P', 'J'), Some(vec!['Q', 'L', 'B', 'J']));
    assert_eq!(w.shortest_path('P', 'P'), Some(vec![]));
    // Around the blank cell: Up is tried first.
    assert_eq!(w.shortest_path('A', 'U'), Some(vec!['T', 'W', 'G', 'U']));
    assert_eq!(w.shortest_path('A', 'Z'), None);
    let paths = w.paths_between('A', 'U', 2, 100);
    assert_eq!(paths[0], vec!['T', 'W', 'G', 'U']);
    assert_eq!(paths[1], vec!['K', 'V', 'N', 'U']);
    assert!(
        paths.windows(2).all(|p| p[0].len() <= p[1].len()),
        "shortest first"
    );
    assert!(paths.iter().all(|p| p.len() <= 6 && p.last() == Some(&'U')));
    assert_eq!(w.paths_between('A', 'U', 2, 1).len(), 1);
    let c = |l| w.cell_of_label(l).unwrap();
    assert_eq!(w.direction_between(c('P'), c('C')), Some(Direction::Up));
    assert_eq!(w.direction_between(c('P'), c('Q')), Some(Direction::Right));
    assert_eq!(w.direction_between(c('P'), c('J')), None);
    let n: Vec<Direction> = w.neighbours(c('A')).into_iter().map(|(d, _)| d).collect();
    assert_eq!(
        n,
        vec![Direction::Up, Direction::Down, Direction::Left],
        "not into the blank"
    );
}

#[test]
fn grid_obstacles_ahead_are_agents() {
    let w = world(FLOOR);
    let nav = id(&w, "Navigator");
    assert!(
        w.obstacle_ahead(nav, Direction::Up, 0.20),
        "Other on C, the adjacent cell"
    );
    assert!(!w.obstacle_ahead(nav, Direction::Right, 0.20));
    assert!(
        !w.obstacle_ahead(nav, Direction::Left, 0.20),
        "the edge is not an obstacle"
    );
}

#[test]
fn scripted_events_fire_in_their_step() {
    let mut w = world(FLOOR);
    let mut fired = Vec::new();
    for _ in 0..600 {
        w.step(100);
        for e in w.fired_events() {
            fired.push((w.now_ms(), e.clone()));
        }
    }
    assert_eq!(fired.len(), 1);
    let (after, e) = &fired[0];
    assert_eq!(
        (e.at_ms, *after),
        (40_000, 40_000),
        "fires in the step that reaches 40 s"
    );
    match &e.action {
        EventAction::Raise { event, agent } => {
            assert_eq!(event.name, "loud_noise");
            assert_eq!(w.targets(agent.as_ref()), vec![id(&w, "Navigator")]);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_event_at_zero_fires_in_the_first_step() {
    let src = r#"world W {
        area 10m x 10m;
        spawn A at (1m, 1m);
        at 0s raise bell on A;
        at 100ms raise bell on A;
    }"#;
    let mut w = world(src);
    w.step(0);
    let first: Vec<u64> = w.fired_events().iter().map(|e| e.at_ms).collect();
    w.step(100);
    let second: Vec<u64> = w.fired_events().iter().map(|e| e.at_ms).collect();
    assert_eq!((first, second), (vec![0], vec![100]));
}

#[test]
fn recurring_events_are_reproducible() {
    let src = r#"world W {
        area 10m x 10m;
        spawn A at (1m, 1m);
        raise treat_taken on A every exponential(mean: 4s);
        at 10s raise bell every 10s until 35s;
        seed 2000;
    }"#;
    let run = || {
        let mut w = world(src);
        let mut times = Vec::new();
        for _ in 0..6000 {
            w.step(100);
            times.extend(w.fired_events().iter().map(|e| (e.at_ms, e.source)));
        }
        times
    };
    let a = run();
    assert_eq!(a, run());
    let treats = a.iter().filter(|(_, s)| *s == 0).count();
    assert!(
        (110..=190).contains(&treats),
        "about 600 s / 4 s, got {treats}"
    );
    let bells: Vec<u64> = a.iter().filter(|(_, s)| *s == 1).map(|(t, _)| *t).collect();
    assert_eq!(bells, vec![10_000, 20_000, 30_000]);
    assert!(a.windows(2).all(|p| p[0].0 <= p[1].0), "in time order");
}

#[test]
fn fields_drift_reproducibly() {
    let src = r#"world W {
        area 30m x 30m;
        field strength = 20 { near (22m, 25m) radius 4m: 90; drift 5 every 30s; }
        spawn P at (22m, 25m);
        spawn Q at (3m, 3m);
        seed 1;
    }"#;
    let sample = || {
        let mut w = world(src);
        let p = id(&w, "P");
        let q = id(&w, "Q");
        assert_eq!(w.field("strength", p), Some(90.0));
        assert_eq!(w.field("strength", q), Some(20.0));
        let mut values = Vec::new();
        for _ in 0..1000 {
            w.step(100);
            values.push(w.field("strength", q).unwrap());
        }
        values
    };
    let a = sample();
    assert_eq!(a, sample());
    assert_eq!(a[0], 20.0, "no drift before 30 s");
    assert_ne!(a[299], 20.0, "drifted at 30 s");
    assert!(
        a.iter().all(|v| (v - 20.0).abs() <= 5.0 * 4.0),
        "at most four steps of 5"
    );
}

// ------------------------------------------------------------------ areas

const HALL: &str = r#"world ReceptionHall {
    area 50ft x 50ft cell 2ft;
    obstacle food_table at (25ft, 49ft) size 4ft x 2ft;
    guests 100 speed triangular(min: 0.5, mode: 1.5, max: 3) duration triangular(min: 2s, mode: 6s, max: 15s) pause triangular(min: 1s, mode: 4s, max: 20s);
    spawn Butler at (25ft, 25ft);
    spawn Leguin at (25ft, 47ft);
    spawn Vonda at (21ft, 47ft);
    seed 2000;
}"#;

fn no_overlaps(w: &World) {
    let side = w.spec().area().unwrap().body_m;
    let g = w.guests();
    for i in 0..g.len() {
        for j in i + 1..g.len() {
            assert!(
                !geometry::squares_overlap(g[i], g[j], side),
                "guests {i} and {j} overlap"
            );
        }
        for a in w.agents() {
            assert!(
                !geometry::squares_overlap(g[i], a.position, side),
                "guest {i} on {}",
                a.name
            );
        }
    }
}

#[test]
fn guests_draw_within_their_distributions() {
    let w = world(HALL);
    let ft = 0.3048;
    assert_eq!(w.guests().len(), 100);
    for walk in w.guest_walks() {
        let (speed, left) = walk.expect("every guest starts walking");
        assert!((0.5 * ft..=3.0 * ft).contains(&speed), "speed {speed}");
        assert!((2.0..=15.0).contains(&left), "duration {left}");
    }
    let area = w.spec().area().unwrap();
    for g in w.guests() {
        assert!((0.0..=area.width_m).contains(&g.x) && (0.0..=area.height_m).contains(&g.y));
    }
    no_overlaps(&w);
}

#[test]
fn guests_walk_pause_and_never_overlap() {
    let mut w = world(HALL);
    let start = w.guests();
    let mut paused = 0;
    for step in 0..1200 {
        w.step(100);
        if step % 100 == 0 {
            no_overlaps(&w);
        }
        paused += w.guest_walks().iter().filter(|g| g.is_none()).count();
        for walk in w.guest_walks().into_iter().flatten() {
            assert!(walk.1 <= 15.0);
        }
    }
    no_overlaps(&w);
    assert!(paused > 0, "guests pause");
    let moved = start
        .iter()
        .zip(w.guests())
        .filter(|(a, b)| a.distance(*b) > 1.0)
        .count();
    assert!(moved > 50, "most guests moved, {moved}");
    let table = w.spec().area().unwrap().obstacles[0].shape;
    let side = w.spec().area().unwrap().body_m;
    assert!(w
        .guests()
        .iter()
        .all(|g| !geometry::square_hits_shape(*g, side, &table)));
}

#[test]
fn two_runs_with_one_seed_are_identical() {
    let run = |seed: u64| {
        let src = HALL.replace("seed 2000", &format!("seed {seed}"));
        let mut w = world(&src);
        let butler = id(&w, "Butler");
        for _ in 0..500 {
            w.step(100);
            let _ = w.move_toward(butler, Point::new(5.0, 5.0), 0.5, 100);
        }
        let mut bits: Vec<u64> = w
            .guests()
            .iter()
            .flat_map(|p| [p.x.to_bits(), p.y.to_bits()])
            .collect();
        let b = w.position(butler).unwrap();
        bits.extend([b.x.to_bits(), b.y.to_bits()]);
        bits
    };
    assert_eq!(run(2000), run(2000));
    assert_ne!(run(2000), run(2001));
}

const YARD: &str = r#"world Yard {
    area 10m x 10m cell 1m;
    obstacle crate at (5m, 8m) size 2m x 2m;
    obstacle post at (8m, 2m) radius 0.5m;
    spawn A at (1m, 1m);
    spawn B at (3m, 1m);
    spawn C at (5m, 5m);
}"#;

#[test]
fn area_moves_are_not_made_into_occupied_spots() {
    let mut w = world(YARD);
    let (a, b, c) = (id(&w, "A"), id(&w, "B"), id(&w, "C"));
    // A walks right toward B: it stops short of overlapping.
    let mut outcome = Ok(MoveOutcome::Moving);
    for _ in 0..20 {
        outcome = w.move_toward(a, Point::new(6.0, 1.0), 1.0, 100);
        if outcome.is_err() {
            break;
        }
    }
    assert_eq!(outcome, Err(Blocked::Agent(b)));
    let pa = w.position(a).unwrap();
    assert!(
        pa.x <= 2.0 + 1e-9 && pa.x > 1.8,
        "stopped next to B at {pa:?}"
    );
    // C walks up into the crate.
    let mut last = Ok(MoveOutcome::Moving);
    for _ in 0..40 {
        last = w.move_toward(c, Point::new(5.0, 8.0), 1.0, 100);
        if last.is_err() {
            break;
        }
    }
    assert_eq!(last, Err(Blocked::Obstacle(0)));
    // Walls.
    assert_eq!(w.try_move_to(b, Point::new(3.0, -0.1)), Err(Blocked::Edge));
    // Arrival.
    let mut w = world(YARD);
    let c = id(&w, "C");
    let mut arrived = false;
    for _ in 0..30 {
        if w.move_toward(c, Point::new(5.0, 3.0), 1.0, 100) == Ok(MoveOutcome::Arrived) {
            arrived = true;
            break;
        }
    }
    assert!(arrived);
    assert_eq!(w.position(c), Some(Point::new(5.0, 3.0)));
    assert_eq!(w.try_move(c, Direction::Up), Err(Blocked::WrongWorld));
}

#[test]
fn airborne_agents_pass_over_others() {
    let mut w = world(YARD);
    let (a, b) = (id(&w, "A"), id(&w, "B"));
    w.set_airborne(a, true);
    assert_eq!(w.try_move_to(a, Point::new(3.0, 1.0)), Ok(()));
    assert_eq!(w.distance(a, b), Some(0.0));
    // Agents that overlap may move apart.
    w.set_airborne(a, false);
    assert_eq!(w.try_move_to(a, Point::new(2.5, 1.0)), Ok(()));
}

#[test]
fn obstacles_ahead_in_an_area() {
    let w = world(YARD);
    let (a, c) = (id(&w, "A"), id(&w, "C"));
    assert!(
        w.obstacle_ahead(a, Direction::Right, 1.2),
        "B is 2 m away: 1.5 m to its edge... within 1.2 m of A's front"
    );
    assert!(!w.obstacle_ahead(a, Direction::Right, 0.4));
    assert!(w.obstacle_ahead(a, Direction::Left, 1.0), "the wall");
    assert!(!w.obstacle_ahead(a, Direction::Up, 3.0));
    assert!(
        w.obstacle_ahead(c, Direction::Up, 1.6),
        "the crate's edge is 2 m up, C's front 0.5 m up"
    );
    assert!(!w.obstacle_ahead(c, Direction::Up, 1.0));
}

#[test]
fn nearest_guest_and_distances() {
    let w = world(HALL);
    let butler = id(&w, "Butler");
    let near = w.nearest_guest(butler).expect("a guest");
    let p = w.position(butler).unwrap();
    for g in w.guests() {
        assert!(p.distance(g) >= near.distance);
    }
    assert_eq!(near.position, w.guests()[near.index]);
    let (leguin, vonda) = (id(&w, "Leguin"), id(&w, "Vonda"));
    assert!((w.distance(leguin, vonda).unwrap() - 4.0 * 0.3048).abs() < 1e-9);
}

#[test]
fn several_instances_of_one_program() {
    let w = world(
        r#"world Minefield {
        area 100 x 100;
        spawn UAV at (0, 0);
        spawn UGV at (0, 0) tasked true;
        spawn UGV at (50, 0);
        spawn UGV count 10 at random;
        seed 66;
    }"#,
    );
    assert_eq!(w.agents().len(), 13);
    let names: Vec<&str> = w.agents().iter().map(|a| a.name.as_str()).collect();
    assert_eq!(&names[..4], ["UAV", "UGV#1", "UGV#2", "UGV#3"]);
    assert_eq!(w.agent_by_name("UGV#2"), Some(AgentId(2)));
    assert_eq!(w.agent_by_name("UGV"), Some(AgentId(1)));
    let ugv = NameRef {
        name: "UGV".into(),
        span: Default::default(),
    };
    assert_eq!(w.targets(Some(&ugv)).len(), 12);
    assert_eq!(w.targets(None).len(), 13);
    assert_eq!(w.agents()[1].init[0].0.name, "tasked");
    let area = w.spec().area().unwrap();
    for a in &w.agents()[3..] {
        assert!(a.position.x > 0.0 && a.position.x < area.width_m);
    }
}

#[test]
fn a_crowded_world_reports_no_room() {
    let mut s = spec("world W { grid 2 x 1 cell 1m labels \"AB\"; spawn X count 2 at random; }");
    s.spawns[0].count = 3;
    assert!(matches!(World::new(&s), Err(WorldError::NoRoom(_))));
}

// ------------------------------------------------------------------ messages

const FIELD: &str = r#"world Minefield {
    area 100 x 100;
    messages broadcast loss 0.5 range 30 latency 2s;
    spawn UAV at (0, 0);
    spawn UGV at (10, 0);
    spawn UGV at (20, 0);
    spawn UGV at (90, 90);
    seed 66;
}"#;

#[test]
fn messages_respect_range_latency_and_loss() {
    let mut s = spec(FIELD);
    s.messages.loss = 0.0;
    let mut w = World::new(&s).unwrap();
    let mut bus: MessageBus<&str> = MessageBus::for_world(&w);
    let uav = AgentId(0);
    assert_eq!(
        bus.send(&w, uav, Recipient::Broadcast, "HELP"),
        2,
        "the far UGV is out of range"
    );
    assert_eq!(bus.stats().out_of_range, 1);
    assert!(bus.receive(&w, AgentId(1)).is_empty(), "still in flight");
    w.step(2000);
    let got = bus.receive(&w, AgentId(1));
    assert_eq!(got.len(), 1);
    assert_eq!(
        (got[0].from, got[0].payload, got[0].sent_ms),
        (uav, "HELP", 0)
    );
    assert!(bus.receive(&w, AgentId(1)).is_empty(), "delivered once");
    assert_eq!(bus.receive(&w, AgentId(2)).len(), 1);
    assert!(bus.receive(&w, AgentId(3)).is_empty());
    assert_eq!(
        bus.send(&w, AgentId(2), Recipient::Agent(AgentId(1)), "ACCEPT"),
        1
    );
    assert_eq!(
        bus.send(&w, AgentId(2), Recipient::Agent(AgentId(99)), "nobody"),
        0
    );
    assert_eq!(bus.pending(), 1);
}

#[test]
fn message_loss_is_random_but_reproducible() {
    let run = || {
        let mut w = world(FIELD);
        let mut bus: MessageBus<u32> = MessageBus::for_world(&w);
        for i in 0..1000 {
            bus.send(&w, AgentId(0), Recipient::Agent(AgentId(1)), i);
        }
        w.step(2000);
        bus.receive(&w, AgentId(1))
            .into_iter()
            .map(|e| e.payload)
            .collect::<Vec<u32>>()
    };
    let a = run();
    assert_eq!(a, run());
    assert!(
        (400..=600).contains(&a.len()),
        "about half arrive, {}",
        a.len()
    );
    assert!(a.windows(2).all(|p| p[0] < p[1]), "in send order");
}

#[test]
fn a_copy_lost_at_a_lower_loss_rate_is_lost_at_a_higher_one() {
    // The same seed at 5 % and 10 % loss: the UAV sends one message a second to UGV 1. At
    // 10 % another robot also answers each loss (as a protocol would). Each copy's fate is
    // keyed by the copy, so that extra traffic leaves the UAV's copies' fates alone: every
    // copy lost at 5 % is lost at 10 % too. (With one stream for all copies, the extra draws
    // shifted every later copy's fate, and the two runs' losses were unrelated.)
    let lost_at = |loss: f64, answer_losses: bool| {
        let mut s = spec(FIELD);
        s.messages.loss = loss;
        let mut w = World::new(&s).unwrap();
        let mut bus: MessageBus<u32> = MessageBus::for_world(&w);
        let mut lost = Vec::new();
        for i in 0..2000 {
            let before = bus.stats().lost;
            bus.send(&w, AgentId(0), Recipient::Agent(AgentId(1)), i);
            if bus.stats().lost > before {
                lost.push(i);
                if answer_losses {
                    bus.send(&w, AgentId(2), Recipient::Broadcast, i);
                }
            }
            w.step(1000);
        }
        lost
    };
    let (low, high) = (lost_at(0.05, false), lost_at(0.10, true));
    assert!(
        (60..=140).contains(&low.len()) && (150..=250).contains(&high.len()),
        "about 5 % and 10 % lost: {} and {}",
        low.len(),
        high.len()
    );
    let missing: Vec<_> = low.iter().filter(|i| !high.contains(i)).collect();
    assert!(missing.is_empty(), "lost at 5 %, not at 10 %: {missing:?}");
    assert_eq!(high, lost_at(0.10, true), "reproducible");
}

const CORRIDOR: &str = r#"world Corridor {
    area 10m x 4m cell 1m;
    spawn A at (1m, 2m);
    spawn B at (9m, 2m);
    spawn C at (5m, 2m);
}"#;

#[test]
fn robots_meeting_head_on_steer_right_and_pass_each_other() {
    let mut w = world(CORRIDOR);
    let (a, b, c) = (id(&w, "A"), id(&w, "B"), id(&w, "C"));
    // C is not in this test's way.
    assert!(w.try_move_to(c, Point::new(5.0, 3.5)).is_ok());
    let (ga, gb) = (Point::new(9.0, 2.0), Point::new(1.0, 2.0));
    let (mut done_a, mut done_b) = (false, false);
    for _ in 0..200 {
        if !done_a {
            done_a = w.steer_toward(a, ga, 0.1, false) == Ok(MoveOutcome::Arrived);
        }
        if !done_b {
            done_b = w.steer_toward(b, gb, 0.1, false) == Ok(MoveOutcome::Arrived);
        }
        let (pa, pb) = (w.position(a).unwrap(), w.position(b).unwrap());
        assert!(
            (pa.x - pb.x).abs() >= 1.0 - 1e-9 || (pa.y - pb.y).abs() >= 1.0 - 1e-9,
            "bodies never overlap: {pa:?} {pb:?}"
        );
    }
    assert!(
        done_a && done_b,
        "both arrive: {:?} {:?}",
        w.position(a),
        w.position(b)
    );
    // Going straight only, they block each other for good.
    let mut w = world(CORRIDOR);
    let (a, b, c) = (id(&w, "A"), id(&w, "B"), id(&w, "C"));
    assert!(w.try_move_to(c, Point::new(5.0, 3.5)).is_ok());
    for _ in 0..200 {
        let _ = w.move_toward(a, ga, 1.0, 100);
        let _ = w.move_toward(b, gb, 1.0, 100);
    }
    assert!(w.position(a).unwrap().x < 5.0 && w.position(b).unwrap().x > 5.0);
}

#[test]
fn a_robot_steers_around_one_standing_still_and_reaches_a_goal_taken_from_beside_it() {
    let mut w = world(CORRIDOR);
    let (a, c) = (id(&w, "A"), id(&w, "C"));
    let goal = Point::new(8.0, 2.0);
    let mut steps = 0;
    while w.steer_toward(a, goal, 0.1, false) != Ok(MoveOutcome::Arrived) {
        steps += 1;
        assert!(steps < 200, "stuck behind C at {:?}", w.position(a));
    }
    assert_eq!(w.position(c), Some(Point::new(5.0, 2.0)), "C never moved");
    // C's own spot is taken: A cannot stand on it, but reaches it from beside it.
    let taken = Point::new(5.0, 2.0);
    assert_eq!(w.reached(a, taken, 0.3), Some(false), "far away");
    for _ in 0..100 {
        let _ = w.steer_toward(a, taken, 0.1, false);
    }
    let pa = w.position(a).unwrap();
    assert!(pa.distance(taken) <= 1.0 + 0.3, "beside C: {pa:?}");
    assert_eq!(w.reached(a, taken, 0.3), Some(true));
    // A free goal counts only within the distance asked.
    assert_eq!(w.reached(a, Point::new(9.0, 1.0), 0.3), Some(false));
}
