//! `affect experiment FILE`: run a declared experiment (docs/experiments.md) over its grid of
//! parameters and seeds, in parallel on every core, with a progress bar, and print its
//! tables; `--out DIR` also writes `runs.csv`, `table.md` and one SVG plot per table.

use super::source;
use super::{FAILED, OK, USAGE};
use crate::experiment::{self, report, spec::Spec};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct ExperimentArgs {
    /// The experiment: a TOML file naming the program, the parameters, the measures and the
    /// tables (see docs/experiments.md and experiments/).
    #[arg(value_name = "FILE.toml")]
    pub file: PathBuf,
    /// Runs per cell of the grid (default: the file's `seeds`).
    #[arg(long, value_name = "N")]
    pub seeds: Option<u64>,
    /// Write `runs.csv`, `table.md` and the plots (`plot-N.svg`) into this directory.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Worker threads (default: one per core).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
}

fn read_spec(file: &Path) -> Result<Spec, String> {
    let text = crate::files::read_source(file).map_err(|e| e.to_string())?;
    Spec::parse(&text).map_err(|e| format!("{}: {e}", file.display()))
}

pub fn run(args: &ExperimentArgs) -> u8 {
    let spec = match read_spec(&args.file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return USAGE;
        }
    };
    let seeds = args.seeds.unwrap_or(spec.seeds);
    if seeds == 0 {
        eprintln!("error: --seeds must be at least 1");
        return USAGE;
    }
    let dir = args.file.parent().unwrap_or(Path::new(""));
    let loaded = match source::load(&dir.join(&spec.program)) {
        Ok(l) => l,
        Err(status) => return status,
    };
    let reporter = loaded.reporter();
    let Some(program) = &loaded.analysis.program else {
        reporter.finish(1);
        return FAILED;
    };
    let total = experiment::apply::cells(&spec).len() as u64 * seeds;
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} runs, {elapsed} elapsed, {eta} left")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let pool = match rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs.unwrap_or(0))
        .build()
    {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return FAILED;
        }
    };
    let tick = || bar.inc(1);
    let result = pool.install(|| experiment::run_all(&spec, program, seeds, &tick));
    bar.finish_and_clear();
    let (cells, runs) = match result {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return FAILED;
        }
    };
    let grids = report::grids(&spec, &cells, &runs);
    let table = report::markdown(&spec, &grids, seeds);
    print!("{table}");
    if let Some(out) = &args.out {
        if let Err(e) = write_out(out, &spec, &cells, &runs, &grids, &table) {
            eprintln!("error: {}: {e}", out.display());
            return FAILED;
        }
    }
    OK
}

fn write_out(
    out: &Path,
    spec: &Spec,
    cells: &[experiment::apply::Cell],
    runs: &[report::RunResult],
    grids: &[report::Grid],
    table: &str,
) -> Result<(), String> {
    std::fs::create_dir_all(out).map_err(|e| e.to_string())?;
    let write = |name: &str, text: &str| {
        std::fs::write(out.join(name), text).map_err(|e| format!("{name}: {e}"))
    };
    write("runs.csv", &report::csv(spec, cells, runs))?;
    write("table.md", table)?;
    for (i, g) in grids.iter().enumerate() {
        if let Some(svg) = report::svg(g) {
            write(&format!("plot-{}.svg", i + 1), &svg?)?;
        }
    }
    Ok(())
}
