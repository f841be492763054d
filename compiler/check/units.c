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
 * logarithmic units ("lg(re mW)") convert non-linearly and count as incommensurable.
 *
 * Base units for FMI (units_base).  FMI 2.0 counts the radian as a base unit of its own,
 * where UDUNITS-2 folds it into the number 1; so a second, "angle-aware" system is loaded on
 * first use, in which the radian is a new base unit and every database unit defined through
 * it (the table angle_units, the transitive closure of "rad" over the definitions of the
 * UDUNITS-2 2.2 database) is mapped again in its terms.  A spelling is parsed in that system,
 * its exponents are read off the parsed unit with a UDUNITS-2 visitor (a product of base
 * units, perhaps under a scale and an origin), and factor and offset are the affine map from
 * the unit onto that product of base units.  The checker's system is left as it was. */
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

/* The angle-aware system of units_base: its base units in BaseUnit order. */
enum { BASE_KG, BASE_M, BASE_S, BASE_A, BASE_K, BASE_MOL, BASE_CD, BASE_RAD, BASE_COUNT };

typedef struct AngleSystem {
	ut_system *sys;
	ut_unit *one;
	ut_unit *base[BASE_COUNT];
} AngleSystem;

struct UnitSystem {
	ut_system *sys;
	ut_unit *one;                      /* the dimensionless unit, for stripping origins */
	ut_error_message_handler previous; /* restored by units_close */
	AngleSystem *angles;               /* loaded by the first units_base; NULL before */
	bool angles_failed;                /* it could not be set up: do not try again */
	char canonical[MAPPED_MAX + 64];
};

static void angles_free(AngleSystem *as);

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
	angles_free(us->angles);
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

/* The unit parsed in sys (caller frees with ut_free), or NULL when the spelling is not a
 * unit.  When mapped is not NULL it receives the spelling UDUNITS-2 was given. */
static ut_unit *parse_in(ut_system *sys, const char *spelling, char *mapped)
{
	if (!sys || !spelling)
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
	return ut_parse(sys, buf, UT_UTF8);
}

