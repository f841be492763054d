/* sart_step_table.c — Ctrl as a table (sart_wrapper.h, SartStepTable): the loop that a
 * wrapper of many inners runs instead of a statement per do_step and per internal coupling,
 * for the general path's Ctrl and for the fast step's hand-over; the same calls, in the same
 * order, with the same return value as the statements the table stands for. */
#include "sart_core_impl.h"

void sart_couple_rows(void *s, const SartCoupling *c, unsigned from, unsigned to)
{
	unsigned char *b = s;
	for (unsigned i = from; i < to; i++) {
		*sart_reals(b, c[i].dst) = *sart_reals(b, c[i].src);
		b[c[i].assigned] = 1;
	}
}

void sart_copy_reals(void *s, const SartCopy *c, unsigned from, unsigned to)
{
	unsigned char *b = s;
	for (unsigned i = from; i < to; i++)
		*sart_reals(b, c[i].dst) = *sart_reals(b, c[i].src);
}

/* The return is the min of the returned rows' steps folded from the left, as the emitted
 * fmin(fmin(x1, x2), x3) is, so that the value is the same bit for bit (NaN included). */
double sart_step_rows(SartWrapper *w, void *s, const SartStepTable *tab, unsigned from,
                      double first, double t, double H)
{
	double ret = H;
	int folded = 0;
	for (unsigned k = 0; k < tab->n; k++) {
		const SartStepRow *r = &tab->rows[k];
		double x;
		if (k + 1 < from) {
			x = H;
		} else if (k + 1 == from) {
			x = first;
		} else {
			sart_couple_rows(s, tab->couplings, r[0].couple, r[1].couple);
			x = sart_do_step(w, s, r->inner, t, H);
		}
		if (r->returned) {
			ret = folded ? fmin(ret, x) : x;
			folded = 1;
		}
	}
	sart_couple_rows(s, tab->couplings, tab->rows[tab->n].couple, tab->ncouplings);
	return ret;
}
