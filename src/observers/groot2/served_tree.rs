//! The tree a Groot 2 client sees (the FULLTREE reply, and the head of a `.btlog` file):
//! BehaviorTree.CPP's `WriteTreeToXML(tree, add_metadata = true)` for one agent instance.
//!
//! The node table of the tick program is the truth about uids and subtree instances (uid
//! `i + 1` is node `i`, pre-order, descending into each subtree where it is called); the
//! Groot exporter (`affect build --emit groot`) is the truth about how each node is written
//! (its ports, pre/post scripts, descriptions). So the document is built by walking the node
//! table and, next to it, the exported element of the same node, whose attributes are
//! copied. One `<BehaviorTree>` per subtree instance, each with its `_fullpath`, as
//! BehaviorTree.CPP writes it.
//!
//! An agent whose behaviour modules run trees of their own has several roots; BehaviorTree.CPP
//! has one. The served main tree is then a `ParallelAll` named `behaviors` (uid: one past the
//! last node, always IDLE) over the main tree and the modules' subtrees.

use affect_compiler::groot::carry;
use affect_compiler::groot::xml::{self, Document, Element, XmlNode};
use affect_compiler::ir::program::{AgentProgram, NodeKind};

/// The served document and the order of the uids in STATUS replies (BehaviorTree.CPP's:
/// tree instance by tree instance, each in node order).
pub struct ServedTree {
    pub xml: String,
    pub uids: Vec<u16>,
    /// Blackboard names: the main tree's ID, then each subtree instance's path.
    pub boards: Vec<String>,
}

/// The attributes of ours that are not BehaviorTree.CPP's to see, or that the served tree
/// writes itself.
const NOT_COPIED: &[&str] = &[
    "name",
    "ID",
    "_uid",
    "_fullpath",
    carry::AFFECT,
    carry::BODY,
    carry::INIT,
];

/// Builds the served tree of `agent`. `exported` is the Groot XML of the program (or `None`
/// when it could not be exported: the nodes are then written without ports).
pub fn build(agent: &AgentProgram, main_id: &str, exported: Option<&Document>) -> ServedTree {
    let defs = Definitions::of(exported);
    let mut w = Writer {
        agent,
        defs: &defs,
        instances: Vec::new(),
    };
    let mut main = Element::new("BehaviorTree")
        .with("ID", main_id)
        .with("_fullpath", "");
    let main_def = defs.tree(main_id);
    let mut order = Vec::new();
    if agent.roots.is_empty() {
        if let Some(root) = agent.root {
            main.children.push(XmlNode::Element(w.node(root, main_def)));
        }
    } else {
        // Several roots: a stand-in parallel over all of them (see the module comment).
        let extra = agent.nodes.len() as u32 + 1;
        let mut all = Element::new("ParallelAll")
            .with("name", "behaviors")
            .with("_uid", extra.to_string());
        if let Some(root) = agent.root {
            all.children.push(XmlNode::Element(w.node(root, main_def)));
        }
        for r in &agent.roots {
            all.children.push(XmlNode::Element(w.node(r.root, None)));
        }
        main.children.push(XmlNode::Element(all));
        order.push(extra as u16);
    }
    let mut root = Element::new("root")
        .with("BTCPP_format", "4")
        .with("main_tree_to_execute", main_id);
    root.children.push(XmlNode::Element(main));
    // Instances in creation order: the main tree's nodes, then each subtree's.
    let mut boards = vec![main_id.to_string()];
    let main_nodes = instance_nodes(agent, agent.root, &agent.roots);
    order.extend(main_nodes.iter().map(|&n| (n + 1) as u16));
    let mut k = 0;
    while k < w.instances.len() {
        let (node, body) = w.instances[k].clone();
        let n = &agent.nodes[node as usize];
        let tree = tree_name(agent, node);
        let mut bt = Element::new("BehaviorTree")
            .with("ID", tree.clone())
            .with("_fullpath", n.path.clone());
        if let Some(el) = body {
            bt.children.push(XmlNode::Element(el));
        }
        root.children.push(XmlNode::Element(bt));
        boards.push(n.path.clone());
        let first = child_ids(agent, node).first().copied();
        order.extend(
            instance_nodes(agent, first, &[])
                .iter()
                .map(|&i| (i + 1) as u16),
        );
        k += 1;
    }
    if let Some(models) = defs.models {
        root.children.push(XmlNode::Element(strip(models)));
    }
    let doc = Document {
        nodes: vec![XmlNode::Element(root)],
    };
    ServedTree {
        xml: xml::write(&doc),
        uids: order,
        boards,
    }
}

/// The exported document's `<BehaviorTree>` definitions by ID, and its model.
struct Definitions<'d> {
    trees: Vec<(&'d str, &'d Element)>,
    models: Option<&'d Element>,
}

