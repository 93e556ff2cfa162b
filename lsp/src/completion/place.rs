//! What is offered in each context: a function per kind of place (the top level, an agent
//! body, a tree body, a settings block, a call's arguments, ...).

use super::context::{
    clause_start, frames, is_expr_token, is_kw, names_after, skip_attrs, type_after_colon, word,
    Ctx, Token,
};
use super::Items;
use crate::hover::{self, arg_type, driver_signature, param_kind};
use affect_compiler::builtins::{self, ArgType};
use affect_compiler::ir::program::DeviceRole;
use affect_compiler::sema::index::{DefId, DefKind, Target};
use affect_compiler::sema::vocab::{AGENCY_WORDS, AKR_COMPONENTS};
use affect_compiler::sema::world::{FIELD_RULES, SETTINGS};
use affect_compiler::sema::{self, devices, ty, vocab};
use affect_compiler::syntax::keywords;
use affect_compiler::syntax::shape;
use affect_compiler::syntax::token::{Kw, Tok};
use lsp_types::CompletionItemKind;

/// Where the cursor is: the tokens before it, the clause it is in, and its frame.
struct Place<'t, 'a> {
    toks: &'t [Token<'a>],
    rest: &'t [Token<'a>],
    /// The tokens of the current clause (since `;`, `{`, `}` in this frame).
    clause: &'t [Token<'a>],
    prev: Option<&'t Tok<'a>>,
    first: Option<&'t Tok<'a>>,
    at_start: bool,
    /// The cursor is on a later line than the last token.
    new_line: bool,
    /// The first token inside the innermost open bracket.
    floor: usize,
}

pub(super) fn complete(items: &mut Items, toks: &[Token], rest: &[Token], text: &str) {
    let prev = toks.last().map(|t| &t.1);
    let before_prev = toks.len().checked_sub(2).and_then(|i| word(&toks[i].1));
    // `Enum::` and `std::`
    if matches!(prev, Some(Tok::ColonColon)) {
        match before_prev {
            Some("std") => {
                for (m, _) in sema::STDLIB {
                    let rest = m.strip_prefix("std::").unwrap_or(m);
                    items.push(0, rest, CompletionItemKind::MODULE, None, None, None);
                }
            }
            Some(name) => items.variants(0, name, false),
            None => {}
        }
        return;
    }
    // `feelings.`, `queue.`
    if matches!(prev, Some(Tok::Dot)) {
        if let Some(name) = before_prev {
            operations(items, name);
        }
        return;
    }
    let frames = frames(toks);
    let frame = frames.last();
    let ctx = frame.map(|f| f.ctx.clone()).unwrap_or(Ctx::Top);
    let floor = frame.map(|f| f.open + 1).unwrap_or(0);
    let start = skip_attrs(
        toks,
        clause_start(toks, toks.len(), floor, false),
        toks.len(),
    );
    let clause = &toks[start.min(toks.len())..];
    let prev_line_end = toks.last().map(|t| t.2 as usize).unwrap_or(0);
    let p = Place {
        toks,
        rest,
        clause,
        prev,
        first: clause.first().map(|t| &t.1),
        at_start: clause.is_empty(),
        new_line: text
            .get(prev_line_end..items.offset)
            .is_some_and(|s| s.contains('\n')),
        floor,
    };
    match ctx {
        Ctx::Top => top(items, &p),
        Ctx::Agent => agent(items, &p),
        Ctx::TreeBody | Ctx::Nodes => tree_body(items, &p, ctx == Ctx::TreeBody),
        Ctx::Switch { subject } => switch(items, &p, subject.as_deref()),
        Ctx::Stmts => {
            if p.at_start {
                items.keywords(5, keywords::STATEMENT_STARTS);
            }
            items.values();
        }
        Ctx::Settings { owner, machine } => settings(items, &p, owner, machine.as_deref()),
        Ctx::Fields { owner } => fields(items, &p, owner),
        Ctx::Drive { en } => {
            if p.at_start {
                if let Some(e) = &en {
                    items.variants(0, e, false);
                }
                items.keywords(1, &["intention"]);
            } else if p.clause.iter().any(|t| is_kw(Some(&t.1), Kw::When)) {
                items.values();
            }
        }
        Ctx::Intention { en } => {
            if p.clause.iter().any(|t| t.1 == Tok::FatArrow) {
                items.values();
            } else if let Some(e) = &en {
                items.variants(0, e, false);
                items.keywords(1, &["_"]);
            }
        }
        Ctx::Tendencies { machine } => tendencies(items, &p, machine.as_deref()),
        Ctx::Ports => ports(items, &p),
        Ctx::Args { callee } => args(items, &p, &callee),
        Ctx::Group => items.values(),
        Ctx::Other => {}
    }
}

