/* fmt.c — `sacc fmt`'s engine: the printer's canonical layout with the source's comments and
 * blank lines put back (fmt.h).
 *
 * The printer (ast_print_file) knows nothing of comments, and a tree that carried them
 * would burden every later stage.  So the formatter works beside it: it prints the tree
 * (the "base" text), lexes the source (comments reported on the side by the lexer) and
 * the base, and matches the two token sequences with a shortest edit script (Myers'
 * diff; past FMT_MAX_EDITS differences, a linear resynchronising walk), which is the
 * identity when the source already was in the canonical layout and tolerates what the
 * printer changes (parentheses it drops, an older clause it moves, a list it splits).
 * Each comment is then anchored to a token of the base:
 *
 *   - a comment with a token before it on its line trails that token: a block comment
 *     right after it, a line comment at the end of the token's output line (when several
 *     would end one line, because the printer joined lines, all but one go on lines of
 *     their own above it);
 *   - any other comment leads the next token: it goes on a line of its own above that
 *     token's output line, indented as that line (one level deeper before a `}`).
 *
 * A blank line (or a run of them) before a comment or before a token that starts an
 * output line is kept as one blank line; the printer's own blank lines are not: blank
 * lines are the script's.  Every decision is made on the base text, which
 * is the same for a script and its formatted version, and each placement reads back as
 * the same placement: that makes the result a fixed point. */
#include "fmt.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "ast.h"
#include "parse.h"

typedef struct FmtTok {
	int code;
	const char *s;
	int n;
	int line; /* 1-based */
} FmtTok;

typedef struct FmtCom {
	const char *s;
	int n;
	int line;
	size_t off;
	bool is_line; /* `//`, which ends at the end of its line */
} FmtCom;

/* One text's tokens and comments, in source order. */
typedef struct Lexed {
	const char *buf;
	FmtTok *tok;
	int ntok;
	FmtCom *com;
	int ncom;
	int cap_tok, cap_com;
	bool failed; /* out of memory */
} Lexed;

static void *grow(void *p, int *cap, size_t size, bool *failed)
{
	int ncap = *cap ? 2 * *cap : 64;
	void *q = realloc(p, (size_t)ncap * size);
	if (!q) {
		*failed = true;
		return p;
	}
	*cap = ncap;
	return q;
}

static void on_comment(void *ctx, const char *s, int n, Loc loc)
{
	Lexed *lx = ctx;
	if (lx->ncom == lx->cap_com) {
		lx->com = grow(lx->com, &lx->cap_com, sizeof *lx->com, &lx->failed);
		if (lx->ncom == lx->cap_com)
			return;
	}
	lx->com[lx->ncom++] = (FmtCom){s, n, loc.line, (size_t)(s - lx->buf), s[1] == '/'};
}

/* Lexes text (NUL at text[len]); the comments go to out->com through the lexer's hook. */
static void lex_all(Lexed *out, const char *text, size_t len)
{
	memset(out, 0, sizeof *out);
	out->buf = text;
	Lexer lx;
	lex_init(&lx, "", text, len, NULL);
	lx.on_comment = on_comment;
	lx.comment_ctx = out;
	Token t;
	int code;
	while ((code = lex_next(&lx, &t)) != 0 && !out->failed) {
		if (out->ntok == out->cap_tok) {
			out->tok = grow(out->tok, &out->cap_tok, sizeof *out->tok, &out->failed);
			if (out->ntok == out->cap_tok)
				break;
		}
		out->tok[out->ntok++] = (FmtTok){code, t.s, t.n, t.loc.line};
	}
}

static void lexed_free(Lexed *l)
{
	free(l->tok);
	free(l->com);
}

static bool same_token(const FmtTok *a, const FmtTok *b)
{
	return a->code == b->code && a->n == b->n && memcmp(a->s, b->s, (size_t)a->n) == 0;
}

/* Beyond this many differences the diff gives up for match_greedy, whose matching need
 * not be the longest: comments may land a line or two from where the diff would put
 * them, never lost (a long script whose every `var a, b, c` list becomes lines of their
 * own gets there). */
#define FMT_MAX_EDITS 2000
/* How far match_greedy looks ahead in either text to resynchronise. */
#define FMT_LOOKAHEAD 24

/* Whether a[i..] and b[j..] agree on two tokens (or on the one left at an end): a
 * resynchronisation that a lone `;` or `,` could not fake. */
