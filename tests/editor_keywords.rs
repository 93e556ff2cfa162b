//! Keeps the editor grammars in step with the compiler.
//!
//! The lexer's keyword table (`Kw::HARD`, `Kw::SOFT`), the built-in node table
//! (`builtins::BUILTINS`) and the units (`Unit::ALL`) are the truth. For the TextMate grammar
//! (editors/vscode), the tree-sitter grammar and its highlight query (editors/tree-sitter-affect)
//! and the Vim syntax (editors/vim) this test checks that
//!
//! - every keyword is there, hard keywords in the list that always highlights them;
//! - no other word is highlighted as a keyword: every literal word in the grammars' patterns is
//!   a keyword, a built-in node name or a unit;
//! - the built-in node lists equal the compiler's, and so each other;
//! - the units equal the lexer's;
//! - the world verbs (`spawn`, `raise`, ...) and the words of AKR components (`positive`,
//!   `very_high`, ...), which the grammars highlight in worlds and emotions, equal the
//!   compiler's tables (`sema::world::WORLD_VERBS`, `sema::vocab::AKR_COMPONENTS` and
//!   `AGENCY_WORDS`).
//!
//! Each grammar keeps its lists in a clearly delimited place (a repository entry, a
//! `BEGIN ... END` block); the comments in the grammars say where.

use affect_compiler::builtins::BUILTINS;
use affect_compiler::sema::vocab::{AGENCY_WORDS, AKR_COMPONENTS};
use affect_compiler::sema::world::WORLD_VERBS;
use affect_compiler::syntax::token::{Kw, Unit};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

type Words = BTreeSet<String>;

fn repo_file(rel: &str) -> (PathBuf, String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    (path, text)
}

fn words<I: IntoIterator<Item = S>, S: Into<String>>(items: I) -> Words {
    items.into_iter().map(Into::into).collect()
}

fn hard() -> Words {
    words(Kw::HARD.iter().map(|k| k.as_str()))
}

fn soft() -> Words {
    words(Kw::SOFT.iter().map(|k| k.as_str()))
}

fn keywords() -> Words {
    words(Kw::all().map(|k| k.as_str()))
}

fn builtins() -> Words {
    words(BUILTINS.iter().map(|b| b.name))
}

fn units() -> Words {
    words(Unit::ALL.iter().map(|u| u.as_str()))
}

fn world_verbs() -> Words {
    words(WORLD_VERBS.iter().copied())
}

fn akr_values() -> Words {
    let listed = AKR_COMPONENTS.iter().flat_map(|c| c.words.unwrap_or(&[]));
    words(listed.chain(AGENCY_WORDS).copied())
}

/// Literal words that may appear in grammar patterns without being keywords, built-ins or
/// units: `u` of the `\u{41}` string escape, and `_`, the wildcard pattern (a token of its
/// own, not a keyword).
const NOT_KEYWORDS: &[&str] = &["u", "_"];

fn is_word_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The identifier-like runs of `text` (`skip_if`, `kHz`), digits-first runs excluded.
fn word_runs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut in_number = false;
    for c in text.chars() {
        if is_word_char(c) {
            if current.is_empty() && !in_number && !is_word_start(c) {
                in_number = true;
            }
            if !in_number {
                current.push(c);
            }
        } else {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            in_number = false;
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// The literal words of an Oniguruma (TextMate) regular expression: escapes (`\b`, `\s`,
/// `\.`) and character classes (`[A-Za-z_]`) are dropped, group syntax (`(?:`, `(?<=`) has
/// no letters.
fn oniguruma_literal_words(pattern: &str) -> Vec<String> {
    let mut kept = String::new();
    let mut chars = pattern.chars().peekable();
    let mut class_depth = 0usize;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
                kept.push(' ');
            }
            '[' => {
                class_depth += 1;
                // `[]...]` and `[^]...]`: a leading `]` is literal.
                if chars.peek() == Some(&'^') {
                    chars.next();
                }
                if chars.peek() == Some(&']') {
                    chars.next();
                }
                kept.push(' ');
            }
            ']' if class_depth > 0 => {
                class_depth -= 1;
                kept.push(' ');
            }
            _ if class_depth > 0 => {}
            _ => kept.push(c),
        }
    }
    word_runs(&kept)
}