/// After `name.`: the operations of a memory or a list.
fn operations(items: &mut Items, name: &str) {
    let idx = &items.doc.index;
    let Some(d) = idx
        .visible_at(affect_compiler::sema::index::MAIN_FILE, items.offset)
        .into_iter()
        .find(|&i| idx.def(i).name == name)
    else {
        return;
    };
    let def = idx.def(d);
    // (name, parameters, documentation) of each operation it has.
    let ops: Vec<(&str, &str, &str)> = if def.kind == DefKind::Memory {
        vocab::MEMORY_METHODS
            .iter()
            .map(|m| (m.name, m.params_text, m.doc))
            .collect()
    } else if matches!(def.ty, Some(ty::Ty::List(_))) {
        vocab::LIST_METHODS
            .iter()
            .map(|m| (m.name, m.params_text, m.doc))
            .collect()
    } else {
        // A point's (or other tuple's) fields.
        let fields: Vec<(&str, String)> = def
            .ty
            .as_ref()
            .map(ty::Ty::fields)
            .unwrap_or_default()
            .iter()
            .map(|(f, t)| (*f, idx.show(t)))
            .collect();
        for (field, shown) in fields {
            let detail = Some(format!("{name}.{field}: {shown}"));
            items.push(0, field, CompletionItemKind::FIELD, detail, None, None);
        }
        return;
    };
    for (op, params, doc) in ops {
        let detail = Some(format!("{name}.{op}{params}"));
        let doc = Some(doc.to_string());
        items.push(0, op, CompletionItemKind::METHOD, detail, doc, None);
    }
}

fn top(items: &mut Items, p: &Place) {
    if p.at_start {
        items.keywords(0, keywords::ITEM_STARTS);
    } else if matches!(p.prev, Some(Tok::Colon)) && is_kw(p.first, Kw::Const) {
        items.types();
    } else if matches!(p.prev, Some(Tok::Eq)) && is_kw(p.first, Kw::Agent) {
        items.globals_of(0, &[DefKind::Agent]);
    } else if is_kw(p.first, Kw::Const) && p.clause.iter().any(|t| t.1 == Tok::Eq) {
        items.values();
    } else if is_kw(p.first, Kw::Use) {
        items.push(0, "std", CompletionItemKind::MODULE, None, None, None);
    }
}

