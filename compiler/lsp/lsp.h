/* lsp.h — `sacc lsp`: a Language Server Protocol server over standard input and output,
 * built on the same front end and checker as the command line.
 *
 *   lsp_rpc.c     the wire: Content-Length framing, JSON-RPC replies and errors
 *   lsp_server.c  the methods: a table from method names to handlers, the life cycle
 *                 (initialize ... shutdown, exit), the open documents
 *   lsp_doc.c     a document's text: edits (whole or by range), LSP positions (UTF-16)
 *                 to and from the front end's line and byte column
 *   lsp_check.c   a document checked: a Compilation over the buffer with the server's
 *                 providers (FMUs kept while their file is unchanged, one unit system),
 *                 the diagnostics it reported
 *   lsp_query.c   what an editor asks of a checked document: hover, definition,
 *                 completion, symbols, rename
 *   lsp_format.c  formatting, through `sacc fmt`'s fmt_buffer
 *   json.c        the JSON reader and writer (json.h)
 *
 * The server never exits on bad input: a message it cannot read gets a JSON-RPC error, and
 * the loop goes on to the next one. */
#ifndef SACC_LSP_H
#define SACC_LSP_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "cli.h"
#include "compilation.h"
#include "json.h"
#include "util.h"

/* JSON-RPC and LSP error codes. */
enum {
	RPC_PARSE_ERROR = -32700,
	RPC_INVALID_REQUEST = -32600,
	RPC_METHOD_NOT_FOUND = -32601,
	RPC_INVALID_PARAMS = -32602,
	RPC_INTERNAL_ERROR = -32603,
	RPC_SERVER_NOT_INITIALIZED = -32002,
	RPC_REQUEST_FAILED = -32803,
};

/* ---- lsp_rpc.c ---------------------------------------------------------------------- */

/* The largest message body accepted; a longer one is skipped with a parse error. */
#define LSP_MAX_BODY (64u << 20)

typedef enum LspRead { LSP_READ_OK, LSP_READ_EOF, LSP_READ_BAD } LspRead;

/* Reads one framed message: header lines up to an empty line, then Content-Length bytes.
 * LSP_READ_BAD (with *why) when the header has no usable Content-Length or the body is too
 * long; the reader is then at the next message. *body is malloc'd, NUL-terminated. */
LspRead lsp_read_message(FILE *in, char **body, size_t *len, const char **why);
/* Writes body with its header, and flushes. */
void lsp_write_message(FILE *out, const char *body, size_t len);
/* {"jsonrpc":"2.0","id":ID,"result":RESULT}: result is JSON text. */
void lsp_reply(FILE *out, const Json *id, const char *result);
/* {"jsonrpc":"2.0","id":ID,"error":{"code":C,"message":M}}: id NULL writes null. */
void lsp_reply_error(FILE *out, const Json *id, int code, const char *message);
/* {"jsonrpc":"2.0","method":M,"params":PARAMS}: params is JSON text. */
void lsp_notify(FILE *out, const char *method, const char *params);

/* ---- lsp_doc.c ---------------------------------------------------------------------- */

typedef struct LspCheck LspCheck;

typedef struct LspDoc {
	struct LspDoc *next;
	char *uri;
	char *path;        /* the file the URI names: relative FMU paths and imports start there */
	char *text;        /* NUL-terminated */
	size_t len;
	long long version;
	LspCheck *check;   /* the text as last checked, NULL before */
	LspCheck *good;    /* the last check whose text parsed, when check's did not (what
	                    * completion answers from while a line is being typed) */
} LspDoc;

/* A position as LSP gives it: a line and a column in UTF-16 code units, both from 0. */
typedef struct LspPos {
	int line, character;
} LspPos;