static bool agree_at(const FmtTok *a, int n, const FmtTok *b, int m, int i, int j)
{
	if (i >= n || j >= m || !same_token(&a[i], &b[j]))
		return false;
	return i + 1 >= n || j + 1 >= m || same_token(&a[i + 1], &b[j + 1]);
}

/* map[i] as match_tokens gives it, by walking both texts at once: where they differ, the
 * nearest place within FMT_LOOKAHEAD tokens of each where they agree again is taken
 * (tokens the printer added, source tokens it dropped, or both).  Linear in the texts'
 * length, for texts too different for the diff. */
static void match_greedy(const FmtTok *a, int n, const FmtTok *b, int m, int *map)
{
	int i = 0, j = 0;
	while (i < n && j < m) {
		if (same_token(&a[i], &b[j])) {
			map[i++] = j++;
			continue;
		}
		int skip_a = 1, skip_b = 1; /* nothing near: one token of each is passed over */
		for (int sum = 1; sum <= 2 * FMT_LOOKAHEAD && skip_a + skip_b == 2; sum++)
			for (int p = sum > FMT_LOOKAHEAD ? sum - FMT_LOOKAHEAD : 0; p <= sum && p <= FMT_LOOKAHEAD; p++)
				if (agree_at(a, n, b, m, i + p, j + sum - p)) {
					skip_a = p;
					skip_b = sum - p;
					break;
				}
		i += skip_a;
		j += skip_b;
	}
}

/* map[i] = the token of b that a's token i matches, or -1: a longest common subsequence
 * by Myers' O((N+M)D) algorithm, which is quick because a and b mostly agree.  Returns
 * false when out of memory. */
static bool match_tokens(const FmtTok *a, int n, const FmtTok *b, int m, int *map)
{
	for (int i = 0; i < n; i++)
		map[i] = -1;
	int max = n + m;
	int dmax = max < FMT_MAX_EDITS ? max : FMT_MAX_EDITS;
	int *v = calloc((size_t)(2 * max + 3), sizeof *v);
	/* trace holds V after step d for k in -d..d, at d*d + (k + d); it grows with d, which
	 * stays small when the two texts mostly agree */
	size_t cap = 1024;
	int *trace = malloc(cap * sizeof *trace);
	bool ok = v && trace;
	int *V = v ? v + max + 1 : NULL; /* V[k] for k in -max-1..max+1 */
	int found = -1;
	for (int d = 0; ok && d <= dmax && found < 0; d++) {
		for (int k = -d; k <= d; k += 2) {
			int x = (k == -d || (k != d && V[k - 1] < V[k + 1])) ? V[k + 1] : V[k - 1] + 1;
			int y = x - k;
			while (x < n && y < m && same_token(&a[x], &b[y])) {
				x++;
				y++;
			}
			V[k] = x;
			if (x >= n && y >= m)
				found = d;
		}
		size_t need = ((size_t)d + 1) * ((size_t)d + 1);
		if (need > cap) {
			int *t = realloc(trace, 2 * need * sizeof *t);
			if (!t) {
				ok = false;
				break;
			}
			trace = t;
			cap = 2 * need;
		}
		memcpy(trace + (size_t)d * (size_t)d, V - d, (size_t)(2 * d + 1) * sizeof *V);
	}
	if (!ok) {
		free(v);
		free(trace);
		return false;
	}
	if (found < 0) {
		match_greedy(a, n, b, m, map);
	} else {
		int x = n, y = m;
		for (int d = found; d > 0; d--) {
			const int *P = trace + (size_t)(d - 1) * (size_t)(d - 1) + (d - 1);
			int k = x - y;
			int pk = (k == -d || (k != d && P[k - 1] < P[k + 1])) ? k + 1 : k - 1;
			int px = P[pk], py = px - pk;
			while (x > px && y > py) {
				x--;
				y--;
				map[x] = y;
			}
			x = px;
			y = py;
		}
		while (x > 0 && y > 0) {
			x--;
			y--;
			map[x] = y;
		}
	}
	free(v);
	free(trace);
	return true;
}

/* Where a comment goes in the output. */
enum { PL_BLANK, PL_LEAD, PL_INLINE, PL_EOL_BLOCK, PL_EOL_LINE };

typedef struct Place {
	int kind;
	int com;  /* index into the source's comments; -1 for PL_BLANK */
	int next; /* the next placement in the same bucket, -1 at the end */
} Place;

/* Placements in buckets (an output line's lead-in, a token's inline comments, a line's
 * end), each a list in the order added, which is source order. */
