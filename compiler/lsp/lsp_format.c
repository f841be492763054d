/* lsp_format.c — textDocument/formatting: the document in the canonical layout of
 * `sacc fmt` (fmt.h), comments and blank lines kept (see lsp.h).
 *
 * The answer is one edit replacing the whole text, or none when the text is in the layout
 * already; a text that does not parse is not touched (the request fails, and its errors
 * are in the document's diagnostics already). */
#include "lsp.h"

#include <string.h>

#include "fmt.h"

bool lsp_format(StrBuf *sb, const LspDoc *d, const char **why)
{
	StrBuf out;
	sb_init(&out);
	DiagSink *quiet = diag_new(NULL);
	int rc = fmt_buffer(d->path, d->text, d->len, &out, quiet);
	diag_free(quiet);
	if (rc != 0) {
		sb_free(&out);
		*why = "the document does not parse: it is formatted once its errors are fixed";
		return false;
	}
	if (out.len == d->len && memcmp(sb_str(&out), d->text, d->len) == 0) {
		sb_puts(sb, "[]");
		sb_free(&out);
		return true;
	}
	/* The end of the text: its last line, the characters after the last newline. */
	int lines = 1;
	size_t last = 0;
	for (size_t i = 0; i < d->len; i++)
		if (d->text[i] == '\n') {
			lines++;
			last = i + 1;
		}
	LspPos end = lsp_pos_of(d->text, d->len, lines, (int)(d->len - last) + 1);
	sb_printf(sb, "[{\"range\":{\"start\":{\"line\":0,\"character\":0},\"end\":{\"line\":%d,"
		  "\"character\":%d}},\"newText\":", end.line, end.character);
	json_put_stringn(sb, sb_str(&out), out.len);
	sb_puts(sb, "}]");
	sb_free(&out);
	return true;
}
