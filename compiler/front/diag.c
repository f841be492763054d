/* diag.c — the diagnostics sink (see diag.h). */
#include "diag.h"

#include <stdlib.h>
#include <string.h>

typedef struct Source {
	const char *file;
	const char *text;
	size_t len;
} Source;

struct DiagSink {
	FILE *out;
	Source *src;
	int nsrc, capsrc;
	int errors, warnings;
	int muted; /* set while the notes of a suppressed error would follow */
	const char *prog; /* the prefix of messages without a place: "sacc", "sacc check" */
	DiagListener *listener;
	void *listener_data;
};

DiagSink *diag_new(FILE *out)
{
	DiagSink *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	d->out = out;
	return d;
}

void diag_set_prog(DiagSink *d, const char *prog)
{
	if (d)
		d->prog = prog;
}

void diag_set_listener(DiagSink *d, DiagListener *fn, void *user)
{
	if (d) {
		d->listener = fn;
		d->listener_data = user;
	}
}

/* The message as text, for the listener. */
static void tell_listener(DiagSink *d, DiagLevel level, Loc loc, const char *fmt, va_list ap)
{
	char small[256];
	va_list copy;
	va_copy(copy, ap);
	int n = vsnprintf(small, sizeof small, fmt, copy);
	va_end(copy);
	if (n < 0)
		return;
	if ((size_t)n < sizeof small) {
		d->listener(d->listener_data, level, loc, small);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (!big)
		return;
	va_copy(copy, ap);
	vsnprintf(big, (size_t)n + 1, fmt, copy);
	va_end(copy);
	d->listener(d->listener_data, level, loc, big);
	free(big);
}

static const char *diag_prog(const DiagSink *d)
{
	return d->prog ? d->prog : "sacc";
}

void diag_free(DiagSink *d)
{
	if (!d)
		return;
	free(d->src);
	free(d);
}

void diag_add_source(DiagSink *d, const char *file, const char *text, size_t len)
{
	if (!d)
		return;
	if (d->nsrc == d->capsrc) {
		int cap = d->capsrc ? 2 * d->capsrc : 8;
		Source *s = realloc(d->src, (size_t)cap * sizeof *s);
		if (!s)
			return;
		d->src = s;
		d->capsrc = cap;
	}
	d->src[d->nsrc++] = (Source){file, text, len};
}

static const Source *find_source(const DiagSink *d, const char *file)
{
	if (!file)
		return NULL;
	for (int i = d->nsrc - 1; i >= 0; i--)
		if (d->src[i].file == file || strcmp(d->src[i].file, file) == 0)
			return &d->src[i];
	return NULL;
}

/* Prints the source line of loc with a caret and underline beneath the column. */
static void quote_line(const DiagSink *d, Loc loc)
{
	const Source *s = find_source(d, loc.file);
	if (!s || loc.line <= 0)
		return;
	const char *p = s->text, *end = s->text + s->len;
	for (int line = 1; line < loc.line && p < end; p++)
		if (*p == '\n')
			line++;
	if (p >= end && loc.line > 1)
		return;
	const char *eol = p;
	while (eol < end && *eol != '\n')
		eol++;
	int width = fprintf(d->out, " %5d | ", loc.line) - 2;
	/* Control bytes would garble a terminal: show them as '?'. */
	for (const char *q = p; q < eol; q++)
		fputc(((unsigned char)*q < 0x20 && *q != '\t') || *q == 0x7f ? '?' : *q, d->out);
	fputc('\n', d->out);
	fprintf(d->out, "%*s| ", width, "");
	int col = loc.col > 0 ? loc.col : 1;
	for (int i = 1; i < col && p + i - 1 < eol; i++)
		fputc(p[i - 1] == '\t' ? '\t' : ' ', d->out);
	fputc('^', d->out);
	for (int i = 1; i < loc.len; i++)
		fputc('~', d->out);
	fputc('\n', d->out);
}

void diag_vreport(DiagSink *d, DiagLevel level, Loc loc, const char *fmt, va_list ap)
{
	static const char *names[] = {"error", "warning", "note"};
	if (!d)
		return;
	if (level == DIAG_ERROR) {
		d->errors++;
		d->muted = d->errors > DIAG_MAX_ERRORS;
		if (d->errors == DIAG_MAX_ERRORS + 1 && d->out)
			fprintf(d->out, "%s: too many errors, stopping output here\n", diag_prog(d));
	} else if (level == DIAG_WARNING) {
		d->warnings++;
		d->muted = d->errors > DIAG_MAX_ERRORS;
	}
	if (d->muted)
		return;
	if (d->listener)
		tell_listener(d, level, loc, fmt, ap);
	if (!d->out)
		return;
	if (loc.file && loc.line > 0)
		fprintf(d->out, "%s:%d:%d: %s: ", loc.file, loc.line, loc.col > 0 ? loc.col : 1,
			names[level]);
	else if (loc.file)
		fprintf(d->out, "%s: %s: ", loc.file, names[level]);
	else
		fprintf(d->out, "%s: %s: ", diag_prog(d), names[level]);
	vfprintf(d->out, fmt, ap);
	fputc('\n', d->out);
	quote_line(d, loc);
}

#define DEFINE_REPORT(fn, level)                                   \
	void fn(DiagSink *d, Loc loc, const char *fmt, ...)        \
	{                                                          \
		va_list ap;                                        \
		va_start(ap, fmt);                                 \
		diag_vreport(d, level, loc, fmt, ap);              \
		va_end(ap);                                        \
	}
DEFINE_REPORT(diag_error, DIAG_ERROR)
DEFINE_REPORT(diag_warning, DIAG_WARNING)
DEFINE_REPORT(diag_note, DIAG_NOTE)

int diag_errors(const DiagSink *d) { return d ? d->errors : 0; }
int diag_warnings(const DiagSink *d) { return d ? d->warnings : 0; }