/// The literal words of a Vim regular expression (`\<\%(in\|out\)\>\ze\s\+`).
fn vim_literal_words(pattern: &str) -> Vec<String> {
    let mut kept = String::new();
    let chars: Vec<char> = pattern.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => {
                i += 1;
                match chars.get(i) {
                    // `\%(`, `\%[`, `\%^`, `\%V`: `%` and one more character.
                    Some('%') => i += 2,
                    // `\@<=`, `\@<!`, `\@!`, `\@=`, `\@>`
                    Some('@') => {
                        i += 1;
                        if chars.get(i) == Some(&'<') {
                            i += 1;
                        }
                        i += 1;
                    }
                    // `\zs`, `\ze`
                    Some('z') => i += 2,
                    // `\{1,6}`
                    Some('{') => {
                        while i < chars.len() && chars[i] != '}' {
                            i += 1;
                        }
                        i += 1;
                    }
                    _ => i += 1,
                }
                kept.push(' ');
            }
            '[' => {
                i += 1;
                if chars.get(i) == Some(&'^') {
                    i += 1;
                }
                if chars.get(i) == Some(&']') {
                    i += 1;
                }
                while i < chars.len() && chars[i] != ']' {
                    if chars[i] == '\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
                kept.push(' ');
            }
            c => {
                kept.push(c);
                i += 1;
            }
        }
    }
    word_runs(&kept)
}

/// The quoted strings (`'a'` or `"a"`) in `text`.
fn quoted_strings(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\'' || c == '"' {
            let mut s = String::new();
            let mut closed = false;
            while let Some(d) = chars.next() {
                if d == '\\' {
                    if let Some(e) = chars.next() {
                        s.push(d);
                        s.push(e);
                    }
                } else if d == c {
                    closed = true;
                    break;
                } else {
                    s.push(d);
                }
            }
            if closed {
                out.push(s);
            }
        }
    }
    out
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if is_word_start(c)) && chars.all(is_word_char)
}

/// The text between the line containing `BEGIN name` and the line containing `END name`.
fn marked_block<'a>(text: &'a str, name: &str, file: &Path) -> &'a str {
    let begin = format!("BEGIN {name}");
    let end = format!("END {name}");
    let start = text
        .find(&begin)
        .unwrap_or_else(|| panic!("{}: no `{begin}` marker", file.display()));
    let start = start + text[start..].find('\n').unwrap_or(0) + 1;
    let stop = text[start..]
        .find(&end)
        .unwrap_or_else(|| panic!("{}: no `{end}` marker", file.display()));
    let stop = text[..start + stop].rfind('\n').unwrap_or(start);
    &text[start..stop.max(start)]
}

/// Collects the problems of one grammar and reports them all at once.
#[derive(Default)]
struct Report {
    problems: Vec<String>,
}

impl Report {
    fn same(&mut self, what: &str, found: &Words, expected: &Words) {
        let missing: Vec<_> = expected.difference(found).collect();
        let extra: Vec<_> = found.difference(expected).collect();
        if !missing.is_empty() {
            self.problems.push(format!("{what}: missing {missing:?}"));
        }
        if !extra.is_empty() {
            self.problems
                .push(format!("{what}: not in the compiler: {extra:?}"));
        }
    }

    fn contains(&mut self, what: &str, found: &Words, expected: &Words) {
        let missing: Vec<_> = expected.difference(found).collect();
        if !missing.is_empty() {
            self.problems.push(format!("{what}: missing {missing:?}"));
        }
    }

    /// Every literal word must be a keyword, a built-in, a unit or an allowed word.
    fn only_known(&mut self, what: &str, found: &Words) {
        let known: Words = keywords()
            .into_iter()
            .chain(builtins())
            .chain(units())
            .chain(world_verbs())
            .chain(akr_values())
            .chain(words(NOT_KEYWORDS.iter().copied()))
            .collect();
        let unknown: Vec<_> = found.difference(&known).collect();
        if !unknown.is_empty() {
            self.problems.push(format!(
                "{what}: highlights words the lexer does not know as keywords (and that are no \
                 built-in node or unit): {unknown:?}"
            ));
        }
    }

