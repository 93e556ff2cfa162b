//! Every vocabulary the checker reads, walked: at each place a word of it goes, completion
//! offers exactly the words the checker accepts there. For each vocabulary the candidates are
//! what completion offers, the compiler's table and a few near misses; each candidate is
//! written into a program at that place and checked: it is accepted when the checker reports
//! no "unknown ..." error where the word is written. Keyword vocabularies (what starts a
//! declaration, a member, a node, ...) are checked against the parser the same way.

use affect_compiler::builtins::{ArgType, BUILTINS};
use affect_compiler::ir::program::DeviceRole;
use affect_compiler::sema::devices::{ParamKind, DRIVERS};
use affect_compiler::sema::ty::{BUILTIN_TYPES, POINT, STATUS_NAMES};
use affect_compiler::sema::vocab::{AGENCY_WORDS, AKR_COMPONENTS};
use affect_compiler::sema::world::{FIELD_RULES, SETTINGS};
use affect_compiler::sema::{vocab, NoFiles};
use affect_compiler::syntax::keywords;
use affect_compiler::syntax::shape;
use affect_lsp::completion;
use affect_lsp::documents::Document;
use lsp_types::{CompletionItemKind, Uri};
use std::collections::{BTreeSet, HashMap};
use std::str::FromStr;

type Words = BTreeSet<String>;

/// A program with `|` where a word goes.
struct Place<'a> {
    what: &'a str,
    marked: &'a str,
    /// Error codes that mean "this word is not one of the vocabulary".
    refused: &'a [&'a str],
    /// Completion items of these kinds are the vocabulary's (others are offered too: values
    /// and keywords of the surrounding context).
    kinds: &'a [CompletionItemKind],
}

fn words<I: IntoIterator<Item = S>, S: Into<String>>(items: I) -> Words {
    items.into_iter().map(Into::into).collect()
}

/// What completion offers at the mark, of the given kinds.
fn offered(marked: &str, kinds: &[CompletionItemKind]) -> Words {
    let at = marked.find('|').expect("a mark");
    let text = marked.replacen('|', "", 1);
    let doc = Document::new(
        Uri::from_str("untitled:vocabulary").unwrap(),
        1,
        text,
        &HashMap::new(),
        false,
    );
    completion::completion(&doc, at)
        .into_iter()
        .filter(|i| i.kind.is_some_and(|k| kinds.contains(&k)))
        .map(|i| i.label)
        .collect()
}

/// Whether the checker takes `word` at the mark: no refusing error where it is written.
fn accepts(p: &Place, word: &str) -> bool {
    let at = p.marked.find('|').expect("a mark");
    let src = p.marked.replacen('|', word, 1);
    let a = affect_compiler::check_source_with(&src, &NoFiles);
    !a.diagnostics.iter().any(|d| {
        d.is_error()
            && (d.primary.span.start as usize) == at
            && (p.refused.is_empty() || p.refused.contains(&d.code))
    })
}

/// Completion at the place offers exactly the checker's words there, which are `table`.
fn walk(p: &Place, table: &Words, near_misses: &[&str]) {
    let offered = offered(p.marked, p.kinds);
    let mut candidates = offered.clone();
    candidates.extend(table.iter().cloned());
    candidates.extend(near_misses.iter().map(|w| w.to_string()));
    let accepted: Words = candidates.into_iter().filter(|w| accepts(p, w)).collect();
    assert_eq!(offered, accepted, "{}: offered vs accepted", p.what);
    assert_eq!(&accepted, table, "{}: accepted vs the table", p.what);
}

const FIELD: &[CompletionItemKind] = &[CompletionItemKind::FIELD];
const VALUE: &[CompletionItemKind] = &[CompletionItemKind::VALUE];
const PROPERTY: &[CompletionItemKind] = &[CompletionItemKind::PROPERTY];

#[test]
fn akr_components_and_their_values() {
    let keys = Place {
        what: "AKR components",
        marked: "emotion E { |: low }\n",
        refused: &["E0318"],
        kinds: FIELD,
    };
    walk(
        &keys,
        &words(AKR_COMPONENTS.iter().map(|c| c.key)),
        &["valance", "mood"],
    );
    for c in AKR_COMPONENTS {
        let Some(table) = c.words else { continue };
        let marked = format!("emotion E {{ {}: | }}\n", c.key);
        let p = Place {
            what: c.key,
            marked: &marked,
            refused: &["E0318"],
            kinds: VALUE,
        };
        walk(
            &p,
            &words(table.iter().copied()),
            &["neutral", "bogus", "Low"],
        );
    }
    // `agency`: self, other, or an agent of the program.
    let p = Place {
        what: "agency",
        marked: "agent Robot { main { succeed } }\nemotion E { agency: | }\n",
        refused: &["E0318"],
        kinds: &[CompletionItemKind::VALUE, CompletionItemKind::CLASS],
    };
    let mut table = words(AGENCY_WORDS.iter().copied());
    table.insert("Robot".into());
    walk(&p, &table, &["me", "robot"]);
    // `tendency`: a declared tendency.
    let p = Place {
        what: "tendency",
        marked: "tendency Flee { function: \"protect\" }\nemotion E { tendency: | }\n",
        refused: &["E0201"],
        kinds: &[CompletionItemKind::STRUCT],
    };
    walk(&p, &words(["Flee"]), &["Fly", "E"]);
}