typedef struct Layout {
	Place *pl;
	int npl, cap;
	int *lead_head, *lead_tail; /* per base line, and one more for the end of the file */
	int *inl_head, *inl_tail;   /* per base token */
	int *eol_head, *eol_tail;   /* per base line */
	bool *eol_has_line;         /* the line already ends in a line comment */
	int *trailing_lines;        /* per base line: the line comments that trail its code */
	bool failed;
} Layout;

static void place(Layout *ly, int *head, int *tail, int kind, int com)
{
	if (ly->npl == ly->cap) {
		ly->pl = grow(ly->pl, &ly->cap, sizeof *ly->pl, &ly->failed);
		if (ly->npl == ly->cap)
			return;
	}
	int i = ly->npl++;
	ly->pl[i] = (Place){kind, com, -1};
	if (*tail >= 0)
		ly->pl[*tail].next = i;
	else
		*head = i;
	*tail = i;
}

/* Whether the whitespace between a and b holds a blank line. */
static bool blank_between(const char *a, const char *b)
{
	int newlines = 0;
	for (const char *p = a; p < b; p++)
		if (*p == '\n' && ++newlines >= 2)
			return true;
	return false;
}

typedef struct Base {
	const char *text;
	size_t len;
	size_t *line_start; /* nlines + 1 entries: the last is len */
	int nlines;
	int *first_tok; /* per line: its first token, or -1 */
	int *first_matched; /* per line: its first token that stands for one of the source's */
	int *last_tok;  /* per line: its last token, or -1 */
} Base;

static bool base_lines(Base *b, const Lexed *bt)
{
	int n = 1;
	for (size_t i = 0; i < b->len; i++)
		if (b->text[i] == '\n' && i + 1 < b->len)
			n++;
	b->nlines = b->len ? n : 0;
	b->line_start = malloc(((size_t)n + 1) * sizeof *b->line_start);
	b->first_tok = malloc((size_t)n * sizeof *b->first_tok);
	b->last_tok = malloc((size_t)n * sizeof *b->last_tok);
	b->first_matched = malloc((size_t)n * sizeof *b->first_matched);
	if (!b->line_start || !b->first_tok || !b->last_tok || !b->first_matched)
		return false;
	int l = 0;
	b->line_start[0] = 0;
	for (size_t i = 0; i < b->len; i++)
		if (b->text[i] == '\n' && i + 1 < b->len)
			b->line_start[++l] = i + 1;
	b->line_start[b->nlines] = b->len;
	for (int i = 0; i < n; i++)
		b->first_tok[i] = b->last_tok[i] = b->first_matched[i] = -1;
	for (int k = 0; k < bt->ntok; k++) {
		int line = bt->tok[k].line - 1;
		if (b->first_tok[line] < 0)
			b->first_tok[line] = k;
		b->last_tok[line] = k;
	}
	return true;
}

/* The matched token of the base that comment c (whose next source token is t) trails, or
 * -1 when a comment starts its line: the last token before it that the diff matched, as
 * long as a token precedes the comment on its line. */
static int trailed_token(const Lexed *src, const int *map, int c, int t)
{
	int before = -1;
	if (t > 0 && src->tok[t - 1].line == src->com[c].line)
		for (int i = t - 1; i >= 0 && before < 0; i--)
			before = map[i];
	return before;
}

/* The source's first token after comment c, from t on. */
static int token_after(const Lexed *src, int c, int t)
{
	while (t < src->ntok && (size_t)(src->tok[t].s - src->buf) < src->com[c].off)
		t++;
	return t;
}

/* Decides where each of the source's comments and blank lines goes (the file comment).
 * A line comment trailing code ends the output line of that code when it is the only
 * one to; when several would (lines joined), they go above the line in their order but
 * for one that trails the line's last token. */
