/* window_sa.c — written by hand in the exact shape sacc's C emitter produces, for the
 * runtime's own tests (tests/unit/test_sart_wrapper.c) and as the emitter's reference.
 * Adaptation: adaptations/powerwindow/window_sa.sa, in explicit form:
 *   tests/golden/explicit/powerwindow/window_sa.explicit
 * The real emitted file starts with the generator's banner and lives in
 * generated/powerwindow/window_sa/. */
#include <math.h>
#include <stddef.h>

#include "sart_wrapper.h"

/* ---- value references (modelDescription.xml) ---- */
enum {
	vr_displacement = 0, /* Real input */
	vr_speed = 1, /* Real input */
	vr_reaction_force = 2, /* Real input */
	vr_disp = 3, /* Real output */
	vr_tau = 4, /* Real output */
	vr_INIT_WINDOW_SA_DISPLACEMENT = 5, /* Real parameter, tunable */
	vr_INIT_WINDOW_SA_SPEED = 6,
	vr_INIT_WINDOW_SA_REACTION_FORCE = 7,
	vr_INIT_WINDOW_HEIGHT = 8,
	vr_INIT_WINDOW_REACTION_TORQUE = 9
};

/* ---- inner FMUs and their ports ---- */
enum { inner_window = 0, NINNERS = 1 };
enum { window_in_displacement = 0, window_in_speed = 1, window_in_reaction_force = 2 };
enum { window_out_height = 0, window_out_reaction_torque = 1 };

typedef struct Storage {
	/* external inputs */
	double displacement;
	double speed;
	double reaction_force;
	/* external outputs */
	double disp;
	double tau;
	/* params */
	double INIT_WINDOW_SA_DISPLACEMENT;
	double INIT_WINDOW_SA_SPEED;
	double INIT_WINDOW_SA_REACTION_FORCE;
	double INIT_WINDOW_HEIGHT;
	double INIT_WINDOW_REACTION_TORQUE;
	/* control vars: none */
	/* in vars */
	double stored_window_sa_displacement;
	double stored_window_sa_speed;
	double stored_window_sa_reaction_force;
	/* out vars */
	double stored_window_height;
	double stored_window_reaction_torque;
	/* rule flags */
	int in_rule[1];
	int out_rule[2];
	/* inner window */
	double window_in_real[3];
	unsigned char window_in_real_assigned[3];
	double window_out_real[2];
} Storage;

static const SartVr window_in_real_vr[3] = {0, 1, 2};
static const char *const window_in_real_names[3] = {"displacement", "speed", "reaction_force"};
static const SartVr window_out_real_vr[2] = {3, 4};
static const char *const window_out_real_names[2] = {"height", "reaction_torque"};

static const SartInnerModel inners[NINNERS] = {
	{
		"window", NULL /* its own directory */, "window", "{0b7e4c2a-91d3-4f6e-8a15-3c9d2e7f6a01}",
		SART_FMI2,
		SART_CAP_GET_SET_STATE | SART_CAP_SERIALIZE,
		{
			{3, window_in_real_vr, window_in_real_names, offsetof(Storage, window_in_real),
			 offsetof(Storage, window_in_real_assigned)},
			{0, NULL, NULL, 0, 0},
			{0, NULL, NULL, 0, 0},
		},
		{
			{2, window_out_real_vr, window_out_real_names, offsetof(Storage, window_out_real), 0},
			{0, NULL, NULL, 0, 0},
			{0, NULL, NULL, 0, 0},
		},
		0, /* in process */
		NULL, 0, /* an FMI 2.0 inner: no sized types */
		0, /* any thread */
		NULL, 0, /* no array elements */
		{0}, /* Co-Simulation */
		NULL, 0, /* no intermediate update */
		{NULL, 0}, /* no clocks */
	},
};

static const unsigned order[NINNERS] = {inner_window};

static const SartVr real_inputs[3] = {vr_displacement, vr_speed, vr_reaction_force};

static void defaults(void *sp)
{
	Storage *s = sp;
	s->displacement = 0.0;
	s->speed = 0.0;
	s->reaction_force = 0.0;
	s->INIT_WINDOW_SA_DISPLACEMENT = 0.0;
	s->INIT_WINDOW_SA_SPEED = 0.0;
	s->INIT_WINDOW_SA_REACTION_FORCE = 0.0;
	s->INIT_WINDOW_HEIGHT = 0.0;
	s->INIT_WINDOW_REACTION_TORQUE = 0.0;
}

static void initial(SartWrapper *w, void *sp, double t, double H)
{
	Storage *s = sp;
	(void)w;
	(void)t;
	(void)H;
	s->stored_window_sa_displacement = s->INIT_WINDOW_SA_DISPLACEMENT;
	s->stored_window_sa_speed = s->INIT_WINDOW_SA_SPEED;
	s->stored_window_sa_reaction_force = s->INIT_WINDOW_SA_REACTION_FORCE;
	s->stored_window_height = s->INIT_WINDOW_HEIGHT;
	s->stored_window_reaction_torque = s->INIT_WINDOW_REACTION_TORQUE;
}

/* The external variables by value reference: where each lives in the Storage and who may
 * set it (INIT_WINDOW_REACTION_TORQUE is fixed, for the runtime's test of fixed
 * parameters; the other params are tunable). */
