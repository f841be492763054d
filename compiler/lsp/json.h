/* json.h — the little JSON the language server needs: a reader into a tree of values and a
 * writer onto a StrBuf.
 *
 * The reader takes any RFC 8259 text (nesting bounded by JSON_MAX_DEPTH so that hostile
 * input cannot exhaust the stack) and says where it failed; strings come back as UTF-8
 * with their escapes decoded (\u surrogate pairs joined).  The writer escapes what JSON
 * requires and nothing more. */
#ifndef SACC_JSON_H
#define SACC_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

typedef enum JsonKind { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY,
	JSON_OBJECT } JsonKind;

typedef struct Json {
	JsonKind kind;
	bool boolean;
	double number;
	char *str;            /* JSON_STRING: NUL-terminated (may hold NULs: see len) */
	size_t len;
	struct Json **items;  /* JSON_ARRAY, JSON_OBJECT: the values in order */
	char **keys;          /* JSON_OBJECT: the key of each item */
	int n;
} Json;

#define JSON_MAX_DEPTH 64

/* Parses text[0..len); NULL when it is no JSON text, with *err saying why. */
Json *json_parse(const char *text, size_t len, const char **err);
void json_free(Json *v);

/* The member key of object v (the last of that name), or NULL (also when v is no object). */
const Json *json_get(const Json *v, const char *key);
/* Typed reads: the value, or NULL / false when v is absent or of another kind. */
const char *json_string(const Json *v);
bool json_int(const Json *v, long long *out);   /* an integral number */
bool json_bool(const Json *v, bool *out);
/* json_get(json_get(v, k1), k2) ...: a path of keys ended by NULL. */
const Json *json_path(const Json *v, ...);

/* Writing: s as a JSON string (quotes included); a number as the shortest text that reads
 * back. */
void json_put_string(StrBuf *sb, const char *s);
void json_put_stringn(StrBuf *sb, const char *s, size_t n);
void json_put_number(StrBuf *sb, double x);
/* v written back as JSON text (an id echoed in a reply). */
void json_put_value(StrBuf *sb, const Json *v);

#endif
