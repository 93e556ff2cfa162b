//! Small constructors the grammar's actions call, kept here so the grammar stays readable.

use super::ast::*;
use crate::span::Span;

pub fn sp(l: u32, r: u32) -> Span {
    Span {
        start: l,
        end: r.max(l),
    }
}

/// A list as long as it is: a list grown one item at a time ends with up to half its room
/// empty, and a node with 200,000 ports keeps its ports and its call's arguments for as long
/// as the syntax tree lives (a quarter of their memory was that room).
pub fn fit<T>(mut v: Vec<T>) -> Vec<T> {
    if v.capacity() - v.len() > 16 {
        v.shrink_to_fit();
    }
    v
}

/// A call's arguments: positional, then named.
pub type CallArgs = (Vec<Expr>, Vec<(Ident, Expr)>);

/// What follows a setting's key, before its `;` or block.
pub struct SettingHead {
    pub args: Option<CallArgs>,
    pub assign: Option<Expr>,
    pub value: Option<Expr>,
}

pub fn setting(key: Ident, head: SettingHead, block: Option<SettingBlock>, span: Span) -> Setting {
    let (args, pairs) = head.args.unwrap_or_default();
    Setting {
        doc: None,
        key,
        args,
        assign: head.assign,
        pairs,
        value: head.value,
        block,
        span,
    }
}

/// `behavior Name { ... }` inside a settings block is a nested behaviour module, not a setting.
pub fn setting_entry(s: Setting) -> SettingEntry {
    let nested_behavior = s.key.name == "behavior"
        && s.args.len() == 1
        && s.pairs.is_empty()
        && s.assign.is_none()
        && s.value.is_none()
        && s.block.is_some();
    if nested_behavior {
        if let ExprKind::Name(p) = &s.args[0].kind {
            if p.segments.len() == 1 {
                let name = p.segments[0].clone();
                let span = s.span;
                let body = s.block.expect("checked above");
                return SettingEntry::Behavior(
                    Box::new(BehaviorDecl {
                        doc: None,
                        name,
                        body,
                    }),
                    span,
                );
            }
        }
    }
    SettingEntry::Setting(s)
}

/// The items of a list whose nonterminal the grammar builds boxed. The parser keeps every
/// value on one stack of an enum as large as its largest kind and moves that whole enum at
/// each reduction (about ten for each operand of an expression, one per precedence tier):
/// with nodes (256 bytes), settings (280) and statements (144) boxed, an entry is about a
/// third as large.
pub fn unbox<T>(v: Vec<Box<T>>) -> Vec<T> {
    v.into_iter().map(|b| *b).collect()
}
