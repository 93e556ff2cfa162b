//! `affect run --plot FILE.svg`: the run drawn over simulated time, from the same `var`,
//! `drive` and `emotion` events the trace has (docs/run.md).
//!
//! One SVG file; each agent instance gets a header and its panels, one under the other, all
//! on one time axis in seconds:
//!
//! - **levels**: score-like `var`s (numeric, declared with a range inside 0..100) and numeric
//!   `let` values on that scale, such as the mood;
//! - **own scale**: one chart for each other numeric `let` (one that leaves 0..100, or never
//!   rises above 1, such as a valence in -1..1), on an axis fitted to its values, where the
//!   0..100 axis would flatten it;
//! - **hormones**;
//! - **emotions**: one chart per emotion machine, its state as a step line over bands (state
//!   names on the left axis) and its intensity (0..1, right axis);
//! - **drives**: one chart per drive, its state as a step line over bands, with state names;
//! - **SHAME**: a responder's SHAME in each recruitment block (seed 002), from the `recruit`
//!   events: the level each HELP found (raised by each one ignored, decaying between), and 0
//!   when the robot was recruited.
//!
//! Panels with nothing to show are left out. Legends stand in a column right of the charts,
//! never over the data; series of one chart are drawn a few pixels apart, so that two series
//! at the same value both show. Drawing uses `plotters` with its SVG backend, which writes
//! text as `<text>` elements: no font files are read.

use super::views::{AgentView, Role};
use super::RunObserver;
use affect_runtime::run::Observer;
use affect_runtime::trace::{Event, TraceSink, Value};
use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;
use plotters::style::Palette99;
use std::collections::HashMap;
use std::rc::Rc;

/// Drawn width of the SVG, in pixels.
const WIDTH: u32 = 1300;
const HEADER: u32 = 36;
const LEVELS_HEIGHT: u32 = 270;
const OWN_SCALE_HEIGHT: u32 = 210;
/// Series with more step vertices than this are thinned for drawing (min and max per
/// column are kept).
const MAX_VERTICES: usize = 6000;
/// Label areas, the same in every chart so that the time axes line up.
const X_LABELS: u32 = 46;
const Y_LABELS: u32 = 120;
const RIGHT_LABELS: u32 = 64;
/// The legend column right of every chart (and of its right axis labels).
const LEGEND_WIDTH: u32 = 200;
/// How far apart (in pixels) the series of one chart are drawn, so that none hides another.
const SERIES_GAP: f64 = 3.0;

/// `--plot FILE.svg`: records the run, and draws it into the file when the run has
/// completed.
pub struct PlotFile {
    recorder: Recorder,
    path: std::path::PathBuf,
    /// Heads the drawing: the program's file name.
    title: String,
}

impl PlotFile {
    pub fn new(views: &[AgentView], path: &std::path::Path, title: String) -> PlotFile {
        PlotFile {
            recorder: Recorder::new(views),
            path: path.to_path_buf(),
            title,
        }
    }
}

impl TraceSink for PlotFile {
    fn line(&mut self, _tick: u64, t_ms: f64, agent: &str, ev: &Event) -> std::io::Result<()> {
        self.recorder.event(t_ms, agent, ev);
        Ok(())
    }
}

impl Observer for PlotFile {}

impl RunObserver for PlotFile {
    fn finish(&mut self, completed: bool) -> Result<(), String> {
        if !completed {
            return Ok(());
        }
        let svg = self.recorder.render(&self.title)?;
        crate::files::write_atomic(&self.path, svg.as_bytes())
    }

    fn reloaded(
        &mut self,
        program: &affect_compiler::ir::program::Program,
        _exported: Option<&affect_compiler::groot::xml::Document>,
    ) {
        let r = &mut self.recorder;
        let agents = r
            .agents
            .iter_mut()
            .map(|a| (a.instance.as_str(), &mut a.view));
        super::views::replace(&mut r.views, program, agents);
    }
}

