//! `affect run --plot FILE.svg` looked at as a person would: the SVG is rendered to PNG by
//! headless Chromium (the project's SVG renderer, tests/support/chromium.rs) and the pixels
//! are checked. Every panel shows every one of its series, also two series that hold the same
//! values all along (they are drawn apart); a `let` in -1..1 fills its own panel's height
//! instead of lying flat on the 0..100 axis; the legends stand beside the charts, never over
//! the data.

mod support;

use std::collections::HashMap;
use support::chromium::{self, Image};

/// `score` and `other` are equal at every tick, and so are the hormones made from `score`;
/// `valence` runs -1..1.
const PROGRAM: &str = r#"agent Bot {
    var score: num in 0..100 = 10;
    var other: num in 0..100 = 10;
    hormone cortisol = score;
    hormone serotonin = score;
    let valence = (score - 50) / 50;
    main {
        sequence {
            do { score = score + 7 > 100 ? 0 : score + 7; other = score; }
        }
    }
}

world Room {
    area 10m x 10m cell 1m;
    spawn Bot at (1m, 1m);
    ticks 300;
}
"#;

/// A data line of the SVG: its colour and points.
type Line = ([u8; 3], Vec<(f64, f64)>);

/// What the SVG says about where things are: panel captions, legend boxes and their rows,
/// and the series lines.
struct Layout {
    width: u32,
    height: u32,
    /// Panel captions (`Bot: hormones`) and their top, top to bottom.
    panels: Vec<(String, f64)>,
    /// Legend frames: (x, y, width, height).
    legends: Vec<[f64; 4]>,
    /// Legend rows: series name -> (colour, the frame it is in).
    rows: HashMap<String, ([u8; 3], usize)>,
    /// Data lines (polylines of more than two points): their colour and points.
    lines: Vec<Line>,
}

fn hex(colour: &str) -> Option<[u8; 3]> {
    let h = colour.strip_prefix('#')?;
    let byte = |i: usize| u8::from_str_radix(h.get(i..i + 2)?, 16).ok();
    Some([byte(0)?, byte(2)?, byte(4)?])
}

fn num(n: &roxmltree::Node, attr: &str) -> f64 {
    n.attribute(attr)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0)
}

fn layout(svg: &str) -> Layout {
    let doc = roxmltree::Document::parse(svg).expect("the plot is well-formed XML");
    let root = doc.root_element();
    let mut l = Layout {
        width: num(&root, "width") as u32,
        height: num(&root, "height") as u32,
        panels: Vec::new(),
        legends: Vec::new(),
        rows: HashMap::new(),
        lines: Vec::new(),
    };
    let mut samples = Vec::new();
    let mut texts = Vec::new();
    for n in root.descendants() {
        match n.tag_name().name() {
            "rect" if n.attribute("fill") == Some("none") => l.legends.push([
                num(&n, "x"),
                num(&n, "y"),
                num(&n, "width"),
                num(&n, "height"),
            ]),
            "polyline" => {
                let colour = n.attribute("stroke").and_then(hex).unwrap_or([0, 0, 0]);
                let points: Vec<(f64, f64)> = n
                    .attribute("points")
                    .unwrap_or("")
                    .split_whitespace()
                    .filter_map(|p| {
                        let (x, y) = p.split_once(',')?;
                        Some((x.parse().ok()?, y.parse().ok()?))
                    })
                    .collect();
                if points.len() == 2 {
                    samples.push((colour, points[0]));
                } else if points.len() > 2 {
                    l.lines.push((colour, points));
                }
            }
            "text" => {
                let t = n.text().unwrap_or("").trim().to_string();
                texts.push((t, num(&n, "x"), num(&n, "y")));
            }
            _ => {}
        }
    }
    let inside = |b: &[f64; 4], x: f64, y: f64| {
        x >= b[0] && x <= b[0] + b[2] && y >= b[1] && y <= b[1] + b[3]
    };
    for (t, x, y) in texts {
        if t.starts_with("Bot: ") {
            l.panels.push((t, y));
            continue;
        }
        // A legend row: the text beside a sample line of the same frame and row.
        let Some(frame) = l.legends.iter().position(|b| inside(b, x, y)) else {
            continue;
        };
        let sample = samples
            .iter()
            .filter(|(_, p)| inside(&l.legends[frame], p.0, p.1))
            .min_by(|a, b| (a.1 .1 - y).abs().total_cmp(&(b.1 .1 - y).abs()));
        if let Some((colour, _)) = sample {
            l.rows.insert(t, (*colour, frame));
        }
    }
    l.panels.sort_by(|a, b| a.1.total_cmp(&b.1));
    l
}

