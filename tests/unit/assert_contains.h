/* assert_contains.h — a text assertion the tests share: the needle must occur in the
 * haystack; a failure prints both and points at the caller's line.  Include after
 * <cmocka.h>. */
#ifndef ASSERT_CONTAINS_H
#define ASSERT_CONTAINS_H

#include <string.h>

static inline void assert_contains_at(const char *haystack, const char *needle,
                                      const char *file, int line)
{
	if (strstr(haystack, needle))
		return;
	print_error("'%s' not found in:\n%s\n", needle, haystack);
	_fail(file, line);
}

#define assert_contains(haystack, needle) assert_contains_at((haystack), (needle), __FILE__, __LINE__)

#endif
