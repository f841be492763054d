/* test_fmu_me_kit.c — the Model Exchange test FMUs (tests/fmus_me/), each in its FMI 2.0 and
 * its FMI 3.0 build, loaded with dlopen as a strict importer does and driven through the
 * Model Exchange life cycle by hand: derivatives against the equations, small fixed-step
 * loops against the exact solutions, event updates, FMU states bit for bit, refusals of
 * calls in the wrong mode, and what each misbehaving mode of mebad promises.  The seam and
 * `sacc simulate --interface me` rely on what is asserted here.
 *
 * Every test runs once per FMI version: a thin layer below (fmu_*) hides which one. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fmi2_importer.h"
#include "fmi3_importer.h"
#include "assert_close.h"
#include "assert_contains.h"

static int V2 = 2, V3 = 3;

/* ---- an importer of either version ------------------------------------------------------- */

typedef struct Log {
	char last[512];
	int count;
} Log;

/* The Model Exchange functions of FMI 2.0 (fmi2_importer.h looks up the common and
 * Co-Simulation ones). */
typedef struct Me2Fns {
	fmi2EnterEventModeTYPE *enter_event;
	fmi2NewDiscreteStatesTYPE *new_discrete;
	fmi2EnterContinuousTimeModeTYPE *enter_ct;
	fmi2CompletedIntegratorStepTYPE *completed;
	fmi2SetTimeTYPE *set_time;
	fmi2SetContinuousStatesTYPE *set_x;
	fmi2GetDerivativesTYPE *get_dx;
	fmi2GetEventIndicatorsTYPE *get_z;
	fmi2GetContinuousStatesTYPE *get_x;
	fmi2GetNominalsOfContinuousStatesTYPE *get_nominals;
} Me2Fns;

/* The FMI 3.0 Model Exchange functions fmi3_importer.h does not keep. */
typedef struct Me3Fns {
	fmi3SetContinuousStatesTYPE *set_x;
	fmi3GetContinuousStatesTYPE *get_x;
	fmi3GetContinuousStateDerivativesTYPE *get_dx;
	fmi3GetEventIndicatorsTYPE *get_z;
	fmi3GetNominalsOfContinuousStatesTYPE *get_nominals;
	fmi3GetNumberOfEventIndicatorsTYPE *get_nz;
} Me3Fns;

typedef struct Fmu {
	int v; /* 2 or 3 */
	Fmi2Api a2;
	Me2Fns m2;
	fmi2CallbackFunctions *cb2;
	Fmi3Api a3;
	Me3Fns m3;
	void *c;
	Log log;
	char token[128];
} Fmu;

/* The answers of one event update, either version's. */
typedef struct Ev {
	int need, term, nominals_changed, values_changed, next_defined;
	double next;
} Ev;

static void logger2(fmi2ComponentEnvironment env, fmi2String name, fmi2Status status,
                    fmi2String category, fmi2String message, ...)
{
	Log *l = env;
	char msg[400];
	va_list ap;
	(void)name, (void)status;
	va_start(ap, message);
	vsnprintf(msg, sizeof msg, message, ap);
	va_end(ap);
	snprintf(l->last, sizeof l->last, "[%s] %s", category, msg);
	l->count++;
}

static void logger3(fmi3InstanceEnvironment env, fmi3Status status, fmi3String category,
                    fmi3String message)
{
	Log *l = env;
	(void)status;
	snprintf(l->last, sizeof l->last, "[%s] %s", category, message);
	l->count++;
}

static const char *build_dir(void)
{
	const char *b = getenv("SACC_BUILD");
	return b && *b ? b : "build";
}

/* The model description of a built FMU, whole, into text. */
static void read_description(int v, const char *model, char *text, size_t size)
{
	char path[512];
	snprintf(path, sizeof path, "%s/fmus_me/fmi%d/%s/modelDescription.xml", build_dir(), v,
	         model);
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	size_t n = fread(text, 1, size - 1, fp);
	fclose(fp);
	assert_true(n < size - 1);
	text[n] = '\0';
}

/* The token the model description declares (guid / instantiationToken): the library must
 * accept exactly that. */
static void read_token(Fmu *f, const char *model)
{
	char text[8192];
	const char *attr = f->v == 2 ? "guid=\"" : "instantiationToken=\"";
	read_description(f->v, model, text, sizeof text);
	const char *p = strstr(text, attr);
	assert_non_null(p);
	p += strlen(attr);
	const char *q = strchr(p, '"');
	assert_non_null(q);
	assert_true((size_t)(q - p) < sizeof f->token);
	memcpy(f->token, p, (size_t)(q - p));
	f->token[q - p] = '\0';
}

#define ME_LOOKUP(lib, fns, field, name)                               \
	do {                                                           \
		void *sym_ = dlsym((lib), name);                       \
		assert_non_null(sym_);                                 \
		memcpy(&(fns).field, &sym_, sizeof sym_);              \
	} while (0)
#define ME2_LOOKUP(f, field, name) ME_LOOKUP((f)->a2.lib, (f)->m2, field, name)
#define ME3_LOOKUP(f, field, name) ME_LOOKUP((f)->a3.lib, (f)->m3, field, name)

/* Loads the library as a strict importer (every function of the version present), without
 * instantiating it. */
static void fmu_load(Fmu *f, int v, const char *model)
{
	char path[512], why[1024];
	memset(f, 0, sizeof *f);
	f->v = v;
	read_token(f, model);
	if (v == 2) {
		snprintf(path, sizeof path, "%s/fmus_me/fmi2/%s/binaries/linux64/%s.so", build_dir(),
		         model, model);
		if (fmi2_try_import(&f->a2, path, FMI2_USES_CO_SIMULATION | FMI2_USES_MODEL_EXCHANGE,
		                    why, sizeof why))
			fail_msg("%s", why);
		ME2_LOOKUP(f, enter_event, "fmi2EnterEventMode");
		ME2_LOOKUP(f, new_discrete, "fmi2NewDiscreteStates");
		ME2_LOOKUP(f, enter_ct, "fmi2EnterContinuousTimeMode");
		ME2_LOOKUP(f, completed, "fmi2CompletedIntegratorStep");
		ME2_LOOKUP(f, set_time, "fmi2SetTime");
		ME2_LOOKUP(f, set_x, "fmi2SetContinuousStates");
		ME2_LOOKUP(f, get_dx, "fmi2GetDerivatives");
		ME2_LOOKUP(f, get_z, "fmi2GetEventIndicators");
		ME2_LOOKUP(f, get_x, "fmi2GetContinuousStates");
		ME2_LOOKUP(f, get_nominals, "fmi2GetNominalsOfContinuousStates");
		fmi2CallbackFunctions cb = {logger2, calloc, free, NULL, &f->log};
		f->cb2 = malloc(sizeof cb);
		assert_non_null(f->cb2);
		memcpy(f->cb2, &cb, sizeof cb);
	} else {
		snprintf(path, sizeof path, "%s/fmus_me/fmi3/%s/binaries/x86_64-linux/%s.so",
		         build_dir(), model, model);
		if (fmi3_try_import(&f->a3, path, why, sizeof why))
			fail_msg("%s", why);
		ME3_LOOKUP(f, set_x, "fmi3SetContinuousStates");
		ME3_LOOKUP(f, get_x, "fmi3GetContinuousStates");
		ME3_LOOKUP(f, get_dx, "fmi3GetContinuousStateDerivatives");
		ME3_LOOKUP(f, get_z, "fmi3GetEventIndicators");
		ME3_LOOKUP(f, get_nominals, "fmi3GetNominalsOfContinuousStates");
		ME3_LOOKUP(f, get_nz, "fmi3GetNumberOfEventIndicators");
	}
}

