/* plot.h — `sacc plot RESULT.csv... -o FILE.png|svg [--vars a,b,...]... [--labels ...]
 * [--diff VARS|all] [--mark T[:LABEL]]... [--xrange T0:T1] [--title T]`: the recorded
 * variables of one or more results against time, a panel per unit (or per --vars group)
 * on one time axis, drawn by gnuplot (Debian's gnuplot-nox), which sacc runs with the data
 * and the script on its standard input. */
#ifndef SACC_PLOT_H
#define SACC_PLOT_H

#include <stdio.h>

/* Runs `sacc plot` with the arguments after the command name.  Returns the exit status:
 * 0 success, 1 an unreadable or malformed CSV, files that do not match (a variable one
 * lacks, a unit two disagree on, no common time for a difference), gnuplot missing or
 * failing, 2 a usage error (no -o, an extension other than .png or .svg, an unknown
 * variable, a malformed --mark or --xrange, --labels not one per file, --diff of one
 * file or of a variable not drawn). */
int plot_main(int argc, char **argv);

/* The machinery other drawings share (`sacc ensemble collect --plot`'s fan chart). */

/* The gnuplot executable in PATH, malloc'd, or NULL. */
char *plot_find_gnuplot(void);
/* s as gnuplot's single-quoted string. */
void plot_put_quoted(FILE *f, const char *s);
/* Runs gnuplot (exe) with what script writes on its standard input, which must draw into
 * out.  Returns 0, or 1 after saying why (messages prefixed with prog), out removed. */
int plot_gnuplot(const char *prog, const char *exe, const char *out,
                 void (*script)(FILE *, const void *), const void *env);

#endif
