; Highlights for affect.
;
; When two patterns capture the same node, the later one wins (tree-sitter CLI and Neovim
; agree on this). The generic fallbacks come first and also have a lower priority, so every
; more specific pattern wins over them in any editor.

; ------------------------------------------------------------------ fallbacks (first, with a lower priority: any later pattern wins)

((identifier) @variable
  (#set! priority 95))

((quoted_identifier) @variable
  (#set! priority 95))

; ------------------------------------------------------------------ comments and literals

(line_comment) @comment
(block_comment) @comment
(doc_comment) @comment.documentation

(string) @string
(escape_sequence) @string.escape
(number) @number
(boolean
  [
    "true"
    "false"
  ] @boolean)

; ------------------------------------------------------------------ keywords

"use" @keyword.import

[
  "const"
  "enum"
  "var"
  "let"
] @keyword

; Declaration keywords (soft keywords: when they name something they are identifiers).
[
  "action"
  "condition"
  "control"
  "decorator"
  "tree"
  "agent"
  "emotion"
  "tendency"
  "world"
  "component"
  "behavior"
  "behaviors"
  "rate"
  "sensor"
  "event"
  "actuator"
  "hormone"
  "update"
  "on"
  "personality"
  "emotions"
  "tendencies"
  "drive"
  "intention"
  "memory"
  "keyed"
  "by"
  "recruitment"
] @keyword

(tree_declaration
  "main" @keyword.modifier)

(main_tree
  "main" @keyword)

[
  "do"
  "check"
] @keyword

[
  "if"
  "else"
  "switch"
  "when"
] @keyword.conditional

"for" @keyword.repeat

(for_node
  "in" @keyword.repeat)

(range_type
  "in" @keyword.operator)

(port_direction
  [
    "in"
    "out"
    "inout"
  ] @keyword.modifier)

; Node modifiers: pre- and post-conditions.
(modifier
  [
    "skip_if"
    "success_if"
    "failure_if"
    "while"
    "on_success"
    "on_failure"
    "on_halted"
    "after"
  ] @keyword.modifier)

[
  "and"
  "or"
  "not"
] @keyword.operator

; ------------------------------------------------------------------ declarations

(tree_declaration
  name: (_) @function)

(leaf_declaration
  name: (_) @function)

[
  (agent_declaration
    name: (_) @type)
  (agent_declaration
    base: (_) @type)
  (emotion_declaration
    name: (_) @type)
  (tendency_declaration
    name: (_) @type)
  (enum_declaration
    name: (_) @type)
  (world_declaration
    name: (_) @type)
  (behavior_declaration
    name: (_) @type)
  (component_declaration
    name: (_) @type)
  (recruitment_declaration
    name: (_) @type)
]

(enum_variant
  name: (_) @constant)

(const_declaration
  name: (_) @constant)

[
  (var_declaration
    name: (_) @variable)
  (local_variable
    name: (_) @variable)
  (let_declaration
    name: (_) @variable)
  (sensor_declaration
    name: (_) @variable)
  (event_declaration
    name: (_) @variable)
  (actuator_declaration
    name: (_) @variable)
  (hormone_declaration
    name: (_) @variable)
  (memory_declaration
    name: (_) @variable)
  (emotions_declaration
    name: (_) @variable)
  (drive_declaration
    name: (_) @variable)
  (intention_declaration
    name: (_) @variable)
  (tendencies_declaration
    machine: (_) @variable)
  (for_node
    variable: (_) @variable)
]

; States of machines and drives.
[
  (emotions_declaration
    initial: (_) @constant)
  (drive_declaration
    initial: (_) @constant)
  (transition
    from: (_) @constant)
  (transition
    to: (_) @constant)
  (drive_rule
    target: (_) @constant)
]

(port
  name: (_) @variable.parameter)

(argument
  name: (_) @variable.parameter)

(record_field
  key: (_) @property)

(setting
  key: (_) @property)

(setting_pair
  name: (_) @property)

(attribute
  name: (_) @attribute)

; Variants after `::` (`Drive::Explore`); the patterns for types, calls and `use` below win.
(scoped_identifier
  name: (_) @constant)

(use_declaration
  target: (scoped_identifier
    name: (_) @module))

; World verbs, as setting keys (`spawn UAV at (0, 0);`) and in event pairs (`at 40s raise
; loud_noise on Navigator;`): compiler/src/ir/world/lower.rs, WORLD_VERBS.
; BEGIN WORLD_VERBS
(world_declaration
  body: (setting_block
    (setting
      key: (identifier) @keyword
      (#any-of? @keyword "spawn" "raise" "fail" "recover" "send"))))

(world_declaration
  body: (setting_block
    (setting
      pair: (setting_pair
        name: (identifier) @keyword
        (#any-of? @keyword "spawn" "raise" "fail" "recover" "send")))))
; END WORLD_VERBS

; The words an emotion's AKR components take (`valence: positive`): compiler/src/sema/vocab.rs,
; AKR_COMPONENTS and AGENCY_WORDS.
; BEGIN AKR_VALUES
(emotion_declaration
  body: (field_block
    (record_field
      value: (identifier) @constant.builtin
      (#any-of? @constant.builtin
        "positive" "negative" "either" "very_low" "low" "medium" "high" "very_high" "minutes" "days" "lifetime" "event" "global" "self" "other" "happy" "sad" "surprised" "disgusted" "angry" "fearful" "neutral"))))
; END AKR_VALUES

(attribute
  "#" @punctuation.special)

(label
  [
    (identifier)
    (quoted_identifier)
    (string)
  ] @label)

; ------------------------------------------------------------------ types

(type_name
  (identifier) @type)

(type_name
  (quoted_identifier) @type)

(type_name
  (scoped_identifier
    name: (_) @type))

; ------------------------------------------------------------------ tree nodes

; Built-in nodes (compiler/src/builtins.rs). The same list is in the TextMate and Vim grammars;
; tests/editor_keywords.rs checks that the four agree.
; BEGIN BUILTINS
(call_node
  name: (identifier) @function.builtin
  (#any-of? @function.builtin
    "sequence" "sequence_with_memory" "reactive_sequence" "async_sequence"
    "fallback" "reactive_fallback" "async_fallback"
    "parallel" "parallel_all"
    "if_then_else" "while_do_else" "try_catch"
    "invert" "force_success" "force_failure"
    "repeat" "retry" "keep_running_until_failure"
    "timeout" "delay" "run_once" "precondition"
    "skip_unless_updated" "wait_update" "loop" "cooldown"
    "succeed" "fail" "sleep"
    "set_blackboard" "unset_blackboard" "was_updated" "blackboard_check"))
; END BUILTINS

(call_node
  name: (identifier) @function.call
  (#not-any-of? @function.call
    "sequence" "sequence_with_memory" "reactive_sequence" "async_sequence"
    "fallback" "reactive_fallback" "async_fallback"
    "parallel" "parallel_all"
    "if_then_else" "while_do_else" "try_catch"
    "invert" "force_success" "force_failure"
    "repeat" "retry" "keep_running_until_failure"
    "timeout" "delay" "run_once" "precondition"
    "skip_unless_updated" "wait_update" "loop" "cooldown"
    "succeed" "fail" "sleep"
    "set_blackboard" "unset_blackboard" "was_updated" "blackboard_check"))

; `tendencies(machine)` runs an agent's action-tendency table.
(call_node
  name: (identifier) @function.builtin
  (#eq? @function.builtin "tendencies"))

(call_node
  name: (quoted_identifier) @function.call)

(call_node
  name: (scoped_identifier
    name: (_) @function.call))

(tendency_target
  name: [
    (identifier)
    (quoted_identifier)
  ] @function.call)

(tendency_target
  name: (scoped_identifier
    name: (_) @function.call))

(wildcard) @character.special

(rest) @punctuation.special

(range_type
  ".." @operator)

; ------------------------------------------------------------------ expressions

(field_expression
  field: (_) @property)

(call_expression
  function: [
    (identifier)
    (quoted_identifier)
  ] @function.call)

(call_expression
  function: (field_expression
    field: (_) @function.method.call))

(call_expression
  function: (scoped_identifier
    name: (_) @function.call))

(root_identifier) @variable.builtin

(scoped_identifier
  path: (identifier) @module)

; ------------------------------------------------------------------ operators and punctuation

[
  "="
  "+="
  "-="
  "*="
  "/="
  "=="
  "!="
  "<"
  "<="
  ">"
  ">="
  "+"
  "-"
  "*"
  "/"
  "!"
  "~"
  "&"
  "|"
  "^"
  "&&"
  "||"
  "?"
  "->"
  "=>"
] @operator

[
  "("
  ")"
  "["
  "]"
  "{"
  "}"
] @punctuation.bracket

[
  ","
  ";"
  ":"
  "::"
  "."
] @punctuation.delimiter
