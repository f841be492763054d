" Vim syntax file
" Language:	semantic adaptation scripts (.sa), as sacc reads them
" Maintainer:	the sacc authors (editors/README.md)
"
" The reserved words are grammar/sa_lexer.re's keyword() list, every one in a `syn keyword`
" line below (tests/editors/run.sh checks that the two sets agree).  Words that are keywords
" only where they stand (model exchange, solver, isolated, fmi, factor, map, of) are
" matched in their place, since a port may be called so.

if exists("b:current_syntax")
  finish
endif
let s:cpo_save = &cpo
set cpo&vim

syn case match
" Scripts are short: parse from the top, so that a block comment opened far above is seen.
syn sync fromstart

" ---- operators: first, so that what starts with the same character and comes later wins
" (`//`, `/*`, `^name`) ----
syn match   saOperator		"-->\|->\|<-\|:=\|==\|!=\|<=\|>=\|>!\|<!\|\.\.\|[-+*/<>=^]"

" ---- comments, strings, numbers ----
syn keyword saTodo		contained TODO FIXME XXX NOTE
syn match   saLineComment	"//.*$" contains=saTodo,@Spell
syn region  saBlockComment	start="/\*" end="\*/" contains=saTodo,@Spell
syn match   saEscape		contained "\\."
syn region  saString		start=+"+ skip=+\\.+ end=+"+ end=+$+ oneline contains=saEscape
syn region  saString		start=+'+ skip=+\\.+ end=+'+ end=+$+ oneline contains=saEscape
" (a Real after the integer, so that it wins where both start: `1.5`, but `0 .. N`)
syn match   saNumber		"\<\d\+\>"
syn match   saFloat		"\<\d\+\.\%(\.\)\@!\d*\%([eE][+-]\=\d\+\)\=\|\%(\<\|\.\)\@<!\.\d\+\%([eE][+-]\=\d\+\)\=\|\<\d\+[eE][+-]\=\d\+\>"

" ---- reserved words ----
syn keyword saConditional	if else
syn keyword saStatement		return break otherwise
syn keyword saOperatorWord	not and or
syn keyword saBoolean		true false
syn keyword saType		Real Integer String Bool
syn keyword saStorageClass	reactive delayed moore mealy
syn keyword saKeyVar		H h t dt e MAX signal now prev
syn keyword saFunction		do_step save_state rollback discard is_close is_set
syn keyword saFunction		get_next_time_step elapsed last_execution_time
syn keyword saFunction		floor ceil round max min abs
syn keyword saKeyword		module import fmu inner semantic adaptation at for coupled as
syn keyword saKeyword		composed without master input output ports with param control
syn keyword saKeyword		in out var rules
syn keyword saDeclarative	successive substitution starts delay multiply rate times
syn keyword saDeclarative	interpolation order no first second third fourth zero hold
syn keyword saDeclarative	ZOH FOH crossing absolute relative tolerance quantize every
syn keyword saDeclarative	offset triggered by periodic multiplied implied extract
syn keyword saDeclarative	directionalderivative timederivative

" ---- words that are keywords in one place only ----
syn match   saContextual	"\%(\<with\s\+\)\@<=model\>"
syn match   saContextual	"\%(\<model\s\+\)\@<=exchange\>"
syn match   saContextual	"\<solver\ze\s*="
syn match   saContextual	"\%(\<max\s\+\)\@<=step\>"
syn match   saContextual	"\<isolated\ze\s\+inner\>"
syn match   saContextual	"\%(["']\s*\)\@<=fmi\ze\s\+\d"
syn match   saContextual	"\<factor\ze\s*[-+0-9.(]"
syn match   saContextual	"\<map\ze\s*("
syn match   saContextual	"\%(\<\%(composed\|interpolation\)\s\+\)\@<=of\>"
syn match   saSolver		"\%(\<solver\s*=\s*\)\@<=\h\w*"

" ---- names being declared ----
" `^name`: a reserved word used as a name
syn match   saEscapedName	"\^\h\w*"
syn match   saModuleName	"\%(\<\%(module\|import\)\s\+\)\@<=\^\=\h\w*"
syn match   saAdaptationName	"\%(\<semantic\s\+adaptation\s\+\%(\%(reactive\|delayed\|moore\|mealy\)\s\+\)*\)\@<=\^\=\h\w*"
" an inner's or a scenario's `fmu Type name`; `for fmu name` names one declared elsewhere
syn match   saFmuType		"\%(\%(\<inner\s\+\|^\s*\)fmu\s\+\%(\%(reactive\|delayed\|moore\|mealy\)\s\+\)*\)\@<=\^\=\h\w*"
syn match   saInstance		"\%(\%(\<inner\s\+\|^\s*\)fmu\s\+\%(\%(reactive\|delayed\|moore\|mealy\)\s\+\)*\%(\%(reactive\|delayed\|moore\|mealy\)\>\)\@!\^\=\h\w*\s\+\)\@<=\^\=\h\w*"
syn match   saInstance		"\%(\<for\s\+fmu\s\+\)\@<=\^\=\h\w*"

" ---- a port's unit: `(unit)` after its name, start value or size ----
syn match   saUnit		"\%([[:alnum:]_\]"']\s\+\)\@<=(\zs[[:alnum:]_%^][[:alnum:]_.^/%-]*\ze)" contains=NONE
" ...but not the parenthesised operand of a word: if (x), not (x), max (x)
syn match   saNoUnit		"\%(\<\%(if\|not\|and\|or\|return\|floor\|ceil\|round\|max\|min\|abs\|is_close\|is_set\|do_step\|save_state\|rollback\|discard\|get_next_time_step\|elapsed\|last_execution_time\|map\|quantize\|signal\)\s\+\)\@<=([^()]*)" contains=ALLBUT,saUnit


hi def link saTodo		Todo
hi def link saLineComment	Comment
hi def link saBlockComment	Comment
hi def link saEscape		SpecialChar
hi def link saString		String
hi def link saFloat		Float
hi def link saNumber		Number
hi def link saConditional	Conditional
hi def link saStatement		Statement
hi def link saOperatorWord	Operator
hi def link saBoolean		Boolean
hi def link saType		Type
hi def link saStorageClass	StorageClass
hi def link saKeyVar		Special
hi def link saFunction		Function
hi def link saKeyword		Keyword
hi def link saDeclarative	Keyword
hi def link saContextual	Keyword
hi def link saSolver		Constant
hi def link saModuleName	Identifier
hi def link saAdaptationName	Function
hi def link saFmuType		Type
hi def link saInstance		Identifier
hi def link saUnit		Constant
hi def link saOperator		Operator

let b:current_syntax = "sa"
let &cpo = s:cpo_save
unlet s:cpo_save