/* Instantiates (cs: for Co-Simulation) with the given token; f->c may be NULL. */
static void fmu_instantiate_token(Fmu *f, int cs, const char *token)
{
	if (f->v == 2)
		f->c = f->a2.instantiate("inst", cs ? fmi2CoSimulation : fmi2ModelExchange, token, NULL,
		                         f->cb2, fmi2False, fmi2False);
	else if (cs)
		f->c = f->a3.instantiate("inst", token, NULL, fmi3False, fmi3False, fmi3False, fmi3False,
		                         NULL, 0, &f->log, logger3, NULL);
	else
		f->c = f->a3.instantiate_me("inst", token, NULL, fmi3False, fmi3False, &f->log,
		                            logger3);
}

static void fmu_open(Fmu *f, int v, const char *model, int cs)
{
	fmu_load(f, v, model);
	fmu_instantiate_token(f, cs, f->token);
	assert_non_null(f->c);
}

static void fmu_close(Fmu *f)
{
	if (f->c) {
		if (f->v == 2)
			f->a2.free_instance(f->c);
		else
			f->a3.free_instance(f->c);
	}
	free(f->cb2);
	if (f->v == 2)
		fmi2_unimport(&f->a2);
	else
		fmi3_unimport(&f->a3);
}

static int fmu_enter_init(Fmu *f)
{
	if (f->v == 2) {
		int s = f->a2.setup(f->c, fmi2False, 0.0, 0.0, fmi2False, 0.0);
		return s != fmi2OK ? s : (int)f->a2.enter_init(f->c);
	}
	return f->a3.enter_init(f->c, fmi3False, 0.0, 0.0, fmi3False, 0.0);
}

static int fmu_exit_init(Fmu *f)
{
	return f->v == 2 ? (int)f->a2.exit_init(f->c) : (int)f->a3.exit_init(f->c);
}

static int fmu_update(Fmu *f, Ev *e)
{
	int s;
	memset(e, 0, sizeof *e);
	if (f->v == 2) {
		fmi2EventInfo i;
		memset(&i, 0, sizeof i);
		s = f->m2.new_discrete(f->c, &i);
		e->need = i.newDiscreteStatesNeeded;
		e->term = i.terminateSimulation;
		e->nominals_changed = i.nominalsOfContinuousStatesChanged;
		e->values_changed = i.valuesOfContinuousStatesChanged;
		e->next_defined = i.nextEventTimeDefined;
		e->next = i.nextEventTime;
	} else {
		fmi3Boolean need = 0, term = 0, nom = 0, val = 0, def = 0;
		s = f->a3.update_discrete_states(f->c, &need, &term, &nom, &val, &def, &e->next);
		e->need = need, e->term = term, e->nominals_changed = nom, e->values_changed = val;
		e->next_defined = def;
	}
	return s;
}

/* Event iteration until the model is content: the last answers in e, the number of updates
 * returned. */
static int fmu_settle(Fmu *f, Ev *e)
{
	int n = 0;
	do {
		assert_int_equal(fmu_update(f, e), 0);
		n++;
	} while (e->need && n < 100);
	return n;
}

static int fmu_enter_ct(Fmu *f)
{
	return f->v == 2 ? (int)f->m2.enter_ct(f->c) : (int)f->a3.enter_continuous_time_mode(f->c);
}

static int fmu_enter_event(Fmu *f)
{
	return f->v == 2 ? (int)f->m2.enter_event(f->c) : (int)f->a3.enter_event_mode(f->c);
}

static int fmu_set_time(Fmu *f, double t)
{
	return f->v == 2 ? (int)f->m2.set_time(f->c, t) : (int)f->a3.set_time(f->c, t);
}

static int fmu_set_x(Fmu *f, const double x[], size_t n)
{
	return f->v == 2 ? (int)f->m2.set_x(f->c, x, n) : (int)f->m3.set_x(f->c, x, n);
}

static int fmu_get_x(Fmu *f, double x[], size_t n)
{
	return f->v == 2 ? (int)f->m2.get_x(f->c, x, n) : (int)f->m3.get_x(f->c, x, n);
}

static int fmu_get_dx(Fmu *f, double dx[], size_t n)
{
	return f->v == 2 ? (int)f->m2.get_dx(f->c, dx, n)
	                 : (int)f->m3.get_dx(f->c, dx, n);
}

static int fmu_get_z(Fmu *f, double z[], size_t n)
{
	return f->v == 2 ? (int)f->m2.get_z(f->c, z, n) : (int)f->m3.get_z(f->c, z, n);
}

static int fmu_get_nominals(Fmu *f, double nom[], size_t n)
{
	return f->v == 2 ? (int)f->m2.get_nominals(f->c, nom, n)
	                 : (int)f->m3.get_nominals(f->c, nom, n);
}

static int fmu_completed(Fmu *f, int *enter_event, int *terminate)
{
	int s;
	if (f->v == 2) {
		fmi2Boolean a = fmi2True, b = fmi2True;
		s = f->m2.completed(f->c, fmi2True, &a, &b);
		*enter_event = a, *terminate = b;
	} else {
		fmi3Boolean a = fmi3True, b = fmi3True;
		s = f->a3.completed_integrator_step(f->c, fmi3True, &a, &b);
		*enter_event = a, *terminate = b;
	}
	return s;
}

