" Writes the syntax group of every non-blank token of the current buffer to a file: one line
" per token, `line:column text group highlight`, where `group` is the syntax item
" (`affectString`) and `highlight` the highlight group it finally links to
" (synIDattr(synIDtrans(..)): `String`). A token is a run of non-blank characters that all
" have the same syntax item. Used by editors/vim/test.sh.
function! DumpSyntax(outfile) abort
  let out = []
  for lnum in range(1, line('$'))
    let line = getline(lnum)
    let col = 1
    let n = strlen(line)
    while col <= n
      if line[col - 1] =~# '\s'
        let col += 1
        continue
      endif
      let id = synID(lnum, col, 1)
      let group = synIDattr(id, 'name')
      let highlight = synIDattr(synIDtrans(id), 'name')
      let start = col
      while col <= n && line[col - 1] !~# '\s'
            \ && synIDattr(synID(lnum, col, 1), 'name') ==# group
        let col += 1
      endwhile
      call add(out, printf('%d:%d %s %s %s', lnum, start, strpart(line, start - 1, col - start),
            \ group ==# '' ? '-' : group, highlight ==# '' ? '-' : highlight))
    endwhile
  endfor
  call writefile(out, a:outfile)
endfunction
