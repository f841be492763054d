/* lsp_server.c — `sacc lsp`: the methods of the Language Server Protocol, from one table,
 * over the open documents (see lsp.h).
 *
 * A message goes through three gates before its handler runs, each answering a request
 * that fails it with the JSON-RPC error for it: it is JSON (-32700), it is a request or a
 * notification (-32600), the method is known (-32601) and the server initialized
 * (-32002); the handler then answers -32602 for params it cannot use.  Notifications are
 * never answered, even when wrong. */
#include "lsp.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "driver.h"
#include "version.h"

typedef enum State { ST_NEW, ST_RUNNING, ST_SHUT_DOWN } State;

typedef struct Server {
	FILE *in, *out;
	LspEnv *env;
	State state;
	LspDoc *docs;
	bool exit_now;
} Server;

/* What a handler is given: the request's id (NULL for a notification) and its params. */
typedef struct Call {
	const Json *id;
	const Json *params;
} Call;

/* A handler replies through these; a notification's handler replies nothing. */
static void reply(Server *s, const Call *q, const char *result)
{
	if (q->id)
		lsp_reply(s->out, q->id, result);
}

static void reply_error(Server *s, const Call *q, int code, const char *message)
{
	if (q->id)
		lsp_reply_error(s->out, q->id, code, message);
}

/* ---- documents ----------------------------------------------------------------------- */

static LspDoc *find_doc(Server *s, const char *uri)
{
	for (LspDoc *d = s->docs; d && uri; d = d->next)
		if (strcmp(d->uri, uri) == 0)
			return d;
	return NULL;
}

static void free_doc(LspDoc *d)
{
	lsp_check_free(d->good);
	lsp_check_free(d->check);
	free(d->uri);
	free(d->path);
	free(d->text);
	free(d);
}

/* Checks the document's text and publishes what the checker said. */
static void check_and_publish(Server *s, LspDoc *d)
{
	LspCheck *k = lsp_check(s->env, d->path, d->text, d->len);
	if (!k)
		return;
	/* Invariant: good is set only while check did not parse, and is another check. */
	bool parsed = k->m && k->m->root;
	if (parsed) {
		lsp_check_free(d->good);
		lsp_check_free(d->check);
		d->good = NULL;
	} else if (d->check && d->check->m && d->check->m->root) {
		lsp_check_free(d->good);
		d->good = d->check;
	} else {
		lsp_check_free(d->check);
	}
	d->check = k;
	StrBuf sb;
	sb_init(&sb);
	lsp_put_diagnostics(&sb, d);
	lsp_notify(s->out, "textDocument/publishDiagnostics", sb_str(&sb));
	sb_free(&sb);
}

/* The document params name (textDocument.uri); NULL after answering -32602. */
static LspDoc *doc_param(Server *s, const Call *q)
{
	const char *uri = json_string(json_path(q->params, "textDocument", "uri", NULL));
	if (!uri) {
		reply_error(s, q, RPC_INVALID_PARAMS, "params.textDocument.uri is missing");
		return NULL;
	}
	LspDoc *d = find_doc(s, uri);
	if (!d)
		reply_error(s, q, RPC_INVALID_PARAMS, "the document is not open");
	return d;
}

static bool pos_param(Server *s, const Call *q, LspPos *pos)
{
	long long line, ch;
	if (!json_int(json_path(q->params, "position", "line", NULL), &line) ||
	    !json_int(json_path(q->params, "position", "character", NULL), &ch) || line < 0 ||
	    ch < 0 || line > 1 << 30 || ch > 1 << 30) {
		reply_error(s, q, RPC_INVALID_PARAMS, "params.position is missing or malformed");
		return false;
	}
	*pos = (LspPos){(int)line, (int)ch};
	return true;
}

/* ---- the life cycle ------------------------------------------------------------------ */

static void add_dirs(char ***dirs, int *n, const Json *list)
{
	for (int i = 0; list && list->kind == JSON_ARRAY && i < list->n; i++)
		if (json_string(list->items[i]))
			lsp_env_add_dir(dirs, n, list->items[i]->str);
}