static void lay_out(Layout *ly, const Lexed *src, const Lexed *bt, const Base *b, const int *map)
{
	int nl = b->nlines;
	for (int c = 0, t = 0; c < src->ncom; c++) {
		t = token_after(src, c, t);
		int before = trailed_token(src, map, c, t);
		if (before >= 0 && src->com[c].is_line)
			ly->trailing_lines[bt->tok[before].line - 1]++;
	}
	int t = 0; /* the source's next token */
	const char *prev_end = src->buf;
	for (int c = 0; c <= src->ncom; c++) {
		/* The tokens before comment c (all of them after the last): a blank line before
		 * one that starts an output line (or that only words the printer added precede,
		 * as `control var` before each of a list's names) is kept. */
		size_t limit = c < src->ncom ? src->com[c].off : (size_t)-1;
		for (; t < src->ntok && (size_t)(src->tok[t].s - src->buf) < limit; t++) {
			const FmtTok *tok = &src->tok[t];
			/* a `^name` token starts at the '^' */
			const char *start = tok->s > src->buf && tok->s[-1] == '^' ? tok->s - 1 : tok->s;
			int k = map[t];
			if (k >= 0 && blank_between(prev_end, start)) {
				int line = bt->tok[k].line - 1;
				if (b->first_matched[line] == k)
					place(ly, &ly->lead_head[line], &ly->lead_tail[line], PL_BLANK, -1);
			}
			prev_end = tok->s + tok->n;
		}
		if (c == src->ncom)
			break;
		const FmtCom *com = &src->com[c];
		bool blank_before = blank_between(prev_end, com->s);
		int before = trailed_token(src, map, c, t);
		if (before >= 0) {
			int line = bt->tok[before].line - 1;
			bool last = b->last_tok[line] == before;
			if (com->is_line && !ly->eol_has_line[line] &&
			    (last || ly->trailing_lines[line] == 1)) {
				place(ly, &ly->eol_head[line], &ly->eol_tail[line], PL_EOL_LINE, c);
				ly->eol_has_line[line] = true;
			} else if (com->is_line) {
				place(ly, &ly->lead_head[line], &ly->lead_tail[line], PL_LEAD, c);
			} else if (last) {
				place(ly, &ly->eol_head[line], &ly->eol_tail[line], PL_EOL_BLOCK, c);
			} else {
				place(ly, &ly->inl_head[before], &ly->inl_tail[before], PL_INLINE, c);
			}
		} else {
			int after = -1;
			for (int i = t; i < src->ntok && after < 0; i++)
				after = map[i];
			int line = after >= 0 ? bt->tok[after].line - 1 : nl;
			if (blank_before)
				place(ly, &ly->lead_head[line], &ly->lead_tail[line], PL_BLANK, -1);
			place(ly, &ly->lead_head[line], &ly->lead_tail[line], PL_LEAD, c);
		}
		prev_end = com->s + com->n;
	}
}

/* A comment's text: a line comment without the blanks (or a CR) ending it. */
static void put_comment(StrBuf *o, const FmtCom *c)
{
	int n = c->n;
	if (c->is_line)
		while (n > 2 && (c->s[n - 1] == ' ' || c->s[n - 1] == '\t' || c->s[n - 1] == '\r'))
			n--;
	for (int i = 0; i < n; i++)
		sb_putc(o, c->s[i]);
}

static bool ends_with_blank_line(const StrBuf *o)
{
	return o->len >= 2 && o->data[o->len - 1] == '\n' && o->data[o->len - 2] == '\n';
}

/* A blank line, unless at the top or after one. */
static void put_blank(StrBuf *o)
{
	if (o->len > 0 && !ends_with_blank_line(o))
		sb_putc(o, '\n');
}

/* The lead-in of line (nlines: the end of the file): its comments on lines of their own,
 * indented as the line, one level deeper when the line closes a block. */
static bool put_lead(StrBuf *o, const Layout *ly, const Lexed *src, const Base *b, int line)
{
	const char *ls = line < b->nlines ? b->text + b->line_start[line] : "";
	size_t ind = strspn(ls, " \t");
	bool want_blank = false;
	for (int p = ly->lead_head[line]; p >= 0; p = ly->pl[p].next) {
		if (ly->pl[p].kind == PL_BLANK) {
			want_blank = true;
			continue;
		}
		if (want_blank)
			put_blank(o);
		want_blank = false;
		for (size_t i = 0; i < ind; i++)
			sb_putc(o, ls[i]);
		if (ls[ind] == '}')
			sb_putc(o, '\t');
		put_comment(o, &src->com[ly->pl[p].com]);
		sb_putc(o, '\n');
	}
	return want_blank;
}

