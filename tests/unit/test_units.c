/* test_units.c — the unit module: spellings, commensurability, scale and offset.
 *
 * One UDUNITS-2 system is loaded for the whole group (loading takes tens of milliseconds).
 * Conversions that units.h promises to be exact are compared with ==; the others with an
 * explicit relative tolerance. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

static const double pi = 3.14159265358979323846;

/* cmocka 1.1's float assertion rounds to float; this one keeps doubles. */
static void assert_close_at(double got, double want, double rel, const char *file, int line)
{
	double tol = rel * fabs(want);
	if (!(fabs(got - want) <= tol)) {
		print_error("%.17g is not within %g (relative) of %.17g\n", got, rel, want);
		_fail(file, line);
	}
}
#define assert_close(got, want, rel) assert_close_at((got), (want), (rel), __FILE__, __LINE__)

static void assert_exact_at(double got, double want, const char *file, int line)
{
	if (!(got == want) || signbit(got) != signbit(want)) {
		print_error("%.17g is not exactly %.17g\n", got, want);
		_fail(file, line);
	}
}
#define assert_exact(got, want) assert_exact_at((got), (want), __FILE__, __LINE__)

static int open_units(void **state)
{
	const char *why = NULL;
	UnitSystem *us = units_open(&why);
	if (!us) {
		fprintf(stderr, "units_open: %s\n", why ? why : "(no reason)");
		return -1;
	}
	*state = us;
	return 0;
}

static int close_units(void **state)
{
	units_close(*state);
	return 0;
}

/* Converts and requires success; returns the scale, stores the offset. */
static double convert_at(UnitSystem *us, const char *from, const char *to, double *offset,
                         const char *file, int line)
{
	double scale = NAN;
	double off = NAN;
	UnitsResult r = units_conversion(us, from, to, &scale, &off);
	if (r != UNITS_OK) {
		print_error("units_conversion(\"%s\", \"%s\") = %d, wanted UNITS_OK\n", from, to, (int)r);
		_fail(file, line);
	}
	if (offset)
		*offset = off;
	return scale;
}
#define convert(us, from, to, offset) convert_at((us), (from), (to), (offset), __FILE__, __LINE__)

/* ---- exact scale-only conversions ------------------------------------------------------ */

static void units__cm_to_m__scale_is_exactly_0_01(void **state)
{
	double offset;
	double scale = convert(*state, "cm", "m", &offset);
	assert_exact(scale, 0.01);
	assert_exact(offset, 0.0);
}

static void units__N_mm_to_N_m__scale_is_exactly_0_001(void **state)
{
	double offset;
	double scale = convert(*state, "N.mm", "N.m", &offset);
	assert_exact(scale, 0.001);
	assert_exact(offset, 0.0);
}

static void units__litre_to_m3__decimal_factor_snapped_exact(void **state)
{
	/* UDUNITS-2 alone gives 0.0010000000000000002 (litre is dm3, 0.1 cubed). */
	double offset;
	assert_exact(convert(*state, "l", "m3", &offset), 0.001);
	assert_exact(offset, 0.0);
	assert_exact(convert(*state, "L", "m^3", &offset), 0.001);
	assert_exact(convert(*state, "mL", "m3", &offset), 1e-6);
}

static void units__kW_h_to_J__scale_is_3_6e6(void **state)
{
	double offset;
	assert_exact(convert(*state, "kW.h", "J", &offset), 3.6e6);
	assert_exact(offset, 0.0);
}

static void units__m_to_cm__scale_is_exactly_100(void **state)
{
	assert_exact(convert(*state, "m", "cm", NULL), 100.0);
}

static void units__same_spelling__identity(void **state)
{
	double offset;
	assert_exact(convert(*state, "degC", "degC", &offset), 1.0);
	assert_exact(offset, 0.0);
	assert_exact(convert(*state, "rad/s", "rad/s", &offset), 1.0);
	assert_exact(offset, 0.0);
}

static void units__null_outputs__still_answers(void **state)
{
	assert_int_equal(units_conversion(*state, "cm", "m", NULL, NULL), UNITS_OK);
}

/* ---- angles ---------------------------------------------------------------------------- */

static void units__deg_to_rad__scale_is_pi_over_180(void **state)
{
	double offset;
	double scale = convert(*state, "deg", "rad", &offset);
	assert_close(scale, pi / 180.0, 1e-15);
	assert_exact(offset, 0.0);
}

