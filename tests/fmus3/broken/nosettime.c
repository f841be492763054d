/* nosettime — the aparam3 test FMU built without fmi3SetTime, for the suite's FMI 3.0
 * importer (tests/unit/fmi3_importer.h): a Co-Simulation FMU that lacks one Model Exchange
 * function, as sacc's wrappers once did, which fmusim and FMPy refuse to load, and so must
 * the suite (tests/unit/test_fmu3_kit.c).  The kit's definition is renamed, so everything
 * else is the ordinary aparam3 FMU and the one missing export is the only fault.  The kit
 * comes first: it sets the feature-test macros its C needs. */
#define fmi3SetTime nosettime_fmi3SetTime

#include "../kit/fmu3_kit.c"
#include "../aparam3/model.c"
