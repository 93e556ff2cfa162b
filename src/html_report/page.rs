//! The report page: one HTML file with inline CSS, SVG and a few lines of script (agent tabs),
//! no network. Per agent: the tree (each node's status over the run, one row per node), the
//! numeric variables over time (hormones, mood, levels: min-max bands per time bucket), the
//! values of named variables (drives, intentions, emotion states, flags) as steps, the
//! messages it refused (security), its wall-clock timing, and the story.

use super::summary::{Agent, Run, Series, BUCKETS};
use std::fmt::Write;

/// Status colours: IDLE, RUNNING, SUCCESS, FAILURE, SKIPPED.
const COLOURS: [&str; 5] = ["#d0d4da", "#e0a800", "#2e9d4e", "#d63c3c", "#8a8fd6"];
const NAMES: [&str; 5] = ["IDLE", "RUNNING", "SUCCESS", "FAILURE", "SKIPPED"];

/// How much to show: the page is rendered again with less until it fits its size.
#[derive(Clone, Copy, Debug)]
pub struct Detail {
    /// Time columns of the tree and the charts (a divisor of `BUCKETS`).
    pub columns: usize,
    /// Rows of the tree per agent (the busiest nodes).
    pub nodes: usize,
    /// Charts per agent.
    pub charts: usize,
    /// Story lines per agent.
    pub lines: usize,
}

impl Detail {
    pub const FULL: Detail = Detail {
        columns: BUCKETS,
        nodes: 120,
        charts: 24,
        lines: 400,
    };

    /// Half as much of everything (never below a readable minimum).
    pub fn less(self) -> Option<Detail> {
        if self.columns <= 25 && self.nodes <= 10 && self.lines <= 20 {
            return None;
        }
        Some(Detail {
            columns: (self.columns / 2).max(25),
            nodes: (self.nodes / 2).max(10),
            charts: (self.charts / 2).max(6),
            lines: (self.lines / 2).max(20),
        })
    }
}

pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn time(ms: f64) -> String {
    if ms >= 60_000.0 {
        format!(
            "{:.0} min {:.0} s",
            (ms / 60_000.0).floor(),
            (ms % 60_000.0) / 1000.0
        )
    } else {
        format!("{:.1} s", ms / 1000.0)
    }
}