static void on_initialize(Server *s, const Call *q)
{
	if (s->state != ST_NEW) {
		reply_error(s, q, RPC_INVALID_REQUEST, "the server is initialized already");
		return;
	}
	const Json *opts = json_get(q->params, "initializationOptions");
	add_dirs(&s->env->include_dirs, &s->env->ninclude, json_get(opts, "includeDirs"));
	add_dirs(&s->env->fmu_dirs, &s->env->nfmu_dirs, json_get(opts, "fmuDirs"));
	s->state = ST_RUNNING;
	reply(s, q, "{\"capabilities\":{"
		"\"positionEncoding\":\"utf-16\","
		"\"textDocumentSync\":{\"openClose\":true,\"change\":2,\"save\":{\"includeText\":false}},"
		"\"hoverProvider\":true,"
		"\"definitionProvider\":true,"
		"\"completionProvider\":{\"triggerCharacters\":[\".\",\"(\"]},"
		"\"documentSymbolProvider\":true,"
		"\"documentFormattingProvider\":true,"
		"\"renameProvider\":true},"
		"\"serverInfo\":{\"name\":\"sacc\",\"version\":\"" SACC_VERSION "\"}}");
}

static void on_initialized(Server *s, const Call *q)
{
	(void)s;
	(void)q;
}

static void on_shutdown(Server *s, const Call *q)
{
	s->state = ST_SHUT_DOWN;
	reply(s, q, "null");
}

static void on_exit(Server *s, const Call *q)
{
	(void)q;
	s->exit_now = true;
}

/* ---- synchronization ----------------------------------------------------------------- */

static void on_did_open(Server *s, const Call *q)
{
	const Json *td = json_get(q->params, "textDocument");
	const char *uri = json_string(json_get(td, "uri"));
	const Json *text = json_get(td, "text");
	if (!uri || !json_string(text))
		return;
	LspDoc *d = find_doc(s, uri);
	if (!d) {
		d = calloc(1, sizeof *d);
		if (!d)
			return;
		d->uri = strdup(uri);
		d->path = lsp_uri_path(uri);
		if (!d->path) /* an untitled buffer: relative paths start in the working directory */
			d->path = strdup("untitled.sa");
		d->next = s->docs;
		s->docs = d;
	}
	free(d->text);
	d->text = malloc(text->len + 1);
	if (d->text) {
		memcpy(d->text, text->str, text->len + 1);
		d->len = text->len;
	} else {
		d->len = 0;
	}
	json_int(json_get(td, "version"), &d->version);
	if (d->uri && d->path && d->text)
		check_and_publish(s, d);
}

/* The other open documents whose last check read d as an import are checked again, so
 * that they see its unsaved text (lsp_check.c reads an open import from its buffer). */
static void recheck_importers(Server *s, const LspDoc *d)
{
	for (LspDoc *o = s->docs; o; o = o->next) {
		bool imports = false;
		for (const Module *m = o != d && o->check ? o->check->c->modules : NULL; m && !imports;
		     m = m->next)
			imports = m != o->check->m && drv_same_file(m->path, d->path);
		if (imports)
			check_and_publish(s, o);
	}
}

/* One change: a range replaced, or (no range) the whole text. */
static bool apply_change(LspDoc *d, const Json *ch)
{
	const Json *text = json_get(ch, "text");
	if (!json_string(text))
		return false;
	const Json *range = json_get(ch, "range");
	if (!range)
		return lsp_doc_edit(d, 0, d->len, text->str, text->len);
	long long l0, c0, l1, c1;
	if (!json_int(json_path(range, "start", "line", NULL), &l0) ||
	    !json_int(json_path(range, "start", "character", NULL), &c0) ||
	    !json_int(json_path(range, "end", "line", NULL), &l1) ||
	    !json_int(json_path(range, "end", "character", NULL), &c1) ||
	    l0 < 0 || c0 < 0 || l1 < 0 || c1 < 0 || l0 > 1 << 30 || l1 > 1 << 30 ||
	    c0 > 1 << 30 || c1 > 1 << 30)
		return false;
	size_t from = lsp_offset(d->text, d->len, (LspPos){(int)l0, (int)c0});
	size_t to = lsp_offset(d->text, d->len, (LspPos){(int)l1, (int)c1});
	return lsp_doc_edit(d, from, to, text->str, text->len);
}

static void on_did_change(Server *s, const Call *q)
{
	const Json *td = json_get(q->params, "textDocument");
	LspDoc *d = find_doc(s, json_string(json_get(td, "uri")));
	const Json *changes = json_get(q->params, "contentChanges");
	if (!d || !changes || changes->kind != JSON_ARRAY)
		return;
	for (int i = 0; i < changes->n; i++)
		if (!apply_change(d, changes->items[i]))
			break;
	json_int(json_get(td, "version"), &d->version);
	check_and_publish(s, d);
	recheck_importers(s, d);
}

