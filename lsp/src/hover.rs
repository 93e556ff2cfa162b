//! Hover: what a name stands for, as markdown: its declaration (or signature) in a code
//! block, what kind of thing it is, its type, and its doc comment.

use crate::documents::Document;
use crate::resolve::{Def, DefKind, Index, Target, AKR_COMPONENTS, WORLD_SETTINGS};
use affect_compiler::builtins::{ArgType, Builtin};
use affect_compiler::ir::program::DeviceRole;
use affect_compiler::sema::devices::{DriverSpec, ParamKind};
use affect_compiler::sema::{self};
use affect_compiler::syntax::shape::SettingShape;
use lsp_types::{Hover, HoverContents, MarkupContent, MarkupKind};

pub fn hover(doc: &Document, offset: usize) -> Option<Hover> {
    let (span, target) = doc.index.at(offset)?;
    let text = describe(&doc.index, target)?;
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: text,
        }),
        range: Some(doc.range(span)),
    })
}

fn code(text: &str) -> String {
    format!("```affect\n{text}\n```")
}

/// The markdown for a target.
pub fn describe(index: &Index, target: Target) -> Option<String> {
    Some(match target {
        Target::Def(i) => def(index, &index.defs[i]),
        Target::Builtin(b) => builtin(b),
        Target::BuiltinArg(b, k) => {
            let a = &b.args[k];
            let mut s = code(&format!("{}({}: {})", b.name, a.name, arg_type(a.ty)));
            s.push_str(&format!(
                "\n\nargument of the built-in node `{}`: BehaviorTree.CPP port `{}`",
                b.name, a.port
            ));
            if let Some(v3) = a.port_v3 {
                s.push_str(&format!(" (v3 `{v3}`)"));
            }
            match a.default {
                Some(d) => s.push_str(&format!(", default `{d}`")),
                None => s.push_str(", required"),
            }
            s.push('.');
            s
        }
        Target::TendenciesNode => format!(
            "{}\n\nagent-only node: runs the action-tendency table of an emotion machine \
             (a `Switch` on its state; each arm's targets run side by side).",
            code("tendencies(machine)")
        ),
        Target::Function(f) => format!(
            "{}\n\nbuilt-in function\n\n{}",
            code(&format!("{}({})", f.name, f.params.join(", "))),
            f.doc
        ),
        Target::WorldFunction(k) => {
            let (name, what) = sema::WORLD_FUNCTIONS[k];
            format!("{}\n\nworld function: {what}", code(&format!("{name}(..)")))
        }
        Target::MemoryMethod(k) => {
            let (name, params, what) = sema::MEMORY_METHODS[k];
            format!(
                "{}\n\nemotional memory operation: {what}",
                code(&format!("memory.{name}{params}"))
            )
        }
        Target::Driver(d) => driver(d),
        Target::DriverParam(d, k) => {
            let (name, kind, required) = d.params[k];
            format!(
                "{}\n\nargument of the device driver `{}`{}",
                code(&format!("{}({name}: {})", d.name, param_kind(kind))),
                d.name,
                if required { "; required" } else { "; optional" }
            )
        }
        Target::Setting(owner, shape) => setting(owner, shape),
        Target::WorldSetting(k) => {
            let (key, example, meaning) = WORLD_SETTINGS[k];
            format!(
                "{}\n\nsetting of a `world`: {meaning}. The simulator checks world settings \
                 when it runs (`{key}`).",
                code(example)
            )
        }
        Target::AkrField(k) => {
            let (key, values, meaning) = AKR_COMPONENTS[k];
            format!(
                "{}\n\nAKR emotion component: {meaning}.\n\nValues: {values}.",
                code(key)
            )
        }
        Target::Intensity => format!(
            "{}\n\nthe emotion machine's intensity, in 0..1: it rises by `rise` per unit of bad \
             progress and falls by `fall` per unit of good progress.",
            code("intensity: num in 0..1")
        ),
        Target::File(i) => {
            let f = index.files.get(i)?;
            let count = index.defs.iter().filter(|d| d.file == i).count();
            let what = if f.path.is_some() {
                "file"
            } else {
                "standard library module"
            };
            let mut s = format!("{what} `{}`: {count} declarations", f.name);
            if let Some(p) = &f.path {
                s.push_str(&format!("\n\n`{}`", p.display()));
            }
            s
        }
    })
}