static void units__rad_to_deg__scale_is_180_over_pi(void **state)
{
	assert_close(convert(*state, "rad", "deg", NULL), 180.0 / pi, 1e-15);
}

static void units__deg_per_s_to_rad_per_s__mapping_inside_quotient(void **state)
{
	assert_close(convert(*state, "deg/s", "rad/s", NULL), pi / 180.0, 1e-15);
	assert_close(convert(*state, "deg^2", "rad^2", NULL), (pi / 180.0) * (pi / 180.0), 1e-14);
	assert_close(convert(*state, "N.m/deg", "N.m/rad", NULL), 180.0 / pi, 1e-15);
}

static void units__deg_word__not_mapped_inside_other_words(void **state)
{
	/* "degC" is a word of its own, not "deg" followed by C. */
	double offset;
	assert_exact(convert(*state, "degC", "K", &offset), 1.0);
	assert_close(offset, 273.15, 1e-15);
	/* "degree" stays UDUNITS-2's arc degree. */
	assert_close(convert(*state, "degree", "deg", NULL), 1.0, 1e-15);
}

static void units__rpm_to_rad_per_s__scale_is_pi_over_30(void **state)
{
	double offset;
	assert_close(convert(*state, "rpm", "rad/s", &offset), pi / 30.0, 1e-15);
	assert_exact(offset, 0.0);
}

static void units__rev_per_min__same_as_rpm(void **state)
{
	assert_close(convert(*state, "rev/min", "rpm", NULL), 1.0, 1e-15);
	assert_close(convert(*state, "rev", "rad", NULL), 2.0 * pi, 1e-15);
}

/* ---- temperatures (offsets) ------------------------------------------------------------ */

static void units__degC_to_K__scale_1_offset_273_15(void **state)
{
	double offset;
	double scale = convert(*state, "degC", "K", &offset);
	assert_exact(scale, 1.0);
	assert_exact(offset, 273.15);
}

static void units__K_to_degC__offset_minus_273_15(void **state)
{
	double offset;
	assert_exact(convert(*state, "K", "degC", &offset), 1.0);
	assert_exact(offset, -273.15);
}

static void units__degC_to_degF__scale_1_8_offset_32(void **state)
{
	double offset;
	assert_close(convert(*state, "degC", "degF", &offset), 1.8, 1e-15);
	assert_close(offset, 32.0, 1e-13);
}

static void units__degF_to_K__scale_free_of_cancellation(void **state)
{
	/* f(1) - f(0) would give 0.5555555555555429; the origin-free scale is 5/9. */
	double offset;
	assert_close(convert(*state, "degF", "K", &offset), 5.0 / 9.0, 1e-15);
	assert_close(offset, 459.67 * 5.0 / 9.0, 1e-14);
}

static void units__degRk_to_K__modelica_rankine(void **state)
{
	double offset;
	assert_close(convert(*state, "degRk", "K", &offset), 5.0 / 9.0, 1e-15);
	assert_exact(offset, 0.0);
}

static void units__temperature_rate__no_offset(void **state)
{
	/* A product drops the origin: a rate in degC/s is a rate in K/s. */
	double offset;
	assert_exact(convert(*state, "degC/s", "K/s", &offset), 1.0);
	assert_exact(offset, 0.0);
}

static void units__cancelling_origins__offset_exactly_zero(void **state)
{
	/* Both units put zero at the ice point; UDUNITS-2 alone leaves 5.7e-14 of rounding. */
	double offset;
	assert_exact(convert(*state, "mK @ 273150", "degC", &offset), 0.001);
	assert_exact(offset, 0.0);
	assert_exact(convert(*state, "degF", "degR @ 459.67", &offset), 1.0);
	assert_exact(offset, 0.0);
}

/* ---- products, quotients, powers ------------------------------------------------------- */

static void units__N_m__commensurable_with_J(void **state)
{
	double offset;
	assert_exact(convert(*state, "N.m", "J", &offset), 1.0);
	assert_exact(offset, 0.0);
}

static void units__power_spellings__agree(void **state)
{
	assert_exact(convert(*state, "m/s^2", "m.s-2", NULL), 1.0);
	assert_exact(convert(*state, "m.s-1", "m/s", NULL), 1.0);
	assert_exact(convert(*state, "s^-1", "Hz", NULL), 1.0);
	assert_exact(convert(*state, "kg.m^2", "kg.m2", NULL), 1.0);
	assert_exact(convert(*state, "kg.m^2/s^2", "J", NULL), 1.0);
}

