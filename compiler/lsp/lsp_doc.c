/* lsp_doc.c — a document's text for the language server: edits and positions.
 *
 * LSP counts columns in UTF-16 code units; the front end counts bytes from 1.  A character
 * of 1 to 3 UTF-8 bytes is one unit, of 4 bytes two (a surrogate pair). */
#include "lsp.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The offset where line (from 0) starts, or len when the text has fewer lines. */
static size_t line_start(const char *text, size_t len, int line)
{
	size_t i = 0;
	for (int l = 0; l < line && i < len; i++)
		if (text[i] == '\n')
			l++;
	return i;
}

/* The UTF-8 length of the character starting with byte c (1 for a stray continuation). */
static int utf8_len(unsigned char c)
{
	return c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
}

size_t lsp_offset(const char *text, size_t len, LspPos pos)
{
	if (pos.line < 0)
		return 0;
	size_t i = line_start(text, len, pos.line);
	for (int units = 0; i < len && text[i] != '\n' && units < pos.character;) {
		int n = utf8_len((unsigned char)text[i]);
		units += n == 4 ? 2 : 1;
		i += (size_t)n;
	}
	return i < len ? i : len;
}

LspPos lsp_pos_of(const char *text, size_t len, int line, int col)
{
	LspPos p = {line > 0 ? line - 1 : 0, 0};
	size_t i = line_start(text, len, p.line);
	for (size_t b = 1; i < len && text[i] != '\n' && b < (size_t)col;) {
		int n = utf8_len((unsigned char)text[i]);
		p.character += n == 4 ? 2 : 1;
		i += (size_t)n;
		b += (size_t)n;
	}
	return p;
}

bool lsp_doc_edit(LspDoc *d, size_t from, size_t to, const char *rep, size_t nrep)
{
	if (from > d->len)
		from = d->len;
	if (to > d->len)
		to = d->len;
	if (to < from)
		to = from;
	size_t n = d->len - (to - from) + nrep;
	char *t = malloc(n + 1);
	if (!t)
		return false;
	memcpy(t, d->text, from);
	memcpy(t + from, rep, nrep);
	memcpy(t + from + nrep, d->text + to, d->len - to);
	t[n] = '\0';
	free(d->text);
	d->text = t;
	d->len = n;
	return true;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

char *lsp_uri_path(const char *uri)
{
	if (strncmp(uri, "file://", 7) != 0)
		return NULL;
	const char *s = uri + 7;
	if (*s != '/') /* file://host/path: the host is ignored */
		s = strchr(s, '/');
	if (!s)
		return NULL;
	char *p = malloc(strlen(s) + 1), *o = p;
	if (!p)
		return NULL;
	for (; *s; s++) {
		int hi, lo;
		if (*s == '%' && (hi = hexval(s[1])) >= 0 && (lo = hexval(s[2])) >= 0) {
			*o++ = (char)(hi * 16 + lo);
			s += 2;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
	return p;
}

char *lsp_path_uri(const char *path)
{
	StrBuf sb;
	sb_init(&sb);
	sb_puts(&sb, "file://");
	if (path[0] != '/') {
		char cwd[4096];
		if (getcwd(cwd, sizeof cwd))
			sb_printf(&sb, "%s/", cwd);
	}
	for (const unsigned char *s = (const unsigned char *)path; *s; s++) {
		if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		    strchr("/-._~", *s))
			sb_putc(&sb, (char)*s);
		else
			sb_printf(&sb, "%%%02X", *s);
	}
	char *r = strdup(sb_str(&sb));
	sb_free(&sb);
	return r;
}