fn def(index: &Index, d: &Def) -> String {
    let mut out = code(&d.signature);
    let mut line = d.kind.describe().to_string();
    if let Some(p) = d.parent {
        let parent = &index.defs[p];
        let of = match (d.kind, parent.kind) {
            (DefKind::Port(_), _) | (DefKind::Local, _) | (DefKind::Variant, _) => "of",
            _ => "in",
        };
        line.push_str(&format!(
            " {of} {} `{}`",
            parent.kind.describe(),
            parent.name
        ));
    }
    if let Some(t) = d.ty.as_ref().filter(|_| d.kind != DefKind::Variant) {
        if !d.signature.contains(&format!(": {t}")) {
            line.push_str(&format!(": `{t}`"));
        }
    }
    if d.file != 0 {
        if let Some(f) = index.files.get(d.file) {
            line.push_str(&format!(" (from `{}`)", f.name));
        }
    }
    out.push_str("\n\n");
    out.push_str(&line);
    if let Some(doc) = &d.doc {
        out.push_str("\n\n---\n\n");
        out.push_str(doc);
    }
    match d.kind {
        DefKind::Emotion => out.push_str(&components(d)),
        DefKind::Tendency
        | DefKind::Hormone
        | DefKind::Memory
        | DefKind::Component
        | DefKind::Behavior
        | DefKind::Recruitment
            if !d.fields.is_empty() =>
        {
            let tendency = d.kind == DefKind::Tendency;
            let body: Vec<String> = d
                .fields
                .iter()
                .map(|(k, v)| match (v.is_empty(), tendency) {
                    (true, _) => format!("    {k};"),
                    (false, true) => format!("    {k}: {v},"),
                    (false, false) => format!("    {k} {v};"),
                })
                .collect();
            out.push_str("\n\n");
            out.push_str(&code(&format!("{{\n{}\n}}", body.join("\n"))));
        }
        DefKind::Variant => {
            // Emotion machine states are named after the emotions.
            if let Some(e) = index.emotion(&d.name) {
                out.push_str(&format!("\n\n---\n\nthe emotion `{}`", e.name));
                if let Some(doc) = &e.doc {
                    out.push_str(&format!(": {doc}"));
                }
                out.push_str(&components(e));
            }
        }
        _ => {}
    }
    out
}

/// An emotion's AKR components as a table.
fn components(e: &Def) -> String {
    if e.fields.is_empty() {
        return String::new();
    }
    let mut s = String::from("\n\n| component | value |\n|---|---|\n");
    // The known components in their canonical order, then any other field.
    let mut rows: Vec<&(String, String)> = Vec::new();
    for (key, _, _) in AKR_COMPONENTS {
        rows.extend(e.fields.iter().filter(|(k, _)| k == key));
    }
    rows.extend(
        e.fields
            .iter()
            .filter(|(k, _)| !AKR_COMPONENTS.iter().any(|c| c.0 == k)),
    );
    for (k, v) in rows {
        s.push_str(&format!("| {k} | {} |\n", v.replace('|', "\\|")));
    }
    s
}

pub fn arg_type(t: ArgType) -> &'static str {
    match t {
        ArgType::Int => "int",
        ArgType::Bool => "bool",
        ArgType::Duration => "duration",
        ArgType::Status => "status",
        ArgType::Condition => "bool",
        ArgType::Variable => "variable",
        ArgType::Any => "any",
        ArgType::Str => "str",
    }
}

pub fn children_text(b: &Builtin) -> String {
    match b.children {
        (0, 0) => "no children".into(),
        (1, 1) => "exactly one child".into(),
        (lo, usize::MAX) => format!("{lo} or more children"),
        (lo, hi) if lo == hi => format!("{lo} children"),
        (lo, hi) => format!("{lo} to {hi} children"),
    }
}