    fn finish(self, grammar: &str) {
        assert!(
            self.problems.is_empty(),
            "{grammar} has drifted from the compiler:\n  - {}",
            self.problems.join("\n  - ")
        );
    }
}

// ------------------------------------------------------------------ TextMate

const TEXTMATE: &str = "editors/vscode/syntaxes/affect.tmLanguage.json";

fn collect_patterns(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                if matches!(key.as_str(), "match" | "begin" | "end" | "while") {
                    if let Value::String(s) = v {
                        out.push(s.clone());
                    }
                } else {
                    collect_patterns(v, out);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_patterns(v, out)),
        _ => {}
    }
}

fn textmate_words(value: &Value) -> Words {
    let mut patterns = Vec::new();
    collect_patterns(value, &mut patterns);
    patterns
        .iter()
        .flat_map(|p| oniguruma_literal_words(p))
        .collect()
}

#[test]
fn textmate_grammar_keywords_match_the_lexer() {
    let (path, text) = repo_file(TEXTMATE);
    let grammar: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
    let repository = &grammar["repository"];
    let mut report = Report::default();

    let everywhere = textmate_words(&grammar);
    report.only_known("patterns", &everywhere);
    report.contains("keywords anywhere in the grammar", &everywhere, &keywords());

    let always = textmate_words(&repository["keywords"]);
    report.same("repository.keywords (hard keywords)", &always, &hard());

    let listed_builtins = textmate_words(&repository["builtins"]);
    let listed_builtins: Words = listed_builtins.intersection(&builtins()).cloned().collect();
    report.same("repository.builtins", &listed_builtins, &builtins());
    let outside: Words = everywhere
        .intersection(&builtins())
        .filter(|w| !listed_builtins.contains(*w))
        .cloned()
        .collect();
    if !outside.is_empty() {
        report.problems.push(format!(
            "built-in names outside repository.builtins: {outside:?}"
        ));
    }

    let numbers = textmate_words(&repository["numbers"]);
    report.same("repository.numbers (units)", &numbers, &units());

    let verbs = textmate_words(&repository["world-verbs"]);
    report.same("repository.world-verbs", &verbs, &world_verbs());
    let akr = textmate_words(&repository["akr-values"]);
    report.same("repository.akr-values", &akr, &akr_values());

    report.finish(TEXTMATE);
}

// ------------------------------------------------------------------ tree-sitter

const TREE_SITTER_GRAMMAR: &str = "editors/tree-sitter-affect/grammar.js";
const TREE_SITTER_HIGHLIGHTS: &str = "editors/tree-sitter-affect/queries/highlights.scm";