const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d2228;background:#f6f7f9}
header{background:#243447;color:#fff;padding:12px 20px}header h1{margin:0;font-size:20px}
header p{margin:4px 0 0;color:#c9d3de}nav{padding:8px 20px;background:#e8ebef}
nav button{margin:2px;border:1px solid #9aa5b1;background:#fff;padding:4px 10px;border-radius:4px;cursor:pointer}
nav button.on{background:#243447;color:#fff}section.agent{display:none;padding:8px 20px}section.agent.on{display:block}
.panel{background:#fff;border:1px solid #d6dbe1;border-radius:6px;margin:12px 0;padding:10px 14px}
.panel h2{font-size:16px;margin:0 0 8px}.charts{display:flex;flex-wrap:wrap;gap:10px}
.chart{width:300px}.chart h3{font-size:13px;margin:0;font-weight:600}table{border-collapse:collapse;width:100%}
td,th{padding:2px 8px;border-bottom:1px solid #eceff2;text-align:left;vertical-align:top;font-size:13px}
td.t{white-space:nowrap;color:#5b6670}.k{font-size:11px;padding:1px 5px;border-radius:3px;background:#e8ebef}
.legend span{display:inline-block;margin-right:12px}.legend i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-2px}
.note{color:#5b6670;font-size:12px}.error{border-left:4px solid #c62828}.error h2{color:#c62828}
.security{border-left:4px solid #8e24aa}.security h2{color:#8e24aa}svg text{font:11px system-ui,sans-serif;fill:#1d2228}";

const SCRIPT: &str = "document.querySelectorAll('nav button').forEach(function(b){b.addEventListener('click',function(){
document.querySelectorAll('nav button').forEach(function(x){x.classList.toggle('on',x===b)});
document.querySelectorAll('section.agent').forEach(function(s){s.classList.toggle('on',s.id===b.dataset.agent)});});});";

/// The whole page.
pub fn render(run: &Run, title: &str, detail: Detail) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{t}</title><style>{STYLE}</style></head><body><header><h1>{t}</h1><p>{n} agent{s} · {d} simulated · {l} trace lines ({e} node transitions)</p></header><nav>",
        t = esc(title),
        n = run.agents.len(),
        s = if run.agents.len() == 1 { "" } else { "s" },
        d = time(run.end_ms),
        l = run.lines,
        e = run.node_events,
    );
    for (i, a) in run.agents.iter().enumerate() {
        let _ = write!(
            out,
            "<button data-agent=\"a{i}\"{}>{}</button>",
            if i == 0 { " class=\"on\"" } else { "" },
            esc(&a.name)
        );
    }
    out.push_str("</nav>");
    for (i, a) in run.agents.iter().enumerate() {
        let _ = write!(
            out,
            "<section class=\"agent{}\" id=\"a{i}\">",
            if i == 0 { " on" } else { "" }
        );
        agent(&mut out, run, a, detail);
        out.push_str("</section>");
    }
    let _ = write!(
        out,
        "<p class=\"note\" style=\"padding:0 20px 20px\">Summarised: {} time columns over {}; up to {} nodes, {} charts and {} story lines per agent.{}</p><script>{SCRIPT}</script></body></html>",
        detail.columns,
        time(run.end_ms),
        detail.nodes,
        detail.charts,
        detail.lines,
        if run.bad_lines > 0 {
            format!(" {} lines of the trace were not events and were skipped.", run.bad_lines)
        } else {
            String::new()
        }
    );
    out
}

fn agent(out: &mut String, run: &Run, a: &Agent, d: Detail) {
    let _ = write!(
        out,
        "<div class=\"panel\"><h2>{}</h2><p>{} · {} node transitions{}</p></div>",
        esc(&a.name),
        a.summary
            .clone()
            .unwrap_or_else(|| format!("{} ticks", a.ticks)),
        a.node_events,
        processes(&a.pids)
    );
    // Whatever the detail: the reason the agent stopped is the first thing to read.
    if let Some((tick, t, text)) = &a.error {
        let _ = write!(
            out,
            "<div class=\"panel error\"><h2>Stopped by an error at tick {tick} ({})</h2><p>{}</p></div>",
            time(*t),
            esc(text)
        );
    }
    security(out, a, d);
    tree(out, run, a, d);
    charts(out, run, a, d);
    steps(out, run, a, d);
    timing(out, a);
    story(out, a, d);
}

/// The processes that wrote an agent's lines (a networked run): ` · process 4242`, or
/// ` · processes 4242, 4250` when it was started again.
fn processes(pids: &[u64]) -> String {
    match pids {
        [] => String::new(),
        [one] => format!(" · process {one}"),
        many => format!(
            " · processes {}",
            many.iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The messages the agent refused, in a panel of their own: a message from outside the
/// team, replayed or damaged is an attack or a fault that a person must see apart from
/// the story.
fn security(out: &mut String, a: &Agent, d: Detail) {
    if a.rejected.is_empty() {
        return;
    }
    out.push_str("<div class=\"panel security\"><h2>Security: messages refused</h2><table><tr><th>time</th><th>from</th><th>kind</th><th>why</th></tr>");
    for (t, from, kind, why) in a.rejected.iter().take(d.lines) {
        let _ = write!(
            out,
            "<tr><td class=\"t\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            time(*t),
            esc(from),
            esc(kind),
            esc(why)
        );
    }
    out.push_str("</table>");
    let more = a.rejected.len().saturating_sub(d.lines) as u64 + a.rejected_dropped;
    if more > 0 {
        let _ = write!(out, "<p class=\"note\">… and {more} more.</p>");
    }
    out.push_str("</div>");
}

/// The ticks measured on the wall clock (`--realtime`, `--hardware`, a networked robot):
/// the run's percentiles when the trace has them, the overruns, the missed deadlines and the
/// periods skipped after stalls.
fn timing(out: &mut String, a: &Agent) {
    if a.timed_ticks == 0 && a.timing.is_none() {
        return;
    }
    out.push_str("<div class=\"panel\"><h2>Timing on the wall clock</h2><table>");
    for (label, value) in a.timing.iter().flatten() {
        let _ = write!(out, "<tr><th>{label}</th><td>{}</td></tr>", esc(value));
    }
    if a.timed_ticks > 0 {
        let _ = write!(
            out,
            "<tr><th>ticks measured</th><td>{}, {} over their period, the longest {:.0} µs; {} missed their deadline, {} periods skipped</td></tr>",
            a.timed_ticks, a.overruns, a.longest_us, a.missed, a.skipped
        );
    }
    out.push_str("</table></div>");
}

/// One row per node, in uid order (the busiest `d.nodes` when there are more).
fn tree(out: &mut String, run: &Run, a: &Agent, d: Detail) {
    if a.nodes.is_empty() {
        return;
    }
    let mut shown: Vec<(&u64, &super::summary::Node)> = a.nodes.iter().collect();
    if shown.len() > d.nodes {
        shown.sort_by_key(|(_, n)| std::cmp::Reverse(n.counts.iter().sum::<u64>()));
        shown.truncate(d.nodes);
        shown.sort_by_key(|(u, _)| **u);
    }
    let (label_w, col_w, row_h) = (300.0, 2.0 * BUCKETS as f64 / d.columns as f64, 14.0);
    let width = label_w + col_w * d.columns as f64 + 80.0;
    let height = row_h * shown.len() as f64 + 20.0;
    let _ = write!(
        out,
        "<div class=\"panel\"><h2>Tree: each node's status over the run</h2><p class=\"legend\">{}</p><svg width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\">",
        (0..5)
            .map(|s| format!("<span><i style=\"background:{}\"></i>{}</span>", COLOURS[s], NAMES[s]))
            .collect::<String>()
    );
    let per = BUCKETS / d.columns;
    for (row, (uid, n)) in shown.iter().enumerate() {
        let y = row as f64 * row_h;
        let depth = n.path.matches('/').count();
        let last = n.path.rsplit('/').next().unwrap_or(&n.path);
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{}\">#{uid} {}</text>",
            4 + depth * 10,
            y + 11.0,
            esc(last)
        );
        // The state carries from bucket to bucket; each run of one status is one rectangle.
        let mut state = 255u8;
        let mut runs: Vec<(usize, usize, u8)> = Vec::new();
        for c in 0..d.columns {
            let slice = &n.buckets[c * per..(c + 1) * per];
            if let Some(&s) = slice.iter().rev().find(|&&s| s != 255) {
                // Within a column, a completed status wins over the IDLE after it.
                state = slice
                    .iter()
                    .rev()
                    .copied()
                    .find(|&s| s == 2 || s == 3)
                    .unwrap_or(s);
            }
            if state == 255 {
                continue;
            }
            match runs.last_mut() {
                Some((_, end, s)) if *s == state && *end == c => *end = c + 1,
                _ => runs.push((c, c + 1, state)),
            }
        }
        for (from, to, s) in runs {
            let _ = write!(
                out,
                "<rect x=\"{:.1}\" y=\"{}\" width=\"{:.1}\" height=\"{}\" fill=\"{}\"/>",
                label_w + from as f64 * col_w,
                y + 2.0,
                (to - from) as f64 * col_w,
                row_h - 3.0,
                COLOURS[s as usize]
            );
        }
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{}\">{}✓ {}✗</text>",
            label_w + col_w * d.columns as f64 + 6.0,
            y + 11.0,
            n.counts[2],
            n.counts[3]
        );
    }
    let _ = write!(
        out,
        "<text x=\"{label_w}\" y=\"{}\">0</text><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text></svg>",
        height - 4.0,
        label_w + col_w * d.columns as f64,
        height - 4.0,
        time(run.end_ms)
    );
    if a.nodes.len() > shown.len() {
        let _ = write!(
            out,
            "<p class=\"note\">The {} busiest of {} nodes.</p>",
            shown.len(),
            a.nodes.len()
        );
    }
    out.push_str("</div>");
}

/// Min-max bands of one numeric variable.
fn chart(out: &mut String, run: &Run, name: &str, s: &Series, d: Detail) {
    let (w, h) = (300.0, 90.0);
    let per = BUCKETS / d.columns;
    let mut lo = Vec::with_capacity(d.columns);
    let mut hi = Vec::with_capacity(d.columns);
    let mut last = s.first;
    for c in 0..d.columns {
        let mins = &s.min[c * per..(c + 1) * per];
        let maxs = &s.max[c * per..(c + 1) * per];
        let mn = mins
            .iter()
            .copied()
            .filter(|x| !x.is_nan())
            .fold(f64::NAN, f64::min);
        let mx = maxs
            .iter()
            .copied()
            .filter(|x| !x.is_nan())
            .fold(f64::NAN, f64::max);
        if mn.is_nan() {
            lo.push(last);
            hi.push(last);
        } else {
            lo.push(mn.min(last));
            hi.push(mx.max(last));
            last = maxs
                .iter()
                .rev()
                .copied()
                .find(|x| !x.is_nan())
                .unwrap_or(mx);
        }
    }
    let min = lo.iter().copied().fold(f64::INFINITY, f64::min);
    let max = hi.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let span = if max > min { max - min } else { 1.0 };
    let x = |c: usize| 40.0 + (w - 44.0) * c as f64 / d.columns as f64;
    let y = |v: f64| 6.0 + (h - 20.0) * (1.0 - (v - min) / span);
    let mut pts = String::new();
    for (c, v) in hi.iter().enumerate() {
        let _ = write!(pts, "{:.1},{:.1} ", x(c), y(*v));
    }
    for (c, v) in lo.iter().enumerate().rev() {
        let _ = write!(pts, "{:.1},{:.1} ", x(c), y(*v));
    }
    let _ = write!(
        out,
        "<div class=\"chart\"><h3>{}</h3><svg width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\"><polygon points=\"{pts}\" fill=\"#3b78c2\" stroke=\"#3b78c2\" stroke-width=\"1\" fill-opacity=\"0.5\"/><text x=\"36\" y=\"12\" text-anchor=\"end\">{}</text><text x=\"36\" y=\"{}\" text-anchor=\"end\">{}</text><text x=\"40\" y=\"{}\">0</text><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text></svg></div>",
        esc(name),
        short(max),
        h - 14.0,
        short(min),
        h - 2.0,
        w - 4.0,
        h - 2.0,
        time(run.end_ms)
    );
}

fn short(v: f64) -> String {
    if v.abs() >= 1000.0 || v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// The numeric variables of the agent (not subtree ones), the most changing first.
fn charts(out: &mut String, run: &Run, a: &Agent, d: Detail) {
    let mut list: Vec<(&String, &Series)> = a
        .series
        .iter()
        .filter(|(n, s)| !n.contains('/') && s.changes > 1)
        .collect();
    if list.is_empty() {
        return;
    }
    list.sort_by_key(|(_, s)| std::cmp::Reverse(s.changes));
    let total = list.len();
    list.truncate(d.charts);
    list.sort_by_key(|(n, _)| n.as_str());
    out.push_str(
        "<div class=\"panel\"><h2>Affect and variables over time</h2><div class=\"charts\">",
    );
    for (name, s) in list.iter() {
        chart(out, run, name, s, d);
    }
    out.push_str("</div>");
    if total > d.charts {
        let _ = write!(
            out,
            "<p class=\"note\">The {} most changing of {total} numeric variables.</p>",
            d.charts
        );
    }
    out.push_str("</div>");
}

/// Named values over time (drives, intentions, emotion states, places): one band per variable.
fn steps(out: &mut String, run: &Run, a: &Agent, d: Detail) {
    let list: Vec<_> = a
        .steps
        .iter()
        .filter(|(n, s)| !n.contains('/') && s.values.len() > 1)
        .take(d.charts)
        .collect();
    if list.is_empty() {
        return;
    }
    let (label_w, w, row_h) = (160.0, 800.0, 22.0);
    let height = row_h * list.len() as f64 + 6.0;
    let _ = write!(
        out,
        "<div class=\"panel\"><h2>Drives, emotions and other named states</h2><svg width=\"{}\" height=\"{height}\">",
        label_w + w
    );
    let palette = [
        "#cfe3f7", "#f7e3cf", "#d8f0d3", "#f2d0e4", "#e4e0f5", "#f5f0c8", "#d5eeee",
    ];
    for (row, (name, s)) in list.iter().enumerate() {
        let y = row as f64 * row_h;
        let _ = write!(out, "<text x=\"0\" y=\"{}\">{}</text>", y + 15.0, esc(name));
        let mut names: Vec<&str> = Vec::new();
        for (i, (t, v)) in s.values.iter().enumerate() {
            let end = s.values.get(i + 1).map_or(run.end_ms, |n| n.0);
            let k = match names.iter().position(|n| n == v) {
                Some(k) => k,
                None => {
                    names.push(v);
                    names.len() - 1
                }
            };
            let x0 = label_w + w * t / run.end_ms.max(1.0);
            let x1 = label_w + w * end / run.end_ms.max(1.0);
            if x1 - x0 < 0.2 {
                continue;
            }
            let _ = write!(
                out,
                "<rect x=\"{x0:.1}\" y=\"{}\" width=\"{:.1}\" height=\"{}\" fill=\"{}\"><title>{}</title></rect>",
                y + 2.0,
                x1 - x0,
                row_h - 4.0,
                palette[k % palette.len()],
                esc(v)
            );
            if x1 - x0 > 8.0 * v.len() as f64 {
                let _ = write!(
                    out,
                    "<text x=\"{:.1}\" y=\"{}\">{}</text>",
                    x0 + 3.0,
                    y + 15.0,
                    esc(v)
                );
            }
        }
    }
    out.push_str("</svg>");
    out.push_str("</div>");
}

fn story(out: &mut String, a: &Agent, d: Detail) {
    if a.story.is_empty() {
        return;
    }
    out.push_str("<div class=\"panel\"><h2>Story</h2><table><tr><th>time</th><th></th><th>what happened</th></tr>");
    for (t, kind, text) in a.story.iter().take(d.lines) {
        let _ = write!(
            out,
            "<tr><td class=\"t\">{}</td><td><span class=\"k\">{kind}</span></td><td>{}</td></tr>",
            time(*t),
            esc(text)
        );
    }
    out.push_str("</table>");
    let more = a.story.len().saturating_sub(d.lines) as u64 + a.story_dropped;
    if more > 0 {
        let _ = write!(out, "<p class=\"note\">… and {more} more.</p>");
    }
    out.push_str("</div>");
}
