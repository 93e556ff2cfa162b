//! The formatter: one canonical layout for `.affect` text. It prints the syntax tree and
//! weaves the file's comments back in by position, so every comment and doc comment
//! survives and the tree never changes. The XML importer prints its output with it too
//! (a tree without source text: doc comments then come from the tree itself).
//!
//! Layout: four-space indentation, one construct per line, `{` on the line that opens a
//! block, at most one blank line kept where the source had blank lines, one blank line
//! between top-level declarations (compact one-line declarations may stay together), short
//! blocks on one line when they fit in 100 columns and hold no comments.

mod expr;
mod members;
mod nodes;

use crate::diagnostic::{has_errors, Diagnostic};
use crate::span::Span;
use crate::syntax::ast::*;
use crate::syntax::{self, Comment, CommentKind};
pub use expr::{arg_name, is_plain_ident, name};

/// An expression on one line, as the formatter prints it.
pub fn format_expr(e: &Expr) -> String {
    expr::expr(e)
}

/// A type, as the formatter prints it.
pub fn format_type(t: &Type) -> String {
    expr::ty(t)
}

pub const WIDTH: usize = 100;
const INDENT: usize = 4;

/// Parses and formats a source text. Files with syntax errors are not formatted: the
/// errors come back instead.
pub fn format_source(src: &str) -> Result<String, Vec<Diagnostic>> {
    let parsed = syntax::parse(src);
    if has_errors(&parsed.diagnostics) {
        return Err(parsed.diagnostics);
    }
    Ok(format_file(&parsed.file, &parsed.comments, Some(src)))
}

