/* units.c — physical units through UDUNITS-2 (see units.h).
 *
 * The checker calls this module when two connected or bound ports both carry units.  A
 * spelling goes through four steps before UDUNITS-2 sees it: trim, reject what cannot be a
 * unit (too long, control characters, ill-formed UTF-8), replace whole words that Modelica
 * and FMI spell differently from UDUNITS-2 (the table below), parse.
 *
 * Spelling decisions, each checked against the UDUNITS-2 2.2 database Debian ships:
 *   - '.' multiplies and a signed integer right after a name is its exponent, as in Modelica
 *     and FMI unit strings: "N.m", "kg.m2", "m.s-1" (= m/s), "s-1"; '^' powers also work.
 *   - Already known to UDUNITS-2, so not mapped: degC, degF, degR, rpm, Ohm (names are
 *     case-insensitive), l and L (litre), 1, % (0.01), bar, min, h, d.
 *   - An empty or blank spelling is not a unit (UDUNITS-2 would read "" as the number 1):
 *     "no unit declared" is the caller's case to handle, not dimensionless.
 *   - Whatever else UDUNITS-2 reads is accepted as it reads it, including "N m", "N*m",
 *     "°", "K @ 273.15" and bare numbers ("1000" is a dimensionless factor).
 *   - UDUNITS-2 treats the radian as dimensionless, so rad/s and Hz are commensurable with
 *     scale 1; that is its view and SI's, and we keep it.
 *
 * A conversion is reported only when it is affine (value_to = scale * value_from + offset);
 * logarithmic units ("lg(re mW)") convert non-linearly and count as incommensurable. */
#include "units.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <udunits2.h>

/* Spellings longer than this (after trimming) are not units; it bounds the mapped copy. */
enum { UNITS_MAX_SPELLING = 256 };

/* Whole words (maximal runs of letters, '_' and non-ASCII bytes) replaced before parsing.
 * Only words UDUNITS-2 does not know, or reads as something else, belong here. */
static const struct {
	const char *word;
	const char *udunits;
} spelling_map[] = {
	{"deg", "arc_degree"},   /* Modelica's angle unit; unknown to UDUNITS-2 */
	{"rev", "revolution"},   /* Modelica writes rpm as "rev/min" */
	{"degRk", "degR"},       /* Modelica's Rankine */
};

/* The longest replacement over the shortest word it replaces, rounded up: the mapped copy
 * of a UNITS_MAX_SPELLING-byte spelling fits in MAPPED_MAX bytes. */
enum { MAPPED_GROWTH = 4, MAPPED_MAX = UNITS_MAX_SPELLING * MAPPED_GROWTH + 1 };

/* UDUNITS-2 2.2's lexer strdup()s an identifier that its parser drops on some syntax errors
 * ("m 0d" leaks "d" once the next parse runs).  A few bytes per malformed spelling, in a
 * library we cannot fix from here; tell LeakSanitizer, as tests/valgrind.supp tells
 * valgrind, so the sanitizer runs keep failing on our own leaks. */
#if defined(__SANITIZE_ADDRESS__)
#define UNITS_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNITS_UNDER_ASAN 1
#endif
#endif
#ifdef UNITS_UNDER_ASAN
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:utlex\n";
}
#endif

struct UnitSystem {
	ut_system *sys;
	ut_unit *one;                      /* the dimensionless unit, for stripping origins */
	ut_error_message_handler previous; /* restored by units_close */
	char canonical[MAPPED_MAX + 64];
};

UnitSystem *units_open(const char **why)
{
	const char *dummy;
	if (!why)
		why = &dummy;
	*why = NULL;
	UnitSystem *us = calloc(1, sizeof *us);
	if (!us) {
		*why = "out of memory";
		return NULL;
	}
	/* UDUNITS-2 prints parse errors and database warnings through one process-wide handler;
	 * the checker reports unknown units itself, so silence it while a system is open. */
	us->previous = ut_set_error_message_handler(ut_ignore);
	us->sys = ut_read_xml(NULL);
	if (!us->sys) {
		switch (ut_get_status()) {
		case UT_OPEN_ENV:
			*why = "cannot open the UDUNITS-2 database named by UDUNITS2_XML_PATH";
			break;
		case UT_OPEN_DEFAULT:
			*why = "cannot open the installed UDUNITS-2 database";
			break;
		case UT_PARSE:
			*why = "the UDUNITS-2 database is malformed";
			break;
		default:
			*why = "cannot load the UDUNITS-2 database";
			break;
		}
		goto fail;
	}
	us->one = ut_get_dimensionless_unit_one(us->sys);
	if (!us->one) {
		*why = "the UDUNITS-2 database has no dimensionless unit";
		goto fail;
	}
	return us;
fail:
	units_close(us);
	return NULL;
}

