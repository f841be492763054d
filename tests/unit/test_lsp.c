/* test_lsp.c — `sacc lsp` at the protocol level: framed JSON-RPC messages fed to the
 * server (lsp_serve over memory streams, and the sacc binary over pipes), the replies
 * parsed and asserted.  Places are checked against the script's text, searched here by
 * hand; what the hover says of an inner's variable, and what completion offers after
 * `window.`, against the window FMU's model description read here with fmu_open. */
#define _XOPEN_SOURCE 700
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fmu.h"
#include "json.h"
#include "lsp.h"
#include "sacc_test.h"
#include "util.h"

#include "assert_contains.h"

/* The tutorial's wrapper of the window FMU (docs/examples/tutorial/window_fix.sa), with
 * a param to rename and a comment holding characters UTF-16 counts apart from UTF-8. */
static const char script[] =
	"module window_fix\n"
	"\n"
	"semantic adaptation reactive mealy window_fix\n"
	"at \"window_fix.fmu\"\n"
	"\n"
	"\tfor inner fmu Window window\n"
	"\t\tat \"window.fmu\"\n"
	"\t\twith output ports Real height (cm), Real reaction_torque (N.m)\n"
	"\n"
	"input ports Real displacement (rad) -> window.displacement,\n"
	"\tReal speed (rad/s) -> window.speed\n"
	"\n"
	"output ports Real height (m) <- window.height,\n"
	"\tReal load_torque (N.m)\n"
	"\n"
	"param SIGN := -1.0;\n"
	"\n"
	"out rules {\n"
	"\ttrue -> { } --> { window_fix.load_torque := SIGN * window.reaction_torque; }; // \xc3\xa9\xf0\x9f\x98\x80\n"
	"}\n";

#define URI "file:///tmp/sacc_test_lsp/window_fix.sa"

/* ---- a session: messages in, replies out ------------------------------------------- */

typedef struct Session {
	StrBuf in;
	Json **msgs;     /* what the server wrote, in order */
	int nmsgs;
	int rc;
	LspEnv env;
} Session;

static void frame(Session *s, const char *body)
{
	sb_printf(&s->in, "Content-Length: %zu\r\n\r\n%s", strlen(body), body);
}

static void send_raw(Session *s, const char *bytes)
{
	sb_puts(&s->in, bytes);
}

