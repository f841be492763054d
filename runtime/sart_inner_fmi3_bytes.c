/* sart_inner_fmi3_bytes.c — the byte-valued variables of the seam's FMI 3.0 back end
 * (sart_inner_fmi3.c has the rest): Strings and Binaries got and set, and the elements of
 * their arrays read and written through their whole arrays, with a shadow of each array
 * (what the seam last wrote, or its start values) and copies of what a get gave out, kept
 * until the next get (the FMU's own pointers last only until its next call). */
#include "sart_inner_fmi3_impl.h"

#include <stdlib.h>
#include <string.h>

/* ---- values: Strings and Binaries, and elements of their arrays ------------------------- */

/* Strings travel here as bytes too, their lengths without the NUL (which every value this
 * file hands to fmi3SetString has). */
typedef enum BytesKind { BYTES_STRING, BYTES_BINARY } BytesKind;

static const char *bytes_fn(BytesKind k, int set)
{
	return k == BYTES_STRING ? (set ? "fmi3SetString" : "fmi3GetString")
	                         : (set ? "fmi3SetBinary" : "fmi3GetBinary");
}

/* n values of the variables vr (nvalues of them in all: arrays whole), from the FMU. */
static SartStatus bytes_get_raw(SartInner *in, BytesKind k, const SartVr vr[], size_t n,
                                const unsigned char *v[], size_t sizes[], size_t nvalues)
{
	Fmi3Inner *f = impl(in);
	if (k == BYTES_BINARY) {
		if (!f->api.get_binary)
			return unavailable(in, "fmi3GetBinary", "the FMU does not export it");
		return outcome(in, "fmi3GetBinary",
		               f->api.get_binary(f->c, vr, n, sizes, v, nvalues));
	}
	fmi3Status st = f->api.get_string(f->c, vr, n, (fmi3String *)v, nvalues);
	for (size_t i = 0; sizes && st <= fmi3Warning && i < nvalues; i++)
		sizes[i] = v[i] ? strlen((const char *)v[i]) : 0;
	return outcome(in, "fmi3GetString", st);
}

static SartStatus bytes_set_raw(SartInner *in, BytesKind k, const SartVr vr[], size_t n,
                                const unsigned char *const v[], const size_t sizes[],
                                size_t nvalues)
{
	Fmi3Inner *f = impl(in);
	if (k == BYTES_BINARY) {
		if (!f->api.set_binary)
			return unavailable(in, "fmi3SetBinary", "the FMU does not export it");
		return outcome(in, "fmi3SetBinary",
		               f->api.set_binary(f->c, vr, n, sizes, v, nvalues));
	}
	return outcome(in, "fmi3SetString",
	               f->api.set_string(f->c, vr, n, (const fmi3String *)v, nvalues));
}

/* A malloc'd copy of len bytes with a NUL after them; NULL when out of memory. */
static unsigned char *bytes_copy(const void *p, size_t len)
{
	unsigned char *c = malloc(len + 1);
	if (c) {
		if (len)
			memcpy(c, p, len);
		c[len] = '\0';
	}
	return c;
}

/* The shadow of e's String or Binary array, made from its start values on first use; NULL
 * when out of memory. */
static BytesShadow *byte_shadow_of(SartInner *in, const SartVrElement *e)
{
	Fmi3Inner *f = impl(in);
	for (size_t i = 0; i < f->nbyte_shadows; i++)
		if (f->byte_shadows[i].array == e->array && f->byte_shadows[i].size == e->size)
			return &f->byte_shadows[i];
	BytesShadow *grown = realloc(f->byte_shadows, (f->nbyte_shadows + 1) * sizeof *grown);
	if (!grown)
		return NULL;
	f->byte_shadows = grown;
	BytesShadow *sh = &f->byte_shadows[f->nbyte_shadows];
	*sh = (BytesShadow){e->array, e->size, calloc(e->size + 1, sizeof *sh->v),
	                    calloc(e->size + 1, sizeof *sh->len)};
	if (!sh->v || !sh->len) {
		free(sh->v);
		free(sh->len);
		return NULL;
	}
	f->nbyte_shadows++;
	for (size_t i = 0; i < in->nelements; i++) {
		const SartVrElement *x = &in->elements[i];
		if (x->array == e->array && x->index < e->size && x->start_data) {
			sh->v[x->index] = bytes_copy(x->start_data, x->start_size);
			sh->len[x->index] = x->start_size;
		}
	}
	return sh;
}

/* A get naming array elements: one call per value, each value copied (the FMU's pointers
 * last only until its next call), the copies kept until the next such get. */