static void on_did_close(Server *s, const Call *q)
{
	const char *uri = json_string(json_path(q->params, "textDocument", "uri", NULL));
	for (LspDoc **p = &s->docs; *p; p = &(*p)->next) {
		LspDoc *d = *p;
		if (uri && strcmp(d->uri, uri) == 0) {
			*p = d->next;
			StrBuf sb;
			sb_init(&sb);
			sb_puts(&sb, "{\"uri\":");
			json_put_string(&sb, d->uri);
			sb_puts(&sb, ",\"diagnostics\":[]}");
			lsp_notify(s->out, "textDocument/publishDiagnostics", sb_str(&sb));
			sb_free(&sb);
			free_doc(d);
			return;
		}
	}
}

/* A saved file may be imported by the other open documents, or an FMU rebuilt: every open
 * document is checked again. */
static void on_did_save(Server *s, const Call *q)
{
	(void)q;
	for (LspDoc *d = s->docs; d; d = d->next)
		check_and_publish(s, d);
}

/* ---- language features --------------------------------------------------------------- */

typedef void Query(StrBuf *sb, const LspDoc *d, LspPos pos);

static void positional(Server *s, const Call *q, Query *fn)
{
	LspPos pos;
	LspDoc *d = doc_param(s, q);
	if (!d || !pos_param(s, q, &pos))
		return;
	StrBuf sb;
	sb_init(&sb);
	fn(&sb, d, pos);
	reply(s, q, sb_str(&sb));
	sb_free(&sb);
}

static void on_hover(Server *s, const Call *q) { positional(s, q, lsp_hover); }
static void on_definition(Server *s, const Call *q) { positional(s, q, lsp_definition); }
static void on_completion(Server *s, const Call *q) { positional(s, q, lsp_completion); }

static void on_document_symbol(Server *s, const Call *q)
{
	LspDoc *d = doc_param(s, q);
	if (!d)
		return;
	StrBuf sb;
	sb_init(&sb);
	lsp_document_symbols(&sb, d);
	reply(s, q, sb_str(&sb));
	sb_free(&sb);
}

/* Replies with what sb holds when ok, else fails the request saying why; frees sb. */
static void answer(Server *s, const Call *q, StrBuf *sb, bool ok, const char *why)
{
	if (ok)
		reply(s, q, sb_str(sb));
	else
		reply_error(s, q, RPC_REQUEST_FAILED, why);
	sb_free(sb);
}

static void on_rename(Server *s, const Call *q)
{
	LspPos pos;
	LspDoc *d = doc_param(s, q);
	if (!d || !pos_param(s, q, &pos))
		return;
	const char *name = json_string(json_get(q->params, "newName"));
	if (!name) {
		reply_error(s, q, RPC_INVALID_PARAMS, "params.newName is missing");
		return;
	}
	StrBuf sb;
	sb_init(&sb);
	const char *why = NULL;
	bool ok = lsp_rename(&sb, d, pos, name, &why);
	answer(s, q, &sb, ok, why);
}

static void on_formatting(Server *s, const Call *q)
{
	LspDoc *d = doc_param(s, q);
	if (!d)
		return;
	StrBuf sb;
	sb_init(&sb);
	const char *why = NULL;
	bool ok = lsp_format(&sb, d, &why);
	answer(s, q, &sb, ok, why);
}

/* ---- dispatch ------------------------------------------------------------------------ */

typedef struct Method {
	const char *name;
	void (*handle)(Server *s, const Call *q);
	bool any_state; /* runs before initialize and after shutdown too */
} Method;

static const Method methods[] = {
	{"initialize", on_initialize, true},
	{"initialized", on_initialized, false},
	{"shutdown", on_shutdown, false},
	{"exit", on_exit, true},
	{"textDocument/didOpen", on_did_open, false},
	{"textDocument/didChange", on_did_change, false},
	{"textDocument/didClose", on_did_close, false},
	{"textDocument/didSave", on_did_save, false},
	{"textDocument/hover", on_hover, false},
	{"textDocument/definition", on_definition, false},
	{"textDocument/completion", on_completion, false},
	{"textDocument/documentSymbol", on_document_symbol, false},
	{"textDocument/formatting", on_formatting, false},
	{"textDocument/rename", on_rename, false},
	{NULL, NULL, false},
};

