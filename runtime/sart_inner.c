/* sart_inner.c — the version-independent front of the inner-FMU seam (sart_inner.h).
 *
 * It loads the library, picks the back end for the FMI version, checks what every call
 * shares (an instance, created, not after a fatal status) and forwards to the back end's
 * ops table; it formats and delivers every message.  The file: URI helpers live here too,
 * since loading is where paths and URIs meet. */
#include "sart_inner_backend.h"
#include "sart_platform.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The back ends, by FMI version.  A new version is one more line. */
static const struct {
	SartFmiVersion version;
	const SartInnerOps *ops;
} backends[] = {
	{SART_FMI2, &sart_inner_fmi2_ops},
	{SART_FMI3, &sart_inner_fmi3_ops},
};

/* ---- messages --------------------------------------------------------------------------- */

static const char *status_category(SartStatus st)
{
	switch (st) {
	case SART_WARNING: return "logStatusWarning";
	case SART_DISCARD: return "logStatusDiscard";
	case SART_ERROR:
	case SART_FATAL: return "logStatusError";
	case SART_OK: break;
	}
	return "logAll";
}

/* Writes "[name] " and then fmt into buf (SART_MESSAGE_MAX bytes); a cut message ends in
 * "...", so a reader knows. */
static void format_prefixed(char *buf, const char *name, const char *fmt, va_list ap)
{
	int n = snprintf(buf, SART_MESSAGE_MAX, "[%s] ", name);
	if (n < 0) {
		buf[0] = '\0';
		return;
	}
	if ((size_t)n < SART_MESSAGE_MAX) {
		int m = vsnprintf(buf + n, SART_MESSAGE_MAX - (size_t)n, fmt, ap);
		if (m < 0)
			buf[n] = '\0';
		else
			n += m;
	}
	if ((size_t)n >= SART_MESSAGE_MAX)
		memcpy(buf + SART_MESSAGE_MAX - 4, "...", 4);
}

/* The direct route may no longer be called (the back end's flag, when it has a route). */
static void close_direct(SartInner *in)
{
	if (in->impl && in->ops && in->ops->close_direct)
		in->ops->close_direct(in);
}

/* A fatal outcome: no further calls into the FMU, by the seam or the direct route. */
static void mark_fatal(SartInner *in)
{
	in->fatal = 1;
	in->callable = 0;
	close_direct(in);
}

SartStatus sart_inner_report(SartInner *in, SartStatus st, const char *fmt, ...)
{
	va_list ap;
	if (st == SART_FATAL) {
		mark_fatal(in);
		if (in->fatal_as_error)
			st = SART_ERROR;
	}
	va_start(ap, fmt);
	format_prefixed(in->message, in->name, fmt, ap);
	va_end(ap);
	if (in->logger)
		in->logger(in->logger_env, st, status_category(st), in->message);
	return st;
}

static void format_text(char *buf, const char *name, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	format_prefixed(buf, name, fmt, ap);
	va_end(ap);
}

void sart_inner_forward(SartInner *in, SartStatus st, const char *category, const char *text)
{
	char buf[SART_MESSAGE_MAX];
	if (!in->logger)
		return;
	format_text(buf, in->name, "%s", text ? text : "(no message)");
	in->logger(in->logger_env, st, category ? category : "", buf);
}

/* ---- loading ---------------------------------------------------------------------------- */

/* The concatenation of the NULL-terminated list of strings, malloc'd. */
static char *concat(const char *first, ...)
{
	va_list ap;
	size_t len = 0;
	const char *s;
	va_start(ap, first);
	for (s = first; s; s = va_arg(ap, const char *))
		len += strlen(s);
	va_end(ap);
	char *out = malloc(len + 1);
	if (!out)
		return NULL;
	char *p = out;
	va_start(ap, first);
	for (s = first; s; s = va_arg(ap, const char *)) {
		size_t n = strlen(s);
		memcpy(p, s, n);
		p += n;
	}
	va_end(ap);
	*p = '\0';
	return out;
}

static int cmp_vr_type(const void *a, const void *b)
{
	const SartVrType *x = a, *y = b;
	return x->vr < y->vr ? -1 : x->vr > y->vr;
}