static int fmu_get_real(Fmu *f, unsigned vr, double *v)
{
	return f->v == 2 ? (int)f->a2.get_real(f->c, &vr, 1, v)
	                 : (int)f->a3.get_float64(f->c, &vr, 1, v, 1);
}

static int fmu_set_real(Fmu *f, unsigned vr, double v)
{
	return f->v == 2 ? (int)f->a2.set_real(f->c, &vr, 1, &v)
	                 : (int)f->a3.set_float64(f->c, &vr, 1, &v, 1);
}

static int fmu_get_int(Fmu *f, unsigned vr, int *v)
{
	return f->v == 2 ? (int)f->a2.get_integer(f->c, &vr, 1, v)
	                 : (int)f->a3.get_int32(f->c, &vr, 1, v, 1);
}

static int fmu_set_int(Fmu *f, unsigned vr, int v)
{
	return f->v == 2 ? (int)f->a2.set_integer(f->c, &vr, 1, &v)
	                 : (int)f->a3.set_int32(f->c, &vr, 1, &v, 1);
}

static int fmu_directional(Fmu *f, const unsigned of[], size_t n_of, const unsigned wrt[],
                           size_t n_wrt, const double seed[], double out[])
{
	if (f->v == 2)
		return f->a2.get_directional_derivative(f->c, of, n_of, wrt, n_wrt, seed, out);
	return f->a3.get_directional_derivative(f->c, of, n_of, wrt, n_wrt, seed, n_wrt, out, n_of);
}

static int fmu_get_state(Fmu *f, void **s)
{
	return f->v == 2 ? (int)f->a2.get_state(f->c, s) : (int)f->a3.get_state(f->c, s);
}

static int fmu_set_state(Fmu *f, void *s)
{
	return f->v == 2 ? (int)f->a2.set_state(f->c, s) : (int)f->a3.set_state(f->c, s);
}

static void fmu_free_state(Fmu *f, void **s)
{
	assert_int_equal(f->v == 2 ? (int)f->a2.free_state(f->c, s) : (int)f->a3.free_state(f->c, s), 0);
}

/* The state serialized into a new buffer of *size bytes. */
static unsigned char *fmu_serialize(Fmu *f, void *s, size_t *size)
{
	unsigned char *buf;
	if (f->v == 2)
		assert_int_equal(f->a2.serialized_size(f->c, s, size), fmi2OK);
	else
		assert_int_equal(f->a3.serialized_size(f->c, s, size), fmi3OK);
	buf = malloc(*size);
	assert_non_null(buf);
	if (f->v == 2)
		assert_int_equal(f->a2.serialize(f->c, s, (fmi2Byte *)buf, *size), fmi2OK);
	else
		assert_int_equal(f->a3.serialize(f->c, s, buf, *size), fmi3OK);
	return buf;
}

static int fmu_deserialize(Fmu *f, const unsigned char *buf, size_t size, void **s)
{
	return f->v == 2 ? (int)f->a2.deserialize(f->c, (const fmi2Byte *)buf, size, s)
	                 : (int)f->a3.deserialize(f->c, buf, size, s);
}

static int fmu_terminate(Fmu *f)
{
	return f->v == 2 ? (int)f->a2.terminate(f->c) : (int)f->a3.terminate(f->c);
}

/* Instantiated for Model Exchange, initialized at t = 0 after `setup` (may be NULL) set
 * parameters, the first event iteration done, in Continuous-Time Mode; e: its answers. */
static void fmu_start(Fmu *f, int v, const char *model, void (*setup)(Fmu *), Ev *e)
{
	Ev ignored;
	fmu_open(f, v, model, 0);
	if (setup)
		setup(f);
	assert_int_equal(fmu_enter_init(f), 0);
	assert_int_equal(fmu_exit_init(f), 0);
	fmu_settle(f, e ? e : &ignored);
	assert_int_equal(fmu_enter_ct(f), 0);
}

/* One classic RK4 step of the FMU's ODE from (t, x) over h, through SetTime,
 * SetContinuousStates and GetDerivatives as an importer's integrator does; x updated. */
static void rk4(Fmu *f, double t, double h, double x[], size_t n)
{
	double k[4][8], y[8];
	static const double at[4] = {0.0, 0.5, 0.5, 1.0};
	assert_true(n <= 8);
	for (int s = 0; s < 4; s++) {
		for (size_t i = 0; i < n; i++)
			y[i] = s == 0 ? x[i] : x[i] + at[s] * h * k[s - 1][i];
		assert_int_equal(fmu_set_time(f, t + at[s] * h), 0);
		assert_int_equal(fmu_set_x(f, y, n), 0);
		assert_int_equal(fmu_get_dx(f, k[s], n), 0);
	}
	for (size_t i = 0; i < n; i++)
		x[i] += h / 6.0 * (k[0][i] + 2.0 * k[1][i] + 2.0 * k[2][i] + k[3][i]);
	assert_int_equal(fmu_set_time(f, t + h), 0);
	assert_int_equal(fmu_set_x(f, x, n), 0);
}

/* ---- melinear ---------------------------------------------------------------------------- */

enum { LIN_X1 = 1, LIN_X2 = 2, LIN_DX1 = 3, LIN_DX2 = 4, LIN_U = 5 };
#define LIN_K 4.0
#define LIN_C 0.4
#define LIN_B 1.0

/* The exact solution for constant u from x(0) = (1000, 0) (tests/fmus_me/README.md). */
static void lin_exact(double t, double u, double x[2])
{
	double xs = LIN_B * u / LIN_K, a = LIN_C / 2.0, w = sqrt(LIN_K - a * a);
	double y0 = 1000.0 - xs, p = (0.0 + a * y0) / w;
	double e = exp(-a * t), cw = cos(w * t), sw = sin(w * t);
	x[0] = xs + e * (y0 * cw + p * sw);
	x[1] = e * (-a * (y0 * cw + p * sw) + w * (-y0 * sw + p * cw));
}

static void melinear__derivatives__equal_the_equations(void **state)
{
	Fmu f;
	double x[2] = {3.5, -1.25}, dx[2], d;
	fmu_start(&f, *(int *)*state, "melinear", NULL, NULL);
	assert_int_equal(fmu_set_real(&f, LIN_U, 0.75), 0);
	assert_int_equal(fmu_set_time(&f, 0.3), 0);
	assert_int_equal(fmu_set_x(&f, x, 2), 0);
	assert_int_equal(fmu_get_dx(&f, dx, 2), 0);
	assert_close(dx[0], -1.25, 0.0);
	assert_close(dx[1], -LIN_K * 3.5 - LIN_C * -1.25 + LIN_B * 0.75, 1e-15);
	/* the derivative variables and the outputs say the same */
	assert_int_equal(fmu_get_real(&f, LIN_DX2, &d), 0);
	assert_close(d, dx[1], 0.0);
	assert_int_equal(fmu_get_real(&f, LIN_X1, &d), 0);
	assert_close(d, 3.5, 0.0);
	assert_int_equal(fmu_get_real(&f, 0, &d), 0);
	assert_close(d, 0.3, 0.0);
	fmu_close(&f);
}