/// A numeric variable over time: (seconds, value) at each change.
struct Track {
    name: String,
    role: Role,
    order: usize,
    points: Vec<(f64, f64)>,
}

/// A state variable over time: (seconds, state index) at each change.
struct StateTrack {
    name: String,
    states: Vec<String>,
    points: Vec<(f64, usize)>,
}

struct AgentSeries {
    instance: String,
    view: Rc<AgentView>,
    tracks: Vec<Track>,
    by_name: HashMap<String, usize>,
    states: Vec<StateTrack>,
    states_by_name: HashMap<String, usize>,
    end_s: f64,
}

impl AgentSeries {
    fn number(&mut self, name: &str, role: Role, order: usize, t: f64, v: f64) {
        if !v.is_finite() {
            return;
        }
        let i = match self.by_name.get(name) {
            Some(&i) => i,
            None => {
                self.tracks.push(Track {
                    name: name.to_string(),
                    role,
                    order,
                    points: Vec::new(),
                });
                self.by_name.insert(name.to_string(), self.tracks.len() - 1);
                self.tracks.len() - 1
            }
        };
        let pts = &mut self.tracks[i].points;
        match pts.last_mut() {
            // Several changes within one instant: the last one stands.
            Some(last) if last.0 == t => last.1 = v,
            _ => pts.push((t, v)),
        }
    }

    fn state(&mut self, name: &str, known: &[String], t: f64, state: &str) {
        let i = match self.states_by_name.get(name) {
            Some(&i) => i,
            None => {
                self.states.push(StateTrack {
                    name: name.to_string(),
                    states: known.to_vec(),
                    points: Vec::new(),
                });
                self.states_by_name
                    .insert(name.to_string(), self.states.len() - 1);
                self.states.len() - 1
            }
        };
        let track = &mut self.states[i];
        let s = match track.states.iter().position(|x| x == state) {
            Some(s) => s,
            None => {
                track.states.push(state.to_string());
                track.states.len() - 1
            }
        };
        match track.points.last_mut() {
            Some(last) if last.1 == s => {}
            Some(last) if last.0 == t => last.1 = s,
            _ => track.points.push((t, s)),
        }
    }
}

/// Records what the plot needs while the program runs.
pub struct Recorder {
    views: Vec<Rc<AgentView>>,
    agents: Vec<AgentSeries>,
    /// The agent of the previous event (events come in runs of one agent).
    cur: usize,
}

fn number(v: &Value) -> Option<f64> {
    match v {
        // A variable with no value yet is NaN (`null` in the trace): nothing to draw.
        Value::Num(x) if x.is_finite() => Some(*x),
        Value::Int(i) => Some(*i as f64),
        _ => None,
    }
}

impl Recorder {
    pub fn new(views: &[AgentView]) -> Recorder {
        Recorder {
            views: views.iter().cloned().map(Rc::new).collect(),
            agents: Vec::new(),
            cur: 0,
        }
    }

    fn agent(&mut self, instance: &str) -> Option<&mut AgentSeries> {
        if self
            .agents
            .get(self.cur)
            .is_none_or(|a| a.instance != instance)
        {
            match self.agents.iter().position(|a| a.instance == instance) {
                Some(i) => self.cur = i,
                None => {
                    let view = super::views::program_of(&self.views, instance)?;
                    self.agents.push(AgentSeries {
                        instance: instance.to_string(),
                        view,
                        tracks: Vec::new(),
                        by_name: HashMap::new(),
                        states: Vec::new(),
                        states_by_name: HashMap::new(),
                        end_s: 0.0,
                    });
                    self.cur = self.agents.len() - 1;
                }
            }
        }
        self.agents.get_mut(self.cur)
    }

