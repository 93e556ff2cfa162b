//! Faults `affect launch` injects, at world times: kill a process (SIGKILL), pause it
//! (SIGSTOP, then SIGCONT), or cut it off from the others for a while (a partition: it sends
//! nothing and takes nothing in, though its links stay up).
//!
//! On the command line: `--kill NAME@30s`, `--pause NAME@30s+10s`, `--partition NAME@30s+20s`.
//! In a fault script (`--faults FILE`), one per line, the same words without dashes:
//!
//! ```text
//! # Laptop-2's network goes down for good at 40 s
//! kill laptop2@40s
//! pause UGV#3@60s+5s
//! partition UAV@90s+20s
//! ```

#[derive(Clone, Debug, PartialEq)]
pub enum FaultKind {
    Kill,
    Pause { for_ms: f64 },
    Partition { for_ms: f64 },
}

impl FaultKind {
    pub fn name(&self) -> &'static str {
        match self {
            FaultKind::Kill => "kill",
            FaultKind::Pause { .. } => "pause",
            FaultKind::Partition { .. } => "partition",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Fault {
    /// A robot instance (`UGV#3`) or a component host (`laptop2`).
    pub target: String,
    /// World time, in milliseconds.
    pub at_ms: f64,
    pub kind: FaultKind,
}

/// A duration: `30s`, `500ms`, `2min`, `1h`, or a bare number of seconds.
pub fn parse_duration(text: &str) -> Option<f64> {
    let t = text.trim();
    let (num, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix("min") {
        (n, 60_000.0)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1000.0)
    } else if let Some(n) = t.strip_suffix('h') {
        (n, 3_600_000.0)
    } else {
        (t, 1000.0)
    };
    let v: f64 = num.trim().parse().ok()?;
    (v.is_finite() && v >= 0.0).then_some(v * scale)
}

/// `NAME@TIME` (kill) or `NAME@TIME+DURATION` (pause, partition).
pub fn parse(kind: &str, spec: &str) -> Result<Fault, String> {
    let bad = |why: &str| format!("--{kind} {spec}: {why}");
    let (target, when) = spec
        .rsplit_once('@')
        .ok_or_else(|| bad("write NAME@TIME, like laptop2@40s"))?;
    if target.is_empty() {
        return Err(bad("no process named before `@`"));
    }
    let (at, span) = match when.split_once('+') {
        Some((a, d)) => (a, Some(d)),
        None => (when, None),
    };
    let at_ms = parse_duration(at).ok_or_else(|| bad("the time is not a duration like 30s"))?;
    let for_ms = || {
        span.and_then(parse_duration)
            .ok_or_else(|| bad("write NAME@TIME+DURATION, like UGV#3@60s+10s"))
    };
    let kind = match kind {
        "kill" if span.is_none() => FaultKind::Kill,
        "kill" => return Err(bad("a kill has no duration")),
        "pause" => FaultKind::Pause { for_ms: for_ms()? },
        "partition" => FaultKind::Partition { for_ms: for_ms()? },
        other => return Err(format!("`{other}` is not a fault (kill, pause, partition)")),
    };
    Ok(Fault {
        target: target.to_string(),
        at_ms,
        kind,
    })
}

/// A fault script: one fault a line, `#` comments, blank lines ignored.
pub fn parse_script(text: &str) -> Result<Vec<Fault>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split_once('#').map_or(line, |(l, _)| l).trim();
        if line.is_empty() {
            continue;
        }
        let (kind, spec) = line
            .split_once(char::is_whitespace)
            .ok_or_else(|| format!("line {}: write `kill NAME@TIME`", i + 1))?;
        out.push(parse(kind, spec.trim()).map_err(|e| format!("line {}: {e}", i + 1))?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_read_as_the_docs_write_them() {
        assert_eq!(
            parse("kill", "laptop2@40s"),
            Ok(Fault {
                target: "laptop2".into(),
                at_ms: 40_000.0,
                kind: FaultKind::Kill
            })
        );
        assert_eq!(
            parse("pause", "UGV#3@1min+500ms").unwrap().kind,
            FaultKind::Pause { for_ms: 500.0 }
        );
        assert_eq!(parse("partition", "UAV@90+20").unwrap().at_ms, 90_000.0);
        assert!(parse("kill", "laptop2@40s+1s").is_err());
        assert!(parse("pause", "UGV@40s").is_err());
        assert!(parse("kill", "laptop2").is_err());
        assert!(parse("kill", "@3s").is_err());
        assert!(parse("kill", "x@-3s").is_err());
        let script = "# the seed's failure\nkill laptop2@40s\n\npartition UAV@90s+20s # cut off\n";
        let faults = parse_script(script).unwrap();
        assert_eq!(faults.len(), 2);
        assert_eq!(faults[1].kind, FaultKind::Partition { for_ms: 20_000.0 });
        assert!(parse_script("explode UAV@3s")
            .unwrap_err()
            .starts_with("line 1"));
    }
}
