/* test_fmu_clocks_kit.c — the FMI 3.0 test FMUs with clocks (tests/fmus3/clocks_*) through the
 * suite's strict FMI 3.0 importer, driven by small schedulers written here (Scheduled
 * Execution, Co-Simulation with Event Mode, Model Exchange): every tick sequence and clocked
 * value asserted is derived by hand in the comments beside it, from the clocks'
 * declarations in the FMUs' model descriptions, so that the sacc runtime and `sacc
 * simulate`, when they drive these FMUs, have an independent reference to meet. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fmi3_importer.h"
#include "assert_close.h"
#include "assert_contains.h"

#define MAX_TICKS 64
#define NEVER 1e300

static const char *build_dir(void)
{
	const char *b = getenv("SACC_BUILD");
	return b && *b ? b : "build";
}

/* ---- a Scheduled Execution importer ---------------------------------------------------- */

enum { SE_TICK = 1, SE_FIXED, SE_TUNABLE, SE_COUNTDOWN, SE_TRIG, SE_OUT };
enum {
	SE_NTICK = 11, SE_NFIXED, SE_NTUNABLE, SE_NCOUNTDOWN, SE_NTRIG, SE_NOUT, SE_SEQ, SE_U,
	SE_ACC, SE_FIXED_DT, SE_PERIOD
};
#define SE_TOKEN "{5d0c2b7e-93a4-4f61-8e2d-c1a6b9f04e35}"
#define SE_NINPUT 5

/* The input clocks' priorities, from clocks_se's model description (smaller runs first). */
static const unsigned se_priority[SE_NINPUT + 1] = {0, 1, 0, 2, 3, 4};

typedef struct Tick {
	fmi3ValueReference clock;
	double t;
} Tick;

/* What an importer saw tick, in order. */
typedef struct TickLog {
	Tick ticks[MAX_TICKS];
	int n;
} TickLog;

static void record(TickLog *l, fmi3ValueReference clock, double t)
{
	assert_true(l->n < MAX_TICKS);
	l->ticks[l->n].clock = clock;
	l->ticks[l->n].t = t;
	l->n++;
}

/* The log is want (n ticks), each time within tol. */
static void assert_ticks(const TickLog *l, const Tick *want, int n, double tol)
{
	for (int i = 0; i < n && i < l->n; i++)
		if (l->ticks[i].clock != want[i].clock || fabs(l->ticks[i].t - want[i].t) > tol)
			fail_msg("tick %d: clock %u at %.17g, expected clock %u at %.17g", i,
			         (unsigned)l->ticks[i].clock, l->ticks[i].t, (unsigned)want[i].clock,
			         want[i].t);
	assert_int_equal(l->n, n);
}

static fmi3Int32 get_int(const Fmi3Api *api, fmi3Instance c, fmi3ValueReference vr)
{
	fmi3Int32 v = -1;
	assert_int_equal(api->get_int32(c, &vr, 1, &v, 1), fmi3OK);
	return v;
}

static fmi3Float64 get_real(const Fmi3Api *api, fmi3Instance c, fmi3ValueReference vr)
{
	fmi3Float64 v = NAN;
	assert_int_equal(api->get_float64(c, &vr, 1, &v, 1), fmi3OK);
	return v;
}

typedef struct Se Se;
struct Se {
	Fmi3Api api;
	fmi3Instance c;
	char last_error[512];
	int updates;             /* clockUpdate calls not yet handled */
	TickLog log;             /* every activation and output clock tick, in order */
	double next[SE_NINPUT + 1]; /* when each input clock ticks next (NEVER: unscheduled) */
	double interval[SE_NINPUT + 1];
	const double *trig_times; /* the triggered clock's ticks from outside, and u at each */
	const double *trig_u;
	int ntrig, itrig;
	void (*after)(Se *s, fmi3ValueReference clock, double t); /* the test's hook */
};

static void se_logger(fmi3InstanceEnvironment env, fmi3Status status, fmi3String category,
                      fmi3String message)
{
	Se *s = env;
	if (status >= fmi3Error)
		snprintf(s->last_error, sizeof s->last_error, "[%s] %s", category, message);
}

static void se_clock_update(fmi3InstanceEnvironment env)
{
	Se *s = env;
	s->updates++;
}

static void se_open(Se *s)
{
	char path[512];
	memset(s, 0, sizeof *s);
	fmi3_library_path(path, sizeof path, build_dir(), "clocks_se");
	fmi3_import(&s->api, path);
	s->c = s->api.instantiate_se("se", SE_TOKEN, NULL, fmi3False, fmi3False, s, se_logger,
	                             se_clock_update, NULL, NULL);
	assert_non_null(s->c);
}

static void se_close(Se *s)
{
	s->api.free_instance(s->c);
	fmi3_unimport(&s->api);
}

/* In Initialization Mode: the periodic clocks' first ticks (t0 = start + shift) and
 * intervals, as fmi3GetIntervalDecimal and fmi3GetShiftDecimal give them; the countdown
 * clock unscheduled until the FMU gives it an interval. */
