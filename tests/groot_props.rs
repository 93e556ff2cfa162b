//! No input makes the XML importer panic: XML files mutated (characters deleted, inserted,
//! replaced by random ones, cut short) are imported, and whatever imports cleanly is printed,
//! parsed and exported again. Thousands of variants per run; a failure shrinks to a small one.
//! The files: the repository's own (examples/xml, the XML fixtures) and, when it is there, the
//! public corpus (`AFFECT_CORPUS` or `../shared/corpus`).

mod support;

use affect_compiler::groot::{self, Dialect};
use affect_compiler::syntax;
use proptest::prelude::*;
use std::sync::OnceLock;

fn corpus() -> &'static Vec<String> {
    static FILES: OnceLock<Vec<String>> = OnceLock::new();
    FILES.get_or_init(|| {
        let mut files: Vec<String> = support::repo_xml_files()
            .into_iter()
            .map(|(_, text)| text)
            .collect();
        match support::corpus_if_present() {
            Some(dir) => files.extend(
                support::corpus_xml_files(&dir)
                    .into_iter()
                    .map(|(_, text)| text),
            ),
            None => eprintln!(
                "groot_props: the public corpus is not at {} (set AFFECT_CORPUS): mutating the repository's {} XML files only",
                support::corpus_location().display(),
                files.len()
            ),
        }
        // Scripts and pre/post conditions are rare in the corpus: add a file that has them.
        files.push(
            r#"<root BTCPP_format="4" main_tree_to_execute="M"><BehaviorTree ID="M"><Sequence name="s" _skipIf="a &gt; 1 &amp;&amp; !b">
<Script code="x := (y * 2) + 1; s := 'n' .. x"/><ScriptCondition code="x &lt; 3 ? true : y == 'k'"/>
<Switch2 variable="{m}" case_1="a" case_2="2"><AlwaysSuccess/><AlwaysFailure/><Sleep msec="10"/></Switch2>
<LoopDouble queue="{q}" value="{v}"><Precondition if="v &gt; 0" else="SKIPPED"><AlwaysSuccess/></Precondition></LoopDouble>
<SubTree ID="S" a="{@r}" b="{=}" c="lit" _autoremap="true" _onSuccess="done := true"/></Sequence></BehaviorTree>
<BehaviorTree ID="S"><RetryUntilSuccessful num_attempts="3"><Dock goal="{a}"/></RetryUntilSuccessful></BehaviorTree>
<TreeNodesModel><Action ID="Dock"><input_port name="goal" type="double" default="1.5">where</input_port></Action>
<SubTree ID="S"><input_port name="a"/></SubTree></TreeNodesModel></root>"#
                .to_string(),
        );
        files
    })
}

#[derive(Clone, Debug)]
enum Edit {
    Delete(usize, usize),
    Insert(usize, String),
    Replace(usize, char),
    Truncate(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    // Characters that matter to XML, scripts and BehaviorTree.CPP, and any other.
    let interesting = prop::sample::select(vec![
        "<",
        ">",
        "/",
        "=",
        "\"",
        "'",
        "&",
        ";",
        "{",
        "}",
        "@",
        "!",
        "-",
        "?",
        "[",
        "]",
        "`",
        "\n",
        "<!--",
        "-->",
        "<![CDATA[",
        "<!DOCTYPE x>",
        "&amp;",
        "&#10;",
        "&#0;",
        "&bogus;",
        "{=}",
        "ID=\"x\" ",
        "name=\"n\" ",
        "_skipIf=\"(\" ",
        "_autoremap=\"true\" ",
        "<SubTree ID=\"S\"/>",
        "<BehaviorTree ID=\"M\">",
        "</root>",
        "<TreeNodesModel>",
        ":=",
        "..",
        "é",
        "\u{0}",
    ]);
    prop_oneof![
        (any::<usize>(), 1usize..40).prop_map(|(a, n)| Edit::Delete(a, n)),
        (any::<usize>(), interesting).prop_map(|(a, s)| Edit::Insert(a, s.to_string())),
        (any::<usize>(), any::<char>()).prop_map(|(a, c)| Edit::Replace(a, c)),
        any::<usize>().prop_map(Edit::Truncate),
    ]
}

fn at(s: &str, pos: usize) -> usize {
    if s.is_empty() {
        return 0;
    }
    let mut i = pos % (s.len() + 1);
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn apply(mut s: String, edits: &[Edit]) -> String {
    for e in edits {
        match e {
            Edit::Delete(a, n) => {
                let i = at(&s, *a);
                let j = at(&s, i + n);
                if j > i {
                    s.replace_range(i..j, "");
                }
            }
            Edit::Insert(a, t) => {
                let i = at(&s, *a);
                s.insert_str(i, t);
            }
            Edit::Replace(a, c) => {
                let i = at(&s, *a);
                if let Some(old) = s[i..].chars().next() {
                    s.replace_range(i..i + old.len_utf8(), &c.to_string());
                }
            }
            Edit::Truncate(a) => {
                let i = at(&s, *a);
                s.truncate(i);
            }
        }
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 5000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_corpus_files_never_panic(file in any::<prop::sample::Index>(), edits in prop::collection::vec(edit(), 1..6)) {
        let files = corpus();
        let text = apply(files[file.index(files.len())].clone(), &edits);
        let imported = groot::import_str(&text);
        for d in &imported.diagnostics {
            prop_assert!(d.primary.span.end as usize <= text.len(), "span outside the text: {d:?}");
            let _ = affect_compiler::render::human(d, "mutated.xml", &text, false);
        }
        if !imported.has_errors() {
            let affect = imported.text();
            let parsed = syntax::parse(&affect);
            prop_assert!(
                !affect_compiler::diagnostic::has_errors(&parsed.diagnostics),
                "the import of a mutated file does not parse:\n{affect}"
            );
            let _ = groot::export(&parsed.file, imported.dialect);
        }
        let _ = groot::convert(&text, Dialect::V4);
        let _ = groot::convert(&text, Dialect::V3);
        let _ = groot::compare(&text, &text);
    }
}
