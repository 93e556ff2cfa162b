" Vim filetype plugin for the affect language: comments, indentation basics.
if exists('b:did_ftplugin')
  finish
endif
let b:did_ftplugin = 1

let s:cpo_save = &cpo
set cpo&vim

" `gc`-style commenting and `gq` formatting of comments, doc comments included.
setlocal commentstring=//\ %s
setlocal comments=s1:/*,mb:*,ex:*/,:///,://
setlocal formatoptions-=t formatoptions+=croql

" The formatter (`affect fmt`) indents with four spaces.
setlocal expandtab shiftwidth=4 softtabstop=4
setlocal suffixesadd=.affect

" Indent after an opening bracket, outdent a line that starts with a closing one.
setlocal autoindent
setlocal indentexpr=AffectIndent(v:lnum)
setlocal indentkeys=0{,0},0),0],!^F,o,O,e

let b:undo_ftplugin = 'setlocal commentstring< comments< formatoptions< expandtab< shiftwidth<'
      \ . ' softtabstop< suffixesadd< autoindent< indentexpr< indentkeys<'

if exists('*AffectIndent')
  let &cpo = s:cpo_save
  unlet s:cpo_save
  finish
endif

" The line without strings and comments, for counting brackets.
function! s:Code(lnum) abort
  let line = getline(a:lnum)
  let line = substitute(line, '"\%([^"\\]\|\\.\)*"', '""', 'g')
  let line = substitute(line, '`[^`]*`', '``', 'g')
  let line = substitute(line, '//.*$', '', '')
  let line = substitute(line, '/\*.\{-}\*/', '', 'g')
  return line
endfunction

function! AffectIndent(lnum) abort
  let prev = prevnonblank(a:lnum - 1)
  if prev == 0
    return 0
  endif
  let ind = indent(prev)
  let code = s:Code(prev)
  " Brackets the previous line opened and did not close.
  let opened = len(substitute(code, '[^{([]', '', 'g'))
  let closed = len(substitute(code, '[^})\]]', '', 'g'))
  " A line that starts with closers was already outdented for them.
  let leading = len(substitute(matchstr(code, '^\s*[})\]]*'), '\s', '', 'g'))
  let ind += shiftwidth() * ((opened - (closed - leading)) > 0 ? 1 : 0)
  " The current line starts with a closer: outdent.
  if getline(a:lnum) =~# '^\s*[})\]]'
    let ind -= shiftwidth()
  endif
  return ind < 0 ? 0 : ind
endfunction

let &cpo = s:cpo_save
unlet s:cpo_save