static void se_schedule_initial(Se *s, double start)
{
	const fmi3ValueReference periodic[3] = {SE_TICK, SE_FIXED, SE_TUNABLE};
	fmi3Float64 iv[3], sh[3];
	fmi3IntervalQualifier q[3];
	fmi3ValueReference cd = SE_COUNTDOWN;
	fmi3Float64 cdi;
	fmi3IntervalQualifier cdq;
	assert_int_equal(s->api.get_interval_decimal(s->c, periodic, 3, iv, q), fmi3OK);
	assert_int_equal(s->api.get_shift_decimal(s->c, periodic, 3, sh), fmi3OK);
	for (int i = 0; i < 3; i++) {
		assert_true(q[i] == fmi3IntervalUnchanged || q[i] == fmi3IntervalChanged);
		s->interval[periodic[i]] = iv[i];
		s->next[periodic[i]] = start + sh[i];
	}
	assert_int_equal(s->api.get_interval_decimal(s->c, &cd, 1, &cdi, &cdq), fmi3OK);
	assert_int_equal(cdq, fmi3IntervalNotYetKnown);
	s->next[SE_COUNTDOWN] = NEVER;
	s->next[SE_TRIG] = s->ntrig > 0 ? s->trig_times[0] : NEVER;
}

/* After a partition called clockUpdate: which output clock ticked, and whether the countdown
 * clock has its interval (counted from now). */
static void se_clock_update_mode(Se *s, double now)
{
	fmi3ValueReference out = SE_OUT, cd = SE_COUNTDOWN;
	fmi3Clock ticked = fmi3False;
	fmi3Float64 iv;
	fmi3IntervalQualifier q;
	s->updates = 0;
	assert_int_equal(s->api.get_clock(s->c, &out, 1, &ticked), fmi3OK);
	if (ticked)
		record(&s->log, SE_OUT, now);
	assert_int_equal(s->api.get_interval_decimal(s->c, &cd, 1, &iv, &q), fmi3OK);
	if (q == fmi3IntervalChanged)
		s->next[SE_COUNTDOWN] = now + iv;
}

/* The input clock due first, the smaller priority value among those due at one instant
 * (1e-9 apart at most); 0 when none is due before stop. */
static fmi3ValueReference se_due(const Se *s, double stop)
{
	double tmin = NEVER;
	fmi3ValueReference best = 0;
	for (fmi3ValueReference c = 1; c <= SE_NINPUT; c++)
		if (s->next[c] < tmin)
			tmin = s->next[c];
	if (tmin > stop + 1e-9)
		return 0;
	for (fmi3ValueReference c = 1; c <= SE_NINPUT; c++)
		if (s->next[c] <= tmin + 1e-9 && (!best || se_priority[c] < se_priority[best]))
			best = c;
	return best;
}

/* Runs the clocks from start to stop (inclusive): each due partition activated at its time,
 * the triggered clock's input set before its tick, Clock Update Mode handled after each
 * partition that asked for it, the tunable clock's interval asked after each of its ticks. */
static void se_run(Se *s, double stop)
{
	fmi3ValueReference c;
	while ((c = se_due(s, stop)) != 0) {
		double now = s->next[c];
		if (c == SE_TRIG) {
			fmi3ValueReference u = SE_U;
			assert_int_equal(s->api.set_float64(s->c, &u, 1, &s->trig_u[s->itrig], 1), fmi3OK);
		}
		assert_int_equal(s->api.activate_model_partition(s->c, c, now), fmi3OK);
		record(&s->log, c, now);
		if (s->after)
			s->after(s, c, now);
		if (s->updates)
			se_clock_update_mode(s, now);
		switch (c) {
		case SE_TICK:
		case SE_FIXED: s->next[c] = now + s->interval[c]; break;
		case SE_TUNABLE: {
			fmi3Float64 iv;
			fmi3IntervalQualifier q;
			assert_int_equal(s->api.get_interval_decimal(s->c, &c, 1, &iv, &q), fmi3OK);
			if (q == fmi3IntervalChanged) /* a new interval counts from now */
				s->interval[c] = iv;
			s->next[c] = now + s->interval[c];
			break;
		}
		case SE_COUNTDOWN: s->next[c] = NEVER; break;
		default:
			s->itrig++;
			s->next[c] = s->itrig < s->ntrig ? s->trig_times[s->itrig] : NEVER;
		}
	}
}

static void se_start(Se *s)
{
	assert_int_equal(s->api.enter_init(s->c, fmi3False, 0.0, 0.0, fmi3True, 2.0), fmi3OK);
	se_schedule_initial(s, 0.0);
	assert_int_equal(s->api.exit_init(s->c), fmi3OK);
}

static fmi3Int32 se_int(Se *s, fmi3ValueReference vr) { return get_int(&s->api, s->c, vr); }
static fmi3Float64 se_real(Se *s, fmi3ValueReference vr) { return get_real(&s->api, s->c, vr); }

static void clocks_se__time_based_clocks__tick_in_priority_order_at_hand_derived_times(void **st)
{
	Se s;
	/* Over [0, 2], from the model description:
	 *   tick      constant, interval 0.5, shift 0.25:  0.25 0.75 1.25 1.75
	 *   fixed     interval 1, shift 0.25:              0.25 1.25
	 *   tunable   interval period = 0.4, shift 0:      0 0.4 0.8 1.2 1.6 2.0
	 *   countdown 0.1 after every second tick (0.75 and 1.75): 0.85 1.85
	 * At 0.25 and 1.25 fixed (priority 0) runs before tick (priority 1). */
	static const Tick want[] = {
		{SE_TUNABLE, 0.0},  {SE_FIXED, 0.25},     {SE_TICK, 0.25},    {SE_TUNABLE, 0.4},
		{SE_TICK, 0.75},    {SE_TUNABLE, 0.8},    {SE_COUNTDOWN, 0.85}, {SE_TUNABLE, 1.2},
		{SE_FIXED, 1.25},   {SE_TICK, 1.25},      {SE_TUNABLE, 1.6},  {SE_TICK, 1.75},
		{SE_COUNTDOWN, 1.85}, {SE_TUNABLE, 2.0},
	};
	(void)st;
	se_open(&s);
	se_start(&s);
	se_run(&s, 2.0);
	assert_ticks(&s.log, want, (int)(sizeof want / sizeof want[0]), 1e-12);
	assert_int_equal(se_int(&s, SE_NTICK), 4);
	assert_int_equal(se_int(&s, SE_NFIXED), 2);
	assert_int_equal(se_int(&s, SE_NTUNABLE), 6);
	assert_int_equal(se_int(&s, SE_NCOUNTDOWN), 2);
	/* seq keeps the last six partitions' clock references, in the order they ran:
	 * ... 2 1 (1.25) 3 (1.6) 1 (1.75) 4 (1.85) 3 (2.0) */
	assert_int_equal(se_int(&s, SE_SEQ), 213143);
	assert_close(se_real(&s, SE_FIXED_DT), 1.0, 0.0);
	assert_int_equal(s.api.terminate(s.c), fmi3OK);
	se_close(&s);
}

