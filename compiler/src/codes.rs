//! Every diagnostic code the toolchain can emit, with a one-line title and its explanation
//! page (`docs/errors/CODE.md`, embedded at build time so `affect explain` needs no files).

pub struct CodeInfo {
    pub code: &'static str,
    pub title: &'static str,
    pub page: &'static str,
}

macro_rules! codes {
    ($($code:literal => $title:literal,)*) => {
        pub static CODES: &[CodeInfo] = &[
            $(CodeInfo {
                code: $code,
                title: $title,
                page: include_str!(concat!("../../docs/errors/", $code, ".md")),
            },)*
        ];
    };
}

codes! {
    // Syntax: lexer and parser.
    "E0101" => "unexpected token",
    "E0102" => "unclosed delimiter",
    "E0103" => "unterminated string",
    "E0104" => "unterminated block comment",
    "E0105" => "unexpected character",
    "E0106" => "invalid number literal",
    "E0107" => "invalid escape sequence",
    "E0108" => "unexpected closing delimiter",
    "E0109" => "missing semicolon",
    "E0110" => "invalid assignment target",
    "E0111" => "chained comparison",
    "E0112" => "unknown setting",
    "E0113" => "malformed setting",
    "E0114" => "duplicate modifier, setting or block",
    "E0115" => "BehaviorTree.CPP script operator",
    "E0116" => "invalid quoted name",
    "E0117" => "misplaced argument",
    "W0101" => "doc comment documents nothing",
}

pub fn lookup(code: &str) -> Option<&'static CodeInfo> {
    let code = code.trim().to_ascii_uppercase();
    CODES.iter().find(|c| c.code == code)
}