static void put_line(StrBuf *o, const Layout *ly, const Lexed *src, const Lexed *bt,
                     const Base *b, int line)
{
	const char *p = b->text + b->line_start[line];
	const char *end = b->text + b->line_start[line + 1];
	if (end > p && end[-1] == '\n')
		end--;
	if (put_lead(o, ly, src, b, line))
		put_blank(o);
	if (p == end) /* the printer's blank line: the script's own are kept instead */
		return;
	for (int k = b->first_tok[line]; k >= 0 && k <= b->last_tok[line]; k++) {
		if (ly->inl_head[k] < 0)
			continue;
		const char *tend = bt->tok[k].s + bt->tok[k].n;
		for (; p < tend; p++)
			sb_putc(o, *p);
		for (int q = ly->inl_head[k]; q >= 0; q = ly->pl[q].next) {
			sb_putc(o, ' ');
			put_comment(o, &src->com[ly->pl[q].com]);
		}
		if (p < end && !strchr(" \t,;)]", *p))
			sb_putc(o, ' ');
	}
	for (; p < end; p++)
		sb_putc(o, *p);
	/* The line's end: block comments first, so that a line comment ends the line. */
	for (int kind = PL_EOL_BLOCK; kind <= PL_EOL_LINE; kind++)
		for (int q = ly->eol_head[line]; q >= 0; q = ly->pl[q].next)
			if (ly->pl[q].kind == kind) {
				sb_putc(o, ' ');
				put_comment(o, &src->com[ly->pl[q].com]);
			}
	sb_putc(o, '\n');
}

static int *int_array(int n, int value)
{
	int *a = malloc((size_t)(n > 0 ? n : 1) * sizeof *a);
	if (a)
		for (int i = 0; i < n; i++)
			a[i] = value;
	return a;
}

/* Interleaves the comments of src with the base text into out; false when out of memory. */
static bool weave(StrBuf *out, const Lexed *src, const char *base, size_t base_len)
{
	Lexed bt;
	lex_all(&bt, base, base_len);
	Base b = {base, base_len, NULL, 0, NULL, NULL, NULL};
	Layout ly = {0};
	int *map = int_array(src->ntok, -1);
	bool ok = false;
	if (bt.failed || !map || !base_lines(&b, &bt) ||
	    !match_tokens(src->tok, src->ntok, bt.tok, bt.ntok, map))
		goto done;
	for (int t = src->ntok - 1; t >= 0; t--) /* backwards: the first one stays */
		if (map[t] >= 0)
			b.first_matched[bt.tok[map[t]].line - 1] = map[t];
	int nl = b.nlines;
	ly.lead_head = int_array(nl + 1, -1);
	ly.lead_tail = int_array(nl + 1, -1);
	ly.inl_head = int_array(bt.ntok, -1);
	ly.inl_tail = int_array(bt.ntok, -1);
	ly.eol_head = int_array(nl, -1);
	ly.eol_tail = int_array(nl, -1);
	ly.eol_has_line = calloc((size_t)nl + 1, sizeof *ly.eol_has_line);
	ly.trailing_lines = int_array(nl, 0);
	if (!ly.trailing_lines || !ly.lead_head || !ly.lead_tail || !ly.inl_head || !ly.inl_tail || !ly.eol_head ||
	    !ly.eol_tail || !ly.eol_has_line)
		goto done;
	lay_out(&ly, src, &bt, &b, map);
	if (ly.failed)
		goto done;
	for (int line = 0; line < nl; line++)
		put_line(out, &ly, src, &bt, &b, line);
	put_lead(out, &ly, src, &b, nl);
	ok = true;
done:
	free(map);
	free(b.line_start);
	free(b.first_tok);
	free(b.last_tok);
	free(b.first_matched);
	free(ly.pl);
	free(ly.lead_head);
	free(ly.lead_tail);
	free(ly.inl_head);
	free(ly.inl_tail);
	free(ly.eol_head);
	free(ly.eol_tail);
	free(ly.eol_has_line);
	free(ly.trailing_lines);
	lexed_free(&bt);
	return ok;
}

int fmt_buffer(const char *name, const char *src, size_t len, StrBuf *out, DiagSink *d)
{
	char *text = malloc(len + 1);
	Arena *a = arena_new();
	StrBuf base;
	sb_init(&base);
	Lexed sl = {0};
	int rc = 1;
	if (!text || !a) {
		diag_error(d, (Loc){name, 0, 0, 0}, "out of memory");
		goto done;
	}
	if (len)
		memcpy(text, src, len);
	text[len] = '\0';
	Node *root = parse_source(a, d, name, text, len);
	if (!root)
		goto done;
	ast_print_file(&base, root);
	lex_all(&sl, text, len);
	StrBuf res;
	sb_init(&res);
	if (sl.failed || !weave(&res, &sl, sb_str(&base), base.len)) {
		sb_free(&res);
		diag_error(d, (Loc){name, 0, 0, 0}, "out of memory");
		goto done;
	}
	sb_puts(out, sb_str(&res));
	sb_free(&res);
	rc = 0;
done:
	lexed_free(&sl);
	sb_free(&base);
	arena_free(a);
	free(text);
	return rc;
}
