/* mass2 — mass 2 of the two-coupled-masses benchmark (bench/two_mass/README.md):
 * m = 2 kg on a wall spring of 30 N/m, coupled to mass 1 (the inputs xo, vo) by 40 N/m in
 * parallel with 0.2 N.s/m; it starts at x = 0 m, at rest.  The model itself, exact for
 * inputs linear over a step, is tests/fmus/twomass/twomass_model.h, shared with mass1. */
#include "../twomass/twomass_model.h"

#define MASS_GUID "{27396174-c505-491d-8d8a-2f2a054615a7}"

/* xo, vo, x, v, m, k, kc, c, x0, v0 (x and v take x0 and v0 at initialization) */
static const Mass start = {0.0, 0.0, 0.0, 0.0, 2.0, 30.0, 40.0, 0.2, 0.0, 0.0};

const KitModel kit_model = {
	"mass2",
	MASS_GUID,
	sizeof(Mass),
	&start,
	mass_vars,
	sizeof mass_vars / sizeof mass_vars[0],
	mass_calculate,
	mass_initialize,
	mass_do_step,
};