/// A program with an agent whose block of `owner` holds the mark at the start of a setting.
fn setting_place(owner: &str) -> String {
    let block = match owner {
        "memory" => "memory m keyed by place { | 1; }",
        "hormone" => "hormone h = 50 { | 1; }",
        "emotions" => "emotions e: S = Calm { | 1; }",
        "behavior" => "behavior B { | 1; }",
        "behaviors" => "behaviors { | 1; }",
        "recruitment" => "recruitment r { | 1; }",
        "component" => "component c { | 1; }",
        other => panic!("no block for {other}"),
    };
    format!(
        "enum S {{ Calm }}\nagent A {{\n    sensor place: str = camera_label();\n    {block}\n    main {{ succeed }}\n}}\n"
    )
}

#[test]
fn settings_of_every_block() {
    for owner in [
        "memory",
        "hormone",
        "emotions",
        "behavior",
        "behaviors",
        "recruitment",
        "component",
    ] {
        let marked = setting_place(owner);
        let p = Place {
            what: owner,
            marked: &marked,
            refused: &[],
            kinds: PROPERTY,
        };
        let table = words(shape::schema(owner).unwrap().iter().map(|s| s.key));
        walk(&p, &table, &["bogus", "weight", "Policy"]);
    }
}

#[test]
fn settings_of_worlds_and_their_fields() {
    let world = Place {
        what: "world settings",
        marked: "world W {\n    | 1;\n}\n",
        refused: &["E0501"],
        kinds: PROPERTY,
    };
    walk(
        &world,
        &words(SETTINGS.iter().map(|s| s.key)),
        &["grids", "spawns", "bogus"],
    );
    let field = Place {
        what: "field rules",
        marked: "world W {\n    grid 1 x 1 cell 1m labels \"A\";\n    field f = 1 { | A: 1; }\n}\n",
        refused: &["E0501"],
        kinds: PROPERTY,
    };
    walk(
        &field,
        &words(FIELD_RULES.iter().map(|s| s.key)),
        &["nearby", "grid"],
    );
}

const AGENT_HEAD: &str = "agent A {\n    sensor place: str = camera_label();\n    memory m keyed by place { threshold 25; }\n    var queue: [num] = [];\n";

#[test]
fn operations_of_memories_and_lists() {
    let memory = format!("{AGENT_HEAD}    main {{ check m.|() > 0 }}\n}}\n");
    let p = Place {
        what: "memory operations",
        marked: &memory,
        refused: &["E0201"],
        kinds: &[CompletionItemKind::METHOD],
    };
    let table = words(vocab::MEMORY_METHODS.iter().map(|m| m.name));
    walk(&p, &table, &["recall", "forget", "Recent"]);
    let list = format!("{AGENT_HEAD}    main {{ do {{ queue.|(1) }} }}\n}}\n");
    let p = Place {
        what: "list operations",
        marked: &list,
        refused: &["E0201"],
        kinds: &[CompletionItemKind::METHOD],
    };
    let table = words(vocab::LIST_METHODS.iter().map(|m| m.name));
    walk(&p, &table, &["pop", "length"]);
}

#[test]
fn functions_of_expressions() {
    let marked = format!("{AGENT_HEAD}    main {{ check |(1) > 0 }}\n}}\n");
    let p = Place {
        what: "functions",
        marked: &marked,
        refused: &["E0201"],
        kinds: &[CompletionItemKind::FUNCTION],
    };
    let mut table = words(
        affect_compiler::ir::functions::FUNCTIONS
            .iter()
            .map(|f| f.name),
    );
    table.extend(vocab::WORLD_FUNCTIONS.iter().map(|f| f.name.to_string()));
    walk(&p, &table, &["sqroot", "maximum"]);
}