static ut_unit *parse_unit(UnitSystem *us, const char *spelling, char *mapped)
{
	return us ? parse_in(us->sys, spelling, mapped) : NULL;
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

/* Fills scale and offset for convertible units; false when the map is not affine.  one is
 * the dimensionless unit of the units' system. */
static bool affine_map(ut_unit *one, ut_unit *from, ut_unit *to, double *scale,
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
	from_bare = ut_multiply(from, one);
	to_bare = ut_multiply(to, one);
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
	if (!ut_are_convertible(from_unit, to_unit) ||
	    !affine_map(us->one, from_unit, to_unit, &s, &o)) {
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

/* ---- base units (units_base) --------------------------------------------------------- */

/* Every unit of the UDUNITS-2 2.2 database whose definition reaches the radian, in an
 * order where a definition only uses units mapped before it; def is read in the angle-aware
 * system, where "rad" is already the new base unit.  Names are remapped together with the
 * plurals the database reader made for them; a name the database lacks is skipped. */
static const struct {
	const char *def;
	const char *names[19];   /* NULL-terminated */
	const char *symbols[4];  /* NULL-terminated, UTF-8 */
} angle_units[] = {
	{"rad^2", {"steradian", NULL}, {"sr", NULL}},
	{"(pi/180) rad", {"arc_degree", "angular_degree", "degree", "arcdeg", NULL},
	 {"\xc2\xb0", NULL}},
	{"arc_degree/60", {"arc_minute", "angular_minute", "arcminute", "arcmin", NULL},
	 {"'", "\xe2\x80\xb2", NULL}},
	{"arc_minute/60", {"arc_second", "angular_second", "arcsecond", "arcsec", NULL},
	 {"\"", "\xe2\x80\xb3", NULL}},
	{"0.9 arc_degree", {"grade", NULL}, {NULL}},
	{"2 pi rad", {"circle", "cycle", "turn", "revolution", "rotation", NULL}, {NULL}},
	{"arc_degree",
	 {"degree_north", "degrees_north", "degree_N", "degrees_N", "degreeN", "degreesN",
	  "degree_east", "degrees_east", "degree_E", "degrees_E", "degreeE", "degreesE",
	  "degree_true", "degrees_true", "degree_T", "degrees_T", "degreeT", "degreesT", NULL},
	 {NULL}},
	{"-1 arc_degree",
	 {"degree_west", "degrees_west", "degree_W", "degrees_W", "degreeW", "degreesW", NULL},
	 {NULL}},
	{"rotation/second", {"rotation_per_second", "rotations_per_second", NULL},
	 {"rps", "cps", NULL}},
	{"rotation/minute", {NULL}, {"rpm", NULL}},
	{"cd.sr", {"lumen", NULL}, {"lm", NULL}},
	{"lm/m^2", {"lux", NULL}, {"lx", NULL}},
	{"1.076391e-1 lx", {"footcandle", NULL}, {NULL}},
	{"1e4 lm/m^2", {"phot", NULL}, {"ph", NULL}},
};

static void angles_free(AngleSystem *as)
{
	if (!as)
		return;
	for (int i = 0; i < BASE_COUNT; i++)
		ut_free(as->base[i]);
	ut_free(as->one);
	ut_free_system(as->sys);
	free(as);
}

static bool is_ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return false;
	return true;
}

/* The Latin-1 form of a UTF-8 string when it has one (the reader maps symbols such as
 * the degree sign under both encodings), in out (n bytes); false otherwise. */
static bool to_latin1(const char *s, char *out, size_t n)
{
	size_t o = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		unsigned c = *p;
		if (c >= 0x80) {
			if ((c & 0xfe) != 0xc2 || (p[1] & 0xc0) != 0x80)
				return false;
			c = ((c & 0x03u) << 6) | (p[1] & 0x3fu);
			p++;
		}
		if (o + 1 >= n)
			return false;
		out[o++] = (char)c;
	}
	out[o] = '\0';
	return true;
}

static bool remap_symbol(ut_system *sys, const char *sym, const ut_unit *u)
{
	if (is_ascii(sym)) {
		ut_unmap_symbol_to_unit(sys, sym, UT_ASCII);
		return ut_map_symbol_to_unit(sym, UT_ASCII, u) == UT_SUCCESS;
	}
	char latin1[16];
	ut_unmap_symbol_to_unit(sys, sym, UT_UTF8);
	if (to_latin1(sym, latin1, sizeof latin1))
		ut_unmap_symbol_to_unit(sys, latin1, UT_LATIN1);
	return ut_map_symbol_to_unit(sym, UT_UTF8, u) == UT_SUCCESS;
}

/* Remaps name, if the database has it, and each plural the reader may have formed. */
static bool remap_name(ut_system *sys, const char *name, const ut_unit *u)
{
	static const char *const suffixes[] = {"", "s", "es"};
	for (size_t k = 0; k < sizeof suffixes / sizeof suffixes[0]; k++) {
		char form[64];
		snprintf(form, sizeof form, "%s%s", name, suffixes[k]);
		ut_unit *old = ut_get_unit_by_name(sys, form);
		if (!old)
			continue;
		ut_free(old);
		ut_unmap_name_to_unit(sys, form, UT_ASCII);
		if (ut_map_name_to_unit(form, UT_ASCII, u) != UT_SUCCESS)
			return false;
	}
	return true;
}

/* Loads the angle-aware system: the database again, a new base unit for the radian, and
 * every unit of angle_units mapped again in its terms.  NULL when any step fails. */
static AngleSystem *angles_open(void)
{
	static const char *const si[] = {"kilogram", "meter", "second", "ampere", "kelvin",
	                                 "mole", "candela"};
	AngleSystem *as = calloc(1, sizeof *as);
	if (!as)
		return NULL;
	as->sys = ut_read_xml(NULL);
	if (!as->sys)
		goto fail;
	as->one = ut_get_dimensionless_unit_one(as->sys);
	for (int i = 0; i < BASE_RAD; i++)
		if (!(as->base[i] = ut_get_unit_by_name(as->sys, si[i])))
			goto fail;
	as->base[BASE_RAD] = ut_new_base_unit(as->sys);
	if (!as->one || !as->base[BASE_RAD] ||
	    !remap_name(as->sys, "radian", as->base[BASE_RAD]) ||
	    !remap_symbol(as->sys, "rad", as->base[BASE_RAD]))
		goto fail;
	for (size_t k = 0; k < sizeof angle_units / sizeof angle_units[0]; k++) {
		ut_unit *u = ut_parse(as->sys, angle_units[k].def, UT_ASCII);
		bool ok = u != NULL;
		for (int i = 0; ok && angle_units[k].names[i]; i++)
			ok = remap_name(as->sys, angle_units[k].names[i], u);
		for (int i = 0; ok && angle_units[k].symbols[i]; i++)
			ok = remap_symbol(as->sys, angle_units[k].symbols[i], u);
		ut_free(u);
		if (!ok)
			goto fail;
	}
	return as;
fail:
	angles_free(as);
	return NULL;
}

typedef struct BaseVisit {
	const AngleSystem *as;
	int exp[BASE_COUNT];
} BaseVisit;

static ut_status add_power(BaseVisit *v, const ut_unit *basic, int power)
{
	for (int i = 0; i < BASE_COUNT; i++)
		if (ut_compare(basic, v->as->base[i]) == 0) {
			v->exp[i] += power;
			return UT_SUCCESS;
		}
	return UT_VISIT_ERROR; /* a base unit outside SI and the radian */
}

static ut_status visit_basic(const ut_unit *u, void *arg)
{
	return add_power(arg, u, 1);
}

static ut_status visit_product(const ut_unit *u, int count, const ut_unit *const *basics,
                               const int *powers, void *arg)
{
	(void)u;
	for (int i = 0; i < count; i++)
		if (add_power(arg, basics[i], powers[i]) != UT_SUCCESS)
			return UT_VISIT_ERROR;
	return UT_SUCCESS;
}

static const ut_visitor base_visitor;

/* A scaled or shifted unit: the exponents are those of the unit underneath. */
static ut_status visit_galilean(const ut_unit *u, double scale, const ut_unit *under,
                                double offset, void *arg)
{
	(void)u;
	(void)scale;
	(void)offset;
	return ut_accept_visitor(under, &base_visitor, arg);
}

static ut_status visit_timestamp(const ut_unit *u, const ut_unit *time, double origin,
                                 void *arg)
{
	(void)u;
	(void)time;
	(void)origin;
	(void)arg;
	return UT_VISIT_ERROR;
}

static ut_status visit_logarithmic(const ut_unit *u, double base, const ut_unit *ref,
                                   void *arg)
{
	(void)u;
	(void)base;
	(void)ref;
	(void)arg;
	return UT_VISIT_ERROR;
}

static const ut_visitor base_visitor = {
	visit_basic, visit_product, visit_galilean, visit_timestamp, visit_logarithmic,
};

UnitsResult units_base(UnitSystem *us, const char *spelling, UnitsBase *out)
{
	if (!us)
		return UNITS_UNKNOWN_FROM;
	if (!units_known(us, spelling))
		return UNITS_UNKNOWN_FROM;
	if (!us->angles && !us->angles_failed) {
		us->angles = angles_open();
		us->angles_failed = us->angles == NULL;
	}
	AngleSystem *as = us->angles;
	if (!as)
		return UNITS_INCOMMENSURABLE;
	UnitsResult r = UNITS_INCOMMENSURABLE;
	ut_unit *product = NULL;
	ut_unit *u = parse_in(as->sys, spelling, NULL);
	BaseVisit v = {as, {0}};
	if (!u) {
		r = UNITS_UNKNOWN_FROM;
		goto done;
	}
	if (ut_accept_visitor(u, &base_visitor, &v) != UT_SUCCESS)
		goto done;
	product = ut_get_dimensionless_unit_one(as->sys);
	for (int i = 0; product && i < BASE_COUNT; i++) {
		if (v.exp[i] == 0)
			continue;
		ut_unit *power = ut_raise(as->base[i], v.exp[i]);
		ut_unit *next = power ? ut_multiply(product, power) : NULL;
		ut_free(power);
		ut_free(product);
		product = next;
	}
	double factor;
	double offset;
	if (!product || !affine_map(as->one, u, product, &factor, &offset))
		goto done;
	*out = (UnitsBase){
		.kg = v.exp[BASE_KG], .m = v.exp[BASE_M], .s = v.exp[BASE_S], .A = v.exp[BASE_A],
		.K = v.exp[BASE_K], .mol = v.exp[BASE_MOL], .cd = v.exp[BASE_CD],
		.rad = v.exp[BASE_RAD], .factor = factor, .offset = offset,
	};
	r = UNITS_OK;
done:
	ut_free(product);
	ut_free(u);
	return r;
}
