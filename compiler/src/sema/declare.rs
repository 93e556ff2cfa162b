//! Declarations: the program's global names (enums, constants, node declarations, trees,
//! emotions, agents, ...) from every module, types as written resolved against them, and
//! the ports of nodes and trees. Each becomes a definition of the semantic index.

use super::error::{Scope, SemaError};
use super::index::{Decl, DefId, DefKind, Target, Visibility};
use super::order::{dependency_order, names_in, Order};
use super::ty::{self, Ty};
use super::world::{FIELD_RULES, SETTINGS};
use super::{
    ast, modules, signature, wording, ConstDef, EnumDef, Global, LeafDef, PortSig, TreeSig,
};
use super::{is_signature, Checker};
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::suggest::closest;
use crate::syntax::ast::{File, ItemKind, PortDir};
use crate::syntax::shape;
use std::collections::HashMap;

impl Checker {
    fn define(&mut self, name: &ast::Ident, what: Global, report: bool) -> bool {
        if crate::builtins::by_name(&name.name).is_some()
            && matches!(what, Global::Leaf(_) | Global::Tree(_))
        {
            if report {
                self.diags.push(
                    Diagnostic::error(
                        "E0202",
                        format!("`{}` is a built-in node", name.name),
                        name.span,
                    )
                    .with_label("this declaration would hide it")
                    .with_help("choose another name"),
                );
            }
            return false;
        }
        if let Some(&(prev, prev_span)) = self.g.names.get(&name.name) {
            if report {
                self.report(SemaError::DeclaredTwice {
                    name: name.name.clone(),
                    span: name.span,
                    first: Some(prev_span),
                    scope: Scope::Program(prev),
                });
            }
            return false;
        }
        self.g.names.insert(name.name.clone(), (what, name.span));
        true
    }

    /// Resolves a type written in the source.
    pub fn resolve_type(&mut self, t: &ast::Type) -> Ty {
        match &t.kind {
            ast::TypeKind::Named(p) => {
                let name = p.to_string_path();
                if let Some((_, ty)) = ty::BUILTIN_TYPES.iter().find(|(n, _)| *n == name) {
                    return ty.clone();
                }
                if name == ty::POINT {
                    return Ty::Tuple(vec![Ty::Length, Ty::Length]);
                }
                if let Some(i) = self.g.enum_index(&name) {
                    self.index.refer_global(p.span, &name);
                    self.used_globals.insert(name);
                    return Ty::Enum(i);
                }
                let mut candidates: Vec<&str> = ty::BUILTIN_TYPES.iter().map(|(n, _)| *n).collect();
                candidates.push(ty::POINT);
                candidates.extend(self.g.enums.iter().map(|e| e.name.as_str()));
                let best = closest(&name, candidates).map(str::to_string);
                let mut d = Diagnostic::error("E0203", format!("unknown type `{name}`"), t.span)
                    .with_label("not a type");
                d = match best {
                    Some(b) => d.with_help(format!("did you mean `{b}`?")),
                    None => d.with_help(format!(
                        "declare it (`enum {name} {{ .. }}`), or write a foreign type by its C++ name in quotes: `\"{name}\"`"
                    )),
                };
                self.diags.push(d);
                Ty::Error
            }
            ast::TypeKind::Range(base, lo, hi) => {
                let b = self.resolve_type(base);
                if !b.is_quantity() || b == Ty::Any {
                    self.diags.push(
                        Diagnostic::error("E0301", "only numbers can have a range", t.span)
                            .with_label(format!("`{}` is not a number type", self.g.show(&b))),
                    );
                }
                let _ = (lo, hi);
                b
            }
            ast::TypeKind::List(inner) => Ty::List(Box::new(self.resolve_type(inner))),
            ast::TypeKind::Foreign(s) => Ty::Foreign(s.clone()),
            ast::TypeKind::Error => Ty::Error,
        }
    }

    /// A range type's bounds, folded to constants.
    pub fn type_range(&mut self, t: &ast::Type) -> Option<(f64, f64)> {
        if let ast::TypeKind::Range(_, lo, hi) = &t.kind {
            let lo_v = self.const_value(lo)?;
            let hi_v = self.const_value(hi)?;
            if lo_v.0 > hi_v.0 {
                self.diags.push(
                    Diagnostic::error("E0302", "the range is empty", t.span)
                        .with_label(format!("{} is above {}", lo_v.0, hi_v.0)),
                );
                return None;
            }
            return Some((lo_v.0, hi_v.0));
        }
        None
    }

