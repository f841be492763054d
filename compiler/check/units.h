/* units.h — physical units through UDUNITS-2.
 *
 * The checker asks two questions of a pair of unit spellings: are they commensurable, and
 * what affine map (y = scale * x + offset) converts a value from one to the other.  Unit
 * spellings common in Modelica and FMI that UDUNITS-2 does not know (deg, degC written as
 * "degC", ...) are mapped to UDUNITS-2 names before parsing.  The language writes products
 * with '.' (N.m) and powers with '^' (m/s^2); both are accepted. */
#ifndef SACC_UNITS_H
#define SACC_UNITS_H

#include <stdbool.h>

typedef struct UnitSystem UnitSystem;

/* Loads the UDUNITS-2 database (quietly).  NULL when it cannot be loaded; *why says why. */
UnitSystem *units_open(const char **why);
void units_close(UnitSystem *us);

/* Whether spelling is a unit UDUNITS-2 (after the mapping) can parse. */
bool units_known(UnitSystem *us, const char *spelling);

typedef enum UnitsResult {
	UNITS_OK,
	UNITS_UNKNOWN_FROM,   /* the first spelling is not a unit */
	UNITS_UNKNOWN_TO,     /* the second spelling is not a unit */
	UNITS_INCOMMENSURABLE,
} UnitsResult;

/* Computes the conversion from `from` to `to`: value_to = scale * value_from + offset.
 * Exact for scale-only conversions (cm to m gives 0.01 and 0). */
UnitsResult units_conversion(UnitSystem *us, const char *from, const char *to,
                             double *scale, double *offset);

/* A unit as FMI's BaseUnit element gives it: a value v in the unit is
 * factor * v + offset in kg^kg m^m s^s A^A K^K mol^mol cd^cd rad^rad.  FMI counts the
 * radian as a base unit of its own where UDUNITS-2 and SI make it the number 1: rad/s is
 * rad=1 s=-1 and Hz is s=-1; deg is rad=1 with factor pi/180; degC is K=1 with offset
 * 273.15. */
typedef struct UnitsBase {
	int kg, m, s, A, K, mol, cd, rad;
	double factor, offset;
} UnitsBase;

/* Decomposes a spelling into base units for UnitDefinitions (the emitter).  UNITS_OK;
 * UNITS_UNKNOWN_FROM when the spelling is not a unit; UNITS_INCOMMENSURABLE when it has no
 * affine map onto base units (logarithmic and time-stamp units) or when the second,
 * angle-aware unit system it needs could not be loaded.  Decimal factors are exact as in
 * units_conversion (cm is factor 0.01). */
UnitsResult units_base(UnitSystem *us, const char *spelling, UnitsBase *out);

/* The canonical spelling UDUNITS-2 would print for the spelling, in a static buffer
 * owned by us (overwritten by the next call); NULL when unknown.  For messages. */
const char *units_canonical(UnitSystem *us, const char *spelling);

#endif
