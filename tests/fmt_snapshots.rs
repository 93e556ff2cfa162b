//! Formatter snapshots: the canonical layout of every passing syntax fixture.

use affect_compiler::fmt::format_source;

#[test]
fn formatted_pass_fixtures() {
    insta::glob!("fixtures/syntax/pass/*.affect", |path| {
        let src = std::fs::read_to_string(path).unwrap();
        let formatted = format_source(&src)
            .unwrap_or_else(|d| panic!("{} does not parse: {}", path.display(), d[0].message));
        insta::assert_snapshot!(formatted);
    });
}
