//! Every slot of the tick program says what declared it (`Slot::role`), and a memory says
//! which variable it is keyed by: the CLI's story, plot and summary read these instead of
//! going back to the syntax. Clones have their base's members.

use affect_compiler::ir::program::{AgentProgram, Program, Role};
use affect_compiler::sema::NoFiles;

const SOURCE: &str = r#"
enum Drive { Explore, Rest }
enum Mood { Calm, Upset }

agent Robot {
    rate 10Hz;
    var score: num in 0..100 = 50;
    var steps: int = 0;
    sensor place: Label = camera_label();
    event bump = gpio_edge(pin: 17, edge: rising);
    hormone cortisol = score;
    let mood = cortisol / 2;
    emotions feeling: Mood = Calm {
        Calm -> Upset when score < 10;
    }
    drive urge: Drive = Explore {
        Rest when score < 20;
        intention target: Label {
            Explore, Rest => place;
        }
    }
    memory feelings keyed by place { short_term 7; }
    update { steps += 1; }
    main { do { score = feelings.remember(place, score + steps) } }
}

agent Copy = Robot;
"#;

fn program() -> Program {
    let analysis = affect_compiler::check_source_with(SOURCE, &NoFiles);
    analysis
        .program
        .unwrap_or_else(|| panic!("does not compile: {:#?}", analysis.diagnostics))
}

fn role_of(agent: &AgentProgram, name: &str) -> Role {
    agent
        .slots
        .iter()
        .find(|s| s.scope == 0 && s.name == name)
        .unwrap_or_else(|| panic!("no slot `{name}`"))
        .role
}

#[test]
fn each_members_slot_knows_its_role() {
    let program = program();
    let robot = &program.agents[0];
    for (name, role) in [
        ("score", Role::Var),
        ("steps", Role::Var),
        ("place", Role::Sensor),
        ("bump", Role::Event),
        ("cortisol", Role::Hormone),
        ("mood", Role::Let),
        ("feeling", Role::Emotion),
        ("feeling.intensity", Role::Intensity),
        ("urge", Role::Drive),
        ("target", Role::Intention),
        ("feelings", Role::Memory),
    ] {
        assert_eq!(role_of(robot, name), role, "`{name}`");
    }
    // Only the compiler's own temporaries and components are hidden.
    for s in robot.slots.iter().filter(|s| !s.visible) {
        assert!(matches!(s.role, Role::Temp | Role::Component), "{s:?}");
    }
}

#[test]
fn a_memory_names_the_variable_it_is_keyed_by() {
    let program = program();
    let robot = &program.agents[0];
    let key = robot.memories[0].key.expect("keyed by a variable");
    assert_eq!(robot.slots[key as usize].name, "place");
}

#[test]
fn a_clone_has_its_bases_roles() {
    let program = program();
    let (robot, copy) = (&program.agents[0], &program.agents[1]);
    assert_eq!(copy.name, "Copy");
    let roles = |a: &AgentProgram| {
        a.slots
            .iter()
            .map(|s| (s.name.clone(), s.role))
            .collect::<Vec<_>>()
    };
    assert_eq!(roles(robot), roles(copy));
    assert_eq!(copy.memories[0].key, robot.memories[0].key);
}

#[test]
fn a_main_trees_variables_are_ports_and_locals() {
    let analysis = affect_compiler::check_source_with(
        "tree Main(in goal: num) {\n    var n: num = 0;\n    do { n = n + goal }\n}\n",
        &NoFiles,
    );
    let program = analysis
        .program
        .unwrap_or_else(|| panic!("does not compile: {:#?}", analysis.diagnostics));
    let main = &program.agents[0];
    assert!(matches!(role_of(main, "goal"), Role::Port(_)));
    assert_eq!(role_of(main, "n"), Role::Local);
}