    pub fn event(&mut self, t_ms: f64, instance: &str, ev: &Event) {
        let t = t_ms / 1000.0;
        let Some(a) = self.agent(instance) else {
            return;
        };
        a.end_s = a.end_s.max(t);
        let view = Rc::clone(&a.view);
        match ev {
            Event::Var { name, value } => {
                let Some(var) = view.vars.get(*name) else {
                    return;
                };
                match var.role {
                    Role::Level | Role::Let | Role::Hormone | Role::Intensity => {
                        if let Some(x) = number(value) {
                            a.number(name, var.role, var.order, t, x);
                        }
                    }
                    Role::Emotion => {
                        if let (Value::Str(s), Some(m)) =
                            (value, view.machines.iter().find(|m| m.state == *name))
                        {
                            a.state(name, &m.states, t, s);
                        }
                    }
                    Role::Drive => {
                        if let (Value::Str(s), Some(d)) =
                            (value, view.drives.iter().find(|d| d.name == *name))
                        {
                            a.state(name, &d.states, t, s);
                        }
                    }
                    _ => {}
                }
            }
            Event::Drive { name, to, .. } => {
                if let Some(d) = view.drives.iter().find(|d| d.name == *name) {
                    a.state(name, &d.states, t, to);
                }
            }
            Event::Emotion {
                machine,
                to,
                intensity,
                ..
            } => {
                if let Some(m) = view.machines.iter().find(|m| m.name == *machine) {
                    a.state(&m.state, &m.states, t, to);
                    let order = view.vars.get(&m.intensity).map_or(usize::MAX, |v| v.order);
                    a.number(&m.intensity, Role::Intensity, order, t, *intensity);
                }
            }
            Event::Recruit {
                block, step, shame, ..
            } => {
                // Recruited, the responder's SHAME starts again from nothing.
                let level = if *step == "recruited" {
                    Some(0.0)
                } else {
                    *shame
                };
                if let Some(x) = level {
                    a.number(&format!("SHAME ({block})"), Role::Shame, usize::MAX, t, x);
                }
            }
            _ => {}
        }
    }

    /// The blocks drawn, agent by agent: a header, then its charts.
    fn blocks(&self) -> Vec<(usize, Block)> {
        let mut blocks: Vec<(usize, Block)> = Vec::new();
        for (i, a) in self.agents.iter().enumerate() {
            blocks.push((i, Block::Header));
            if a.tracks.iter().any(on_level_scale) {
                blocks.push((i, Block::Levels));
            }
            for (t, track) in a.tracks.iter().enumerate() {
                if track.role == Role::Let && !on_level_scale(track) {
                    blocks.push((i, Block::OwnScale(t)));
                }
            }
            if a.tracks.iter().any(|t| t.role == Role::Hormone) {
                blocks.push((i, Block::Hormones));
            }
            for m in &a.view.machines {
                if let Some(&s) = a.states_by_name.get(&m.state) {
                    blocks.push((i, Block::Emotion(s)));
                }
            }
            for d in &a.view.drives {
                if let Some(&s) = a.states_by_name.get(&d.name) {
                    blocks.push((i, Block::Drive(s)));
                }
            }
            if a.tracks.iter().any(|t| t.role == Role::Shame) {
                blocks.push((i, Block::Shame));
            }
        }
        blocks
    }

    /// The height of agent `i`'s block `b`.
    fn height(&self, i: usize, b: &Block) -> u32 {
        match b {
            Block::Header => HEADER,
            Block::Levels | Block::Hormones => LEVELS_HEIGHT,
            Block::OwnScale(_) | Block::Shame => OWN_SCALE_HEIGHT,
            Block::Emotion(s) => {
                let n = self.agents[i].states[*s].states.len() as u32;
                (100 + 34 * n).max(250)
            }
            Block::Drive(s) => {
                let n = self.agents[i].states[*s].states.len() as u32;
                (100 + 34 * n).max(170)
            }
        }
    }