static void units__km_per_h_to_m_per_s__scale_1_over_3_6(void **state)
{
	assert_close(convert(*state, "km/h", "m/s", NULL), 1.0 / 3.6, 1e-15);
}

static void units__rad_per_s_vs_N__incommensurable(void **state)
{
	double scale = 42.0;
	double offset = 42.0;
	assert_int_equal(units_conversion(*state, "rad/s", "N", &scale, &offset),
	                 UNITS_INCOMMENSURABLE);
	/* Outputs are left alone on failure. */
	assert_exact(scale, 42.0);
	assert_exact(offset, 42.0);
}

static void units__m_vs_s__incommensurable(void **state)
{
	assert_int_equal(units_conversion(*state, "m", "s", NULL, NULL), UNITS_INCOMMENSURABLE);
	assert_int_equal(units_conversion(*state, "m/s", "m/s^2", NULL, NULL),
	                 UNITS_INCOMMENSURABLE);
}

static void units__logarithmic_unit__no_affine_conversion(void **state)
{
	/* UDUNITS-2 converts lg(re mW) to W, but as 0.001 * 10^x, which no scale and offset
	 * express. */
	assert_true(units_known(*state, "lg(re mW)"));
	assert_int_equal(units_conversion(*state, "lg(re mW)", "W", NULL, NULL),
	                 UNITS_INCOMMENSURABLE);
}

/* ---- spellings ------------------------------------------------------------------------- */

static void units__modelica_spellings__known(void **state)
{
	static const char *const known[] = {
		"deg", "degC", "degF", "degRk", "rpm", "rev/min", "Ohm", "kOhm", "l", "L", "1",
		"%", "bar", "min", "h", "d", "N.m", "kg.m2", "W/(m2.K)", "J/(kg.K)", "A.h", "km/h",
		"kW.h", "m/s^2", "rad/s", "s^-1", "m.s-1",
	};
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
		if (!units_known(*state, known[i])) {
			print_error("\"%s\" should be known\n", known[i]);
			fail();
		}
	}
}

static void units__percent__is_hundredth_of_one(void **state)
{
	assert_exact(convert(*state, "%", "1", NULL), 0.01);
}

static void units__Ohm__same_as_V_per_A(void **state)
{
	assert_exact(convert(*state, "Ohm", "V/A", NULL), 1.0);
	assert_exact(convert(*state, "kOhm", "Ohm", NULL), 1000.0);
}

static void units__unknown_spelling__reported_by_position(void **state)
{
	assert_false(units_known(*state, "furlongz"));
	assert_int_equal(units_conversion(*state, "furlongz", "m", NULL, NULL), UNITS_UNKNOWN_FROM);
	assert_int_equal(units_conversion(*state, "m", "furlongz", NULL, NULL), UNITS_UNKNOWN_TO);
	/* Both unknown: the first is reported. */
	assert_int_equal(units_conversion(*state, "xx", "yy", NULL, NULL), UNITS_UNKNOWN_FROM);
	assert_null(units_canonical(*state, "furlongz"));
}

static void units__malformed_expression__unknown(void **state)
{
	static const char *const bad[] = {"N..m", "m/", "/s", "m^", "(m", "m)", "N.m)", "cm)", "^2",
	                                  "m s s /"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (units_known(*state, bad[i])) {
			print_error("\"%s\" should not be known\n", bad[i]);
			fail();
		}
	}
}

static void units__empty_string__unknown(void **state)
{
	assert_false(units_known(*state, ""));
	assert_int_equal(units_conversion(*state, "", "1", NULL, NULL), UNITS_UNKNOWN_FROM);
	assert_int_equal(units_conversion(*state, "1", "", NULL, NULL), UNITS_UNKNOWN_TO);
	assert_null(units_canonical(*state, ""));
}

static void units__blank_string__unknown(void **state)
{
	assert_false(units_known(*state, " "));
	assert_false(units_known(*state, " \t\n\r "));
	assert_null(units_canonical(*state, "\t"));
}

static void units__surrounding_whitespace__trimmed(void **state)
{
	assert_true(units_known(*state, "  cm\t"));
	assert_exact(convert(*state, " cm ", "\nm\n", NULL), 0.01);
	assert_exact(convert(*state, "  deg ", "rad", NULL), pi / 180.0);
}

