; Scopes, definitions and references for affect.

; ------------------------------------------------------------------ scopes

[
  (source_file)
  (tree_declaration)
  (tree_body)
  (agent_body)
  (node_block)
  (block)
  (for_node)
  (drive_declaration)
  (setting_block)
] @local.scope

; ------------------------------------------------------------------ definitions

(tree_declaration
  name: (_) @local.definition)

(leaf_declaration
  name: (_) @local.definition)

(const_declaration
  name: (_) @local.definition)

(enum_declaration
  name: (_) @local.definition)

(enum_variant
  name: (_) @local.definition)

(emotion_declaration
  name: (_) @local.definition)

(tendency_declaration
  name: (_) @local.definition)

(agent_declaration
  name: (_) @local.definition)

(world_declaration
  name: (_) @local.definition)

(behavior_declaration
  name: (_) @local.definition)

(component_declaration
  name: (_) @local.definition)

(port
  name: (_) @local.definition)

(var_declaration
  name: (_) @local.definition)

(local_variable
  name: (_) @local.definition)

(let_declaration
  name: (_) @local.definition)

(sensor_declaration
  name: (_) @local.definition)

(event_declaration
  name: (_) @local.definition)

(actuator_declaration
  name: (_) @local.definition)

(hormone_declaration
  name: (_) @local.definition)

(emotions_declaration
  name: (_) @local.definition)

(drive_declaration
  name: (_) @local.definition)

(intention_declaration
  name: (_) @local.definition)

(memory_declaration
  name: (_) @local.definition)

(recruitment_declaration
  name: (_) @local.definition)

(for_node
  variable: (_) @local.definition)

; ------------------------------------------------------------------ references

(identifier) @local.reference

(quoted_identifier) @local.reference