static void clocks_se__importer_sets_fixed_interval__ticks_follow_it(void **st)
{
	Se s;
	const fmi3ValueReference fixed = SE_FIXED;
	const fmi3Float64 half = 0.5, zero = 0.0;
	(void)st;
	se_open(&s);
	assert_int_equal(s.api.enter_init(s.c, fmi3False, 0.0, 0.0, fmi3True, 2.0), fmi3OK);
	assert_int_equal(s.api.set_interval_decimal(s.c, &fixed, 1, &half), fmi3OK);
	assert_int_equal(s.api.set_shift_decimal(s.c, &fixed, 1, &zero), fmi3OK);
	se_schedule_initial(&s, 0.0);
	assert_close(s.interval[SE_FIXED], 0.5, 0.0);
	assert_int_equal(s.api.exit_init(s.c), fmi3OK);
	/* A fixed interval cannot change once initialized. */
	assert_int_equal(s.api.set_interval_decimal(s.c, &fixed, 1, &zero), fmi3Error);
	assert_contains(s.last_error, "clock 'fixed': only in Initialization Mode");
	se_run(&s, 2.0);
	/* fixed at 0 0.5 1 1.5 2: five ticks, each seeing the interval set */
	assert_int_equal(se_int(&s, SE_NFIXED), 5);
	assert_close(se_real(&s, SE_FIXED_DT), 0.5, 0.0);
	se_close(&s);
}

static void set_period_at_08(Se *s, fmi3ValueReference clock, double t)
{
	const fmi3ValueReference period = SE_PERIOD;
	const fmi3Float64 quarter = 0.25;
	if (clock == SE_TUNABLE && fabs(t - 0.8) < 1e-9)
		assert_int_equal(s->api.set_float64(s->c, &period, 1, &quarter, 1), fmi3OK);
}

static void clocks_se__tunable_period_changed__next_tick_one_new_period_later(void **st)
{
	Se s;
	fmi3ValueReference tunable = SE_TUNABLE;
	fmi3Float64 iv;
	fmi3IntervalQualifier q;
	(void)st;
	se_open(&s);
	s.after = set_period_at_08;
	se_start(&s);
	se_run(&s, 2.0);
	/* tunable at 0 0.4 0.8, then period 0.25 from 0.8 on: 1.05 1.3 1.55 1.8 (2.05 > 2) */
	assert_int_equal(se_int(&s, SE_NTUNABLE), 7);
	{
		double want[] = {0.0, 0.4, 0.8, 1.05, 1.3, 1.55, 1.8};
		int j = 0;
		for (int i = 0; i < s.log.n; i++)
			if (s.log.ticks[i].clock == SE_TUNABLE)
				assert_close(s.log.ticks[i].t, want[j++], 1e-12);
		assert_int_equal(j, 7);
	}
	/* the change was told once */
	assert_int_equal(s.api.get_interval_decimal(s.c, &tunable, 1, &iv, &q), fmi3OK);
	assert_int_equal(q, fmi3IntervalUnchanged);
	assert_close(iv, 0.25, 0.0);
	se_close(&s);
}

static void clocks_se__triggered_clock_and_output_clock__accumulate_and_tick(void **st)
{
	Se s;
	static const double times[] = {0.1, 0.3, 0.6, 0.9};
	static const double u[] = {1.0, 2.0, 3.0, 4.0};
	int outs = 0;
	(void)st;
	se_open(&s);
	s.trig_times = times;
	s.trig_u = u;
	s.ntrig = 4;
	se_start(&s);
	se_run(&s, 1.0);
	/* trig at 0.1 0.3 0.6 0.9 with u 1 2 3 4: acc = 10; out ticks at the 2nd and the 4th
	 * (0.3 and 0.9), each seen by the first fmi3GetClock only */
	assert_int_equal(se_int(&s, SE_NTRIG), 4);
	assert_close(se_real(&s, SE_ACC), 10.0, 0.0);
	assert_int_equal(se_int(&s, SE_NOUT), 2);
	for (int i = 0; i < s.log.n; i++)
		if (s.log.ticks[i].clock == SE_OUT) {
			assert_close(s.log.ticks[i].t, outs == 0 ? 0.3 : 0.9, 0.0);
			outs++;
		}
	assert_int_equal(outs, 2);
	{
		fmi3ValueReference out = SE_OUT;
		fmi3Clock again = fmi3True;
		assert_int_equal(s.api.get_clock(s.c, &out, 1, &again), fmi3OK);
		assert_false(again);
	}
	se_close(&s);
}

