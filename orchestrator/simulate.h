/* simulate.h — what the parts of `sacc simulate` share (not a public interface): the run's
 * state (Sim) and the scenario's making (simulate_scenario.c) for the run and report parts
 * (simulate_cli.c).  Like them, it sees runtime/ headers. */
#ifndef SACC_SIMULATE_H
#define SACC_SIMULATE_H

#include <stdbool.h>
#include <stdio.h>

#include "cli.h"
#include "csv.h"
#include "driver.h"
#include "fmu.h"
#include "sart_master.h"
#include "sim_types.h"
#include "ssp.h"
#include "util.h"

struct SimArgs;

/* The result's rows gathered for the next write(2) (write_point). */
typedef struct RowBuf {
	int fd;            /* the result's descriptor */
	char *data;
	size_t len, cap;
	bool at_once;      /* each row written as it comes: someone may be reading */
} RowBuf;

/* One FMU instance of the scenario, with the SartVar table made from its description. */
typedef struct SimFmu {
	const char *name;
	FmuInfo *info;
	Loc where;
	char *dir;      /* where it is extracted, malloc'd */
	SartVar *vars;
	SartVrType *vr_types; /* FMI 3.0 sized types (sim_types.h), malloc'd */
	size_t nvr_types;
	/* FMI 3.0 arrays (sim_arrays.c): info is then a copy whose vars go on, after the
	 * description's own nown, with one scalar per element; first_elem[i] is the first
	 * element of own variable i (-1: not an array, or not expanded); elements are the
	 * seam's view of them.  All in the compilation's arena. */
	int nown;
	int *first_elem;
	SartVrElement *elements;
	size_t nelements;
	/* Run as Model Exchange (integrated by the seam), else as Co-Simulation: the FMU's
	 * only interface, or --interface's choice (simulate_cli.c, choose_interfaces) */
	bool me;
	/* Run from its Windows library in a host under Wine (isolate.h): it ships no Linux
	 * one, or --wine names it */
	bool wine;
	SartVr *me_vrs; /* with me: the states' value references, then their derivatives'
	                   (for the Jacobian from directional derivatives), or NULL; malloc'd */
	uint32_t *me_event_vrs; /* with me: the Reals set only in Event Mode (fmu_me_event_vrs),
	                           or NULL; malloc'd */
	uint32_t *intermediate; /* FMI 3.0: the scalar Float64 inputs marked intermediateUpdate
	                           (fmu_intermediate_inputs), or NULL; malloc'd */
	size_t nintermediate;
	SartClock *clocks; /* run through Scheduled Execution: its clocks (sim_se_configs), or
	                      NULL; malloc'd */
} SimFmu;

/* The most array elements one FMU may bring: one column each. */
#define SIM_MAX_ELEMENTS 1000000

/* A result column other than INST.VAR: an SSP system's output connector, named as it is,
 * the value of the FMU output feeding it (ref) after conv. */
typedef struct SimColumn {
	const char *name;   /* NULL: INST.VAR */
	SartRef ref;
	SartConnection conv; /* scale 1, offset 0, nmap 0 for none */
	const char *unit;    /* the header's unit when conv converts units, else NULL: the
	                      * variable's own */
} SimColumn;

/* --profile: what one FMU's doStep calls cost. */
typedef struct SimProfile {
	double seconds;
	long calls;
	double began; /* when the doStep in progress began (per FMU: with --threads several
	                 step at once) */
} SimProfile;