    /// The SVG; `title` heads it (the program's file name).
    pub fn render(&self, title: &str) -> Result<String, String> {
        let end = self
            .agents
            .iter()
            .map(|a| a.end_s)
            .fold(0.0f64, f64::max)
            .max(0.1);
        let blocks = self.blocks();
        let heights: Vec<u32> = blocks.iter().map(|(i, b)| self.height(*i, b)).collect();
        let height: u32 = HEADER + heights.iter().sum::<u32>().max(HEADER);
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
            root.fill(&WHITE).map_err(err)?;
            let mut breaks = Vec::new();
            let mut y = HEADER as i32;
            for h in &heights {
                breaks.push(y);
                y += *h as i32;
            }
            let areas = root.split_by_breakpoints([] as [i32; 0], breaks);
            let mut areas = areas.into_iter();
            let top = areas.next().expect("one area above the first break");
            top.draw(&Text::new(
                format!("affect run {title}"),
                (12, 8),
                ("sans-serif", 24).into_font().style(FontStyle::Bold),
            ))
            .map_err(err)?;
            if self.agents.is_empty() {
                top.draw(&Text::new(
                    "nothing to plot: no agent ran",
                    (12, 40),
                    ("sans-serif", 14),
                ))
                .map_err(err)?;
            }
            for ((i, block), area) in blocks.iter().zip(areas) {
                let a = &self.agents[*i];
                match block {
                    Block::Header => {
                        let program = if a.view.name == a.instance {
                            String::new()
                        } else {
                            format!(" (program {})", a.view.name)
                        };
                        let empty = !blocks
                            .iter()
                            .any(|(j, b)| j == i && !matches!(b, Block::Header));
                        let note = if empty {
                            " — no levels, hormones, emotions, drives or SHAME to draw"
                        } else {
                            ""
                        };
                        area.draw(&Text::new(
                            format!("agent {}{program}{note}", a.instance),
                            (12, 10),
                            ("sans-serif", 21).into_font().style(FontStyle::Bold),
                        ))
                        .map_err(err)?;
                    }
                    Block::Levels => levels(
                        &area,
                        a,
                        end,
                        &|t| on_level_scale(t),
                        "levels and derived values",
                    )?,
                    Block::OwnScale(t) => {
                        let name = &a.tracks[*t].name;
                        levels(
                            &area,
                            a,
                            end,
                            &|x| std::ptr::eq(x, &a.tracks[*t]),
                            &format!("`{name}` on its own scale"),
                        )?
                    }
                    Block::Hormones => {
                        levels(&area, a, end, &|t| t.role == Role::Hormone, "hormones")?
                    }
                    Block::Shame => levels(
                        &area,
                        a,
                        end,
                        &|t| t.role == Role::Shame,
                        "SHAME when a HELP arrives (it answers above its threshold)",
                    )?,
                    Block::Emotion(s) => {
                        let track = &a.states[*s];
                        let m = a.view.machines.iter().find(|m| m.state == track.name);
                        let intensity = m
                            .and_then(|m| a.by_name.get(&m.intensity))
                            .map(|&t| &a.tracks[t]);
                        let name = m.map_or(track.name.as_str(), |m| m.name.as_str());
                        states(
                            &area,
                            track,
                            intensity,
                            end,
                            &format!(
                                "{}: emotion machine `{name}`, state and intensity",
                                a.instance
                            ),
                        )?
                    }
                    Block::Drive(s) => {
                        let track = &a.states[*s];
                        states(
                            &area,
                            track,
                            None,
                            end,
                            &format!("{}: drive `{}`", a.instance, track.name),
                        )?
                    }
                }
            }
            root.present().map_err(err)?;
        }
        Ok(svg)
    }
}

#[derive(Clone, Copy)]
enum Block {
    Header,
    Levels,
    /// A `let` that the 0..100 axis would flatten or cut: its index in `tracks`.
    OwnScale(usize),
    Hormones,
    Emotion(usize),
    Drive(usize),
    /// The SHAME of the agent's recruitment blocks.
    Shame,
}

fn err<E: std::fmt::Display>(e: E) -> String {
    format!("cannot draw the plot: {e}")
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

/// The vertices of a step line through `points`, held until `end`.
fn steps(points: &[(f64, f64)], end: f64) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(points.len() * 2 + 1);
    for (k, &(t, v)) in points.iter().enumerate() {
        if k > 0 {
            out.push((t, points[k - 1].1));
        }
        out.push((t, v));
    }
    if let Some(&(t, v)) = points.last() {
        if t < end {
            out.push((end, v));
        }
    }
    thin(out, end)
}

