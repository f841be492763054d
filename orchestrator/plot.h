/* plot.h — `sacc plot RESULT.csv -o FILE.png|svg [--vars a,b,...] [--title T]`: the
 * recorded variables of a result against time, drawn by gnuplot (Debian's gnuplot-nox),
 * which sacc runs with the data and the script on its standard input. */
#ifndef SACC_PLOT_H
#define SACC_PLOT_H

/* Runs `sacc plot` with the arguments after the command name.  Returns the exit status:
 * 0 success, 1 an unreadable or malformed CSV, gnuplot missing or failing, 2 a usage
 * error (no -o, an extension other than .png or .svg, an unknown variable). */
int plot_main(int argc, char **argv);

#endif
