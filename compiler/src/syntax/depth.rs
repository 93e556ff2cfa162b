//! How deep the syntax tree of a token stream can be, measured before parsing. Every later
//! phase (checker, lowering, formatter, printers, exporters, dropping the tree) walks the tree
//! recursively, so a file nested deeper than `MAX_DEPTH` is refused with E0118 at the token
//! that goes too deep, and is never parsed: no input can overflow a stack.
//!
//! The measure is an upper bound of the tree's depth, counted in one pass over the tokens:
//! each open bracket (a block, arguments, parentheses, a list) is a level, and within a level
//! every token that can put what follows one node deeper counts too: operators (`a + b + c`
//! is a left-deep chain), prefix operators (`not not x`), `?`, `.`, `else` (an `else if`
//! chain) and a call or index right after another (`f(x)(y)`, `a[0][1]`). The
//! count of a level starts again after a separator (`;`, `,`, `=>`, `=`) and where an operand
//! follows an operand (the next node of a block, the next statement).

use super::token::{Kw, Tok};
use crate::diagnostic::Diagnostic;
use crate::span::Span;

/// The deepest a syntax tree may nest: far beyond hand-written programs (the examples nest
/// at most 12 deep), far below what the phases' stacks can hold.
pub const MAX_DEPTH: usize = 256;

/// Does a token put what follows it one level deeper within its bracket level?
fn deepens(t: &Tok) -> bool {
    t.is_operator()
        || matches!(
            t,
            Tok::Kw(Kw::And | Kw::Or | Kw::Not | Kw::Else | Kw::In) | Tok::Dot | Tok::DotDot
        )
}

fn separates(t: &Tok) -> bool {
    matches!(
        t,
        Tok::Semi
            | Tok::Comma
            | Tok::FatArrow
            | Tok::Eq
            | Tok::PlusEq
            | Tok::MinusEq
            | Tok::StarEq
            | Tok::SlashEq
    )
}

/// Ends an operand: what an operator, a postfix bracket or the next node can follow.
fn ends_operand(t: &Tok) -> bool {
    matches!(
        t,
        Tok::Ident(_)
            | Tok::RawIdent(_)
            | Tok::RootIdent(_)
            | Tok::Num(_)
            | Tok::Str(_)
            | Tok::Kw(Kw::True | Kw::False)
            | Tok::Underscore
            | Tok::RBrace
            | Tok::RParen
            | Tok::RBracket
    )
}

/// Starts an operand, a node or a statement (keywords that are operators were taken first).
fn starts_operand(t: &Tok) -> bool {
    matches!(
        t,
        Tok::Ident(_)
            | Tok::RawIdent(_)
            | Tok::RootIdent(_)
            | Tok::Num(_)
            | Tok::Str(_)
            | Tok::Kw(_)
            | Tok::Underscore
    )
}

/// E0118 at the first token nested deeper than `max`, or `None`.
pub fn check(tokens: &[(u32, Tok, u32)], max: usize) -> Option<Diagnostic> {
    // Per open bracket: the depth where its level starts, and the chain of its level when it
    // opened (restored at its closer).
    let mut open: Vec<(usize, usize, Span)> = Vec::new();
    let mut base = 0usize;
    let mut chain = 0usize;
    let mut prev: Option<&Tok> = None;
    for (s, t, e) in tokens {
        let after_operand = prev.is_some_and(ends_operand);
        match t {
            Tok::LBrace | Tok::LParen | Tok::LBracket => {
                // `f(x)(y)`, `a[0][1]`: a call or index of a call or index is one deeper.
                let postfix =
                    !matches!(t, Tok::LBrace) && matches!(prev, Some(Tok::RParen | Tok::RBracket));
                if postfix {
                    chain += 1;
                }
                open.push((base, chain, Span::raw(*s, *e)));
                base += chain + 1;
                chain = 0;
            }
            Tok::RBrace | Tok::RParen | Tok::RBracket => {
                if let Some((b, c, _)) = open.pop() {
                    base = b;
                    chain = c;
                }
            }
            t if separates(t) => chain = 0,
            t if deepens(t) => chain += 1,
            // A new operand right after one: the next node or statement, not a deeper one.
            t if after_operand && starts_operand(t) => chain = 0,
            _ => {}
        }
        let depth = base + chain;
        if depth > max {
            let outer = open.first().map(|(_, _, sp)| *sp);
            let mut d = Diagnostic::error(
                "E0118",
                format!("nested deeper than {max} levels"),
                Span::raw(*s, *e),
            )
            .with_label(format!("this is {depth} levels deep"))
            .with_note(
                "the nesting of blocks, brackets and operator chains is limited so that no \
                 program can exhaust the checker's stack; the file was not parsed further",
            )
            .with_help(
                "split it: give parts of a long expression names with `let` or `const`, and \
                 move deep parts of a tree into trees of their own",
            );
            if let Some(sp) = outer {
                d = d.with_secondary(sp, "the outermost open block starts here");
            }
            return Some(d);
        }
        prev = Some(t);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::lexer::lex;

    fn depth_error(src: &str, max: usize) -> Option<Diagnostic> {
        check(&lex(src).tokens, max)
    }

    #[test]
    fn ordinary_code_is_far_below_the_limit() {
        for src in [
            "tree T() { sequence { a() b() c() check x and y do { z = 1 + 2 * 3; w = -z } } }",
            "agent A { var x = 0; main { fallback { sequence { Foo() skip_if a Bar() } } } }",
        ] {
            assert!(depth_error(src, 8).is_none(), "{src}");
        }
    }

    #[test]
    fn long_blocks_and_long_statement_lists_do_not_add_up() {
        let nodes = "a() ".repeat(5000);
        let stmts = "x = y + 1; ".repeat(5000);
        let checks = "check a and b ".repeat(5000);
        for body in [nodes, format!("do {{ {stmts} }}"), checks] {
            assert!(depth_error(&format!("tree T() {{ sequence {{ {body} }} }}"), 8).is_none());
        }
    }

    #[test]
    fn every_kind_of_nesting_counts() {
        let n = 300;
        let cases = [
            format!(
                "tree T() {{ {}succeed{} }}",
                "sequence { ".repeat(n),
                " }".repeat(n)
            ),
            format!("const C = {}true;", "not ".repeat(n)),
            format!("const C = {}1;", "-".repeat(n)),
            format!("const C = {}1{};", "(".repeat(n), ")".repeat(n)),
            format!("const C = {}1{};", "[".repeat(n), "]".repeat(n)),
            format!("const C = {};", vec!["1"; n].join(" + ")),
            format!("const C = {};", vec!["a"; n].join(" and ")),
            format!("const C = a{};", ".b".repeat(n)),
            format!("const C = f{};", "()".repeat(n)),
            format!("const C = a{};", "[0]".repeat(n)),
            format!("const C = {}1;", "a ? b : ".repeat(n)),
            format!("tree T() {{ do {{ {}{{}} }} }}", "if a {} else ".repeat(n)),
        ];
        for src in &cases {
            let d = depth_error(src, 256).unwrap_or_else(|| panic!("not refused: {src:.60}"));
            assert_eq!(d.code, "E0118");
            assert!(d.message.contains("256"));
        }
    }
}
