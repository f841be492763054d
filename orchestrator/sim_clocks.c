/* sim_clocks.c — `sacc simulate`'s clocks: the seam's configuration of each FMU run
 * through Scheduled Execution, or as Co-Simulation with clocks ticked in Event Mode
 * (SartSeConfig), from its description's Clock variables.
 * The master (sart_master.c) ends its steps at their ticks; the input table's clock
 * columns are simulate_input.c's. */
#include "simulate.h"

#include <stdlib.h>

/* The seam's kind of clock v. */
static SartClockKind clock_kind(const FmuVar *v)
{
	if (v->causality == CAUS_OUTPUT)
		return SART_CLOCK_OUTPUT;
	if (fmu_clock_periodic(&v->clock))
		return SART_CLOCK_PERIODIC;
	return v->clock.interval_variability == IV_COUNTDOWN ? SART_CLOCK_COUNTDOWN
	                                                     : SART_CLOCK_TRIGGERED;
}

int sim_se_configs(Sim *s)
{
	for (int f = 0; f < s->nfmus; f++) {
		SimFmu *fm = &s->fmus[f];
		const FmuInfo *info = fm->info;
		if (!info->nclocks || (!fm->me && !fmu_se_by_default(info) && !fmu_cs_clocks(info)))
			continue;
		free(fm->clocks);
		fm->clocks = calloc((size_t)info->nclocks + 1, sizeof *fm->clocks);
		if (!fm->clocks)
			return 1;
		size_t n = 0;
		for (int i = 0; i < info->nvars; i++) {
			const FmuVar *v = &info->vars[i];
			/* a local clock is the FMU's own business */
			if (v->type != FT_CLOCK || v->causality == CAUS_LOCAL)
				continue;
			fm->clocks[n++] = (SartClock){v->vr, clock_kind(v), fmu_clock_interval(&v->clock),
			                              fmu_clock_shift(&v->clock), v->clock.priority};
		}
		s->se[f] = (SartSeConfig){fm->clocks, n};
	}
	return 0;
}
