//! An experiment file (docs/experiments.md): a TOML file naming a program, the parameters to
//! vary over it, the measures to take from each run's trace and the tables to print. Read
//! with `toml` and `serde`; every unknown key is an error, so a typo never silently drops a
//! setting.

use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// What the experiment reproduces: the tables' heading.
    pub title: String,
    /// The program, relative to the experiment file.
    pub program: String,
    /// The world to run in (default: the program's only world); a `world` parameter
    /// overrides it per cell.
    #[serde(default)]
    pub world: Option<String>,
    /// Runs per cell (`--seeds` overrides); run `i` of a cell has seed `first_seed + i`.
    #[serde(default = "ten")]
    pub seeds: u64,
    #[serde(default = "one")]
    pub first_seed: u64,
    /// Ticks per agent (default: the world's `ticks`).
    #[serde(default)]
    pub ticks: Option<u64>,
    /// Parameters in the order they are given; the grid is their product.
    #[serde(default, rename = "parameter")]
    pub parameters: Vec<Parameter>,
    #[serde(rename = "measure")]
    pub measures: Vec<Measure>,
    #[serde(rename = "table")]
    pub tables: Vec<Table>,
}

fn ten() -> u64 {
    10
}

fn one() -> u64 {
    1
}

/// A parameter and its values: `strategy`, `loss`, `delivery`, `world`, `ticks`,
/// `threshold`, `count.AGENT`, `bb.NAME` (see [`super::apply`]).
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Parameter {
    pub name: String,
    pub values: Vec<toml::Value>,
    /// Headings for the values in tables and plots (default: the values).
    #[serde(default)]
    pub labels: Vec<String>,
}

impl Parameter {
    /// How value `i` is shown.
    pub fn label(&self, i: usize) -> String {
        self.labels
            .get(i)
            .cloned()
            .unwrap_or_else(|| value_text(&self.values[i]))
    }
}

/// A value as text: strings bare, numbers as written.
pub fn value_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Which trace events a measure looks at: every key must equal the event's field of that
/// name in its JSON Lines form (docs/trace.md), compared as text. `agent` also matches an
/// instance by its program's name (`UGV` matches `UGV#3`).
pub type Filter = BTreeMap<String, String>;

/// One number taken from each run. Exactly one of the forms is given:
/// `count` (events matching), `first` (seconds to the first match), `from` + `to` (the mean
/// time in seconds from a `from` event to the next `to` event, each interval starting at the
/// first `from` after the previous one ended; with `longest = true`, the longest such time,
/// an interval still open at the end counting to the run's last event), `var` (a variable's
/// value at the end, of the first instance of `agent` that has it, or the first that has it
/// at all).
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Measure {
    pub name: String,
    /// The measure's heading (default: its name).
    #[serde(default)]
    pub label: Option<String>,
    #[serde(default)]
    pub count: Option<Filter>,
    #[serde(default)]
    pub first: Option<Filter>,
    #[serde(default)]
    pub from: Option<Filter>,
    #[serde(default)]
    pub to: Option<Filter>,
    /// With `from` and `to`: the longest interval instead of the mean.
    #[serde(default)]
    pub longest: bool,
    #[serde(default)]
    pub var: Option<String>,
    #[serde(default)]
    pub agent: Option<String>,
    /// Decimals in tables (default 1).
    #[serde(default = "one_u8")]
    pub decimals: u8,
}

fn one_u8() -> u8 {
    1
}

impl Measure {
    pub fn heading(&self) -> &str {
        self.label.as_deref().unwrap_or(&self.name)
    }
}

/// One table per measure it names: rows and (optionally) columns are parameters; any other
/// parameter gets one table per value.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Table {
    pub rows: String,
    #[serde(default)]
    pub columns: Option<String>,
    pub measures: Vec<String>,
    /// A caption under each table, such as the paper's table it reproduces.
    #[serde(default)]
    pub caption: Option<String>,
}

/// What a measure is, checked.
#[derive(Debug, Clone)]
pub enum Kind {
    Count(Filter),
    First(Filter),
    /// From, to, and whether the longest interval is wanted rather than the mean.
    Between(Filter, Filter, bool),
    Final {
        var: String,
        agent: Option<String>,
    },
}

impl Measure {
    pub fn kind(&self) -> Result<Kind, String> {
        let m = self;
        let kind = match (&m.count, &m.first, &m.from, &m.to, &m.var) {
            (Some(f), None, None, None, None) => Kind::Count(f.clone()),
            (None, Some(f), None, None, None) => Kind::First(f.clone()),
            (None, None, Some(a), Some(b), None) => Kind::Between(a.clone(), b.clone(), m.longest),
            (None, None, None, None, Some(v)) => Kind::Final {
                var: v.clone(),
                agent: m.agent.clone(),
            },
            _ => {
                return Err(format!(
                    "measure `{}` needs exactly one of `count`, `first`, `from` with `to`, `var`",
                    m.name
                ))
            }
        };
        if m.longest && m.from.is_none() {
            return Err(format!(
                "measure `{}`: `longest` goes with `from` and `to`",
                m.name
            ));
        }
        if m.agent.is_some() && m.var.is_none() {
            return Err(format!(
                "measure `{}`: `agent` goes with `var` (filters take an `agent` key)",
                m.name
            ));
        }
        Ok(kind)
    }
}

impl Spec {
    /// Reads and checks the file's text: names unique, tables naming declared parameters
    /// and measures, at least one value per parameter.
    pub fn parse(text: &str) -> Result<Spec, String> {
        let spec: Spec = toml::from_str(text).map_err(|e| e.to_string())?;
        let mut seen = Vec::new();
        for p in &spec.parameters {
            if p.values.is_empty() {
                return Err(format!("parameter `{}` has no values", p.name));
            }
            if !p.labels.is_empty() && p.labels.len() != p.values.len() {
                return Err(format!(
                    "parameter `{}`: {} labels for {} values",
                    p.name,
                    p.labels.len(),
                    p.values.len()
                ));
            }
            if seen.contains(&&p.name) {
                return Err(format!("parameter `{}` is given twice", p.name));
            }
            seen.push(&p.name);
        }
        let mut names = Vec::new();
        for m in &spec.measures {
            m.kind()?;
            if names.contains(&&m.name) {
                return Err(format!("measure `{}` is given twice", m.name));
            }
            names.push(&m.name);
        }
        for t in &spec.tables {
            for p in std::iter::once(&t.rows).chain(&t.columns) {
                if !seen.contains(&p) {
                    return Err(format!("table: `{p}` is not a parameter"));
                }
            }
            if t.columns.as_ref() == Some(&t.rows) {
                return Err(format!("table: `{}` as both rows and columns", t.rows));
            }
            for m in &t.measures {
                if !names.contains(&m) {
                    return Err(format!("table: `{m}` is not a measure"));
                }
            }
        }
        if spec.seeds == 0 {
            return Err("seeds must be at least 1".into());
        }
        Ok(spec)
    }
}