static void sendf(Session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sendf(Session *s, const char *fmt, ...)
{
	char buf[8192];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	frame(s, buf);
}

static void send_open(Session *s, const char *text)
{
	StrBuf b;
	sb_init(&b);
	sb_puts(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{"
		"\"textDocument\":{\"uri\":\"" URI "\",\"languageId\":\"sa\",\"version\":1,\"text\":");
	json_put_string(&b, text);
	sb_puts(&b, "}}}");
	frame(s, sb_str(&b));
	sb_free(&b);
}

/* didChange replacing the whole text. */
static void send_whole_change(Session *s, int version, const char *text)
{
	StrBuf b;
	sb_init(&b);
	sb_printf(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didChange\",\"params\":{"
		  "\"textDocument\":{\"uri\":\"" URI "\",\"version\":%d},\"contentChanges\":[{"
		  "\"text\":", version);
	json_put_string(&b, text);
	sb_puts(&b, "}]}}");
	frame(s, sb_str(&b));
	sb_free(&b);
}

static void send_initialize(Session *s)
{
	char fmus[600];
	snprintf(fmus, sizeof fmus, "%s/fmus", test_build_dir());
	StrBuf b;
	sb_init(&b);
	sb_puts(&b, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
		"\"processId\":null,\"rootUri\":null,\"capabilities\":{},"
		"\"initializationOptions\":{\"fmuDirs\":[");
	json_put_string(&b, fmus);
	sb_puts(&b, "]}}}");
	frame(s, sb_str(&b));
	sb_free(&b);
	frame(s, "{\"jsonrpc\":\"2.0\",\"method\":\"initialized\",\"params\":{}}");
}

/* Runs the server over everything sent; splits its output into messages. */
static void run(Session *s)
{
	FILE *in = fmemopen((void *)sb_str(&s->in), s->in.len, "r");
	char *out = NULL;
	size_t outlen = 0;
	FILE *o = open_memstream(&out, &outlen);
	assert_non_null(in);
	assert_non_null(o);
	s->rc = lsp_serve(in, o, &s->env);
	fclose(in);
	fclose(o);
	for (size_t i = 0; i < outlen;) {
		size_t n = 0;
		int used = 0;
		assert_int_equal(sscanf(out + i, "Content-Length: %zu\r\n\r\n%n", &n, &used), 1);
		assert_true(used > 0 && i + (size_t)used + n <= outlen);
		const char *err = NULL;
		Json *m = json_parse(out + i + used, n, &err);
		assert_non_null(m);
		s->msgs = realloc(s->msgs, (size_t)(s->nmsgs + 1) * sizeof *s->msgs);
		s->msgs[s->nmsgs++] = m;
		i += (size_t)used + n;
	}
	free(out);
}

static void session_free(Session *s)
{
	for (int i = 0; i < s->nmsgs; i++)
		json_free(s->msgs[i]);
	free(s->msgs);
	sb_free(&s->in);
	lsp_env_free(&s->env);
}

/* The reply to request id (asserted to exist, and to be the only one). */
static const Json *reply_to(const Session *s, long long id)
{
	const Json *found = NULL;
	for (int i = 0; i < s->nmsgs; i++) {
		long long x;
		if (json_int(json_get(s->msgs[i], "id"), &x) && x == id) {
			assert_null(found);
			found = s->msgs[i];
		}
	}
	if (!found)
		fail_msg("no reply to request %lld", id);
	return found;
}

static long long error_code(const Json *reply)
{
	long long code = 0;
	assert_true(json_int(json_path(reply, "error", "code", NULL), &code));
	return code;
}

/* The diagnostics of the n-th publishDiagnostics (from 0; -1: the last). */
static const Json *published(const Session *s, int n)
{
	const Json *found = NULL;
	int seen = 0;
	for (int i = 0; i < s->nmsgs; i++) {
		const char *m = json_string(json_get(s->msgs[i], "method"));
		if (m && strcmp(m, "textDocument/publishDiagnostics") == 0 && (n < 0 || seen++ == n))
			found = json_path(s->msgs[i], "params", "diagnostics", NULL);
	}
	assert_non_null(found);
	assert_int_equal(found->kind, JSON_ARRAY);
	return found;
}

static long long num_at(const Json *v, const char *k1, const char *k2, const char *k3)
{
	long long x = -1;
	assert_true(json_int(json_path(v, k1, k2, k3, NULL), &x));
	return x;
}

/* The 0-based line and byte column of the n-th (from 0) occurrence of needle in text. */
static void where(const char *text, const char *needle, int n, int *line, int *col)
{
	const char *p = text;
	for (int i = 0; i <= n; i++) {
		p = strstr(i ? p + 1 : p, needle);
		assert_non_null(p);
	}
	*line = 0;
	const char *ls = text;
	for (const char *q = text; q < p; q++)
		if (*q == '\n') {
			(*line)++;
			ls = q + 1;
		}
	*col = (int)(p - ls);
}

static int count(const char *text, const char *needle)
{
	int n = 0;
	for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* A request at the place of the nth needle in text, offset characters into it. */
static void request_in(Session *s, const char *text, const char *method, long long id,
		       const char *needle, int nth, int offset)
{
	int line, col;
	where(text, needle, nth, &line, &col);
	sendf(s, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":\"%s\",\"params\":{\"textDocument\":"
	      "{\"uri\":\"" URI "\"},\"position\":{\"line\":%d,\"character\":%d}}}", id, method,
	      line, col + offset);
}

static void session_at(Session *s, const char *method, long long id, const char *needle,
		       int nth, int offset)
{
	request_in(s, script, method, id, needle, nth, offset);
}

/* A session initialized, with text open. */
static void start(Session *s, const char *text)
{
	send_initialize(s);
	send_open(s, text);
}

static FmuInfo *window_fmu(void)
{
	char path[600];
	snprintf(path, sizeof path, "%s/fmus/window.fmu", test_build_dir());
	DiagSink *d = diag_new(stderr);
	FmuInfo *f = fmu_open(path, d);
	diag_free(d);
	assert_non_null(f);
	return f;
}

/* ---- the life cycle ---------------------------------------------------------------- */

static void lifecycle__before_initialize_refused__shutdown_then_exit_is_0(void **state)
{
	(void)state;
	Session s = {0};
	frame(&s, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"textDocument/hover\",\"params\":{}}");
	send_initialize(&s);
	frame(&s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":{}}");
	frame(&s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"shutdown\"}");
	frame(&s, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"textDocument/hover\",\"params\":{}}");
	frame(&s, "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}");
	frame(&s, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"shutdown\"}"); /* never read */
	run(&s);
	assert_int_equal(s.rc, 0);
	assert_int_equal(error_code(reply_to(&s, 7)), RPC_SERVER_NOT_INITIALIZED);
	const Json *caps = json_path(reply_to(&s, 1), "result", "capabilities", NULL);
	bool b = false;
	assert_true(json_bool(json_get(caps, "hoverProvider"), &b) && b);
	assert_true(json_bool(json_get(caps, "renameProvider"), &b) && b);
	assert_int_equal(num_at(caps, "textDocumentSync", "change", NULL), 2);
	assert_int_equal(error_code(reply_to(&s, 2)), RPC_INVALID_REQUEST);
	assert_int_equal(json_get(reply_to(&s, 3), "result")->kind, JSON_NULL);
	assert_int_equal(error_code(reply_to(&s, 4)), RPC_INVALID_REQUEST);
	for (int i = 0; i < s.nmsgs; i++) /* nothing after exit */
		assert_false(json_int(json_get(s.msgs[i], "id"), &(long long){0}) &&
			     json_get(s.msgs[i], "id")->number == 5);
	session_free(&s);
}

static void lifecycle__exit_without_shutdown_or_end_of_input_is_1(void **state)
{
	(void)state;
	Session s = {0};
	send_initialize(&s);
	frame(&s, "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}");
	run(&s);
	assert_int_equal(s.rc, 1);
	session_free(&s);

	Session t = {0};
	send_initialize(&t);
	frame(&t, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"shutdown\"}");
	run(&t); /* the input ends without exit */
	assert_int_equal(t.rc, 1);
	session_free(&t);
}

/* ---- malformed messages ------------------------------------------------------------ */

static void malformed__each_gets_its_error_and_the_server_goes_on(void **state)
{
	(void)state;
	Session s = {0};
	send_initialize(&s);
	send_raw(&s, "Content-Length: 9\r\n\r\n{\"a\": 1,");     /* 1: no JSON */
	send_raw(&s, "Content-Type: text/plain\r\n\r\n");        /* 2: no length */
	send_raw(&s, "Content-Length: 12x\r\n\r\n");             /* 3: bad length */
	frame(&s, "[1, 2]");                                     /* 4: a batch */
	frame(&s, "{\"jsonrpc\":\"1.0\",\"id\":10,\"method\":\"shutdown\"}"); /* 5 */
	frame(&s, "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"textDocument/nothing\"}");
	frame(&s, "{\"jsonrpc\":\"2.0\",\"method\":\"$/cancelRequest\",\"params\":{\"id\":3}}");
	frame(&s, "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"textDocument/hover\","
		  "\"params\":{\"textDocument\":{\"uri\":\"" URI "\"}}}");
	frame(&s, "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"textDocument/hover\",\"params\":3}");
	frame(&s, "{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"textDocument/rename\",\"params\":"
		  "{\"textDocument\":{\"uri\":\"" URI "\"},\"position\":{\"line\":0,\"character\":0}}}");
	frame(&s, "{\"jsonrpc\":\"2.0\",\"id\":15,\"method\":7}");
	send_open(&s, script);
	session_at(&s, "textDocument/hover", 16, "window.height", 0, 8);
	frame(&s, "{\"jsonrpc\":\"2.0\",\"id\":17,\"method\":\"textDocument/hover\",\"params\":"
		  "{\"textDocument\":{\"uri\":\"" URI "\"},\"position\":{\"line\":-1,\"character\":0}}}");
	frame(&s, "{\"jsonrpc\":\"2.0\",\"id\":18,\"method\":\"shutdown\"}");
	frame(&s, "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}");
	run(&s);
	assert_int_equal(s.rc, 0);
	/* Three replies to unreadable messages have id null, in order, then the batch's. */
	int nulls = 0;
	long long codes[4];
	for (int i = 0; i < s.nmsgs; i++) {
		const Json *id = json_get(s.msgs[i], "id");
		if (id && id->kind == JSON_NULL && nulls < 4)
			codes[nulls++] = error_code(s.msgs[i]);
	}
	assert_int_equal(nulls, 4);
	assert_int_equal(codes[0], RPC_PARSE_ERROR);
	assert_int_equal(codes[1], RPC_PARSE_ERROR);
	assert_int_equal(codes[2], RPC_PARSE_ERROR);
	assert_int_equal(codes[3], RPC_INVALID_REQUEST);
	assert_int_equal(error_code(reply_to(&s, 10)), RPC_INVALID_REQUEST);
	assert_int_equal(error_code(reply_to(&s, 11)), RPC_METHOD_NOT_FOUND);
	assert_int_equal(error_code(reply_to(&s, 12)), RPC_INVALID_PARAMS);
	assert_int_equal(error_code(reply_to(&s, 13)), RPC_INVALID_PARAMS);
	assert_int_equal(error_code(reply_to(&s, 14)), RPC_INVALID_PARAMS);
	assert_int_equal(error_code(reply_to(&s, 15)), RPC_INVALID_REQUEST);
	assert_int_equal(error_code(reply_to(&s, 17)), RPC_INVALID_PARAMS);
	/* The server still answers. */
	assert_non_null(json_path(reply_to(&s, 16), "result", "contents", NULL));
	assert_int_equal(json_get(reply_to(&s, 18), "result")->kind, JSON_NULL);
	session_free(&s);
}

/* ---- diagnostics --------------------------------------------------------------------- */

static void diagnostics__error_with_range_and_note__then_fixed_by_an_edit(void **state)
{
	(void)state;
	/* The misspelled port is on the line that ends in the comment of wide characters,
	 * before it. */
	char *bad = strdup(script);
	char *p = strstr(bad, "window.reaction_torque;");
	memmove(p + strlen("window.reaction_torqu"), p + strlen("window.reaction_torque"),
		strlen(p + strlen("window.reaction_torque")) + 1);
	Session s = {0};
	send_initialize(&s);
	send_open(&s, bad);
	/* Put the 'e' back with an incremental change, at the place computed by hand. */
	int line, col;
	where(bad, "reaction_torqu;", 0, &line, &col);
	sendf(&s, "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didChange\",\"params\":{"
	      "\"textDocument\":{\"uri\":\"" URI "\",\"version\":2},\"contentChanges\":[{\"range\":"
	      "{\"start\":{\"line\":%d,\"character\":%d},\"end\":{\"line\":%d,\"character\":%d}},"
	      "\"text\":\"e\"}]}}", line, col + 14, line, col + 14);
	/* And break it again with a whole-text change. */
	send_whole_change(&s, 3, bad);
	run(&s);

	const Json *d0 = published(&s, 0);
	assert_int_equal(d0->n, 1);
	const Json *e = d0->items[0];
	assert_int_equal(num_at(e, "severity", NULL, NULL), 1);
	assert_string_equal(json_string(json_get(e, "message")),
			    "inner fmu 'window' has no port 'reaction_torqu'");
	assert_int_equal(num_at(e, "range", "start", "line"), line);
	assert_int_equal(num_at(e, "range", "start", "character"), col);
	assert_int_equal(num_at(e, "range", "end", "character"), col + 14);
	const Json *rel = json_get(e, "relatedInformation");
	assert_non_null(rel);
	assert_int_equal(rel->n, 1);
	assert_string_equal(json_string(json_get(rel->items[0], "message")),
			    "did you mean 'reaction_torque'?");
	assert_int_equal(published(&s, 1)->n, 0);
	assert_int_equal(published(&s, 2)->n, 1);
	/* The version each publication is about. */
	int v = 0;
	for (int i = 0; i < s.nmsgs; i++)
		if (json_path(s.msgs[i], "params", "diagnostics", NULL))
			assert_int_equal(num_at(s.msgs[i], "params", "version", NULL), ++v);
	assert_int_equal(v, 3);
	session_free(&s);
	free(bad);
}

static void positions__utf16_columns_against_utf8_bytes(void **state)
{
	(void)state;
	/* "aé😀b": a 1 byte/1 unit, é 2 bytes/1 unit, 😀 4 bytes/2 units. */
	const char *t = "x\na\xc3\xa9\xf0\x9f\x98\x80" "b\n";
	size_t len = strlen(t);
	assert_int_equal(lsp_offset(t, len, (LspPos){1, 0}), 2);
	assert_int_equal(lsp_offset(t, len, (LspPos){1, 2}), 5);
	assert_int_equal(lsp_offset(t, len, (LspPos){1, 4}), 9);
	assert_int_equal(lsp_offset(t, len, (LspPos){1, 99}), 10); /* clamped to the line */
	assert_int_equal(lsp_offset(t, len, (LspPos){9, 0}), len);
	LspPos p = lsp_pos_of(t, len, 2, 8); /* 'b': byte column 8 */
	assert_int_equal(p.line, 1);
	assert_int_equal(p.character, 4);
	char *path = lsp_uri_path("file:///a%20b/c.sa");
	assert_string_equal(path, "/a b/c.sa");
	char *uri = lsp_path_uri(path);
	assert_string_equal(uri, "file:///a%20b/c.sa");
	free(path);
	free(uri);
	assert_null(lsp_uri_path("untitled:1"));
}

/* ---- hover, definition, completion, symbols ------------------------------------------ */

static void hover__inner_variable_from_the_model_description(void **state)
{
	(void)state;
	FmuInfo *f = window_fmu();
	const FmuVar *h = fmu_find_var(f, "height");
	assert_non_null(h);
	Session s = {0};
	start(&s, script);
	session_at(&s, "textDocument/hover", 2, "window.height", 0, 8);  /* the port */
	session_at(&s, "textDocument/hover", 3, "window.height", 0, 2);  /* the owner */
	session_at(&s, "textDocument/hover", 4, "(rad/s)", 0, 2);        /* a unit */
	session_at(&s, "textDocument/hover", 5, "SIGN *", 0, 1);          /* a param */
	session_at(&s, "textDocument/hover", 6, "\n\n", 0, 0);            /* nothing */
	run(&s);
	const char *v = json_string(json_path(reply_to(&s, 2), "result", "contents", "value", NULL));
	assert_non_null(v);
	char expect[1024];
	snprintf(expect, sizeof expect, "Real, output, %s, unit `%s`",
		 fmu_variability_name(h->variability), h->unit);
	assert_contains(v, expect);
	assert_contains(v, h->description);
	v = json_string(json_path(reply_to(&s, 3), "result", "contents", "value", NULL));
	assert_contains(v, "inner fmu");
	assert_contains(v, f->model_name);
	assert_contains(v, f->fmi_version);
	v = json_string(json_path(reply_to(&s, 4), "result", "contents", "value", NULL));
	assert_contains(v, "1 rad/s = 1 rad.s^-1");
	v = json_string(json_path(reply_to(&s, 5), "result", "contents", "value", NULL));
	assert_contains(v, "**SIGN** — param");
	assert_int_equal(json_get(reply_to(&s, 6), "result")->kind, JSON_NULL);
	session_free(&s);
	fmu_free(f);
}

static void definition__inner_declaration_param_and_the_fmu_file(void **state)
{
	(void)state;
	Session s = {0};
	start(&s, script);
	session_at(&s, "textDocument/definition", 2, "window.reaction_torque;", 0, 1);
	session_at(&s, "textDocument/definition", 3, "SIGN *", 0, 0);
	session_at(&s, "textDocument/definition", 4, "\"window.fmu\"", 0, 3);
	session_at(&s, "textDocument/definition", 5, "window_fix.load_torque :=", 0, 14);
	run(&s);
	int line, col;
	where(script, "Window window", 0, &line, &col);
	const Json *r = json_get(reply_to(&s, 2), "result");
	assert_string_equal(json_string(json_get(r, "uri")), URI);
	assert_int_equal(num_at(r, "range", "start", "line"), line);
	assert_int_equal(num_at(r, "range", "start", "character"), col + 7);
	where(script, "SIGN :=", 0, &line, &col);
	r = json_get(reply_to(&s, 3), "result");
	assert_int_equal(num_at(r, "range", "start", "line"), line);
	assert_int_equal(num_at(r, "range", "start", "character"), col);
	r = json_get(reply_to(&s, 4), "result");
	const char *uri = json_string(json_get(r, "uri"));
	assert_non_null(uri);
	assert_true(str_ends_with(uri, "/fmus/window.fmu"));
	where(script, "load_torque (N.m)", 0, &line, &col);
	r = json_get(reply_to(&s, 5), "result");
	assert_int_equal(num_at(r, "range", "start", "line"), line);
	assert_int_equal(num_at(r, "range", "start", "character"), col);
	session_free(&s);
}

static int has_label(const Json *items, const char *label)
{
	int n = 0;
	for (int i = 0; i < items->n; i++)
		n += strcmp(json_string(json_get(items->items[i], "label")), label) == 0;
	return n;
}

static void completion__ports_after_inst_dot_units_in_parentheses_keywords(void **state)
{
	(void)state;
	FmuInfo *f = window_fmu();
	/* While `window.` is typed the line does not parse: completion answers from the last
	 * text that did. */
	char *typing = strdup(script);
	char *p = strstr(typing, "SIGN * ");
	memcpy(p, "window.", 7);
	Session s = {0};
	start(&s, script);
	send_whole_change(&s, 2, typing);
	request_in(&s, typing, "textDocument/completion", 2, "window.window", 0, 7);
	request_in(&s, typing, "textDocument/completion", 3, "(rad/s)", 0, 1);
	request_in(&s, typing, "textDocument/completion", 4, "out rules", 0, 0);
	run(&s);
	assert_true(published(&s, 1)->n > 0); /* the typing does not parse */
	const Json *items = json_path(reply_to(&s, 2), "result", "items", NULL);
	int ports = 0;
	for (int i = 0; i < f->nvars; i++)
		if (f->vars[i].causality == CAUS_INPUT || f->vars[i].causality == CAUS_OUTPUT) {
			assert_int_equal(has_label(items, f->vars[i].name), 1);
			ports++;
		}
	assert_int_equal(items->n, ports);
	items = json_path(reply_to(&s, 3), "result", "items", NULL);
	assert_int_equal(has_label(items, "cm"), 1);      /* a unit of the script */
	assert_int_equal(has_label(items, "N.m"), 1);
	assert_int_equal(has_label(items, "module"), 0);  /* no keyword among units */
	items = json_path(reply_to(&s, 4), "result", "items", NULL);
	assert_int_equal(has_label(items, "semantic"), 1);
	assert_int_equal(has_label(items, "window"), 1);
	assert_int_equal(has_label(items, "SIGN"), 1);
	assert_int_equal(has_label(items, "load_torque"), 1);
	session_free(&s);
	free(typing);
	fmu_free(f);
}

static void symbols__adaptation_with_inner_ports_and_params(void **state)
{
	(void)state;
	Session s = {0};
	start(&s, script);
	frame(&s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"textDocument/documentSymbol\",\"params\":"
		  "{\"textDocument\":{\"uri\":\"" URI "\"}}}");
	run(&s);
	const Json *r = json_get(reply_to(&s, 2), "result");
	assert_int_equal(r->n, 1);
	assert_string_equal(json_string(json_get(r->items[0], "name")), "window_fix");
	const Json *kids = json_get(r->items[0], "children");
	/* the inner, two inputs, two outputs, one param */
	assert_int_equal(kids->n, 6);
	assert_string_equal(json_string(json_get(kids->items[0], "name")), "window");
	assert_int_equal(json_get(kids->items[0], "children")->n, 2);
	assert_string_equal(json_string(json_get(kids->items[5], "name")), "SIGN");
	session_free(&s);
}

/* An imported module: controller_sa imports lazy_sa, whose adaptation builds the inner
 * lazy_sa.fmu; hover names the module's file and adaptation, definition goes to the file. */
static void import__hover_and_definition_of_a_module(void **state)
{
	(void)state;
	char *text = read_file("adaptations/powerwindow/controller_sa.sa", 1 << 20, &(size_t){0});
	assert_non_null(text);
	char cwd[4096];
	assert_non_null(getcwd(cwd, sizeof cwd));
	char uri[4300];
	snprintf(uri, sizeof uri, "file://%s/adaptations/powerwindow/controller_sa.sa", cwd);
	Session s = {0};
	send_initialize(&s);
	StrBuf b;
	sb_init(&b);
	sb_printf(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{"
		  "\"textDocument\":{\"uri\":\"%s\",\"languageId\":\"sa\",\"version\":1,\"text\":", uri);
	json_put_string(&b, text);
	sb_puts(&b, "}}}");
	frame(&s, sb_str(&b));
	sb_free(&b);
	int line, col;
	where(text, "import lazy_sa", 0, &line, &col);
	for (int id = 2; id <= 3; id++)
		sendf(&s, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"textDocument/%s\",\"params\":{"
		      "\"textDocument\":{\"uri\":\"%s\"},\"position\":{\"line\":%d,\"character\":%d}}}",
		      id, id == 2 ? "hover" : "definition", uri, line, col + 9);
	run(&s);
	assert_int_equal(published(&s, 0)->n, 0);
	const char *v = json_string(json_path(reply_to(&s, 2), "result", "contents", "value", NULL));
	assert_non_null(v);
	assert_contains(v, "**module lazy_sa**");
	assert_contains(v, "adaptations/powerwindow/lazy_sa.sa");
	assert_contains(v, "adaptation `lazy_sa` at `lazy_sa.fmu`");
	const char *target = json_string(json_path(reply_to(&s, 3), "result", "uri", NULL));
	assert_non_null(target);
	assert_true(str_ends_with(target, "/adaptations/powerwindow/lazy_sa.sa"));
	session_free(&s);
	free(text);
}

/* An import open in the editor is read from its buffer: renaming lazy_sa's output port
 * `up` there, unsaved, makes controller_sa (which wires lazy.up) wrong at once, and the
 * server publishes controller_sa's diagnostics again without being asked. */
static void import__an_open_module_is_read_from_its_unsaved_buffer(void **state)
{
	(void)state;
	char *ctl = read_file("adaptations/powerwindow/controller_sa.sa", 1 << 20, &(size_t){0});
	char *lazy = read_file("adaptations/powerwindow/lazy_sa.sa", 1 << 20, &(size_t){0});
	assert_non_null(ctl);
	assert_non_null(lazy);
	char cwd[4096], ctl_uri[4300], lazy_uri[4300];
	assert_non_null(getcwd(cwd, sizeof cwd));
	snprintf(ctl_uri, sizeof ctl_uri, "file://%s/adaptations/powerwindow/controller_sa.sa", cwd);
	snprintf(lazy_uri, sizeof lazy_uri, "file://%s/adaptations/powerwindow/lazy_sa.sa", cwd);
	Session s = {0};
	send_initialize(&s);
	const char *uris[] = {ctl_uri, lazy_uri}, *texts[] = {ctl, lazy};
	for (int i = 0; i < 2; i++) {
		StrBuf b;
		sb_init(&b);
		sb_printf(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{"
			  "\"textDocument\":{\"uri\":\"%s\",\"languageId\":\"sa\",\"version\":1,"
			  "\"text\":", uris[i]);
		json_put_string(&b, texts[i]);
		sb_puts(&b, "}}}");
		frame(&s, sb_str(&b));
		sb_free(&b);
	}
	int line, col;
	where(lazy, "output ports Bool up <-", 0, &line, &col);
	sendf(&s, "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didChange\",\"params\":{"
	      "\"textDocument\":{\"uri\":\"%s\",\"version\":2},\"contentChanges\":[{\"range\":"
	      "{\"start\":{\"line\":%d,\"character\":%d},\"end\":{\"line\":%d,\"character\":%d}},"
	      "\"text\":\"upx\"}]}}", lazy_uri, line, col + 18, line, col + 20);
	run(&s);
	/* Published in order: controller (clean), lazy (clean), lazy (clean: its own port
	 * renamed is fine), controller again (wrong). */
	const char *order[] = {ctl_uri, lazy_uri, lazy_uri, ctl_uri};
	int n = 0;
	for (int i = 0; i < s.nmsgs; i++) {
		const Json *p = json_get(s.msgs[i], "params");
		if (!json_get(p, "diagnostics"))
			continue;
		assert_true(n < 4);
		assert_string_equal(json_string(json_get(p, "uri")), order[n]);
		const Json *d = json_get(p, "diagnostics");
		if (n < 3)
			assert_int_equal(d->n, 0);
		else
			assert_true(d->n > 0);
		n++;
	}
	assert_int_equal(n, 4);
	session_free(&s);
	free(ctl);
	free(lazy);
}

/* JSON nested past the reader's bound is refused, not recursed into. */
static void malformed__deep_nesting_is_a_parse_error(void **state)
{
	(void)state;
	StrBuf deep;
	sb_init(&deep);
	for (int i = 0; i < 100000; i++)
		sb_putc(&deep, '[');
	const char *err = NULL;
	assert_null(json_parse(sb_str(&deep), deep.len, &err));
	assert_string_equal(err, "nested too deeply");
	Session s = {0};
	send_initialize(&s);
	frame(&s, sb_str(&deep));
	frame(&s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"shutdown\"}");
	run(&s);
	assert_int_equal(error_code(s.msgs[1]), RPC_PARSE_ERROR);
	assert_int_equal(json_get(reply_to(&s, 2), "result")->kind, JSON_NULL);
	sb_free(&deep);
	session_free(&s);
}

/* ---- rename and formatting ----------------------------------------------------------- */

/* Applies a TextEdit list (single-line ranges, as rename gives) to text, last first. */
static char *apply_edits(const char *text, const Json *edits)
{
	char *t = strdup(text);
	for (int i = edits->n - 1; i >= 0; i--) {
		const Json *e = edits->items[i];
		LspDoc d = {.text = t, .len = strlen(t)};
		LspPos a = {(int)num_at(e, "range", "start", "line"),
			    (int)num_at(e, "range", "start", "character")};
		LspPos z = {(int)num_at(e, "range", "end", "line"),
			    (int)num_at(e, "range", "end", "character")};
		const char *nt = json_string(json_get(e, "newText"));
		assert_true(lsp_doc_edit(&d, lsp_offset(t, d.len, a), lsp_offset(t, d.len, z), nt,
					 strlen(nt)));
		t = d.text;
	}
	return t;
}

static void rename__a_param_everywhere_and_an_inner_port_refused(void **state)
{
	(void)state;
	Session s = {0};
	start(&s, script);
	int line, col;
	where(script, "SIGN *", 0, &line, &col);
	sendf(&s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"textDocument/rename\",\"params\":{"
	      "\"textDocument\":{\"uri\":\"" URI "\"},\"position\":{\"line\":%d,\"character\":%d},"
	      "\"newName\":\"GAIN\"}}", line, col + 2);
	where(script, "window.height", 0, &line, &col);
	sendf(&s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"textDocument/rename\",\"params\":{"
	      "\"textDocument\":{\"uri\":\"" URI "\"},\"position\":{\"line\":%d,\"character\":%d},"
	      "\"newName\":\"h\"}}", line, col + 9);
	where(script, "SIGN :=", 0, &line, &col);
	sendf(&s, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"textDocument/rename\",\"params\":{"
	      "\"textDocument\":{\"uri\":\"" URI "\"},\"position\":{\"line\":%d,\"character\":%d},"
	      "\"newName\":\"out\"}}", line, col);
	run(&s);
	const Json *edits = json_path(reply_to(&s, 2), "result", "changes", URI, NULL);
	assert_non_null(edits);
	assert_int_equal(edits->n, count(script, "SIGN"));
	char *renamed = apply_edits(script, edits);
	assert_int_equal(count(renamed, "SIGN"), 0);
	assert_int_equal(count(renamed, "GAIN"), count(script, "SIGN"));
	assert_int_equal(error_code(reply_to(&s, 3)), RPC_REQUEST_FAILED);
	assert_int_equal(error_code(reply_to(&s, 4)), RPC_REQUEST_FAILED); /* a reserved word */
	session_free(&s);

	/* The renamed script checks clean. */
	Session t = {0};
	send_initialize(&t);
	send_open(&t, renamed);
	run(&t);
	assert_int_equal(published(&t, 0)->n, 0);
	session_free(&t);
	free(renamed);
}

static void formatting__one_edit_keeping_comments_then_none(void **state)
{
	(void)state;
	const char *messy = "module   m   // the module\n"
			    "semantic adaptation reactive moore m at \"m.fmu\"\n"
			    "  for inner fmu Window window at \"window.fmu\"\n"
			    "input ports Real   a -> window.displacement  // in\n";
	Session s = {0};
	send_initialize(&s);
	send_open(&s, messy);
	frame(&s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"textDocument/formatting\",\"params\":"
		  "{\"textDocument\":{\"uri\":\"" URI "\"},\"options\":{\"tabSize\":8,"
		  "\"insertSpaces\":false}}}");
	run(&s);
	const Json *edits = json_get(reply_to(&s, 2), "result");
	assert_int_equal(edits->n, 1);
	assert_int_equal(num_at(edits->items[0], "range", "end", "line"), 4);
	char *formatted = apply_edits(messy, edits);
	assert_contains(formatted, "// the module");
	assert_contains(formatted, "// in");
	assert_contains(formatted, "module m");
	assert_null(strstr(formatted, "Real   a"));
	session_free(&s);

	Session t = {0};
	send_initialize(&t);
	send_open(&t, formatted);
	frame(&t, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"textDocument/formatting\",\"params\":"
		  "{\"textDocument\":{\"uri\":\"" URI "\"},\"options\":{}}}");
	send_open(&t, "module m semantic");
	frame(&t, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"textDocument/formatting\",\"params\":"
		  "{\"textDocument\":{\"uri\":\"" URI "\"},\"options\":{}}}");
	run(&t);
	assert_int_equal(json_get(reply_to(&t, 2), "result")->n, 0);
	assert_int_equal(error_code(reply_to(&t, 3)), RPC_REQUEST_FAILED);
	session_free(&t);
	free(formatted);
}

/* ---- edits without re-reading FMUs, and many of them ---------------------------------- */

static void cache__an_edit_rereads_no_fmu_a_changed_one_is_read_again(void **state)
{
	(void)state;
	char fmus[600], dir[] = "/tmp/sacc_test_lsp_XXXXXX", copy[700];
	snprintf(fmus, sizeof fmus, "%s/fmus/window.fmu", test_build_dir());
	assert_non_null(mkdtemp(dir));
	snprintf(copy, sizeof copy, "%s/window.fmu", dir);
	assert_int_equal(copy_file(fmus, copy), 0);
	char fmu_dir_json[800];
	snprintf(fmu_dir_json, sizeof fmu_dir_json, "%s", dir);

	Session s = {0};
	lsp_env_add_dir(&s.env.fmu_dirs, &s.env.nfmu_dirs, fmu_dir_json);
	frame(&s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}");
	send_open(&s, script);
	for (int v = 2; v < 6; v++)
		sendf(&s, "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didChange\",\"params\":{"
		      "\"textDocument\":{\"uri\":\"" URI "\",\"version\":%d},\"contentChanges\":[{"
		      "\"range\":{\"start\":{\"line\":0,\"character\":0},\"end\":{\"line\":0,"
		      "\"character\":0}},\"text\":\"%s\"}]}}", v, v % 2 ? "" : " ");
	run(&s);
	assert_int_equal(s.env.fmu_reads, 1);
	for (int i = 0; i < 5; i++)
		assert_int_equal(published(&s, i)->n, 0);

	/* The file changes (a new mtime): the next check reads it again. */
	struct timeval later[2];
	gettimeofday(&later[0], NULL);
	later[0].tv_sec += 10;
	later[1] = later[0];
	assert_int_equal(utimes(copy, later), 0);
	Session t = s;
	t.msgs = NULL;
	t.nmsgs = 0;
	sb_init(&t.in);
	frame(&t, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}");
	send_open(&t, script);
	frame(&t, "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didSave\",\"params\":{"
		  "\"textDocument\":{\"uri\":\"" URI "\"}}}");
	run(&t);
	assert_int_equal(t.env.fmu_reads, 2);
	for (int i = 0; i < s.nmsgs; i++)
		json_free(s.msgs[i]);
	free(s.msgs);
	sb_free(&s.in);
	session_free(&t);
	unlink(copy);
	rmdir(dir);
}

/* Many edits, each checked: run under valgrind (tests/valgrind.sh), this is the test that
 * nothing leaks.  SACC_LSP_EDITS sets their number (default 10000). */
static void many_edits__each_checked_none_leaks(void **state)
{
	(void)state;
	const char *env = getenv("SACC_LSP_EDITS");
	int edits = env ? atoi(env) : 10000;
	Session s = {0};
	start(&s, script);
	int line, col;
	where(script, "reaction_torque;", 0, &line, &col);
	for (int v = 0; v < edits; v++) {
		/* Delete the 'e' of reaction_torque, then put it back: odd versions are wrong. */
		if (v % 2 == 0)
			sendf(&s, "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didChange\",\"params\":{"
			      "\"textDocument\":{\"uri\":\"" URI "\",\"version\":%d},\"contentChanges\":"
			      "[{\"range\":{\"start\":{\"line\":%d,\"character\":%d},\"end\":{\"line\":%d,"
			      "\"character\":%d}},\"text\":\"\"}]}}", v + 2, line, col + 14, line,
			      col + 15);
		else
			sendf(&s, "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didChange\",\"params\":{"
			      "\"textDocument\":{\"uri\":\"" URI "\",\"version\":%d},\"contentChanges\":"
			      "[{\"range\":{\"start\":{\"line\":%d,\"character\":%d},\"end\":{\"line\":%d,"
			      "\"character\":%d}},\"text\":\"e\"}]}}", v + 2, line, col + 14, line,
			      col + 14);
	}
	frame(&s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"shutdown\"}");
	frame(&s, "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}");
	run(&s);
	assert_int_equal(s.rc, 0);
	assert_int_equal(s.env.fmu_reads, 1);
	for (int v = 0; v <= edits; v += edits / 4 > 0 ? edits / 4 : 1)
		assert_int_equal(published(&s, v)->n, v % 2);
	session_free(&s);
}

/* ---- the binary, over pipes ---------------------------------------------------------- */

static void binary__over_pipes_initialize_shutdown_exit(void **state)
{
	(void)state;
	char sacc[600];
	snprintf(sacc, sizeof sacc, "%s/sacc", test_build_dir());
	int to[2], from[2];
	assert_int_equal(pipe(to), 0);
	assert_int_equal(pipe(from), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[1]);
		close(from[0]);
		execl(sacc, sacc, "lsp", "--stdio", (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	signal(SIGPIPE, SIG_IGN);
	Session s = {0};
	frame(&s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}");
	send_raw(&s, "Content-Length: 3\r\n\r\n{x}");
	frame(&s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"shutdown\"}");
	frame(&s, "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}");
	assert_int_equal(write(to[1], sb_str(&s.in), s.in.len), (ssize_t)s.in.len);
	close(to[1]);
	StrBuf out;
	sb_init(&out);
	char buf[4096];
	ssize_t n;
	while ((n = read(from[0], buf, sizeof buf)) > 0)
		for (ssize_t i = 0; i < n; i++)
			sb_putc(&out, buf[i]);
	close(from[0]);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_contains(sb_str(&out), "\"capabilities\"");
	assert_contains(sb_str(&out), "\"code\":-32700");
	assert_contains(sb_str(&out), "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":null}");
	sb_free(&out);
	sb_free(&s.in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lifecycle__before_initialize_refused__shutdown_then_exit_is_0),
		cmocka_unit_test(lifecycle__exit_without_shutdown_or_end_of_input_is_1),
		cmocka_unit_test(malformed__each_gets_its_error_and_the_server_goes_on),
		cmocka_unit_test(diagnostics__error_with_range_and_note__then_fixed_by_an_edit),
		cmocka_unit_test(positions__utf16_columns_against_utf8_bytes),
		cmocka_unit_test(hover__inner_variable_from_the_model_description),
		cmocka_unit_test(definition__inner_declaration_param_and_the_fmu_file),
		cmocka_unit_test(completion__ports_after_inst_dot_units_in_parentheses_keywords),
		cmocka_unit_test(symbols__adaptation_with_inner_ports_and_params),
		cmocka_unit_test(import__hover_and_definition_of_a_module),
		cmocka_unit_test(import__an_open_module_is_read_from_its_unsaved_buffer),
		cmocka_unit_test(malformed__deep_nesting_is_a_parse_error),
		cmocka_unit_test(rename__a_param_everywhere_and_an_inner_port_refused),
		cmocka_unit_test(formatting__one_edit_keeping_comments_then_none),
		cmocka_unit_test(cache__an_edit_rereads_no_fmu_a_changed_one_is_read_again),
		cmocka_unit_test(many_edits__each_checked_none_leaks),
		cmocka_unit_test(binary__over_pipes_initialize_shutdown_exit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