static void melinear__fixed_step_loop__follows_the_exact_solution(void **state)
{
	Fmu f;
	Ev e;
	double x[2], exact[2], h = 1e-3;
	fmu_start(&f, *(int *)*state, "melinear", NULL, &e);
	assert_false(e.next_defined);
	assert_false(e.term);
	assert_int_equal(fmu_set_real(&f, LIN_U, 2.0), 0);
	assert_int_equal(fmu_get_x(&f, x, 2), 0);
	assert_close(x[0], 1000.0, 0.0);
	for (int k = 0; k < 3000; k++) {
		int ev, term;
		rk4(&f, k * h, h, x, 2);
		assert_int_equal(fmu_completed(&f, &ev, &term), 0);
		assert_false(ev);
		assert_false(term);
	}
	lin_exact(3.0, 2.0, exact);
	/* RK4's global error at h = 1e-3 over 3 s: ~1e-10 of the amplitude 1000 */
	assert_close(x[0], exact[0], 1e-6);
	assert_close(x[1], exact[1], 1e-6);
	assert_int_equal(fmu_terminate(&f), 0);
	fmu_close(&f);
}

static void melinear__directional_derivatives__are_the_exact_jacobian(void **state)
{
	Fmu f;
	const unsigned of[4] = {LIN_DX1, LIN_DX2, LIN_X1, LIN_X2};
	const unsigned wrt[3] = {LIN_X1, LIN_X2, LIN_U};
	/* [A B] and, for the outputs, [I 0] */
	const double jac[4][3] = {{0, 1, 0}, {-LIN_K, -LIN_C, LIN_B}, {1, 0, 0}, {0, 1, 0}};
	double x[2] = {2.0, -3.0}, out[4], dx0[2], dx1[2];
	fmu_start(&f, *(int *)*state, "melinear", NULL, NULL);
	assert_int_equal(fmu_set_x(&f, x, 2), 0);
	for (int j = 0; j < 3; j++) {
		double seed[3] = {0, 0, 0};
		seed[j] = 1.0;
		assert_int_equal(fmu_directional(&f, of, 4, wrt, 3, seed, out), 0);
		for (int i = 0; i < 4; i++)
			assert_close(out[i], jac[i][j], 0.0);
	}
	/* and a finite difference of the derivatives agrees (the system is linear: exactly, to
	 * rounding) */
	double seed[3] = {0.5, -2.0, 3.0};
	assert_int_equal(fmu_directional(&f, of, 2, wrt, 3, seed, out), 0);
	assert_int_equal(fmu_get_dx(&f, dx0, 2), 0);
	double y[2] = {x[0] + seed[0], x[1] + seed[1]};
	assert_int_equal(fmu_set_x(&f, y, 2), 0);
	assert_int_equal(fmu_set_real(&f, LIN_U, seed[2]), 0);
	assert_int_equal(fmu_get_dx(&f, dx1, 2), 0);
	assert_close(out[0], dx1[0] - dx0[0], 1e-12);
	assert_close(out[1], dx1[1] - dx0[1], 1e-12);
	/* a pair the model does not know is refused */
	const unsigned bad = 0;
	assert_int_not_equal(fmu_directional(&f, &bad, 1, wrt, 1, seed, out), 0);
	assert_contains(f.log.last, "no derivative of value reference 0");
	fmu_close(&f);
}

static void melinear__nominals__are_far_from_one(void **state)
{
	Fmu f;
	double nom[2];
	fmu_start(&f, *(int *)*state, "melinear", NULL, NULL);
	assert_int_equal(fmu_get_nominals(&f, nom, 2), 0);
	assert_close(nom[0], 1e3, 0.0);
	assert_close(nom[1], 2e3, 0.0);
	fmu_close(&f);
}

/* The same FMU through Co-Simulation: its RK4 at h = 1e-3 against the exact solution. */
static void melinear__co_simulation__follows_the_exact_solution(void **state)
{
	Fmu f;
	double x[2], exact[2];
	fmu_open(&f, *(int *)*state, "melinear", 1);
	assert_int_equal(fmu_set_real(&f, LIN_U, -1.0), 0);
	assert_int_equal(fmu_enter_init(&f), 0);
	assert_int_equal(fmu_exit_init(&f), 0);
	for (int k = 0; k < 25; k++) {
		/* communication steps of 0.1, not multiples of the internal step's rounding */
		double t = k * 0.1;
		if (f.v == 2) {
			assert_int_equal(f.a2.do_step(f.c, t, 0.1, fmi2True), fmi2OK);
		} else {
			fmi3Boolean ev, term, early;
			fmi3Float64 last;
			assert_int_equal(f.a3.do_step(f.c, t, 0.1, fmi3True, &ev, &term, &early, &last), fmi3OK);
			assert_false(ev);
			assert_close(last, t + 0.1, 1e-12);
		}
	}
	assert_int_equal(fmu_get_real(&f, LIN_X1, &x[0]), 0);
	assert_int_equal(fmu_get_real(&f, LIN_X2, &x[1]), 0);
	lin_exact(2.5, -1.0, exact);
	assert_close(x[0], exact[0], 1e-6);
	assert_close(x[1], exact[1], 1e-6);
	/* Model Exchange functions are not Co-Simulation's */
	assert_int_not_equal(fmu_set_time(&f, 2.5), 0);
	fmu_close(&f);
}

/* ---- mebounce ---------------------------------------------------------------------------- */

enum { BB_H = 1, BB_DH = 2, BB_V = 3, BB_DV = 4, BB_G = 5, BB_E = 6 };
#define BB_GRAV 9.81
#define BB_REST 0.7

