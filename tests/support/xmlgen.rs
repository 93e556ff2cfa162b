//! A seeded generator of BehaviorTree.CPP XML, v4 and v3, over the whole format (issue 29 §2):
//! every built-in in compact and explicit form, custom nodes with and without models,
//! `<TreeNodesModel>` entries of every kind, the `_` attributes BehaviorTree.CPP and Groot 2
//! read or write, scripts spelt every way, `<include>`, v3's SubTreePlus, comments anywhere and
//! several indentation styles; and mutations the library refuses (misspelt node and port names,
//! unknown ports, values of the wrong type).
//!
//! The v4 built-ins and their ports are the library's own (`btcpp_oracle models`), so nothing
//! here copies the list. A generated file records the features it used (`features`), which
//! `tests/groot_generated.rs` counts, and the stand-in statuses of its custom leaves, which both
//! sides are given.

use affect_compiler::groot::names;
use proptest::prelude::RngExt;
use proptest::test_runner::{RngAlgorithm, TestRng};
use std::collections::{BTreeMap, BTreeSet};

/// A built-in node as the library describes it.
#[derive(Clone, Debug)]
pub struct Builtin {
    pub id: String,
    /// `Action`, `Condition`, `Control`, `Decorator` (the explicit form's tag).
    pub kind: String,
    /// (name, C++ type, default).
    pub ports: Vec<(String, String, Option<String>)>,
}

/// The library's built-ins from `btcpp_oracle models` (its JSON), without `SubTree`.
pub fn builtins_from_models(json: &str) -> Vec<Builtin> {
    let v: serde_json::Value = serde_json::from_str(json).expect("models JSON");
    v.as_array()
        .expect("an array")
        .iter()
        .filter(|m| m["kind"] != "SubTree")
        .map(|m| Builtin {
            id: m["id"].as_str().unwrap().to_string(),
            kind: m["kind"].as_str().unwrap().to_string(),
            ports: m["ports"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    (
                        p["name"].as_str().unwrap().to_string(),
                        p["type"].as_str().unwrap().to_string(),
                        p["default"].as_str().map(str::to_string),
                    )
                })
                .collect(),
        })
        .collect()
}

/// BehaviorTree.CPP 3.8's built-ins, as its v4 counterparts are spelt there: v4-only nodes
/// left out, renamed nodes and ports renamed back (the converter's own tables, so the two
/// cannot drift apart), v3-only nodes added.
pub fn v3_builtins(v4: &[Builtin]) -> Vec<Builtin> {
    use affect_compiler::groot::convert::{NODE_RENAMES, PORT_RENAMES, V4_ONLY};
    let mut out: Vec<Builtin> = v4
        .iter()
        .filter(|b| !V4_ONLY.contains(&b.id.as_str()))
        .cloned()
        .map(|mut b| {
            for (node, v3, v4) in PORT_RENAMES {
                if *node == b.id {
                    if let Some(p) = b.ports.iter_mut().find(|p| p.0 == *v4) {
                        p.0 = v3.to_string();
                    }
                }
            }
            if let Some((v3, _)) = NODE_RENAMES.iter().find(|(_, v4)| *v4 == b.id) {
                b.id = v3.to_string();
            }
            // 3.8's Parallel requires `success_threshold` (v4's `success_count` defaults to -1).
            if b.id == "Parallel" {
                for p in &mut b.ports {
                    if p.0 == "success_threshold" {
                        p.2 = None;
                    }
                }
            }
            b
        })
        .collect();
    for (id, ty) in [
        ("BlackboardCheckInt", "int"),
        ("BlackboardCheckDouble", "double"),
    ] {
        out.push(Builtin {
            id: id.into(),
            kind: "Decorator".into(),
            ports: vec![
                ("value_A".into(), ty.into(), None),
                ("value_B".into(), ty.into(), None),
                ("return_on_mismatch".into(), "BT::NodeStatus".into(), None),
            ],
        });
    }
    out.push(Builtin {
        id: "BlackboardCheckString".into(),
        kind: "Decorator".into(),
        ports: vec![
            ("value_A".into(), "std::string".into(), None),
            ("value_B".into(), "std::string".into(), None),
            ("return_on_mismatch".into(), "BT::NodeStatus".into(), None),
        ],
    });
    out
}

pub use super::xmljudge::{Mutation, Version};

/// One generated case: its files (the first is the main file), the features it used, and
/// the statuses each custom leaf plays on both sides.
#[derive(Clone, Debug)]
pub struct Case {
    pub files: Vec<(String, String)>,
    pub features: BTreeSet<String>,
    pub mutation: Option<Mutation>,
    /// Custom leaf ID → statuses (`RUNNING,SUCCESS`).
    pub leaves: Vec<(String, String)>,
}

/// Names of custom nodes: none within two edits of a built-in (checked by `custom_names_are_far`).
const ACTIONS: &[&str] = &[
    "MoveArm",
    "GraspPart",
    "PlanPath",
    "FollowTrajectory",
    "DockRobot",
    "TakeOffDrone",
    "LandDrone",
    "CapturePhoto",
];
const CONDITIONS: &[&str] = &["IsBatteryLow", "ObjectDetected", "AtGoal", "IsArmed"];
const DECORATORS: &[&str] = &["RateController", "DistanceController", "GoalUpdater"];
const CONTROLS: &[&str] = &["PipelineSequence", "RecoveryNode", "RoundRobin"];
const STATUS_LISTS: &[&str] = &[
    "SUCCESS",
    "FAILURE",
    "RUNNING,SUCCESS",
    "RUNNING,RUNNING,FAILURE,SUCCESS",
    "SUCCESS,FAILURE",
    "FAILURE,RUNNING,SUCCESS",
];

