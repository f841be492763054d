/* arena.c — bump allocation in chained blocks (see arena.h). */
#include "arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Block {
	struct Block *next;
	size_t used, cap;
	_Alignas(max_align_t) unsigned char data[];
} Block;

struct Arena {
	Block *head;
};

#define BLOCK_SIZE (64 * 1024)

Arena *arena_new(void)
{
	Arena *a = calloc(1, sizeof *a);
	if (!a) {
		fputs("sacc: out of memory\n", stderr);
		abort();
	}
	return a;
}

void arena_free(Arena *a)
{
	if (!a)
		return;
	for (Block *b = a->head, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	free(a);
}

static Block *new_block(Arena *a, size_t cap)
{
	Block *b = malloc(sizeof *b + cap);
	if (!b) {
		fputs("sacc: out of memory\n", stderr);
		abort();
	}
	b->used = 0;
	b->cap = cap;
	b->next = a->head;
	a->head = b;
	return b;
}

void *arena_alloc(Arena *a, size_t size)
{
	size_t align = _Alignof(max_align_t);
	size = (size + align - 1) & ~(align - 1);
	if (size == 0)
		size = align;
#ifdef ARENA_DEBUG
	/* One block per object: ASan then catches any overrun at its first byte. */
	Block *b = new_block(a, size);
#else
	Block *b = a->head;
	if (!b || b->cap - b->used < size) {
		if (size > BLOCK_SIZE / 4) {
			/* Big objects get a block of their own, behind the current one, so the
			 * current block's free space is not wasted. */
			Block *cur = a->head;
			b = new_block(a, size);
			if (cur) {
				a->head = cur;
				b->next = cur->next;
				cur->next = b;
			}
			b->used = size;
			memset(b->data, 0, size);
			return b->data;
		}
		b = new_block(a, BLOCK_SIZE);
	}
#endif
	void *p = b->data + b->used;
	b->used += size;
	memset(p, 0, size);
	return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *arena_strdup(Arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

char *arena_printf(Arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	char *p = arena_alloc(a, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}
