/* e2e_fmi3.h — the importer side the FMI 3.0 end-to-end tests share (test_e2e_arrays3.c,
 * test_e2e_strarr3.c, test_e2e_binary3.c, test_e2e_types3.c, test_e2e_wrapper3.c): one
 * Co-Simulation instance, either a wrapper sacc built into BUILD/<sub>/ (unpacked by `sacc
 * unpack`) or a bare FMI 3.0 test FMU of BUILD/fmus3/, imported through fmi3_importer.h,
 * instantiated with a logger that keeps every message in `logged`, initialized at t = 0,
 * stepped and freed; or a wrapper only opened, for a test that makes its instances itself.
 *
 * Include after <cmocka.h>, with _XOPEN_SOURCE 700 defined for realpath. */
#ifndef SACC_E2E_FMI3_H
#define SACC_E2E_FMI3_H

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "fmi3_importer.h"
#include "package.h"
#include "sacc_test.h"
#include "e2e_kit.h"

/* What the instances logged: every message, one a line.  A test empties it before the call
 * whose message it looks for. */
static char logged[8192];

static inline void logger3(fmi3InstanceEnvironment env, fmi3Status status,
                           fmi3String category, fmi3String message)
{
	(void)env, (void)category, (void)status;
	size_t used = strlen(logged);
	snprintf(logged + used, sizeof logged - used, "%s\n", message);
}

typedef struct Fmu3 {
	Fmi3Api api;
	fmi3Instance c;
	char dir[PATH_MAX]; /* the unpacked FMU: its modelDescription.xml and resources/ */
	char token[64];
	char resources[PATH_MAX + 16];
} Fmu3;

/* Initialization at t = 0; a failure shows what was logged. */
static inline void fmu3_init(Fmu3 *f)
{
	assert_non_null(f->c);
	logged[0] = '\0';
	if (f->api.enter_init(f->c, fmi3False, 0, 0, fmi3False, 0) != fmi3OK ||
	    f->api.exit_init(f->c) != fmi3OK)
		fail_msg("initialization failed:\n%s", logged);
}

/* The wrapper <id> built into BUILD/<sub>/, unpacked and imported; f->c is left NULL, for
 * a test that makes its instances itself. */
static inline void fmu3_open_wrapper(Fmu3 *f, const char *sub, const char *id)
{
	char lib[2 * PATH_MAX];
	memset(f, 0, sizeof *f);
	unpack(sub, id, f->dir);
	assert_true(md_attr(f->dir, "instantiationToken", "instantiationToken", f->token,
	                    sizeof f->token));
	snprintf(f->resources, sizeof f->resources, "%s/resources/", f->dir);
	snprintf(lib, sizeof lib, "%s/binaries/x86_64-linux/%s.so", f->dir, id);
	fmi3_import(&f->api, lib);
}

/* The wrapper <id> built into BUILD/<sub>/, unpacked, imported and instantiated (not yet
 * initialized: parameters may still be set). */
static inline void fmu3_instantiate_wrapper(Fmu3 *f, const char *sub, const char *id)
{
	fmu3_open_wrapper(f, sub, id);
	f->c = f->api.instantiate("w", f->token, f->resources, fmi3False, fmi3False, fmi3False,
	                          fmi3False, NULL, 0, NULL, logger3, NULL);
	assert_non_null(f->c);
}

/* The wrapper <id> built into BUILD/<sub>/, instantiated and initialized at t = 0. */
static inline void fmu3_start_wrapper(Fmu3 *f, const char *sub, const char *id)
{
	fmu3_instantiate_wrapper(f, sub, id);
	fmu3_init(f);
}

/* The bare test FMU BUILD/fmus3/<model>/, whose instantiationToken is token, imported and
 * initialized at t = 0. */
static inline void fmu3_start_bare(Fmu3 *f, const char *model, const char *token)
{
	char lib[PATH_MAX];
	memset(f, 0, sizeof *f);
	snprintf(f->dir, sizeof f->dir, "%s/fmus3/%s", test_build_dir(), model);
	fmi3_library_path(lib, sizeof lib, test_build_dir(), model);
	fmi3_import(&f->api, lib);
	f->c = f->api.instantiate("bare", token, NULL, fmi3False, fmi3False, fmi3False, fmi3False,
	                          NULL, 0, NULL, logger3, NULL);
	fmu3_init(f);
}

/* One step of h from t; the event, terminate and early-return flags and the last
 * successful time it gives back are not looked at. */
static inline fmi3Status fmu3_step(Fmu3 *f, double t, double h)
{
	fmi3Boolean event = fmi3False, terminate = fmi3False, early = fmi3False;
	fmi3Float64 last = 0;
	return f->api.do_step(f->c, t, h, fmi3True, &event, &terminate, &early, &last);
}

static inline void fmu3_stop(Fmu3 *f)
{
	f->api.free_instance(f->c);
	fmi3_unimport(&f->api);
}

#endif