typedef struct Sim {
	Compilation *c;
	struct SimArgs *args;
	Module *module;   /* the scenario module; NULL when TARGET is an .fmu */
	SimFmu *fmus;
	int nfmus;
	NameIndex instances; /* the instances by name (sim_find_instance) */
	SartFmu *sfmus;
	SartFmuTypes *types; /* per FMU, for SartMasterOptions.fmu_types */
	SartMeConfig *me;    /* per FMU, for SartMasterOptions.fmu_me (read for the FMUs run
	                        as Model Exchange only) */
	SartSeConfig *se;    /* per FMU, for SartMasterOptions.fmu_se (empty for the FMUs not run
	                        through Scheduled Execution) */
	SartConnection *conns;
	int nconns;
	unsigned char *held_conns;    /* per conn: discrete (SartMasterOptions.held_conns) */
	SartConnection *string_conns; /* String to String (SartScenario.string_conns) */
	int nstring_conns;
	SartStart *starts;
	int nstarts;
	SartStringStart *string_starts; /* --set of a String */
	int nstring_starts;
	SartRef *records;
	int nrecords, caprecords;
	SartRef *string_records;   /* String outputs: columns after the others */
	int nstring_records;
	SartRef *binaries;         /* every Binary scalar (SartMasterOptions.binaries) */
	int nbinaries;
	const char *const *strings; /* the point's Strings (SartStringsFn), until it is written */
	char *tmpdir;
	FILE *out;
	bool out_failed;
	RowBuf rows_out;   /* out's rows, written with write(2) a block at a time */
	long rows;        /* communication points of this run written */
	double last_t;    /* the last one's time */
	CsvTable *capture; /* a sweep's run: the points go here instead of out */
	double *row;       /* time and values, to append to capture */
	double run_began;  /* now_seconds() when this run began */
	bool tty;          /* stderr is a terminal: the progress line may be drawn */
	bool prog_drawn;   /* it is on the screen now */
	double prog_last;  /* when it was last drawn (seconds into the run), < 0 never */
	double rt_origin;  /* --realtime: the wall time of the first point */
	long overruns;     /* --realtime: points reached after their deadline */
	double max_late;   /* the largest lateness, s */
	SimProfile *prof;  /* --profile: per FMU */
	/* each FMU's name, in one array: the crash guard is told it before every FMU step,
	 * and SimFmu's, one per FMU-sized record, cost a cache miss a step at 10,000 FMUs */
	const char **names;
	CsvTable *input;   /* --input's table, NULL for none */
	SartRef *external; /* the inputs it feeds, nexternal of them */
	int *ext_col;      /* each one's column */
	bool *ext_held;    /* each one held between rows (discrete), else linear */
	size_t *ext_size;  /* per cell of the table: a Binary's bytes (its text decoded in
	                    * place), 0 elsewhere; NULL when the table has no text column */
	int nexternal;
	char defaults[512]; /* the start, stop and step not given and where they came from */
	SspModel *ssp;     /* an SSP target (simulate_ssp.c), NULL otherwise */
	SspFlat *flat;     /* its flat system */
	SimColumn *cols;   /* per record: its column's name and conversion (NULL for all
	                      INST.VAR as they are) */
	SimColumn *outputs; /* an SSP's top-level outputs, recorded by name */
	int noutputs;
	double *conv_row;  /* the recorded values after cols' conversions */
} Sim;


/* Adds the FMU instance name (its description info) to s->fmus (room made by the caller)
 * and to s->instances.  Returns 0, or 1 when out of memory. */
int sim_add_fmu(Sim *s, const char *name, FmuInfo *info, Loc where);
/* Adds a connection between two of s's FMUs: to s->string_conns when both ends are scalar
 * Strings, else to s->conns (each allocated for every connection of the target; grown
 * here for arrays, which connect element by element).  Returns 0, 1 when out of memory, or
 * 2 after an error at where (arrays of different sizes, an array and a scalar). */
int sim_add_conn(Sim *s, SartConnection cn, Loc where);
/* sim_arrays.c: f's array variables expanded into one scalar variable per element (f->info
 * replaced by the expanded copy).  Returns 0, or 2 after a report (too many elements). */
int sim_expand_arrays(Sim *s, SimFmu *f);
/* The elements of f's own variable var: the index of the first and their number (-1, 0
 * when var is not an expanded array). */
void sim_array_span(const SimFmu *f, int var, int *first, int *count);

