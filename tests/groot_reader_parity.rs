//! The XML reader gives every file the verdict it gave before it moved onto quick-xml: the
//! same document (elements, attributes, values, comments, text, instructions, every byte
//! span) and the same diagnostics (codes, messages, positions).
//!
//! `tests/fixtures/xml/reader_verdicts.txt` was recorded with the hand-written reader that
//! quick-xml replaced (commit "Reader verdicts recorded"), one line per input: its name, its
//! diagnostics as `CODE@start..end`, and a digest of everything the reader returned. The inputs
//! are the repository's XML files (examples, fixtures, broken ones included), the public corpus
//! when it is there, and deterministic mutations of each (characters deleted, inserted,
//! replaced, the file cut short), which reach every error path of the reader.
//!
//! `AFFECT_RECORD_VERDICTS=1` rewrites the file instead of comparing (only to record a change
//! of the reader's verdicts that is meant, and reviewed in the diff).

mod support;

use affect_compiler::groot::xml::{self, Element, XmlNode};
use std::collections::BTreeMap;
use std::fmt::Write as _;

const VERDICTS: &str = "tests/fixtures/xml/reader_verdicts.txt";
/// Mutations per repository file and per corpus file.
const REPO_MUTATIONS: u64 = 60;
const CORPUS_MUTATIONS: u64 = 6;

fn fnv(h: &mut u64, s: &str) {
    for b in s.bytes().chain([0xff]) {
        *h ^= b as u64;
        *h = h.wrapping_mul(0x100000001b3);
    }
}

fn dump_element(e: &Element, h: &mut u64) {
    fnv(h, &format!("E{} {:?} {:?}", e.name, e.name_span, e.span));
    for a in &e.attrs {
        fnv(
            h,
            &format!(
                "A{} {:?} {:?} {}",
                a.name, a.name_span, a.value_span, a.verbatim
            ),
        );
        fnv(h, &a.value);
    }
    for c in &e.children {
        dump_node(c, h);
    }
    fnv(h, "/E");
}

fn dump_node(n: &XmlNode, h: &mut u64) {
    match n {
        XmlNode::Element(e) => dump_element(e, h),
        XmlNode::Comment(t, s) => fnv(h, &format!("C{s:?}{t}")),
        XmlNode::Text(t, s) => fnv(h, &format!("T{s:?}{t}")),
        XmlNode::Instruction(t, s) => fnv(h, &format!("I{s:?}{t}")),
    }
}

fn input_key(text: &str) -> String {
    let mut h = 0xcbf29ce484222325u64;
    fnv(&mut h, text);
    format!("{h:016x}")
}

/// `CODES<TAB>DIGEST` for one input.
fn verdict(text: &str) -> String {
    let parsed = xml::parse(text);
    let mut h = 0xcbf29ce484222325u64;
    for n in &parsed.document.nodes {
        dump_node(n, &mut h);
    }
    let mut codes = Vec::new();
    for d in &parsed.diagnostics {
        codes.push(format!(
            "{}@{}..{}",
            d.code, d.primary.span.start, d.primary.span.end
        ));
        fnv(&mut h, &format!("{:?}", d.severity));
        fnv(&mut h, &d.message);
        for l in &d.secondary {
            fnv(&mut h, &format!("{:?}{}", l.span, l.message));
        }
        fnv(&mut h, &d.primary.message);
        fnv(&mut h, d.help.as_deref().unwrap_or(""));
    }
    let codes = if codes.is_empty() {
        "ok".to_string()
    } else {
        codes.join(",")
    };
    format!("{codes}\t{h:016x}")
}

/// A small deterministic generator (xorshift64*), so the mutations are the same everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545f4914f6cdd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const INTERESTING: &[&str] = &[
    "<",
    ">",
    "/",
    "=",
    "\"",
    "'",
    "&",
    ";",
    "!",
    "-",
    "?",
    " ",
    "\n",
    "\r\n",
    "<!--",
    "-->",
    "<![CDATA[",
    "]]>",
    "<!DOCTYPE x>",
    "<!ENTITY",
    "<?",
    "?>",
    "</",
    "/>",
    "&amp;",
    "&#10;",
    "&#x41;",
    "&#0;",
    "&bogus;",
    "&lt",
    "a=\"1\"",
    "a='x'",
    "b=c",
    "é",
    "\u{feff}",
    "\t",
];

