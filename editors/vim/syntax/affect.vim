" Vim syntax file for the affect language (.affect).
"
" Hard keywords (never names) are `syn keyword` items. Soft keywords start declarations and
" members but are names everywhere else, so they are matched only where a declaration or
" member starts: at the start of a statement and followed by what the declaration needs.
" The keyword lists and the built-in node list are checked against the compiler by
" tests/editor_keywords.rs: keep each list between its BEGIN/END markers.

if exists('b:current_syntax')
  finish
endif

let s:cpo_save = &cpo
set cpo&vim

syn case match
syn iskeyword @,48-57,_

" ------------------------------------------------------------------ hard keywords

" BEGIN HARD_KEYWORDS
syn keyword affectImport use
syn keyword affectStorage enum nextgroup=affectTypeName skipwhite
syn keyword affectStorage const var let nextgroup=affectVariableName skipwhite
syn keyword affectBoolean true false
syn keyword affectOperatorWord and or not
syn keyword affectPortDirection in out inout
syn keyword affectNodeKeyword do check switch
syn keyword affectRepeat for
syn keyword affectConditional if else when
syn keyword affectModifier skip_if success_if failure_if while on_success on_failure on_halted after
" END HARD_KEYWORDS

" ------------------------------------------------------------------ names and operators

syn match affectOperator "[-+*/=<>!&|^~?]"
syn match affectOperator "\.\."
syn match affectArrow "=>\|->"
syn match affectDelimiter "[,;:]"
syn match affectDelimiter "::"

" A variant after `::` (`Drive::Explore`); a call (`f::g(`) and a further path segment
" (`a::b::C`), defined below, win. Not the module of a `use`.
syn match affectVariant "\%(::\s*\)\@<=\%(^\s*use\>.*\)\@<!\h\w*"

" `name(`: a node or a function call.
syn match affectCall "\%(\h\w*\|`[^`]*`\)\ze\s*("
syn match affectNamespace "\h\w*\ze\s*::"
syn match affectRoot "@\h\w*"
syn match affectQuoted "`[^`]*`"

" `name:` where an argument or a port is named.
syn match affectParam "\%(\%([(,]\|\<\%(in\|out\|inout\)\)\s*\)\@<=\%(\h\w*\|`[^`]*`\)\ze\s*:\%(:\)\@!"

" The type after `name:` in ports and declarations.
syn match affectType "\%(\<\%(in\|out\|inout\|var\|let\|const\|sensor\|actuator\|emotions\|drive\|intention\)\s\+\%(\h\w*\|`[^`]*`\)\s*:\s*\%(\[\s*\)*\)\@<=\h\w*\%(::\h\w*\)*"

syn region affectAttribute matchgroup=affectAttributeDelimiter start="#\s*\[" end="\]" contains=affectString,affectNumber,affectBoolean,affectOperator,affectRoot,affectQuoted

" ------------------------------------------------------------------ soft keywords

" Where a declaration or member may start: the start of a line or after `{`, `}`, `;`, `]`.
let s:stmt = '\%(\%(^\|[{};\]]\)\s*\)\@<='
let s:name = '\%(\h\w*\|`[^`]*`\)'

" BEGIN SOFT_KEYWORDS
" Declarations of trees and leaves: the name is a function.
let s:decl_function = ['action', 'condition', 'control', 'decorator', 'tree']
" Declarations of types and settings blocks: the name is a type.
let s:decl_type = ['emotion', 'tendency', 'agent', 'world', 'component', 'behavior', 'recruitment']
" Members that declare a variable, a device or a machine.
let s:decl_variable = ['sensor', 'event', 'actuator', 'hormone', 'emotions', 'tendencies', 'drive',
      \ 'intention', 'memory']
" Members followed by a block or a value.
let s:member = ['main', 'rate', 'update', 'on', 'personality', 'behaviors']
" `memory m keyed by key`
let s:keyed_by = ['keyed', 'by']
" END SOFT_KEYWORDS

