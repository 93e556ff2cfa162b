//! A user's own crate with a leaf implemented in Rust: `Charge` (declared in
//! `charger.affect`) raises the battery level a few percent a tick and is RUNNING until it
//! reaches its target. `main` checks the program, registers the node and runs it with the
//! runtime, writing the trace as JSON Lines to standard output.
//!
//!     cargo run -p affect-custom-node-example -- examples/custom-node/charger.affect [TICKS]

use affect_compiler::ir::program::Status;
use affect_runtime::nodes::{Node, NodeRegistry, Port, PortType, Ports};
use affect_runtime::run::{self, RunConfig};
use affect_runtime::trace::JsonLines;
use std::process::ExitCode;

/// The charger: each tick adds `RATE` percent until the target.
struct Charge {
    level: f64,
}

const RATE: f64 = 7.5;

impl Node for Charge {
    fn tick(&mut self, ports: &mut Ports) -> Status {
        let Ok(target) = ports.num("target") else {
            return Status::Failure;
        };
        if ports.starting() {
            // Starts from the level the program holds.
            self.level = ports.num("from").unwrap_or(0.0);
        }
        self.level = (self.level + RATE).min(target);
        if ports.set_num("level", self.level).is_err() {
            return Status::Failure;
        }
        if self.level >= target {
            Status::Success
        } else {
            Status::Running
        }
    }

    fn halt(&mut self) {
        // Unplugged: the level stays where it got to.
    }
}

/// The registry this crate brings: one node, with the ports it uses typed as declared.
pub fn registry() -> NodeRegistry {
    let mut nodes = NodeRegistry::new();
    nodes.register(
        "Charge",
        &[
            Port::input("from", PortType::Num),
            Port::input("target", PortType::Num),
            Port::output("level", PortType::Num),
        ],
        || Charge { level: 0.0 },
    );
    nodes
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(file) = args.first() else {
        eprintln!("usage: charger FILE.affect [TICKS]");
        return ExitCode::from(2);
    };
    // The toolchain's own reader: a regular file, bounded, UTF-8 (coded errors E0801..E0805).
    let src = match affect_files::read_source(std::path::Path::new(file)) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let analysis = affect_compiler::check_source_with(&src, &affect_compiler::sema::NoFiles);
    for d in &analysis.diagnostics {
        eprint!("{}", affect_compiler::render::human(d, file, &src, false));
    }
    let Some(program) = &analysis.program else {
        return ExitCode::FAILURE;
    };
    let config = RunConfig {
        ticks: args.get(1).and_then(|t| t.parse().ok()).unwrap_or(20),
        nodes: registry(),
        ..RunConfig::default()
    };
    let mut trace = JsonLines::new(std::io::stdout().lock());
    match run::run(program, &config, &mut trace, |_| {}) {
        Ok(summaries) => {
            for s in summaries {
                eprintln!("{}: {} ticks, root {:?}", s.agent, s.ticks, s.root);
            }
            ExitCode::SUCCESS
        }
        Err(diags) => {
            for d in &diags {
                eprint!("{}", affect_compiler::render::human(d, file, &src, false));
            }
            ExitCode::FAILURE
        }
    }
}