/// Every custom name, for the test that they are far from every built-in.
pub fn custom_names() -> Vec<&'static str> {
    [ACTIONS, CONDITIONS, DECORATORS, CONTROLS].concat()
}

#[derive(Clone, Debug)]
struct Node {
    tag: String,
    /// (name, value as written in the XML, entities and all).
    attrs: Vec<(String, String)>,
    children: Vec<Child>,
}

#[derive(Clone, Debug)]
enum Child {
    Node(Node),
    Comment(String),
}

/// A custom node's model: ID, kind tag, typed ports (name, type, default, description).
#[derive(Clone, Debug)]
struct Custom {
    id: String,
    kind: &'static str,
    modelled: bool,
    ports: Vec<(String, &'static str, Option<String>, Option<String>)>,
}

#[derive(Clone, Debug)]
struct TreeDef {
    id: String,
    /// Ports of its `<SubTree>` model: (direction tag, name, default); `None`: no model.
    model: Option<Vec<(&'static str, String, Option<String>)>>,
    /// Defined in the included file.
    external: bool,
    body: Option<Node>,
}

#[derive(Clone, Copy)]
enum Indent {
    Two,
    Four,
    Tab,
    OneLine,
}

pub struct Gen {
    rng: TestRng,
    version: Version,
    builtins: Vec<Builtin>,
    features: BTreeSet<String>,
    customs: Vec<Custom>,
    trees: Vec<TreeDef>,
    /// Keys stand-in outputs and SetBlackboard write (never read by scripts).
    budget: usize,
}

impl Gen {
    pub fn new(seed: u64, version: Version, builtins: &[Builtin]) -> Gen {
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&seed.to_le_bytes());
        bytes[8..16].copy_from_slice(&(version as u64 + 0x9e37).to_le_bytes());
        Gen {
            rng: TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
            version,
            builtins: builtins.to_vec(),
            features: BTreeSet::new(),
            customs: Vec::new(),
            trees: Vec::new(),
            budget: 0,
        }
    }

    fn chance(&mut self, p: f64) -> bool {
        self.rng.random_bool(p)
    }