    pub(super) fn doc_text(doc: &Option<ast::Doc>) -> Option<String> {
        doc.as_ref().map(|d| d.text())
    }

    /// Records the declarations of one module.
    pub(super) fn declare(&mut self, m: &modules::Module, report: bool) {
        for item in &m.file.items {
            self.declare_item(item, report);
        }
        // Constants and port signatures need the names above; resolve them now, constants
        // first, each after the constants it reads (items come in any order).
        for c in self.const_order(&m.file) {
            self.declare_const(c);
        }
        for item in &m.file.items {
            match &item.kind {
                ItemKind::Leaf(l) => {
                    let Some(Global::Leaf(i)) = self.g.names.get(&l.name.name).map(|(g, _)| *g)
                    else {
                        continue;
                    };
                    if self.g.leaves[i as usize].span != l.name.span {
                        continue;
                    }
                    let owner = self.index.declared_at(l.name.span);
                    let ports = self.port_sigs(&l.ports, owner, Visibility::Qualified);
                    self.g.leaves[i as usize].ports = ports.into();
                }
                ItemKind::Tree(t) => {
                    let Some(Global::Tree(i)) = self.g.names.get(&t.name.name).map(|(g, _)| *g)
                    else {
                        continue;
                    };
                    if self.g.trees[i as usize].span != t.name.span {
                        continue;
                    }
                    let owner = self.index.declared_at(t.name.span);
                    let inside = Visibility::Within(item.span);
                    let ports = self.port_sigs(&t.ports, owner, inside);
                    self.g.trees[i as usize].ports = ports.into();
                }
                _ => {}
            }
        }
    }

    /// Records one top-level declaration: its global name and its definition.
    fn declare_item(&mut self, item: &ast::Item, report: bool) {
        let doc = Self::doc_text(&item.doc);
        let decl = |sig: String| Decl::new(item.span, sig, Visibility::Global).doc(doc.clone());
        let (name, kind, decl) = match &item.kind {
            ItemKind::Enum(e) => return self.declare_enum(item, e, report),
            ItemKind::Tree(t) => return self.declare_tree(item, t, report),
            ItemKind::Leaf(l) => {
                let idx = self.g.leaves.len() as u32;
                if !self.define(&l.name, Global::Leaf(idx), report) {
                    return;
                }
                self.g.leaves.push(LeafDef {
                    name: l.name.name.clone(),
                    kind: l.kind,
                    ports: Default::default(),
                    span: l.name.span,
                    doc: doc.clone(),
                });
                (&l.name, DefKind::Leaf(l.kind), decl(signature::leaf(l)))
            }
            ItemKind::Const(c) => (&c.name, DefKind::Const, decl(signature::const_decl(c))),
            ItemKind::Emotion(r) => (
                &r.name,
                DefKind::Emotion,
                decl(format!("emotion {}", r.name.name)).fields(signature::record_fields(r)),
            ),
            ItemKind::Tendency(r) => (
                &r.name,
                DefKind::Tendency,
                decl(format!("tendency {}", r.name.name)).fields(signature::record_fields(r)),
            ),
            ItemKind::Agent(a) => {
                let sig = match &a.base {
                    Some(b) => format!("agent {} = {}", a.name.name, b.name),
                    None => format!("agent {}", a.name.name),
                };
                (&a.name, DefKind::Agent, decl(sig))
            }
            ItemKind::World(w) => (
                &w.name,
                DefKind::World,
                decl(format!("world {}", w.name.name)),
            ),
            ItemKind::Component(c) => (
                &c.name,
                DefKind::Component,
                decl(format!("component {}", c.name.name))
                    .fields(signature::settings_lines(&c.body)),
            ),
            ItemKind::Behavior(b) => (
                &b.name,
                DefKind::Behavior,
                decl(format!("behavior {}", b.name.name))
                    .fields(signature::settings_lines(&b.body)),
            ),
            ItemKind::Use(_) | ItemKind::Error => return,
        };
        let global = match kind {
            DefKind::Leaf(_) => None,
            DefKind::Const => Some(Global::Const),
            DefKind::Emotion => Some(Global::Emotion),
            DefKind::Tendency => Some(Global::Tendency),
            DefKind::Agent => Some(Global::Agent(0)),
            DefKind::World => Some(Global::World),
            DefKind::Component => Some(Global::Component),
            _ => Some(Global::Behavior),
        };
        if global.is_none_or(|g| self.define(name, g, report)) {
            let def = self.index.define(name, kind, decl);
            match &item.kind {
                ItemKind::Component(c) => self.index_settings("component", &c.body, def),
                ItemKind::Behavior(b) => self.index_settings("behavior", &b.body, def),
                ItemKind::World(w) => self.index_world(&w.body),
                _ => {}
            }
        }
    }

