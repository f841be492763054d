/* sart_master_fmi2.c — the FMI 2.0 names the master's messages quote.  The master calls
 * FMUs through the seam (runtime/sart_inner.h) and names no FMI type; where a message
 * tells the user which FMI call misbehaved, the name comes from here.  FMUs of FMI 3.0 do
 * not load yet (the seam refuses them); their names will come from a file beside this
 * one, chosen by version. */
#include "sart_master_internal.h"

const char *master_set_state_call(SartFmiVersion version)
{
	(void)version;
	return "fmi2SetFMUstate";
}