static void clocks_se__fmu_state__carries_the_countdown_schedule(void **st)
{
	Se s;
	fmi3FMUState snap = NULL;
	fmi3ValueReference cd = SE_COUNTDOWN;
	fmi3Float64 iv;
	fmi3IntervalQualifier q;
	(void)st;
	se_open(&s);
	se_start(&s);
	/* the second tick (0.75) gives countdown its interval, not yet read */
	assert_int_equal(s.api.activate_model_partition(s.c, SE_TICK, 0.25), fmi3OK);
	assert_int_equal(s.api.activate_model_partition(s.c, SE_TICK, 0.75), fmi3OK);
	assert_int_equal(s.updates, 1);
	assert_int_equal(s.api.get_state(s.c, &snap), fmi3OK);
	assert_int_equal(s.api.get_interval_decimal(s.c, &cd, 1, &iv, &q), fmi3OK);
	assert_int_equal(q, fmi3IntervalChanged);
	assert_close(iv, 0.1, 0.0);
	assert_int_equal(s.api.get_interval_decimal(s.c, &cd, 1, &iv, &q), fmi3OK);
	assert_int_equal(q, fmi3IntervalUnchanged);
	assert_int_equal(s.api.activate_model_partition(s.c, SE_TICK, 1.25), fmi3OK);
	assert_int_equal(se_int(&s, SE_NTICK), 3);
	/* back to 0.75: two ticks, the interval unread again, the tick at 1.25 allowed again */
	assert_int_equal(s.api.set_state(s.c, snap), fmi3OK);
	assert_int_equal(se_int(&s, SE_NTICK), 2);
	assert_int_equal(s.api.get_interval_decimal(s.c, &cd, 1, &iv, &q), fmi3OK);
	assert_int_equal(q, fmi3IntervalChanged);
	assert_int_equal(s.api.activate_model_partition(s.c, SE_TICK, 1.25), fmi3OK);
	/* the countdown tick makes its next interval unknown again */
	assert_int_equal(s.api.activate_model_partition(s.c, SE_COUNTDOWN, 0.85), fmi3OK);
	assert_int_equal(s.api.get_interval_decimal(s.c, &cd, 1, &iv, &q), fmi3OK);
	assert_int_equal(q, fmi3IntervalNotYetKnown);
	assert_int_equal(s.api.free_state(s.c, &snap), fmi3OK);
	se_close(&s);
}

static void clocks_se__misuse__refused_with_the_call_named(void **st)
{
	Se s;
	fmi3ValueReference trig = SE_TRIG, tick = SE_TICK, out = SE_OUT;
	fmi3Float64 iv = 1.0;
	fmi3IntervalQualifier q;
	fmi3Clock on = fmi3True;
	(void)st;
	se_open(&s);
	/* Co-Simulation is not offered */
	assert_null(s.api.instantiate("cs", SE_TOKEN, NULL, fmi3False, fmi3False, fmi3True,
	                              fmi3False, NULL, 0, &s, se_logger, NULL));
	assert_contains(s.last_error, "implements Scheduled Execution only");
	assert_int_equal(s.api.activate_model_partition(s.c, SE_TICK, 0.25), fmi3Error);
	assert_contains(s.last_error, "not allowed in state Instantiated");
	se_start(&s);
	assert_int_equal(s.api.activate_model_partition(s.c, SE_OUT, 0.25), fmi3Error);
	assert_contains(s.last_error, "value reference 6 is not an input clock");
	assert_int_equal(s.api.activate_model_partition(s.c, SE_TICK, 0.25), fmi3OK);
	assert_int_equal(s.api.activate_model_partition(s.c, SE_TICK, 0.25), fmi3Error);
	assert_contains(s.last_error, "clock 'tick' activated at 0.25: times must increase");
	assert_int_equal(s.api.set_clock(s.c, &tick, 1, &on), fmi3Error);
	assert_contains(s.last_error, "fmi3SetClock: not allowed in state Clock Activation Mode");
	assert_int_equal(s.api.get_interval_decimal(s.c, &trig, 1, &iv, &q), fmi3Error);
	assert_contains(s.last_error, "clock 'trig' is not time-based");
	assert_int_equal(s.api.set_interval_decimal(s.c, &tick, 1, &iv), fmi3Error);
	assert_contains(s.last_error, "clock 'tick' is not fixed or tunable");
	assert_int_equal(s.api.get_clock(s.c, &tick, 1, &on), fmi3Error);
	assert_contains(s.last_error, "clock 'tick' is an input clock");
	assert_int_equal(s.api.do_step(s.c, 0.25, 0.1, fmi3False, &on, &on, &on, &iv), fmi3Error);
	assert_contains(s.last_error, "fmi3DoStep: not allowed in state Clock Activation Mode");
	/* none of these broke the instance */
	assert_int_equal(s.api.get_clock(s.c, &out, 1, &on), fmi3OK);
	assert_false(on);
	assert_int_equal(se_int(&s, SE_NTICK), 1);
	se_close(&s);
}

/* ---- a Co-Simulation importer with Event Mode ------------------------------------------ */

enum { CS_SAMPLE = 1, CS_TRIG, CS_WRAP, CS_ALARM };
enum {
	CS_X = 10, CS_RATE, CS_XS, CS_NSAMPLE, CS_U, CS_ACC, CS_NTRIG, CS_NWRAP, CS_T_ALARM,
	CS_NALARM
};
#define CS_TOKEN "{a83f61d2-4c07-4b9e-92d5-7e1c08f3b6a4}"

