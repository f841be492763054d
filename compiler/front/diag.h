/* diag.h — diagnostics in GCC shape.
 *
 * Every stage reports through a DiagSink held by its caller, never by exiting, so that
 * tests can capture the exact text.  A message is
 *
 *     file:line:col: error: text
 *        12 |   window.vel := v;
 *           |          ^~~
 *
 * followed by optional note: lines.  The sink keeps the source buffers it was given so it
 * can quote the offending line. */
#ifndef SACC_DIAG_H
#define SACC_DIAG_H

#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>

/* A place in a source file.  line and col are 1-based; len is the width to underline
 * (0 or 1 gives a bare caret).  line 0 means "the file as a whole". */
typedef struct Loc {
	const char *file;
	int line;
	int col;
	int len;
} Loc;

typedef enum DiagLevel { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE } DiagLevel;

typedef struct DiagSink DiagSink;

/* Messages go to out (stderr in the CLI, a memory stream in tests). */
DiagSink *diag_new(FILE *out);
void diag_free(DiagSink *d);
/* What begins a message that has no place in a file: "sacc CMD" for the command running
 * (default "sacc"); prog must outlive the sink. */
void diag_set_prog(DiagSink *d, const char *prog);

/* Hands every message that is not muted by the cap, as its level, place and text, to fn
 * as well (the language server turns them into an editor's diagnostics); with out NULL,
 * to fn only. */
typedef void DiagListener(void *user, DiagLevel level, Loc loc, const char *msg);
void diag_set_listener(DiagSink *d, DiagListener *fn, void *user);

/* Registers the text of a file so messages about it can quote its lines.  The sink
 * copies nothing: text must outlive the sink's use of it. */
void diag_add_source(DiagSink *d, const char *file, const char *text, size_t len);

void diag_error(DiagSink *d, Loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void diag_warning(DiagSink *d, Loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void diag_note(DiagSink *d, Loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void diag_vreport(DiagSink *d, DiagLevel level, Loc loc, const char *fmt, va_list ap);

/* Errors reported so far (counting those suppressed after the cap). */
int diag_errors(const DiagSink *d);
int diag_warnings(const DiagSink *d);

/* After this many errors further ones are counted but not printed. */
#define DIAG_MAX_ERRORS 50

#endif