fn agent(items: &mut Items, p: &Place) {
    if p.at_start {
        items.keywords(0, keywords::MEMBER_STARTS);
        return;
    }
    let typed = [
        Kw::Var,
        Kw::Let,
        Kw::Sensor,
        Kw::Actuator,
        Kw::Emotions,
        Kw::Drive,
    ];
    let eq = p.clause.iter().position(|t| t.1 == Tok::Eq);
    if matches!(p.prev, Some(Tok::Colon)) && typed.iter().any(|&k| is_kw(p.first, k)) {
        items.types();
    } else if let Some(eq) = eq {
        let ty = type_after_colon(p.clause, 0, eq);
        if is_kw(p.first, Kw::Emotions) || is_kw(p.first, Kw::Drive) {
            // The initial state.
            if let Some(t) = ty {
                items.variants(0, &t, false);
            }
            return;
        }
        let role = if is_kw(p.first, Kw::Sensor) {
            Some(DeviceRole::Sensor)
        } else if is_kw(p.first, Kw::Event) {
            Some(DeviceRole::Event)
        } else if is_kw(p.first, Kw::Actuator) {
            Some(DeviceRole::Actuator)
        } else {
            None
        };
        if let Some(r) = role {
            items.drivers(Some(r));
        }
        if let Some(t) = ty {
            items.variants(0, &t, true);
        }
        items.values();
    } else if is_kw(p.first, Kw::Tendencies) {
        for m in items.visible() {
            if items.doc.index.def(m).kind == DefKind::Emotions {
                items.def(0, m, None);
            }
        }
    } else if is_kw(p.first, Kw::On) || is_kw(p.first, Kw::Rate) {
        items.values();
    }
}

fn tree_body(items: &mut Items, p: &Place, tree: bool) {
    if tree && is_kw(p.first, Kw::Var) {
        if matches!(p.prev, Some(Tok::Colon)) {
            items.types();
        } else if let Some(eq) = p.clause.iter().position(|t| t.1 == Tok::Eq) {
            if let Some(t) = type_after_colon(p.clause, 0, eq) {
                items.variants(0, &t, true);
            }
            items.values();
        }
        return;
    }
    node_position(items, p.prev, p.new_line, tree && p.at_start);
}

/// Inside a block of nodes: node names where a node may start, modifiers after a node,
/// expressions elsewhere (after `check`, `skip_if`, an operator...).
fn node_position(items: &mut Items, prev: Option<&Tok>, new_line: bool, tree_start: bool) {
    match prev {
        Some(Tok::LBrace | Tok::FatArrow | Tok::Colon | Tok::Semi) => {
            if tree_start {
                items.keywords(2, &["var"]);
            }
            items.nodes();
        }
        Some(Tok::RParen | Tok::RBrace) => {
            items.nodes();
            items.modifiers();
        }
        // After a node written on an earlier line, or an attribute `#[..]`.
        Some(t)
            if new_line
                && (word(t).is_some()
                    || matches!(t, Tok::Num(_) | Tok::Str(_) | Tok::RBracket)) =>
        {
            items.nodes();
            items.modifiers();
        }
        _ => items.values(),
    }
}

fn switch(items: &mut Items, p: &Place, subject: Option<&str>) {
    match p.prev {
        Some(Tok::FatArrow) => items.nodes(),
        Some(Tok::LBrace | Tok::Comma | Tok::RParen | Tok::RBrace) => {
            switch_patterns(items, subject);
            if matches!(p.prev, Some(Tok::RParen | Tok::RBrace)) {
                items.modifiers();
            }
        }
        Some(t) if p.new_line && (word(t).is_some() || is_expr_token(t)) => {
            switch_patterns(items, subject)
        }
        _ => items.values(),
    }
}

fn switch_patterns(items: &mut Items, subject: Option<&str>) {
    if let Some(en) = subject.and_then(|s| items.enum_of_name(s)) {
        items.variants(0, &en, false);
    }
    items.keywords(1, &["_"]);
}

/// The keys of a settings block: its schema's, a world's, a field block's.
fn setting_keys(items: &mut Items, owner: &'static str) {
    for s in shape::schema(owner).unwrap_or(&[]) {
        let docs = hover::describe(&items.doc.index, Target::Setting(owner, s));
        let detail = Some(s.example.to_string());
        items.push(0, s.key, CompletionItemKind::PROPERTY, detail, docs, None);
    }
    let world = match owner {
        "world" => SETTINGS,
        "field" => FIELD_RULES,
        _ => &[],
    };
    for w in world {
        let docs = hover::describe(&items.doc.index, Target::WorldSetting(w));
        let detail = Some(w.example.to_string());
        items.push(0, w.key, CompletionItemKind::PROPERTY, detail, docs, None);
    }
}