execute 'syn match affectDeclKeyword "' . s:stmt . '\<\%(' . join(s:decl_function, '\|') . '\)\>\ze\s\+' . s:name . '" nextgroup=affectFunctionName skipwhite'
execute 'syn match affectDeclKeyword "' . s:stmt . '\<\%(' . join(s:decl_type, '\|') . '\)\>\ze\s\+' . s:name . '" nextgroup=affectTypeName skipwhite'
execute 'syn match affectDeclKeyword "' . s:stmt . '\<\%(' . join(s:decl_variable, '\|') . '\)\>\ze\s\+\%(when\>\)\@!' . s:name . '" nextgroup=affectVariableName skipwhite'
" `main tree`, `main { .. }`, `rate 10Hz;`, `update { .. }`, `on event { .. }`,
" `personality { .. }`, `behaviors { .. }`
execute 'syn match affectDeclKeyword "' . s:stmt . '\<\%(' . join(s:member, '\|') . '\)\>\ze\s*\%([^-+*/=<>!&|^?.,;:)\] \t]\|$\)"'
execute 'syn match affectDeclKeyword "\%(\<memory\s\+' . s:name . '\s\+\)\@<=\<' . join(s:keyed_by, '\s\+') . '\>"'

syn match affectFunctionName "\%(\h\w*\|`[^`]*`\)" contained
syn match affectTypeName "\%(\h\w*\|`[^`]*`\)" contained
syn match affectVariableName "\%(\h\w*\|`[^`]*`\)" contained

" ------------------------------------------------------------------ built-in nodes

" Built-in nodes (compiler/src/builtins.rs) where a node stands: at the start of a line, after
" `{`, `}`, `)`, `:`, `,` or `=>`, and not followed by `:`, `::`, `.` or `=`.
" BEGIN BUILTINS
let s:builtins = [
      \ 'sequence', 'sequence_with_memory', 'reactive_sequence', 'async_sequence',
      \ 'fallback', 'reactive_fallback', 'async_fallback',
      \ 'parallel', 'parallel_all',
      \ 'if_then_else', 'while_do_else', 'try_catch',
      \ 'invert', 'force_success', 'force_failure',
      \ 'repeat', 'retry', 'keep_running_until_failure',
      \ 'timeout', 'delay', 'run_once', 'precondition',
      \ 'skip_unless_updated', 'wait_update', 'loop', 'cooldown',
      \ 'succeed', 'fail', 'sleep',
      \ 'set_blackboard', 'unset_blackboard', 'was_updated', 'blackboard_check',
      \ ]
" END BUILTINS
execute 'syn match affectBuiltin "\%(\%(^\|[{}):,]\|=>\)\s*\)\@<=\<\%(' . join(s:builtins, '\|')
      \ . '\)\>\%(\s*\%(:\|\.\|=[^=>]\)\)\@!"'
" `tendencies(machine)` runs an agent's action-tendency table.
syn match affectBuiltin "\%(\%(^\|[{}):,]\|=>\)\s*\)\@<=\<tendencies\ze\s*("

" ------------------------------------------------------------------ worlds and emotions

" World verbs, as a setting key (`spawn UAV at (0, 0);`) or in an event's pairs (`at 40s raise
" loud_noise on Navigator;`), followed by a name (compiler/src/ir/world/lower.rs, WORLD_VERBS).
" BEGIN WORLD_VERBS
let s:world_verbs = ['spawn', 'raise', 'fail', 'recover', 'send']
" END WORLD_VERBS
execute 'syn match affectWorldVerb "\<\%(' . join(s:world_verbs, '\|') . '\)\>\ze\s\+' . s:name . '"'

" The words an emotion's AKR components take, as a field's value (`valence: positive,`):
" compiler/src/sema/vocab.rs, AKR_COMPONENTS and AGENCY_WORDS.
" BEGIN AKR_VALUES
let s:akr_values = [
      \ 'positive', 'negative', 'either',
      \ 'very_low', 'low', 'medium', 'high', 'very_high',
      \ 'minutes', 'days', 'lifetime',
      \ 'event', 'global',
      \ 'self', 'other',
      \ 'happy', 'sad', 'surprised', 'disgusted', 'angry', 'fearful', 'neutral',
      \ ]