static const SartVar real_vars[10] = {
	[vr_displacement] = {offsetof(Storage, displacement), SART_VAR_INPUT, "displacement"},
	[vr_speed] = {offsetof(Storage, speed), SART_VAR_INPUT, "speed"},
	[vr_reaction_force] = {offsetof(Storage, reaction_force), SART_VAR_INPUT, "reaction_force"},
	[vr_disp] = {offsetof(Storage, disp), SART_VAR_OUTPUT, "disp"},
	[vr_tau] = {offsetof(Storage, tau), SART_VAR_OUTPUT, "tau"},
	[vr_INIT_WINDOW_SA_DISPLACEMENT] = {offsetof(Storage, INIT_WINDOW_SA_DISPLACEMENT),
		SART_VAR_TUNABLE, "INIT_WINDOW_SA_DISPLACEMENT"},
	[vr_INIT_WINDOW_SA_SPEED] = {offsetof(Storage, INIT_WINDOW_SA_SPEED), SART_VAR_TUNABLE,
		"INIT_WINDOW_SA_SPEED"},
	[vr_INIT_WINDOW_SA_REACTION_FORCE] = {offsetof(Storage, INIT_WINDOW_SA_REACTION_FORCE),
		SART_VAR_TUNABLE, "INIT_WINDOW_SA_REACTION_FORCE"},
	[vr_INIT_WINDOW_HEIGHT] = {offsetof(Storage, INIT_WINDOW_HEIGHT), SART_VAR_TUNABLE,
		"INIT_WINDOW_HEIGHT"},
	[vr_INIT_WINDOW_REACTION_TORQUE] = {offsetof(Storage, INIT_WINDOW_REACTION_TORQUE),
		SART_VAR_FIXED, "INIT_WINDOW_REACTION_TORQUE"},
};

/* In: in rules, conditions then `->` parts. */
static void in(SartWrapper *w, void *sp, double t, double H)
{
	Storage *s = sp;
	(void)w;
	(void)t;
	(void)H;
	s->in_rule[0] = 1;
	if (s->in_rule[0]) {
		s->stored_window_sa_displacement = s->displacement;
		s->stored_window_sa_speed = s->speed;
		s->stored_window_sa_reaction_force = s->reaction_force;
	}
}

/* MapIn: the `-->` parts of the flagged in rules. */
static void map_in(SartWrapper *w, void *sp, double t, double H, double h, double dt)
{
	Storage *s = sp;
	(void)w;
	(void)t;
	(void)H;
	(void)h;
	(void)dt;
	if (s->in_rule[0]) {
		s->window_in_real[window_in_displacement] = s->stored_window_sa_displacement;
		s->window_in_real_assigned[window_in_displacement] = 1;
		s->window_in_real[window_in_speed] = s->stored_window_sa_speed;
		s->window_in_real_assigned[window_in_speed] = 1;
		s->window_in_real[window_in_reaction_force] = s->stored_window_sa_reaction_force;
		s->window_in_real_assigned[window_in_reaction_force] = 1;
	}
}

/* Ctrl: the control rules; returns the step taken. */
static double ctrl(SartWrapper *w, void *sp, double t, double H)
{
	Storage *s = sp;
	double H_window = sart_do_step(w, s, inner_window, t, H);
	return H_window;
}

/* MapOut: out rules, conditions then `->` parts. */
static void map_out(SartWrapper *w, void *sp, double t, double H, double h, double dt)
{
	Storage *s = sp;
	(void)w;
	(void)t;
	(void)H;
	(void)h;
	(void)dt;
	s->out_rule[0] = 1;
	if (s->out_rule[0]) {
		s->stored_window_height = s->window_out_real[window_out_height];
		s->stored_window_reaction_torque = s->window_out_real[window_out_reaction_torque];
	}
	s->out_rule[1] = 1;
}

/* Out: the `-->` parts of the flagged out rules. */
static void out(SartWrapper *w, void *sp, double t, double H)
{
	Storage *s = sp;
	(void)w;
	(void)t;
	(void)H;
	if (s->out_rule[0]) {
		s->disp = 0.01 * s->stored_window_height;
	}
	if (s->out_rule[1]) {
		s->tau = -s->stored_window_reaction_torque;
	}
}

/* Internal couplings into an inner FMU (Init and G). */
static void couple(SartWrapper *w, void *sp, unsigned inner)
{
	(void)w;
	(void)sp;
	(void)inner;
}

const SartModel sart_model = {
	"window_sa",
	"{00000000-0000-5000-8000-000000000000}", /* the emitter puts the content GUID here */
	sizeof(Storage),
	inners, NINNERS,
	order, NINNERS,
	{10, 0, 0},
	{real_vars, NULL, NULL},
	NULL, /* real_offset: the Reals' gets and sets go through real_vars */
	1, /* mealy */
	1, /* may_reject: `return H_window` may be less than H */
	real_inputs, 3,
	NULL, /* held_inputs: every Real input is continuous */
	defaults,
	initial,
	in, map_in, ctrl, map_out, out,
	couple,
	0, /* fast_step: may_reject needs a snapshot, which the fast step never takes */
	NULL, 0, NULL, /* inner_params, bind_params: window's parameters are not exposed here */
	0, 0, /* threads, nbatches: no batched do_steps */
	/* the importer's every-step calls: the runtime's own (sacc writes its own get and set) */
	sart_core_set_real, sart_core_get_real, sart_core_do_step,
	NULL, /* binary_max: no Binary variables */
	{NULL, NULL, NULL, NULL, NULL}, /* spans: no arrays */
};
