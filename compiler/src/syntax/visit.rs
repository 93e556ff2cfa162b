//! A read-only walk over the syntax tree. Implement the `visit_*` methods you care about and
//! call the matching `walk_*` function to continue into children.

use super::ast::*;

pub trait Visitor {
    fn visit_item(&mut self, item: &Item) {
        walk_item(self, item)
    }
    fn visit_member(&mut self, member: &Member) {
        walk_member(self, member)
    }
    fn visit_node(&mut self, node: &Node) {
        walk_node(self, node)
    }
    fn visit_modifier(&mut self, m: &Modifier) {
        walk_modifier(self, m)
    }
    fn visit_stmt(&mut self, stmt: &Stmt) {
        walk_stmt(self, stmt)
    }
    fn visit_expr(&mut self, expr: &Expr) {
        walk_expr(self, expr)
    }
    fn visit_args(&mut self, args: &ArgList) {
        walk_args(self, args)
    }
    fn visit_type(&mut self, ty: &Type) {
        walk_type(self, ty)
    }
    /// `owner` names the construct the block configures (`memory`, `behavior`, `world`, ...).
    fn visit_settings(&mut self, owner: &str, block: &SettingBlock) {
        walk_settings(self, owner, block)
    }
}

pub fn walk_file<V: Visitor + ?Sized>(v: &mut V, file: &File) {
    for item in &file.items {
        v.visit_item(item);
    }
}

fn walk_attrs<V: Visitor + ?Sized>(v: &mut V, attrs: &[Attr]) {
    for a in attrs {
        if let Some(e) = &a.value {
            v.visit_expr(e);
        }
    }
}

fn walk_ports<V: Visitor + ?Sized>(v: &mut V, ports: &[PortDecl]) {
    for p in ports {
        if let Some(t) = &p.ty {
            v.visit_type(t);
        }
        if let Some(e) = &p.default {
            v.visit_expr(e);
        }
    }
}

pub fn walk_item<V: Visitor + ?Sized>(v: &mut V, item: &Item) {
    walk_attrs(v, &item.attrs);
    match &item.kind {
        ItemKind::Use(_) | ItemKind::Error => {}
        ItemKind::Const(c) => {
            if let Some(t) = &c.ty {
                v.visit_type(t);
            }
            v.visit_expr(&c.value);
        }
        ItemKind::Enum(e) => {
            for var in &e.variants {
                if let Some(x) = &var.value {
                    v.visit_expr(x);
                }
            }
        }
        ItemKind::Leaf(l) => walk_ports(v, &l.ports),
        ItemKind::Tree(t) => {
            walk_ports(v, &t.ports);
            for local in &t.locals {
                if let Some(ty) = &local.ty {
                    v.visit_type(ty);
                }
                if let Some(e) = &local.init {
                    v.visit_expr(e);
                }
            }
            walk_nodes(v, &t.body);
        }
        ItemKind::Emotion(r) | ItemKind::Tendency(r) => {
            for f in &r.fields {
                v.visit_expr(&f.value);
            }
        }
        ItemKind::Agent(a) => {
            for m in a.members.iter().flatten() {
                v.visit_member(m);
            }
        }
        ItemKind::World(w) => v.visit_settings("world", &w.body),
        ItemKind::Component(c) => v.visit_settings("component", &c.body),
        ItemKind::Behavior(b) => v.visit_settings("behavior", &b.body),
    }
}

pub fn walk_nodes<V: Visitor + ?Sized>(v: &mut V, block: &NodeBlock) {
    for n in &block.nodes {
        v.visit_node(n);
    }
}

pub fn walk_node<V: Visitor + ?Sized>(v: &mut V, node: &Node) {
    walk_attrs(v, &node.attrs);
    match &node.kind {
        NodeKind::Call { args, children, .. } => {
            if let Some(a) = args {
                v.visit_args(a);
            }
            if let Some(c) = children {
                walk_nodes(v, c);
            }
        }
        NodeKind::Script(b) => walk_block(v, b),
        NodeKind::Check(e) => v.visit_expr(e),
        NodeKind::Switch { subject, arms } => {
            v.visit_expr(subject);
            for arm in arms {
                if let Pattern::Expr(e) = &arm.pattern {
                    v.visit_expr(e);
                }
                v.visit_node(&arm.node);
            }
        }
        NodeKind::For { queue, body, .. } => {
            v.visit_expr(queue);
            walk_nodes(v, body);
        }
        NodeKind::Error => {}
    }
    for m in &node.modifiers {
        v.visit_modifier(m);
    }
}

pub fn walk_modifier<V: Visitor + ?Sized>(v: &mut V, m: &Modifier) {
    match &m.kind {
        ModifierKind::SkipIf(e)
        | ModifierKind::SuccessIf(e)
        | ModifierKind::FailureIf(e)
        | ModifierKind::While(e) => v.visit_expr(e),
        ModifierKind::OnSuccess(b)
        | ModifierKind::OnFailure(b)
        | ModifierKind::OnHalted(b)
        | ModifierKind::After(b) => walk_block(v, b),
    }
}

pub fn walk_block<V: Visitor + ?Sized>(v: &mut V, block: &Block) {
    for s in &block.stmts {
        v.visit_stmt(s);
    }
}

pub fn walk_stmt<V: Visitor + ?Sized>(v: &mut V, stmt: &Stmt) {
    match &stmt.kind {
        StmtKind::Assign { target, value, .. } => {
            v.visit_expr(target);
            v.visit_expr(value);
        }
        StmtKind::Expr(e) => v.visit_expr(e),
        StmtKind::If {
            cond,
            then,
            otherwise,
        } => {
            v.visit_expr(cond);
            walk_block(v, then);
            match otherwise.as_deref() {
                Some(Else::Block(b)) => walk_block(v, b),
                Some(Else::If(s)) => v.visit_stmt(s),
                None => {}
            }
        }
        StmtKind::Error => {}
    }
}

