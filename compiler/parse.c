/* parse.c — drives the re2c lexer and the Lemon parser over one source buffer, and holds
 * the small helpers the grammar actions use. */
#include "parse.h"

#include <stdlib.h>
#include <string.h>

#include "sa_grammar.h"

/* The Lemon entry points (generated/sa_grammar.c). */
void *SaParseAlloc(void *(*alloc)(size_t), ParseCtx *ctx);
void SaParse(void *parser, int major, Token minor);
void SaParseFree(void *parser, void (*dealloc)(void *));

Node *parse_source(Arena *a, DiagSink *d, const char *file, const char *text, size_t len)
{
	ParseCtx ctx = {.arena = a, .diag = d, .file = file, .src = text};
	Lexer lx;
	lex_init(&lx, file, text, len, d);
	void *parser = SaParseAlloc(malloc, &ctx);
	if (!parser) {
		diag_error(d, (Loc){file, 0, 0, 0}, "out of memory");
		return NULL;
	}
	Token tok;
	int code;
	do {
		code = lex_next(&lx, &tok);
		SaParse(parser, code, tok);
	} while (code != 0 && !ctx.failed);
	SaParseFree(parser, free);
	if (ctx.failed || lx.errors)
		return NULL;
	return ctx.root;
}

Loc loc_span(Loc a, Loc b)
{
	Loc l = a;
	if (a.line == b.line && b.col + b.len > a.col)
		l.len = b.col + b.len - a.col;
	return l;
}

char *tok_str(ParseCtx *ctx, Token t)
{
	return arena_strndup(ctx->arena, t.s, (size_t)t.n);
}

/* Strips the quotes and resolves \n \t \r \\ \" \' and \0; any other escaped character
 * stands for itself. */
char *tok_string_value(ParseCtx *ctx, Token t)
{
	char *out = arena_alloc(ctx->arena, (size_t)t.n + 1), *o = out;
	const char *p = t.s + 1, *end = t.s + t.n - 1;
	while (p < end) {
		char c = *p++;
		if (c == '\\' && p < end) {
			c = *p++;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			default: break;
			}
		}
		*o++ = c;
	}
	*o = '\0';
	return out;
}

NodeList nl_one(Node *n)
{
	return nl_add((NodeList){0}, n);
}

NodeList nl_add(NodeList l, Node *n)
{
	if (!n)
		return l;
	if (l.tail)
		l.tail->next = n;
	else
		l.head = n;
	l.tail = ast_last(n);
	return l;
}

NodeList nl_cat(NodeList a, NodeList b)
{
	if (!a.head)
		return b;
	if (!b.head)
		return a;
	a.tail->next = b.head;
	a.tail = b.tail;
	return a;
}

bool lex_is_keyword(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n > 64)
		return false;
	char buf[66];
	memcpy(buf, name, n + 1);
	Lexer lx;
	Token t;
	lex_init(&lx, "", buf, n, NULL);
	int code = lex_next(&lx, &t);
	return code != TK_ID && code != 0 && (size_t)t.n == n && lx.errors == 0 &&
	       code >= TK_MODULE && code <= TK_TIMEDERIVATIVE;
}
