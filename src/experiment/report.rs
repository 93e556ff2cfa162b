//! An experiment's results written out: one CSV row per run, Markdown tables of means with
//! 95 % confidence intervals (Student's t), and one SVG line plot per table. Everything is
//! formatted from the runs in grid order, so the same inputs give the same files, byte for
//! byte.

use super::apply::Cell;
use super::spec::{value_text, Spec, Table};
use plotters::prelude::*;
use plotters::style::Palette99;
use std::fmt::Write;

/// One finished run: its cell, its seed and its measures (`None`: undefined in that run).
pub struct RunResult {
    pub cell: usize,
    pub seed: u64,
    pub values: Vec<Option<f64>>,
}

/// Two-sided 95 % quantiles of Student's t for 1..=30 degrees of freedom; beyond, the normal
/// 1.96 is within 2 %.
const T95: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

/// Mean, half-width of the 95 % confidence interval (0 for one value), and how many runs had
/// the measure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stat {
    pub mean: f64,
    pub half: f64,
    pub n: usize,
}

pub fn stat(xs: &[f64]) -> Option<Stat> {
    let n = xs.len();
    if n == 0 {
        return None;
    }
    let mean = xs.iter().sum::<f64>() / n as f64;
    let half = if n < 2 {
        0.0
    } else {
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let t = T95.get(n - 2).copied().unwrap_or(1.96);
        t * (var / n as f64).sqrt()
    };
    Some(Stat { mean, half, n })
}

