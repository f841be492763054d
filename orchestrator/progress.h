/* progress.h — the progress line of `sacc simulate` (simulate_cli.c draws it on standard
 * error) and of `sacc ensemble`.  The decision and the text are here, apart from the
 * terminal, so that the unit tests can check them: the line appears only on a terminal,
 * only once the run has lasted PROG_DELAY seconds (short runs never flicker), and is
 * redrawn at most once per PROG_PERIOD seconds (drawing costs more than a cheap step). */
#ifndef SACC_PROGRESS_H
#define SACC_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

#define PROG_DELAY 1.0
#define PROG_PERIOD 0.1

/* Whether to draw now: tty (standard error is a terminal), elapsed the wall seconds since
 * the run began, last_draw the elapsed time of the last draw (negative: never drawn). */
bool prog_due(bool tty, double elapsed, double last_draw);

/* The line, at most width - 1 columns (width < 20 counts as 20) and size - 1 bytes:
 *   "[#############-----------------]   42.0%  t = 4.2  1234 steps  5678 steps/s"
 * the bar 30 cells, fewer on a narrow terminal, none under 10;
 * the percent of [start, stop] reached at t (100 when stop <= start), the steps accepted
 * and their rate over elapsed seconds (left out while elapsed is 0). */
void prog_format(char *buf, size_t size, int width, double t, double start, double stop,
                 long steps, double elapsed);

/* The same bar for an ensemble (`sacc ensemble`), done runs of total:
 *   "[#########---------------------]  12/40 runs  1 failed  3.2 runs/s"
 * (the failures left out while none, the rate while elapsed is 0). */
void prog_format_runs(char *buf, size_t size, int width, long done, long failed, long total,
                      double elapsed);

/* The terminal's side: a monotonic clock in seconds, standard error's width in columns (80
 * when it is not a terminal or does not say), and line drawn over the previous one. */
double prog_now(void);
int prog_width(void);
void prog_show(const char *line);

#endif