    /// The keys of a configuration block (`memory`, `hormone`, `behavior`, ...) as uses of
    /// their settings, and the modules nested in a `behavior` block as definitions under
    /// `owner`.
    pub(super) fn index_settings(
        &mut self,
        kind: &'static str,
        block: &ast::SettingBlock,
        owner: DefId,
    ) {
        let schema = shape::schema(kind).unwrap_or(&[]);
        for e in &block.entries {
            match e {
                ast::SettingEntry::Setting(s) => {
                    let Some(sh) = schema.iter().find(|x| x.key == s.key.name) else {
                        continue;
                    };
                    self.index.refer(s.key.span, Target::Setting(kind, sh));
                    for (k, _) in s.pairs.iter().filter(|(k, _)| sh.pairs.contains(&&*k.name)) {
                        self.index.refer(k.span, Target::Setting(kind, sh));
                    }
                }
                ast::SettingEntry::Behavior(b, span) => {
                    let sig = format!("behavior {}", b.name.name);
                    let mut decl = Decl::new(*span, sig, Visibility::Within(block.span))
                        .doc(Self::doc_text(&b.doc))
                        .fields(signature::settings_lines(&b.body));
                    decl.parent = Some(owner);
                    let def = self.index.define(&b.name, DefKind::Behavior, decl);
                    self.index_settings("behavior", &b.body, def);
                }
                _ => {}
            }
        }
    }

    /// The keys of a `world` block (and of its `field` blocks) as uses of world settings.
    fn index_world(&mut self, block: &ast::SettingBlock) {
        for e in &block.entries {
            let ast::SettingEntry::Setting(s) = e else {
                continue;
            };
            if let Some(w) = SETTINGS.iter().find(|w| w.key == s.key.name) {
                self.index.refer(s.key.span, Target::WorldSetting(w));
            }
            let Some(field) = s.block.as_ref().filter(|_| s.key.name == "field") else {
                continue;
            };
            for e in &field.entries {
                let ast::SettingEntry::Setting(r) = e else {
                    continue;
                };
                if let Some(w) = FIELD_RULES.iter().find(|w| w.key == r.key.name) {
                    self.index.refer(r.key.span, Target::WorldSetting(w));
                }
            }
        }
    }

    /// An enum and its variants, with their values.
    fn declare_enum(&mut self, item: &ast::Item, e: &ast::EnumDecl, report: bool) {
        let idx = self.g.enums.len() as u32;
        if !self.define(&e.name, Global::Enum(idx), report) {
            return;
        }
        let decl = Decl::new(item.span, signature::enum_decl(e), Visibility::Global)
            .doc(Self::doc_text(&item.doc));
        let en = self.index.define(&e.name, DefKind::Enum, decl);
        self.index.add_enum(en);
        let mut variants = Vec::new();
        let mut values = Vec::new();
        for (vi, v) in e.variants.iter().enumerate() {
            if variants.contains(&v.name.name) {
                self.report(SemaError::DeclaredTwice {
                    name: v.name.name.clone(),
                    span: v.name.span,
                    first: None,
                    scope: Scope::Variants,
                });
                continue;
            }
            let value = match &v.value {
                Some(x) => match &x.kind {
                    ast::ExprKind::Num(n) if n.integer => n.value as i64,
                    ast::ExprKind::Unary(ast::UnOp::Neg, inner) => match &inner.kind {
                        ast::ExprKind::Num(n) if n.integer => -(n.value as i64),
                        _ => vi as i64,
                    },
                    _ => {
                        self.diags.push(
                            Diagnostic::error(
                                "E0301",
                                "an enum value must be a whole number",
                                x.span,
                            )
                            .with_label("not an integer literal"),
                        );
                        vi as i64
                    }
                },
                None => vi as i64,
            };
            self.g
                .variants
                .entry(v.name.name.clone())
                .or_default()
                .push((idx, variants.len() as u32));
            variants.push(v.name.name.clone());
            values.push(value);
            let decl = Decl::new(v.span, signature::variant(e, v), Visibility::Qualified)
                .doc(Self::doc_text(&v.doc))
                .ty(Ty::Enum(idx))
                .parent(en);
            let vd = self.index.define(&v.name, DefKind::Variant, decl);
            self.index.add_variant(vd);
        }
        self.g.enums.push(EnumDef {
            name: e.name.name.clone(),
            variants,
            values,
            span: e.name.span,
        });
    }