#[test]
fn device_drivers_their_arguments_and_words() {
    for (role, member) in [
        (DeviceRole::Sensor, "sensor s"),
        (DeviceRole::Event, "event s"),
        (DeviceRole::Actuator, "actuator s"),
    ] {
        let marked = format!("agent A {{\n    {member} = |();\n    main {{ succeed }}\n}}\n");
        let p = Place {
            what: member,
            marked: &marked,
            refused: &["E0317"],
            kinds: &[CompletionItemKind::FUNCTION],
        };
        let table = words(DRIVERS.iter().filter(|d| d.role == role).map(|d| d.name));
        // Functions are offered too (a value may be computed); only drivers are asked about.
        let offered: Words = offered(&marked, p.kinds)
            .into_iter()
            .filter(|w| DRIVERS.iter().any(|d| d.name == w))
            .collect();
        assert_eq!(offered, table, "{member}");
        for d in DRIVERS {
            assert_eq!(accepts(&p, d.name), d.role == role, "{member} = {}", d.name);
        }
        assert!(!accepts(&p, "ads1116"));
    }
    for d in DRIVERS.iter().filter(|d| !d.params.is_empty()) {
        let member = match d.role {
            DeviceRole::Sensor => "sensor",
            DeviceRole::Event => "event",
            DeviceRole::Actuator => "actuator",
        };
        let marked = format!(
            "agent A {{\n    {member} s = {}(|: 1);\n    main {{ succeed }}\n}}\n",
            d.name
        );
        let p = Place {
            what: d.name,
            marked: &marked,
            refused: &["E0305"],
            kinds: FIELD,
        };
        walk(&p, &words(d.params.iter().map(|p| p.0)), &["bogus", "pins"]);
        for (param, kind, _) in d.params {
            let ParamKind::Word(table) = kind else {
                continue;
            };
            let marked = format!(
                "agent A {{\n    {member} s = {}({param}: |);\n    main {{ succeed }}\n}}\n",
                d.name
            );
            let p = Place {
                what: param,
                marked: &marked,
                refused: &["E0301"],
                kinds: VALUE,
            };
            walk(&p, &words(table.iter().copied()), &["up", "Rising"]);
        }
    }
}

#[test]
fn built_in_nodes_their_arguments_and_statuses() {
    let marked = "tree T {\n    sequence {\n        |\n    }\n}\n";
    let p = Place {
        what: "nodes",
        marked,
        refused: &["E0204"],
        kinds: &[CompletionItemKind::KEYWORD],
    };
    let offered: Words = offered(marked, p.kinds)
        .into_iter()
        .filter(|w| !keywords::NODE_STARTS.contains(&w.as_str()))
        .collect();
    assert_eq!(offered, words(BUILTINS.iter().map(|b| b.name)), "nodes");
    for b in BUILTINS {
        assert!(accepts(&p, b.name), "{}", b.name);
    }
    assert!(!accepts(&p, "sequense"));
    for b in BUILTINS.iter().filter(|b| !b.args.is_empty()) {
        let kids = if b.children.1 > 0 { " { succeed }" } else { "" };
        let marked = format!("tree T {{\n    {}(|: 1){kids}\n}}\n", b.name);
        let p = Place {
            what: b.name,
            marked: &marked,
            refused: &["E0305"],
            kinds: FIELD,
        };
        walk(
            &p,
            &words(b.args.iter().map(|a| a.name)),
            &["bogus", "count"],
        );
        for a in b.args.iter().filter(|a| a.ty == ArgType::Status) {
            let marked = format!("tree T {{\n    {}({}: |){kids}\n}}\n", b.name, a.name);
            let p = Place {
                what: a.name,
                marked: &marked,
                refused: &[],
                kinds: VALUE,
            };
            walk(
                &p,
                &words(STATUS_NAMES.iter().copied()),
                &["done", "Success"],
            );
        }
    }
}

#[test]
fn types() {
    let marked = "enum Mood { Calm }\nconst C: | = 1;\n";
    let p = Place {
        what: "types",
        marked,
        refused: &["E0203"],
        kinds: &[CompletionItemKind::TYPE_PARAMETER, CompletionItemKind::ENUM],
    };
    let mut table = words(BUILTIN_TYPES.iter().map(|(n, _)| *n));
    table.insert(POINT.into());
    table.insert("Mood".into());
    walk(&p, &table, &["number", "mood", "string"]);
}

