/* ssp_import.c — `sacc ssp import SYSTEM.ssp -o DIR` (stub). */
#include "ssp_cli.h"

#include "ssp.h"

int ssp_import_main(Compilation *c, SspArgs *a)
{
	(void)c, (void)a;
	cli_error("import: not implemented yet");
	return 1;
}
