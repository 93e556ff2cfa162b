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
    "E0118" => "nested too deeply",
    "W0101" => "doc comment documents nothing",

    // Names and modules.
    "E0201" => "unknown name",
    "E0202" => "duplicate declaration",
    "E0203" => "unknown type",
    "E0204" => "unknown node",
    "E0205" => "import cycle",
    "E0206" => "cannot load a used file",
    "E0207" => "unknown module",
    "E0208" => "ambiguous enum variant",
    "E0209" => "tree calls itself",
    "E0210" => "derived values depend on each other",
    "W0201" => "unused variable",
    "W0202" => "unused tree",
    "W0203" => "expression does nothing",
    "W0204" => "port not given",
    "W0205" => "switch case never chosen",
    "W0206" => "tree argument binds no port",
    // Types and structure.
    "E0301" => "type mismatch",
    "E0302" => "value out of range",
    "E0303" => "unit mismatch",
    "E0304" => "not a constant",
    "E0305" => "unknown argument",
    "E0306" => "missing argument",
    "E0307" => "a variable is needed",
    "E0308" => "not every case is covered",
    "E0309" => "argument given twice",
    "E0310" => "wrong number of arguments",
    "E0311" => "cannot assign",
    "E0312" => "wrong number of children",
    "E0313" => "a tree has one root node",
    "E0314" => "bad switch case",
    "E0315" => "too many switch cases",
    "E0316" => "weights do not match the short-term size",
    "E0317" => "unknown or misused device driver",
    "E0318" => "invalid emotion or tendency component",
    "E0319" => "keys needed twice at once",
    "E0320" => "literal computes too many elements",
    "E0321" => "too many nodes once tree calls are inlined",
    "E0322" => "a list given to a variable that does not hold lists",
    "E0323" => "a variable read that nothing ever writes",
    // Groot / BehaviorTree.CPP XML (compiler/src/groot): import, export, convert.
    "E0401" => "malformed XML",
    "E0402" => "unclosed element",
    "E0403" => "mismatched closing tag",
    "E0404" => "document type declaration refused",
    "E0405" => "duplicate attribute",
    "E0406" => "XML limit exceeded",
    "E0407" => "not a BehaviorTree.CPP document",
    "E0408" => "unsupported BTCPP_format",
    "E0409" => "more than one TreeNodesModel",
    "E0410" => "tree ID missing or duplicated",
    "E0411" => "tree without exactly one root node",
    "E0412" => "invalid blackboard reference",
    "E0413" => "broken script",
    "E0414" => "invalid node element",
    "E0415" => "include error",
    "E0416" => "invalid model entry",
    "E0417" => "name affect cannot spell",
    "E0418" => "included path is not a file to read",
    "E0419" => "unknown node named like a built-in",
    "E0420" => "unknown port",
    "E0421" => "port value of the wrong type",
    "E0422" => "tree defined in no file of the program",
    "E0423" => "no main tree BehaviorTree.CPP can create",
    "W0401" => "node without a model",
    "W0402" => "ignored XML content",
    "W0403" => "included file not read",
    "W0404" => "carried affect text no longer matches",
    "W0405" => "unknown main tree",
    "E0451" => "not available in the target dialect",
    "E0452" => "name BehaviorTree.CPP refuses",
    "E0453" => "value cannot be written as a port",
    "E0454" => "node cannot be written as XML",
    "W0451" => "evaluated by the affect runtime",
    "W0452" => "duration rounded to milliseconds",
    "W0453" => "name refused by BehaviorTree.CPP 4.8.4+",
    "W0454" => "undeclared node: model inferred",
    "E0461" => "cannot convert to the target dialect",
    "W0461" => "conversion changes behaviour",
    // Running.
    "E0601" => "construct cannot run yet",
    "E0602" => "bad run option",
    "E0603" => "long-term memory file cannot be used",
    "E0604" => "world message no robot can receive",
    "E0605" => "variable read while it holds no value",
    "E0610" => "hardware device cannot be used",
    "E0611" => "device has no hardware driver",
    // Record and replay (runtime/src/record).
    "E0612" => "record cannot be read",
    "E0613" => "record of another program",
    "E0614" => "replay differs from the recorded run",
    // Your own nodes (runtime/src/nodes.rs).
    "E0701" => "node implementation does not fit its declaration",
    // Files (compiler/src/source.rs; read by the affect-files crate).
    "E0801" => "not a regular file",
    "E0802" => "file too large",
    "E0803" => "not UTF-8 text",
    "E0804" => "NUL byte in text",
    "E0805" => "cannot read file",
    // Worlds (compiler/src/sema/world).
    "E0501" => "unknown world setting",
    "E0502" => "malformed world setting",
    "E0503" => "wrong unit in a world setting",
    "E0504" => "world value out of range",
    "E0505" => "label not on the grid",
    "E0506" => "invalid grid labels",
    "E0507" => "world setting given twice",
    "E0508" => "world without a floor",
    "E0509" => "position not available",
    "E0510" => "setting does not fit this kind of world",
    "E0511" => "name defined twice in a world",
}

pub fn lookup(code: &str) -> Option<&'static CodeInfo> {
    let code = code.trim().to_ascii_uppercase();
    CODES.iter().find(|c| c.code == code)
}