/* The config's value types, sorted for lookup (the names stay the caller's). */
static int copy_vr_types(SartInner *in, const SartInnerConfig *cfg)
{
	if (!cfg->vr_types || cfg->nvr_types == 0)
		return 0;
	in->vr_types = malloc(cfg->nvr_types * sizeof *in->vr_types);
	if (!in->vr_types)
		return 1;
	memcpy(in->vr_types, cfg->vr_types, cfg->nvr_types * sizeof *in->vr_types);
	in->nvr_types = cfg->nvr_types;
	qsort(in->vr_types, in->nvr_types, sizeof *in->vr_types, cmp_vr_type);
	return 0;
}

static int cmp_element(const void *a, const void *b)
{
	const SartVrElement *x = a, *y = b;
	return x->vr < y->vr ? -1 : x->vr > y->vr;
}

/* The config's array elements, sorted for lookup. */
static int copy_elements(SartInner *in, const SartInnerConfig *cfg)
{
	if (!cfg->elements || cfg->nelements == 0)
		return 0;
	/* the String and Binary start values live in the same block, after the table */
	size_t table = cfg->nelements * sizeof *in->elements, bytes = 0;
	for (size_t i = 0; i < cfg->nelements; i++)
		if (cfg->elements[i].start_data)
			bytes += cfg->elements[i].start_size;
	in->elements = malloc(table + bytes + 1);
	if (!in->elements)
		return 1;
	memcpy(in->elements, cfg->elements, table);
	unsigned char *data = (unsigned char *)in->elements + table;
	for (size_t i = 0; i < cfg->nelements; i++) {
		SartVrElement *e = &in->elements[i];
		if (!e->start_data)
			continue;
		memcpy(data, e->start_data, e->start_size);
		e->start_data = data;
		data += e->start_size;
	}
	in->nelements = cfg->nelements;
	qsort(in->elements, in->nelements, sizeof *in->elements, cmp_element);
	return 0;
}

int sart_vr_cmp(const void *a, const void *b)
{
	SartVr x = *(const SartVr *)a, y = *(const SartVr *)b;
	return (x > y) - (x < y);
}

SartStatus sart_inner_set_intermediate_inputs(SartInner *in, const SartVr vr[], size_t n)
{
	SartVr *copy = NULL;
	if (!in)
		return SART_ERROR;
	if (in->instantiated)
		return sart_inner_report(in, SART_ERROR, "sart_inner_set_intermediate_inputs: the "
		                         "instance exists already");
	if (n > 0) {
		if (!vr)
			return sart_inner_report(in, SART_ERROR, "sart_inner_set_intermediate_inputs: "
			                         "no value references");
		copy = malloc(n * sizeof *copy);
		if (!copy)
			return sart_inner_report(in, SART_ERROR, "sart_inner_set_intermediate_inputs: "
			                         "out of memory");
		memcpy(copy, vr, n * sizeof *copy);
		qsort(copy, n, sizeof *copy, sart_vr_cmp);
	}
	free(in->intermediate_inputs);
	in->intermediate_inputs = copy;
	in->nintermediate_inputs = n;
	return SART_OK;
}