static void units__null_spelling__unknown(void **state)
{
	assert_false(units_known(*state, NULL));
	assert_int_equal(units_conversion(*state, NULL, "m", NULL, NULL), UNITS_UNKNOWN_FROM);
	assert_int_equal(units_conversion(*state, "m", NULL, NULL, NULL), UNITS_UNKNOWN_TO);
	assert_null(units_canonical(*state, NULL));
}

/* ---- canonical spellings --------------------------------------------------------------- */

static void units__canonical__udunits_symbols(void **state)
{
	const char *c = units_canonical(*state, "N.m");
	assert_non_null(c);
	assert_string_equal(c, "J");
	c = units_canonical(*state, "m/s");
	assert_non_null(c);
	assert_string_equal(c, "m.s-1");
	c = units_canonical(*state, "N.mm");
	assert_non_null(c);
	assert_string_equal(c, "0.001 J");
}

static void units__canonical__mapped_spelling_resolved(void **state)
{
	const char *c = units_canonical(*state, "deg");
	assert_non_null(c);
	/* UDUNITS-2 prints the arc degree as its factor of the radian. */
	assert_non_null(strstr(c, "rad"));
	assert_non_null(strstr(c, "0.01745"));
}

/* ---- hostile input --------------------------------------------------------------------- */

static void units__very_long_spelling__unknown_without_crash(void **state)
{
	enum { N = 100000 };
	char *s = malloc(N + 1);
	assert_non_null(s);
	for (size_t i = 0; i < N; i += 2) {
		s[i] = 'm';
		s[i + 1] = '.';
	}
	s[N - 1] = 'm';
	s[N] = '\0';
	assert_false(units_known(*state, s));
	assert_int_equal(units_conversion(*state, s, "m", NULL, NULL), UNITS_UNKNOWN_FROM);
	assert_null(units_canonical(*state, s));
	/* A long run of mapped words must not overflow the mapped copy either. */
	for (size_t i = 0; i + 4 <= N; i += 4)
		memcpy(s + i, "deg.", 4);
	s[255] = '\0';
	(void)units_known(*state, s);
	(void)units_canonical(*state, s);
	free(s);
}

static void units__deepest_allowed_nesting__no_crash(void **state)
{
	char s[257];
	memset(s, '(', 128);
	memset(s + 128, ')', 128);
	s[256] = '\0';
	assert_false(units_known(*state, s));
	s[127] = 'm';
	s[128] = 'm';
	(void)units_known(*state, s);
}

static void units__format_characters__unknown_without_crash(void **state)
{
	static const char *const bad[] = {"%s%n%s%n", "%x%x%x%x", "%99999999d", "m%n", "%s"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_false(units_known(*state, bad[i]));
		assert_null(units_canonical(*state, bad[i]));
		assert_int_equal(units_conversion(*state, "m", bad[i], NULL, NULL), UNITS_UNKNOWN_TO);
	}
}

static void units__control_and_invalid_utf8__unknown(void **state)
{
	static const char *const bad[] = {
		"m\x01", "N\x7fm", "\xff", "\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xf8\x88\x80\x80\x80",
		"m\x80s", "N\tm",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (units_known(*state, bad[i])) {
			print_error("spelling %zu should not be known\n", i);
			fail();
		}
	}
	/* Well-formed UTF-8 passes through: UDUNITS-2 knows the degree sign. */
	assert_close(convert(*state, "\xc2\xb0", "rad", NULL), pi / 180.0, 1e-15);
}

static void units__pseudo_random_bytes__never_crash(void **state)
{
	/* A fixed linear congruential sequence, so a failure reproduces. */
	uint32_t x = 12345u;
	static const char alphabet[] = "mskgNJWdegCFrpmhl%1.^/-*() @0123456789eE+_\xc2\xb0\xff";
	int known = 0;
	for (int round = 0; round < 3000; round++) {
		char s[48];
		size_t n = (size_t)(round % 40);
		for (size_t i = 0; i < n; i++) {
			x = x * 1103515245u + 12345u;
			s[i] = alphabet[(x >> 16) % (sizeof alphabet - 1)];
		}
		s[n] = '\0';
		if (units_known(*state, s)) {
			known++;
			double scale = NAN;
			double offset = NAN;
			if (units_conversion(*state, s, s, &scale, &offset) == UNITS_OK) {
				assert_true(isfinite(scale));
				assert_true(isfinite(offset));
			}
			assert_non_null(units_canonical(*state, s));
		}
	}
	/* The alphabet is unit-like enough that some strings parse. */
	assert_true(known > 0);
}