static void dispatch(Server *s, const Json *msg)
{
	const Json *id = json_get(msg, "id");
	if (id && id->kind != JSON_NUMBER && id->kind != JSON_STRING && id->kind != JSON_NULL)
		id = NULL; /* an id JSON-RPC does not allow: answered with null */
	const char *version = json_string(json_get(msg, "jsonrpc"));
	const Json *method = json_get(msg, "method");
	const Json *params = json_get(msg, "params");
	Call q = {id, params};
	if (msg->kind != JSON_OBJECT || !version || strcmp(version, "2.0") != 0 ||
	    (method && method->kind != JSON_STRING)) {
		lsp_reply_error(s->out, id, RPC_INVALID_REQUEST, "not a JSON-RPC 2.0 request");
		return;
	}
	if (!method) {
		if (!json_get(msg, "result") && !json_get(msg, "error"))
			lsp_reply_error(s->out, id, RPC_INVALID_REQUEST, "a request needs a method");
		return; /* a response to a request of ours: the server sends none */
	}
	if (params && params->kind != JSON_OBJECT && params->kind != JSON_ARRAY) {
		reply_error(s, &q, RPC_INVALID_PARAMS, "params must be an object or an array");
		return;
	}
	const Method *m = methods;
	while (m->name && strcmp(m->name, method->str) != 0)
		m++;
	if (!m->name) {
		StrBuf sb;
		sb_init(&sb);
		sb_printf(&sb, "unknown method '%s'", method->str);
		reply_error(s, &q, RPC_METHOD_NOT_FOUND, sb_str(&sb));
		sb_free(&sb);
		return;
	}
	if (!m->any_state && s->state == ST_NEW) {
		reply_error(s, &q, RPC_SERVER_NOT_INITIALIZED, "the server is not initialized yet");
		return;
	}
	if (!m->any_state && s->state == ST_SHUT_DOWN) {
		reply_error(s, &q, RPC_INVALID_REQUEST, "the server is shut down");
		return;
	}
	m->handle(s, &q);
}

int lsp_serve(FILE *in, FILE *out, LspEnv *env)
{
	Server s = {in, out, env, ST_NEW, NULL, false};
	env->open_docs = &s.docs;
	while (!s.exit_now) {
		char *body;
		size_t len;
		const char *why;
		LspRead r = lsp_read_message(in, &body, &len, &why);
		if (r == LSP_READ_EOF)
			break;
		if (r == LSP_READ_BAD) {
			lsp_reply_error(out, NULL, RPC_PARSE_ERROR, why);
			continue;
		}
		const char *err = NULL;
		Json *msg = json_parse(body, len, &err);
		free(body);
		if (!msg) {
			StrBuf sb;
			sb_init(&sb);
			sb_printf(&sb, "the message is no JSON: %s", err ? err : "?");
			lsp_reply_error(out, NULL, RPC_PARSE_ERROR, sb_str(&sb));
			sb_free(&sb);
			continue;
		}
		dispatch(&s, msg);
		json_free(msg);
	}
	while (s.docs) {
		LspDoc *d = s.docs;
		s.docs = d->next;
		free_doc(d);
	}
	env->open_docs = NULL;
	return s.exit_now && s.state == ST_SHUT_DOWN ? 0 : 1;
}

/* ---- the command --------------------------------------------------------------------- */

typedef struct LspArgs {
	bool stdio;
} LspArgs;

const CliOption lsp_options[] = {
	CLI_OPTION_INCLUDE(CMD_LSP),
	CLI_OPTION_FMU_DIR(CMD_LSP),
	{"--stdio", CLI_FLAG, NULL, cli_set_flag, offsetof(LspArgs, stdio), CMD_LSP, 0,
	 "talk over standard input and output (the only way; editors' clients pass it)", NULL},
	{NULL, 0, NULL, NULL, 0, 0, 0, NULL, NULL},
};

int lsp_main(const CliCommand *cmd, int argc, char **argv)
{
	LspArgs a = {0};
	Compilation *c = drv_new(stderr);
	const char **operands = calloc((size_t)argc + 1, sizeof *operands);
	int noperands = 0, rc = 1;
	if (!c || !operands) {
		cli_error("out of memory");
		goto done;
	}
	rc = cli_parse(cmd, c, &a, argc, argv, operands, &noperands);
	if (rc != 0) {
		rc = rc < 0 ? 0 : rc;
		goto done;
	}
	if (noperands) {
		rc = cli_usage_error("unexpected operand '%s'", operands[0]);
		goto done;
	}
	LspEnv env = {0};
	for (int i = 0; i < c->ninclude; i++)
		lsp_env_add_dir(&env.include_dirs, &env.ninclude, c->include_dirs[i]);
	for (int i = 0; i < c->nfmu_dirs; i++)
		lsp_env_add_dir(&env.fmu_dirs, &env.nfmu_dirs, c->fmu_dirs[i]);
	rc = lsp_serve(stdin, stdout, &env);
	lsp_env_free(&env);
done:
	free(operands);
	drv_free(c);
	return rc;
}
