; Foldable regions for affect.

[
  (enum_body)
  (port_list)
  (field_block)
  (agent_body)
  (tree_body)
  (node_block)
  (block)
  (setting_block)
  (argument_list)
  (switch_node)
  (tendencies_declaration)
  (drive_declaration)
  (intention_declaration)
  (list_expression)
  (block_comment)
] @fold