    fn below(&mut self, n: usize) -> usize {
        self.rng.random_range(0..n)
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    fn pick_str(&mut self, items: &[&'static str]) -> &'static str {
        items[self.below(items.len())]
    }

    fn feature(&mut self, f: impl Into<String>) {
        self.features.insert(f.into());
    }

    /// One case.
    pub fn case(mut self, seed: u64) -> Case {
        self.plan_customs();
        self.plan_trees();
        // Bodies, leaves first so that a tree calls only trees after it (no recursion).
        for i in (0..self.trees.len()).rev() {
            self.budget = 6 + self.below(14);
            let callable: Vec<usize> = (i + 1..self.trees.len()).collect();
            let body = self.node(0, &callable);
            self.trees[i].body = Some(body);
        }
        let mutation = if self.chance(0.3) {
            self.mutate()
        } else {
            None
        };
        let indent = *self.pick(&[Indent::Two, Indent::Four, Indent::Tab, Indent::OneLine]);
        self.feature(match indent {
            Indent::Two => "indent: two spaces",
            Indent::Four => "indent: four spaces",
            Indent::Tab => "indent: tabs",
            Indent::OneLine => "indent: one line",
        });
        let mut files = vec![("main.xml".to_string(), self.main_file(indent))];
        if self.trees.iter().any(|t| t.external) {
            files.push(("sub/library.xml".to_string(), self.library_file(indent)));
        }
        let leaves = self
            .customs
            .iter()
            .filter(|c| matches!(c.kind, "Action" | "Condition"))
            .map(|c| {
                (
                    c.id.clone(),
                    STATUS_LISTS[c.id.len() % STATUS_LISTS.len()].to_string(),
                )
            })
            .collect::<Vec<_>>();
        let mut leaves = leaves;
        for l in &mut leaves {
            l.1 = self.pick(STATUS_LISTS).to_string();
        }
        let _ = seed;
        Case {
            files,
            features: self.features,
            mutation,
            leaves,
        }
    }

    // ------------------------------------------------------------------ custom nodes, trees

    fn plan_customs(&mut self) {
        let n = 1 + self.below(4);
        let mut used = BTreeSet::new();
        for _ in 0..n {
            let (kind, pool): (&'static str, &[&str]) = match self.below(6) {
                0 | 1 => ("Action", ACTIONS),
                2 | 3 => ("Condition", CONDITIONS),
                4 => ("Decorator", DECORATORS),
                _ => ("Control", CONTROLS),
            };
            let id = self.pick(pool).to_string();
            if !used.insert(id.clone()) {
                continue;
            }
            let modelled = self.chance(0.6);
            let mut ports = Vec::new();
            for name in ["speed", "count", "label", "enabled", "result"] {
                if self.chance(0.35) {
                    let ty: &'static str = match name {
                        "speed" => self.pick_str(&["double", "float", ""]),
                        "count" => self.pick_str(&["int", "unsigned int", ""]),
                        "label" => self.pick_str(&["std::string", ""]),
                        "enabled" => self.pick_str(&["bool", ""]),
                        _ => "",
                    };
                    let default = (modelled && name != "result" && self.chance(0.3))
                        .then(|| literal_for(ty, 0).to_string());
                    let doc = self.chance(0.3).then(|| format!("The {name} to use"));
                    ports.push((name.to_string(), ty, default, doc));
                }
            }
            self.feature(format!(
                "custom {} {}",
                kind.to_lowercase(),
                if modelled {
                    "with model"
                } else {
                    "without model"
                }
            ));
            self.customs.push(Custom {
                id,
                kind,
                modelled,
                ports,
            });
        }
    }

    fn plan_trees(&mut self) {
        self.trees.push(TreeDef {
            id: "Main".into(),
            model: None,
            external: false,
            body: None,
        });
        let subs = self.below(3);
        for i in 0..subs {
            let external = self.chance(0.4);
            let model = self.chance(0.6).then(|| {
                let mut ports = Vec::new();
                if self.chance(0.6) {
                    let default = self.chance(0.5).then(|| "{n}".to_string());
                    ports.push(("input_port", "target".to_string(), default));
                }
                if self.chance(0.4) {
                    ports.push(("output_port", "outcome".to_string(), None));
                }
                ports
            });
            self.trees.push(TreeDef {
                id: if external {
                    format!("External{i}")
                } else {
                    format!("Sub{i}")
                },
                model,
                external,
                body: None,
            });
        }
    }

    // ------------------------------------------------------------------------------- nodes

    fn node(&mut self, depth: usize, callable: &[usize]) -> Node {
        self.budget = self.budget.saturating_sub(1);
        let leaf_only = depth >= 4 || self.budget == 0;
        let roll = self.below(10);
        if !callable.is_empty() && roll == 0 {
            let t = *self.pick(callable);
            return self.subtree_call(t);
        }
        if roll <= 2 && !self.customs.is_empty() {
            let c = self.pick(&self.customs.clone()).clone();
            if !leaf_only || matches!(c.kind, "Action" | "Condition") {
                return self.custom_node(&c, depth, callable);
            }
        }
        let candidates: Vec<Builtin> = self
            .builtins
            .iter()
            .filter(|b| !leaf_only || matches!(b.kind.as_str(), "Action" | "Condition"))
            .cloned()
            .collect();
        let b = self.pick(&candidates).clone();
        self.builtin_node(&b, depth, callable)
    }

    fn builtin_node(&mut self, b: &Builtin, depth: usize, callable: &[usize]) -> Node {
        let explicit = self.chance(0.3);
        self.feature(format!(
            "built-in {} {}",
            b.id,
            if explicit { "explicit" } else { "compact" }
        ));
        let mut attrs = Vec::new();
        if explicit {
            attrs.push(("ID".to_string(), b.id.clone()));
        }
        let children_wanted = match b.kind.as_str() {
            "Decorator" => 1,
            "Control" => match b.id.as_str() {
                "IfThenElse" | "WhileDoElse" => 2 + self.below(2),
                id if id.starts_with("Switch") => id[6..].parse::<usize>().unwrap() + 1,
                _ => 1 + self.below(3),
            },
            _ => 0,
        };
        for (name, ty, default) in &b.ports {
            if let Some(v) = self.port_value(&b.id, name, ty, default.is_some(), children_wanted) {
                attrs.push((name.clone(), v));
            }
        }
        self.decorate(&mut attrs);
        let mut children = Vec::new();
        for _ in 0..children_wanted {
            self.maybe_comment(&mut children, "comment between nodes");
            children.push(Child::Node(self.node(depth + 1, callable)));
        }
        if children_wanted > 0 {
            self.maybe_comment(&mut children, "comment after the last node");
        }
        Node {
            tag: if explicit {
                b.kind.clone()
            } else {
                b.id.clone()
            },
            attrs,
            children,
        }
    }

    /// A value for a built-in's port, or `None` to leave it out (when it has a default).
    fn port_value(
        &mut self,
        id: &str,
        name: &str,
        ty: &str,
        has_default: bool,
        children: usize,
    ) -> Option<String> {
        if has_default && self.chance(0.5) {
            return None;
        }
        let v = match (id, name) {
            ("Parallel", "success_count" | "success_threshold")
            | ("Parallel", "failure_count" | "failure_threshold")
            | ("ParallelAll", "max_failures") => (1 + self.below(children.max(1))).to_string(),
            ("Repeat", _) | ("RetryUntilSuccessful", _) => {
                if self.chance(0.2) {
                    "{n}".into()
                } else {
                    (1 + self.below(3)).to_string()
                }
            }
            (_, "msec" | "delay_msec") => {
                self.feature("timer of at least 50 ms");
                (2000 + 1000 * self.below(8)).to_string()
            }
            (_, "then_skip") => self.pick(&["true", "false"]).to_string(),
            (_, "if_empty") | ("Precondition", "else") | (_, "return_on_mismatch") => {
                self.pick(&["SUCCESS", "FAILURE"]).to_string()
            }
            (_, "code") if id == "ScriptCondition" => self.script_condition(),
            (_, "code") => self.script(),
            ("Precondition", "if") => self.script_condition(),
            // `variable` is a string port: `{n}` (an int entry) would be refused.
            (_, "variable") => "{s}".to_string(),
            (_, c) if c.starts_with("case_") => self.pick(&["hi", "1", "2", "other"]).to_string(),
            ("SetBlackboard", "output_key") => self.pick(&["out1", "out2"]).to_string(),
            ("SetBlackboard", "value") => self.pick(&["3", "text", "{s}"]).to_string(),
            ("UnsetBlackboard", "key") => self.pick(&["out1", "out2"]).to_string(),
            (_, "entry") => "{n}".into(),
            ("LoopInt", "queue") => "1;2;3".into(),
            ("LoopDouble", "queue") => "0.5;1.5".into(),
            ("LoopBool", "queue") => "true;false".into(),
            ("LoopString", "queue") => "a;b;c".into(),
            (_, "value") if id.starts_with("Loop") => {
                format!("{{loop_{}}}", id[4..].to_lowercase())
            }
            (_, "value_A") => match ty {
                "std::string" => "{s}".into(),
                "double" => "{x}".into(),
                _ => "{n}".into(),
            },
            (_, "value_B") => literal_for(ty, self.below(3)).to_string(),
            _ => literal_for(ty, self.below(3)).to_string(),
        };
        Some(v)
    }

    fn custom_node(&mut self, c: &Custom, depth: usize, callable: &[usize]) -> Node {
        let explicit = match self.version {
            Version::V3 => self.chance(0.8),
            Version::V4 => self.chance(0.3),
        };
        self.feature(format!(
            "custom node {}",
            if explicit { "explicit" } else { "compact" }
        ));
        let mut attrs = Vec::new();
        if explicit {
            attrs.push(("ID".to_string(), c.id.clone()));
        }
        for (name, ty, default, _) in &c.ports {
            if default.is_some() && self.chance(0.5) {
                continue;
            }
            let v = if name == "result" {
                "{result}".to_string()
            } else if let Some(key) = self.entry_for(ty).filter(|_| self.chance(0.3)) {
                key.to_string()
            } else {
                literal_for(ty, self.below(3)).to_string()
            };
            attrs.push((name.clone(), v));
        }
        self.decorate(&mut attrs);
        let n = match c.kind {
            "Decorator" => 1,
            "Control" => 2 + self.below(2),
            _ => 0,
        };
        let mut children = Vec::new();
        for _ in 0..n {
            children.push(Child::Node(self.node(depth + 1, callable)));
        }
        Node {
            tag: if explicit {
                c.kind.to_string()
            } else {
                c.id.clone()
            },
            attrs,
            children,
        }
    }

    /// A preset entry of exactly the port's type (BehaviorTree.CPP refuses an entry bound to
    /// ports of two types: `{n}` is an `int`, so not an `unsigned int` port).
    fn entry_for(&mut self, ty: &str) -> Option<&'static str> {
        match ty {
            "double" => Some("{x}"),
            "int" => Some("{n}"),
            "bool" => Some("{f}"),
            "std::string" => Some("{s}"),
            "" => Some(*self.pick(&["{x}", "{n}", "{f}", "{s}"])),
            _ => None,
        }
    }

    fn subtree_call(&mut self, t: usize) -> Node {
        let tree = self.trees[t].clone();
        let plus = self.version == Version::V3 && self.chance(0.5);
        self.feature(match (self.version, plus, tree.external) {
            (Version::V3, true, _) => "v3 SubTreePlus",
            (Version::V3, false, _) => "v3 SubTree",
            (_, _, true) => "SubTree of an included tree",
            _ => "SubTree of a local tree",
        });
        let mut attrs = vec![("ID".to_string(), tree.id.clone())];
        let autoremap = self.version == Version::V4 || plus;
        if autoremap && self.chance(0.3) {
            self.feature("_autoremap");
            let name = if plus { "__autoremap" } else { "_autoremap" };
            attrs.push((name.to_string(), "true".to_string()));
        } else if let Some(ports) = &tree.model {
            for (dir, name, default) in ports {
                if default.is_some() && self.chance(0.5) {
                    continue;
                }
                let key = if *dir == "output_port" { "result" } else { "n" };
                let v = if self.version == Version::V3 && !plus {
                    key.to_string()
                } else if *dir == "input_port" && self.chance(0.3) {
                    "2".to_string()
                } else {
                    format!("{{{key}}}")
                };
                attrs.push((name.clone(), v));
            }
        }
        if self.version == Version::V4 {
            if self.chance(0.2) {
                self.feature("_fullpath");
                attrs.push(("_fullpath".into(), format!("{}::7", tree.id)));
            }
            if self.chance(0.3) {
                self.feature("SubTree name");
                attrs.push(("name".into(), format!("call_{}", self.below(1000))));
            }
        }
        Node {
            tag: if plus { "SubTreePlus" } else { "SubTree" }.into(),
            attrs,
            children: vec![],
        }
    }

    /// Metadata and (v4) pre- and post-conditions on a node.
    fn decorate(&mut self, attrs: &mut Vec<(String, String)>) {
        if self.chance(0.25) {
            attrs.push((
                "name".into(),
                self.pick(&["step", "check it", "go"]).to_string(),
            ));
        }
        if self.version == Version::V3 {
            return;
        }
        if self.chance(0.08) {
            self.feature("_description");
            let d = self.pick(&["Moves the arm", "Two&#10;lines", "Tom &amp; Jerry"]);
            attrs.push(("_description".into(), d.to_string()));
        }
        if self.chance(0.05) {
            self.feature("_favorite");
            attrs.push(("_favorite".into(), "true".into()));
        }
        if self.chance(0.05) {
            self.feature("_uid");
            attrs.push(("_uid".into(), (1 + self.below(40)).to_string()));
        }
        for pre in ["_skipIf", "_successIf", "_failureIf", "_while"] {
            if self.chance(0.04) {
                self.feature(pre);
                let c = self.script_condition();
                attrs.push((pre.into(), c));
            }
        }
        for post in ["_onSuccess", "_onFailure", "_onHalted", "_post"] {
            if self.chance(0.04) {
                self.feature(post);
                let s = self.script();
                attrs.push((post.into(), s));
            }
        }
    }

    // ----------------------------------------------------------------------------- scripts

    /// Spacing around an operator: none, one space, two, a line break (`&#10;` or a raw one).
    fn space(&mut self) -> &'static str {
        match self.below(8) {
            0 | 1 => "",
            2..=4 => " ",
            5 => "  ",
            6 => {
                self.feature("script over several lines (&#10;)");
                "&#10;"
            }
            _ => {
                self.feature("script over several lines (raw line break)");
                "\n  "
            }
        }
    }

