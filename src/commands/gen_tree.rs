//! `affect gen-tree --size N --seed S`: a benchmark tree of exactly N built-in BehaviorTree.CPP
//! nodes (XML), its initial blackboard, and a check of what a run computed against the
//! generator's own reference (see `treegen.rs`). The benches and `scripts/compare.py` use it.

use super::{FAILED, OK, USAGE};
use crate::files;
use crate::treegen::{Spec, Tree};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct GenTreeArgs {
    /// Exact number of nodes.
    #[arg(long)]
    pub size: usize,
    /// The same seed gives the same tree.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Number of blackboard doubles the scripts work on (`x0`, `x1`, ...).
    #[arg(long, default_value_t = 6)]
    pub vars: usize,
    /// Most children of a control node.
    #[arg(long, default_value_t = 8)]
    pub fanout: usize,
    /// No scripts (AlwaysSuccess/AlwaysFailure leaves): the framework's cost alone.
    #[arg(long)]
    pub leaf_only: bool,
    /// Write the XML here (atomically) instead of to standard output.
    #[arg(short, long, value_name = "OUT.xml")]
    pub output: Option<PathBuf>,
    /// Print the initial blackboard as `--bb KEY=VALUE` arguments instead of the XML.
    #[arg(long)]
    pub bb_args: bool,
    /// Print what the tree computes in K root ticks (JSON) instead of the XML.
    #[arg(long, value_name = "K")]
    pub expect: Option<u64>,
    /// Check a benchmark's JSON (`affect bench`, `btcpp_oracle bench`, ...: its `total_ticks`,
    /// `nodes`, `node_ticks_per_tick` and `blackboard`) against the reference; exit 1 if it
    /// differs.
    #[arg(long, value_name = "FILE.json")]
    pub check_bench: Option<PathBuf>,
}

pub fn run(args: &GenTreeArgs) -> u8 {
    if args.size == 0 || args.vars == 0 || args.fanout < 2 {
        eprintln!("error: --size and --vars must be at least 1, --fanout at least 2");
        return USAGE;
    }
    let tree = Tree::generate(Spec {
        size: args.size,
        seed: args.seed,
        vars: args.vars,
        fanout: args.fanout,
        leaf_only: args.leaf_only,
    });
    if let Some(path) = &args.check_bench {
        return check_bench(&tree, path);
    }
    let text = if args.bb_args {
        let args: Vec<String> = tree
            .presets()
            .iter()
            .map(|kv| format!("--bb {kv}"))
            .collect();
        args.join(" ") + "\n"
    } else if let Some(k) = args.expect {
        expectation_json(&tree, k).to_string() + "\n"
    } else {
        tree.xml()
    };
    let out = if args.bb_args || args.expect.is_some() {
        None
    } else {
        args.output.as_deref()
    };
    match files::write_output(out, &text) {
        Ok(()) => {
            if let Some(out) = out {
                files::tell_written(out);
            }
            OK
        }
        Err(e) => {
            eprintln!("error: {e}");
            FAILED
        }
    }
}

fn expectation_json(tree: &Tree, ticks: u64) -> serde_json::Value {
    let e = tree.expect(ticks);
    let bb: serde_json::Map<String, serde_json::Value> = e
        .blackboard
        .iter()
        .map(|(k, v)| (k.clone(), serde_json::json!(v)))
        .collect();
    let roots: Vec<&str> = e
        .root_success
        .iter()
        .map(|s| if *s { "SUCCESS" } else { "FAILURE" })
        .collect();
    serde_json::json!({
        "ticks": e.ticks,
        "nodes": e.nodes,
        "root_status": roots,
        "node_ticks_per_tick": e.node_ticks_per_tick,
        "blackboard": bb,
    })
}

/// Compares a benchmark's result with the reference; prints one JSON line either way.
fn check_bench(tree: &Tree, path: &std::path::Path) -> u8 {
    let got: serde_json::Value = match files::read_source(path)
        .map_err(|e| e.message)
        .and_then(|t| serde_json::from_str(&t).map_err(|e| format!("{}: {e}", path.display())))
    {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: {e}");
            return USAGE;
        }
    };
    let Some(ticks) = got["total_ticks"].as_u64() else {
        eprintln!("error: {} has no `total_ticks`", path.display());
        return USAGE;
    };
    let want = tree.expect(ticks);
    let mut problems = Vec::new();
    for (k, v) in &want.blackboard {
        match got["blackboard"][k].as_f64() {
            Some(g) if g == *v || (g.is_nan() && v.is_nan()) => {}
            Some(g) => problems.push(format!("{k}: {g:?}, the reference says {v:?}")),
            None => problems.push(format!("{k}: missing (the reference says {v:?})")),
        }
    }
    if got["nodes"].as_u64() != Some(want.nodes as u64) {
        problems.push(format!("nodes {} != {}", got["nodes"], want.nodes));
    }
    if got["node_ticks_per_tick"].as_f64() != Some(want.nodes as f64) {
        problems.push(format!(
            "node_ticks_per_tick {} != {}",
            got["node_ticks_per_tick"], want.nodes
        ));
    }
    let ok = problems.is_empty();
    println!(
        "{}",
        serde_json::json!({"check": "bench", "ticks": ticks, "ok": ok, "problems": problems})
    );
    if ok {
        OK
    } else {
        FAILED
    }
}
