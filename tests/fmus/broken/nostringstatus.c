/* nostringstatus — the ramp test FMU built without fmi2GetStringStatus, for the suite's
 * FMI 2.0 importer (tests/unit/fmi2_importer.h): a Co-Simulation FMU that lacks one
 * function of its interface, which fmusim and FMPy refuse to load, and so must the suite
 * (tests/unit/test_fmu_kit.c).  The kit's definition is renamed, so everything else is the
 * ordinary ramp FMU and the one missing export is the only fault.  The kit comes first: it
 * sets the feature-test macros its C needs. */
#define fmi2GetStringStatus nostringstatus_fmi2GetStringStatus

#include "../kit/fmu_kit.c"
#include "../ramp/model.c"