/// How a built-in is written: `retry(attempts: int) { .. }`.
pub fn builtin_signature(b: &Builtin) -> String {
    let mut s = b.name.to_string();
    if !b.args.is_empty() {
        let args: Vec<String> = b
            .args
            .iter()
            .map(|a| match a.default {
                Some(d) => format!("{}: {} = {d}", a.name, arg_type(a.ty)),
                None => format!("{}: {}", a.name, arg_type(a.ty)),
            })
            .collect();
        s.push_str(&format!("({})", args.join(", ")));
    }
    if b.children.1 > 0 {
        s.push_str(" { .. }");
    }
    s
}

fn builtin(b: &Builtin) -> String {
    let mut out = code(&builtin_signature(b));
    out.push_str(&format!(
        "\n\nbuilt-in {} node",
        b.class.xml_tag().to_lowercase()
    ));
    match (b.v4, b.v3) {
        (Some(v4), Some(v3)) if v3 != v4 => {
            out.push_str(&format!(": BehaviorTree.CPP `{v4}` (v3 `{v3}`)"))
        }
        (Some(v4), Some(_)) => out.push_str(&format!(": BehaviorTree.CPP `{v4}` (v3 too)")),
        (Some(v4), None) => out.push_str(&format!(": BehaviorTree.CPP `{v4}` (v4 only)")),
        (None, Some(v3)) => out.push_str(&format!(": BehaviorTree.CPP v3 `{v3}` (v3 only)")),
        (None, None) => {}
    }
    out.push_str(&format!(", {}", children_text(b)));
    out.push_str("\n\n---\n\n");
    out.push_str(b.summary);
    if !b.args.is_empty() {
        out.push_str("\n\nArguments:\n");
        for a in b.args {
            out.push_str(&format!(
                "\n- `{}: {}`: port `{}`",
                a.name,
                arg_type(a.ty),
                a.port
            ));
            match a.default {
                Some(d) => out.push_str(&format!(", default `{d}`")),
                None => out.push_str(", required"),
            }
        }
    }
    out
}

pub fn param_kind(k: ParamKind) -> String {
    match k {
        ParamKind::Num => "num".into(),
        ParamKind::Str => "str".into(),
        ParamKind::Word(words) => words.join(" | "),
        ParamKind::Name => "name".into(),
    }
}

pub fn driver_signature(d: &DriverSpec) -> String {
    let params: Vec<String> = d
        .params
        .iter()
        .map(|(n, k, req)| format!("{n}{}: {}", if *req { "" } else { "?" }, param_kind(*k)))
        .collect();
    format!("{}({})", d.name, params.join(", "))
}

fn driver(d: &DriverSpec) -> String {
    let role = match d.role {
        DeviceRole::Sensor => "sensor",
        DeviceRole::Event => "event",
        DeviceRole::Actuator => "actuator",
    };
    let mut out = code(&driver_signature(d));
    out.push_str(&format!("\n\ndevice driver for a `{role}`"));
    if d.role == DeviceRole::Sensor {
        out.push_str(&format!(", gives `{}`", d.gives));
    }
    out.push_str("\n\n---\n\n");
    out.push_str(d.doc);
    out
}

fn setting(owner: &str, shape: &SettingShape) -> String {
    let mut out = code(shape.example);
    let article = if owner.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    out.push_str(&format!("\n\nsetting of {article} `{owner}` block: "));
    if shape.max_args == usize::MAX {
        out.push_str("a comma-separated list");
    } else if shape.max_args == 1 {
        out.push_str("one value");
    } else {
        out.push_str(&format!("{} to {} values", shape.min_args, shape.max_args));
    }
    if !shape.pairs.is_empty() {
        let pairs: Vec<String> = shape.pairs.iter().map(|p| format!("`{p}`")).collect();
        out.push_str(&format!(", then {}", pairs.join(", ")));
    }
    out
}