    /// A tree, or its signature: a signature and the tree's definition (in this file or a
    /// used one) are one tree, as a `<SubTree>` model entry and its `<BehaviorTree>` are.
    fn declare_tree(&mut self, item: &ast::Item, t: &ast::TreeDecl, report: bool) {
        let doc = Self::doc_text(&item.doc);
        let signature = is_signature(item, t);
        let sig = TreeSig {
            name: t.name.name.clone(),
            ports: Default::default(),
            span: t.name.span,
            is_main: t.is_main,
            doc: doc.clone(),
            signature,
        };
        let decl = Decl::new(item.span, signature::tree(t), Visibility::Global).doc(doc);
        if let Some(&(Global::Tree(i), _)) = self.g.names.get(&t.name.name) {
            if signature {
                return;
            }
            if self.g.trees[i as usize].signature {
                self.g
                    .names
                    .insert(t.name.name.clone(), (Global::Tree(i), t.name.span));
                self.g.trees[i as usize] = sig;
                let def = self.index.define(&t.name, DefKind::Tree, decl);
                self.index.globals.insert(t.name.name.clone(), def);
                return;
            }
        }
        let idx = self.g.trees.len() as u32;
        if self.define(&t.name, Global::Tree(idx), report) {
            self.g.trees.push(sig);
            self.index.define(&t.name, DefKind::Tree, decl);
        }
    }

    /// Folds one constant and records it.
    fn declare_const(&mut self, c: &ast::ConstDecl) {
        if self.g.consts.contains_key(&c.name.name) {
            return;
        }
        // The declared type first: `const START: Drive = Explore;` resolves the
        // variant against it.
        let declared = c.ty.as_ref().map(|t| (self.resolve_type(t), t));
        let hint = declared.as_ref().map(|(w, _)| w.clone());
        if let Some((value, mut ty)) = self.const_value_hint(&c.value, hint.as_ref()) {
            if let Some((want, t)) = declared {
                if !ty.fits(&want) {
                    let mut d = Diagnostic::error(
                        wording::mismatch_code(&ty, &want),
                        format!(
                            "constant `{}` is declared {} but its value is {}",
                            c.name.name,
                            wording::article(&self.g.show(&want)),
                            wording::article(&self.g.show(&ty))
                        ),
                        c.value.span,
                    )
                    .with_label("wrong type");
                    if let Some(h) = wording::unit_hint(&ty, &want) {
                        d = d.with_help(h);
                    }
                    self.diags.push(d);
                }
                if let Some((lo, hi)) = self.type_range(t) {
                    if value < lo || value > hi {
                        self.diags.push(
                            Diagnostic::error(
                                "E0302",
                                format!(
                                    "constant `{}` is {value}, outside its range {lo}..{hi}",
                                    c.name.name
                                ),
                                c.value.span,
                            )
                            .with_label("out of range"),
                        );
                    }
                }
                ty = want;
            }
            let def = self.index.declared_at(c.name.span);
            self.index.set_type(def, &ty);
            self.g.consts.insert(
                c.name.name.clone(),
                ConstDef {
                    ty,
                    value,
                    span: c.name.span,
                },
            );
        } else {
            // Reported already; known from here on, so its uses add nothing.
            self.g.consts.insert(
                c.name.name.clone(),
                ConstDef {
                    ty: Ty::Error,
                    value: 0.0,
                    span: c.name.span,
                },
            );
        }
    }