fn settings(items: &mut Items, p: &Place, owner: &'static str, machine: Option<&str>) {
    if p.at_start {
        setting_keys(items, owner);
        if owner == "behavior" {
            items.keywords(1, &["behavior"]);
        }
        if let Some(m) = machine {
            items.variants(1, m, false);
        }
        return;
    }
    if owner == "emotions" && matches!(p.prev, Some(Tok::Arrow)) {
        if let Some(m) = machine {
            items.variants(0, m, false);
        }
        return;
    }
    if owner == "emotions" {
        let docs = hover::describe(&items.doc.index, Target::Intensity);
        let detail = Some("intensity: num in 0..1".to_string());
        items.push(
            0,
            "intensity",
            CompletionItemKind::VARIABLE,
            detail,
            docs,
            None,
        );
    }
    items.values();
    items.all_globals();
}

fn fields(items: &mut Items, p: &Place, owner: &'static str) {
    let start = clause_start(p.toks, p.toks.len(), p.floor, true);
    let field = &p.toks[start.min(p.toks.len())..];
    if field.is_empty() {
        match owner {
            "emotion" => {
                for c in AKR_COMPONENTS {
                    let detail = Some(c.meaning.to_string());
                    let doc = Some(format!("Values: {}.", c.values));
                    let insert = Some(format!("{}: ", c.key));
                    items.push(0, c.key, CompletionItemKind::FIELD, detail, doc, insert);
                }
            }
            "tendency" => items.push(
                0,
                "function",
                CompletionItemKind::FIELD,
                Some("what the tendency is for".into()),
                None,
                Some("function: ".into()),
            ),
            _ => {}
        }
        return;
    }
    let key = word(&field[0].1).unwrap_or("");
    if owner != "emotion" {
        items.values();
        items.all_globals();
        return;
    }
    if let Some(words) = vocab::component(key).and_then(|c| c.words) {
        items.words(0, words);
    }
    match key {
        "agency" => {
            items.words(0, AGENCY_WORDS);
            items.globals_of(1, &[DefKind::Agent]);
        }
        "tendency" => items.globals_of(0, &[DefKind::Tendency]),
        _ => {}
    }
}

fn tendencies(items: &mut Items, p: &Place, machine: Option<&str>) {
    if p.clause.iter().any(|t| t.1 == Tok::FatArrow) {
        if matches!(p.prev, Some(Tok::FatArrow | Tok::Comma)) {
            let kinds = [
                DefKind::Tree,
                DefKind::Tendency,
                DefKind::Leaf(affect_compiler::syntax::ast::LeafKind::Action),
                DefKind::Leaf(affect_compiler::syntax::ast::LeafKind::Condition),
                DefKind::Leaf(affect_compiler::syntax::ast::LeafKind::Control),
                DefKind::Leaf(affect_compiler::syntax::ast::LeafKind::Decorator),
            ];
            items.globals_of(0, &kinds);
        }
    } else if let Some(en) = machine.and_then(|m| items.enum_of_name(m)) {
        items.variants(0, &en, false);
        items.keywords(1, &["_"]);
    }
}

fn ports(items: &mut Items, p: &Place) {
    let start = clause_start(p.toks, p.toks.len(), p.floor, true);
    let port = &p.toks[start.min(p.toks.len())..];
    if port.is_empty() {
        items.keywords(0, keywords::PORT_DIRECTIONS);
    } else if matches!(p.prev, Some(Tok::Colon)) {
        items.types();
    } else if let Some(eq) = port.iter().position(|t| t.1 == Tok::Eq) {
        if let Some(t) = type_after_colon(port, 0, eq) {
            items.variants(0, &t, true);
        }
        items.values();
    }
}

