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

/* Every later stage (printer, checker, rewrite rules) walks the tree recursively.  The
 * parser's stack bounds nesting to the right (`((((`, `- - -`), but a left-associative
 * chain such as `a + b + c + ...` deepens the tree by one level per operator without
 * growing that stack.  Trees deeper than this are refused here, so that a long chain is
 * an error rather than a stack overflow further on. */
#define MAX_TREE_DEPTH 5000

typedef struct DepthItem {
	const Node *n;
	int depth;
} DepthItem;

/* The first node found deeper than MAX_TREE_DEPTH, or NULL.  Iterative, for the reason
 * above; list siblings (`next`) count as one level. */
static const Node *too_deep(const Node *root)
{
	size_t cap = 256, top = 0;
	DepthItem *stack = malloc(cap * sizeof *stack);
	const Node *found = NULL;
	if (!stack)
		return NULL;
	stack[top++] = (DepthItem){root, 1};
	while (top > 0) {
		DepthItem it = stack[--top];
		const Node *n = it.n;
		if (it.depth > MAX_TREE_DEPTH) {
			found = n;
			break;
		}
		/* Pushed last to first, so the walk goes down lhs first: in a chain too long
		 * the node found then starts where the whole expression starts. */
		const Node *kids[AST_NCHILDREN + 1];
		for (int i = 0; i < AST_NCHILDREN; i++)
			kids[i] = ast_child(n, i);
		kids[AST_NCHILDREN] = n->next;
		size_t nkids = sizeof kids / sizeof kids[0];
		for (size_t i = nkids; i-- > 0;) {
			if (!kids[i])
				continue;
			if (top == cap) {
				DepthItem *s = realloc(stack, 2 * cap * sizeof *s);
				if (!s)
					goto done;
				stack = s;
				cap *= 2;
			}
			/* The next sibling stays on the same level. */
			stack[top++] = (DepthItem){kids[i], i == nkids - 1 ? it.depth : it.depth + 1};
		}
	}
done:
	free(stack);
	return found;
}

Node *parse_source(Arena *a, DiagSink *d, const char *file, const char *text, size_t len)
{
	ParseCtx ctx = {.arena = a, .diag = d, .file = file};
	/* Some errors are reported by grammar actions (a literal out of range, `composed`
	 * without `of`, a port clause given twice) and leave the parse going: they too mean
	 * no tree. */
	int errors_before = diag_errors(d);
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
		ctx.prev = tok;
	} while (code != 0 && !ctx.failed);
	SaParseFree(parser, free);
	if (ctx.failed || lx.errors || diag_errors(d) > errors_before)
		return NULL;
	const Node *deep = ctx.root ? too_deep(ctx.root) : NULL;
	if (deep) {
		Loc at = deep->loc;
		at.len = 1; /* the node may span a very long line */
		diag_error(d, at, "nesting too deep (more than %d levels); split the expression "
			   "with intermediate variables", MAX_TREE_DEPTH);
		return NULL;
	}
	return ctx.root;
}

Loc loc_span(Loc a, Loc b)
{
	Loc l = a;
	if (a.line == b.line && b.col + b.len > a.col)
		l.len = b.col + b.len - a.col;
	return l;
}

Loc loc_after(Token t)
{
	Loc l = t.loc;
	l.col += t.n;
	for (int i = 0; i < t.n; i++)
		if (t.s[i] == '\n') {
			l.line++;
			l.col = t.n - i;
		}
	l.len = 1;
	return l;
}

char *tok_str(ParseCtx *ctx, Token t)
{
	return arena_strndup(ctx->arena, t.s, (size_t)t.n);
}

/* Strips the quotes and resolves \n \t \r; any other escaped character stands for
 * itself (so \\ \" \' give \ " ', and \0 gives 0: a value cannot hold a NUL). */
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

bool lex_is_identifier(const char *name)
{
	if (!name || !(*name == '_' || (*name >= 'a' && *name <= 'z') || (*name >= 'A' && *name <= 'Z')))
		return false;
	for (const char *p = name + 1; *p; p++)
		if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9')))
			return false;
	return true;
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