static void mebounce__impact__reverses_and_damps_the_velocity(void **state)
{
	Fmu f;
	Ev e;
	double t1 = sqrt(2.0 / BB_GRAV), v1 = BB_GRAV * t1;
	double x[2] = {-1e-9, -v1}, z, dx[2];
	fmu_start(&f, *(int *)*state, "mebounce", NULL, &e);
	assert_false(e.values_changed);
	assert_int_equal(fmu_get_dx(&f, dx, 2), 0);
	assert_close(dx[0], 0.0, 0.0);
	assert_close(dx[1], -BB_GRAV, 0.0);
	/* just past the analytic impact, as an integrator that located it leaves the ball */
	assert_int_equal(fmu_set_time(&f, t1), 0);
	assert_int_equal(fmu_set_x(&f, x, 2), 0);
	assert_int_equal(fmu_get_z(&f, &z, 1), 0);
	assert_close(z, -1e-9, 0.0);
	assert_int_equal(fmu_enter_event(&f), 0);
	assert_int_equal(fmu_settle(&f, &e), 1);
	assert_true(e.values_changed);
	assert_false(e.nominals_changed);
	assert_false(e.term);
	assert_false(e.next_defined);
	assert_int_equal(fmu_get_x(&f, x, 2), 0);
	assert_close(x[0], DBL_MIN, 0.0);
	assert_close(x[1], BB_REST * v1, 1e-15);
	/* a second update at the same point has nothing left to do */
	assert_int_equal(fmu_update(&f, &e), 0);
	assert_false(e.values_changed);
	fmu_close(&f);
}

/* The importer's part done by the test: RK4 is exact on the ball's parabola, so the impact
 * inside a step is found from the step's start by the quadratic, and the next step starts
 * there.  Impact times against t1 = sqrt(2 h0/g), t(k+1) = t(k) + 2 e^k v1 / g. */
static void mebounce__fixed_step_loop__meets_the_analytic_impacts(void **state)
{
	Fmu f;
	Ev e;
	double x[2], t = 0.0, h = 1e-2, z;
	double t1 = sqrt(2.0 / BB_GRAV), v1 = BB_GRAV * t1, expect = t1;
	int impacts = 0;
	fmu_start(&f, *(int *)*state, "mebounce", NULL, NULL);
	assert_int_equal(fmu_get_x(&f, x, 2), 0);
	while (t < 3.0) {
		double x0[2] = {x[0], x[1]};
		rk4(&f, t, h, x, 2);
		assert_int_equal(fmu_get_z(&f, &z, 1), 0);
		if (z > 0.0) {
			t += h;
			continue;
		}
		/* h0 + v0 s - g s^2 / 2 = 0: the root in (0, h] */
		double s = (x0[1] + sqrt(x0[1] * x0[1] + 2.0 * BB_GRAV * x0[0])) / BB_GRAV;
		assert_true(s > 0.0 && s <= h * (1 + 1e-12));
		double at[2] = {-1e-300, x0[1] - BB_GRAV * s};
		t += s;
		assert_int_equal(fmu_set_time(&f, t), 0);
		assert_int_equal(fmu_set_x(&f, at, 2), 0);
		assert_int_equal(fmu_enter_event(&f), 0);
		fmu_settle(&f, &e);
		assert_true(e.values_changed);
		assert_int_equal(fmu_enter_ct(&f), 0);
		assert_int_equal(fmu_get_x(&f, x, 2), 0);
		impacts++;
		assert_close(t, expect, 1e-9);
		assert_close(x[1], pow(BB_REST, impacts) * v1 >= 0.1 ? pow(BB_REST, impacts) * v1 : 0.0,
		             1e-9);
		expect += 2.0 * pow(BB_REST, impacts) * v1 / BB_GRAV;
	}
	/* 11 impacts: the 11th rebound, 0.7^11 v1 = 0.088, is below v_min and the ball rests */
	assert_int_equal(impacts, 11);
	assert_close(x[0], DBL_MIN, 0.0);
	assert_close(x[1], 0.0, 0.0);
	double dx[2];
	assert_int_equal(fmu_get_dx(&f, dx, 2), 0);
	assert_close(dx[1], 0.0, 0.0);
	fmu_close(&f);
}

/* e is tunable: set in Event Mode it damps the next rebound; g is fixed: refused there. */
static void mebounce__tunable_and_fixed_parameters__are_set_where_allowed(void **state)
{
	Fmu f;
	Ev e;
	double x[2] = {-1e-9, -2.0};
	fmu_start(&f, *(int *)*state, "mebounce", NULL, NULL);
	assert_int_equal(fmu_set_real(&f, BB_E, 0.5), 3);
	assert_contains(f.log.last,
	                "variable e (value reference 6) cannot be set in Continuous-Time Mode");
	assert_int_equal(fmu_set_x(&f, x, 2), 0);
	assert_int_equal(fmu_enter_event(&f), 0);
	assert_int_equal(fmu_set_real(&f, BB_E, 0.5), 0);
	assert_int_equal(fmu_set_real(&f, BB_G, 1.0), 3);
	assert_contains(f.log.last, "variable g (value reference 5) cannot be set in Event Mode");
	fmu_settle(&f, &e);
	assert_int_equal(fmu_get_x(&f, x, 2), 0);
	assert_close(x[1], 1.0, 0.0);
	fmu_close(&f);
}

/* ---- FMU states -------------------------------------------------------------------------- */

/* A state taken in Continuous-Time Mode after an impact, restored after the FMU moved on
 * (and into Event Mode): time, states, derivatives and the mode come back bit for bit, from
 * the state and from its serialized bytes alike. */