typedef struct Cs {
	Fmi3Api api;
	fmi3Instance c;
	char last_error[512];
	TickLog log;
	int clocks_in;            /* the importer sets the input clocks (else it ignores them) */
	double next_sample, sample_interval;
	const double *trig_times, *trig_u;
	int ntrig, itrig;
	double next_event;        /* the FMU's next time event (NEVER: none) */
} Cs;

static void cs_logger(fmi3InstanceEnvironment env, fmi3Status status, fmi3String category,
                      fmi3String message)
{
	Cs *s = env;
	if (status >= fmi3Error)
		snprintf(s->last_error, sizeof s->last_error, "[%s] %s", category, message);
}

static void cs_open(Cs *s, int event_mode, int early_return)
{
	char path[512];
	memset(s, 0, sizeof *s);
	fmi3_library_path(path, sizeof path, build_dir(), "clocks_cs");
	fmi3_import(&s->api, path);
	s->c = s->api.instantiate("cs", CS_TOKEN, NULL, fmi3False, fmi3False,
	                          event_mode ? fmi3True : fmi3False,
	                          early_return ? fmi3True : fmi3False, NULL, 0, s, cs_logger, NULL);
	assert_non_null(s->c);
	s->next_sample = s->next_event = NEVER;
}

/* In Event Mode at now: the input clocks due set (u before trig), discrete states updated
 * until settled, the output clocks asked; every tick recorded in that order. */
static void cs_event_mode(Cs *s, double now, int sample_due, int trig_due)
{
	fmi3Boolean again, terminate, nominals, values, next_defined;
	fmi3Float64 next;
	const fmi3ValueReference outs[2] = {CS_WRAP, CS_ALARM};
	fmi3Clock ticked[2];
	const fmi3Clock on = fmi3True;
	int passes = 0;
	if (trig_due) {
		fmi3ValueReference u = CS_U, trig = CS_TRIG;
		assert_int_equal(s->api.set_float64(s->c, &u, 1, &s->trig_u[s->itrig], 1), fmi3OK);
		assert_int_equal(s->api.set_clock(s->c, &trig, 1, &on), fmi3OK);
		record(&s->log, CS_TRIG, now);
	}
	if (sample_due) {
		fmi3ValueReference sample = CS_SAMPLE;
		assert_int_equal(s->api.set_clock(s->c, &sample, 1, &on), fmi3OK);
		record(&s->log, CS_SAMPLE, now);
	}
	do {
		assert_int_equal(s->api.update_discrete_states(s->c, &again, &terminate, &nominals,
		                                               &values, &next_defined, &next), fmi3OK);
		assert_true(++passes < 10);
	} while (again);
	s->next_event = next_defined ? next : NEVER;
	assert_int_equal(s->api.get_clock(s->c, outs, 2, ticked), fmi3OK);
	for (int i = 0; i < 2; i++)
		if (ticked[i])
			record(&s->log, outs[i], now);
}

/* Initialization (the sample clock's first tick and interval from the FMU), then steps of at
 * most h that end at every input clock tick and time event; Event Mode wherever the FMU asks
 * for it or an input clock ticks. */
static void cs_run(Cs *s, double stop, double h)
{
	double t = 0.0;
	assert_int_equal(s->api.enter_init(s->c, fmi3False, 0.0, 0.0, fmi3True, stop), fmi3OK);
	if (s->clocks_in) {
		fmi3ValueReference sample = CS_SAMPLE;
		fmi3IntervalQualifier q;
		fmi3Float64 shift;
		assert_int_equal(s->api.get_interval_decimal(s->c, &sample, 1, &s->sample_interval, &q),
		                 fmi3OK);
		assert_int_equal(s->api.get_shift_decimal(s->c, &sample, 1, &shift), fmi3OK);
		s->next_sample = shift;
	}
	assert_int_equal(s->api.exit_init(s->c), fmi3OK);
	cs_event_mode(s, 0.0, 0, 0);
	assert_int_equal(s->api.enter_step_mode(s->c), fmi3OK);
	while (t < stop - 1e-12) {
		double target = fmin(fmin(t + h, stop), fmin(s->next_sample, s->next_event));
		double next_trig = s->clocks_in && s->itrig < s->ntrig ? s->trig_times[s->itrig] : NEVER;
		fmi3Boolean event, terminate, early;
		fmi3Float64 last;
		int sample_due, trig_due;
		target = fmin(target, next_trig);
		assert_int_equal(s->api.do_step(s->c, t, target - t, fmi3False, &event, &terminate,
		                                &early, &last), fmi3OK);
		t = early ? last : target;
		sample_due = fabs(t - s->next_sample) <= 1e-9;
		trig_due = fabs(t - next_trig) <= 1e-9;
		if (!event && !sample_due && !trig_due)
			continue;
		assert_int_equal(s->api.enter_event_mode(s->c), fmi3OK);
		cs_event_mode(s, t, sample_due, trig_due);
		assert_int_equal(s->api.enter_step_mode(s->c), fmi3OK);
		if (sample_due)
			s->next_sample += s->sample_interval;
		if (trig_due)
			s->itrig++;
	}
}

static fmi3Int32 cs_int(Cs *s, fmi3ValueReference vr) { return get_int(&s->api, s->c, vr); }
static fmi3Float64 cs_real(Cs *s, fmi3ValueReference vr) { return get_real(&s->api, s->c, vr); }