/// For each keyword of a context, a construct it starts; the test fails if a keyword has none
/// (a new keyword needs an example here).
fn keyword_examples() -> HashMap<&'static str, &'static str> {
    HashMap::from([
        // Declarations.
        ("use", "use std::akr;"),
        ("const", "const C = 1;"),
        ("enum", "enum E { A }"),
        ("action", "action Go();"),
        ("condition", "condition Ok();"),
        ("control", "control Both();"),
        ("decorator", "decorator Twice();"),
        ("main", "main tree M { succeed }"),
        ("tree", "tree T { succeed }"),
        ("emotion", "emotion E { valence: positive }"),
        ("tendency", "tendency T { function: \"x\" }"),
        ("agent", "agent A { main { succeed } }"),
        ("world", "world W { ticks 1; }"),
        ("component", "component c { heartbeat 100ms; }"),
        ("behavior", "behavior B { alpha 0.5; }"),
    ])
}

fn member_examples() -> HashMap<&'static str, &'static str> {
    HashMap::from([
        ("rate", "rate 10Hz;"),
        ("var", "var x = 0;"),
        ("let", "let y = 1;"),
        ("sensor", "sensor s = battery_level();"),
        ("event", "event e;"),
        ("actuator", "actuator a = motors();"),
        ("hormone", "hormone h = 50;"),
        ("update", "update { }"),
        ("on", "on e { }"),
        ("personality", "personality { caution: 0.5 }"),
        ("emotions", "emotions m: S = Calm { }"),
        ("tendencies", "tendencies m { _ => T; }"),
        ("drive", "drive d: S = Calm { }"),
        ("memory", "memory mem { threshold 25; }"),
        ("behavior", "behavior B { alpha 0.5; }"),
        ("behaviors", "behaviors { modules B; }"),
        ("recruitment", "recruitment r { threshold 0.5; }"),
        ("component", "component c { heartbeat 100ms; }"),
        ("main", "main { succeed }"),
    ])
}

fn parses(src: &str) -> bool {
    !affect_compiler::diagnostic::has_errors(&affect_compiler::check_source(src))
}

#[test]
fn keywords_of_every_context() {
    let kw = &[CompletionItemKind::KEYWORD];
    // Declarations.
    assert_eq!(
        offered("|", kw),
        words(keywords::ITEM_STARTS.iter().copied())
    );
    let items = keyword_examples();
    for k in keywords::ITEM_STARTS {
        let ex = items
            .get(k)
            .unwrap_or_else(|| panic!("no example for `{k}`"));
        assert!(parses(ex), "{ex}");
        assert!(!parses(&ex.replacen(k, &format!("{k}x"), 1)), "{ex}");
    }
    // Agent members.
    let marked = "agent A {\n    |\n}\n";
    assert_eq!(
        offered(marked, kw),
        words(keywords::MEMBER_STARTS.iter().copied())
    );
    let members = member_examples();
    for k in keywords::MEMBER_STARTS {
        let ex = members
            .get(k)
            .unwrap_or_else(|| panic!("no example for `{k}`"));
        let src = format!("enum S {{ Calm }}\ntree T {{ succeed }}\nagent A {{\n    {ex}\n}}\n");
        assert!(parses(&src), "{src}");
        assert!(
            !parses(&src.replacen(&format!("    {k}"), &format!("    {k}x"), 1)),
            "{src}"
        );
    }
    // Node starts and modifiers.
    let nodes: Words = offered("tree T {\n    sequence {\n        |\n    }\n}\n", kw)
        .into_iter()
        .filter(|w| !BUILTINS.iter().any(|b| b.name == w))
        .collect();
    assert_eq!(nodes, words(keywords::NODE_STARTS.iter().copied()));
    let after_node = "tree T {\n    sequence {\n        succeed\n        |\n    }\n}\n";
    let modifiers: Words = offered(after_node, kw)
        .into_iter()
        .filter(|w| keywords::MODIFIERS.contains(&w.as_str()))
        .collect();
    assert_eq!(modifiers, words(keywords::MODIFIERS.iter().copied()));
    for m in keywords::MODIFIERS {
        let arg = if m.starts_with("on_") || *m == "after" {
            "{ }"
        } else {
            "true"
        };
        let src = format!("tree T {{ succeed {m} {arg} }}\n");
        assert!(parses(&src), "{src}");
    }
    // Statements and ports.
    let stmts: Words = offered("tree T { do {\n    |\n} }\n", kw)
        .into_iter()
        .filter(|w| keywords::STATEMENT_STARTS.contains(&w.as_str()) || w == "iff")
        .collect();
    assert_eq!(stmts, words(keywords::STATEMENT_STARTS.iter().copied()));
    assert_eq!(
        offered("action Go(|);\n", kw),
        words(keywords::PORT_DIRECTIONS.iter().copied())
    );
    for d in keywords::PORT_DIRECTIONS {
        assert!(parses(&format!("action Go({d} x: num);\n")), "{d}");
    }
}