    fn script(&mut self) -> String {
        let n = 1 + self.below(3);
        let mut out = String::new();
        for i in 0..n {
            if i > 0 {
                let sep = self.space();
                out.push(';');
                out.push_str(if sep.is_empty() { " " } else { sep });
            }
            let sp = self.space();
            let stmt = match self.below(6) {
                0 => format!("n{sp}:={sp}n{sp}+{sp}1"),
                1 => format!("x{sp}:={sp}x{sp}*{sp}2.0"),
                2 => format!("f{sp}:={sp}n{sp}&gt;{sp}2"),
                3 => {
                    self.feature("script entity &apos;");
                    format!("s{sp}:={sp}&apos;done&apos;")
                }
                4 => format!("s{sp}:={sp}'a b'"),
                _ => format!("n{sp}+={sp}2"),
            };
            out.push_str(&stmt);
        }
        self.feature(format!(
            "script of {} statement{}",
            n.min(2),
            if n > 1 { "s" } else { "" }
        ));
        out
    }

    fn script_condition(&mut self) -> String {
        let sp = self.space();
        match self.below(7) {
            0 => format!("n{sp}&gt;{sp}1"),
            1 => {
                self.feature("script entity &amp;");
                format!("n{sp}&gt;={sp}1{sp}&amp;&amp;{sp}f")
            }
            2 => format!("s{sp}=={sp}'hi'"),
            3 => format!("x{sp}&lt;{sp}3.5"),
            4 => format!("!f{sp}||{sp}n{sp}=={sp}2"),
            5 => "f".into(),
            _ => format!("(n{sp}+{sp}1){sp}&gt;{sp}3"),
        }
    }