void units_close(UnitSystem *us)
{
	if (!us)
		return;
	ut_free(us->one);
	ut_free_system(us->sys);
	ut_set_error_message_handler(us->previous);
	free(us);
}

static bool is_blank(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Whether s[0..n) is well-formed UTF-8 without control characters and with balanced
 * parentheses (UDUNITS-2 2.2 accepts one stray ')' at the end: "m)" parses as m). */
static bool is_clean_text(const unsigned char *s, size_t n)
{
	size_t depth = 0;
	size_t i = 0;
	while (i < n) {
		unsigned char c = s[i];
		if (c < 0x80) {
			if (c < 0x20 || c == 0x7f)
				return false;
			if (c == '(')
				depth++;
			else if (c == ')' && depth-- == 0)
				return false;
			i++;
			continue;
		}
		size_t len;
		unsigned min;
		unsigned cp;
		if ((c & 0xe0) == 0xc0) {
			len = 2, min = 0x80, cp = c & 0x1fu;
		} else if ((c & 0xf0) == 0xe0) {
			len = 3, min = 0x800, cp = c & 0x0fu;
		} else if ((c & 0xf8) == 0xf0) {
			len = 4, min = 0x10000, cp = c & 0x07u;
		} else {
			return false;
		}
		if (n - i < len)
			return false;
		for (size_t k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = (cp << 6) | (s[i + k] & 0x3fu);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += len;
	}
	return depth == 0;
}

static bool is_word_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

/* Copies s[0..n) into out (MAPPED_MAX bytes) with the words of spelling_map replaced. */
static bool map_spelling(const char *s, size_t n, char *out)
{
	size_t o = 0;
	size_t i = 0;
	while (i < n) {
		const char *piece = s + i;
		size_t len = 1;
		if (is_word_byte((unsigned char)s[i])) {
			while (i + len < n && is_word_byte((unsigned char)s[i + len]))
				len++;
			for (size_t k = 0; k < sizeof spelling_map / sizeof spelling_map[0]; k++) {
				if (strlen(spelling_map[k].word) == len &&
				    memcmp(spelling_map[k].word, piece, len) == 0) {
					piece = spelling_map[k].udunits;
					break;
				}
			}
		}
		size_t plen = piece == s + i ? len : strlen(piece);
		if (o + plen >= MAPPED_MAX)
			return false;
		memcpy(out + o, piece, plen);
		o += plen;
		i += len;
	}
	out[o] = '\0';
	return true;
}

/* The parsed unit (caller frees with ut_free), or NULL when the spelling is not a unit.
 * When mapped is not NULL it receives the spelling UDUNITS-2 was given. */
static ut_unit *parse_unit(UnitSystem *us, const char *spelling, char *mapped)
{
	if (!us || !spelling)
		return NULL;
	size_t n = strlen(spelling);
	const char *s = spelling;
	while (n > 0 && is_blank((unsigned char)s[0]))
		s++, n--;
	while (n > 0 && is_blank((unsigned char)s[n - 1]))
		n--;
	if (n == 0 || n > UNITS_MAX_SPELLING || !is_clean_text((const unsigned char *)s, n))
		return NULL;
	char local[MAPPED_MAX];
	char *buf = mapped ? mapped : local;
	if (!map_spelling(s, n, buf))
		return NULL;
	return ut_parse(us->sys, buf, UT_UTF8);
}

bool units_known(UnitSystem *us, const char *spelling)
{
	ut_unit *u = parse_unit(us, spelling, NULL);
	ut_free(u);
	return u != NULL;
}

/* The value of 0 in u expressed in u's origin-free unit: 273.15 for degC, 0 for m. */
static double origin_of(ut_unit *u, ut_unit *stripped)
{
	cv_converter *cv = ut_get_converter(u, stripped);
	double o = cv ? cv_convert_double(cv, 0.0) : 0.0;
	cv_free(cv);
	return o;
}

/* UDUNITS-2 builds factors by multiplying prefixes and definitions, so a decimal factor
 * can come out an ulp away from the decimal (litre to m3 gives 0.0010000000000000002).
 * Snap v to the nearest decimal of at most 12 significant digits when that decimal is within
 * 2 ulp of v.  The result is never more than 2 ulp from what UDUNITS-2 computed, and factors
 * such as pi/180 or 5/9, which no short decimal approaches that closely, are left alone. */
static double snap_decimal(double v)
{
	if (v == 0.0 || !isfinite(v))
		return v;
	double a = fabs(v);
	double ulp = nextafter(a, INFINITY) - a;
	for (int digits = 1; digits <= 12; digits++) {
		char text[40];
		snprintf(text, sizeof text, "%.*e", digits - 1, v);
		double t = strtod(text, NULL);
		if (t == v)
			return v;
		if (fabs(t - v) <= 2.0 * ulp)
			return t;
	}
	return v;
}

/* Whether scale * x + offset reproduces the converter at points other than 0 and 1. */
static bool is_affine(cv_converter *cv, double scale, double offset)
{
	static const double probes[] = {2.0, -3.0, 10.0};
	for (size_t k = 0; k < sizeof probes / sizeof probes[0]; k++) {
		double x = probes[k];
		double want = cv_convert_double(cv, x);
		double got = scale * x + offset;
		double tol = 1e-9 * (fabs(scale * x) + fabs(offset)) + DBL_MIN;
		if (!isfinite(want) || fabs(want - got) > tol)
			return false;
	}
	return true;
}

/* Fills scale and offset for convertible units; false when the map is not affine. */
static bool affine_map(UnitSystem *us, ut_unit *from, ut_unit *to, double *scale,
                       double *offset)
{
	bool ok = false;
	ut_unit *from_bare = NULL;
	ut_unit *to_bare = NULL;
	cv_converter *bare = NULL;
	cv_converter *cv = ut_get_converter(from, to);
	if (!cv)
		goto done;
	double f0 = cv_convert_double(cv, 0.0);
	double f1 = cv_convert_double(cv, 1.0);
	double s = f1 - f0;
	double o = f0;

	/* Multiplying by one drops a unit's origin (degC becomes K).  When the origin-free
	 * converter is a pure scale, its value at 1 is the scale without the cancellation
	 * that f(1) - f(0) suffers next to a large offset (degF to K), and an offset that is
	 * only rounding noise from origins cancelling each other is exactly zero. */
	from_bare = ut_multiply(from, us->one);
	to_bare = ut_multiply(to, us->one);
	bare = from_bare && to_bare ? ut_get_converter(from_bare, to_bare) : NULL;
	if (bare && cv_convert_double(bare, 0.0) == 0.0) {
		s = cv_convert_double(bare, 1.0);
		double o_from = origin_of(from, from_bare);
		double o_to = origin_of(to, to_bare);
		double noise = 8.0 * DBL_EPSILON * (fabs(s * o_from) + fabs(o_to));
		if (fabs(o) <= noise)
			o = 0.0;
	}
	if (o == 0.0)
		o = 0.0; /* never -0.0 */
	if (!isfinite(s) || !isfinite(o) || s == 0.0 || !is_affine(cv, s, o))
		goto done;
	*scale = snap_decimal(s);
	*offset = snap_decimal(o);
	ok = true;
done:
	cv_free(bare);
	cv_free(cv);
	ut_free(from_bare);
	ut_free(to_bare);
	return ok;
}

UnitsResult units_conversion(UnitSystem *us, const char *from, const char *to,
                             double *scale, double *offset)
{
	UnitsResult r;
	ut_unit *to_unit = NULL;
	ut_unit *from_unit = parse_unit(us, from, NULL);
	if (!from_unit) {
		r = UNITS_UNKNOWN_FROM;
		goto done;
	}
	to_unit = parse_unit(us, to, NULL);
	if (!to_unit) {
		r = UNITS_UNKNOWN_TO;
		goto done;
	}
	double s;
	double o;
	if (!ut_are_convertible(from_unit, to_unit) || !affine_map(us, from_unit, to_unit, &s, &o)) {
		r = UNITS_INCOMMENSURABLE;
		goto done;
	}
	if (scale)
		*scale = s;
	if (offset)
		*offset = o;
	r = UNITS_OK;
done:
	ut_free(from_unit);
	ut_free(to_unit);
	return r;
}

const char *units_canonical(UnitSystem *us, const char *spelling)
{
	char mapped[MAPPED_MAX];
	ut_unit *u = parse_unit(us, spelling, mapped);
	if (!u)
		return NULL;
	int n = ut_format(u, us->canonical, sizeof us->canonical, UT_ASCII);
	ut_free(u);
	if (n < 0 || (size_t)n >= sizeof us->canonical) {
		/* Cannot happen for spellings this short; say what UDUNITS-2 was given instead. */
		snprintf(us->canonical, sizeof us->canonical, "%s", mapped);
	}
	return us->canonical;
}