pub fn walk_expr<V: Visitor + ?Sized>(v: &mut V, expr: &Expr) {
    match &expr.kind {
        ExprKind::Num(_)
        | ExprKind::Str(_)
        | ExprKind::Bool(_)
        | ExprKind::Name(_)
        | ExprKind::Root(_)
        | ExprKind::Error => {}
        ExprKind::Unary(_, e) | ExprKind::Paren(e) | ExprKind::Field(e, _) => v.visit_expr(e),
        ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => {
            v.visit_expr(a);
            v.visit_expr(b);
        }
        ExprKind::Ternary(c, a, b) => {
            v.visit_expr(c);
            v.visit_expr(a);
            v.visit_expr(b);
        }
        ExprKind::Call(f, args) => {
            v.visit_expr(f);
            v.visit_args(args);
        }
        ExprKind::List(items) | ExprKind::Tuple(items) => {
            for i in items {
                v.visit_expr(i);
            }
        }
    }
}

pub fn walk_args<V: Visitor + ?Sized>(v: &mut V, args: &ArgList) {
    for a in &args.args {
        v.visit_expr(&a.value);
    }
}

pub fn walk_type<V: Visitor + ?Sized>(v: &mut V, ty: &Type) {
    match &ty.kind {
        TypeKind::Range(base, lo, hi) => {
            v.visit_type(base);
            v.visit_expr(lo);
            v.visit_expr(hi);
        }
        TypeKind::List(t) => v.visit_type(t),
        TypeKind::Named(_) | TypeKind::Foreign(_) | TypeKind::Error => {}
    }
}

pub fn walk_member<V: Visitor + ?Sized>(v: &mut V, member: &Member) {
    walk_attrs(v, &member.attrs);
    let ty = |v: &mut V, t: &Option<Type>| {
        if let Some(t) = t {
            v.visit_type(t);
        }
    };
    match &member.kind {
        MemberKind::Rate(e) => v.visit_expr(e),
        MemberKind::Var { ty: t, init, .. } => {
            ty(v, t);
            if let Some(e) = init {
                v.visit_expr(e);
            }
        }
        MemberKind::Let { ty: t, value, .. } => {
            ty(v, t);
            v.visit_expr(value);
        }
        MemberKind::Sensor { ty: t, source, .. } | MemberKind::Actuator { ty: t, source, .. } => {
            ty(v, t);
            v.visit_expr(source);
        }
        MemberKind::Event { source, .. } => {
            if let Some(e) = source {
                v.visit_expr(e);
            }
        }
        MemberKind::Hormone {
            value, settings, ..
        } => {
            v.visit_expr(value);
            if let Some(s) = settings {
                v.visit_settings("hormone", s);
            }
        }
        MemberKind::Update(b) => walk_block(v, b),
        MemberKind::On { event, body } => {
            v.visit_expr(event);
            walk_block(v, body);
        }
        MemberKind::Personality(fields) => {
            for f in fields {
                v.visit_expr(&f.value);
            }
        }
        MemberKind::Emotions { ty: t, body, .. } => {
            v.visit_type(t);
            v.visit_settings("emotions", body);
        }
        MemberKind::Tendencies { arms, .. } => {
            for arm in arms {
                if let Pattern::Expr(e) = &arm.pattern {
                    v.visit_expr(e);
                }
                for t in &arm.targets {
                    if let Some(a) = &t.args {
                        v.visit_args(a);
                    }
                }
            }
        }
        MemberKind::Drive(d) => {
            v.visit_type(&d.ty);
            for e in &d.entries {
                match e {
                    DriveEntry::Rule(r) => v.visit_expr(&r.guard),
                    DriveEntry::Intention(i) => {
                        ty(v, &i.ty);
                        for arm in &i.arms {
                            for p in &arm.patterns {
                                if let Pattern::Expr(e) = p {
                                    v.visit_expr(e);
                                }
                            }
                            v.visit_expr(&arm.value);
                        }
                    }
                    DriveEntry::Error(_) => {}
                }
            }
        }
        MemberKind::Memory { key, body, .. } => {
            if let Some(k) = key {
                v.visit_expr(k);
            }
            v.visit_settings("memory", body);
        }
        MemberKind::Behavior(b) => v.visit_settings("behavior", &b.body),
        MemberKind::Behaviors(s) => v.visit_settings("behaviors", s),
        MemberKind::Recruitment(s) => v.visit_settings("recruitment", &s.body),
        MemberKind::Component(s) => v.visit_settings("component", &s.body),
        MemberKind::Main(b) => walk_nodes(v, b),
        MemberKind::Error => {}
    }
}

pub fn walk_settings<V: Visitor + ?Sized>(v: &mut V, _owner: &str, block: &SettingBlock) {
    for e in &block.entries {
        match e {
            SettingEntry::Setting(s) => {
                for a in &s.args {
                    v.visit_expr(a);
                }
                if let Some(x) = &s.assign {
                    v.visit_expr(x);
                }
                for (_, x) in &s.pairs {
                    v.visit_expr(x);
                }
                if let Some(x) = &s.value {
                    v.visit_expr(x);
                }
                if let Some(b) = &s.block {
                    // A nested block (a world field's rules) has its own shape.
                    v.visit_settings("nested", b);
                }
            }
            SettingEntry::Behavior(b, _) => v.visit_settings("behavior", &b.body),
            SettingEntry::Transition(t) => v.visit_expr(&t.guard),
            SettingEntry::Error(_) => {}
        }
    }
}
