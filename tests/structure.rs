//! The shape of the code (docs/architecture.md), checked on every test run:
//!
//! - **No import circles** between the files of `compiler/`, `runtime/`, `lsp/` and `src/`. A
//!   file imports another when a `use` or a path through `crate::`, `super::` or `self::`
//!   names it (a path names the file of the deepest module it goes through). A module's own
//!   file reaching into its submodules is not an import: it contains them. Tests aside.
//! - **No two top-level modules of a crate import each other**, directly or through others
//!   (`run` and `record`, `sema` and `groot`): a crate's top-level modules are layers. The
//!   test prints each loop with a file of each module that imports the next.
//! - **The runtime never names the compiler's `syntax` module**: it reads only the IR.
//! - **No file over 1,000 lines** and **no function over 150 lines**, tests aside, unless a
//!   comment says why it must be one piece: for a function, a comment just above it (or on
//!   its first line) with the words "one piece"; for a file, its module documentation.
//!
//! Work in progress is listed below, each entry with its owner. An entry that no longer
//! applies fails the test too, so the lists only shrink; the lead removes the last ones.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const MAX_FILE_LINES: usize = 1000;
const MAX_FN_LINES: usize = 150;

/// The crates whose files must not import each other in circles: (name, source folder).
const CRATES: [(&str, &str); 6] = [
    ("affect-compiler", "compiler/src"),
    ("affect-runtime", "runtime/src"),
    ("affect-lsp", "lsp/src"),
    ("affect", "src"),
    ("affect-net", "net/src"),
    ("affect-files", "files/src"),
];

/// Circles being taken apart: the files of each (sorted), and who owns the work.
const ALLOWED_CIRCLES: &[(&[&str], &str)] = &[];

/// Top-level modules of one crate that import each other, being taken apart: (crate's
/// folder, the modules sorted, owner).
const ALLOWED_MODULE_LOOPS: &[(&str, &[&str], &str)] = &[];

/// Files over the limit being split: (file, owner).
const ALLOWED_LONG_FILES: &[(&str, &str)] = &[];

/// Functions over the limit being cut into steps: (file, function, owner).
const ALLOWED_LONG_FNS: &[(&str, &str, &str)] = &[];

/// One source file of the four crates.
struct Source {
    /// Relative to the workspace, with `/`.
    path: String,
    /// Its module path in its crate (`interp::nodes`; empty for `lib.rs` / `main.rs`).
    module: Vec<String>,
    /// The text as written.
    raw: String,
    /// The text with comments, strings and character literals blanked and test modules
    /// removed; lines and columns are kept.
    code: String,
}

