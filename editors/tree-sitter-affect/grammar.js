/**
 * @file tree-sitter grammar for the affect language (.affect files).
 *
 * This grammar mirrors grammar/affect.lalrpop rule for rule; the comments name the LALRPOP
 * rule each tree-sitter rule stands for. Where the two differ, the difference is listed in
 * docs/editors.md ("How the editor grammars differ from the compiler").
 *
 * The keyword lists below are checked against the lexer's keyword table
 * (compiler/src/syntax/token.rs, `Kw::all()`) by tests/editor_keywords.rs: keep each list
 * between its BEGIN/END markers, one quoted word per entry.
 */

/* eslint-disable arrow-parens, camelcase */
/// <reference types="tree-sitter-cli/dsl" />
// @ts-check

// BEGIN HARD_KEYWORDS (never names)
const HARD_KEYWORDS = [
  'use', 'const', 'enum', 'var', 'let',
  'true', 'false', 'and', 'or', 'not',
  'in', 'out', 'inout',
  'do', 'check', 'switch', 'for',
  'if', 'else', 'when', 'while',
  'skip_if', 'success_if', 'failure_if',
  'on_success', 'on_failure', 'on_halted', 'after',
];
// END HARD_KEYWORDS

// BEGIN SOFT_KEYWORDS (start declarations and members, usable as names everywhere else)
const SOFT_KEYWORDS = [
  'action', 'condition', 'control', 'decorator',
  'tree', 'main', 'emotion', 'tendency', 'agent',
  'world', 'component', 'behavior', 'behaviors',
  'rate', 'sensor', 'event', 'actuator',
  'hormone', 'update', 'on', 'personality',
  'emotions', 'tendencies', 'drive', 'intention',
  'memory', 'keyed', 'by', 'recruitment',
];
// END SOFT_KEYWORDS

// LALRPOP `HardArgKeyword`: hard keywords that may name a port, an argument, a field or an
// attribute (BehaviorTree.CPP's Precondition has ports `if` and `else`).
const HARD_ARG_KEYWORDS = [
  'if', 'else', 'in', 'out', 'inout', 'while', 'for', 'do', 'check',
  'switch', 'when', 'after', 'use', 'const', 'enum', 'var', 'let',
];

const PREC = {
  ternary: 1,
  or: 2,
  and: 3,
  compare: 4,
  bit_or: 5,
  bit_and: 6,
  add: 7,
  multiply: 8,
  unary: 9,
  postfix: 10,
};

/**
 * LALRPOP `Comma<T>`: `(T ",")* T?` (zero or more, trailing comma allowed).
 * @param {RuleOrLiteral} rule
 */
function comma(rule) {
  return seq(repeat(seq(rule, ',')), optional(rule));
}

/**
 * LALRPOP `Comma1<T>`: one or more, no trailing comma.
 * @param {RuleOrLiteral} rule
 */
function comma1(rule) {
  return seq(rule, repeat(seq(',', rule)));
}