impl<'d> Definitions<'d> {
    fn of(doc: Option<&'d Document>) -> Definitions<'d> {
        let mut trees = Vec::new();
        let mut models = None;
        if let Some(root) = doc.and_then(|d| d.root()) {
            for el in root.elements() {
                match el.name.as_str() {
                    "BehaviorTree" => {
                        if let (Some(id), Some(body)) = (el.attr("ID"), el.elements().next()) {
                            trees.push((id, body));
                        }
                    }
                    "TreeNodesModel" => models = Some(el),
                    _ => {}
                }
            }
        }
        Definitions { trees, models }
    }

    fn tree(&self, id: &str) -> Option<&'d Element> {
        self.trees.iter().find(|(t, _)| *t == id).map(|(_, e)| *e)
    }
}

struct Writer<'a, 'd> {
    agent: &'a AgentProgram,
    defs: &'a Definitions<'d>,
    /// Subtree instances met so far: the SubTree node and its body's element.
    instances: Vec<(u32, Option<Element>)>,
}

fn child_ids(agent: &AgentProgram, node: u32) -> &[u32] {
    let (first, count) = agent.nodes[node as usize].children;
    agent
        .children
        .get(first as usize..(first + count) as usize)
        .unwrap_or(&[])
}

/// The tree a SubTree node instantiates (the scope recorded for its path), else its ID.
fn tree_name(agent: &AgentProgram, node: u32) -> String {
    let n = &agent.nodes[node as usize];
    agent
        .scopes
        .iter()
        .find(|s| s.path == n.path)
        .map_or_else(|| n.id.clone(), |s| s.tree.clone())
}

/// The nodes of one tree instance in node order, stopping at subtree calls (the SubTree node
/// belongs to the caller, its body to the instance).
fn instance_nodes(
    agent: &AgentProgram,
    root: Option<u32>,
    more: &[affect_compiler::ir::program::TreeRoot],
) -> Vec<u32> {
    let mut out = Vec::new();
    let mut stack: Vec<u32> = more.iter().rev().map(|r| r.root).collect();
    stack.extend(root);
    while let Some(n) = stack.pop() {
        out.push(n);
        if !matches!(agent.nodes[n as usize].kind, NodeKind::SubTree { .. }) {
            stack.extend(child_ids(agent, n).iter().rev());
        }
    }
    out.sort_unstable();
    out
}

/// The ID an exported element stands for: its tag, or `ID` in the explicit form.
fn element_id(el: &Element) -> &str {
    match el.name.as_str() {
        "Action" | "Condition" | "Control" | "Decorator" | "SubTree" => {
            el.attr("ID").unwrap_or(&el.name)
        }
        _ => &el.name,
    }
}

/// An element's children that are nodes of the tick program (not the `var` initialiser).
fn node_children(el: &Element) -> Vec<&Element> {
    el.elements()
        .filter(|c| c.attr(carry::INIT) != Some("true"))
        .collect()
}

/// The exported element written for `node`: `el` itself, or, when `el` is the sequence
/// that holds a body of one node (an agent's `main`), that node.
fn matching<'d>(el: &'d Element, id: &str) -> Option<&'d Element> {
    if element_id(el) == id {
        return Some(el);
    }
    if el.attr(carry::BODY) == Some("true") {
        if let [only] = node_children(el).as_slice() {
            return matching(only, id);
        }
    }
    None
}

impl Writer<'_, '_> {
    fn node(&mut self, node: u32, def: Option<&Element>) -> Element {
        let n = &self.agent.nodes[node as usize];
        let subtree = matches!(n.kind, NodeKind::SubTree { .. });
        let want = if subtree {
            tree_name(self.agent, node)
        } else {
            n.id.clone()
        };
        let def = def.and_then(|d| matching(d, &want));
        let mut el = if subtree {
            Element::new("SubTree")
                .with("ID", want.clone())
                .with("_fullpath", n.path.clone())
        } else {
            Element::new(n.id.clone()).with("name", n.name.clone())
        };
        el.set("_uid", (node + 1).to_string());
        if let Some(d) = def {
            for a in &d.attrs {
                if !NOT_COPIED.contains(&a.name.as_str()) {
                    el.set(&a.name, a.value.clone());
                }
            }
        }
        let kids = child_ids(self.agent, node).to_vec();
        if subtree {
            // The body goes into the instance's own <BehaviorTree>, written after.
            let at = self.instances.len();
            self.instances.push((node, None));
            if let Some(&body) = kids.first() {
                let body_def = self.defs.tree(&want);
                let written = self.node(body, body_def);
                self.instances[at].1 = Some(written);
            }
            return el;
        }
        let defs: Vec<&Element> = def.map(node_children).unwrap_or_default();
        let paired = defs.len() == kids.len();
        for (i, &k) in kids.iter().enumerate() {
            let d = if paired { Some(defs[i]) } else { None };
            let child = self.node(k, d);
            el.children.push(XmlNode::Element(child));
        }
        el
    }
}

/// A copy of the model without our own attributes.
fn strip(el: &Element) -> Element {
    let mut out = Element::new(el.name.clone());
    for a in &el.attrs {
        if !a.name.starts_with("_affect") {
            out.set(&a.name, a.value.clone());
        }
    }
    for c in &el.children {
        out.children.push(match c {
            XmlNode::Element(e) => XmlNode::Element(strip(e)),
            other => other.clone(),
        });
    }
    out
}
