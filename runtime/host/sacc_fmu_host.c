/* sacc-fmu-host — the program an inner FMU run out of process lives in (sart_isolate.h).
 * Started by sacc (or a wrapper FMU) with a shared-memory descriptor; not for use by hand. */
#include "sart_isolate.h"

int main(int argc, char **argv)
{
	return sart_host_main(argc, argv);
}
