/* lsp_rpc.c — the wire of the language server: Content-Length framing and the JSON-RPC
 * envelopes of replies, errors and notifications (see lsp.h). */
#include "lsp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Header lines longer than this are read past and ignored. */
#define HEADER_LINE_MAX 1024

/* One header line without its CR LF; false at the end of the input. */
static bool read_header_line(FILE *in, char *buf, size_t size, bool *any)
{
	size_t n = 0;
	int ch;
	*any = false;
	while ((ch = getc(in)) != EOF) {
		*any = true;
		if (ch == '\n')
			break;
		if (n + 1 < size)
			buf[n++] = (char)ch;
	}
	if (n > 0 && buf[n - 1] == '\r')
		n--;
	buf[n] = '\0';
	return ch != EOF || *any;
}

LspRead lsp_read_message(FILE *in, char **body, size_t *len, const char **why)
{
	char line[HEADER_LINE_MAX];
	long long length = -1;
	bool bad_length = false, any_header = false, any;
	*body = NULL;
	*why = NULL;
	for (;;) {
		if (!read_header_line(in, line, sizeof line, &any))
			return LSP_READ_EOF;
		if (!line[0]) {
			if (!any_header)
				continue; /* blank lines between messages */
			break;
		}
		any_header = true;
		char *colon = strchr(line, ':');
		if (!colon)
			continue; /* not a header: tolerated, as the length still frames the body */
		*colon = '\0';
		if (strcasecmp(line, "Content-Length") != 0)
			continue; /* Content-Type and the like */
		char *v = colon + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		char *end;
		errno = 0;
		long long x = strtoll(v, &end, 10);
		while (*end == ' ' || *end == '\t')
			end++;
		if (errno || end == v || *end || x < 0)
			bad_length = true;
		else
			length = x;
	}
	if (bad_length || length < 0) {
		*why = "the message header has no valid Content-Length";
		return LSP_READ_BAD;
	}
	if ((unsigned long long)length > LSP_MAX_BODY) {
		for (long long i = 0; i < length && getc(in) != EOF; i++)
			;
		*why = "the message is too long";
		return LSP_READ_BAD;
	}
	char *b = malloc((size_t)length + 1);
	if (!b)
		return LSP_READ_EOF;
	size_t got = fread(b, 1, (size_t)length, in);
	if (got < (size_t)length) {
		free(b);
		return LSP_READ_EOF;
	}
	b[length] = '\0';
	*body = b;
	*len = (size_t)length;
	return LSP_READ_OK;
}

void lsp_write_message(FILE *out, const char *body, size_t len)
{
	fprintf(out, "Content-Length: %zu\r\n\r\n", len);
	fwrite(body, 1, len, out);
	fflush(out);
}

/* {"jsonrpc":"2.0","id":ID,KEY:VALUE} for a reply (id NULL writes null), or
 * {"jsonrpc":"2.0","method":METHOD,KEY:VALUE} for a notification; value is JSON text. */
static void send_object(FILE *out, bool reply, const Json *id, const char *method,
			const char *key, const char *value)
{
	StrBuf sb;
	sb_init(&sb);
	sb_puts(&sb, "{\"jsonrpc\":\"2.0\",");
	if (reply) {
		sb_puts(&sb, "\"id\":");
		if (id)
			json_put_value(&sb, id);
		else
			sb_puts(&sb, "null");
	} else {
		sb_puts(&sb, "\"method\":");
		json_put_string(&sb, method);
	}
	sb_printf(&sb, ",\"%s\":%s}", key, value);
	lsp_write_message(out, sb_str(&sb), sb.len);
	sb_free(&sb);
}

void lsp_reply(FILE *out, const Json *id, const char *result)
{
	send_object(out, true, id, NULL, "result", result);
}

void lsp_reply_error(FILE *out, const Json *id, int code, const char *message)
{
	StrBuf err;
	sb_init(&err);
	sb_printf(&err, "{\"code\":%d,\"message\":", code);
	json_put_string(&err, message);
	sb_putc(&err, '}');
	send_object(out, true, id, NULL, "error", sb_str(&err));
	sb_free(&err);
}

void lsp_notify(FILE *out, const char *method, const char *params)
{
	send_object(out, false, NULL, method, "params", params);
}