export default grammar({
  name: 'affect',

  word: $ => $.identifier,

  extras: $ => [/\s/, $.line_comment, $.doc_comment, $.block_comment],

  // Nested block comments need a counter: src/scanner.c.
  externals: $ => [$.block_comment],

  // Hard keywords are never identifiers (they may still be port/argument names, where the
  // grammar names the keyword token itself).
  reserved: {
    global: _ => [...HARD_KEYWORDS, '_'],
  },

  supertypes: $ => [$._expression, $._item, $._member],

  inline: $ => [$._type_atom, $._pattern, $._literal],

  rules: {
    // ------------------------------------------------------------ file and items

    // File
    source_file: $ => repeat($._item),

    // ItemKind
    _item: $ => choice(
      $.use_declaration,
      $.const_declaration,
      $.enum_declaration,
      $.leaf_declaration,
      $.tree_declaration,
      $.emotion_declaration,
      $.tendency_declaration,
      $.agent_declaration,
      $.world_declaration,
      $.component_declaration,
      $.behavior_declaration,
    ),

    // Attr
    attribute: $ => seq(
      '#', '[',
      field('name', $._arg_name),
      optional(seq('=', field('value', $._expression))),
      ']',
    ),

    use_declaration: $ => seq(
      repeat($.attribute),
      'use',
      field('target', choice($._path, $.string)),
      ';',
    ),

    const_declaration: $ => seq(
      repeat($.attribute),
      'const',
      field('name', $._name),
      optional(seq(':', field('type', $._type))),
      '=',
      field('value', $._expression),
      ';',
    ),

    enum_declaration: $ => seq(
      repeat($.attribute),
      'enum',
      field('name', $._name),
      field('body', $.enum_body),
    ),

    enum_body: $ => seq('{', comma($.enum_variant), '}'),

    // Variant
    enum_variant: $ => seq(
      field('name', $._name),
      optional(seq('=', field('value', $._expression))),
    ),

    // LeafKind Name "(" Comma<Port> ")" ";"
    leaf_declaration: $ => seq(
      repeat($.attribute),
      field('kind', choice('action', 'condition', 'control', 'decorator')),
      field('name', $._name),
      field('ports', $.port_list),
      ';',
    ),

    port_list: $ => seq('(', comma($.port), ')'),

    // Port
    port: $ => seq(
      field('direction', $.port_direction),
      field('name', $._arg_name),
      optional(seq(':', field('type', $._type))),
      optional(seq('=', field('default', $._expression))),
    ),

    port_direction: _ => choice('in', 'out', 'inout'),

    tree_declaration: $ => seq(
      repeat($.attribute),
      optional(field('main', 'main')),
      'tree',
      field('name', $._name),
      optional(field('ports', $.port_list)),
      field('body', $.tree_body),
    ),

    // `{` LocalVar* Node* `}`
    tree_body: $ => seq('{', repeat($.local_variable), repeat($.node), '}'),

    // LocalVar: a tree's own blackboard entries (BehaviorTree.CPP: a SubTree's private keys).
    local_variable: $ => seq(
      'var',
      field('name', $._name),
      optional(seq(':', field('type', $._type))),
      optional(seq('=', field('value', $._expression))),
      ';',
    ),

    emotion_declaration: $ => seq(
      repeat($.attribute),
      'emotion',
      field('name', $._name),
      field('body', $.field_block),
    ),

    tendency_declaration: $ => seq(
      repeat($.attribute),
      'tendency',
      field('name', $._name),
      field('body', $.field_block),
    ),

    field_block: $ => seq('{', comma($.record_field), '}'),

    // Field
    record_field: $ => seq(
      field('key', $._arg_name),
      ':',
      field('value', $._expression),
    ),

    agent_declaration: $ => seq(
      repeat($.attribute),
      'agent',
      field('name', $._name),
      optional(seq('=', field('base', $._name))),
      choice(';', field('body', $.agent_body)),
    ),

    agent_body: $ => seq('{', repeat($._member), '}'),

    world_declaration: $ => seq(
      repeat($.attribute),
      'world',
      field('name', $._name),
      field('body', $.setting_block),
    ),

    // An item and an agent member.
    component_declaration: $ => seq(
      repeat($.attribute),
      'component',
      field('name', $._name),
      field('body', $.setting_block),
    ),

    // An item and an agent member.
    behavior_declaration: $ => seq(
      repeat($.attribute),
      'behavior',
      field('name', $._name),
      field('body', $.setting_block),
    ),

    // ------------------------------------------------------------ names

    identifier: _ => /[A-Za-z_][A-Za-z0-9_]*/,

    // `` `any name` ``: a name that is not a plain identifier.
    quoted_identifier: _ => /`[^`\n]+`/,

    // `@name`: a key of the root blackboard.
    root_identifier: _ => /@[A-Za-z_][A-Za-z0-9_]*/,

    // Name: an identifier, a quoted name or a soft keyword (shown as an identifier).
    _name: $ => choice(
      $.identifier,
      $.quoted_identifier,
      ...SOFT_KEYWORDS.map(k => alias(k, $.identifier)),
    ),

    // ArgName
    _arg_name: $ => choice(
      $._name,
      ...HARD_ARG_KEYWORDS.map(k => alias(k, $.identifier)),
    ),

    // Path
    _path: $ => choice($._name, $.scoped_identifier),

    scoped_identifier: $ => seq(
      field('path', $._path),
      '::',
      field('name', $._name),
    ),

    // ------------------------------------------------------------ types

    // Type
    _type: $ => choice($.range_type, $._type_atom),

    range_type: $ => seq(
      field('base', $._type_atom),
      'in',
      field('low', $._expression),
      '..',
      field('high', $._expression),
    ),

    // TypeAtom
    _type_atom: $ => choice($.type_name, $.list_type, $.foreign_type),

    type_name: $ => $._path,

    list_type: $ => seq('[', field('element', $._type), ']'),

    // A C++ type named by a string: `"std::string"`.
    foreign_type: $ => $.string,

    // ------------------------------------------------------------ trees

    node_block: $ => seq('{', repeat($.node), '}'),

    // Node: attributes, an optional label, the node itself and its modifiers.
    node: $ => seq(
      repeat($.attribute),
      optional(seq(field('label', $.label), ':')),
      field('kind', choice(
        $.call_node,
        $.script_node,
        $.check_node,
        $.switch_node,
        $.for_node,
      )),
      repeat(field('modifier', $.modifier)),
    ),

    label: $ => choice($._name, $.string),

    // `sequence { .. }`, `retry(3) { .. }`, `Kick()`, `succeed`, `Dock(goal: g, ..)`.
    call_node: $ => seq(
      field('name', $._path),
      optional(field('arguments', $.argument_list)),
      optional(field('children', $.node_block)),
    ),

    script_node: $ => seq('do', field('body', $.block)),

    check_node: $ => seq('check', field('condition', $._expression)),

    switch_node: $ => seq(
      'switch',
      field('subject', $._expression),
      '{',
      repeat($.switch_arm),
      '}',
    ),

    // SwitchArm
    switch_arm: $ => seq(
      field('pattern', $._pattern),
      '=>',
      field('node', $.node),
      optional(','),
    ),

    for_node: $ => seq(
      'for',
      field('variable', $._name),
      'in',
      field('queue', $._expression),
      field('body', $.node_block),
    ),

    // Pattern
    _pattern: $ => choice($.wildcard, $._literal, $._path),

    wildcard: _ => '_',

    // Modifier
    modifier: $ => choice(
      seq('skip_if', field('condition', $._expression)),
      seq('success_if', field('condition', $._expression)),
      seq('failure_if', field('condition', $._expression)),
      seq('while', field('condition', $._expression)),
      seq('on_success', field('body', $.block)),
      seq('on_failure', field('body', $.block)),
      seq('on_halted', field('body', $.block)),
      seq('after', field('body', $.block)),
    ),

    // ArgList
    argument_list: $ => seq(
      '(',
      repeat(seq($.argument, ',')),
      optional(choice($.argument, seq($.rest, optional(',')))),
      ')',
    ),

    // `..`: the remaining ports keep their defaults.
    rest: _ => '..',

    // Arg
    argument: $ => seq(
      optional(seq(field('name', $._arg_name), ':')),
      field('value', $._expression),
    ),

    // ------------------------------------------------------------ statements

    // Block and StmtList
    block: $ => seq(
      '{',
      repeat(choice(seq($._simple_statement, ';'), $.if_statement, ';')),
      optional($._simple_statement),
      '}',
    ),

    // SimpleStmt
    _simple_statement: $ => choice($.assignment, $.expression_statement),

    assignment: $ => seq(
      field('left', $._expression),
      field('operator', choice('=', '+=', '-=', '*=', '/=')),
      field('right', $._expression),
    ),

    expression_statement: $ => $._expression,

    // IfStmt
    if_statement: $ => seq(
      'if',
      field('condition', $._expression),
      field('consequence', $.block),
      optional(seq('else', field('alternative', choice($.block, $.if_statement)))),
    ),

    // ------------------------------------------------------------ expressions

    _expression: $ => choice(
      $.conditional_expression,
      $.binary_expression,
      $.unary_expression,
      $.call_expression,
      $.field_expression,
      $.index_expression,
      $._literal,
      $._path,
      $.root_identifier,
      $.parenthesized_expression,
      $.tuple_expression,
      $.list_expression,
    ),

    // `c ? a : b`: the condition is an OrExpr; both branches are full expressions.
    conditional_expression: $ => prec.right(PREC.ternary, seq(
      field('condition', $._expression),
      '?',
      field('consequence', $._expression),
      ':',
      field('alternative', $._expression),
    )),

    // The tiers OrExpr .. MulExpr, all left-associative.
    binary_expression: $ => {
      /** @type {[number, RuleOrLiteral][]} */
      const table = [
        [PREC.or, choice('or', '||')],
        [PREC.and, choice('and', '&&')],
        [PREC.compare, choice('==', '!=', '<', '<=', '>', '>=')],
        [PREC.bit_or, choice('|', '^')],
        [PREC.bit_and, '&'],
        [PREC.add, choice('+', '-')],
        [PREC.multiply, choice('*', '/')],
      ];
      return choice(...table.map(([p, op]) => prec.left(p, seq(
        field('left', $._expression),
        field('operator', op),
        field('right', $._expression),
      ))));
    },

    // UnaryExpr
    unary_expression: $ => prec(PREC.unary, seq(
      field('operator', choice('-', '!', 'not', '~')),
      field('operand', $._expression),
    )),

    // Postfix
    call_expression: $ => prec(PREC.postfix, seq(
      field('function', $._expression),
      field('arguments', $.argument_list),
    )),

    field_expression: $ => prec(PREC.postfix, seq(
      field('value', $._expression),
      '.',
      field('field', $._name),
    )),

    index_expression: $ => prec(PREC.postfix, seq(
      field('value', $._expression),
      '[',
      field('index', $._expression),
      ']',
    )),

    // Literal
    _literal: $ => choice($.number, $.string, $.boolean),

    boolean: _ => choice('true', 'false'),

    // Decimal with optional fraction, exponent and unit (`9ms`, `2kHz`, `1e-3`), or
    // hexadecimal (`0x48`). Like the lexer, any letters after the digits belong to the number
    // (an unknown unit is the checker's error, not a second token).
    number: _ => token(seq(
      /[0-9][0-9_]*/,
      optional(/\.[0-9][0-9_]*/),
      optional(/[eE][+-]?[0-9][0-9_]*/),
      optional(/[A-Za-z_][A-Za-z0-9_]*/),
    )),

    string: $ => seq(
      '"',
      repeat(choice($.string_content, $.escape_sequence)),
      token.immediate('"'),
    ),

    string_content: _ => token.immediate(prec(1, /[^"\\\n]+/)),

    escape_sequence: _ => token.immediate(seq(
      '\\',
      choice(/[ntr0\\"']/, /u\{[0-9A-Fa-f]{1,6}\}/),
    )),

    parenthesized_expression: $ => seq('(', $._expression, ')'),

    // `(a, b)`, `(a,)`
    tuple_expression: $ => seq('(', $._expression, ',', comma($._expression), ')'),

    list_expression: $ => seq('[', comma($._expression), ']'),

    // ------------------------------------------------------------ agents

    // MemberKind
    _member: $ => choice(
      $.rate_declaration,
      $.var_declaration,
      $.let_declaration,
      $.sensor_declaration,
      $.event_declaration,
      $.actuator_declaration,
      $.hormone_declaration,
      $.update_handler,
      $.event_handler,
      $.personality_declaration,
      $.emotions_declaration,
      $.tendencies_declaration,
      $.drive_declaration,
      $.memory_declaration,
      $.behavior_declaration,
      $.behaviors_declaration,
      $.recruitment_declaration,
      $.component_declaration,
      $.main_tree,
    ),

    rate_declaration: $ => seq(
      repeat($.attribute),
      'rate',
      field('value', $._expression),
      ';',
    ),

    var_declaration: $ => seq(
      repeat($.attribute),
      'var',
      field('name', $._name),
      optional(seq(':', field('type', $._type))),
      optional(seq('=', field('value', $._expression))),
      ';',
    ),

    let_declaration: $ => seq(
      repeat($.attribute),
      'let',
      field('name', $._name),
      optional(seq(':', field('type', $._type))),
      '=',
      field('value', $._expression),
      ';',
    ),

    sensor_declaration: $ => seq(
      repeat($.attribute),
      'sensor',
      field('name', $._name),
      optional(seq(':', field('type', $._type))),
      '=',
      field('source', $._expression),
      ';',
    ),

    event_declaration: $ => seq(
      repeat($.attribute),
      'event',
      field('name', $._name),
      optional(seq('=', field('source', $._expression))),
      ';',
    ),

    actuator_declaration: $ => seq(
      repeat($.attribute),
      'actuator',
      field('name', $._name),
      optional(seq(':', field('type', $._type))),
      '=',
      field('source', $._expression),
      ';',
    ),

    hormone_declaration: $ => seq(
      repeat($.attribute),
      'hormone',
      field('name', $._name),
      '=',
      field('value', $._expression),
      choice(';', field('settings', $.setting_block)),
    ),

    update_handler: $ => seq(
      repeat($.attribute),
      'update',
      field('body', $.block),
    ),

    // `on loud_noise { .. }`, `on failed(lidar) { .. }`
    event_handler: $ => seq(
      repeat($.attribute),
      'on',
      field('event', $._expression),
      field('body', $.block),
    ),

    personality_declaration: $ => seq(
      repeat($.attribute),
      'personality',
      field('body', $.field_block),
    ),

    emotions_declaration: $ => seq(
      repeat($.attribute),
      'emotions',
      field('name', $._name),
      ':',
      field('type', $._type),
      '=',
      field('initial', $._name),
      field('body', $.setting_block),
    ),

    tendencies_declaration: $ => seq(
      repeat($.attribute),
      'tendencies',
      field('machine', $._name),
      '{',
      repeat($.tendency_arm),
      '}',
    ),

    // TendencyArm
    tendency_arm: $ => seq(
      field('pattern', $._pattern),
      '=>',
      comma1(field('target', $.tendency_target)),
      ';',
    ),

    // TendencyTarget
    tendency_target: $ => seq(
      field('name', $._path),
      optional(field('arguments', $.argument_list)),
    ),

    drive_declaration: $ => seq(
      repeat($.attribute),
      'drive',
      field('name', $._name),
      ':',
      field('type', $._type),
      '=',
      field('initial', $._name),
      '{',
      repeat(choice($.drive_rule, $.intention_declaration)),
      '}',
    ),

    // DriveEntry::Rule
    drive_rule: $ => seq(
      field('target', $._name),
      'when',
      field('guard', $._expression),
      ';',
    ),

    // DriveEntry::Intention
    intention_declaration: $ => seq(
      'intention',
      field('name', $._name),
      optional(seq(':', field('type', $._type))),
      '{',
      repeat($.intention_arm),
      '}',
    ),

    // IntentionArm
    intention_arm: $ => seq(
      comma1(field('pattern', $._pattern)),
      '=>',
      field('value', $._expression),
      ';',
    ),

    memory_declaration: $ => seq(
      repeat($.attribute),
      'memory',
      field('name', $._name),
      optional(seq('keyed', 'by', field('key', $._expression))),
      field('body', $.setting_block),
    ),

    behaviors_declaration: $ => seq(
      repeat($.attribute),
      'behaviors',
      field('body', $.setting_block),
    ),

    recruitment_declaration: $ => seq(
      repeat($.attribute),
      'recruitment',
      field('name', $._name),
      field('body', $.setting_block),
    ),

    // `main { .. }`: the tree the agent ticks.
    main_tree: $ => seq(
      repeat($.attribute),
      'main',
      field('body', $.node_block),
    ),

    // ------------------------------------------------------------ settings blocks

    // SettingBlock
    setting_block: $ => seq('{', repeat(choice($.setting, $.transition)), '}'),

    // SettingEntry::Transition
    transition: $ => seq(
      field('from', $._name),
      '->',
      field('to', $._name),
      'when',
      field('guard', $._expression),
      ';',
    ),

    // Setting and SettingHead:
    //   key (args (Name Expr)*)? ("=" Expr)? (":" Expr)? (";" | SettingBlock)
    setting: $ => seq(
      field('key', $._name),
      optional(seq(
        comma1(field('argument', $._expression)),
        repeat(field('pair', $.setting_pair)),
      )),
      optional(seq('=', field('assign', $._expression))),
      optional(seq(':', field('value', $._expression))),
      choice(';', field('body', $.setting_block)),
    ),

    // `x 5`, `cell 24cm`, `per s`, `on Navigator`
    setting_pair: $ => seq(field('name', $._name), field('value', $._expression)),

    // ------------------------------------------------------------ comments

    // `//` comments, but not `///` doc comments (`////` is a plain comment again).
    line_comment: _ => token(/\/\/([^\/\n][^\n]*|\/\/[^\n]*)?/),

    // `/// ...`: documents the next declaration.
    doc_comment: _ => token(/\/\/\/([^\/\n][^\n]*)?/),
  },
});