const SartVrElement *sart_inner_element(const SartInner *in, SartVr vr)
{
	size_t lo = 0, hi = in->nelements;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (in->elements[mid].vr < vr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < in->nelements && in->elements[lo].vr == vr ? &in->elements[lo] : NULL;
}

SartValueType sart_inner_vr_type(const SartInner *in, SartVr vr, SartValueType dflt,
                                 const char **name)
{
	size_t lo = 0, hi = in->nvr_types;
	if (name)
		*name = NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (in->vr_types[mid].vr < vr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < in->nvr_types && in->vr_types[lo].vr == vr) {
		if (name)
			*name = in->vr_types[lo].name;
		return in->vr_types[lo].type;
	}
	return dflt;
}

SartStatus sart_inner_load(const SartInnerConfig *cfg, SartInner **out)
{
	SartStatus st = SART_ERROR;
	SartInner *in = NULL;
	char *dir = NULL;
	if (out)
		*out = NULL;
	if (!cfg || !out)
		return SART_ERROR;
	in = calloc(1, sizeof *in);
	if (!in)
		return SART_ERROR;
	in->logger = cfg->logger;
	in->logger_env = cfg->logger_env;
	in->caps = cfg->caps;
	if (copy_vr_types(in, cfg) || copy_elements(in, cfg))
		goto done;
	in->name = concat(cfg->name && cfg->name[0] ? cfg->name : "?", (const char *)NULL);
	if (!in->name)
		goto done; /* no name to report under; out of memory anyway */

	for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++)
		if (backends[i].version == cfg->version)
			in->ops = backends[i].ops;
	if (!in->ops) {
		sart_inner_report(in, SART_ERROR, "cannot load %s: FMI version %d is not supported",
		                  cfg->dir ? cfg->dir : "(no directory)", (int)cfg->version);
		goto done;
	}
	const char *id = cfg->model_identifier;
	if (!id || !id[0] || strchr(id, '/')) {
		sart_inner_report(in, SART_ERROR, "cannot load %s: invalid model identifier '%s'",
		                  cfg->dir ? cfg->dir : "(no directory)", id ? id : "(null)");
		goto done;
	}
	if (!cfg->dir || !cfg->dir[0]) {
		sart_inner_report(in, SART_ERROR, "cannot load %s: no FMU directory given", id);
		goto done;
	}
	dir = sart_absolute_path(cfg->dir);
	if (!dir) {
		sart_inner_report(in, SART_ERROR, "cannot load FMU directory %s: %s", cfg->dir,
		                  strerror(errno));
		goto done;
	}
	in->lib_path = concat(dir, "/binaries/", in->ops->platform, "/", id, SART_LIB_SUFFIX,
	                      (const char *)NULL);
	in->resource_dir = concat(dir, "/resources", (const char *)NULL);
	if (!in->lib_path || !in->resource_dir) {
		sart_inner_report(in, SART_ERROR, "cannot load %s: out of memory", cfg->dir);
		goto done;
	}
	char why[300];
	in->lib = sart_lib_open(in->lib_path, why, sizeof why);
	if (!in->lib) {
		sart_inner_report(in, SART_ERROR, "cannot load %s: %s", in->lib_path, why);
		goto done;
	}
	st = in->ops->bind(in);
	if (st != SART_OK)
		goto done;
	/* a Model Exchange inner: the layer goes in front of the back end (sart_inner_me.c) */
	if (in->caps & SART_CAP_MODEL_EXCHANGE) {
		st = sart_inner_me_attach(in, &cfg->me);
		if (st != SART_OK)
			goto done;
	}
	/* clocks: their layer in front of the Co-Simulation back end or the Model Exchange
	 * layer (sart_inner_se.c) */
	if (in->caps & (SART_CAP_SCHEDULED_EXECUTION | SART_CAP_CLOCKS)) {
		st = sart_inner_se_attach(in, &cfg->se);
		if (st != SART_OK)
			goto done;
	}
	in->message[0] = '\0';
	*out = in;
	in = NULL;
done:
	free(dir);
	sart_inner_free(in);
	return st;
}

void sart_inner_free(SartInner *in)
{
	if (!in)
		return;
	if (in->instantiated && !in->fatal)
		in->ops->free_instance(in);
	if (in->impl)
		in->ops->unbind(in);
	if (in->lib)
		sart_lib_close(in->lib);
	free(in->name);
	free(in->lib_path);
	free(in->resource_dir);
	free(in->vr_types);
	free(in->elements);
	free(in->intermediate_inputs);
	free(in);
}

const SartInnerDirect *sart_inner_direct(const SartInner *in)
{
	return in->direct;
}

SartStatus sart_inner_direct_status(SartInner *in, SartDirectCall call, int status, double t,
                                    double h, double *reached)
{
	double where;
	if (status == 0) {
		if (call == SART_DIRECT_DO_STEP && reached)
			*reached = t + h;
		return SART_OK;
	}
	if (!in->ops->direct_status)
		return sart_inner_report(in, SART_ERROR, "no direct route for FMI %s",
		                         in->ops->fmi_version);
	return in->ops->direct_status(in, call, status, t, h, reached ? reached : &where);
}

const char *sart_inner_get_real_name(const SartInner *in)
{
	return in && in->ops && in->ops->get_real_name ? in->ops->get_real_name : "the Real getter";
}

const char *sart_inner_name(const SartInner *in)
{
	return in ? in->name : "?";
}

const char *sart_inner_message(const SartInner *in)
{
	return in ? in->message : "";
}

/* ---- calls ------------------------------------------------------------------------------ */

/* Whether fn may call into the FMU now; reports why not.  NULL instances cannot report. */
static int usable(SartInner *in, const char *fn)
{
	if (!in)
		return 0;
	if (in->fatal) {
		sart_inner_report(in, SART_FATAL, "%s: an earlier call was fatal; the FMU may not be "
		                  "called again", fn);
		return 0;
	}
	if (!in->instantiated) {
		sart_inner_report(in, SART_ERROR, "%s: the FMU is not instantiated", fn);
		return 0;
	}
	return 1;
}