    fn maybe_comment(&mut self, children: &mut Vec<Child>, feature: &str) {
        if self.chance(0.12) {
            self.feature(feature.to_string());
            let c = self.comment_text();
            children.push(Child::Comment(c));
        }
    }

    fn comment_text(&mut self) -> String {
        self.pick(&[
            " a note ",
            "no spaces",
            " two\n     lines ",
            " Tom & Jerry > 2 ",
            "  indented  ",
        ])
        .to_string()
    }

    // --------------------------------------------------------------------------- mutations

    /// Changes one thing BehaviorTree.CPP refuses; `None` when nothing fitting was generated.
    fn mutate(&mut self) -> Option<Mutation> {
        let mut sites = Vec::new();
        for (t, tree) in self.trees.iter().enumerate() {
            let mut stack = vec![vec![]];
            while let Some(path) = stack.pop() {
                let node = at(tree.body.as_ref().unwrap(), &path);
                sites.push((t, path.clone()));
                for (i, c) in node.children.iter().enumerate() {
                    if matches!(c, Child::Node(_)) {
                        let mut p = path.clone();
                        p.push(i);
                        stack.push(p);
                    }
                }
            }
        }
        for _ in 0..8 {
            let (t, path) = self.pick(&sites).clone();
            let node = at(self.trees[t].body.as_ref().unwrap(), &path).clone();
            let id = node_id(&node).to_string();
            let builtin = self.builtins.iter().find(|b| b.id == id).cloned();
            let custom = self
                .customs
                .iter()
                .find(|c| c.id == id && c.modelled)
                .cloned();
            let kind = self.below(4);
            let mutation = match (kind, &builtin, &custom) {
                (0, Some(b), _)
                    if self.version == Version::V4 || !V3_ONLY.contains(&b.id.as_str()) =>
                {
                    let typo = self.typo(&b.id)?;
                    let node = at_mut(self.trees[t].body.as_mut().unwrap(), &path);
                    if let Some(a) = node.attrs.iter_mut().find(|a| a.0 == "ID") {
                        a.1 = typo.clone();
                    } else {
                        node.tag = typo.clone();
                    }
                    Mutation::NodeTypo(typo, b.id.clone())
                }
                (1, Some(b), _) if !b.ports.is_empty() => {
                    let port = self.pick(&b.ports).0.clone();
                    let typo = self.port_typo(
                        &port,
                        &b.ports.iter().map(|p| p.0.clone()).collect::<Vec<_>>(),
                    )?;
                    set_attr(
                        at_mut(self.trees[t].body.as_mut().unwrap(), &path),
                        &port,
                        &typo,
                        "1",
                    );
                    Mutation::PortTypo(id, typo, port)
                }
                (1, None, Some(c)) if !c.ports.is_empty() => {
                    let port = self.pick(&c.ports).0.clone();
                    let names: Vec<String> = c.ports.iter().map(|p| p.0.clone()).collect();
                    let typo = self.port_typo(&port, &names)?;
                    set_attr(
                        at_mut(self.trees[t].body.as_mut().unwrap(), &path),
                        &port,
                        &typo,
                        "1",
                    );
                    Mutation::PortTypo(id, typo, port)
                }
                (2, Some(_), _) | (2, None, Some(_)) => {
                    let port = self.pick(&["colour", "speedy", "target_pose"]).to_string();
                    let node = at_mut(self.trees[t].body.as_mut().unwrap(), &path);
                    if node.attrs.iter().any(|a| a.0 == port) {
                        continue;
                    }
                    node.attrs.push((port.clone(), "red".into()));
                    Mutation::UnknownPort(id, port)
                }
                (3, Some(b), _) => {
                    let Some((port, _, _)) = b
                        .ports
                        .iter()
                        .find(|p| {
                            matches!(
                                p.1.as_str(),
                                "int" | "unsigned int" | "bool" | "double" | "BT::NodeStatus"
                            )
                        })
                        .cloned()
                    else {
                        continue;
                    };
                    let value = "fast".to_string();
                    set_value(
                        at_mut(self.trees[t].body.as_mut().unwrap(), &path),
                        &port,
                        &value,
                    );
                    Mutation::WrongType(id, port, value)
                }
                (3, None, Some(c)) => {
                    let Some((port, _, _, _)) = c
                        .ports
                        .iter()
                        .find(|p| {
                            matches!(p.1, "int" | "unsigned int" | "bool" | "double" | "float")
                        })
                        .cloned()
                    else {
                        continue;
                    };
                    let value = "fast".to_string();
                    set_value(
                        at_mut(self.trees[t].body.as_mut().unwrap(), &path),
                        &port,
                        &value,
                    );
                    Mutation::WrongType(id, port, value)
                }
                _ => continue,
            };
            self.feature(match &mutation {
                Mutation::NodeTypo(..) => "mutation: misspelt node",
                Mutation::PortTypo(..) => "mutation: misspelt port",
                Mutation::UnknownPort(..) => "mutation: unknown port",
                Mutation::WrongType(..) => "mutation: value of the wrong type",
            });
            return Some(mutation);
        }
        None
    }

