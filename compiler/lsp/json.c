/* json.c — the JSON reader and writer (see json.h). */
#include "json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numfmt.h"

typedef struct Reader {
	const char *p, *end;
	const char *err;
	int depth;
} Reader;

static void skip_ws(Reader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

static Json *fail(Reader *r, const char *why)
{
	if (!r->err)
		r->err = why;
	return NULL;
}

static Json *new_value(JsonKind kind)
{
	Json *v = calloc(1, sizeof *v);
	if (v)
		v->kind = kind;
	return v;
}

static int hex4(const char *p)
{
	int x = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		x <<= 4;
		if (c >= '0' && c <= '9')
			x |= c - '0';
		else if (c >= 'a' && c <= 'f')
			x |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			x |= c - 'A' + 10;
		else
			return -1;
	}
	return x;
}

static void put_utf8(StrBuf *sb, unsigned long cp)
{
	if (cp < 0x80) {
		sb_putc(sb, (char)cp);
	} else if (cp < 0x800) {
		sb_putc(sb, (char)(0xC0 | (cp >> 6)));
		sb_putc(sb, (char)(0x80 | (cp & 0x3F)));
	} else if (cp < 0x10000) {
		sb_putc(sb, (char)(0xE0 | (cp >> 12)));
		sb_putc(sb, (char)(0x80 | ((cp >> 6) & 0x3F)));
		sb_putc(sb, (char)(0x80 | (cp & 0x3F)));
	} else {
		sb_putc(sb, (char)(0xF0 | (cp >> 18)));
		sb_putc(sb, (char)(0x80 | ((cp >> 12) & 0x3F)));
		sb_putc(sb, (char)(0x80 | ((cp >> 6) & 0x3F)));
		sb_putc(sb, (char)(0x80 | (cp & 0x3F)));
	}
}

/* A string after its opening quote, decoded into sb; false after setting r->err. */
static bool read_string(Reader *r, StrBuf *sb)
{
	while (r->p < r->end) {
		unsigned char c = (unsigned char)*r->p++;
		if (c == '"')
			return true;
		if (c < 0x20) {
			fail(r, "control character in a string");
			return false;
		}
		if (c != '\\') {
			sb_putc(sb, (char)c);
			continue;
		}
		if (r->p >= r->end)
			break;
		char e = *r->p++;
		switch (e) {
		case '"': sb_putc(sb, '"'); break;
		case '\\': sb_putc(sb, '\\'); break;
		case '/': sb_putc(sb, '/'); break;
		case 'b': sb_putc(sb, '\b'); break;
		case 'f': sb_putc(sb, '\f'); break;
		case 'n': sb_putc(sb, '\n'); break;
		case 'r': sb_putc(sb, '\r'); break;
		case 't': sb_putc(sb, '\t'); break;
		case 'u': {
			int hi = r->end - r->p >= 4 ? hex4(r->p) : -1;
			if (hi < 0) {
				fail(r, "bad \\u escape");
				return false;
			}
			r->p += 4;
			unsigned long cp = (unsigned long)hi;
			if (hi >= 0xD800 && hi < 0xDC00 && r->end - r->p >= 6 && r->p[0] == '\\' &&
			    r->p[1] == 'u') {
				int lo = hex4(r->p + 2);
				if (lo >= 0xDC00 && lo < 0xE000) {
					cp = 0x10000 + (((unsigned long)hi - 0xD800) << 10) +
					     ((unsigned long)lo - 0xDC00);
					r->p += 6;
				}
			}
			if (cp >= 0xD800 && cp < 0xE000)
				cp = 0xFFFD; /* a lone surrogate */
			put_utf8(sb, cp);
			break;
		}
		default:
			fail(r, "bad escape in a string");
			return false;
		}
	}
	fail(r, "unterminated string");
	return false;
}

static Json *read_value(Reader *r);

