/* test_name_index.c — NameIndex (compiler/util.c), the name table behind the look-ups of
 * a scenario's instances, connection owners and FMU files: what it finds, that the first
 * of a name stays (as a search from a list's front finds the first), and that it holds
 * tens of thousands of names through its growth. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static void name_index__empty__finds_nothing(void **state)
{
	(void)state;
	NameIndex ix = {0};
	assert_int_equal(name_index_find(&ix, "a"), -1);
	name_index_free(&ix);
	assert_int_equal(name_index_find(&ix, "a"), -1);
}

static void name_index__same_name_twice__first_value_stays(void **state)
{
	(void)state;
	NameIndex ix = {0};
	assert_int_equal(name_index_add(&ix, "m1", 0), 0);
	assert_int_equal(name_index_add(&ix, "m2", 1), 0);
	assert_int_equal(name_index_add(&ix, "m1", 7), 0);
	assert_int_equal(name_index_find(&ix, "m1"), 0);
	assert_int_equal(name_index_find(&ix, "m2"), 1);
	assert_int_equal(name_index_find(&ix, "m"), -1);
	assert_int_equal(name_index_find(&ix, "m12"), -1);
	assert_int_equal(name_index_find(&ix, ""), -1);
	assert_int_equal((int)ix.n, 2);
	name_index_free(&ix);
}

/* Thirty thousand names, added and found again after every growth of the table; names
 * that differ in one character only are told apart. */
static void name_index__many_names__each_found_with_its_value(void **state)
{
	(void)state;
	enum { N = 30000 };
	char (*names)[16] = malloc(N * sizeof *names);
	assert_non_null(names);
	NameIndex ix = {0};
	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof names[i], "p%d", i + 1);
		assert_int_equal(name_index_add(&ix, names[i], i), 0);
	}
	assert_int_equal((int)ix.n, N);
	assert_true(ix.cap >= 2 * ix.n);
	for (int i = 0; i < N; i++)
		assert_int_equal(name_index_find(&ix, names[i]), i);
	assert_int_equal(name_index_find(&ix, "p0"), -1);
	assert_int_equal(name_index_find(&ix, "p30001"), -1);
	name_index_free(&ix);
	free(names);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(name_index__empty__finds_nothing),
		cmocka_unit_test(name_index__same_name_twice__first_value_stays),
		cmocka_unit_test(name_index__many_names__each_found_with_its_value),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
