//! Hover: what a name stands for, as markdown: its declaration (or signature) in a code
//! block, what kind of thing it is, its type, and its doc comment. Everything comes from the
//! compiler: the definition the checker resolved the name to, or the vocabulary entry.

use crate::documents::Document;
use crate::request::{self, Reply};
use affect_compiler::builtins::{ArgType, Builtin};
use affect_compiler::ir::program::{DeviceRole, ValueKind};
use affect_compiler::sema::devices::{DriverSpec, ParamKind};
use affect_compiler::sema::index::{DefKind, Definition, SemanticIndex, Target, MAIN_FILE};
use affect_compiler::sema::ty::Ty;
use affect_compiler::sema::vocab::AKR_COMPONENTS;
use affect_compiler::syntax::shape::SettingShape;
use lsp_types::{Hover, HoverContents, HoverParams, MarkupContent, MarkupKind};
use serde_json::Value;

pub fn request(doc: Option<&Document>, params: Value) -> Reply {
    let p: HoverParams = request::parse(params)?;
    let Some(doc) = doc else {
        return Ok(request::null());
    };
    let offset = doc.offset(p.text_document_position_params.position);
    Ok(request::to_json(hover(doc, offset)))
}

pub fn hover(doc: &Document, offset: usize) -> Option<Hover> {
    let (span, target) = doc.index.at(MAIN_FILE, offset)?;
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
pub fn describe(index: &SemanticIndex, target: Target) -> Option<String> {
    Some(match target {
        Target::Def(i) => def(index, index.def(i)),
        Target::Builtin(b) => builtin(b),
        Target::BuiltinArg(b, k) => builtin_arg(b, k),
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
        Target::WorldFunction(w) => format!(
            "{}\n\nworld function: {}",
            code(&format!("{}(..)", w.name)),
            w.doc
        ),
        Target::MemoryMethod(m) => format!(
            "{}\n\nemotional memory operation: {}",
            code(&format!("memory.{}{}", m.name, m.params_text)),
            m.doc
        ),
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
        Target::WorldSetting(w) => format!(
            "{}\n\nsetting of a `world`: {}. The simulator checks world settings when it runs \
             (`{}`).",
            code(w.example),
            w.meaning,
            w.key
        ),
        Target::AkrComponent(c) => format!(
            "{}\n\nAKR emotion component: {}.\n\nValues: {}.",
            code(c.key),
            c.meaning,
            c.values
        ),
        Target::Intensity => format!(
            "{}\n\nthe emotion machine's intensity, in 0..1: it rises by `rise` per unit of bad \
             progress and falls by `fall` per unit of good progress.",
            code("intensity: num in 0..1")
        ),
        Target::Field(name, kind) => format!(
            "{}\n\nfield of a point (or other tuple): {}. Read it (`p.{name}`) or assign it \
             (`p.{name} = ..`); the rest of the value stays as it was.",
            code(&format!("{name}: {}", kind_name(kind))),
            match name {
                "x" => "the first coordinate",
                "y" => "the second coordinate",
                _ => "the third element",
            }
        ),
        Target::File(i) => {
            let f = index.files.get(i.index())?;
            let count = index.defs.iter().filter(|d| d.file == i).count();
            let what = if f.stdlib {
                "standard library module"
            } else {
                "file"
            };
            format!("{what} `{}`: {count} declarations", f.name)
        }
    })
}

fn builtin_arg(b: &Builtin, k: usize) -> String {
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

/// The type to show with a definition, when the checker knows it.
fn shown_type(index: &SemanticIndex, d: &Definition) -> Option<String> {
    let ty = d.ty.as_ref()?;
    if matches!(ty, Ty::Error | Ty::Any | Ty::Void | Ty::Memory) || d.kind == DefKind::Variant {
        return None;
    }
    Some(index.show(ty))
}

fn def(index: &SemanticIndex, d: &Definition) -> String {
    let mut out = code(&d.signature);
    let mut line = d.kind.describe().to_string();
    if let Some(p) = d.parent {
        let parent = index.def(p);
        let of = match d.kind {
            DefKind::Port(_) | DefKind::Local | DefKind::Variant => "of",
            _ => "in",
        };
        line.push_str(&format!(
            " {of} {} `{}`",
            parent.kind.describe(),
            parent.name
        ));
    }
    if let Some(t) = shown_type(index, d) {
        if !d.signature.contains(&format!(": {t}")) {
            line.push_str(&format!(": `{t}`"));
        }
    }
    if d.file != MAIN_FILE {
        if let Some(f) = index.files.get(d.file.index()) {
            line.push_str(&format!(" (from `{}`)", f.name));
        }
    }
    out.push_str("\n\n");
    out.push_str(&line);
    if let Some(doc) = &d.doc {
        out.push_str("\n\n---\n\n");
        out.push_str(doc);
    }
    out.push_str(&fields(index, d));
    out
}

/// What a definition holds: an emotion's components, a block's settings, or, for a state
/// named after an emotion, that emotion.
fn fields(index: &SemanticIndex, d: &Definition) -> String {
    match d.kind {
        DefKind::Emotion => components(d),
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
            format!("\n\n{}", code(&format!("{{\n{}\n}}", body.join("\n"))))
        }
        DefKind::Variant => {
            // Emotion machine states are named after the emotions.
            let Some(e) = index.emotion(&d.name) else {
                return String::new();
            };
            let mut out = format!("\n\n---\n\nthe emotion `{}`", e.name);
            if let Some(doc) = &e.doc {
                out.push_str(&format!(": {doc}"));
            }
            out.push_str(&components(e));
            out
        }
        _ => String::new(),
    }
}

/// An emotion's AKR components as a table.
fn components(e: &Definition) -> String {
    if e.fields.is_empty() {
        return String::new();
    }
    let mut s = String::from("\n\n| component | value |\n|---|---|\n");
    // The known components in their canonical order, then any other field.
    let mut rows: Vec<&(String, String)> = Vec::new();
    for c in AKR_COMPONENTS {
        rows.extend(e.fields.iter().filter(|(k, _)| k == c.key));
    }
    rows.extend(
        e.fields
            .iter()
            .filter(|(k, _)| !AKR_COMPONENTS.iter().any(|c| c.key == k)),
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
        ParamKind::Quantity(m) => match m {
            affect_compiler::ir::units::Measure::Length => "length".into(),
            affect_compiler::ir::units::Measure::Time => "duration".into(),
            affect_compiler::ir::units::Measure::Frequency => "rate".into(),
            affect_compiler::ir::units::Measure::Angle => "angle".into(),
        },
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

/// The type name of a field's value kind, as declarations spell it.
fn kind_name(kind: ValueKind) -> &'static str {
    match kind {
        ValueKind::Num => "num",
        ValueKind::Int => "int",
        ValueKind::Bool => "bool",
        ValueKind::Str => "str",
        ValueKind::Enum(_) => "enum",
        ValueKind::Duration => "duration",
        ValueKind::Rate => "rate",
        ValueKind::Length => "length",
        ValueKind::Angle => "angle",
        ValueKind::Status => "status",
        ValueKind::List => "list",
    }
}
