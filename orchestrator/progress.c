/* progress.c — when and what `sacc simulate` draws as its progress line (progress.h). */
#include "progress.h"

#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

bool prog_due(bool tty, double elapsed, double last_draw)
{
	if (!tty || elapsed < PROG_DELAY)
		return false;
	return last_draw < 0 || elapsed - last_draw >= PROG_PERIOD;
}

/* The bar for frac, then tail, into buf: at most width - 1 columns. */
static void put_line(char *buf, size_t size, int width, double frac, const char *tail)
{
	/* 30 cells, fewer (not under 10) when the text leaves less: a bar whose length
	 * followed the text's would jiggle */
	int bar = width - 1 - (int)strlen(tail) - 2;
	if (bar > 30)
		bar = 30;
	char line[256];
	size_t k = 0;
	if (bar >= 10) {
		int full = (int)(frac * bar + 0.5);
		line[k++] = '[';
		for (int i = 0; i < bar; i++)
			line[k++] = i < full ? '#' : '-';
		line[k++] = ']';
	}
	line[k] = '\0';
	snprintf(line + k, sizeof line - k, "%s", bar >= 10 ? tail : tail + 2);
	size_t max = (size_t)width - 1 < size - 1 ? (size_t)width - 1 : size - 1;
	size_t len = strlen(line);
	if (len > max)
		len = max;
	memcpy(buf, line, len);
	buf[len] = '\0';
}

void prog_format(char *buf, size_t size, int width, double t, double start, double stop,
                 long steps, double elapsed)
{
	if (size == 0)
		return;
	if (width < 20)
		width = 20;
	double frac = stop > start ? (t - start) / (stop - start) : 1.0;
	if (!(frac >= 0))
		frac = 0;
	if (frac > 1)
		frac = 1;
	char tail[160];
	int n = snprintf(tail, sizeof tail, "  %5.1f%%  t = %.6g  %ld steps", 100 * frac, t, steps);
	if (elapsed > 0 && n > 0 && (size_t)n < sizeof tail)
		snprintf(tail + n, sizeof tail - (size_t)n, "  %.3g steps/s", (double)steps / elapsed);
	put_line(buf, size, width, frac, tail);
}

void prog_format_runs(char *buf, size_t size, int width, long done, long failed, long total,
                      double elapsed)
{
	if (size == 0)
		return;
	if (width < 20)
		width = 20;
	double frac = total > 0 ? (double)done / (double)total : 1.0;
	char tail[160];
	int n = snprintf(tail, sizeof tail, "  %ld/%ld runs", done, total);
	if (failed > 0 && n > 0 && (size_t)n < sizeof tail)
		n += snprintf(tail + n, sizeof tail - (size_t)n, "  %ld failed", failed);
	if (elapsed > 0 && n > 0 && (size_t)n < sizeof tail)
		snprintf(tail + n, sizeof tail - (size_t)n, "  %.3g runs/s", (double)done / elapsed);
	put_line(buf, size, width, frac, tail);
}

double prog_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int prog_width(void)
{
	struct winsize ws;
	return ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
}

void prog_show(const char *line)
{
	fprintf(stderr, "\r%s\033[K", line);
	fflush(stderr);
}