/// `text` without `//` and `/* */` comments (JavaScript), keeping string literals intact.
fn strip_js_comments(text: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut quote: Option<char> = None;
    while i < chars.len() {
        let c = chars[i];
        if let Some(q) = quote {
            out.push(c);
            if c == '\\' {
                if let Some(&d) = chars.get(i + 1) {
                    out.push(d);
                }
                i += 2;
                continue;
            }
            if c == q {
                quote = None;
            }
            i += 1;
            continue;
        }
        match (c, chars.get(i + 1)) {
            ('/', Some('/')) => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            ('/', Some('*')) => {
                i += 2;
                while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                    i += 1;
                }
                i += 2;
            }
            // A regex literal such as /[^"\\\n]+/ may hold quotes: skip it whole. Only after
            // characters that cannot end an operand, so division is never mistaken for one.
            ('/', _)
                if out
                    .trim_end()
                    .ends_with(['(', ',', '=', ':', '[', '!', '&', '|', '?', '{', '}', ';']) =>
            {
                out.push(' ');
                i += 1;
                let mut in_class = false;
                while i < chars.len() {
                    match chars[i] {
                        '\\' => i += 1,
                        '[' => in_class = true,
                        ']' => in_class = false,
                        '/' if !in_class => break,
                        _ => {}
                    }
                    i += 1;
                }
                i += 1;
            }
            ('\'' | '"' | '`', _) => {
                quote = Some(c);
                out.push(c);
                i += 1;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// `; comment` lines removed (tree-sitter queries).
fn strip_query_comments(text: &str) -> String {
    text.lines()
        .map(|line| {
            let mut in_string = false;
            let mut escaped = false;
            let mut cut = line.len();
            for (i, c) in line.char_indices() {
                match c {
                    _ if escaped => escaped = false,
                    '\\' => escaped = true,
                    '"' => in_string = !in_string,
                    ';' if !in_string => {
                        cut = i;
                        break;
                    }
                    _ => {}
                }
            }
            &line[..cut]
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The quoted words of a `const NAME = [ ... ];` array in grammar.js.
fn js_array(text: &str, name: &str, file: &Path) -> Words {
    let start = text
        .find(&format!("const {name} = ["))
        .unwrap_or_else(|| panic!("{}: no `const {name} = [`", file.display()));
    let end = start
        + text[start..]
            .find("];")
            .unwrap_or_else(|| panic!("{}: `{name}` is not closed by `];`", file.display()));
    words(quoted_strings(&text[start..end]))
}

#[test]
fn tree_sitter_grammar_keywords_match_the_lexer() {
    let (path, text) = repo_file(TREE_SITTER_GRAMMAR);
    let mut report = Report::default();

    let hard_list = js_array(&text, "HARD_KEYWORDS", &path);
    report.same("HARD_KEYWORDS", &hard_list, &hard());
    let soft_list = js_array(&text, "SOFT_KEYWORDS", &path);
    report.same("SOFT_KEYWORDS", &soft_list, &soft());
    let arg_list = js_array(&text, "HARD_ARG_KEYWORDS", &path);
    report.only_known("HARD_ARG_KEYWORDS", &arg_list);

    // Every other word-like string literal in the rules is a token: it must be a keyword.
    // Field names (`field('name', ..)`) and the grammar's own name are not tokens.
    let code = strip_js_comments(&text);
    let mut tokens = Words::new();
    for (i, _) in code.match_indices(['\'', '"']) {
        let before = code[..i].trim_end();
        if before.ends_with("field(") || before.ends_with("name:") {
            continue;
        }
        if let Some(lit) = quoted_strings(&code[i..]).into_iter().next() {
            if is_identifier(&lit) {
                tokens.insert(lit);
            }
        }
    }
    tokens.remove("_");
    let all_keywords = keywords();
    let not_keywords: Vec<_> = tokens.difference(&all_keywords).collect();
    if !not_keywords.is_empty() {
        report.problems.push(format!(
            "string tokens that the lexer does not know as keywords: {not_keywords:?}"
        ));
    }
    report.contains("keyword tokens", &tokens, &keywords());
    report.finish(TREE_SITTER_GRAMMAR);
}

#[test]
fn tree_sitter_highlights_match_the_lexer() {
    // Every quoted word is a keyword token, or a built-in node name.
    let (hpath, htext) = repo_file(TREE_SITTER_HIGHLIGHTS);
    let mut report = Report::default();
    let query = strip_query_comments(&htext);
    let literals = words(
        quoted_strings(&query)
            .into_iter()
            .filter(|s| is_identifier(s)),
    );
    report.only_known("quoted words", &literals);
    let highlighted: Words = literals.intersection(&keywords()).cloned().collect();
    report.same("highlighted keyword tokens", &highlighted, &keywords());
    let block = strip_query_comments(marked_block(&htext, "BUILTINS", &hpath));
    let listed = words(quoted_strings(&block));
    report.same("BUILTINS block", &listed, &builtins());
    // The `#not-any-of?` list of user node calls repeats the built-in names.
    let outside_block = query.replacen(&block, "", 1);
    let repeated: Words = words(quoted_strings(&outside_block))
        .intersection(&builtins())
        .cloned()
        .collect();
    report.same(
        "built-in names outside the BUILTINS block (#not-any-of?)",
        &repeated,
        &builtins(),
    );
    for (name, expected) in [("WORLD_VERBS", world_verbs()), ("AKR_VALUES", akr_values())] {
        let block = strip_query_comments(marked_block(&htext, name, &hpath));
        report.same(
            &format!("{name} block"),
            &words(quoted_strings(&block)),
            &expected,
        );
    }
    report.finish(TREE_SITTER_HIGHLIGHTS);
}

// ------------------------------------------------------------------ Vim

const VIM: &str = "editors/vim/syntax/affect.vim";

/// Options of `syn keyword` / `syn match` that are not keywords.
fn is_vim_option(word: &str) -> bool {
    word.contains('=')
        || matches!(
            word,
            "contained"
                | "skipwhite"
                | "skipnl"
                | "skipempty"
                | "transparent"
                | "fold"
                | "display"
                | "extend"
                | "keepend"
                | "excludenl"
                | "oneline"
                | "concealends"
        )
}

/// The patterns of a `syn match` or `syn region` line: the delimited strings after the group
/// name and after `start=`, `skip=`, `end=`.
fn vim_patterns(line: &str) -> Vec<String> {
    let mut fields = line.trim_start().splitn(4, char::is_whitespace);
    let (Some(_syn), Some(kind), Some(_group), Some(rest)) =
        (fields.next(), fields.next(), fields.next(), fields.next())
    else {
        return Vec::new();
    };
    let chars: Vec<char> = rest.chars().collect();
    // The pattern that starts with the delimiter at `start`, and the index after it.
    let delimited = |start: usize| -> (String, usize) {
        let delim = chars[start];
        let mut j = start + 1;
        let mut s = String::new();
        while j < chars.len() && chars[j] != delim {
            if chars[j] == '\\' && j + 1 < chars.len() {
                s.push(chars[j]);
                j += 1;
            }
            s.push(chars[j]);
            j += 1;
        }
        (s, j + 1)
    };
    let mut out = Vec::new();
    if kind == "match" {
        let first = chars.iter().position(|c| !c.is_whitespace());
        if let Some(i) = first {
            out.push(delimited(i).0);
        }
        return out;
    }
    let mut i = 0;
    while i < chars.len() {
        let at_key = ["start=", "skip=", "end="].iter().find_map(|key| {
            let k: Vec<char> = key.chars().collect();
            let starts_word = i == 0 || chars[i - 1].is_whitespace();
            (starts_word && chars[i..].starts_with(&k)).then_some(k.len())
        });
        match at_key {
            Some(len) if i + len < chars.len() => {
                let (pattern, next) = delimited(i + len);
                out.push(pattern);
                i = next;
            }
            _ => i += 1,
        }
    }
    out
}

/// The pattern fragments of an `execute 'syn match ..."' . s:x . '..."'` line: its single-quoted
/// strings, cut to the part inside the `"`-delimited pattern.
fn vim_execute_fragments(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for fragment in quoted_strings(line) {
        if fragment.contains('"') {
            if fragment.trim_start().starts_with("syn") {
                if let Some((_, after)) = fragment.rsplit_once('"') {
                    out.push(after.to_string());
                }
            } else if let Some((before, _)) = fragment.split_once('"') {
                out.push(before.to_string());
            }
        } else {
            out.push(fragment);
        }
    }
    out
}

/// Joins Vim's `\` continuation lines onto the line they continue.
fn vim_logical_lines(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix('\\') {
            if let Some(last) = out.last_mut() {
                last.push_str(rest);
                continue;
            }
        }
        out.push(line.to_string());
    }
    out
}

#[test]
fn vim_syntax_keywords_match_the_lexer() {
    let (path, text) = repo_file(VIM);
    let mut report = Report::default();
    let lines = vim_logical_lines(&text);

    // Hard keywords: the `syn keyword` items (the TODO markers of comments aside).
    let mut keyword_items = Words::new();
    for line in &lines {
        let mut fields = line.split_whitespace();
        if !matches!(fields.next(), Some("syn" | "syntax")) || fields.next() != Some("keyword") {
            continue;
        }
        let group = fields.next().unwrap_or("");
        if group == "affectTodo" {
            continue;
        }
        keyword_items.extend(fields.filter(|w| !is_vim_option(w)).map(String::from));
    }
    report.same("syn keyword items (hard keywords)", &keyword_items, &hard());

    // Soft keywords: the lists between BEGIN/END SOFT_KEYWORDS.
    let soft_block = vim_logical_lines(marked_block(&text, "SOFT_KEYWORDS", &path))
        .into_iter()
        .filter(|l| !l.trim_start().starts_with('"'))
        .collect::<Vec<_>>()
        .join("\n");
    let soft_list = words(quoted_strings(&soft_block));
    report.same("SOFT_KEYWORDS lists", &soft_list, &soft());

    // Built-in nodes.
    let builtin_block = vim_logical_lines(marked_block(&text, "BUILTINS", &path))
        .into_iter()
        .filter(|l| !l.trim_start().starts_with('"'))
        .collect::<Vec<_>>()
        .join("\n");
    let builtin_list = words(quoted_strings(&builtin_block));
    report.same("BUILTINS list", &builtin_list, &builtins());

    // Units.
    let unit_block = marked_block(&text, "UNITS", &path);
    let unit_words: Words = unit_block
        .lines()
        .flat_map(vim_patterns)
        .flat_map(|p| vim_literal_words(&p))
        .collect();
    report.same("UNITS", &unit_words, &units());

    // World verbs and AKR values.
    for (name, expected) in [("WORLD_VERBS", world_verbs()), ("AKR_VALUES", akr_values())] {
        let block = vim_logical_lines(marked_block(&text, name, &path))
            .into_iter()
            .filter(|l| !l.trim_start().starts_with('"'))
            .collect::<Vec<_>>()
            .join("\n");
        report.same(
            &format!("{name} list"),
            &words(quoted_strings(&block)),
            &expected,
        );
    }

    // Every literal word of every pattern is a keyword, a built-in or a unit.
    let mut pattern_words = Words::new();
    for line in &lines {
        let trimmed = line.trim_start();
        if trimmed.starts_with("syn match") || trimmed.starts_with("syn region") {
            for p in vim_patterns(trimmed) {
                pattern_words.extend(vim_literal_words(&p));
            }
        } else if trimmed.starts_with("execute") || trimmed.starts_with("exe ") {
            for p in vim_execute_fragments(trimmed) {
                pattern_words.extend(vim_literal_words(&p));
            }
        } else if trimmed.starts_with("let s:") && !trimmed.contains('[') {
            // Pattern pieces such as `let s:stmt = '...'`.
            for p in quoted_strings(trimmed) {
                pattern_words.extend(vim_literal_words(&p));
            }
        }
    }
    let all: Words = pattern_words
        .union(&keyword_items)
        .chain(soft_list.iter())
        .chain(builtin_list.iter())
        .cloned()
        .collect();
    report.only_known("patterns and lists", &all);
    report.contains("keywords anywhere in the syntax", &all, &keywords());
    report.finish(VIM);
}

// ------------------------------------------------------------------ the helpers themselves

#[test]
fn literal_word_extraction() {
    assert_eq!(
        oniguruma_literal_words(r"\b(?:skip_if|while)\b(?=\s*[A-Za-z_])"),
        ["skip_if", "while"]
    );
    assert_eq!(
        oniguruma_literal_words(r"\b([0-9][0-9_]*(?:\.[0-9])?)(kHz|ms)?\b"),
        ["kHz", "ms"]
    );
    assert_eq!(
        vim_literal_words(r"\%(\<in\s\+\)\@<=\<\%(tree\|agent\)\>\ze\s\+\h\w*\{1,6}[xX]"),
        ["in", "tree", "agent"]
    );
    assert_eq!(
        vim_patterns(
            r#"syn region affectString start=+"+ skip=+\\\\\|\\"+ end=+"+ end=+$+ contains=x"#
        ),
        [r#"""#, r#"\\\\\|\\""#, r#"""#, "$"]
    );
    assert_eq!(
        vim_patterns(r#"syn match affectTodo "\<TODO\>" contained"#),
        [r"\<TODO\>"]
    );
    assert_eq!(
        strip_js_comments("a = /['\"]/; // it's\nb = 'c' /* d's */"),
        "a =  ; \nb = 'c' "
    );
}