/// Keeps a long series drawable: per time column, the first, lowest, highest and last
/// vertex, in time order.
fn thin(v: Vec<(f64, f64)>, end: f64) -> Vec<(f64, f64)> {
    if v.len() <= MAX_VERTICES {
        return v;
    }
    let columns = (MAX_VERTICES / 4) as f64;
    let mut out = Vec::with_capacity(MAX_VERTICES + 4);
    let mut k = 0;
    while k < v.len() {
        let col = (v[k].0 / end * columns).floor();
        let start = k;
        while k < v.len() && (v[k].0 / end * columns).floor() == col {
            k += 1;
        }
        let run = &v[start..k];
        let lo = run
            .iter()
            .enumerate()
            .min_by(|a, b| a.1 .1.total_cmp(&b.1 .1))
            .map_or(0, |x| x.0);
        let hi = run
            .iter()
            .enumerate()
            .max_by(|a, b| a.1 .1.total_cmp(&b.1 .1))
            .map_or(0, |x| x.0);
        let mut keep = vec![0, lo, hi, run.len() - 1];
        keep.sort_unstable();
        keep.dedup();
        out.extend(keep.into_iter().map(|i| run[i]));
    }
    out
}

/// Whether a track belongs on the shared 0..100 axis of the levels chart: score-like `var`s
/// always; a `let` when its values stay in 0..100 and rise above 1 (a -1..1 or 0..1 value
/// would be a flat line there, a value past 100 would squeeze the others).
fn on_level_scale(t: &Track) -> bool {
    match t.role {
        Role::Level => true,
        Role::Let => {
            let inside = t.points.iter().all(|&(_, v)| (0.0..=100.0).contains(&v));
            inside && t.points.iter().any(|&(_, v)| v > 1.0)
        }
        _ => false,
    }
}

/// The value axis of a chart of `tracks`: 0..100 (stretched when a value leaves it) for
/// levels and hormones, or fitted to the values for a track on its own scale.
fn value_range(tracks: &[&Track], own_scale: bool) -> (f64, f64) {
    let values = || tracks.iter().flat_map(|t| t.points.iter().map(|p| p.1));
    let lo = values().fold(f64::INFINITY, f64::min);
    let hi = values().fold(f64::NEG_INFINITY, f64::max);
    if !own_scale {
        return (lo.min(0.0), hi.max(100.0));
    }
    if !(lo.is_finite() && hi.is_finite()) {
        return (0.0, 1.0);
    }
    let pad = if hi > lo { (hi - lo) * 0.08 } else { 1.0 };
    (lo - pad, hi + pad)
}

/// A chart of numeric tracks: levels, hormones, or one `let` on its own scale.
fn levels(
    area: &Area,
    a: &AgentSeries,
    end: f64,
    pick: &dyn Fn(&Track) -> bool,
    what: &str,
) -> Result<(), String> {
    let mut tracks: Vec<&Track> = a.tracks.iter().filter(|t| pick(t)).collect();
    tracks.sort_by_key(|t| t.order);
    let own_scale = tracks
        .iter()
        .all(|t| (t.role == Role::Let && !on_level_scale(t)) || t.role == Role::Shame);
    let (lo, hi) = value_range(&tracks, own_scale);
    // Room above and below for the series drawn apart (SERIES_GAP).
    let edge = (hi - lo) * 0.03;
    let mut chart = ChartBuilder::on(area)
        .caption(format!("{}: {what}", a.instance), ("sans-serif", 19))
        .margin(8)
        .margin_right(8 + RIGHT_LABELS + LEGEND_WIDTH)
        .x_label_area_size(X_LABELS)
        .y_label_area_size(Y_LABELS)
        .build_cartesian_2d(0f64..end, (lo - edge)..(hi + edge))
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("time (s)")
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 15))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(err)?;
    // Series k of n is drawn (k - (n-1)/2) * SERIES_GAP pixels off its value, so that two
    // series at the same value show side by side instead of one over the other.
    let plot_height = chart.plotting_area().dim_in_pixel().1.max(1) as f64;
    let per_pixel = (hi - lo + 2.0 * edge) / plot_height;
    let n = tracks.len() as f64;
    let mut legend = Vec::new();
    for (k, t) in tracks.iter().enumerate() {
        let color = Palette99::pick(k).to_rgba();
        let shift = (k as f64 - (n - 1.0) / 2.0) * SERIES_GAP * per_pixel;
        let line = steps(&t.points, end)
            .into_iter()
            .map(|(x, y)| (x, y + shift));
        chart
            .draw_series(LineSeries::new(line, color.stroke_width(2)))
            .map_err(err)?;
        legend.push((t.name.as_str(), color));
    }
    draw_legend(area, &chart.plotting_area().get_pixel_range(), &legend)
}