static SART_COLD SartStatus bytes_elements_get(SartInner *in, BytesKind k, const SartVr vr[],
                                               size_t n, const unsigned char *v[],
                                               size_t sizes[])
{
	Fmi3Inner *f = impl(in);
	for (size_t i = 0; i < f->nheld; i++)
		free(f->held[i]);
	f->nheld = 0;
	unsigned char **held = realloc(f->held, (n + 1) * sizeof *held);
	if (!held)
		return sart_inner_report(in, SART_ERROR, "%s: out of memory", bytes_fn(k, 0));
	f->held = held;
	SartStatus worst = SART_OK;
	for (size_t i = 0; i < n && worst <= SART_WARNING; i++) {
		const SartVrElement *e = sart_inner_element(in, vr[i]);
		size_t count = e ? e->size : 1, at = e ? e->index : 0;
		const unsigned char **vals = calloc(count + 1, sizeof *vals);
		size_t *lens = calloc(count + 1, sizeof *lens);
		if (vals && lens)
			worst = worse(worst, bytes_get_raw(in, k, e ? &e->array : &vr[i], 1, vals, lens,
			                                   count));
		else
			worst = sart_inner_report(in, SART_ERROR, "%s: out of memory", bytes_fn(k, 0));
		if (worst <= SART_WARNING) {
			unsigned char *c = vals[at] ? bytes_copy(vals[at], lens[at]) : NULL;
			if (vals[at] && !c)
				worst = sart_inner_report(in, SART_ERROR, "%s: out of memory",
				                          bytes_fn(k, 0));
			f->held[f->nheld++] = c;
			v[i] = c;
			sizes[i] = lens[at];
		}
		free(vals);
		free(lens);
	}
	return worst;
}

/* The values to write to e's array: those this call gives its elements (from vr[from] on),
 * else the shadow's, else the FMU's own, read first.  vals[] point into v, the shadow or
 * the FMU's memory. */
static SartStatus bytes_array_values(SartInner *in, BytesKind k, const SartVrElement *e,
                                     const SartVr vr[], size_t from, size_t n,
                                     const unsigned char *const v[], const size_t sizes[],
                                     const unsigned char **vals, size_t *lens)
{
	unsigned char *given = calloc(e->size + 1, 1);
	if (!given)
		return sart_inner_report(in, SART_ERROR, "%s: out of memory", bytes_fn(k, 1));
	size_t ngiven = 0;
	for (size_t j = from; j < n; j++) {
		const SartVrElement *ej = sart_inner_element(in, vr[j]);
		if (!ej || ej->array != e->array || ej->index >= e->size)
			continue;
		vals[ej->index] = v[j];
		lens[ej->index] = k == BYTES_STRING && v[j] ? strlen((const char *)v[j]) : sizes[j];
		ngiven += !given[ej->index];
		given[ej->index] = 1;
	}
	BytesShadow *sh = byte_shadow_of(in, e);
	for (size_t x = 0; sh && ngiven < e->size && x < e->size; x++)
		if (!given[x] && sh->v[x]) {
			vals[x] = sh->v[x];
			lens[x] = sh->len[x];
			given[x] = 1;
			ngiven++;
		}
	SartStatus st = SART_OK;
	if (ngiven < e->size) {
		const unsigned char **now = calloc(e->size + 1, sizeof *now);
		size_t *nowlen = calloc(e->size + 1, sizeof *nowlen);
		st = now && nowlen ? bytes_get_raw(in, k, &e->array, 1, now, nowlen, e->size)
		                   : sart_inner_report(in, SART_ERROR, "%s: out of memory",
		                                       bytes_fn(k, 1));
		for (size_t x = 0; st <= SART_WARNING && x < e->size; x++)
			if (!given[x]) {
				vals[x] = now[x];
				lens[x] = nowlen[x];
			}
		free(now);
		free(nowlen);
	}
	free(given);
	return sh ? st : sart_inner_report(in, SART_ERROR, "%s: out of memory", bytes_fn(k, 1));
}

/* The shadow of e's array made what was just written. */
static SartStatus bytes_remember(SartInner *in, BytesKind k, const SartVrElement *e,
                                 const unsigned char *const *vals, const size_t *lens)
{
	BytesShadow *sh = byte_shadow_of(in, e);
	unsigned char **copies = calloc(e->size + 1, sizeof *copies);
	size_t x = 0;
	while (sh && copies && x < e->size &&
	       (copies[x] = bytes_copy(vals[x] ? vals[x] : (const unsigned char *)"", lens[x])))
		x++;
	if (!sh || !copies || x < e->size) {
		for (size_t y = 0; copies && y < x; y++)
			free(copies[y]);
		free(copies);
		return sart_inner_report(in, SART_ERROR, "%s: out of memory", bytes_fn(k, 1));
	}
	for (x = 0; x < e->size; x++) {
		free(sh->v[x]);
		sh->v[x] = copies[x];
		sh->len[x] = lens[x];
	}
	free(copies);
	return SART_OK;
}