    /// A misspelling of a built-in ID: one or two edits, or another case; never a built-in
    /// itself (of either dialect) nor a custom name.
    fn typo(&mut self, id: &str) -> Option<String> {
        for _ in 0..20 {
            let t = match self.below(5) {
                0 => {
                    if self.chance(0.5) {
                        id.to_lowercase()
                    } else {
                        id.to_uppercase()
                    }
                }
                1 => edit(&mut self.rng, id, 2),
                _ => edit(&mut self.rng, id, 1),
            };
            let taken = self.builtins.iter().any(|b| b.id == t)
                || V3_ONLY.contains(&t.as_str())
                || custom_names().contains(&t.as_str());
            // A name the library takes as an ID, spelt as a tag (the compact form).
            if !taken
                && names::is_xml_name(&t)
                && names::forbidden_char(&t).is_none()
                && names::model_name_error(&t).is_none()
            {
                return Some(t);
            }
        }
        None
    }

    fn port_typo(&mut self, port: &str, ports: &[String]) -> Option<String> {
        for _ in 0..20 {
            let t = edit(&mut self.rng, port, 1);
            // A name the library takes as a port (BehaviorTree.CPP's naming rules).
            if !ports.contains(&t)
                && names::is_port_attr(&t)
                && names::forbidden_char(&t).is_none()
                && names::is_xml_name(&t)
            {
                return Some(t);
            }
        }
        None
    }

    // --------------------------------------------------------------------------- printing