/* The byte offset of pos in text (clamped to its line's end and to the text's end). */
size_t lsp_offset(const char *text, size_t len, LspPos pos);
/* The LSP position of a front-end place (1-based line, 1-based byte column). */
LspPos lsp_pos_of(const char *text, size_t len, int line, int col);
/* Replaces text[from, to) with rep; false when out of memory. */
bool lsp_doc_edit(LspDoc *d, size_t from, size_t to, const char *rep, size_t nrep);
/* The path a file: URI names, decoded (%20 ...), malloc'd; NULL for another scheme. */
char *lsp_uri_path(const char *uri);
/* The file: URI of a path (made absolute against the working directory), malloc'd. */
char *lsp_path_uri(const char *path);

/* ---- lsp_check.c -------------------------------------------------------------------- */

/* One message of the checker. */
typedef struct LspDiag {
	DiagLevel level;
	Loc loc;
	char *msg;
	char *file;        /* loc.file copied: the compilation that held it is gone */
} LspDiag;

/* What the server keeps across edits: the search paths, the FMUs read (by path, mtime and
 * size), the unit system. */
typedef struct LspFmuEntry {
	char *path;
	time_t mtime;
	long mtime_ns;
	off_t size;
	FmuInfo *fmu;
} LspFmuEntry;

typedef struct LspEnv {
	char **include_dirs;
	int ninclude;
	char **fmu_dirs;
	int nfmu_dirs;
	LspFmuEntry *fmus;
	int nfmus, capfmus;
	int fmu_reads;       /* model descriptions read from disk (tests: a re-check reads none) */
	UnitSystem *units;
	const char *units_error;
	LspDoc *const *open_docs; /* the server's open documents: an import is read from its
	                           * buffer when it is open, saved or not */
} LspEnv;

struct LspCheck {
	Compilation *c;
	Module *m;           /* the document's module, NULL when it could not be made */
	LspDiag *diags;
	int ndiags, capdiags;
};

/* Checks text as the file path, with env's providers. */
LspCheck *lsp_check(LspEnv *env, const char *path, const char *text, size_t len);
void lsp_check_free(LspCheck *k);
void lsp_env_add_dir(char ***dirs, int *n, const char *dir);
void lsp_env_free(LspEnv *env);
/* The publishDiagnostics params for d (its last check), as JSON text into sb. */
void lsp_put_diagnostics(StrBuf *sb, const LspDoc *d);

/* ---- lsp_query.c -------------------------------------------------------------------- */

/* Each writes its result (JSON text, "null" when there is none) into sb. */
void lsp_hover(StrBuf *sb, const LspDoc *d, LspPos pos);
void lsp_definition(StrBuf *sb, const LspDoc *d, LspPos pos);
void lsp_completion(StrBuf *sb, const LspDoc *d, LspPos pos);
void lsp_document_symbols(StrBuf *sb, const LspDoc *d);
/* A WorkspaceEdit renaming what pos names to new_name; false with *why when it cannot. */
bool lsp_rename(StrBuf *sb, const LspDoc *d, LspPos pos, const char *new_name,
		const char **why);
/* A LSP Range {"start":...,"end":...} for a front-end place in text (len 0: a text not
 * at hand, whose columns are taken as characters). */
void lsp_put_range(StrBuf *sb, const char *text, size_t len, Loc loc);
/* A LSP Location of a place in any file the check read. */
void lsp_put_location(StrBuf *sb, const LspCheck *k, Loc loc);

/* ---- lsp_format.c ------------------------------------------------------------------- */

/* The TextEdits that give d the canonical layout (`sacc fmt`); false with *why when its
 * text does not parse. */
bool lsp_format(StrBuf *sb, const LspDoc *d, const char **why);

/* ---- lsp_server.c ------------------------------------------------------------------- */

/* Serves one client over in and out until `exit`: returns the exit status LSP asks for, 0
 * after a shutdown request, 1 otherwise (also when the input ends without exit). */
int lsp_serve(FILE *in, FILE *out, LspEnv *env);

/* The command (main.c's table): options -I, -L, --stdio. */
extern const CliOption lsp_options[];
int lsp_main(const CliCommand *cmd, int argc, char **argv);

#endif
