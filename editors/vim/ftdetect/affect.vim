" Vim filetype detection for the affect language.
autocmd BufRead,BufNewFile *.affect setfiletype affect
