//! The `affect` command: argument parsing and dispatch only. Each subcommand lives in
//! `commands/`.

mod commands;
mod experiment;
mod files;
mod html_report;
mod observers;
mod treegen;

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

/// The affect toolchain: check, format, run and export affective robot behaviour.
#[derive(Parser)]
#[command(name = "affect", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Source excerpts with labels, for people.
    Human,
    /// One JSON document with every diagnostic, for tools.
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Check .affect files and report every error and warning.
    ///
    /// Exit status: 0 when no errors were found (warnings allowed), 1 when any error was
    /// reported, 2 when a file could not be read or the arguments were wrong.
    Check {
        /// Files to check.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        /// How to print diagnostics.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Format .affect files in place in the one canonical layout.
    ///
    /// Comments and doc comments are kept; meaning never changes. Files with syntax errors
    /// are left untouched and their errors reported.
    Fmt {
        /// Files to format.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        /// Change nothing; exit 1 if any file is not formatted, naming it.
        #[arg(long)]
        check: bool,
        /// Print the formatted text to standard output instead of writing the file.
        #[arg(long, conflicts_with = "check")]
        stdout: bool,
    },
    /// Run a program in a simulated world (or its main tree, for a file without agents).
    ///
    /// Agents tick at their rates: sense, process, act. Foreign nodes nobody implements
    /// return `--leaf-default` (success) or their `--leaf` override; foreign decorators pass
    /// their child's status through, foreign control nodes are sequences. Same program, world
    /// and seed: same trace, bit for bit. Groot / BehaviorTree.CPP XML runs directly (imported
    /// in memory).
    Run(Box<commands::run::RunArgs>),
    /// Replay a recorded run (`affect run FILE --record RECORD`) in the simulator on its
    /// recorded device reads: the same trace, checked tick by tick (timing aside), with the
    /// interpreter or the JIT. See docs/raspberry-pi.md.
    Replay(commands::record::ReplayArgs),
    /// Install a systemd unit that runs a program on the robot (`affect run FILE --hardware`
    /// and the options after `--`) at boot, and starts it again when it ends. `--dry-run`
    /// prints it, `-o FILE` writes it elsewhere (no root needed). See docs/raspberry-pi.md.
    InstallService(commands::service::ServiceArgs),
    /// Set every actuator of the robot's agent to its safe state (motors stopped, outputs at
    /// their `safe:` level) on handles of its own, and exit: what systemd runs after the
    /// robot's unit stopped (`ExecStopPost=`). See docs/raspberry-pi.md.
    SafeStop(commands::safe_stop::SafeStopArgs),
    /// Run an experiment: a program over a grid of parameters and seeds, in parallel, with
    /// measures taken from each run's events and tables of means with 95 % confidence
    /// intervals (see docs/experiments.md and experiments/).
    Experiment(commands::experiment::ExperimentArgs),
    /// Time the program's ticks and print one JSON object (ns per tick and per node tick,
    /// compile time, state size).
    Bench(commands::bench::BenchArgs),
    /// Import a Groot / BehaviorTree.CPP XML file (v3 or v4) as readable `.affect` text.
    ///
    /// Custom nodes become declarations (inferred, with a warning, when the file has no model
    /// for them), blackboard entries become tree `var`s, scripts become affect statements.
    /// Exit status 1 when BehaviorTree.CPP would refuse the file (nothing is written).
    Import(commands::import::ImportArgs),
    /// Compile a program to an artefact: `--emit groot` (BehaviorTree.CPP 4 / Groot 2 XML) or
    /// `--emit groot-v3` (BehaviorTree.CPP 3 / Groot 1 XML).
    Build(commands::build::BuildArgs),
    /// Convert BehaviorTree.CPP XML between v3 (Groot 1) and v4 (Groot 2).
    Convert(commands::convert::ConvertArgs),
    /// Write the HTML report of a run's trace: the tree's statuses over time, the affect
    /// variables, drives and emotions, the story. One self-contained file (no network),
    /// summarised to stay under 10 MB however long the trace.
    Report(commands::html_report::ReportArgs),
    /// Start a team: one process per robot and per component host of the world, on
    /// loopback Zenoh, supervised; faults injected on request; traces merged
    /// (docs/network.md).
    #[cfg(feature = "net")]
    Launch(commands::net::LaunchArgs),
    /// Run the components a world places on one host, as its own process on the network
    /// (`affect launch` starts these; docs/network.md).
    #[cfg(feature = "net")]
    Host(commands::net::HostArgs),
    /// Generate a team's signing keys: one Ed25519 key per robot, component host and the
    /// launcher, and the team's public key file (docs/network.md).
    #[cfg(feature = "net")]
    Keys(commands::net::KeysArgs),
    /// Look into long-term emotional memory files (`memory .. { persist "FILE"; }`).
    Memory {
        #[command(subcommand)]
        command: commands::memory::MemoryCommand,
    },
    /// Write a seeded benchmark tree of exactly N built-in BehaviorTree.CPP nodes, and check
    /// benchmark results against its reference.
    GenTree(commands::gen_tree::GenTreeArgs),
    /// Print the explanation of a diagnostic code, with a wrong and a corrected example.
    Explain {
        /// A code such as E0101 (case does not matter).
        code: String,
    },
    /// Run the language server on standard input and output (for editors).
    ///
    /// Diagnostics as `affect check` reports them, hover, go to definition, document
    /// symbols, completion and formatting. Editors start it themselves; see docs/editors.md.
    Lsp {
        /// Accepted for editors that pass it (the transport is always standard I/O).
        #[arg(long)]
        stdio: bool,
    },
    /// The watchdog process of `affect run --hardware` (started by the run itself).
    #[command(name = "__watchdog", hide = true)]
    Watchdog {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

/// mimalloc serves every allocation of the command. The front end (the XML import, the
/// checker, the lowering) makes many small allocations, and the command runs on a thread of
/// its own (the stack below), whose glibc arena grew one `mprotect` call at a time: about a
/// third of a 10,000-node start was in glibc's malloc, free and heap growth
/// (docs/performance.md, *Start-up*).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (`mimalloc.h`, 15 in v2 and v3; the binding names no
/// constant for it).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Freed memory goes back to the system at once instead of after mimalloc's default 10 ms:
/// each phase frees what the one before it built, and with the delay those frees overlapped
/// the next phase's allocations (`check` of 200,000 ports peaked at 230 MB instead of 156).
fn purge_freed_memory_at_once() {
    // SAFETY: sets one allocator parameter, before any thread of ours starts.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 0) }
}

/// The stack of the thread that runs a command. The phases walk syntax trees recursively;
/// the parser refuses files nested deeper than `MAX_DEPTH`, and this leaves every phase
/// (even an unoptimised build) a wide margin at that depth. Untouched stack costs nothing.
const STACK_BYTES: usize = 256 * 1024 * 1024;

fn main() -> ExitCode {
    purge_freed_memory_at_once();
    // The command line is read on the command's thread too: mimalloc keeps a heap per
    // thread, so what the parse allocated and freed is memory the command then reuses, not
    // fresh pages that each cost a page fault at their first touch.
    let status = std::thread::Builder::new()
        .name("affect".into())
        .stack_size(STACK_BYTES)
        .spawn(|| run(Cli::parse()))
        .map(|worker| worker.join());
    match status {
        Ok(Ok(status)) => ExitCode::from(status),
        // A panic has been printed by the panic hook; exit as Rust does after one.
        Ok(Err(_)) => ExitCode::from(101),
        Err(e) => {
            eprintln!("error: cannot start the command: {e}");
            ExitCode::from(101)
        }
    }
}

fn run(cli: Cli) -> u8 {
    match cli.command {
        Command::Check { files, format } => commands::check::run(&files, format),
        Command::Fmt {
            files,
            check,
            stdout,
        } => commands::fmt::run(&files, check, stdout),
        Command::Explain { code } => commands::explain::run(&code),
        Command::Lsp { stdio: _ } => commands::lsp::run(),
        Command::Watchdog { args } => commands::safe_stop::watchdog(&args),
        Command::Run(args) => commands::run::run(&args),
        Command::Replay(args) => commands::record::replay(&args),
        Command::InstallService(args) => commands::service::install(&args),
        Command::SafeStop(args) => commands::safe_stop::run(&args),
        Command::Bench(args) => commands::bench::run(&args),
        Command::Experiment(args) => commands::experiment::run(&args),
        Command::Import(args) => commands::import::run(&args),
        Command::Build(args) => commands::build::run(&args),
        Command::Convert(args) => commands::convert::run(&args),
        Command::Report(args) => commands::html_report::run(&args),
        Command::Memory { command } => commands::memory::run(&command),
        Command::GenTree(args) => commands::gen_tree::run(&args),
        #[cfg(feature = "net")]
        Command::Launch(args) => commands::net::launch(&args),
        #[cfg(feature = "net")]
        Command::Host(args) => commands::net::host(&args),
        #[cfg(feature = "net")]
        Command::Keys(args) => commands::net::keys(&args),
    }
}

#[cfg(test)]
mod tests {
    /// clap checks its own definitions only when a command is built in a debug build: every
    /// subcommand is checked here, not only those a test happens to run (a flag that
    /// conflicts with one its subcommand lacks panics at start).
    #[test]
    fn every_command_line_is_well_formed() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }
}