/* The index of an FMU's variable, or -1. */
int sim_var_index(const FmuInfo *info, const char *name);
/* The index of the instance of that name, or -1. */
int sim_find_instance(const Sim *s, const char *name);

/* simulate_extract.c: every FMU file extracted into a new private temporary directory
 * (s->tmpdir), once for all its instances but those that each need a library of their
 * own (canBeInstantiatedOnlyOncePerProcess); each instance's dir set.  Returns 0, or 1
 * after a report. */
int sim_extract_all(Sim *s);
/* Which instances run under Wine (SimFmu.wine): those --wine names (wine: its list, NULL
 * for none) and those of FMUs with a Windows library but no Linux one. */
void sim_choose_wine(Sim *s, const char *wine);
/* Whether instance f runs out of process: --isolate names it, or it runs under Wine. */
bool sim_is_isolated(const Sim *s, int f, const char *isolate);
/* --explain: the FMU files, and which instances share a library, which have a copy of
 * their own and which a process of their own (isolate: --isolate's list, NULL for none).
 * Returns 0, or 1 when out of memory. */
int sim_print_sharing(const Sim *s, const char *isolate);

/* The scenario module at path: its fmu declarations (in order) and its connections
 * (converting units unless no_unit_conversion).  Returns 0, or 1 after a report. */
int sim_load_scenario(Sim *s, const char *path, bool no_unit_conversion);

/* simulate_ssp.c: the SSP system at path (.ssp or .ssd) flattened into the scenario: its
 * FMU instances, links (with the unit conversions and transformations of their chains),
 * the start values of its parameter bindings and its top-level outputs.  Returns 0, or 1
 * after a report. */
int sim_load_ssp(Sim *s, const char *path, bool no_unit_conversion);
/* --explain: the conversions and transformations on the SSP's links. */
void sim_print_ssp_conversions(const Sim *s, bool not_applied);

/* INST.VAR (len characters of text) for option what.  Returns 0, or 2 after a report. */
int sim_parse_ref(const Sim *s, const char *what, const char *text, size_t len, SartRef *r);
/* The recorded variables: the --record lists, else every output.  Returns 0, 1 when out
 * of memory, or 2 after a report. */
int sim_collect_records(Sim *s, const CliList *records);
/* The --set start values.  Returns 0, 1 when out of memory, or 2 after a report. */
int sim_collect_sets(Sim *s, const CliList *sets);

/* simulate_input.c: --input FILE's table read and its columns resolved against the
 * scenario's unconnected inputs.  Returns 0, or 1 after a report (FILE:LINE: ...). */
int sim_load_input(Sim *s, const char *path);
/* SartMasterOptions.external_value over s->input (env is the Sim). */
void sim_input_value(void *env, int k, double t, double *value, double *slope);
/* SartMasterOptions.external_text over s->input: a String's or Binary's cell of the last
 * row at or before t (env is the Sim). */
const char *sim_input_text(void *env, int k, double t, size_t *size);

/* SartMasterOptions.external_tick and external_next_tick: a clock column's ticks are its
 * rows holding a nonzero value. */
int sim_input_tick(void *env, int k, double t0, double t1);
double sim_input_next_tick(void *env, int k, double t);

/* SartMasterOptions.fmu_se: the clocks of each FMU run through Scheduled Execution, from
 * its description.  Returns 0, or 1 when out of memory. */
int sim_se_configs(Sim *s);
/* One warning naming the inputs that nothing feeds and that have no start value. */
void sim_warn_unfed_inputs(const Sim *s);
/* The start, stop and step the options leave NaN, from the FMUs' DefaultExperiment: for
 * several FMUs the largest start, the smallest stop and the smallest step declared; else
 * 0, start + 1 and (stop - start) / 500.  What was taken is said in s->defaults (the step
 * only when uses_step).  Returns 0, or 2 after a usage error (the stop before the start). */
int sim_default_experiment(Sim *s, double *start, double *stop, double *step, bool uses_step);

#endif