/* ---- the database ---------------------------------------------------------------------- */

static void units__second_system__opens_and_closes(void **state)
{
	(void)state;
	const char *why = "unset";
	UnitSystem *us = units_open(&why);
	assert_non_null(us);
	assert_null(why);
	assert_exact(convert(us, "cm", "m", NULL), 0.01);
	units_close(us);
	units_close(NULL);
}

static void units__missing_database__null_with_reason(void **state)
{
	(void)state;
	const char *old = getenv("UDUNITS2_XML_PATH");
	char *saved = old ? strdup(old) : NULL;
	assert_int_equal(setenv("UDUNITS2_XML_PATH", "/nonexistent/udunits2.xml", 1), 0);
	const char *why = NULL;
	UnitSystem *us = units_open(&why);
	if (saved) {
		setenv("UDUNITS2_XML_PATH", saved, 1);
		free(saved);
	} else {
		unsetenv("UDUNITS2_XML_PATH");
	}
	assert_null(us);
	assert_non_null(why);
	assert_non_null(strstr(why, "UDUNITS2_XML_PATH"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(units__cm_to_m__scale_is_exactly_0_01),
		cmocka_unit_test(units__N_mm_to_N_m__scale_is_exactly_0_001),
		cmocka_unit_test(units__litre_to_m3__decimal_factor_snapped_exact),
		cmocka_unit_test(units__kW_h_to_J__scale_is_3_6e6),
		cmocka_unit_test(units__m_to_cm__scale_is_exactly_100),
		cmocka_unit_test(units__same_spelling__identity),
		cmocka_unit_test(units__null_outputs__still_answers),
		cmocka_unit_test(units__deg_to_rad__scale_is_pi_over_180),
		cmocka_unit_test(units__rad_to_deg__scale_is_180_over_pi),
		cmocka_unit_test(units__deg_per_s_to_rad_per_s__mapping_inside_quotient),
		cmocka_unit_test(units__deg_word__not_mapped_inside_other_words),
		cmocka_unit_test(units__rpm_to_rad_per_s__scale_is_pi_over_30),
		cmocka_unit_test(units__rev_per_min__same_as_rpm),
		cmocka_unit_test(units__degC_to_K__scale_1_offset_273_15),
		cmocka_unit_test(units__K_to_degC__offset_minus_273_15),
		cmocka_unit_test(units__degC_to_degF__scale_1_8_offset_32),
		cmocka_unit_test(units__degF_to_K__scale_free_of_cancellation),
		cmocka_unit_test(units__degRk_to_K__modelica_rankine),
		cmocka_unit_test(units__temperature_rate__no_offset),
		cmocka_unit_test(units__cancelling_origins__offset_exactly_zero),
		cmocka_unit_test(units__N_m__commensurable_with_J),
		cmocka_unit_test(units__power_spellings__agree),
		cmocka_unit_test(units__km_per_h_to_m_per_s__scale_1_over_3_6),
		cmocka_unit_test(units__rad_per_s_vs_N__incommensurable),
		cmocka_unit_test(units__m_vs_s__incommensurable),
		cmocka_unit_test(units__logarithmic_unit__no_affine_conversion),
		cmocka_unit_test(units__modelica_spellings__known),
		cmocka_unit_test(units__percent__is_hundredth_of_one),
		cmocka_unit_test(units__Ohm__same_as_V_per_A),
		cmocka_unit_test(units__unknown_spelling__reported_by_position),
		cmocka_unit_test(units__malformed_expression__unknown),
		cmocka_unit_test(units__empty_string__unknown),
		cmocka_unit_test(units__blank_string__unknown),
		cmocka_unit_test(units__surrounding_whitespace__trimmed),
		cmocka_unit_test(units__null_spelling__unknown),
		cmocka_unit_test(units__canonical__udunits_symbols),
		cmocka_unit_test(units__canonical__mapped_spelling_resolved),
		cmocka_unit_test(units__very_long_spelling__unknown_without_crash),
		cmocka_unit_test(units__deepest_allowed_nesting__no_crash),
		cmocka_unit_test(units__format_characters__unknown_without_crash),
		cmocka_unit_test(units__control_and_invalid_utf8__unknown),
		cmocka_unit_test(units__pseudo_random_bytes__never_crash),
		cmocka_unit_test(units__second_system__opens_and_closes),
		cmocka_unit_test(units__missing_database__null_with_reason),
	};
	return cmocka_run_group_tests_name("units", tests, open_units, close_units);
}