/* A set naming array elements: each array written once, whole (bytes_array_values), the
 * scalars one by one. */
static SART_COLD SartStatus bytes_elements_set(SartInner *in, BytesKind k, const SartVr vr[],
                                               size_t n, const unsigned char *const v[],
                                               const size_t sizes[])
{
	SartStatus worst = SART_OK;
	SartVr *done = malloc(n * sizeof *done + 1); /* the arrays written */
	size_t ndone = 0;
	if (!done)
		return sart_inner_report(in, SART_ERROR, "%s: out of memory", bytes_fn(k, 1));
	for (size_t i = 0; i < n && worst <= SART_WARNING; i++) {
		const SartVrElement *e = sart_inner_element(in, vr[i]);
		if (!e) {
			worst = worse(worst, bytes_set_raw(in, k, &vr[i], 1, &v[i],
			                                   sizes ? &sizes[i] : NULL, 1));
			continue;
		}
		size_t d = 0;
		while (d < ndone && done[d] != e->array)
			d++;
		if (d < ndone)
			continue;
		done[ndone++] = e->array;
		const unsigned char **vals = calloc(e->size + 1, sizeof *vals);
		size_t *lens = calloc(e->size + 1, sizeof *lens);
		worst = vals && lens ? worse(worst, bytes_array_values(in, k, e, vr, i, n, v, sizes,
		                                                       vals, lens))
		                     : sart_inner_report(in, SART_ERROR, "%s: out of memory",
		                                         bytes_fn(k, 1));
		/* copied first: the values read from the FMU last only until the set */
		if (worst <= SART_WARNING)
			worst = worse(worst, bytes_remember(in, k, e, vals, lens));
		BytesShadow *sh = worst <= SART_WARNING ? byte_shadow_of(in, e) : NULL;
		if (sh)
			worst = worse(worst, bytes_set_raw(in, k, &e->array, 1,
			                                   (const unsigned char *const *)sh->v, sh->len,
			                                   e->size));
		free(vals);
		free(lens);
	}
	free(done);
	return worst;
}

SartStatus sart_inner_fmi3_get_string(SartInner *in, const SartVr vr[], size_t n, const char *v[])
{
	if (!any_element(in, vr, n))
		return bytes_get_raw(in, BYTES_STRING, vr, n, (const unsigned char **)v, NULL, n);
	size_t *sizes = malloc(n * sizeof *sizes + 1);
	SartStatus st = sizes ? bytes_elements_get(in, BYTES_STRING, vr, n,
	                                           (const unsigned char **)v, sizes)
	                      : sart_inner_report(in, SART_ERROR, "fmi3GetString: out of memory");
	free(sizes);
	return st;
}

SartStatus sart_inner_fmi3_set_string(SartInner *in, const SartVr vr[], size_t n,
                                  const char *const v[])
{
	if (!any_element(in, vr, n))
		return bytes_set_raw(in, BYTES_STRING, vr, n, (const unsigned char *const *)v, NULL,
		                     n);
	return bytes_elements_set(in, BYTES_STRING, vr, n, (const unsigned char *const *)v, NULL);
}

SartStatus sart_inner_fmi3_get_binary(SartInner *in, const SartVr vr[], size_t n,
                                  const unsigned char *v[], size_t sizes[])
{
	if (!any_element(in, vr, n))
		return bytes_get_raw(in, BYTES_BINARY, vr, n, v, sizes, n);
	return bytes_elements_get(in, BYTES_BINARY, vr, n, v, sizes);
}

SartStatus sart_inner_fmi3_set_binary(SartInner *in, const SartVr vr[], size_t n,
                                  const unsigned char *const v[], const size_t sizes[])
{
	if (!any_element(in, vr, n))
		return bytes_set_raw(in, BYTES_BINARY, vr, n, v, sizes, n);
	return bytes_elements_set(in, BYTES_BINARY, vr, n, v, sizes);
}

void sart_inner_fmi3_free_bytes(Fmi3Inner *f)
{
	for (size_t i = 0; i < f->nbyte_shadows; i++) {
		for (size_t j = 0; j < f->byte_shadows[i].size; j++)
			free(f->byte_shadows[i].v[j]);
		free(f->byte_shadows[i].v);
		free(f->byte_shadows[i].len);
	}
	for (size_t i = 0; i < f->nheld; i++)
		free(f->held[i]);
	free(f->byte_shadows);
	free(f->held);
}
