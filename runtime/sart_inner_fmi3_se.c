/* sart_inner_fmi3_se.c — the FMI 3.0 back end's clock calls: the Scheduled Execution
 * instance created with the clock-update callback, and the calls the layer of
 * sart_inner_se.c drives it with (activate a partition, read output clocks, read intervals,
 * whether the FMU asked to be looked at; for a Co-Simulation FMU with clocks, tick input
 * clocks in Event Mode and the hook that reads the clocks in every Event Mode).  Kept apart
 * from sart_inner_fmi3.c, which only branches here when it instantiates and runs the hook
 * where its Event Modes settle. */
#include "sart_inner_fmi3_impl.h"

#include <math.h>
#include <stdlib.h>

/* The FMU signals that an output clock ticked or a countdown clock's interval is known:
 * remembered for the layer, which asks after each activation. */
static void clock_update(fmi3InstanceEnvironment env)
{
	SartInner *in = env;
	if (in && in->impl)
		impl(in)->clock_update = 1;
}

/* The runtime activates one partition at a time on the caller's thread: nothing can
 * preempt a partition, so there is nothing to lock. */
static void lock_preemption(void)
{
}

static void unlock_preemption(void)
{
}

SartStatus sart_inner_fmi3_instantiate_se(SartInner *in, const char *token, const char *path,
                                          int logging_on, fmi3LogMessageCallback log)
{
	Fmi3Inner *f = impl(in);
	f->clock_update = 0;
	f->c = f->api.instantiate_se(in->name, token, path, false, logging_on ? true : false, in,
	                             log, clock_update, lock_preemption, unlock_preemption);
	if (!f->c)
		return sart_inner_report(in, SART_ERROR, "fmi3InstantiateScheduledExecution returned "
		                         "NULL");
	return SART_OK;
}

static inline SartStatus se_outcome(SartInner *in, const char *fn, double t, fmi3Status st)
{
	return st == fmi3OK ? SART_OK : sart_inner_fmi3_not_ok_at(in, fn, t, st);
}

static SartStatus se_activate(SartInner *in, SartVr clock, double t)
{
	Fmi3Inner *f = impl(in);
	return se_outcome(in, "fmi3ActivateModelPartition", t,
	                  f->api.activate_model_partition(f->c, clock, t));
}

static SartStatus se_get_clock(SartInner *in, const SartVr vr[], size_t n, int ticked[],
                               double t)
{
	Fmi3Inner *f = impl(in);
	fmi3Clock one;
	SartStatus s = SART_OK;
	/* one at a time: fmi3Clock is bool, the seam's values are ints */
	for (size_t i = 0; i < n && s <= SART_WARNING; i++) {
		one = false;
		s = worse(s, se_outcome(in, "fmi3GetClock", t, f->api.get_clock(f->c, &vr[i], 1, &one)));
		ticked[i] = one ? 1 : 0;
	}
	return s;
}

static SartStatus se_get_interval(SartInner *in, const SartVr vr[], size_t n,
                                  double interval[], int qualifier[], double t)
{
	Fmi3Inner *f = impl(in);
	SartStatus s = SART_OK;
	for (size_t i = 0; i < n && s <= SART_WARNING; i++) {
		fmi3IntervalQualifier q = fmi3IntervalNotYetKnown;
		double iv = 0;
		s = worse(s, se_outcome(in, "fmi3GetIntervalDecimal", t,
		                        f->api.get_interval_decimal(f->c, &vr[i], 1, &iv, &q)));
		interval[i] = iv;
		qualifier[i] = (int)q;
	}
	return s;
}

static int se_take_clock_update(SartInner *in)
{
	Fmi3Inner *f = impl(in);
	int u = f->clock_update;
	f->clock_update = 0;
	return u;
}

static SartStatus set_clocks(SartInner *in, const SartVr vr[], size_t n, double t)
{
	Fmi3Inner *f = impl(in);
	SartStatus s = SART_OK;
	for (size_t i = 0; i < n && s <= SART_WARNING; i++) {
		const fmi3Clock tick = true;
		s = worse(s, se_outcome(in, "fmi3SetClock", t, f->api.set_clock(f->c, &vr[i], 1, &tick)));
	}
	return s;
}

static SartStatus cs_tick_in_event_mode(SartInner *in, const SartVr vr[], size_t n, double t)
{
	Fmi3Inner *f = impl(in);
	SartStatus s = se_outcome(in, "fmi3EnterEventMode", t, f->api.enter_event_mode(f->c));
	if (s <= SART_WARNING)
		s = worse(s, set_clocks(in, vr, n, t));
	if (s > SART_WARNING)
		return s;
	return worse(s, sart_inner_fmi3_settle(in, t));
}

static void cs_set_event_hook(SartInner *in, SartStatus (*hook)(SartInner *in, double t))
{
	impl(in)->event_hook = hook;
}

static double cs_next_event_time(SartInner *in)
{
	return impl(in)->next_event;
}

const SartInnerSeOps sart_inner_fmi3_se_ops = {
	se_activate,
	se_get_clock,
	se_get_interval,
	se_take_clock_update,
	cs_tick_in_event_mode,
	cs_set_event_hook,
	cs_next_event_time,
	set_clocks,
};