static void clocks_cs__event_mode_early_return__every_clock_ticks_at_its_time(void **st)
{
	Cs s;
	static const double times[] = {0.5, 1.5};
	static const double u[] = {2.0, 3.0};
	/* Over [0, 2.4] with rate 1 (x = t mod 1):
	 *   sample: 0.05 + 0.3 k: 0.05 0.35 0.65 0.95 1.25 1.55 1.85 2.15 (2.45 > 2.4)
	 *   trig:   0.5 (u 2), 1.5 (u 3) from the importer
	 *   alarm:  t_alarm = 0.75, the time event the FMU announced
	 *   wrap:   x reaches 1 at 1 and 2, each step stopping there (early return) */
	static const Tick want[] = {
		{CS_SAMPLE, 0.05}, {CS_SAMPLE, 0.35}, {CS_TRIG, 0.5},    {CS_SAMPLE, 0.65},
		{CS_ALARM, 0.75},  {CS_SAMPLE, 0.95}, {CS_WRAP, 1.0},    {CS_SAMPLE, 1.25},
		{CS_TRIG, 1.5},    {CS_SAMPLE, 1.55}, {CS_SAMPLE, 1.85}, {CS_WRAP, 2.0},
		{CS_SAMPLE, 2.15},
	};
	(void)st;
	cs_open(&s, 1, 1);
	s.clocks_in = 1;
	s.trig_times = times;
	s.trig_u = u;
	s.ntrig = 2;
	cs_run(&s, 2.4, 0.1);
	assert_ticks(&s.log, want, (int)(sizeof want / sizeof want[0]), 1e-9);
	assert_int_equal(cs_int(&s, CS_NSAMPLE), 8);
	assert_close(cs_real(&s, CS_XS), 0.15, 1e-9); /* x at 2.15 */
	assert_close(cs_real(&s, CS_ACC), 5.0, 0.0);
	assert_int_equal(cs_int(&s, CS_NTRIG), 2);
	assert_int_equal(cs_int(&s, CS_NWRAP), 2);
	assert_int_equal(cs_int(&s, CS_NALARM), 1);
	assert_close(cs_real(&s, CS_X), 0.4, 1e-9); /* 2.4 mod 1 */
	s.api.free_instance(s.c);
	fmi3_unimport(&s.api);
}

static void clocks_cs__event_mode_without_early_return__ticks_at_the_step_end(void **st)
{
	Cs s;
	/* Steps of 0.4 that end at the time event the FMU announces, input clocks not used.
	 * 0 -> 0.4: x = 0.4.  0.4 -> 0.75 (t_alarm): Event Mode ticks alarm, on time.
	 * 0.75 -> 1.15: x reaches 1 at 1.0 and waits there; Event Mode at 1.15 ticks wrap (a
	 * state event seen at the step's end) and resets x.  1.15 -> 1.55 -> 1.95 -> 2.0:
	 * x = 0.85. */
	static const Tick want[] = {{CS_ALARM, 0.75}, {CS_WRAP, 1.15}};
	(void)st;
	cs_open(&s, 1, 0);
	cs_run(&s, 2.0, 0.4);
	assert_ticks(&s.log, want, 2, 1e-9);
	assert_close(cs_real(&s, CS_X), 0.85, 1e-9);
	assert_int_equal(cs_int(&s, CS_NSAMPLE), 0);
	s.api.free_instance(s.c);
	fmi3_unimport(&s.api);
}

static void clocks_cs__without_event_mode__resets_inside_the_step_no_clock_seen(void **st)
{
	Cs s;
	fmi3Boolean event, terminate, early;
	fmi3Float64 last;
	fmi3ValueReference wrap = CS_WRAP;
	fmi3Clock ticked;
	double t = 0.0;
	(void)st;
	cs_open(&s, 0, 0);
	assert_int_equal(s.api.enter_init(s.c, fmi3False, 0.0, 0.0, fmi3False, 0.0), fmi3OK);
	assert_int_equal(s.api.exit_init(s.c), fmi3OK);
	/* 0.3 a step: 8 steps to 2.4; x resets at 1 and 2 inside the steps, the alarm counts at
	 * 0.75; x(2.4) = 0.4 */
	for (int i = 0; i < 8; i++, t += 0.3) {
		assert_int_equal(s.api.do_step(s.c, t, 0.3, fmi3False, &event, &terminate, &early,
		                               &last), fmi3OK);
		assert_false(event);
		assert_false(early);
	}
	assert_close(cs_real(&s, CS_X), 0.4, 1e-9);
	assert_int_equal(cs_int(&s, CS_NWRAP), 2);
	assert_int_equal(cs_int(&s, CS_NALARM), 1);
	assert_int_equal(s.api.get_clock(s.c, &wrap, 1, &ticked), fmi3Error);
	assert_contains(s.last_error, "fmi3GetClock: not allowed in state Step Mode");
	s.api.free_instance(s.c);
	fmi3_unimport(&s.api);
}