/// `runs.csv`: the parameters' values, the seed, and every measure (empty when undefined).
pub fn csv(spec: &Spec, cells: &[Cell], runs: &[RunResult]) -> String {
    let mut out = String::new();
    let mut head: Vec<String> = spec.parameters.iter().map(|p| p.name.clone()).collect();
    head.push("seed".into());
    head.extend(spec.measures.iter().map(|m| m.name.clone()));
    out.push_str(&head.join(","));
    out.push('\n');
    for r in runs {
        let mut row: Vec<String> = spec
            .parameters
            .iter()
            .zip(&cells[r.cell])
            .map(|(p, &i)| csv_field(&value_text(&p.values[i])))
            .collect();
        row.push(r.seed.to_string());
        row.extend(
            r.values
                .iter()
                .map(|v| v.map(|x| x.to_string()).unwrap_or_default()),
        );
        out.push_str(&row.join(","));
        out.push('\n');
    }
    out
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The statistics of one measure over the runs of the cells a selection picks.
fn cell_stat(
    runs: &[RunResult],
    cells: &[Cell],
    m: usize,
    pick: &[(usize, usize)],
) -> Option<Stat> {
    let xs: Vec<f64> = runs
        .iter()
        .filter(|r| pick.iter().all(|&(p, i)| cells[r.cell][p] == i))
        .filter_map(|r| r.values[m])
        .collect();
    stat(&xs)
}

/// The fixed values of the parameters a table does not show: one table per combination.
fn others(spec: &Spec, t: &Table) -> Vec<Vec<(usize, usize)>> {
    let mut out = vec![Vec::new()];
    for (p, param) in spec.parameters.iter().enumerate() {
        if param.name == t.rows || t.columns.as_ref() == Some(&param.name) {
            continue;
        }
        out = out
            .into_iter()
            .flat_map(|fixed| {
                (0..param.values.len()).map(move |i| {
                    let mut f = fixed.clone();
                    f.push((p, i));
                    f
                })
            })
            .collect();
    }
    out
}

fn param_index(spec: &Spec, name: &str) -> usize {
    spec.parameters
        .iter()
        .position(|p| p.name == name)
        .unwrap_or(0)
}

fn measure_index(spec: &Spec, name: &str) -> usize {
    spec.measures
        .iter()
        .position(|m| m.name == name)
        .unwrap_or(0)
}

/// One plotted table: its title, its column headings, and for each row its heading and the
/// statistics of each column.
pub struct Grid {
    pub title: String,
    pub caption: Option<String>,
    pub columns: Vec<String>,
    pub rows: Vec<(String, Vec<Option<Stat>>)>,
    pub decimals: u8,
    /// The x values of the columns when they are numbers (for plots).
    pub xs: Option<Vec<f64>>,
}

/// Every table the spec asks for, computed.
pub fn grids(spec: &Spec, cells: &[Cell], runs: &[RunResult]) -> Vec<Grid> {
    let mut out = Vec::new();
    for t in &spec.tables {
        let rp = param_index(spec, &t.rows);
        let cp = t.columns.as_ref().map(|c| param_index(spec, c));
        for fixed in others(spec, t) {
            for mname in &t.measures {
                let m = measure_index(spec, mname);
                let measure = &spec.measures[m];
                let mut title = measure.heading().to_string();
                // A parameter with one value is a setting, not a table of its own.
                for &(p, i) in fixed
                    .iter()
                    .filter(|(p, _)| spec.parameters[*p].values.len() > 1)
                {
                    let param = &spec.parameters[p];
                    let _ = write!(title, ", {} = {}", param.name, param.label(i));
                }
                let ncols = cp.map_or(1, |c| spec.parameters[c].values.len());
                let columns = match cp {
                    Some(c) => (0..ncols).map(|i| spec.parameters[c].label(i)).collect(),
                    None => vec![measure.heading().to_string()],
                };
                let xs = cp.and_then(|c| {
                    spec.parameters[c]
                        .values
                        .iter()
                        .map(|v| v.as_float().or(v.as_integer().map(|i| i as f64)))
                        .collect::<Option<Vec<f64>>>()
                });
                let rows = (0..spec.parameters[rp].values.len())
                    .map(|r| {
                        let stats = (0..ncols)
                            .map(|c| {
                                let mut pick = fixed.clone();
                                pick.push((rp, r));
                                if let Some(cp) = cp {
                                    pick.push((cp, c));
                                }
                                cell_stat(runs, cells, m, &pick)
                            })
                            .collect();
                        (spec.parameters[rp].label(r), stats)
                    })
                    .collect();
                out.push(Grid {
                    title,
                    // Once per table set, under its last measure.
                    caption: t
                        .caption
                        .clone()
                        .filter(|_| t.measures.last() == Some(mname)),
                    columns,
                    rows,
                    decimals: measure.decimals,
                    xs,
                });
            }
        }
    }
    out
}

/// `table.md`: every table, means ± the 95 % interval's half-width, and the number of runs
/// that had the measure where that is not all of them.
pub fn markdown(spec: &Spec, grids: &[Grid], seeds: u64) -> String {
    let mut out = format!(
        "# {}\n\n{seeds} runs per cell (seeds {}..{}); mean ± half-width of the 95 % confidence interval.\n",
        spec.title,
        spec.first_seed,
        spec.first_seed + seeds - 1
    );
    for g in grids {
        let _ = write!(
            out,
            "\n## {}\n\n|  | {} |\n|---|",
            g.title,
            g.columns.join(" | ")
        );
        out.push_str(&"---|".repeat(g.columns.len()));
        out.push('\n');
        for (name, stats) in &g.rows {
            let _ = write!(out, "| {name} |");
            for s in stats {
                out.push(' ');
                out.push_str(&cell_text(s, g.decimals, seeds));
                out.push_str(" |");
            }
            out.push('\n');
        }
        if let Some(c) = &g.caption {
            let _ = write!(out, "\n{c}\n");
        }
    }
    out
}

/// A cell as the terminal and `table.md` show it.
pub fn cell_text(s: &Option<Stat>, decimals: u8, seeds: u64) -> String {
    let d = decimals as usize;
    match s {
        None => "–".into(),
        Some(s) if s.n as u64 == seeds => format!("{:.d$} ± {:.d$}", s.mean, s.half),
        Some(s) => format!("{:.d$} ± {:.d$} ({}/{seeds})", s.mean, s.half, s.n),
    }
}

fn err<E: std::fmt::Display>(e: E) -> String {
    format!("cannot draw the plot: {e}")
}

/// One SVG line plot of a table whose columns are numbers: a line per row, with error bars.
/// `None` for a table whose columns are not numbers.
pub fn svg(g: &Grid) -> Option<Result<String, String>> {
    let xs = g.xs.as_ref()?;
    let mut text = String::new();
    let drawn = (|| {
        let root = SVGBackend::with_string(&mut text, (720, 440)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for (_, stats) in &g.rows {
            for s in stats.iter().flatten() {
                lo = lo.min(s.mean - s.half);
                hi = hi.max(s.mean + s.half);
            }
        }
        if !lo.is_finite() {
            (lo, hi) = (0.0, 1.0);
        }
        let pad = ((hi - lo) * 0.08).max(1e-9);
        let (x0, x1) = xs
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
                (a.min(x), b.max(x))
            });
        let xpad = ((x1 - x0) * 0.05).max(1e-9);
        let mut chart = ChartBuilder::on(&root)
            .caption(&g.title, ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d((x0 - xpad)..(x1 + xpad), (lo - pad).min(0.0)..(hi + pad))
            .map_err(err)?;
        chart
            .configure_mesh()
            .label_style(("sans-serif", 14))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(err)?;
        for (k, (name, stats)) in g.rows.iter().enumerate() {
            let color = Palette99::pick(k).to_rgba();
            let points: Vec<(f64, Stat)> = xs
                .iter()
                .zip(stats)
                .filter_map(|(&x, s)| s.map(|s| (x, s)))
                .collect();
            chart
                .draw_series(LineSeries::new(
                    points.iter().map(|(x, s)| (*x, s.mean)),
                    color.stroke_width(2),
                ))
                .map_err(err)?
                .label(name.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
                });
            chart
                // The 95 % intervals as vertical bars.
                .draw_series(points.iter().map(|(x, s)| {
                    PathElement::new(
                        vec![(*x, s.mean - s.half), (*x, s.mean + s.half)],
                        color.stroke_width(1),
                    )
                }))
                .map_err(err)?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.4))
            .label_font(("sans-serif", 14))
            .draw()
            .map_err(err)?;
        root.present().map_err(err)?;
        Ok::<(), String>(())
    })();
    Some(drawn.map(|()| text))
}