/// The legend of a chart, in the column right of it (never over the data): a sample line
/// and the series' name for each series, in a framed box level with the chart's top.
fn draw_legend(
    area: &Area,
    plot: &(std::ops::Range<i32>, std::ops::Range<i32>),
    series: &[(&str, RGBAColor)],
) -> Result<(), String> {
    if series.is_empty() {
        return Ok(());
    }
    let (base_x, base_y) = area.get_base_pixel();
    let x = (WIDTH - LEGEND_WIDTH) as i32 + 8 - base_x;
    let y = plot.1.start - base_y;
    const ROW: i32 = 22;
    let w = LEGEND_WIDTH as i32 - 16;
    let h = ROW * series.len() as i32 + 8;
    area.draw(&Rectangle::new([(x, y), (x + w, y + h)], WHITE.filled()))
        .map_err(err)?;
    area.draw(&Rectangle::new([(x, y), (x + w, y + h)], BLACK.mix(0.4)))
        .map_err(err)?;
    for (k, (name, color)) in series.iter().enumerate() {
        let row = y + 4 + ROW * k as i32 + ROW / 2;
        area.draw(&PathElement::new(
            vec![(x + 8, row), (x + 30, row)],
            color.stroke_width(2),
        ))
        .map_err(err)?;
        area.draw(&Text::new(
            legend_name(name),
            (x + 38, row - 6),
            ("sans-serif", 15),
        ))
        .map_err(err)?;
    }
    Ok(())
}

/// A series name short enough for the legend column (about 7.5 pixels a character).
fn legend_name(name: &str) -> String {
    let room = ((LEGEND_WIDTH - 60) as f64 / 7.5) as usize;
    if name.chars().count() <= room {
        return name.to_string();
    }
    let mut short: String = name.chars().take(room.saturating_sub(1)).collect();
    short.push('…');
    short
}