static bool push_item(Json *v, Json *item, char *key)
{
	if ((v->n & (v->n - 1)) == 0) { /* 0, 1, 2, 4, ...: grow to the next power of two */
		size_t cap = v->n ? 2 * (size_t)v->n : 1;
		Json **items = realloc(v->items, cap * sizeof *items);
		if (!items)
			return false;
		v->items = items;
		if (v->kind == JSON_OBJECT) {
			char **keys = realloc(v->keys, cap * sizeof *keys);
			if (!keys)
				return false;
			v->keys = keys;
		}
	}
	v->items[v->n] = item;
	if (v->kind == JSON_OBJECT)
		v->keys[v->n] = key;
	v->n++;
	return true;
}

static Json *read_container(Reader *r, JsonKind kind, char close)
{
	if (++r->depth > JSON_MAX_DEPTH)
		return fail(r, "nested too deeply");
	Json *v = new_value(kind);
	if (!v)
		return fail(r, "out of memory");
	skip_ws(r);
	if (r->p < r->end && *r->p == close) {
		r->p++;
		r->depth--;
		return v;
	}
	for (;;) {
		char *key = NULL;
		skip_ws(r);
		if (kind == JSON_OBJECT) {
			if (r->p >= r->end || *r->p != '"') {
				fail(r, "expected a member name");
				break;
			}
			r->p++;
			StrBuf sb;
			sb_init(&sb);
			if (!read_string(r, &sb)) {
				sb_free(&sb);
				break;
			}
			key = strdup(sb_str(&sb));
			sb_free(&sb);
			skip_ws(r);
			if (!key || r->p >= r->end || *r->p != ':') {
				free(key);
				fail(r, "expected ':' after a member name");
				break;
			}
			r->p++;
		}
		Json *item = read_value(r);
		if (!item || !push_item(v, item, key)) {
			json_free(item);
			free(key);
			fail(r, "out of memory");
			break;
		}
		skip_ws(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == close) {
			r->p++;
			r->depth--;
			return v;
		}
		fail(r, kind == JSON_OBJECT ? "expected ',' or '}'" : "expected ',' or ']'");
		break;
	}
	json_free(v);
	return NULL;
}

static Json *read_number(Reader *r)
{
	const char *s = r->p;
	if (r->p < r->end && *r->p == '-')
		r->p++;
	if (r->p >= r->end || !(*r->p >= '0' && *r->p <= '9'))
		return fail(r, "unexpected character");
	while (r->p < r->end && ((*r->p >= '0' && *r->p <= '9') || *r->p == '.' || *r->p == 'e' ||
				 *r->p == 'E' || *r->p == '+' || *r->p == '-'))
		r->p++;
	char buf[64];
	size_t n = (size_t)(r->p - s);
	if (n >= sizeof buf)
		return fail(r, "number too long");
	memcpy(buf, s, n);
	buf[n] = '\0';
	char *end;
	double x = strtod(buf, &end);
	if (*end)
		return fail(r, "malformed number");
	Json *v = new_value(JSON_NUMBER);
	if (!v)
		return fail(r, "out of memory");
	v->number = x;
	return v;
}

static bool word(Reader *r, const char *w)
{
	size_t n = strlen(w);
	if ((size_t)(r->end - r->p) < n || memcmp(r->p, w, n) != 0)
		return false;
	r->p += n;
	return true;
}

static Json *read_value(Reader *r)
{
	skip_ws(r);
	if (r->p >= r->end)
		return fail(r, "unexpected end of text");
	char c = *r->p;
	if (c == '{' || c == '[') {
		r->p++;
		return read_container(r, c == '{' ? JSON_OBJECT : JSON_ARRAY, c == '{' ? '}' : ']');
	}
	if (c == '"') {
		r->p++;
		StrBuf sb;
		sb_init(&sb);
		if (!read_string(r, &sb)) {
			sb_free(&sb);
			return NULL;
		}
		Json *v = new_value(JSON_STRING);
		if (!v) {
			sb_free(&sb);
			return fail(r, "out of memory");
		}
		v->len = sb.len;
		v->str = malloc(sb.len + 1);
		if (v->str) {
			if (sb.len)
				memcpy(v->str, sb.data, sb.len);
			v->str[sb.len] = '\0';
		}
		sb_free(&sb);
		if (!v->str) {
			free(v);
			return fail(r, "out of memory");
		}
		return v;
	}
	Json *v = NULL;
	if (word(r, "true") || word(r, "false")) {
		v = new_value(JSON_BOOL);
		if (v)
			v->boolean = r->p[-1] == 'e' && r->p[-2] == 'u';
	} else if (word(r, "null")) {
		v = new_value(JSON_NULL);
	} else {
		return read_number(r);
	}
	return v ? v : fail(r, "out of memory");
}