#define REFUSED(in) ((in) && (in)->fatal && !(in)->fatal_as_error ? SART_FATAL : SART_ERROR)

/* Every call's result passes here, so a fatal one is remembered. */
static SartStatus noted(SartInner *in, SartStatus st)
{
	if (st == SART_FATAL) {
		mark_fatal(in);
		if (in->fatal_as_error)
			st = SART_ERROR;
	}
	return st;
}

/* The hot calls (values and steps) test only in->callable and then jump straight to the
 * back end, which notes a fatal status through sart_inner_report; this is their way out
 * when the test fails: usable() reports why, and the status is what the others return. */
static SART_COLD SartStatus refused(SartInner *in, const char *fn)
{
	usable(in, fn);
	return REFUSED(in);
}


SartStatus sart_inner_instantiate(SartInner *in, const char *guid, int logging_on)
{
	if (!in)
		return SART_ERROR;
	if (in->instantiated)
		return sart_inner_report(in, SART_ERROR, "sart_inner_instantiate: already instantiated");
	if (in->fatal)
		return REFUSED(in);
	SartStatus st = noted(in, in->ops->instantiate(in, guid ? guid : "", logging_on));
	if (st == SART_OK || st == SART_WARNING) {
		in->instantiated = 1;
		in->callable = !in->fatal;
	}
	if (!in->callable)
		close_direct(in);
	return st;
}

SartStatus sart_inner_enter_init(SartInner *in, const SartExperiment *ex)
{
	if (!usable(in, "sart_inner_enter_init"))
		return REFUSED(in);
	if (!ex)
		return sart_inner_report(in, SART_ERROR, "sart_inner_enter_init: no experiment given");
	return noted(in, in->ops->enter_init(in, ex));
}

SartStatus sart_inner_exit_init(SartInner *in)
{
	if (!usable(in, "sart_inner_exit_init"))
		return REFUSED(in);
	return noted(in, in->ops->exit_init(in));
}

SartStatus sart_inner_get_real(SartInner *in, const SartVr vr[], size_t n, double v[])
{
	if (in && in->callable)
		return in->ops->get_real(in, vr, n, v);
	return refused(in, "sart_inner_get_real");
}

SartStatus sart_inner_get_integer(SartInner *in, const SartVr vr[], size_t n, int v[])
{
	if (in && in->callable)
		return in->ops->get_integer(in, vr, n, v);
	return refused(in, "sart_inner_get_integer");
}

SartStatus sart_inner_get_boolean(SartInner *in, const SartVr vr[], size_t n, int v[])
{
	if (in && in->callable)
		return in->ops->get_boolean(in, vr, n, v);
	return refused(in, "sart_inner_get_boolean");
}

SartStatus sart_inner_get_string(SartInner *in, const SartVr vr[], size_t n, const char *v[])
{
	if (!usable(in, "sart_inner_get_string"))
		return REFUSED(in);
	return noted(in, in->ops->get_string(in, vr, n, v));
}

SartStatus sart_inner_set_real(SartInner *in, const SartVr vr[], size_t n, const double v[])
{
	if (in && in->callable)
		return in->ops->set_real(in, vr, n, v);
	return refused(in, "sart_inner_set_real");
}

SartStatus sart_inner_set_integer(SartInner *in, const SartVr vr[], size_t n, const int v[])
{
	if (in && in->callable)
		return in->ops->set_integer(in, vr, n, v);
	return refused(in, "sart_inner_set_integer");
}

SartStatus sart_inner_set_boolean(SartInner *in, const SartVr vr[], size_t n, const int v[])
{
	if (in && in->callable)
		return in->ops->set_boolean(in, vr, n, v);
	return refused(in, "sart_inner_set_boolean");
}

SartStatus sart_inner_set_string(SartInner *in, const SartVr vr[], size_t n,
                                 const char *const v[])
{
	if (!usable(in, "sart_inner_set_string"))
		return REFUSED(in);
	return noted(in, in->ops->set_string(in, vr, n, v));
}