/// A state variable as bands and a step line with state names, and optionally an intensity
/// (0..1) on a second axis.
fn states(
    area: &Area,
    track: &StateTrack,
    intensity: Option<&Track>,
    end: f64,
    title: &str,
) -> Result<(), String> {
    let n = track.states.len().max(1) as i32;
    let names = track.states.clone();
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 19))
        .margin(8)
        .margin_right(if intensity.is_some() {
            8 + LEGEND_WIDTH
        } else {
            8 + RIGHT_LABELS + LEGEND_WIDTH
        })
        .x_label_area_size(X_LABELS)
        .y_label_area_size(Y_LABELS)
        .right_y_label_area_size(if intensity.is_some() { RIGHT_LABELS } else { 0 })
        .build_cartesian_2d(0f64..end, (0..(n - 1).max(1)).into_segmented())
        .map_err(err)?
        .set_secondary_coord(0f64..end, 0f64..1f64);
    chart
        .configure_mesh()
        .x_desc("time (s)")
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 15))
        .y_labels(n as usize)
        .y_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => names.get(*i as usize).cloned().unwrap_or_default(),
            _ => String::new(),
        })
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(err)?;
    // Bands: one rectangle per stay in a state.
    let mut stays = Vec::new();
    for (k, &(t, s)) in track.points.iter().enumerate() {
        let until = track.points.get(k + 1).map_or(end, |p| p.0);
        stays.push((t, until, s as i32));
    }
    chart
        .draw_series(stays.iter().map(|&(t0, t1, s)| {
            Rectangle::new(
                [
                    (t0, SegmentValue::Exact(s)),
                    (t1, SegmentValue::Exact(s + 1)),
                ],
                Palette99::pick(s as usize).mix(0.22).filled(),
            )
        }))
        .map_err(err)?;
    let mut line = Vec::new();
    for &(t0, t1, s) in &stays {
        line.push((t0, SegmentValue::CenterOf(s)));
        line.push((t1, SegmentValue::CenterOf(s)));
    }
    chart
        .draw_series(LineSeries::new(line, BLACK.stroke_width(2)))
        .map_err(err)?;
    let Some(t) = intensity else {
        return Ok(());
    };
    chart
        .configure_secondary_axes()
        .y_desc("intensity")
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 15))
        .draw()
        .map_err(err)?;
    let red = RED.mix(0.85);
    chart
        .draw_secondary_series(LineSeries::new(steps(&t.points, end), red.stroke_width(2)))
        .map_err(err)?;
    let plot = chart.plotting_area().get_pixel_range();
    draw_legend(
        area,
        &plot,
        &[("state", BLACK.to_rgba()), (t.name.as_str(), red)],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_hold_each_value_until_the_next_change() {
        let s = steps(&[(0.0, 1.0), (2.0, 3.0)], 5.0);
        assert_eq!(s, vec![(0.0, 1.0), (2.0, 1.0), (2.0, 3.0), (5.0, 3.0)]);
    }

    fn track(role: Role, values: &[f64]) -> Track {
        Track {
            name: "x".into(),
            role,
            order: 0,
            points: values
                .iter()
                .enumerate()
                .map(|(t, &v)| (t as f64, v))
                .collect(),
        }
    }

    #[test]
    fn lets_that_the_level_axis_would_flatten_get_their_own_scale() {
        assert!(on_level_scale(&track(Role::Let, &[20.0, 75.0])));
        assert!(
            !on_level_scale(&track(Role::Let, &[-1.0, 0.5, 1.0])),
            "-1..1"
        );
        assert!(!on_level_scale(&track(Role::Let, &[0.0, 0.3, 1.0])), "0..1");
        assert!(
            !on_level_scale(&track(Role::Let, &[10.0, 500.0])),
            "past 100"
        );
        assert!(
            on_level_scale(&track(Role::Level, &[0.0, 1.0])),
            "a level always"
        );
        let valence = track(Role::Let, &[-1.0, 1.0]);
        let (lo, hi) = value_range(&[&valence], true);
        assert!(lo < -1.0 && lo > -1.5 && hi > 1.0 && hi < 1.5, "{lo}..{hi}");
        let flat = track(Role::Let, &[0.25]);
        assert_eq!(value_range(&[&flat], true), (-0.75, 1.25));
        let level = track(Role::Level, &[30.0]);
        assert_eq!(value_range(&[&level], false), (0.0, 100.0));
    }

    #[test]
    fn long_series_are_thinned_keeping_the_extremes() {
        let pts: Vec<(f64, f64)> = (0..100_000)
            .map(|i| {
                (
                    i as f64 / 1000.0,
                    if i == 50_000 { 1000.0 } else { (i % 7) as f64 },
                )
            })
            .collect();
        let s = steps(&pts, 100.0);
        assert!(s.len() <= MAX_VERTICES + 8, "{}", s.len());
        assert!(
            s.iter().any(|p| p.1 == 1000.0),
            "the peak survives thinning"
        );
        assert!(
            s.windows(2).all(|w| w[0].0 <= w[1].0),
            "still in time order"
        );
    }
}