static void states__get_set_serialize__restore_bit_for_bit(void **state)
{
	Fmu f;
	Ev e;
	void *s = NULL, *s2 = NULL;
	double x[2] = {-1e-9, -4.0}, before[5], after[5], dx[2];
	size_t size, size2;
	fmu_start(&f, *(int *)*state, "mebounce", NULL, NULL);
	assert_int_equal(fmu_set_time(&f, 0.4), 0);
	assert_int_equal(fmu_set_x(&f, x, 2), 0);
	assert_int_equal(fmu_enter_event(&f), 0);
	fmu_settle(&f, &e);
	assert_int_equal(fmu_enter_ct(&f), 0);
	assert_int_equal(fmu_get_state(&f, &s), 0);
	assert_int_equal(fmu_get_real(&f, 0, &before[0]), 0);
	assert_int_equal(fmu_get_x(&f, before + 1, 2), 0);
	assert_int_equal(fmu_get_dx(&f, before + 3, 2), 0);
	unsigned char *bytes = fmu_serialize(&f, s, &size);

	/* move on: a step, an impact, Event Mode */
	x[0] = 0.5, x[1] = 1.0;
	rk4(&f, 0.4, 0.05, x, 2);
	double y[2] = {-1e-9, -3.0};
	assert_int_equal(fmu_set_x(&f, y, 2), 0);
	assert_int_equal(fmu_enter_event(&f), 0);
	fmu_settle(&f, &e);
	assert_int_equal(fmu_get_x(&f, after + 1, 2), 0);
	assert_true(after[2] != before[2]);

	assert_int_equal(fmu_set_state(&f, s), 0);
	assert_int_equal(fmu_get_real(&f, 0, &after[0]), 0);
	assert_int_equal(fmu_get_x(&f, after + 1, 2), 0);
	assert_int_equal(fmu_get_dx(&f, after + 3, 2), 0);
	assert_memory_equal(before, after, sizeof before);
	/* back in Continuous-Time Mode: its functions are allowed again */
	assert_int_equal(fmu_set_x(&f, after + 1, 2), 0);

	/* the serialized bytes give the same state, which serializes to the same bytes */
	assert_int_equal(fmu_enter_event(&f), 0);
	assert_int_equal(fmu_deserialize(&f, bytes, size, &s2), 0);
	assert_int_equal(fmu_set_state(&f, s2), 0);
	assert_int_equal(fmu_get_dx(&f, dx, 2), 0);
	assert_memory_equal(dx, before + 3, sizeof dx);
	unsigned char *bytes2 = fmu_serialize(&f, s2, &size2);
	assert_int_equal(size2, size);
	assert_memory_equal(bytes2, bytes, size);
	assert_int_equal(fmu_set_x(&f, x, 2), 0); /* Continuous-Time Mode again */

	/* bytes that are not a state are refused */
	bytes[0] ^= 0xff;
	void *s3 = NULL;
	assert_int_not_equal(fmu_deserialize(&f, bytes, size, &s3), 0);
	assert_contains(f.log.last, "not a state of this FMU");
	assert_int_not_equal(fmu_deserialize(&f, bytes, size - 1, &s3), 0);
	assert_null(s3);
	free(bytes);
	free(bytes2);
	fmu_free_state(&f, &s);
	fmu_free_state(&f, &s2);
	assert_null(s);
	fmu_close(&f);
}

/* ---- the state machine's refusals -------------------------------------------------------- */

static void refusals__calls_in_the_wrong_mode__fail_with_a_message(void **state)
{
	Fmu f;
	Ev e;
	double x[2] = {1, 0}, dx[2];
	int v = *(int *)*state;
	const char *pre = v == 2 ? "fmi2" : "fmi3";
	char want[128];
	fmu_open(&f, v, "mebounce", 0);
	/* Instantiated: no derivatives yet (FMI 2.0), no continuous states to set */
	assert_int_not_equal(fmu_set_x(&f, x, 2), 0);
	snprintf(want, sizeof want, "%sSetContinuousStates: not allowed in Instantiated", pre);
	assert_contains(f.log.last, want);
	assert_int_not_equal(fmu_exit_init(&f), 0);
	snprintf(want, sizeof want, "%sExitInitializationMode: not allowed in Instantiated", pre);
	assert_contains(f.log.last, want);
	assert_int_equal(fmu_enter_init(&f), 0);
	assert_int_not_equal(fmu_enter_init(&f), 0);
	assert_contains(f.log.last, "not allowed in Initialization Mode");
	assert_int_equal(fmu_exit_init(&f), 0);
	/* Event Mode: no states set, no step completed */
	assert_int_not_equal(fmu_set_x(&f, x, 2), 0);
	assert_contains(f.log.last, "SetContinuousStates: not allowed in Event Mode");
	int a, b;
	assert_int_not_equal(fmu_completed(&f, &a, &b), 0);
	assert_contains(f.log.last, "CompletedIntegratorStep: not allowed in Event Mode");
	fmu_settle(&f, &e);
	assert_int_equal(fmu_enter_ct(&f), 0);
	/* Continuous-Time Mode: no event update, no second entry */
	assert_int_not_equal(fmu_update(&f, &e), 0);
	assert_contains(f.log.last, "not allowed in Continuous-Time Mode");
	assert_int_not_equal(fmu_enter_ct(&f), 0);
	assert_contains(f.log.last, "EnterContinuousTimeMode: not allowed in Continuous-Time Mode");
	/* a wrong count is an error too; the refusals left the mode as it was */
	assert_int_not_equal(fmu_get_dx(&f, dx, 1), 0);
	assert_contains(f.log.last, "1 derivatives given, the model has 2");
	assert_int_equal(fmu_get_dx(&f, dx, 2), 0);
	/* Terminated: nothing runs any more */
	assert_int_equal(fmu_terminate(&f), 0);
	assert_int_not_equal(fmu_set_time(&f, 1.0), 0);
	assert_contains(f.log.last, "SetTime: not allowed in Terminated");
	assert_int_not_equal(fmu_enter_event(&f), 0);
	fmu_close(&f);
}

static void refusals__instantiation__checks_token_and_interface(void **state)
{
	Fmu f;
	fmu_load(&f, *(int *)*state, "mebounce");
	fmu_instantiate_token(&f, 0, "{00000000-0000-0000-0000-000000000000}");
	assert_null(f.c);
	assert_contains(f.log.last, f.v == 2 ? "GUID is not this FMU's"
	                                       : "instantiation token is not this FMU's");
	fmu_instantiate_token(&f, 1, f.token);
	assert_null(f.c);
	assert_contains(f.log.last, "offers Model Exchange only");
	fmu_close(&f);
}

/* ---- metime ------------------------------------------------------------------------------ */

enum { TM_X = 1, TM_DX = 2, TM_U = 3, TM_EVENTS = 100 };

/* x' = u is constant between events, so forward Euler is exact; the loop steps to each
 * announced nextEventTime and checks x, u, the event count and the next announcement. */
static void metime__time_events__switch_the_source_on_time(void **state)
{
	Fmu f;
	Ev e;
	const double source[4] = {1.0, 3.0, -2.0, 0.5};
	double x = 0.0, t = 0.0, dx, u, exact = 0.0;
	int n;
	fmu_start(&f, *(int *)*state, "metime", NULL, &e);
	assert_true(e.next_defined);
	assert_close(e.next, 0.25, 0.0);
	for (int k = 0; k < 8; k++) {
		double next = e.next;
		/* Euler steps of 1/32 to the event: exact (constant slope), lands on it exactly */
		while (t < next) {
			assert_int_equal(fmu_get_dx(&f, &dx, 1), 0);
			assert_close(dx, source[k % 4], 0.0);
			x += dx / 32.0;
			t += 1.0 / 32.0;
			assert_int_equal(fmu_set_time(&f, t), 0);
			assert_int_equal(fmu_set_x(&f, &x, 1), 0);
		}
		exact += source[k % 4] * 0.25;
		assert_close(x, exact, 1e-15);
		assert_int_equal(fmu_enter_event(&f), 0);
		fmu_settle(&f, &e);
		assert_false(e.values_changed);
		assert_true(e.next_defined);
		assert_close(e.next, 0.25 * (k + 2), 0.0);
		assert_int_equal(fmu_get_real(&f, TM_U, &u), 0);
		assert_close(u, source[(k + 1) % 4], 0.0);
		assert_int_equal(fmu_get_int(&f, TM_EVENTS, &n), 0);
		assert_int_equal(n, k + 1);
		assert_int_equal(fmu_enter_ct(&f), 0);
	}
	/* two periods: 2 (1 + 3 - 2 + 0.5) / 4 */
	assert_close(x, 1.25, 1e-15);
	fmu_close(&f);
}