SartStatus sart_inner_get_binary(SartInner *in, const SartVr vr[], size_t n,
                                 const unsigned char *v[], size_t sizes[])
{
	if (!usable(in, "sart_inner_get_binary"))
		return REFUSED(in);
	if (!in->ops->get_binary)
		return sart_inner_report(in, SART_ERROR, "getBinary: FMI %s has no Binary values",
		                         in->ops->fmi_version);
	return noted(in, in->ops->get_binary(in, vr, n, v, sizes));
}

SartStatus sart_inner_set_binary(SartInner *in, const SartVr vr[], size_t n,
                                 const unsigned char *const v[], const size_t sizes[])
{
	if (!usable(in, "sart_inner_set_binary"))
		return REFUSED(in);
	if (!in->ops->set_binary)
		return sart_inner_report(in, SART_ERROR, "setBinary: FMI %s has no Binary values",
		                         in->ops->fmi_version);
	return noted(in, in->ops->set_binary(in, vr, n, v, sizes));
}

SartStatus sart_inner_set_real_input_derivatives(SartInner *in, const SartVr vr[], size_t n,
                                                 const int order[], const double value[])
{
	if (!usable(in, "sart_inner_set_real_input_derivatives"))
		return REFUSED(in);
	return noted(in, in->ops->set_real_input_derivatives(in, vr, n, order, value));
}

SartStatus sart_inner_get_real_output_derivatives(SartInner *in, const SartVr vr[], size_t n,
                                                  const int order[], double value[])
{
	if (!usable(in, "sart_inner_get_real_output_derivatives"))
		return REFUSED(in);
	return noted(in, in->ops->get_real_output_derivatives(in, vr, n, order, value));
}

/* sart_inner_do_step when the FMU may not be called or reached is NULL. */
static SART_COLD SartStatus do_step_other(SartInner *in, double t, double h,
                                          int no_set_state_prior, double *reached)
{
	double where = NAN;
	SartStatus st = REFUSED(in);
	if (usable(in, "sart_inner_do_step"))
		st = in->ops->do_step(in, t, h, no_set_state_prior, &where);
	if (reached)
		*reached = where;
	return st;
}

SartStatus sart_inner_do_step(SartInner *in, double t, double h, int no_set_state_prior,
                              double *reached)
{
	if (in && in->callable && reached)
		return in->ops->do_step(in, t, h, no_set_state_prior, reached);
	return do_step_other(in, t, h, no_set_state_prior, reached);
}

SartStatus sart_inner_get_state(SartInner *in, void **state)
{
	if (!usable(in, "sart_inner_get_state"))
		return REFUSED(in);
	if (!state)
		return sart_inner_report(in, SART_ERROR, "sart_inner_get_state: state is NULL");
	return noted(in, in->ops->get_state(in, state));
}

SartStatus sart_inner_set_state(SartInner *in, void *state)
{
	if (!usable(in, "sart_inner_set_state"))
		return REFUSED(in);
	return noted(in, in->ops->set_state(in, state));
}

SartStatus sart_inner_free_state(SartInner *in, void **state)
{
	if (!usable(in, "sart_inner_free_state"))
		return REFUSED(in);
	if (!state || !*state)
		return SART_OK;
	return noted(in, in->ops->free_state(in, state));
}

SartStatus sart_inner_serialized_size(SartInner *in, void *state, size_t *size)
{
	if (!usable(in, "sart_inner_serialized_size"))
		return REFUSED(in);
	if (!size)
		return sart_inner_report(in, SART_ERROR, "sart_inner_serialized_size: size is NULL");
	return noted(in, in->ops->serialized_size(in, state, size));
}

SartStatus sart_inner_serialize(SartInner *in, void *state, unsigned char *buf, size_t size)
{
	if (!usable(in, "sart_inner_serialize"))
		return REFUSED(in);
	return noted(in, in->ops->serialize(in, state, buf, size));
}

SartStatus sart_inner_deserialize(SartInner *in, const unsigned char *buf, size_t size,
                                  void **state)
{
	if (!usable(in, "sart_inner_deserialize"))
		return REFUSED(in);
	if (!state)
		return sart_inner_report(in, SART_ERROR, "sart_inner_deserialize: state is NULL");
	return noted(in, in->ops->deserialize(in, buf, size, state));
}

SartStatus sart_inner_terminate(SartInner *in)
{
	if (!usable(in, "sart_inner_terminate"))
		return REFUSED(in);
	return noted(in, in->ops->terminate(in));
}