" END AKR_VALUES
execute 'syn match affectAkrValue "\%(\%(^\|[{,]\)\s*\h\w*\s*:\s*\)\@<=\<\%('
      \ . join(s:akr_values, '\|') . '\)\>\ze\s*\%(,\|}\|$\|//\)"'

" ------------------------------------------------------------------ comments, literals, labels

" Defined last: of the items that match at the same column, Vim uses the last defined, and
" `//`, `/*` and `"` must win over the operators and names above.

" Comments.
syn keyword affectTodo contained TODO FIXME XXX NOTE
syn match affectLineComment "//.*$" contains=affectTodo,@Spell
syn match affectDocComment "///\%(/\)\@!.*$" contains=affectTodo,@Spell
" Block comments nest: `/* a /* b */ c */` is one comment.
syn region affectBlockComment start="/\*" end="\*/" contains=affectBlockComment,affectTodo,@Spell fold

" Literals.
syn match affectEscapeError "\\." contained
syn match affectEscape +\\\%([ntr0\\"']\|u{\x\{1,6}}\)+ contained
syn region affectString start=+"+ skip=+\\\\\|\\"+ end=+"+ end=+$+ contains=affectEscape,affectEscapeError,@Spell

" A number; letters after it are its unit (`9ms`, `2kHz`), unknown letters an error.
syn match affectNumber "\<\d[0-9_]*\%(\.\d[0-9_]*\)\=\%([eE][+-]\=\d[0-9_]*\)\=" nextgroup=affectUnit,affectUnitError
syn match affectNumber "\<0[xX][0-9A-Fa-f_]\+\>"
syn match affectUnitError "\h\w*" contained
" BEGIN UNITS
syn match affectUnit "\%(kHz\|Hz\|min\|ms\|mm\|cm\|deg\|ft\|m\|s\|h\)\>" contained
" END UNITS

" A label before a node, or a field at the start of a line.
syn match affectLabel +\%(\%(^\|{\)\s*\)\@<=\%(\h\w*\|`[^`]*`\|"\%([^"\\]\|\\.\)*"\)\ze\s*:\%(:\)\@!+

" ------------------------------------------------------------------ folding

syn region affectBlock start="{" end="}" transparent fold

" ------------------------------------------------------------------ links

hi def link affectTodo               Todo
hi def link affectLineComment        Comment
hi def link affectBlockComment       Comment
hi def link affectDocComment         SpecialComment
hi def link affectString             String
hi def link affectEscape             SpecialChar
hi def link affectEscapeError        Error
hi def link affectNumber             Number
hi def link affectUnit               Special
hi def link affectUnitError          Error
hi def link affectImport             Include
hi def link affectStorage            StorageClass
hi def link affectBoolean            Boolean
hi def link affectOperatorWord       Operator
hi def link affectPortDirection      StorageClass
hi def link affectNodeKeyword         Statement
hi def link affectRepeat             Repeat
hi def link affectConditional        Conditional
hi def link affectModifier           Keyword
hi def link affectDeclKeyword        Structure
hi def link affectFunctionName       Function
hi def link affectTypeName           Type
hi def link affectVariableName       Identifier
hi def link affectBuiltin            Special
hi def link affectCall               Function
hi def link affectNamespace          Include
hi def link affectVariant            Constant
hi def link affectWorldVerb          Statement
hi def link affectAkrValue           Constant
hi def link affectRoot               Identifier
hi def link affectQuoted             Identifier
hi def link affectParam              Identifier
hi def link affectLabel              Label
hi def link affectType               Type
hi def link affectOperator           Operator
hi def link affectArrow              Operator
hi def link affectDelimiter          Delimiter
hi def link affectAttribute          PreProc
hi def link affectAttributeDelimiter PreProc

let b:current_syntax = 'affect'

let &cpo = s:cpo_save
unlet s:cpo_save
