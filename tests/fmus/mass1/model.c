/* mass1 — mass 1 of the two-coupled-masses benchmark (bench/two_mass/README.md):
 * m = 1 kg on a wall spring of 20 N/m, coupled to mass 2 (the inputs xo, vo) by 40 N/m in
 * parallel with 0.2 N.s/m; it starts at x = 1 m, at rest.  The model itself, exact for
 * inputs linear over a step, is tests/fmus/twomass/twomass_model.h, shared with mass2. */
#include "../twomass/twomass_model.h"

#define MASS_GUID "{e0345f51-8164-4c51-a398-8b4062348517}"

/* xo, vo, x, v, m, k, kc, c, x0, v0 (x and v take x0 and v0 at initialization) */
static const Mass start = {0.0, 0.0, 1.0, 0.0, 1.0, 20.0, 40.0, 0.2, 1.0, 0.0};

const KitModel kit_model = {
	"mass1",
	MASS_GUID,
	sizeof(Mass),
	&start,
	mass_vars,
	sizeof mass_vars / sizeof mass_vars[0],
	mass_calculate,
	mass_initialize,
	mass_do_step,
};