static void clocks_cs__misuse__refused_with_the_call_named(void **st)
{
	Cs s;
	fmi3ValueReference wrap = CS_WRAP, sample = CS_SAMPLE;
	const fmi3Clock on = fmi3True;
	fmi3Float64 iv = 0.5;
	(void)st;
	cs_open(&s, 1, 1);
	assert_null(s.api.instantiate_se("se", CS_TOKEN, NULL, fmi3False, fmi3False, &s, cs_logger,
	                                 NULL, NULL, NULL));
	assert_contains(s.last_error, "this FMU implements Co-Simulation only");
	assert_int_equal(s.api.enter_init(s.c, fmi3False, 0.0, 0.0, fmi3False, 0.0), fmi3OK);
	assert_int_equal(s.api.set_interval_decimal(s.c, &sample, 1, &iv), fmi3Error);
	assert_contains(s.last_error, "clock 'sample' is not fixed or tunable");
	assert_int_equal(s.api.exit_init(s.c), fmi3OK);
	assert_int_equal(s.api.set_clock(s.c, &wrap, 1, &on), fmi3Error);
	assert_contains(s.last_error, "clock 'wrap' is not an input clock");
	assert_int_equal(s.api.activate_model_partition(s.c, CS_SAMPLE, 0.0), fmi3Error);
	assert_contains(s.last_error, "fmi3ActivateModelPartition: not allowed in state Event Mode");
	assert_int_equal(s.api.enter_step_mode(s.c), fmi3OK);
	assert_int_equal(s.api.set_clock(s.c, &sample, 1, &on), fmi3Error);
	assert_contains(s.last_error, "fmi3SetClock: not allowed in state Step Mode");
	s.api.free_instance(s.c);
	fmi3_unimport(&s.api);
}

/* ---- a Model Exchange importer --------------------------------------------------------- */

enum { ME_X = 1, ME_DER_X = 2, ME_XS = 4, ME_NSAMPLE = 100, ME_NTRIG, ME_NWRAP };
enum { ME_SAMPLE = 201, ME_TRIG, ME_WRAP };
#define ME_TOKEN "{7c1e5a39-b2d4-4086-9f3a-d85e0c6b21f7}"

typedef struct Me {
	Fmi3Api api;
	fmi3SetContinuousStatesTYPE *set_states; /* not in Fmi3Api: looked up here */
	fmi3GetContinuousStatesTYPE *get_states;
	fmi3Instance c;
	char last_error[512];
	TickLog log;
} Me;

static void me_logger(fmi3InstanceEnvironment env, fmi3Status status, fmi3String category,
                      fmi3String message)
{
	Me *s = env;
	if (status >= fmi3Error)
		snprintf(s->last_error, sizeof s->last_error, "[%s] %s", category, message);
}

static void me_open(Me *s)
{
	char path[512];
	void *sym;
	memset(s, 0, sizeof *s);
	fmi3_library_path(path, sizeof path, build_dir(), "clocks_me");
	fmi3_import(&s->api, path);
	sym = dlsym(s->api.lib, "fmi3SetContinuousStates");
	memcpy(&s->set_states, &sym, sizeof sym);
	sym = dlsym(s->api.lib, "fmi3GetContinuousStates");
	memcpy(&s->get_states, &sym, sizeof sym);
	s->c = s->api.instantiate_me("me", ME_TOKEN, NULL, fmi3False, fmi3False, s, me_logger);
	assert_non_null(s->c);
}

static void me_close(Me *s)
{
	s->api.free_instance(s->c);
	fmi3_unimport(&s->api);
}

/* In Event Mode at now: input clocks due set, discrete states settled, the output clock
 * asked; *x re-read when the FMU changed it. */
static void me_event_mode(Me *s, double now, int sample_due, int trig_due, double *x)
{
	fmi3Boolean again, terminate, nominals, values, next_defined;
	fmi3Float64 next;
	const fmi3Clock on = fmi3True;
	fmi3ValueReference wrap = ME_WRAP;
	fmi3Clock ticked = fmi3False;
	int passes = 0, changed = 0;
	if (trig_due) {
		fmi3ValueReference trig = ME_TRIG;
		assert_int_equal(s->api.set_clock(s->c, &trig, 1, &on), fmi3OK);
		record(&s->log, ME_TRIG, now);
	}
	if (sample_due) {
		fmi3ValueReference sample = ME_SAMPLE;
		assert_int_equal(s->api.set_clock(s->c, &sample, 1, &on), fmi3OK);
		record(&s->log, ME_SAMPLE, now);
	}
	do {
		assert_int_equal(s->api.update_discrete_states(s->c, &again, &terminate, &nominals,
		                                               &values, &next_defined, &next), fmi3OK);
		changed |= values != 0;
		assert_true(++passes < 10);
	} while (again);
	assert_int_equal(s->api.get_clock(s->c, &wrap, 1, &ticked), fmi3OK);
	if (ticked)
		record(&s->log, ME_WRAP, now);
	if (changed)
		assert_int_equal(s->get_states(s->c, x, 1), fmi3OK);
}

/* From 0 to stop: x' read from the FMU and integrated exactly (it is constant), steps of at
 * most h that end at every clock tick and at the crossing of the event indicator 1 - x,
 * found exactly from x and x'. */