fn boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn mutate(text: &str, seed: u64) -> String {
    let mut rng = Rng(seed.wrapping_mul(0x9e3779b97f4a7c15) | 1);
    let mut s = text.to_string();
    for _ in 0..1 + rng.below(3) {
        let i = boundary(&s, rng.below(s.len() + 1));
        match rng.below(4) {
            0 => {
                let j = boundary(&s, i + 1 + rng.below(20));
                s.replace_range(i..j, "");
            }
            1 => s.insert_str(i, INTERESTING[rng.below(INTERESTING.len())]),
            2 => {
                if let Some(c) = s[i..].chars().next() {
                    let by = INTERESTING[rng.below(INTERESTING.len())];
                    s.replace_range(i..i + c.len_utf8(), by);
                }
            }
            _ => s.truncate(i),
        }
    }
    s
}

/// Input key (a digest of the text) → (verdict, name).
type Verdicts = BTreeMap<String, (String, String)>;

fn verdicts_of(files: &[(String, String)], mutations: u64) -> Verdicts {
    let mut out = Verdicts::new();
    for (name, text) in files {
        out.insert(input_key(text), (verdict(text), name.clone()));
        for k in 0..mutations {
            let seed = name
                .bytes()
                .fold(k + 1, |h, b| h.wrapping_mul(31).wrapping_add(b as u64));
            let mutated = mutate(text, seed);
            out.entry(input_key(&mutated))
                .or_insert_with(|| (verdict(&mutated), format!("{name}#{k}")));
        }
    }
    out
}

fn recorded() -> Verdicts {
    let text = std::fs::read_to_string(support::workspace().join(VERDICTS)).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .filter_map(|l| {
            let mut f = l.splitn(4, '\t');
            let (key, codes, digest, name) = (f.next()?, f.next()?, f.next()?, f.next()?);
            Some((
                key.to_string(),
                (format!("{codes}\t{digest}"), name.to_string()),
            ))
        })
        .collect()
}

/// Compares `now` with the recorded verdicts (inputs are found by their text, so an input
/// added or edited since the recording has none and is only counted); with
/// `AFFECT_RECORD_VERDICTS=1`, records them instead, keeping the other set's lines.
fn check(now: Verdicts, corpus: bool) {
    let mut all = recorded();
    if std::env::var_os("AFFECT_RECORD_VERDICTS").is_some() {
        all.retain(|_, (_, name)| name.starts_with("corpus:") != corpus);
        all.extend(now);
        let mut text = String::from(
            "# The XML reader's verdict on each input: a digest of the input, its diagnostics\n\
             # (CODE@start..end, or ok), a digest of the document and the diagnostics, and where\n\
             # the input came from (#k: its k-th mutation). See tests/groot_reader_parity.rs.\n",
        );
        for (key, (v, name)) in &all {
            let _ = writeln!(text, "{key}\t{v}\t{name}");
        }
        std::fs::write(support::workspace().join(VERDICTS), text).expect("write the verdicts");
        return;
    }
    let mut diffs = Vec::new();
    let mut compared = 0;
    let mut refused = 0;
    for (key, (v, name)) in &now {
        let Some((e, _)) = all.get(key) else { continue };
        compared += 1;
        if !e.starts_with("ok") {
            refused += 1;
        }
        if e != v {
            diffs.push(format!("{name}: was {e}, now {v}"));
        }
    }
    println!(
        "{compared} of {} inputs have a recorded verdict ({refused} refused or warned about); {} read as before",
        now.len(),
        compared - diffs.len()
    );
    assert!(
        compared * 10 >= now.len() * 9,
        "only {compared} of {} inputs have a recorded verdict in {VERDICTS}",
        now.len()
    );
    assert!(
        diffs.is_empty(),
        "{} of {compared} inputs read differently:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
}

#[test]
fn repository_xml_and_its_mutations_read_as_recorded() {
    let files = support::repo_xml_files();
    assert!(files.len() >= 40, "expected the XML fixtures");
    check(verdicts_of(&files, REPO_MUTATIONS), false);
}

#[test]
#[ignore = "needs the public corpus (AFFECT_CORPUS or ../shared/corpus)"]
fn corpus_files_and_their_mutations_read_as_recorded() {
    let files: Vec<_> = support::corpus_xml_files(&support::corpus())
        .into_iter()
        .map(|(rel, text)| (format!("corpus:{rel}"), text))
        .collect();
    assert!(files.len() >= 120, "expected the corpus");
    check(verdicts_of(&files, CORPUS_MUTATIONS), true);
}