/// Replaces comments, string and character literals with spaces (newlines kept).
fn blank_comments_and_literals(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out: Vec<char> = c.clone();
    let blank = |out: &mut Vec<char>, from: usize, to: usize| {
        for ch in out.iter_mut().take(to.min(c.len())).skip(from) {
            if *ch != '\n' {
                *ch = ' ';
            }
        }
    };
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let mut i = 0;
    while i < c.len() {
        let prev_ident = i > 0 && ident(c[i - 1]);
        if c[i] == '/' && c.get(i + 1) == Some(&'/') {
            let end = (i..c.len()).find(|&j| c[j] == '\n').unwrap_or(c.len());
            blank(&mut out, i, end);
            i = end;
        } else if c[i] == '/' && c.get(i + 1) == Some(&'*') {
            let (mut depth, mut j) = (0usize, i);
            while j < c.len() {
                if c[j] == '/' && c.get(j + 1) == Some(&'*') {
                    depth += 1;
                    j += 2;
                } else if c[j] == '*' && c.get(j + 1) == Some(&'/') {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if !prev_ident && (c[i] == 'r' || (c[i] == 'b' && c.get(i + 1) == Some(&'r'))) && {
            let k = if c[i] == 'b' { i + 2 } else { i + 1 };
            let hashes = (k..c.len()).take_while(|&j| c[j] == '#').count();
            c.get(k + hashes) == Some(&'"')
        } {
            // A raw string: r"..", r#".."#, br"..".
            let k = if c[i] == 'b' { i + 2 } else { i + 1 };
            let hashes = (k..c.len()).take_while(|&j| c[j] == '#').count();
            let mut j = k + hashes + 1;
            while j < c.len() {
                if c[j] == '"' && (1..=hashes).all(|h| c.get(j + h) == Some(&'#')) {
                    j += hashes + 1;
                    break;
                }
                j += 1;
            }
            blank(&mut out, i, j);
            i = j;
        } else if c[i] == '"' {
            let mut j = i + 1;
            while j < c.len() && c[j] != '"' {
                j += if c[j] == '\\' { 2 } else { 1 };
            }
            blank(&mut out, i, j + 1);
            i = j + 1;
        } else if c[i] == '\'' {
            // A character literal ('x', '\n', '\u{1F600}'), or a lifetime ('a).
            let end = if c.get(i + 1) == Some(&'\\') {
                (i + 3..c.len()).find(|&j| c[j] == '\'')
            } else if c.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(e) => {
                    blank(&mut out, i, e + 1);
                    i = e + 1;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    out.into_iter().collect()
}

/// The index of the brace that closes the one at `open`.
fn closing(code: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    for (j, &b) in code.iter().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return j;
                }
            }
            _ => {}
        }
    }
    code.len()
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Where each occurrence of keyword `word` starts (not inside a longer identifier).
fn keyword_at(code: &[u8], word: &str) -> Vec<usize> {
    let w = word.as_bytes();
    (0..code.len().saturating_sub(w.len()))
        .filter(|&i| {
            code[i..].starts_with(w)
                && (i == 0 || !is_ident(code[i - 1]))
                && !is_ident(code[i + w.len()])
        })
        .collect()
}

/// The identifier starting at `i` (after blanks), and where it ends.
fn ident_after(code: &[u8], mut i: usize) -> Option<(String, usize)> {
    while i < code.len() && code[i].is_ascii_whitespace() {
        i += 1;
    }
    let start = i;
    while i < code.len() && is_ident(code[i]) {
        i += 1;
    }
    (i > start).then(|| (String::from_utf8_lossy(&code[start..i]).into_owned(), i))
}

/// Blanks `#[cfg(test)] mod name { .. }` blocks: tests may reach anywhere.
fn without_test_modules(code: &str) -> String {
    let mut bytes = code.as_bytes().to_vec();
    let marker = b"#[cfg(test)]";
    let mut i = 0;
    while let Some(at) = bytes[i..]
        .windows(marker.len())
        .position(|w| w == marker)
        .map(|p| p + i)
    {
        i = at + marker.len();
        // Other attributes may follow; then `mod name {`.
        let mut j = i;
        loop {
            while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                j += 1;
            }
            if bytes[j..].starts_with(b"#[") {
                j = (j..bytes.len()).find(|&k| bytes[k] == b']').unwrap_or(j) + 1;
            } else {
                break;
            }
        }
        let rest = &bytes[j..];
        let is_mod = rest.starts_with(b"mod ") || rest.starts_with(b"pub mod ");
        let open = (j..bytes.len()).find(|&k| bytes[k] == b'{' || bytes[k] == b';');
        if let (true, Some(open)) = (is_mod, open) {
            if bytes[open] == b'{' {
                let close = closing(&bytes, open).min(bytes.len() - 1);
                for b in &mut bytes[at..=close] {
                    if *b != b'\n' {
                        *b = b' ';
                    }
                }
                i = close;
            }
        }
    }
    String::from_utf8(bytes).expect("blanking keeps UTF-8: only ASCII replaced")
}

fn is_test_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name == "tests.rs" || name.ends_with("_tests.rs")
}

fn sources() -> Vec<(usize, Source)> {
    let root = support::workspace();
    let mut out = Vec::new();
    for (k, (_, dir)) in CRATES.iter().enumerate() {
        let base = root.join(dir);
        let mut files = Vec::new();
        collect_rs(&base, &mut files);
        files.sort();
        for file in files {
            let rel = file
                .strip_prefix(&base)
                .expect("under its crate")
                .to_path_buf();
            let mut module: Vec<String> = rel
                .with_extension("")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if matches!(
                module.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                module.pop();
            }
            let path = format!("{dir}/{}", rel.to_string_lossy().replace('\\', "/"));
            if is_test_file(&path) {
                continue;
            }
            let raw = std::fs::read_to_string(&file).expect("readable source");
            let code = without_test_modules(&blank_comments_and_literals(&raw));
            out.push((
                k,
                Source {
                    path,
                    module,
                    raw,
                    code,
                },
            ));
        }
    }
    out
}

fn collect_rs(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).expect("readable folder").flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_rs(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The inline modules of a file (`mod op { .. }`): (start, end, name), so that `super::`
/// inside one means the file's own module.
fn inline_modules(code: &[u8]) -> Vec<(usize, usize, String)> {
    keyword_at(code, "mod")
        .into_iter()
        .filter_map(|at| {
            let (name, end) = ident_after(code, at + 3)?;
            let open = (end..code.len()).find(|&k| !code[k].is_ascii_whitespace())?;
            (code[open] == b'{').then(|| (open, closing(code, open), name))
        })
        .collect()
}

/// The paths of a `use` tree: `a::{b, c::{d as e, self}}` gives `a::b`, `a::c::d`, `a::c`.
fn expand_use(prefix: &[String], tree: &str, out: &mut Vec<Vec<String>>) {
    let tree = tree.trim();
    if let Some(brace) = tree.find('{') {
        let mut pre = prefix.to_vec();
        pre.extend(
            tree[..brace]
                .split("::")
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from),
        );
        let inner = &tree[brace + 1..tree.rfind('}').unwrap_or(tree.len())];
        let (mut depth, mut start) = (0, 0);
        for (i, ch) in inner.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand_use(&pre, &inner[start..i], out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        expand_use(&pre, &inner[start..], out);
    } else if !tree.is_empty() {
        let tree = tree.split(" as ").next().unwrap_or(tree);
        let mut path = prefix.to_vec();
        path.extend(
            tree.split("::")
                .map(str::trim)
                .filter(|s| !s.is_empty() && *s != "*" && *s != "self")
                .map(String::from),
        );
        out.push(path);
    }
}

/// Every path through `crate`, `super` or `self` in a file, with the module it is written
/// in (inline modules included).
fn paths_of(src: &Source) -> Vec<(Vec<String>, Vec<String>)> {
    let code = src.code.as_bytes();
    let inline = inline_modules(code);
    let module_at = |pos: usize| {
        let mut m = src.module.clone();
        for (s, e, name) in &inline {
            if *s < pos && pos < *e {
                m.push(name.clone());
            }
        }
        m
    };
    let mut out = Vec::new();
    for at in keyword_at(code, "use") {
        let Some(end) = (at..code.len()).find(|&k| code[k] == b';') else {
            continue;
        };
        let text = String::from_utf8_lossy(&code[at + 3..end]).replace(char::is_whitespace, " ");
        let mut paths = Vec::new();
        expand_use(
            &[],
            &text.replace(" ::", "::").replace(":: ", "::"),
            &mut paths,
        );
        for p in paths {
            out.push((module_at(at), p));
        }
    }
    for head in ["crate", "super", "self", "affect_compiler"] {
        for at in keyword_at(code, head) {
            let mut path = vec![head.to_string()];
            let mut i = at + head.len();
            loop {
                let mut j = i;
                while j < code.len() && code[j].is_ascii_whitespace() {
                    j += 1;
                }
                if !code[j..].starts_with(b"::") {
                    break;
                }
                match ident_after(code, j + 2) {
                    Some((seg, end)) => {
                        path.push(seg);
                        i = end;
                    }
                    None => break,
                }
            }
            if path.len() > 1 {
                out.push((module_at(at), path));
            }
        }
    }
    out
}

/// The module a path names, relative to the module it is written in, as an absolute module
/// path; `None` for other crates.
fn absolute(here: &[String], path: &[String]) -> Option<Vec<String>> {
    let (mut base, rest): (Vec<String>, &[String]) = match path.first().map(String::as_str) {
        Some("crate") => (Vec::new(), &path[1..]),
        Some("self") => (here.to_vec(), &path[1..]),
        Some("super") => (here.to_vec(), path),
        _ => return None,
    };
    let mut rest = rest;
    while rest.first().is_some_and(|s| s == "super") {
        base.pop();
        rest = &rest[1..];
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// File-to-file imports: (from, to) by index into `files`.
fn imports(files: &[(usize, Source)]) -> BTreeSet<(usize, usize)> {
    let mut by_module: BTreeMap<(usize, Vec<String>), usize> = BTreeMap::new();
    for (i, (k, s)) in files.iter().enumerate() {
        by_module.insert((*k, s.module.clone()), i);
    }
    let mut edges = BTreeSet::new();
    for (i, (k, s)) in files.iter().enumerate() {
        for (here, path) in paths_of(s) {
            let Some(abs) = absolute(&here, &path) else {
                continue;
            };
            let target = (0..=abs.len())
                .rev()
                .find_map(|n| by_module.get(&(*k, abs[..n].to_vec())));
            let Some(&t) = target else { continue };
            // A module's file contains its submodules' files: no import.
            let contains = files[t].1.module.starts_with(&s.module);
            if t != i && !contains {
                edges.insert((i, t));
            }
        }
    }
    edges
}

/// Strongly connected groups of more than one file (Tarjan).
fn circles(n: usize, edges: &BTreeSet<(usize, usize)>) -> Vec<Vec<usize>> {
    struct Tarjan<'e> {
        next: Vec<Vec<usize>>,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        count: usize,
        out: Vec<Vec<usize>>,
        _e: std::marker::PhantomData<&'e ()>,
    }
    impl Tarjan<'_> {
        fn visit(&mut self, v: usize) {
            self.index[v] = Some(self.count);
            self.low[v] = self.count;
            self.count += 1;
            self.stack.push(v);
            self.on[v] = true;
            for w in self.next[v].clone() {
                match self.index[w] {
                    None => {
                        self.visit(w);
                        self.low[v] = self.low[v].min(self.low[w]);
                    }
                    Some(iw) if self.on[w] => self.low[v] = self.low[v].min(iw),
                    Some(_) => {}
                }
            }
            if Some(self.low[v]) == self.index[v] {
                let mut group = Vec::new();
                loop {
                    let w = self.stack.pop().expect("on the stack");
                    self.on[w] = false;
                    group.push(w);
                    if w == v {
                        break;
                    }
                }
                if group.len() > 1 {
                    self.out.push(group);
                }
            }
        }
    }
    let mut next = vec![Vec::new(); n];
    for &(a, b) in edges {
        next[a].push(b);
    }
    let mut t = Tarjan {
        next,
        index: vec![None; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: Vec::new(),
        count: 0,
        out: Vec::new(),
        _e: std::marker::PhantomData,
    };
    for v in 0..n {
        if t.index[v].is_none() {
            t.visit(v);
        }
    }
    t.out
}

/// A comment says why this must be one piece.
fn says_one_piece(text: &str) -> bool {
    text.to_ascii_lowercase().contains("one piece")
}

/// Functions over the limit: (file, name, first line, lines), unless justified.
fn long_functions(s: &Source) -> Vec<(String, usize, usize)> {
    let code = s.code.as_bytes();
    let raw: Vec<&str> = s.raw.lines().collect();
    let line_of = |pos: usize| code[..pos].iter().filter(|&&b| b == b'\n').count();
    let mut out = Vec::new();
    for at in keyword_at(code, "fn") {
        let Some((name, end)) = ident_after(code, at + 2) else {
            continue; // `fn(..)`: a function pointer type
        };
        // The body: the first `{` outside the signature's brackets, unless a `;` ends it.
        let (mut depth, mut open) = (0i32, None);
        for (k, &b) in code.iter().enumerate().skip(end) {
            match b {
                b'(' | b'[' | b'<' => depth += 1,
                b')' | b']' => depth -= 1,
                b'>' if code[k - 1] != b'-' && code[k - 1] != b'=' => depth -= 1,
                b'{' if depth <= 0 => {
                    open = Some(k);
                    break;
                }
                b';' if depth <= 0 => break,
                _ => {}
            }
        }
        let Some(open) = open else { continue };
        let (first, last) = (line_of(at), line_of(closing(code, open)));
        let lines = last - first + 1;
        if lines <= MAX_FN_LINES {
            continue;
        }
        // The comments and attributes just above, and the body's first line.
        let mut above = String::new();
        for l in raw[..first].iter().rev() {
            let t = l.trim_start();
            if t.starts_with("//") || t.starts_with("#[") {
                above.push_str(t);
                above.push('\n');
            } else {
                break;
            }
        }
        if let Some(l) = raw.get(line_of(open) + 1) {
            above.push_str(l);
        }
        if !says_one_piece(&above) {
            out.push((name, first + 1, lines));
        }
    }
    out
}

/// Lines of a file, tests aside, unless its module documentation says why it is one piece.
fn long_file(s: &Source) -> Option<usize> {
    let plain = blank_comments_and_literals(&s.raw);
    let test_lines = plain
        .lines()
        .zip(s.code.lines())
        .filter(|(p, c)| !p.trim().is_empty() && c.trim().is_empty())
        .count();
    let code_lines = s.raw.lines().count() - test_lines;
    let doc: String = s
        .raw
        .lines()
        .take_while(|l| l.starts_with("//!"))
        .collect::<Vec<_>>()
        .join("\n");
    (code_lines > MAX_FILE_LINES && !says_one_piece(&doc)).then_some(code_lines)
}

#[test]
fn no_two_files_import_each_other_directly_or_in_a_loop() {
    let files = sources();
    assert!(files.len() > 100, "found only {} files", files.len());
    let edges = imports(&files);
    let mut found: Vec<Vec<String>> = circles(files.len(), &edges)
        .into_iter()
        .map(|g| {
            let mut names: Vec<String> = g.iter().map(|&i| files[i].1.path.clone()).collect();
            names.sort();
            names
        })
        .collect();
    found.sort();
    let allowed = |c: &Vec<String>| {
        ALLOWED_CIRCLES
            .iter()
            .any(|(files, _)| files.iter().copied().eq(c.iter().map(String::as_str)))
    };
    let new: Vec<String> = found
        .iter()
        .filter(|c| !allowed(c))
        .map(|c| {
            let mut why = Vec::new();
            for a in c {
                for b in c {
                    let ia = files.iter().position(|f| f.1.path == *a);
                    let ib = files.iter().position(|f| f.1.path == *b);
                    if let (Some(x), Some(y)) = (ia, ib) {
                        if edges.contains(&(x, y)) {
                            why.push(format!("    {a} imports {b}"));
                        }
                    }
                }
            }
            format!("  {}\n{}", c.join(" <-> "), why.join("\n"))
        })
        .collect();
    let stale: Vec<String> = ALLOWED_CIRCLES
        .iter()
        .filter(|(files, _)| {
            !found
                .iter()
                .any(|c| files.iter().copied().eq(c.iter().map(String::as_str)))
        })
        .map(|(files, owner)| format!("  {} ({owner})", files.join(" <-> ")))
        .collect();
    assert!(
        new.is_empty() && stale.is_empty(),
        "import circles:\n{}\nallowed circles that are gone (remove them from ALLOWED_CIRCLES):\n{}",
        new.join("\n"),
        stale.join("\n")
    );
}

/// The top-level module a file belongs to (`interp` for `interp/nodes.rs`); `None` for the
/// crate's root file, which declares the modules.
fn top_module(s: &Source) -> Option<&str> {
    s.module.first().map(String::as_str)
}

/// Top-level modules of one crate that import each other, directly or in a loop: for each
/// such group (crate index, its modules sorted), every import between two of them, as
/// (module, module, a file of the first importing a file of the second).
fn module_loops(
    files: &[(usize, Source)],
    edges: &BTreeSet<(usize, usize)>,
) -> Vec<(usize, Vec<String>, Vec<String>)> {
    let mut names: Vec<(usize, String)> = files
        .iter()
        .filter_map(|(k, s)| top_module(s).map(|m| (*k, m.to_string())))
        .collect();
    names.sort();
    names.dedup();
    let id = |k: usize, s: &Source| {
        let m = top_module(s)?;
        names.iter().position(|(j, n)| *j == k && n == m)
    };
    let mut between: BTreeMap<(usize, usize), (usize, usize)> = BTreeMap::new();
    for &(a, b) in edges {
        let (ka, kb) = (files[a].0, files[b].0);
        if let (Some(ma), Some(mb)) = (id(ka, &files[a].1), id(kb, &files[b].1)) {
            if ka == kb && ma != mb {
                between.entry((ma, mb)).or_insert((a, b));
            }
        }
    }
    let module_edges: BTreeSet<(usize, usize)> = between.keys().copied().collect();
    let mut out = Vec::new();
    for group in circles(names.len(), &module_edges) {
        let mut modules: Vec<String> = group.iter().map(|&m| names[m].1.clone()).collect();
        modules.sort();
        let mut why: Vec<String> = between
            .iter()
            .filter(|((ma, mb), _)| group.contains(ma) && group.contains(mb))
            .map(|((ma, mb), (a, b))| {
                format!(
                    "{} -> {}: {} imports {}",
                    names[*ma].1, names[*mb].1, files[*a].1.path, files[*b].1.path
                )
            })
            .collect();
        why.sort();
        out.push((names[group[0]].0, modules, why));
    }
    out.sort();
    out
}

#[test]
fn no_two_top_level_modules_of_a_crate_import_each_other() {
    // A crate's top-level modules are its layers (`syntax`, `sema`, `ir`; `run`, `record`,
    // `sim`): one may use another, never both ways, directly or through others.
    let files = sources();
    let edges = imports(&files);
    let found = module_loops(&files, &edges);
    let shown = |k: usize, modules: &[String], why: &[String]| {
        format!(
            "  {}: {}\n{}",
            CRATES[k].1,
            modules.join(" <-> "),
            why.iter()
                .map(|w| format!("    {w}"))
                .collect::<Vec<_>>()
                .join("\n")
        )
    };
    for (k, modules, why) in &found {
        eprintln!("{}", shown(*k, modules, why));
    }
    let allowed = |k: usize, modules: &[String]| {
        ALLOWED_MODULE_LOOPS.iter().any(|(dir, these, _)| {
            *dir == CRATES[k].1 && these.iter().copied().eq(modules.iter().map(String::as_str))
        })
    };
    let new: Vec<String> = found
        .iter()
        .filter(|(k, modules, _)| !allowed(*k, modules))
        .map(|(k, modules, why)| shown(*k, modules, why))
        .collect();
    let stale: Vec<String> = ALLOWED_MODULE_LOOPS
        .iter()
        .filter(|(dir, these, _)| {
            !found.iter().any(|(k, modules, _)| {
                CRATES[*k].1 == *dir && these.iter().copied().eq(modules.iter().map(String::as_str))
            })
        })
        .map(|(dir, these, owner)| format!("  {dir}: {} ({owner})", these.join(" <-> ")))
        .collect();
    assert!(
        new.is_empty() && stale.is_empty(),
        "top-level modules that import each other (one must not know the other):\n{}\n\
         allowed ones that are gone (remove them from ALLOWED_MODULE_LOOPS):\n{}",
        new.join("\n"),
        stale.join("\n")
    );
}

#[test]
fn the_runtime_reads_the_ir_never_the_syntax() {
    // The runtime runs what the compiler lowered: port directions, worlds and trees reach
    // it as IR types, so a change to the syntax tree never reaches the engines.
    let files = sources();
    let runtime = CRATES
        .iter()
        .position(|(name, _)| *name == "affect-runtime")
        .expect("the runtime is listed");
    let mut found = Vec::new();
    for (k, s) in &files {
        if *k != runtime {
            continue;
        }
        for (_, path) in paths_of(s) {
            if path.first().is_some_and(|p| p == "affect_compiler")
                && path.get(1).is_some_and(|p| p == "syntax")
            {
                found.push(format!("  {}: {}", s.path, path.join("::")));
            }
        }
    }
    found.sort();
    found.dedup();
    assert!(
        found.is_empty(),
        "the runtime names the compiler's syntax module (it must read only the IR):\n{}",
        found.join("\n")
    );
}

#[test]
fn no_file_over_a_thousand_lines_and_no_function_over_a_hundred_and_fifty() {
    let files = sources();
    let mut problems = Vec::new();
    let mut used_files = BTreeSet::new();
    let mut used_fns = BTreeSet::new();
    for (_, s) in &files {
        if let Some(n) = long_file(s) {
            match ALLOWED_LONG_FILES.iter().position(|(f, _)| *f == s.path) {
                Some(i) => {
                    used_files.insert(i);
                }
                None => problems.push(format!("  {}: {n} lines", s.path)),
            }
        }
        for (name, line, n) in long_functions(s) {
            match ALLOWED_LONG_FNS
                .iter()
                .position(|(f, fun, _)| *f == s.path && *fun == name)
            {
                Some(i) => {
                    used_fns.insert(i);
                }
                None => problems.push(format!("  {}:{line} fn {name}: {n} lines", s.path)),
            }
        }
    }
    for (i, (f, owner)) in ALLOWED_LONG_FILES.iter().enumerate() {
        if !used_files.contains(&i) {
            problems.push(format!(
                "  {f} ({owner}) is short enough now: remove it from ALLOWED_LONG_FILES"
            ));
        }
    }
    for (i, (f, fun, owner)) in ALLOWED_LONG_FNS.iter().enumerate() {
        if !used_fns.contains(&i) {
            problems.push(format!(
                "  {f} fn {fun} ({owner}) is short enough now: remove it from ALLOWED_LONG_FNS"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "over the size limits without a comment saying why they are one piece:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_checker_of_this_file_sees_what_it_must() {
    // Literals and comments hide what looks like code; lifetimes are not characters.
    let code = blank_comments_and_literals(
        "fn a<'x>(s: &'x str) { let q = \"use crate::b;\"; // super::c\n let c = '{'; }",
    );
    assert!(!code.contains("crate::b") && !code.contains("super::c") && !code.contains("'{'"));
    assert!(code.contains("<'x>"));
    let mut paths = Vec::new();
    expand_use(&[], "crate::a::{self, b::{c as d, e}, f::*}", &mut paths);
    let shown: Vec<String> = paths.iter().map(|p| p.join("::")).collect();
    assert_eq!(
        shown,
        [
            "crate::a",
            "crate::a::b::c",
            "crate::a::b::e",
            "crate::a::f"
        ]
    );
    let here = vec!["interp".to_string(), "nodes".to_string()];
    let p = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
    assert_eq!(
        absolute(&here, &p("super::lists::Lists")),
        Some(p("interp::lists::Lists"))
    );
    assert_eq!(absolute(&here, &p("crate::jit")), Some(p("jit")));
    assert_eq!(absolute(&here, &p("std::mem")), None);
    // Two files that name each other are a circle; a chain is not.
    let edges: BTreeSet<(usize, usize)> = [(0, 1), (1, 2), (2, 0), (3, 4)].into_iter().collect();
    assert_eq!(circles(5, &edges).len(), 1);
    // Top-level modules that import each other are found, with a file of each doing it; a
    // module that only imports is not in the loop.
    let src = |path: &str, module: &[&str], code: &str| {
        let module = module.iter().map(|m| m.to_string()).collect();
        let (path, raw, code) = (path.to_string(), code.to_string(), code.to_string());
        (
            0,
            Source {
                path,
                module,
                raw,
                code,
            },
        )
    };
    let files = vec![
        src("a/mod.rs", &["a"], "use crate::b::x;"),
        src("b/x.rs", &["b", "x"], "fn f() { crate::a::g(); }"),
        src("c.rs", &["c"], "use crate::a;"),
    ];
    let loops = module_loops(&files, &imports(&files));
    assert_eq!(loops.len(), 1);
    assert_eq!(loops[0].1, ["a", "b"]);
    assert_eq!(
        loops[0].2,
        [
            "a -> b: a/mod.rs imports b/x.rs",
            "b -> a: b/x.rs imports a/mod.rs"
        ]
    );
    // The compiler's syntax module is seen through a `use` tree and through a path.
    let runtime = src(
        "r.rs",
        &["r"],
        "use affect_compiler::{ir, syntax::parse};\nfn f(d: affect_compiler::syntax::ast::PortDir) {}",
    );
    let syntax: Vec<String> = paths_of(&runtime.1)
        .into_iter()
        .filter(|(_, p)| p.get(1).is_some_and(|s| s == "syntax"))
        .map(|(_, p)| p.join("::"))
        .collect();
    assert_eq!(
        syntax,
        [
            "affect_compiler::syntax::parse",
            "affect_compiler::syntax::ast::PortDir"
        ]
    );
    let test_mod =
        without_test_modules("fn a() {}\n#[cfg(test)]\nmod tests {\n use super::*;\n}\n");
    assert!(!test_mod.contains("super") && test_mod.lines().count() == 5);
}

#[test]
fn affect_run_parses_once() {
    // `source.rs` reads the file and has the compiler check it, keeping the syntax tree the
    // check parsed (what the Groot exporter works on); the command, its wall clock, `--watch`
    // and the observers (story, plot, summary, Groot 2) read that checked program and its
    // IR, never the syntax again. (`--watch` loads each saved version through `source.rs`.)
    let root = support::workspace();
    let commands = root.join("src/commands");
    let mut files: Vec<_> = ["run.rs", "watch.rs", "robot.rs"]
        .iter()
        .map(|f| commands.join(f))
        .collect();
    collect_rs(&root.join("src/observers"), &mut files);
    let parses = ["parse(", "parse_file", "check_source", "syntax::"];
    for f in &files {
        let code = blank_comments_and_literals(&std::fs::read_to_string(f).unwrap());
        for p in parses {
            assert!(
                !code.contains(p),
                "{} names `{p}`: `affect run` must parse once (in src/commands/source.rs)",
                f.display()
            );
        }
    }
    let source =
        blank_comments_and_literals(&std::fs::read_to_string(commands.join("source.rs")).unwrap());
    // One check of `.affect` text, keeping its syntax tree; Groot XML goes straight in
    // (`xml_in.rs`: imported to syntax trees that are checked as they are, never printed as
    // `.affect` text and parsed again); nothing else parses.
    assert_eq!(source.matches("check_source_keeping_syntax(").count(), 1);
    assert_eq!(source.matches("check_source").count(), 1);
    assert!(source.contains("xml_in::XmlProgram::import("));
    assert!(!source.contains("parse(") && !source.contains("parse_file"));
    let xml_in =
        blank_comments_and_literals(&std::fs::read_to_string(commands.join("xml_in.rs")).unwrap());
    for p in [
        "parse(",
        "check_source",
        "check_text",
        "format_file",
        ".text()",
    ] {
        assert!(
            !xml_in.contains(p),
            "xml_in.rs names `{p}`: imported XML is checked as its syntax tree"
        );
    }
    assert_eq!(xml_in.matches("sema::analyze(").count(), 1);
    assert!(source
        .lines()
        .filter(|l| l.contains("syntax::"))
        .all(|l| l.contains("syntax::ast::File")));
}