static void me_run(Me *s, double stop, double h, const double *trig, int ntrig)
{
	fmi3ValueReference sample = ME_SAMPLE, der = ME_DER_X;
	fmi3Float64 interval, shift, x = 0.0;
	fmi3IntervalQualifier q;
	double t = 0.0, next_sample;
	int itrig = 0;
	assert_int_equal(s->api.enter_init(s->c, fmi3False, 0.0, 0.0, fmi3True, stop), fmi3OK);
	assert_int_equal(s->api.get_interval_decimal(s->c, &sample, 1, &interval, &q), fmi3OK);
	assert_int_equal(q, fmi3IntervalUnchanged);
	assert_int_equal(s->api.get_shift_decimal(s->c, &sample, 1, &shift), fmi3OK);
	next_sample = shift;
	assert_int_equal(s->api.exit_init(s->c), fmi3OK);
	assert_int_equal(s->get_states(s->c, &x, 1), fmi3OK);
	me_event_mode(s, 0.0, 0, 0, &x);
	assert_int_equal(s->api.enter_continuous_time_mode(s->c), fmi3OK);
	while (t < stop - 1e-12) {
		fmi3Float64 dx;
		fmi3Boolean enter, terminate;
		assert_int_equal(s->api.get_float64(s->c, &der, 1, &dx, 1), fmi3OK);
		double cross = dx > 0 ? t + (1.0 - x) / dx : NEVER;
		double next_trig = itrig < ntrig ? trig[itrig] : NEVER;
		double target = fmin(fmin(t + h, stop), fmin(fmin(next_sample, next_trig), cross));
		x = target == cross ? 1.0 : x + dx * (target - t);
		t = target;
		assert_int_equal(s->api.set_time(s->c, t), fmi3OK);
		assert_int_equal(s->set_states(s->c, &x, 1), fmi3OK);
		assert_int_equal(s->api.completed_integrator_step(s->c, fmi3True, &enter, &terminate),
		                 fmi3OK);
		int sample_due = fabs(t - next_sample) <= 1e-9, trig_due = fabs(t - next_trig) <= 1e-9;
		if (!sample_due && !trig_due && t != cross)
			continue;
		assert_int_equal(s->api.enter_event_mode(s->c), fmi3OK);
		me_event_mode(s, t, sample_due, trig_due, &x);
		assert_int_equal(s->api.enter_continuous_time_mode(s->c), fmi3OK);
		if (sample_due)
			next_sample += interval;
		if (trig_due)
			itrig++;
	}
}

static void clocks_me__model_exchange__clocks_tick_in_event_mode_at_hand_derived_times(void **st)
{
	Me s;
	static const double trig[] = {0.5, 1.5};
	/* As clocks_cs without its alarm, over [0, 2.4] with x = t mod 1:
	 *   sample: 0.05 + 0.3 k: 0.05 0.35 0.65 0.95 1.25 1.55 1.85 2.15
	 *   trig:   0.5 and 1.5 from the importer
	 *   wrap:   where the indicator 1 - x crosses zero, at 1 and 2 */
	static const Tick want[] = {
		{ME_SAMPLE, 0.05}, {ME_SAMPLE, 0.35}, {ME_TRIG, 0.5},    {ME_SAMPLE, 0.65},
		{ME_SAMPLE, 0.95}, {ME_WRAP, 1.0},    {ME_SAMPLE, 1.25}, {ME_TRIG, 1.5},
		{ME_SAMPLE, 1.55}, {ME_SAMPLE, 1.85}, {ME_WRAP, 2.0},    {ME_SAMPLE, 2.15},
	};
	(void)st;
	me_open(&s);
	me_run(&s, 2.4, 0.1, trig, 2);
	assert_ticks(&s.log, want, (int)(sizeof want / sizeof want[0]), 1e-9);
	assert_int_equal(get_int(&s.api, s.c, ME_NSAMPLE), 8);
	assert_close(get_real(&s.api, s.c, ME_XS), 0.15, 1e-9); /* x at 2.15 */
	assert_int_equal(get_int(&s.api, s.c, ME_NTRIG), 2);
	assert_int_equal(get_int(&s.api, s.c, ME_NWRAP), 2);
	assert_close(get_real(&s.api, s.c, ME_X), 0.4, 1e-9);
	me_close(&s);
}

static void clocks_me__misuse__refused_with_the_call_named(void **st)
{
	Me s;
	fmi3ValueReference wrap = ME_WRAP, sample = ME_SAMPLE, trig = ME_TRIG;
	const fmi3Clock on = fmi3True;
	fmi3Float64 iv;
	fmi3IntervalQualifier q;
	(void)st;
	me_open(&s);
	assert_int_equal(s.api.enter_init(s.c, fmi3False, 0.0, 0.0, fmi3False, 0.0), fmi3OK);
	assert_int_equal(s.api.get_interval_decimal(s.c, &trig, 1, &iv, &q), fmi3Error);
	assert_contains(s.last_error, "clock 'trig' is not periodic");
	assert_int_equal(s.api.exit_init(s.c), fmi3OK);
	assert_int_equal(s.api.set_clock(s.c, &wrap, 1, &on), fmi3Error);
	assert_contains(s.last_error, "clock 'wrap' is an output clock");
	assert_int_equal(s.api.enter_continuous_time_mode(s.c), fmi3OK);
	assert_int_equal(s.api.set_clock(s.c, &sample, 1, &on), fmi3Error);
	assert_contains(s.last_error, "fmi3SetClock");
	me_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(clocks_se__time_based_clocks__tick_in_priority_order_at_hand_derived_times),
		cmocka_unit_test(clocks_se__importer_sets_fixed_interval__ticks_follow_it),
		cmocka_unit_test(clocks_se__tunable_period_changed__next_tick_one_new_period_later),
		cmocka_unit_test(clocks_se__triggered_clock_and_output_clock__accumulate_and_tick),
		cmocka_unit_test(clocks_se__fmu_state__carries_the_countdown_schedule),
		cmocka_unit_test(clocks_se__misuse__refused_with_the_call_named),
		cmocka_unit_test(clocks_cs__event_mode_early_return__every_clock_ticks_at_its_time),
		cmocka_unit_test(clocks_cs__event_mode_without_early_return__ticks_at_the_step_end),
		cmocka_unit_test(clocks_cs__without_event_mode__resets_inside_the_step_no_clock_seen),
		cmocka_unit_test(clocks_cs__misuse__refused_with_the_call_named),
		cmocka_unit_test(clocks_me__model_exchange__clocks_tick_in_event_mode_at_hand_derived_times),
		cmocka_unit_test(clocks_me__misuse__refused_with_the_call_named),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
