//! The words that start each kind of construct, by context: the parser's messages name them
//! ("expected an agent member such as `var` or `main`") and suggest them for typos, and the
//! language server offers them. One table each; the lexer's keyword table is `token::Kw`
//! (the editor grammars are checked against it by `tests/editor_keywords.rs`).

/// Every word that can start a top-level declaration.
pub const ITEM_STARTS: &[&str] = &[
    "use",
    "const",
    "enum",
    "action",
    "condition",
    "control",
    "decorator",
    "main",
    "tree",
    "emotion",
    "tendency",
    "agent",
    "world",
    "component",
    "behavior",
];

/// Every word that can start an agent member.
pub const MEMBER_STARTS: &[&str] = &[
    "rate",
    "var",
    "let",
    "sensor",
    "event",
    "actuator",
    "hormone",
    "update",
    "on",
    "personality",
    "emotions",
    "tendencies",
    "drive",
    "memory",
    "behavior",
    "behaviors",
    "recruitment",
    "component",
    "main",
];

/// Words that start a node of a tree besides node names (built-ins, declared nodes, trees).
pub const NODE_STARTS: &[&str] = &["do", "check", "switch", "for"];

/// The modifiers written after a node.
pub const MODIFIERS: &[&str] = &[
    "skip_if",
    "success_if",
    "failure_if",
    "while",
    "on_success",
    "on_failure",
    "on_halted",
    "after",
];

/// Words that start a statement besides an expression or an assignment.
pub const STATEMENT_STARTS: &[&str] = &["if", "else"];

/// The directions of a port.
pub const PORT_DIRECTIONS: &[&str] = &["in", "out", "inout"];

/// Words of expressions: the boolean literals and the logical operators.
pub const EXPRESSION_WORDS: &[&str] = &["true", "false", "not", "and", "or"];
