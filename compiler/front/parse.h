/* parse.h — the front end's first stage: source text to syntax tree.
 *
 * The re2c lexer (grammar/sa_lexer.re) pushes tokens into the Lemon parser
 * (grammar/sa_grammar.y); both keep their state in the structs below, never in globals.
 * Tokens are slices of the one source buffer. */
#ifndef SACC_PARSE_H
#define SACC_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"
#include "ast.h"
#include "diag.h"

typedef struct Token {
	const char *s; /* into the source buffer */
	int n;
	Loc loc;
} Token;

typedef struct Lexer {
	const char *file;
	const char *buf; /* NUL-terminated: buf[len] == 0 is the sentinel */
	const char *cur, *lim, *tok, *marker, *ctxmarker;
	const char *line_start;
	int line;
	DiagSink *diag;
	int errors;
	/* When set, told of every comment with its text (the delimiters included) and place:
	 * the parser never sees comments, the formatter (fmt.c) puts them back. */
	void (*on_comment)(void *ctx, const char *s, int n, Loc loc);
	void *comment_ctx;
} Lexer;

typedef struct FnTok {
	int op;
	Loc loc;
} FnTok;

typedef struct NodeList {
	Node *head, *tail;
} NodeList;

typedef struct ParseCtx {
	Arena *arena;
	DiagSink *diag;
	const char *file;
	Node *root;
	int failed;        /* a syntax error was reported: the tree is incomplete */
	int syntax_errors;
	Token prev;        /* the token before the one being parsed: a missing ';' goes after it */
	/* `with` items found after an inner FMU that belong to the adaptation (older scripts
	 * write couplings as `with a.p -> b.q`); the adaptation rule collects them. */
	NodeList pending_couplings;
	NodeList pending_general;
} ParseCtx;

void lex_init(Lexer *lx, const char *file, const char *text, size_t len, DiagSink *d);
/* The next token's code (TK_* from sa_grammar.h), 0 at the end of the input.  Lexical
 * errors are reported and skipped. */
int lex_next(Lexer *lx, Token *tok);
/* The spelling of a token code, for messages ("'->'", "identifier", "end of file"). */
const char *lex_token_name(int code);
/* Whether name is a reserved word (and so must be written ^name). */
bool lex_is_keyword(const char *name);
/* Whether name (NULL is none) is spelled as an identifier: a letter or '_', then letters,
 * digits and '_'.  A reserved word is one too; lex_is_keyword tells it apart. */
bool lex_is_identifier(const char *name);

/* Parses a whole file.  Returns the ND_FILE node, or NULL when there were syntax errors
 * (they have been reported through d).  text must be NUL-terminated at text[len]. */
Node *parse_source(Arena *a, DiagSink *d, const char *file, const char *text, size_t len);

/* Helpers for the grammar actions. */
Loc loc_span(Loc a, Loc b);
/* Where the text right after a token starts (one column wide): where a token missing after
 * it belongs. */
Loc loc_after(Token t);
char *tok_str(ParseCtx *ctx, Token t);
char *tok_string_value(ParseCtx *ctx, Token t); /* unquotes and unescapes a STRING token */
NodeList nl_one(Node *n);
NodeList nl_add(NodeList l, Node *n);
NodeList nl_cat(NodeList a, NodeList b);

#endif