Json *json_parse(const char *text, size_t len, const char **err)
{
	Reader r = {text, text + len, NULL, 0};
	Json *v = read_value(&r);
	if (v) {
		skip_ws(&r);
		if (r.p != r.end) {
			json_free(v);
			v = fail(&r, "text after the value");
		}
	}
	if (err)
		*err = r.err;
	return v;
}

void json_free(Json *v)
{
	if (!v)
		return;
	for (int i = 0; i < v->n; i++) {
		json_free(v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
	free(v);
}

const Json *json_get(const Json *v, const char *key)
{
	if (!v || v->kind != JSON_OBJECT)
		return NULL;
	for (int i = v->n - 1; i >= 0; i--)
		if (strcmp(v->keys[i], key) == 0)
			return v->items[i];
	return NULL;
}

const Json *json_path(const Json *v, ...)
{
	va_list ap;
	va_start(ap, v);
	for (const char *k; v && (k = va_arg(ap, const char *));)
		v = json_get(v, k);
	va_end(ap);
	return v;
}

const char *json_string(const Json *v)
{
	return v && v->kind == JSON_STRING ? v->str : NULL;
}

bool json_int(const Json *v, long long *out)
{
	if (!v || v->kind != JSON_NUMBER || v->number != floor(v->number) ||
	    fabs(v->number) > 9007199254740992.0)
		return false;
	*out = (long long)v->number;
	return true;
}

bool json_bool(const Json *v, bool *out)
{
	if (!v || v->kind != JSON_BOOL)
		return false;
	*out = v->boolean;
	return true;
}

void json_put_stringn(StrBuf *sb, const char *s, size_t n)
{
	sb_putc(sb, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"': sb_puts(sb, "\\\""); break;
		case '\\': sb_puts(sb, "\\\\"); break;
		case '\n': sb_puts(sb, "\\n"); break;
		case '\r': sb_puts(sb, "\\r"); break;
		case '\t': sb_puts(sb, "\\t"); break;
		default:
			if (c < 0x20)
				sb_printf(sb, "\\u%04x", c);
			else
				sb_putc(sb, (char)c);
		}
	}
	sb_putc(sb, '"');
}

void json_put_string(StrBuf *sb, const char *s)
{
	json_put_stringn(sb, s, strlen(s));
}

void json_put_number(StrBuf *sb, double x)
{
	if (!isfinite(x)) {
		sb_puts(sb, "null"); /* JSON has no infinities */
		return;
	}
	if (x == floor(x) && fabs(x) < 1e15) {
		sb_printf(sb, "%lld", (long long)x);
		return;
	}
	sb_puts(sb, FMT_REAL(x));
}

void json_put_value(StrBuf *sb, const Json *v)
{
	switch (v->kind) {
	case JSON_NULL: sb_puts(sb, "null"); break;
	case JSON_BOOL: sb_puts(sb, v->boolean ? "true" : "false"); break;
	case JSON_NUMBER: json_put_number(sb, v->number); break;
	case JSON_STRING: json_put_stringn(sb, v->str, v->len); break;
	case JSON_ARRAY:
	case JSON_OBJECT:
		sb_putc(sb, v->kind == JSON_ARRAY ? '[' : '{');
		for (int i = 0; i < v->n; i++) {
			if (i)
				sb_putc(sb, ',');
			if (v->kind == JSON_OBJECT) {
				json_put_string(sb, v->keys[i]);
				sb_putc(sb, ':');
			}
			json_put_value(sb, v->items[i]);
		}
		sb_putc(sb, v->kind == JSON_ARRAY ? ']' : '}');
		break;
	}
}