/// Prints a syntax tree. `comments` and `src` come from the parse; pass `&[]` and `None`
/// for a tree built in code.
pub fn format_file(file: &File, comments: &[Comment], src: Option<&str>) -> String {
    let mut p = Printer {
        out: String::new(),
        cur: String::new(),
        indent: 0,
        comments,
        next: 0,
        src,
        last_end: None,
    };
    let mut prev_compact: Option<bool> = None;
    for item in &file.items {
        let compact = p.item_is_compact(item);
        // Declarations with a body always stand apart.
        let force_blank = prev_compact.is_some_and(|pc| !(pc && compact));
        p.leading(item.span.start, force_blank);
        p.item(item);
        p.end_element(item.span.end);
        prev_compact = Some(compact);
    }
    p.leading(u32::MAX, false);
    let mut out = p.out;
    while out.ends_with("\n\n") {
        out.pop();
    }
    if out.is_empty() {
        return out;
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

struct Printer<'a> {
    out: String,
    /// The line being built, without indentation.
    cur: String,
    indent: usize,
    comments: &'a [Comment],
    next: usize,
    src: Option<&'a str>,
    /// Source end of the last thing printed in the current block (`None` at a block start).
    last_end: Option<u32>,
}

impl<'a> Printer<'a> {
    // ------------------------------------------------------------------ lines and comments

    fn newline(&mut self) {
        let line = std::mem::take(&mut self.cur);
        if line.is_empty() {
            self.out.push('\n');
        } else {
            for _ in 0..self.indent * INDENT {
                self.out.push(' ');
            }
            self.out.push_str(line.trim_end());
            self.out.push('\n');
        }
    }

    fn line(&mut self, s: &str) {
        debug_assert!(self.cur.is_empty());
        self.cur.push_str(s);
        self.newline();
    }

    fn blank_line(&mut self) {
        if !self.out.is_empty() && !self.out.ends_with("\n\n") {
            self.out.push('\n');
        }
    }

    fn source_has_blank(&self, from: u32, to: u32) -> bool {
        let Some(src) = self.src else { return false };
        let (from, to) = (from as usize, (to as usize).min(src.len()));
        from < to && src[from..to].matches('\n').count() >= 2
    }

    fn real(span: Span) -> bool {
        span != Span::DUMMY
    }

    /// Prints the comments before `start` on their own lines, keeping single blank lines
    /// the source had, then the blank line before the element itself if any.
    fn leading(&mut self, start: u32, force_blank: bool) {
        let mut forced = force_blank;
        while let Some(c) = self.comments.get(self.next) {
            if c.span.start >= start {
                break;
            }
            if forced
                || self
                    .last_end
                    .is_some_and(|e| self.source_has_blank(e, c.span.start))
            {
                self.blank_line();
            }
            forced = false;
            self.comment_lines(c);
            self.last_end = Some(c.span.end);
            self.next += 1;
        }
        if start != u32::MAX
            && (forced
                || self
                    .last_end
                    .is_some_and(|e| self.source_has_blank(e, start)))
        {
            self.blank_line();
        }
    }

    fn comment_lines(&mut self, c: &Comment) {
        if c.kind == CommentKind::Block && c.text.contains('\n') {
            // Multi-line block comments keep their inner layout.
            let mut lines = c.text.lines();
            if let Some(first) = lines.next() {
                self.line(first);
            }
            for l in lines {
                self.out.push_str(l.trim_end());
                self.out.push('\n');
            }
        } else {
            self.line(&c.text);
        }
    }

    /// Ends an element: a comment on the same source line follows it, then the line ends.
    fn end_element(&mut self, end: u32) {
        if let (Some(c), Some(src)) = (self.comments.get(self.next), self.src) {
            let gap_ok = c.span.start >= end
                && !src[(end as usize).min(src.len())..(c.span.start as usize).min(src.len())]
                    .contains('\n')
                && !c.text.contains('\n');
            if gap_ok && c.kind != CommentKind::Doc {
                if !self.cur.is_empty() {
                    self.cur.push(' ');
                } else {
                    // The element ended with a line already written: reopen it.
                    if self.out.ends_with('\n') {
                        self.out.pop();
                    }
                    self.out.push(' ');
                    self.out.push_str(&c.text);
                    self.out.push('\n');
                    self.last_end = Some(c.span.end);
                    self.next += 1;
                    return;
                }
                self.cur.push_str(&c.text);
                self.last_end = Some(c.span.end);
                self.next += 1;
            } else {
                self.last_end = Some(end);
            }
        } else {
            self.last_end = Some(end);
        }
        if !self.cur.is_empty() {
            self.newline();
        }
    }

    fn has_comments_in(&self, span: Span) -> bool {
        self.comments[self.next..]
            .iter()
            .take_while(|c| c.span.start < span.end)
            .any(|c| c.span.start >= span.start)
    }

    fn fits(&self, s: &str) -> bool {
        !s.contains('\n')
            && self.indent * INDENT + self.cur.chars().count() + s.chars().count() <= WIDTH
    }

    /// Opens a block: the current line ends with `{`.
    fn open(&mut self) {
        self.cur.push_str(" {");
        self.newline();
        self.indent += 1;
        self.last_end = None;
    }

    /// Closes a block whose `}` ends at `end`: pending comments inside it come first.
    fn close(&mut self, end: u32) {
        let closing = if end > 0 { end - 1 } else { 0 };
        self.leading(closing, false);
        self.indent -= 1;
        self.cur.push('}');
        self.last_end = Some(end);
    }

    fn doc(&mut self, doc: &Option<Doc>) {
        self.doc_ref(doc.as_ref());
    }

    fn doc_ref(&mut self, doc: Option<&Doc>) {
        // Docs from the source print as comments by position; docs of a tree printed
        // without its comments (built in code, or by the importer) print here.
        if let Some(d) = doc {
            if !Self::real(d.span) || self.comments.is_empty() {
                for l in &d.lines {
                    if l.is_empty() {
                        self.line("///");
                    } else {
                        self.line(&format!("/// {l}"));
                    }
                }
            }
        }
    }

    /// Prints a list of elements one per line, with their comments.
    fn elements<T>(
        &mut self,
        items: &[T],
        span: impl Fn(&T) -> Span,
        mut print: impl FnMut(&mut Self, &T),
    ) {
        for it in items {
            let sp = span(it);
            self.leading(sp.start, false);
            print(self, it);
            self.end_element(sp.end);
        }
    }

    // ------------------------------------------------------------------ items

    fn item_is_compact(&self, item: &Item) -> bool {
        match &item.kind {
            ItemKind::Use(_) | ItemKind::Const(_) => true,
            ItemKind::Leaf(l) => self.inline_ports(&l.ports, item.span).is_some(),
            ItemKind::Agent(a) => a.members.is_none(),
            _ => false,
        }
    }

    fn attrs(&mut self, attrs: &[Attr]) {
        for a in attrs {
            self.line(&expr::attr(a));
        }
    }

    fn item(&mut self, item: &Item) {
        self.doc(&item.doc);
        self.attrs(&item.attrs);
        match &item.kind {
            ItemKind::Use(u) => match &u.target {
                UseTarget::Module(p) => self.cur.push_str(&format!("use {};", expr::path(p))),
                UseTarget::File(f, _) => self.cur.push_str(&format!("use {};", expr::string(f))),
            },
            ItemKind::Const(c) => {
                self.cur.push_str(&format!("const {}", name(&c.name.name)));
                if let Some(t) = &c.ty {
                    self.cur.push_str(&format!(": {}", expr::ty(t)));
                }
                self.cur.push_str(&format!(" = {};", expr::expr(&c.value)));
            }
            ItemKind::Enum(e) => self.enum_decl(e, item.span),
            ItemKind::Leaf(l) => {
                self.cur
                    .push_str(&format!("{} {}", l.kind.keyword(), name(&l.name.name)));
                self.ports(&l.ports, item.span);
                self.cur.push(';');
            }
            ItemKind::Tree(t) => {
                if t.is_main {
                    self.cur.push_str("main ");
                }
                self.cur.push_str(&format!("tree {}", name(&t.name.name)));
                if !t.ports.is_empty() {
                    self.ports(
                        &t.ports,
                        Span::new(item.span.start as usize, t.body.span.start as usize),
                    );
                }
                self.tree_body(t);
            }
            ItemKind::Emotion(r) => self.record("emotion", r, item.span),
            ItemKind::Tendency(r) => self.record("tendency", r, item.span),
            ItemKind::Agent(a) => {
                self.cur.push_str(&format!("agent {}", name(&a.name.name)));
                if let Some(b) = &a.base {
                    self.cur.push_str(&format!(" = {}", name(&b.name)));
                }
                match &a.members {
                    None => self.cur.push(';'),
                    Some(members) => {
                        let end = a.body_span.map(|s| s.end).unwrap_or(item.span.end);
                        if members.is_empty() && !self.has_comments_in(item.span) {
                            self.cur.push_str(" {}");
                        } else {
                            self.open();
                            self.elements(members, |m| m.span, |p, m| p.member(m));
                            self.close(end);
                        }
                    }
                }
            }
            ItemKind::World(w) => {
                self.cur.push_str(&format!("world {}", name(&w.name.name)));
                self.setting_block(&w.body, false);
            }
            ItemKind::Component(c) => {
                self.cur
                    .push_str(&format!("component {}", name(&c.name.name)));
                self.setting_block(&c.body, false);
            }
            ItemKind::Behavior(b) => {
                self.cur
                    .push_str(&format!("behavior {}", name(&b.name.name)));
                self.setting_block(&b.body, false);
            }
            ItemKind::Error => self.cur.push_str("/* error */"),
        }
    }

    fn enum_decl(&mut self, e: &EnumDecl, span: Span) {
        self.cur.push_str(&format!("enum {}", name(&e.name.name)));
        let variant = |v: &Variant| match &v.value {
            Some(x) => format!("{} = {}", name(&v.name.name), expr::expr(x)),
            None => name(&v.name.name),
        };
        let flat = format!(
            " {{ {} }}",
            e.variants
                .iter()
                .map(variant)
                .collect::<Vec<_>>()
                .join(", ")
        );
        let docs = e.variants.iter().any(|v| v.doc.is_some());
        if e.variants.is_empty() {
            self.cur.push_str(" {}");
        } else if !docs && !self.has_comments_in(span) && self.fits(&flat) {
            self.cur.push_str(&flat);
        } else {
            self.open();
            self.elements(
                &e.variants,
                |v| v.span,
                |p, v| {
                    p.doc(&v.doc);
                    p.cur.push_str(&format!("{},", variant(v)));
                },
            );
            self.close(span.end);
        }
    }

    fn inline_ports(&self, ports: &[PortDecl], span: Span) -> Option<String> {
        let docs = ports.iter().any(|p| p.doc.is_some());
        if docs || self.has_comments_in(span) {
            return None;
        }
        // Built until it cannot fit: the whole list of a node with 200,000 ports, one string
        // per port, was the largest thing exporting it held.
        let mut flat = String::from("(");
        for (i, p) in ports.iter().enumerate() {
            if i > 0 {
                flat.push_str(", ");
            }
            flat.push_str(&expr::port(p));
            if flat.chars().count() > WIDTH {
                return None;
            }
        }
        flat.push(')');
        self.fits(&format!("{flat} {{")).then_some(flat)
    }

    /// `(in a: num, out b: bool)`, broken one port per line when it does not fit. `span`
    /// ends where the list may end: comments before it stay inside the parentheses.
    fn ports(&mut self, ports: &[PortDecl], span: Span) {
        if let Some(flat) = self.inline_ports(ports, span) {
            self.cur.push_str(&flat);
            return;
        }
        self.cur.push('(');
        self.newline();
        self.indent += 1;
        self.last_end = None;
        self.elements(
            ports,
            |p| p.span,
            |p, port| {
                p.doc_ref(port.doc.as_deref());
                p.cur.push_str(&format!("{},", expr::port(port)));
            },
        );
        // Comments after the last port belong inside the list (a dangling doc comment there
        // must not drift onto the next declaration).
        self.leading(span.end, false);
        self.indent -= 1;
        self.cur.push(')');
    }

    fn record(&mut self, kw: &str, r: &RecordDecl, span: Span) {
        self.cur.push_str(&format!("{kw} {}", name(&r.name.name)));
        self.fields(&r.fields, span, 2);
    }

    /// `{ a: 1, b: 2 }`: on one line when short enough, else one field per line.
    fn fields(&mut self, fields: &[Field], span: Span, max_inline: usize) {
        let flat = format!(
            " {{ {} }}",
            fields
                .iter()
                .map(expr::field)
                .collect::<Vec<_>>()
                .join(", ")
        );
        let docs = fields.iter().any(|f| f.doc.is_some());
        if fields.is_empty() {
            self.cur.push_str(" {}");
        } else if fields.len() <= max_inline
            && !docs
            && !self.has_comments_in(span)
            && self.fits(&flat)
        {
            self.cur.push_str(&flat);
        } else {
            self.open();
            self.elements(
                fields,
                |f| f.span,
                |p, f| {
                    p.doc(&f.doc);
                    p.cur.push_str(&format!("{},", expr::field(f)));
                },
            );
            self.close(span.end);
        }
    }

    // ------------------------------------------------------------------ settings

    fn setting_block(&mut self, block: &SettingBlock, may_inline: bool) {
        if block.entries.is_empty() {
            self.cur.push_str(" {}");
            return;
        }
        if may_inline && block.entries.len() <= 3 && !self.has_comments_in(block.span) {
            let simple: Option<Vec<String>> = block
                .entries
                .iter()
                .map(|e| match e {
                    SettingEntry::Setting(s) if s.block.is_none() && s.doc.is_none() => {
                        Some(format!("{};", expr::setting_head(s)))
                    }
                    _ => None,
                })
                .collect();
            if let Some(parts) = simple {
                let flat = format!(" {{ {} }}", parts.join(" "));
                if self.fits(&flat) {
                    self.cur.push_str(&flat);
                    return;
                }
            }
        }
        self.open();
        self.elements(&block.entries, |e| e.span(), |p, e| p.setting_entry(e));
        self.close(block.span.end);
    }

    fn setting_entry(&mut self, e: &SettingEntry) {
        match e {
            SettingEntry::Setting(s) => {
                self.doc(&s.doc);
                self.cur.push_str(&expr::setting_head(s));
                match &s.block {
                    Some(b) => self.setting_block(b, true),
                    None => self.cur.push(';'),
                }
            }
            SettingEntry::Behavior(b, _) => {
                self.doc(&b.doc);
                self.cur
                    .push_str(&format!("behavior {}", name(&b.name.name)));
                self.setting_block(&b.body, false);
            }
            SettingEntry::Transition(t) => {
                self.doc(&t.doc);
                self.cur.push_str(&format!(
                    "{} -> {} when {};",
                    name(&t.from.name),
                    name(&t.to.name),
                    expr::expr(&t.guard)
                ));
            }
            SettingEntry::Error(_) => self.cur.push_str("/* error */"),
        }
    }

    // ------------------------------------------------------------------ agents

    // ------------------------------------------------------------------ statements

    /// A statement block. `may_inline` allows `{ a = 1; b = 2 }` on one line (scripts and
    /// modifier blocks) when it is short, simple and has no comments.
    fn block(&mut self, b: &Block, may_inline: bool) {
        if b.stmts.is_empty() && !self.has_comments_in(b.span) {
            self.cur.push_str(" {}");
            return;
        }
        if may_inline && !self.has_comments_in(b.span) {
            let simple: Option<Vec<String>> = b.stmts.iter().map(simple_stmt).collect();
            if let Some(parts) = simple {
                let flat = format!(" {{ {} }}", parts.join("; "));
                if self.fits(&flat) {
                    self.cur.push_str(&flat);
                    return;
                }
            }
        }
        self.open();
        self.elements(&b.stmts, |s| s.span, |p, s| p.stmt(s));
        self.close(b.span.end);
    }

    fn stmt(&mut self, s: &Stmt) {
        if let Some(line) = simple_stmt(s) {
            self.cur.push_str(&line);
            self.cur.push(';');
            return;
        }
        if let StmtKind::If {
            cond,
            then,
            otherwise,
        } = &s.kind
        {
            self.cur.push_str(&format!("if {}", expr::expr(cond)));
            self.block(then, false);
            match otherwise.as_deref() {
                Some(Else::Block(b)) => {
                    self.cur.push_str(" else");
                    self.block(b, false);
                }
                Some(Else::If(s)) => {
                    self.cur.push_str(" else ");
                    self.stmt(s);
                }
                None => {}
            }
        }
    }

    // ------------------------------------------------------------------ trees
}

impl Node {
    /// Where a switch node's braces end: before its modifiers.
    fn span_end_of_block(&self) -> u32 {
        self.modifiers
            .first()
            .map(|m| m.span.start)
            .unwrap_or(self.span.end)
    }
}

fn simple_stmt(s: &Stmt) -> Option<String> {
    match &s.kind {
        StmtKind::Assign { target, op, value } => Some(format!(
            "{} {} {}",
            expr::expr(target),
            op.as_str(),
            expr::expr(value)
        )),
        StmtKind::Expr(e) => Some(expr::expr(e)),
        StmtKind::If { .. } | StmtKind::Error => None,
    }
}