/// Argument names already written in this call, before and after the cursor.
fn written_args(p: &Place) -> Vec<String> {
    let mut written = Vec::new();
    let mut depth = 0usize;
    let floor = p.floor.min(p.toks.len());
    for (k, t) in p.toks[floor..].iter().enumerate() {
        match t.1 {
            Tok::LParen | Tok::LBracket | Tok::LBrace => depth += 1,
            Tok::RParen | Tok::RBracket | Tok::RBrace => depth = depth.saturating_sub(1),
            Tok::Colon if depth == 0 && k > 0 => match &p.toks[floor + k - 1].1 {
                Tok::Kw(kw) => written.push(kw.as_str().to_string()),
                other => written.extend(word(other).map(str::to_string)),
            },
            _ => {}
        }
    }
    written.extend(names_after(p.rest));
    written
}

fn args(items: &mut Items, p: &Place, callee: &str) {
    let start = clause_start(p.toks, p.toks.len(), p.floor, true);
    let arg = &p.toks[start.min(p.toks.len())..];
    if arg.is_empty() {
        arguments(items, callee, &written_args(p));
        items.values();
        return;
    }
    let named = arg.len() >= 2 && arg[1].1 == Tok::Colon;
    if named {
        let port = match &arg[0].1 {
            Tok::Kw(k) => k.as_str(),
            t => word(t).unwrap_or(""),
        };
        argument_values(items, callee, port);
    }
    items.values();
}

/// What the named argument `port` of `callee` takes: variants of its enum, statuses, the
/// words of a driver's parameter.
fn argument_values(items: &mut Items, callee: &str, port: &str) {
    if let Some(en) = items.port_enum(callee, port) {
        items.variants(0, &en, true);
    }
    let status = builtins::by_name(callee)
        .and_then(|b| b.args.iter().find(|a| a.name == port))
        .is_some_and(|a| a.ty == ArgType::Status);
    if status {
        items.words(0, ty::STATUS_NAMES);
    }
    let words = devices::lookup(callee)
        .and_then(|d| d.params.iter().find(|p| p.0 == port))
        .and_then(|p| match p.1 {
            devices::ParamKind::Word(w) => Some(w),
            _ => None,
        });
    if let Some(w) = words {
        items.words(0, w);
    }
}

/// Arguments of a node, tree, function or driver call.
fn arguments(items: &mut Items, callee: &str, written: &[String]) {
    if let Some(b) = builtins::by_name(callee) {
        for a in b
            .args
            .iter()
            .filter(|a| !written.iter().any(|w| w == a.name))
        {
            let detail = Some(format!("{}: {}", a.name, arg_type(a.ty)));
            let doc = Some(format!("BehaviorTree.CPP port `{}`", a.port));
            let insert = Some(format!("{}: ", a.name));
            items.push(0, a.name, CompletionItemKind::FIELD, detail, doc, insert);
        }
        return;
    }
    if let Some(id) = items.callee_def(callee) {
        let ports: Vec<(DefId, String, String)> = items
            .doc
            .index
            .ports(id)
            .into_iter()
            .map(|(i, d)| (i, d.name.clone(), d.signature.to_string()))
            .collect();
        for (i, name, sig) in ports {
            if written.contains(&name) {
                continue;
            }
            let docs = hover::describe(&items.doc.index, Target::Def(i));
            let insert = Some(format!("{}: ", affect_compiler::fmt::arg_name(&name)));
            items.push(0, &name, CompletionItemKind::FIELD, Some(sig), docs, insert);
        }
        return;
    }
    if let Some(d) = devices::lookup(callee) {
        for (name, kind, required) in d.params {
            if written.iter().any(|w| w == name) {
                continue;
            }
            let optional = if *required { "" } else { " (optional)" };
            let detail = Some(format!("{name}: {}{optional}", param_kind(*kind)));
            let doc = Some(driver_signature(d));
            let insert = Some(format!("{name}: "));
            items.push(0, name, CompletionItemKind::FIELD, detail, doc, insert);
        }
    }
}
