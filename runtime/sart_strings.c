/* sart_strings.c — the wrapper's Strings: the rule-level helpers (sart_set_string and the
 * others of sart_wrapper.h) and an inner's String ports set and read through the seam.
 * A String lives in the Storage as a char array of SART_STRING_CAP bytes (sart_wrapper.h
 * says why); a value that does not fit is an error naming where it came from, never cut
 * short. */
#include "sart_core_impl.h"

#include <string.h>

void sart_set_string(SartWrapper *w, char *dst, const char *src, const char *what)
{
	if (sart_has_failed(w))
		return;
	size_t n = strlen(src);
	if (n >= SART_STRING_CAP) {
		sart_fail(w, SART_ERROR, "[wrapper] %s: a String of %lu bytes does not fit the "
		          "wrapper's %d", what ? what : "?", (unsigned long)n, SART_STRING_CAP - 1);
		return;
	}
	memmove(dst, src, n + 1);
}

void sart_init_string(char *dst, const char *src)
{
	size_t n = strlen(src);
	if (n >= SART_STRING_CAP)
		n = SART_STRING_CAP - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

int sart_string_eq(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

int sart_flush_strings(SartWrapper *w, unsigned char *s, unsigned f)
{
	const SartPorts *p = &sart_model.inners[f].in[SART_STRING];
	unsigned char *assigned = s + p->assigned;
	unsigned n = 0;
	for (unsigned k = 0; k < p->n; k++) {
		if (!assigned[k])
			continue;
		assigned[k] = 0;
		w->vrbuf[n] = p->vr[k];
		w->sbuf[n] = sart_string_at(s, p->values, k);
		n++;
	}
	if (n)
		sart_check_inner(w, sart_inner_set_string(w->inner[f], w->vrbuf, n, w->sbuf), f,
		                 "setting the inputs");
	return !sart_has_failed(w);
}

int sart_read_strings(SartWrapper *w, unsigned char *s, unsigned f)
{
	const SartPorts *p = &sart_model.inners[f].out[SART_STRING];
	SartStatus st = sart_inner_get_string(w->inner[f], p->vr, p->n, w->sbuf);
	sart_check_inner(w, st, f, "reading the outputs");
	if (sart_has_failed(w))
		return 0;
	/* The inner's strings are valid until its next call: copied at once. */
	for (unsigned k = 0; k < p->n; k++) {
		const char *v = w->sbuf[k];
		size_t n = v ? strlen(v) : 0;
		if (!v || n >= SART_STRING_CAP) {
			if (v)
				sart_fail(w, SART_ERROR, "[wrapper] reading the outputs of '%s': %s.%s is "
				          "a String of %lu bytes, longer than the wrapper's %d",
				          sart_model.inners[f].name, sart_model.inners[f].name, p->names[k],
				          (unsigned long)n, SART_STRING_CAP - 1);
			else
				sart_fail(w, SART_ERROR, "[wrapper] reading the outputs of '%s': %s.%s "
				          "is NULL", sart_model.inners[f].name, sart_model.inners[f].name,
				          p->names[k]);
			return 0;
		}
		memcpy(sart_string_at(s, p->values, k), v, n + 1);
	}
	return 1;
}
