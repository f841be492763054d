/* fmt.h — `sacc fmt`: a script in the canonical layout, its comments and blank lines kept.
 *
 * The layout is the printer's (ast_print_file, what `sacc parse` shows).  The lexer
 * reports comments on the side (Lexer.on_comment) and the formatter puts each one back
 * next to the token it followed or preceded in the source, found by matching the source's
 * tokens with the printed text's.  Lives in the front end: it needs the lexer, the parser
 * and the printer and nothing after them, so the language server calls it as it is. */
#ifndef SACC_FMT_H
#define SACC_FMT_H

#include <stddef.h>

#include "diag.h"
#include "util.h"

/* Formats the script src[0..len) (no NUL needed at src[len]) named name (for messages)
 * and appends the result to out.  Returns 0 on success; 1 when the script does not parse
 * (the errors have gone to d, whose quoted lines need src registered with
 * diag_add_source by the caller, and out is left as it was).  Never changes src. */
int fmt_buffer(const char *name, const char *src, size_t len, StrBuf *out, DiagSink *d);

#endif