    /// The constants of a file in an order where each comes after the constants it reads. A
    /// constant that reads itself (directly or not) is reported and recorded as an error.
    fn const_order<'f>(&mut self, file: &'f File) -> Vec<&'f ast::ConstDecl> {
        let consts: Vec<&ast::ConstDecl> = file
            .items
            .iter()
            .filter_map(|i| match &i.kind {
                ItemKind::Const(c) => Some(c),
                _ => None,
            })
            .collect();
        let mut by_name: HashMap<&str, usize> = HashMap::new();
        for (i, c) in consts.iter().enumerate() {
            by_name.entry(c.name.name.as_str()).or_insert(i);
        }
        let deps: Vec<Vec<usize>> = consts
            .iter()
            .map(|c| {
                names_in(&c.value)
                    .iter()
                    .filter_map(|n| by_name.get(n.as_str()).copied())
                    .collect()
            })
            .collect();
        let Order { order, cyclic, .. } = dependency_order(&deps);
        for &i in &cyclic {
            let c = consts[i];
            if self.g.consts.contains_key(&c.name.name) {
                continue;
            }
            self.diags.push(
                Diagnostic::error(
                    "E0210",
                    format!("constant `{}` depends on itself", c.name.name),
                    c.name.span,
                )
                .with_label("its value reads itself, directly or through other constants")
                .with_help("give one of the constants a value that does not read the others"),
            );
            self.g.consts.insert(
                c.name.name.clone(),
                ConstDef {
                    ty: Ty::Error,
                    value: 0.0,
                    span: c.name.span,
                },
            );
        }
        order.into_iter().map(|i| consts[i]).collect()
    }

    /// The ports of a node declaration or tree, each a definition under `owner`.
    fn port_sigs(
        &mut self,
        ports: &[ast::PortDecl],
        owner: Option<DefId>,
        visible: Visibility,
    ) -> Vec<PortSig> {
        let mut out: Vec<PortSig> = Vec::with_capacity(ports.len());
        // One definition each: reserved, so a wide node does not leave the index up to half
        // empty after its last doubling.
        self.index.defs.reserve(ports.len());
        // Each name's first port (a search of `out` per port was n² for a wide node).
        let mut first: HashMap<&str, Span> = HashMap::new();
        for p in ports {
            if let Some(&prev) = first.get(p.name.name.as_str()) {
                self.report(SemaError::DeclaredTwice {
                    name: p.name.name.clone(),
                    span: p.name.span,
                    first: Some(prev),
                    scope: Scope::Ports,
                });
                continue;
            }
            let ty = match &p.ty {
                Some(t) => self.resolve_type(t),
                None => Ty::Any,
            };
            let default_key = p.default.as_ref().and_then(|d| self.key_default(d));
            let default = match &p.default {
                Some(d) if default_key.is_none() => self.port_default(p, d, &ty),
                _ => None,
            };
            let mut decl = Decl::new(p.span, signature::port(p), visible)
                .doc(p.doc.as_ref().map(|d| d.text()))
                .ty(ty);
            decl.parent = owner;
            let def = self.index.define(&p.name, DefKind::Port(p.dir), decl);
            first.insert(&p.name.name, p.name.span);
            out.push(PortSig {
                name: p.name.name.as_str().into(),
                dir: p.dir,
                default,
                default_key: default_key.map(String::into_boxed_str),
                def,
            });
        }
        out
    }

    /// A port's default, folded; it must suit the port's type (any literal suits a port of
    /// a C++ type: BehaviorTree.CPP reads a default from its text when the node reads it).
    fn port_default(&mut self, p: &ast::PortDecl, d: &ast::Expr, ty: &Ty) -> Option<f64> {
        if p.dir == PortDir::Out {
            self.diags.push(
                Diagnostic::error("E0307", "an `out` port cannot have a default", d.span)
                    .with_label("the node writes this port; it has nothing to default"),
            );
            return None;
        }
        let (v, dt) = self.const_value(d)?;
        let foreign_ok = matches!(ty, Ty::Foreign(_)) && Self::is_literal(d);
        if !foreign_ok && !dt.fits(ty) {
            let mut diag = Diagnostic::error(
                wording::mismatch_code(&dt, ty),
                format!(
                    "the default of `{}` must be {}, found {}",
                    p.name.name,
                    wording::article(&self.g.show(ty)),
                    wording::article(&self.g.show(&dt))
                ),
                d.span,
            )
            .with_label("wrong type");
            if let Some(h) = wording::unit_hint(&dt, ty) {
                diag = diag.with_help(h);
            }
            self.diags.push(diag);
        }
        Some(v)
    }

    /// A port default that names a blackboard entry (`default="{key}"` in BehaviorTree.CPP):
    /// a plain name that is no constant, enum variant, status or other global.
    fn key_default(&self, d: &ast::Expr) -> Option<String> {
        let ast::ExprKind::Name(p) = &d.kind else {
            return None;
        };
        let [seg] = p.segments.as_slice() else {
            return None;
        };
        let n = seg.name.as_str();
        let known = self.g.consts.contains_key(n)
            || self.g.variants.contains_key(n)
            || self.g.names.contains_key(n)
            || ty::STATUS_NAMES.contains(&n)
            || matches!(n, "true" | "false");
        (!known).then(|| n.to_string())
    }

    /// A literal value, possibly negated: what a model's `default="..."` holds.
    fn is_literal(e: &ast::Expr) -> bool {
        match &e.kind {
            ast::ExprKind::Num(_) | ast::ExprKind::Str(_) | ast::ExprKind::Bool(_) => true,
            ast::ExprKind::Unary(ast::UnOp::Neg, inner) => {
                matches!(inner.kind, ast::ExprKind::Num(_))
            }
            _ => false,
        }
    }
}