SartStatus sart_inner_reset(SartInner *in)
{
	if (!usable(in, "sart_inner_reset"))
		return REFUSED(in);
	return noted(in, in->ops->reset(in));
}

/* ---- file: URIs ------------------------------------------------------------------------- */

static void set_err(char *err, size_t errsize, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
	__attribute__((format(SART_PRINTF_ARCHETYPE, 3, 4)))
#endif
	;

static void set_err(char *err, size_t errsize, const char *fmt, ...)
{
	va_list ap;
	if (!err || !errsize)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errsize, fmt, ap);
	va_end(ap);
}

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* Whether the n bytes at s are word, ignoring ASCII case. */
static int same_word(const char *s, size_t n, const char *word)
{
	size_t i;
	for (i = 0; i < n && word[i]; i++)
		if (lower((unsigned char)s[i]) != word[i])
			return 0;
	return i == n && !word[i];
}

static int hex_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = lower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

char *sart_uri_to_path(const char *uri, char *err, size_t errsize)
{
	if (!uri) {
		set_err(err, errsize, "no URI given");
		return NULL;
	}
	if (!same_word(uri, 5, "file:")) {
		set_err(err, errsize, "'%s' is not a file: URI", uri);
		return NULL;
	}
	const char *p = uri + 5;
	if (p[0] == '/' && p[1] == '/') {
		const char *host = p + 2;
		const char *slash = strchr(host, '/');
		size_t hostlen = slash ? (size_t)(slash - host) : strlen(host);
		if (hostlen && !same_word(host, hostlen, "localhost")) {
			set_err(err, errsize, "'%s' names host '%.*s': only local files can be opened",
			        uri, (int)hostlen, host);
			return NULL;
		}
		if (!slash) {
			set_err(err, errsize, "'%s' has no path", uri);
			return NULL;
		}
		p = slash;
	} else if (p[0] != '/') {
		set_err(err, errsize, "'%s' is not an absolute file: URI", uri);
		return NULL;
	}
	char *path = malloc(strlen(p) + 1);
	if (!path) {
		set_err(err, errsize, "out of memory");
		return NULL;
	}
	char *q = path;
	for (; *p; p++) {
		if (*p != '%') {
			*q++ = *p;
			continue;
		}
		int hi = hex_value((unsigned char)p[1]);
		int lo = hi < 0 ? -1 : hex_value((unsigned char)p[2]);
		if (lo < 0) {
			set_err(err, errsize, "'%s' has a bad percent-escape at '%.3s'", uri, p);
			free(path);
			return NULL;
		}
		if (hi == 0 && lo == 0) {
			set_err(err, errsize, "'%s' contains %%00", uri);
			free(path);
			return NULL;
		}
		*q++ = (char)(hi * 16 + lo);
		p += 2;
	}
	*q = '\0';
	size_t skip = sart_uri_path_skip(path); /* file:///C:/dir is C:/dir on Windows */
	if (skip)
		memmove(path, path + skip, strlen(path + skip) + 1);
	return path;
}

/* RFC 3986 unreserved characters, which a URI path may carry as they are. */
static int unreserved(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.' || c == '_' || c == '~';
}

char *sart_path_to_uri(const char *path, char *err, size_t errsize)
{
	static const char hex[] = "0123456789ABCDEF";
	if (!sart_path_is_absolute(path)) {
		set_err(err, errsize, "'%s' is not an absolute path", path ? path : "(null)");
		return NULL;
	}
	size_t len = strlen(path);
	char *uri = malloc(sizeof "file:///" - 1 + 3 * len + 1);
	if (!uri) {
		set_err(err, errsize, "out of memory");
		return NULL;
	}
	/* A Windows path starts with its drive, C:/dir or C:\dir: file:///C:/dir, the drive's
	 * colon kept as it is (what importers there write and expect) */
	int drive = path[0] != '/';
	memcpy(uri, drive ? "file:///" : "file://", drive ? 8 : 7);
	char *q = uri + (drive ? 8 : 7);
	if (drive) {
		*q++ = path[0];
		*q++ = ':';
		path += 2;
	}
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (unreserved(*p) || *p == '/' || (drive && *p == '\\')) {
			*q++ = *p == '\\' ? '/' : (char)*p;
		} else {
			*q++ = '%';
			*q++ = hex[*p >> 4];
			*q++ = hex[*p & 15];
		}
	}
	*q = '\0';
	return uri;
}
