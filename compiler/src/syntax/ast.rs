//! The abstract syntax tree of a `.affect` file. Every node carries a byte span; error nodes
//! (`*::Error`) mark the places where the parser recovered, so later phases see the rest of
//! the file. The formatter prints this tree back; the XML importer builds it.

use super::token::{NumLit, Unit};
use crate::span::Span;

#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

impl Ident {
    pub fn new(name: impl Into<String>, span: Span) -> Ident {
        Ident {
            name: name.into(),
            span,
        }
    }
}

/// `a`, `std::akr`, `Drive::Explore`.
#[derive(Clone, Debug, PartialEq)]
pub struct Path {
    pub segments: Vec<Ident>,
    pub span: Span,
}

impl Path {
    pub fn single(id: Ident) -> Path {
        let span = id.span;
        Path {
            segments: vec![id],
            span,
        }
    }

    pub fn last(&self) -> &Ident {
        self.segments
            .last()
            .expect("a path has at least one segment")
    }

    pub fn to_string_path(&self) -> String {
        self.text().into_owned()
    }

    /// The path as written (`std::akr`), borrowed when it is one name (most are).
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        if let [one] = self.segments.as_slice() {
            return std::borrow::Cow::Borrowed(&one.name);
        }
        std::borrow::Cow::Owned(
            self.segments
                .iter()
                .map(|s| s.name.as_str())
                .collect::<Vec<_>>()
                .join("::"),
        )
    }
}

/// The text of the `///` comments before a declaration, one entry per line.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Doc {
    pub lines: Vec<String>,
    pub span: Span,
}

impl Doc {
    pub fn text(&self) -> String {
        self.lines.join("\n")
    }
}

