//! Experiments (`affect experiment`, docs/experiments.md): a program run over a grid of
//! parameters and seeds, measures taken from each run's events, tables of means with
//! confidence intervals. The runs are independent, so they go in parallel on every core
//! (rayon); results are put back in grid order, so the output does not depend on which run
//! finished first.

pub mod apply;
pub mod measure;
pub mod report;
pub mod spec;

use affect_compiler::ir::program::Program;
use affect_runtime::run::{Run, SimClock};
use rayon::prelude::*;
use report::RunResult;
use spec::{Kind, Spec};

/// A run to make: its cell and seed.
struct Job {
    cell: usize,
    seed: u64,
}

/// Runs every cell of the grid `seeds` times. `tick` is called once per finished run (from
/// any thread). `Err` names the first cell that could not be set up or run.
pub fn run_all(
    spec: &Spec,
    program: &Program,
    seeds: u64,
    tick: &(dyn Fn() + Sync),
) -> Result<(Vec<apply::Cell>, Vec<RunResult>), String> {
    let kinds: Vec<Kind> = spec
        .measures
        .iter()
        .map(|m| m.kind())
        .collect::<Result<_, _>>()?;
    let cells = apply::cells(spec);
    let setups = cells
        .iter()
        .map(|c| apply::cell_setup(spec, program, c))
        .collect::<Result<Vec<_>, _>>()?;
    let jobs: Vec<Job> = (0..cells.len())
        .flat_map(|cell| {
            (0..seeds).map(move |i| Job {
                cell,
                seed: spec.first_seed + i,
            })
        })
        .collect();
    let runs = jobs
        .par_iter()
        .map(|job| {
            let (program, settings) = &setups[job.cell];
            let config = settings.config(job.seed);
            let mut measures = measure::Measures::new(&kinds);
            let summaries = Run::new(program, &config)
                .and_then(|r| r.run_to_end(&mut SimClock, &mut measures))
                .map_err(|d| {
                    let first = d.first().map(|d| d.message.clone()).unwrap_or_default();
                    format!(
                        "cell {} seed {}: the run failed: {first}",
                        job.cell, job.seed
                    )
                })?;
            tick();
            Ok(RunResult {
                cell: job.cell,
                seed: job.seed,
                values: measures.values(&summaries),
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok((cells, runs))
}