/* An event update before the announced time (a state event elsewhere, say) leaves the
 * source alone and announces the same time again. */
static void metime__early_event_update__changes_nothing(void **state)
{
	Fmu f;
	Ev e;
	int n;
	fmu_start(&f, *(int *)*state, "metime", NULL, NULL);
	assert_int_equal(fmu_set_time(&f, 0.2), 0);
	assert_int_equal(fmu_enter_event(&f), 0);
	fmu_settle(&f, &e);
	assert_close(e.next, 0.25, 0.0);
	assert_int_equal(fmu_get_int(&f, TM_EVENTS, &n), 0);
	assert_int_equal(n, 0);
	/* events is calculated: not an input */
	assert_int_not_equal(fmu_set_int(&f, TM_EVENTS, 5), 0);
	assert_contains(f.log.last, "variable events (value reference 100) cannot be set");
	fmu_close(&f);
}

/* ---- mestiff ----------------------------------------------------------------------------- */

static void mestiff__derivatives_and_jacobian__equal_robertsons(void **state)
{
	Fmu f;
	/* the published solution at t = 40 (tests/fmus_me/README.md) */
	double y[3] = {0.7158270687, 9.185534765e-6, 0.2841637457}, dy[3], nom[3];
	const unsigned of[3] = {4, 5, 6}, wrt[3] = {1, 2, 3};
	fmu_start(&f, *(int *)*state, "mestiff", NULL, NULL);
	assert_int_equal(fmu_set_x(&f, y, 3), 0);
	assert_int_equal(fmu_get_dx(&f, dy, 3), 0);
	double r1 = 0.04 * y[0], r2 = 3e7 * y[1] * y[1], r3 = 1e4 * y[1] * y[2];
	assert_close(dy[0], -r1 + r3, 1e-15);
	assert_close(dy[1], r1 - r3 - r2, 1e-15);
	assert_close(dy[2], r2, 1e-15);
	/* the reactions conserve y1 + y2 + y3 */
	assert_close(dy[0] + dy[1] + dy[2], 0.0, 1e-17);
	/* each Jacobian column against a central difference of the derivatives */
	for (int j = 0; j < 3; j++) {
		double seed[3] = {0, 0, 0}, col[3], yp[3], ym[3], fp[3], fm[3];
		double d = 1e-6 * (j == 1 ? 1e-5 : 1.0);
		seed[j] = 1.0;
		assert_int_equal(fmu_directional(&f, of, 3, wrt, 3, seed, col), 0);
		memcpy(yp, y, sizeof y), memcpy(ym, y, sizeof y);
		yp[j] += d, ym[j] -= d;
		assert_int_equal(fmu_set_x(&f, yp, 3), 0);
		assert_int_equal(fmu_get_dx(&f, fp, 3), 0);
		assert_int_equal(fmu_set_x(&f, ym, 3), 0);
		assert_int_equal(fmu_get_dx(&f, fm, 3), 0);
		assert_int_equal(fmu_set_x(&f, y, 3), 0);
		for (int i = 0; i < 3; i++)
			assert_close(col[i], (fp[i] - fm[i]) / (2 * d), 1e-6 * (1 + fabs(col[i])));
	}
	assert_int_equal(fmu_get_nominals(&f, nom, 3), 0);
	assert_close(nom[1], 1e-5, 0.0);
	fmu_close(&f);
}

/* ---- mebad ------------------------------------------------------------------------------- */

enum { BAD_X = 1, BAD_Z = 3, BAD_MODE = 100 };

static int bad_mode;
static void set_bad_mode(Fmu *f)
{
	assert_int_equal(fmu_set_int(f, BAD_MODE, bad_mode), 0);
}

static void bad_start(Fmu *f, void **state, int mode, Ev *e)
{
	bad_mode = mode;
	fmu_start(f, *(int *)*state, "mebad", set_bad_mode, e);
}

static double bad_dx_at(Fmu *f, double t, double x)
{
	double dx;
	assert_int_equal(fmu_set_time(f, t), 0);
	assert_int_equal(fmu_set_x(f, &x, 1), 0);
	assert_int_equal(fmu_get_dx(f, &dx, 1), 0);
	return dx;
}

static void mebad__mode_0__is_a_plain_decay(void **state)
{
	Fmu f;
	Ev e;
	double x = 1.0, z;
	bad_start(&f, state, 0, &e);
	assert_false(e.next_defined);
	for (int k = 0; k < 100; k++)
		rk4(&f, k * 0.01, 0.01, &x, 1);
	assert_close(x, exp(-1.0), 1e-9);
	assert_int_equal(fmu_get_z(&f, &z, 1), 0);
	assert_close(z, 1.0, 0.0);
	fmu_close(&f);
}

static void mebad__mode_1__derivative_turns_nan_at_half(void **state)
{
	Fmu f;
	bad_start(&f, state, 1, NULL);
	assert_close(bad_dx_at(&f, 0.4999, 2.0), -2.0, 0.0);
	assert_true(isnan(bad_dx_at(&f, 0.5, 2.0)));
	fmu_close(&f);
}

static void mebad__mode_2__indicator_chatters_after_half(void **state)
{
	Fmu f;
	double z[4];
	bad_start(&f, state, 2, NULL);
	assert_int_equal(fmu_set_time(&f, 0.4), 0);
	for (int k = 0; k < 4; k++)
		assert_int_equal(fmu_get_z(&f, &z[k], 1), 0);
	for (int k = 0; k < 4; k++)
		assert_close(z[k], 1.0, 0.0);
	assert_int_equal(fmu_set_time(&f, 0.6), 0);
	for (int k = 0; k < 4; k++)
		assert_int_equal(fmu_get_z(&f, &z[k], 1), 0);
	for (int k = 0; k < 3; k++)
		assert_close(z[k + 1], -z[k], 0.0);
	fmu_close(&f);
}

