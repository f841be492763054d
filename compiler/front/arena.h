/* arena.h — the allocator for the syntax tree and everything the front end derives.
 *
 * All nodes, strings and symbol tables of one compilation live in one arena and are freed
 * with one call: no node is ever freed alone, so rewrite rules can share subtrees freely.
 * Built with -DARENA_DEBUG every allocation is its own malloc, so ASan sees overflows. */
#ifndef SACC_ARENA_H
#define SACC_ARENA_H

#include <stddef.h>

typedef struct Arena Arena;

Arena *arena_new(void);
void arena_free(Arena *a);

/* Zeroed memory; never NULL (aborts on exhaustion, the one place sacc gives up). */
void *arena_alloc(Arena *a, size_t size);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_strdup(Arena *a, const char *s);
char *arena_printf(Arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