impl Layout {
    /// The rows of the image from a panel's caption to the next one (or the end).
    fn panel_rows(&self, caption: &str) -> std::ops::Range<usize> {
        let k = self
            .panels
            .iter()
            .position(|(t, _)| t == caption)
            .unwrap_or_else(|| panic!("no panel `{caption}`: {:?}", self.panels));
        let top = self.panels[k].1 as usize;
        let bottom = self
            .panels
            .get(k + 1)
            .map_or(self.height as usize, |p| p.1 as usize);
        top..bottom
    }

    /// The columns left of the legend column.
    fn chart_columns(&self) -> std::ops::Range<usize> {
        let legend_x = self
            .legends
            .iter()
            .map(|b| b[0])
            .fold(f64::INFINITY, f64::min);
        0..legend_x as usize
    }
}

#[test]
fn the_plot_shows_every_series_on_a_fitting_axis_with_legends_beside_the_charts() {
    let dir = support::scratch("plot_render", "bot");
    let program = support::write_temp(&dir, "bot.affect", PROGRAM);
    let svg_path = dir.join("bot.svg");
    support::affect_ok(&[
        "run",
        program.to_str().unwrap(),
        "--no-persist",
        "--quiet",
        "--plot",
        svg_path.to_str().unwrap(),
    ]);
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    let l = layout(&svg);
    let (_, png) = chromium::open(&svg_path, &dir, (l.width, l.height));
    let img = Image::decode(&png);
    assert!(img.width >= l.width as usize && img.height >= l.height as usize);

    let panels = [
        ("Bot: levels and derived values", vec!["score", "other"]),
        ("Bot: `valence` on its own scale", vec!["valence"]),
        ("Bot: hormones", vec!["cortisol", "serotonin"]),
    ];
    for (caption, series) in &panels {
        let rows = l.panel_rows(caption);
        for name in series {
            let (colour, _) = l.rows[*name];
            // Every series shows in its panel, also one that another series equals at every
            // tick (drawn over it, it would not show at all).
            let seen = img.matching(colour, l.chart_columns(), rows.clone());
            assert!(
                seen.len() > 300,
                "`{name}` shows {} pixels in panel `{caption}`",
                seen.len()
            );
            // And it is spread over the panel's height (a third of it holds the chart's
            // caption and axes), not a flat line.
            let ys: Vec<usize> = seen.iter().map(|p| p.1).collect();
            let spread = ys.iter().max().unwrap() - ys.iter().min().unwrap();
            assert!(
                spread * 3 > rows.len(),
                "`{name}` spans {spread} of the {} rows of panel `{caption}`",
                rows.len()
            );
        }
    }

    // Legends stand right of every data line, and what is drawn inside a legend frame is
    // the legend: its frame, sample lines and names, nothing of the data.
    let rightmost = l
        .lines
        .iter()
        .flat_map(|(_, pts)| pts.iter().map(|p| p.0))
        .fold(0.0, f64::max);
    for b in &l.legends {
        assert!(
            b[0] > rightmost,
            "a legend at x = {} covers data, which reaches x = {rightmost}",
            b[0]
        );
    }
    for (name, (colour, frame)) in &l.rows {
        let b = l.legends[*frame];
        let (x0, y0) = (b[0] as usize, b[1] as usize);
        let (x1, y1) = ((b[0] + b[2]) as usize, (b[1] + b[3]) as usize);
        let seen = img.matching(*colour, x0..x1, y0..y1);
        assert!(!seen.is_empty(), "the legend's sample line of `{name}`");
        // The sample lines run from 8 to 30 pixels into the frame.
        let stray: Vec<_> = seen
            .iter()
            .filter(|p| p.0 < x0 + 6 || p.0 > x0 + 32)
            .collect();
        assert!(
            stray.is_empty(),
            "`{name}`'s colour inside a legend frame outside its sample line: {stray:?}"
        );
    }
}