static void mebad__mode_3__event_iteration_never_settles(void **state)
{
	Fmu f;
	Ev e;
	bad_start(&f, state, 3, &e);
	assert_true(e.next_defined);
	assert_close(e.next, 0.5, 0.0);
	assert_int_equal(fmu_set_time(&f, 0.5), 0);
	assert_int_equal(fmu_enter_event(&f), 0);
	for (int k = 0; k < 50; k++) {
		assert_int_equal(fmu_update(&f, &e), 0);
		assert_true(e.need);
	}
	fmu_close(&f);
}

/* x' = x^2 from x(0) = 1: x = 1/(1 - t); RK4 at h = 1e-4 follows it to t = 0.9 and the
 * derivative grows without bound towards t = 1. */
static void mebad__mode_4__blows_up_at_one(void **state)
{
	Fmu f;
	double x = 1.0;
	bad_start(&f, state, 4, NULL);
	for (int k = 0; k < 9000; k++)
		rk4(&f, k * 1e-4, 1e-4, &x, 1);
	assert_close(x, 10.0, 1e-6);
	assert_close(bad_dx_at(&f, 0.999, 1000.0), 1e6, 0.0);
	fmu_close(&f);
}

static void mebad__mode_5__asks_to_terminate_at_half(void **state)
{
	Fmu f;
	Ev e;
	bad_start(&f, state, 5, &e);
	assert_true(e.next_defined);
	assert_close(e.next, 0.5, 0.0);
	assert_false(e.term);
	assert_int_equal(fmu_set_time(&f, 0.5), 0);
	assert_int_equal(fmu_enter_event(&f), 0);
	assert_int_equal(fmu_update(&f, &e), 0);
	assert_true(e.term);
	assert_int_equal(fmu_terminate(&f), 0);
	fmu_close(&f);
}

/* mode is a fixed parameter: refused once the model runs, even in Event Mode where
 * discrete variables may be set. */
static void mebad__mode__is_fixed_after_initialization(void **state)
{
	Fmu f;
	int mode;
	bad_start(&f, state, 2, NULL);
	assert_int_not_equal(fmu_set_int(&f, BAD_MODE, 3), 0);
	assert_contains(f.log.last, "not allowed in Continuous-Time Mode");
	assert_int_equal(fmu_enter_event(&f), 0);
	assert_int_not_equal(fmu_set_int(&f, BAD_MODE, 3), 0);
	assert_contains(f.log.last, "variable mode (value reference 100) cannot be set in Event Mode");
	assert_int_equal(fmu_get_int(&f, BAD_MODE, &mode), 0);
	assert_int_equal(mode, 2);
	fmu_close(&f);
}

/* ---- the model descriptions -------------------------------------------------------------- */

static size_t occurrences(const char *text, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* What an importer sizes its arrays by — the states (derivative variables) and event
 * indicators a description declares — is what the library has; and the FMI 3.0
 * descriptions pass the suite's checker of the standard's rules. */
static void descriptions__agree_with_the_libraries(void **state)
{
	static const char *const models[] = {"melinear", "mebounce", "mestiff", "metime", "mebad"};
	int v = *(int *)*state;
	for (size_t k = 0; k < sizeof models / sizeof *models; k++) {
		Fmu f;
		char text[8192];
		double buf[8];
		size_t nx, nz;
		read_description(v, models[k], text, sizeof text);
		if (v == 2) {
			const char *p = strstr(text, "numberOfEventIndicators=\"");
			assert_non_null(p);
			nx = occurrences(text, "derivative=\"");
			nz = (size_t)strtoul(p + strlen("numberOfEventIndicators=\""), NULL, 10);
		} else {
			nx = occurrences(text, "<ContinuousStateDerivative ");
			nz = occurrences(text, "<EventIndicator ");
		}
		assert_true(nx >= 1 && nx < 8 && nz < 8);
		fmu_start(&f, v, models[k], NULL, NULL);
		if (v == 3) {
			size_t n;
			assert_int_equal(f.a3.get_number_of_continuous_states(f.c, &n), fmi3OK);
			assert_int_equal(n, nx);
			assert_int_equal(f.m3.get_nz(f.c, &n), fmi3OK);
			assert_int_equal(n, nz);
		}
		assert_int_equal(fmu_get_x(&f, buf, nx), 0);
		assert_int_not_equal(fmu_get_x(&f, buf, nx + 1), 0);
		assert_int_equal(fmu_get_z(&f, buf, nz), 0);
		assert_int_not_equal(fmu_get_z(&f, buf, nz + 1), 0);
		fmu_close(&f);
		if (v == 3) {
			char cmd[1024];
			snprintf(cmd, sizeof cmd,
			         "'%s/tools/fmi3_md_check' '%s/fmus_me/fmi3/%s/modelDescription.xml'",
			         build_dir(), build_dir(), models[k]);
			assert_int_equal(system(cmd), 0);
		}
	}
}

#define BOTH(test) cmocka_unit_test_prestate(test, &V2), cmocka_unit_test_prestate(test, &V3)

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOTH(melinear__derivatives__equal_the_equations),
		BOTH(melinear__fixed_step_loop__follows_the_exact_solution),
		BOTH(melinear__directional_derivatives__are_the_exact_jacobian),
		BOTH(melinear__nominals__are_far_from_one),
		BOTH(melinear__co_simulation__follows_the_exact_solution),
		BOTH(mebounce__impact__reverses_and_damps_the_velocity),
		BOTH(mebounce__fixed_step_loop__meets_the_analytic_impacts),
		BOTH(mebounce__tunable_and_fixed_parameters__are_set_where_allowed),
		BOTH(states__get_set_serialize__restore_bit_for_bit),
		BOTH(refusals__calls_in_the_wrong_mode__fail_with_a_message),
		BOTH(refusals__instantiation__checks_token_and_interface),
		BOTH(metime__time_events__switch_the_source_on_time),
		BOTH(metime__early_event_update__changes_nothing),
		BOTH(mestiff__derivatives_and_jacobian__equal_robertsons),
		BOTH(mebad__mode_0__is_a_plain_decay),
		BOTH(mebad__mode_1__derivative_turns_nan_at_half),
		BOTH(mebad__mode_2__indicator_chatters_after_half),
		BOTH(mebad__mode_3__event_iteration_never_settles),
		BOTH(mebad__mode_4__blows_up_at_one),
		BOTH(mebad__mode_5__asks_to_terminate_at_half),
		BOTH(mebad__mode__is_fixed_after_initialization),
		BOTH(descriptions__agree_with_the_libraries),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