/// `#[key]` or `#[key = "value"]`: metadata the language does not interpret, such as XML
/// attributes (`_collapsed`) that must survive an import/export round trip.
#[derive(Clone, Debug, PartialEq)]
pub struct Attr {
    pub name: Ident,
    pub value: Option<Expr>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct File {
    pub items: Vec<Item>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    pub doc: Option<Doc>,
    pub attrs: Vec<Attr>,
    pub kind: ItemKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ItemKind {
    Use(UseDecl),
    Const(ConstDecl),
    Enum(EnumDecl),
    Leaf(LeafDecl),
    Tree(TreeDecl),
    Emotion(RecordDecl),
    Tendency(RecordDecl),
    Agent(AgentDecl),
    World(WorldDecl),
    Component(SettingsDecl),
    Behavior(BehaviorDecl),
    Error,
}

#[derive(Clone, Debug, PartialEq)]
pub enum UseTarget {
    /// `use std::akr;`
    Module(Path),
    /// `use "lib/grid.affect";`
    File(String, Span),
}

#[derive(Clone, Debug, PartialEq)]
pub struct UseDecl {
    pub target: UseTarget,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ConstDecl {
    pub name: Ident,
    pub ty: Option<Type>,
    pub value: Expr,
}

#[derive(Clone, Debug, PartialEq)]
pub struct EnumDecl {
    pub name: Ident,
    pub variants: Vec<Variant>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Variant {
    pub doc: Option<Doc>,
    pub name: Ident,
    /// An explicit integer value (BehaviorTree.CPP scripting enums are integers).
    pub value: Option<Expr>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeafKind {
    Action,
    Condition,
    /// A foreign control node (imported from XML) that has children.
    Control,
    /// A foreign decorator (imported from XML) with exactly one child.
    Decorator,
}

impl LeafKind {
    pub fn keyword(self) -> &'static str {
        match self {
            LeafKind::Action => "action",
            LeafKind::Condition => "condition",
            LeafKind::Control => "control",
            LeafKind::Decorator => "decorator",
        }
    }
}

/// `action Move(in direction: Direction, out moved: bool);`: a node implemented outside the
/// program. This is what a `<TreeNodesModel>` entry says.
#[derive(Clone, Debug, PartialEq)]
pub struct LeafDecl {
    pub kind: LeafKind,
    pub name: Ident,
    pub ports: Ports,
}

/// The ports of a declared node or tree, shared rather than copied: the exporter's scope, its
/// read-back and the importer's look-ups hold the declaration's own list (a node with 200,000
/// ports was copied four times to export it). A shared `Vec` rather than a slice, so that
/// sharing the list the parser built does not copy it once more.
pub type Ports = std::sync::Arc<Vec<PortDecl>>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortDir {
    In,
    Out,
    InOut,
}

impl PortDir {
    pub fn keyword(self) -> &'static str {
        match self {
            PortDir::In => "in",
            PortDir::Out => "out",
            PortDir::InOut => "inout",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct PortDecl {
    /// Boxed, as `default` is: most ports have none.
    pub doc: Option<Box<Doc>>,
    pub dir: PortDir,
    pub name: Ident,
    pub ty: Option<Type>,
    /// Boxed: most ports have none, and a node may have a great many ports (200,000 took
    /// 11 MB more unboxed).
    pub default: Option<Box<Expr>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Type {
    pub kind: TypeKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TypeKind {
    /// `num`, `bool`, `Drive`, `geo::Pose`.
    Named(Path),
    /// `num in 0..100`
    Range(Box<Type>, Box<Expr>, Box<Expr>),
    /// `[num]`
    List(Box<Type>),
    /// `"geometry_msgs::msg::PoseStamped"`: a foreign (C++) type kept by name.
    Foreign(String),
    Error,
}

/// `tree FetchBall(in target: Pose, out kicked: bool) { ... }`; `main tree` marks the tree a
/// file without agents runs.
#[derive(Clone, Debug, PartialEq)]
pub struct TreeDecl {
    pub is_main: bool,
    pub name: Ident,
    pub ports: Ports,
    /// `var` declarations at the top of the body: entries of the tree's own blackboard.
    pub locals: Vec<LocalVar>,
    /// The nodes; its span covers the braces of the whole body.
    pub body: NodeBlock,
}

/// `var kicks: int = 0;` at the top of a tree body.
#[derive(Clone, Debug, PartialEq)]
pub struct LocalVar {
    pub doc: Option<Doc>,
    pub name: Ident,
    pub ty: Option<Type>,
    pub init: Option<Expr>,
    pub span: Span,
}

/// A braced list of tree nodes.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeBlock {
    pub nodes: Vec<Node>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub doc: Option<Doc>,
    pub attrs: Vec<Attr>,
    /// `label: node`: the instance name (`name="..."` in XML).
    pub label: Option<Label>,
    pub kind: NodeKind,
    pub modifiers: Vec<Modifier>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    pub text: String,
    /// Written as a string (`"Navigate Recovery": ...`) rather than a name.
    pub quoted: bool,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    /// A built-in node, a declared leaf, a tree, or a foreign control/decorator:
    /// `sequence { .. }`, `retry(3) { .. }`, `Kick()`, `succeed`, `Dock(goal: g, ..)`.
    Call {
        name: Path,
        /// `None` when written without parentheses.
        args: Option<ArgList>,
        children: Option<NodeBlock>,
    },
    /// `do { assignments }`: a Script node.
    Script(Block),
    /// `check expr`: a ScriptCondition node.
    Check(Expr),
    /// `switch x { A => node, _ => node }`
    Switch {
        subject: Expr,
        arms: Vec<SwitchArm>,
    },
    /// `for x in queue { node }`: pops each element of a queue into `x`.
    For {
        var: Ident,
        queue: Expr,
        body: NodeBlock,
    },
    Error,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SwitchArm {
    pub doc: Option<Doc>,
    pub pattern: Pattern,
    pub node: Node,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Pattern {
    Wildcard(Span),
    Expr(Expr),
}

/// Arguments of a call: `(3)`, `(success: 2, failure: 1)`, `(goal: g, ..)`.
#[derive(Clone, Debug, PartialEq)]
pub struct ArgList {
    pub args: Vec<Arg>,
    /// `..` at the end: every other port binds the variable of the same name (`_autoremap`).
    pub rest: Option<Span>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Arg {
    pub name: Option<Ident>,
    pub value: Expr,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Modifier {
    pub kind: ModifierKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ModifierKind {
    SkipIf(Expr),
    SuccessIf(Expr),
    FailureIf(Expr),
    While(Expr),
    OnSuccess(Block),
    OnFailure(Block),
    OnHalted(Block),
    After(Block),
}

impl ModifierKind {
    pub fn keyword(&self) -> &'static str {
        match self {
            ModifierKind::SkipIf(_) => "skip_if",
            ModifierKind::SuccessIf(_) => "success_if",
            ModifierKind::FailureIf(_) => "failure_if",
            ModifierKind::While(_) => "while",
            ModifierKind::OnSuccess(_) => "on_success",
            ModifierKind::OnFailure(_) => "on_failure",
            ModifierKind::OnHalted(_) => "on_halted",
            ModifierKind::After(_) => "after",
        }
    }
}

/// A braced list of statements.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AssignOp {
    Set,
    Add,
    Sub,
    Mul,
    Div,
}

impl AssignOp {
    pub fn as_str(self) -> &'static str {
        match self {
            AssignOp::Set => "=",
            AssignOp::Add => "+=",
            AssignOp::Sub => "-=",
            AssignOp::Mul => "*=",
            AssignOp::Div => "/=",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    Assign {
        target: Expr,
        op: AssignOp,
        value: Expr,
    },
    Expr(Expr),
    If {
        cond: Expr,
        then: Block,
        otherwise: Option<Box<Else>>,
    },
    Error,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Else {
    Block(Block),
    If(Stmt),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Not,
    BitNot,
}

impl UnOp {
    pub fn as_str(self) -> &'static str {
        match self {
            UnOp::Neg => "-",
            UnOp::Not => "not ",
            UnOp::BitNot => "~",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    BitOr,
    BitXor,
    BitAnd,
    Add,
    Sub,
    Mul,
    Div,
}

impl BinOp {
    pub fn as_str(self) -> &'static str {
        match self {
            BinOp::Or => "or",
            BinOp::And => "and",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::BitAnd => "&",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
        }
    }

    /// Binding power: higher binds tighter. Matches the grammar's tiers.
    pub fn precedence(self) -> u8 {
        match self {
            BinOp::Or => 1,
            BinOp::And => 2,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 3,
            BinOp::BitOr | BinOp::BitXor => 4,
            BinOp::BitAnd => 5,
            BinOp::Add | BinOp::Sub => 6,
            BinOp::Mul | BinOp::Div => 7,
        }
    }

    pub fn is_comparison(self) -> bool {
        self.precedence() == 3
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Num(NumLit),
    Str(String),
    Bool(bool),
    /// A variable, constant, enum value or function: `score`, `Drive::Explore`.
    Name(Path),
    /// `@key`: an entry of the root blackboard (imported XML `{@key}`).
    Root(Ident),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `cond ? a : b`
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
    Call(Box<Expr>, ArgList),
    Field(Box<Expr>, Ident),
    Index(Box<Expr>, Box<Expr>),
    List(Vec<Expr>),
    /// `(x, y)`: a point or pair.
    Tuple(Vec<Expr>),
    /// Parentheses as written, kept so the formatter prints them back.
    Paren(Box<Expr>),
    Error,
}

impl Expr {
    pub fn number(value: f64, unit: Option<Unit>, span: Span) -> Expr {
        let integer = value.fract() == 0.0 && value.abs() < 1e15;
        let mut text = if integer {
            format!("{}", value as i64)
        } else {
            format!("{value}")
        };
        if let Some(u) = unit {
            text.push_str(u.as_str());
        }
        Expr {
            kind: ExprKind::Num(NumLit {
                value,
                integer,
                unit,
                text,
            }),
            span,
        }
    }

    pub fn name(name: impl Into<String>, span: Span) -> Expr {
        Expr {
            kind: ExprKind::Name(Path::single(Ident::new(name, span))),
            span,
        }
    }
}

/// `emotion Fear { valence: negative, ... }`, `tendency Avoid { function: "protect" }`.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordDecl {
    pub name: Ident,
    pub fields: Vec<Field>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub doc: Option<Doc>,
    pub key: Ident,
    pub value: Expr,
    pub span: Span,
}

/// A clause of a configuration block: a key, then arguments, optional `= value`, keyword
/// pairs, an optional `: value`, and either `;` or a nested block.
/// `grid 5 x 5 cell 24cm labels "..";`, `field light = 50 { at X: 10; }`, `alpha 0.5;`.
#[derive(Clone, Debug, PartialEq)]
pub struct Setting {
    pub doc: Option<Doc>,
    pub key: Ident,
    pub args: Vec<Expr>,
    pub assign: Option<Expr>,
    pub pairs: Vec<(Ident, Expr)>,
    pub value: Option<Expr>,
    pub block: Option<SettingBlock>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SettingBlock {
    pub entries: Vec<SettingEntry>,
    pub span: Span,
}

/// What a settings block holds: settings, nested behaviour modules (in `behavior`), and
/// transitions (in `emotions`).
#[derive(Clone, Debug, PartialEq)]
pub enum SettingEntry {
    Setting(Setting),
    Behavior(Box<BehaviorDecl>, Span),
    /// `Happy -> Concerned when progress < 0;`
    Transition(Transition),
    Error(Span),
}

impl SettingEntry {
    pub fn span(&self) -> Span {
        match self {
            SettingEntry::Setting(s) => s.span,
            SettingEntry::Behavior(_, s) => *s,
            SettingEntry::Transition(t) => t.span,
            SettingEntry::Error(s) => *s,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Transition {
    pub doc: Option<Doc>,
    pub from: Ident,
    pub to: Ident,
    pub guard: Expr,
    pub span: Span,
}

/// `component lidar { heartbeat 100ms; ... }`, `recruitment help { ... }`.
#[derive(Clone, Debug, PartialEq)]
pub struct SettingsDecl {
    pub name: Ident,
    pub body: SettingBlock,
}

/// `behavior Soccer { motivation vitality; ... behavior Sub { .. } }`
#[derive(Clone, Debug, PartialEq)]
pub struct BehaviorDecl {
    /// Only used for modules nested in another module's block; a top-level or member
    /// module's doc comment sits on its `Item` or `Member`.
    pub doc: Option<Doc>,
    pub name: Ident,
    pub body: SettingBlock,
}

#[derive(Clone, Debug, PartialEq)]
pub struct WorldDecl {
    pub name: Ident,
    pub body: SettingBlock,
}

/// `agent Navigator { ... }`, or `agent Vonda = Leguin;` (a clone).
#[derive(Clone, Debug, PartialEq)]
pub struct AgentDecl {
    pub name: Ident,
    pub base: Option<Ident>,
    pub members: Option<Vec<Member>>,
    pub body_span: Option<Span>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Member {
    pub doc: Option<Doc>,
    pub attrs: Vec<Attr>,
    pub kind: MemberKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum MemberKind {
    /// `rate 10Hz;`
    Rate(Expr),
    /// `var score: num in 0..100 = 50;`
    Var {
        name: Ident,
        ty: Option<Type>,
        init: Option<Expr>,
    },
    /// `let mood = fold(cortisol, 50) + serotonin / 2;`
    Let {
        name: Ident,
        ty: Option<Type>,
        value: Expr,
    },
    /// `sensor light: num in 0..100 = ads1115(...);`
    Sensor {
        name: Ident,
        ty: Option<Type>,
        source: Expr,
    },
    /// `event loud_noise = gpio_edge(pin: 17, edge: rising);` or `event help_needed;`
    Event {
        name: Ident,
        source: Option<Expr>,
    },
    /// `actuator base = romi32u4(bus: 1, address: 0x14);`
    Actuator {
        name: Ident,
        ty: Option<Type>,
        source: Expr,
    },
    /// `hormone cortisol = sound { baseline 50; half_life 30s; }`
    Hormone {
        name: Ident,
        value: Expr,
        settings: Option<SettingBlock>,
    },
    /// `update { ... }`
    Update(Block),
    /// `on loud_noise { ... }`, `on failed(lidar) { ... }`
    On {
        event: Expr,
        body: Block,
    },
    /// `personality { caution: 0.7 }`
    Personality(Vec<Field>),
    /// `emotions waiter: WaiterEmotion = Happy { from progress; rise ..; A -> B when ..; }`
    Emotions {
        name: Ident,
        ty: Type,
        initial: Ident,
        body: SettingBlock,
    },
    /// `tendencies waiter { Happy => Serve, Joke; }`
    Tendencies {
        machine: Ident,
        arms: Vec<TendencyArm>,
    },
    /// `drive drive: Drive = Explore { AvoidDanger when loud_noise; ... }`
    Drive(DriveDecl),
    /// `memory feelings keyed by place { short_term 7 weights [...]; ... }`
    Memory {
        name: Ident,
        key: Option<Expr>,
        body: SettingBlock,
    },
    Behavior(BehaviorDecl),
    /// `behaviors { policy parallel; inhibition 0.15; modules Soccer, Chat; }`
    Behaviors(SettingBlock),
    Recruitment(SettingsDecl),
    Component(SettingsDecl),
    /// `main { ... }`: the tree ticked every tick.
    Main(NodeBlock),
    Error,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TendencyArm {
    pub doc: Option<Doc>,
    pub pattern: Pattern,
    pub targets: Vec<TendencyTarget>,
    pub span: Span,
}

/// A behaviour a tendency selects: a tree or tendency name, optionally with arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct TendencyTarget {
    pub name: Path,
    pub args: Option<ArgList>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DriveDecl {
    pub name: Ident,
    pub ty: Type,
    pub initial: Ident,
    /// Rules and the intention block, in written order.
    pub entries: Vec<DriveEntry>,
}

impl DriveDecl {
    pub fn rules(&self) -> impl Iterator<Item = &DriveRule> {
        self.entries.iter().filter_map(|e| match e {
            DriveEntry::Rule(r) => Some(r),
            _ => None,
        })
    }

    pub fn intention(&self) -> Option<&Intention> {
        self.entries.iter().find_map(|e| match e {
            DriveEntry::Intention(i) => Some(i),
            _ => None,
        })
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum DriveEntry {
    Rule(DriveRule),
    Intention(Intention),
    Error(Span),
}

/// `LiftMood when score < 25;`
#[derive(Clone, Debug, PartialEq)]
pub struct DriveRule {
    pub doc: Option<Doc>,
    pub target: Ident,
    pub guard: Expr,
    pub span: Span,
}

/// `intention target: Label { Explore => unvisited(); LiftMood, AvoidDanger => feelings.best(); }`
#[derive(Clone, Debug, PartialEq)]
pub struct Intention {
    pub doc: Option<Doc>,
    pub name: Ident,
    pub ty: Option<Type>,
    pub arms: Vec<IntentionArm>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct IntentionArm {
    pub patterns: Vec<Pattern>,
    pub value: Expr,
    pub span: Span,
}