    fn main_file(&mut self, indent: Indent) -> String {
        let mut w = Writer::new(indent);
        if self.chance(0.5) {
            w.line(0, r#"<?xml version="1.0" encoding="UTF-8"?>"#);
        }
        if self.chance(0.15) {
            self.feature("comment before <root>");
            let c = self.comment_text();
            w.comment(0, &c);
        }
        let local: Vec<TreeDef> = self.trees.iter().filter(|t| !t.external).cloned().collect();
        let mut root = String::from("<root");
        if self.version == Version::V4 {
            root.push_str(r#" BTCPP_format="4""#);
        }
        if local.len() > 1 || self.chance(0.7) || self.trees.iter().any(|t| t.external) {
            root.push_str(r#" main_tree_to_execute="Main""#);
        } else {
            self.feature("no main_tree_to_execute");
        }
        root.push('>');
        w.line(0, &root);
        if self.trees.iter().any(|t| t.external) {
            self.feature("<include> across files");
            w.line(1, r#"<include path="sub/library.xml"/>"#);
        }
        for t in &local {
            if self.chance(0.15) {
                self.feature("comment between trees");
                let c = self.comment_text();
                w.comment(1, &c);
            }
            self.tree(&mut w, t);
        }
        self.models(&mut w);
        w.line(0, "</root>");
        if self.chance(0.1) {
            self.feature("comment after </root>");
            let c = self.comment_text();
            w.comment(0, &c);
        }
        w.out
    }

    fn library_file(&mut self, indent: Indent) -> String {
        let mut w = Writer::new(indent);
        w.line(
            0,
            if self.version == Version::V4 {
                r#"<root BTCPP_format="4">"#
            } else {
                "<root>"
            },
        );
        for t in self.trees.clone().iter().filter(|t| t.external) {
            self.tree(&mut w, t);
        }
        w.line(0, "</root>");
        w.out
    }

    fn tree(&mut self, w: &mut Writer, t: &TreeDef) {
        let mut head = format!(r#"<BehaviorTree ID="{}""#, t.id);
        if self.version == Version::V4 && self.chance(0.15) {
            self.feature("_description on a tree");
            head.push_str(r#" _description="What the tree does""#);
        }
        head.push('>');
        w.line(1, &head);
        if self.chance(0.1) {
            self.feature("comment before the root node");
            let c = self.comment_text();
            w.comment(2, &c);
        }
        w.node(2, t.body.as_ref().unwrap());
        w.line(1, "</BehaviorTree>");
    }

    fn models(&mut self, w: &mut Writer) {
        let customs: Vec<Custom> = self
            .customs
            .iter()
            .filter(|c| c.modelled)
            .cloned()
            .collect();
        let trees: Vec<TreeDef> = self
            .trees
            .iter()
            .filter(|t| t.model.is_some())
            .cloned()
            .collect();
        if customs.is_empty() && trees.is_empty() {
            return;
        }
        if self.chance(0.3) {
            self.feature("comment before <TreeNodesModel>");
            w.comment(1, " Description of Node Models (used by Groot) ");
        }
        w.line(1, "<TreeNodesModel>");
        for c in &customs {
            self.feature(format!("model of a custom {}", c.kind.to_lowercase()));
            let editable = if self.chance(0.4) {
                r#" editable="true""#
            } else {
                ""
            };
            if c.ports.is_empty() && self.chance(0.5) {
                w.line(2, &format!(r#"<{} ID="{}"{editable}/>"#, c.kind, c.id));
                continue;
            }
            w.line(2, &format!(r#"<{} ID="{}"{editable}>"#, c.kind, c.id));
            for (name, ty, default, doc) in &c.ports {
                let dir = if name == "result" {
                    "output_port"
                } else if self.chance(0.15) {
                    "inout_port"
                } else {
                    "input_port"
                };
                let mut el = format!(r#"<{dir} name="{name}""#);
                if !ty.is_empty() {
                    self.feature("model port with a type");
                    el.push_str(&format!(r#" type="{ty}""#));
                }
                if let Some(d) = default {
                    self.feature("model port with a default");
                    el.push_str(&format!(r#" default="{d}""#));
                }
                match doc {
                    Some(d) => {
                        self.feature("model port with a description");
                        w.line(3, &format!("{el}>{d}</{dir}>"));
                    }
                    None => w.line(3, &format!("{el}/>")),
                }
            }
            self.metadata(w);
            w.line(2, &format!("</{}>", c.kind));
        }
        for t in &trees {
            self.feature(if t.external {
                "SubTree model of an included tree"
            } else {
                "SubTree model of a local tree"
            });
            w.line(2, &format!(r#"<SubTree ID="{}">"#, t.id));
            for (dir, name, default) in t.model.as_ref().unwrap() {
                match default {
                    Some(d) => w.line(3, &format!(r#"<{dir} name="{name}" default="{d}"/>"#)),
                    None => w.line(3, &format!(r#"<{dir} name="{name}"/>"#)),
                }
            }
            self.metadata(w);
            w.line(2, "</SubTree>");
        }
        w.line(1, "</TreeNodesModel>");
    }

    fn metadata(&mut self, w: &mut Writer) {
        if self.version == Version::V4 && self.chance(0.3) {
            self.feature("<MetadataFields>");
            w.line(3, "<MetadataFields>");
            w.line(4, r#"<Metadata subcategory="Motion"/>"#);
            if self.chance(0.5) {
                w.line(4, r#"<Metadata runnable="true"/>"#);
            }
            w.line(3, "</MetadataFields>");
        }
        if self.chance(0.15) {
            self.feature("unknown element in a model entry");
            w.line(3, "<unknown_element note=\"kept\"/>");
        }
    }
}

const V3_ONLY: &[&str] = &[
    "SequenceStar",
    "BlackboardCheckInt",
    "BlackboardCheckDouble",
    "BlackboardCheckString",
    "SubTreePlus",
];

/// A literal of a C++ type (`choice` picks among a few).
fn literal_for(ty: &str, choice: usize) -> &'static str {
    let c = choice % 3;
    match ty {
        "int" | "unsigned int" => ["3", "0", "12"][c],
        "double" | "float" => ["1.5", "0.25", "3"][c],
        "bool" => ["true", "false", "true"][c],
        "BT::NodeStatus" => ["SUCCESS", "FAILURE", "SUCCESS"][c],
        _ => ["fast", "a b", "42"][c],
    }
}

/// `edits` random edits: insert, delete, substitute a letter, or swap two neighbours.
fn edit(rng: &mut TestRng, word: &str, edits: usize) -> String {
    let mut w: Vec<char> = word.chars().collect();
    for _ in 0..edits {
        let len = w.len();
        let i = rng.random_range(0..len.max(1));
        let letter = (b'a' + rng.random_range(0..26u8)) as char;
        match rng.random_range(0..4) {
            0 => w.insert(i, letter),
            1 if len > 3 => {
                w.remove(i);
            }
            2 if i + 1 < len => w.swap(i, i + 1),
            _ => w[i.min(len - 1)] = letter,
        }
    }
    w.into_iter().collect()
}

fn node_id(n: &Node) -> &str {
    n.attrs
        .iter()
        .find(|a| a.0 == "ID")
        .map(|a| a.1.as_str())
        .unwrap_or(&n.tag)
}

fn at<'a>(n: &'a Node, path: &[usize]) -> &'a Node {
    path.iter().fold(n, |n, &i| match &n.children[i] {
        Child::Node(c) => c,
        Child::Comment(_) => unreachable!("paths lead to nodes"),
    })
}

fn at_mut<'a>(n: &'a mut Node, path: &[usize]) -> &'a mut Node {
    path.iter().fold(n, |n, &i| match &mut n.children[i] {
        Child::Node(c) => c,
        Child::Comment(_) => unreachable!("paths lead to nodes"),
    })
}

/// Renames attribute `from` to `to`, or adds `to` with `value` when the node lacks `from`.
fn set_attr(n: &mut Node, from: &str, to: &str, value: &str) {
    match n.attrs.iter_mut().find(|a| a.0 == from) {
        Some(a) => a.0 = to.to_string(),
        None => n.attrs.push((to.to_string(), value.to_string())),
    }
}

fn set_value(n: &mut Node, port: &str, value: &str) {
    match n.attrs.iter_mut().find(|a| a.0 == port) {
        Some(a) => a.1 = value.to_string(),
        None => n.attrs.push((port.to_string(), value.to_string())),
    }
}

/// Prints elements in one indentation style.
struct Writer {
    indent: Indent,
    out: String,
}

impl Writer {
    fn new(indent: Indent) -> Writer {
        Writer {
            indent,
            out: String::new(),
        }
    }

    fn pad(&self, depth: usize) -> String {
        match self.indent {
            Indent::Two => "  ".repeat(depth),
            Indent::Four => "    ".repeat(depth),
            Indent::Tab => "\t".repeat(depth),
            Indent::OneLine => String::new(),
        }
    }

    fn line(&mut self, depth: usize, text: &str) {
        let pad = self.pad(depth);
        self.out.push_str(&pad);
        self.out.push_str(text);
        if !matches!(self.indent, Indent::OneLine) {
            self.out.push('\n');
        }
    }

    fn comment(&mut self, depth: usize, text: &str) {
        self.line(depth, &format!("<!--{text}-->"));
    }

    fn node(&mut self, depth: usize, n: &Node) {
        let mut head = format!("<{}", n.tag);
        // Groot 2 puts each attribute of a long element on its own line.
        let long = n.attrs.len() > 3 && !matches!(self.indent, Indent::OneLine);
        for (k, v) in &n.attrs {
            if long {
                head.push('\n');
                head.push_str(&self.pad(depth + 2));
            } else {
                head.push(' ');
            }
            head.push_str(&format!("{k}=\"{v}\""));
        }
        if n.children.is_empty() {
            self.line(depth, &format!("{head}/>"));
            return;
        }
        self.line(depth, &format!("{head}>"));
        for c in &n.children {
            match c {
                Child::Node(c) => self.node(depth + 1, c),
                Child::Comment(t) => self.comment(depth + 1, t),
            }
        }
        self.line(depth, &format!("</{}>", n.tag));
    }
}

/// Every feature a run of `version` must have generated at least once.
pub fn required_features(version: Version, builtins: &[Builtin]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for b in builtins {
        for form in ["compact", "explicit"] {
            out.push(format!("built-in {} {form}", b.id));
        }
    }
    for kind in ["action", "condition", "decorator", "control"] {
        for m in ["with model", "without model"] {
            out.push(format!("custom {kind} {m}"));
        }
        out.push(format!("model of a custom {kind}"));
    }
    let common = [
        "custom node explicit",
        "custom node compact",
        "indent: two spaces",
        "indent: four spaces",
        "indent: tabs",
        "indent: one line",
        "comment before <root>",
        "comment between trees",
        "comment before the root node",
        "comment between nodes",
        "comment after the last node",
        "comment before <TreeNodesModel>",
        "comment after </root>",
        "no main_tree_to_execute",
        "<include> across files",
        "model port with a type",
        "model port with a default",
        "model port with a description",
        "unknown element in a model entry",
        "SubTree model of a local tree",
        "SubTree model of an included tree",
        "timer of at least 50 ms",
        "mutation: misspelt node",
        "mutation: misspelt port",
        "mutation: unknown port",
        "mutation: value of the wrong type",
        "_autoremap",
    ];
    out.extend(common.iter().map(|s| s.to_string()));
    match version {
        Version::V3 => {
            out.extend(["v3 SubTree", "v3 SubTreePlus"].map(String::from));
        }
        Version::V4 => {
            out.extend(
                [
                    "SubTree of a local tree",
                    "SubTree of an included tree",
                    "SubTree name",
                    "_description",
                    "_description on a tree",
                    "_favorite",
                    "_uid",
                    "_fullpath",
                    "_skipIf",
                    "_successIf",
                    "_failureIf",
                    "_while",
                    "_onSuccess",
                    "_onFailure",
                    "_onHalted",
                    "_post",
                    "<MetadataFields>",
                    "script of 1 statement",
                    "script of 2 statements",
                    "script over several lines (&#10;)",
                    "script over several lines (raw line break)",
                    "script entity &amp;",
                    "script entity &apos;",
                ]
                .map(String::from),
            );
        }
    }
    out
}

/// Counts of each feature over a run.
pub type Coverage = BTreeMap<String, usize>;
