/* ssp.h — System Structure and Parameterization (SSP 1.0 and 2.0): a system of FMUs read
 * from an .ssp archive or an .ssd beside its resources, for `sacc simulate`, `sacc ssp
 * import`, `sacc ssp export`, `sacc build SYSTEM.ssp` and SSP systems as inners.
 *
 * Two levels, both owned by the Compilation's arena (strings, arrays) and by the
 * Compilation itself (the components' FmuInfo, opened through drv_open_fmu):
 *
 *   SspModel   the documents as written: the SSD's systems (nested), components with
 *              their FMU, connectors, connections with their transformation, parameter
 *              bindings (inline ParameterValues, .ssv files, .ssm mappings, prefixes),
 *              units, enumerations and the DefaultExperiment.  ssp_read fills it and
 *              checks what a document alone can be wrong about (names, types, kinds,
 *              units, dangling references, missing FMUs), reporting at file:line:col
 *              inside the archive ("sys.ssp:SystemStructure.ssd:12:5").
 *   SspFlat    the same system as a co-simulation master sees it: one instance per
 *              component (nested ones named "sub.comp"), each connection from an FMU
 *              output to an FMU input with the unit conversion and the transformations
 *              of the whole chain folded into one map-then-linear step, the start values
 *              the bindings give, the top system's output connectors as named
 *              columns, and what its input connectors feed.  Every conversion of a
 *              connection is made here, once, for both `sacc simulate` and `sacc build`.  ssp_flatten makes it.  `sacc simulate` turns it into its
 *              scenario (orchestrator/simulate_ssp.c); `sacc ssp import` writes it as a
 *              scenario module.
 *
 * The XML is read as modelDescription.xml is (libxml2 with no DTD, no entity expansion,
 * no network); an archive is unpacked with zip_extract's checks (paths, sizes, ratios)
 * into a private temporary directory that ssp_free removes. */
#ifndef SACC_SSP_H
#define SACC_SSP_H

#include <stdbool.h>

#include "diag.h"
#include "driver.h"
#include "fmu.h"
#include "util.h"

/* ---- the documents ------------------------------------------------------------------------ */

/* Connector kinds (SSP 2.0 adds structuralParameter, constant, local, unspecified). */
typedef enum SspKind {
	SSP_INPUT,
	SSP_OUTPUT,
	SSP_PARAMETER,
	SSP_CALCULATED_PARAMETER,
	SSP_STRUCTURAL_PARAMETER,
	SSP_CONSTANT,
	SSP_LOCAL,
	SSP_INOUT,
	SSP_UNSPECIFIED,
} SspKind;

/* Connector and parameter types, folded as the master folds FMI types: SSP_T_REAL for
 * Real, Float64 and Float32; SSP_T_INTEGER for Integer and every IntN/UIntN.  The element
 * name as written stays in type_name. */
typedef enum SspType {
	SSP_T_NONE, /* no type element: the FMU variable's type applies */
	SSP_T_REAL,
	SSP_T_INTEGER,
	SSP_T_BOOLEAN,
	SSP_T_STRING,
	SSP_T_ENUMERATION,
	SSP_T_BINARY,
	SSP_T_CLOCK,
} SspType;

/* ssc:Unit: value in SI = factor * value + offset, SI being kg^e0 m^e1 s^e2 A^e3 K^e4
 * mol^e5 cd^e6 rad^e7 (exp[] in that order). */
typedef struct SspUnit {
	const char *name;
	int exp[8];
	double factor, offset;
	Loc loc;
} SspUnit;

typedef struct SspEnumItem {
	const char *name;
	long long value;
} SspEnumItem;

typedef struct SspEnumeration {
	const char *name;
	SspEnumItem *items;
	int nitems;
	Loc loc;
} SspEnumeration;

typedef enum SspTransformKind {
	SSP_TR_NONE,
	SSP_TR_LINEAR,      /* target = factor * source + offset (after unit conversion) */
	SSP_TR_BOOLEAN_MAP, /* BooleanMappingTransformation */
	SSP_TR_INTEGER_MAP, /* IntegerMappingTransformation */
	SSP_TR_ENUM_MAP,    /* EnumerationMappingTransformation (item names) */
} SspTransformKind;

/* One ssc:MapEntry: as written, and as numbers (Booleans 0/1, Integers, enumeration items
 * resolved through the connectors' enumerations by ssp_flatten; NaN until then). */
typedef struct SspMapEntry {
	const char *source, *target;
	double from, to;
	Loc loc;
} SspMapEntry;

typedef struct SspTransform {
	SspTransformKind kind;
	double factor, offset;  /* SSP_TR_LINEAR; 1 and 0 otherwise */
	SspMapEntry *map;       /* the mapping kinds */
	int nmap;
	Loc loc;
} SspTransform;

typedef struct SspConnector {
	const char *name;
	SspKind kind;
	SspType type;
	const char *type_name;   /* "Real", "Float64", ...; NULL when no type element */
	const char *unit;        /* the unit attribute, NULL when none */
	const char *enumeration; /* ssc:Enumeration's name attribute */
	Loc loc;
	/* the first connection into it, in the list of the system that holds that connection
	 * (set as the connections are checked), NULL for none: finds what feeds an input
	 * without a search through every connection */
	const struct SspConnection *into;
} SspConnector;

/* One parameter of a parameter set (ssv:Parameter), its name as written (before any
 * prefix or mapping). */
typedef struct SspParam {
	const char *name;
	SspType type;
	const char *type_name;
	const char *value;       /* the value attribute as written ("2.5", "true", an item) */
	const char *unit;        /* NULL when none */
	Loc loc;
} SspParam;

/* One ssm:MappingEntry: parameter source -> target connector name. */
typedef struct SspMapping {
	const char *source, *target;
	bool suppress_unit_conversion;
	SspTransform tr;
	Loc loc;
} SspMapping;

/* One ssd:ParameterBinding with its parameter set (inline or from an .ssv) and its mapping
 * (inline or from an .ssm), both already read. */
typedef struct SspBinding {
	const char *source;      /* the source attribute as written; NULL when inline */
	const char *prefix;      /* "" when none */
	SspParam *params;
	int nparams;
	SspUnit *units;          /* the parameter set's own ssv:Units */
	int nunits;
	SspMapping *mappings;
	int nmappings;
	Loc loc;
} SspBinding;

typedef struct SspConnection {
	const char *start_element; /* NULL: a connector of the enclosing system */
	const char *start_connector;
	const char *end_element;
	const char *end_connector;
	bool suppress_unit_conversion;
	SspTransform tr;
	Loc loc;
	Loc start_loc, start_conn_loc, end_loc, end_conn_loc; /* the attribute values */
	SspConnector *start, *end; /* the connectors named, once checked */
} SspConnection;

typedef enum SspElementKind { SSP_COMPONENT, SSP_SYSTEM } SspElementKind;

/* A component's implementation attribute: which interface of an FMU offering both to use.
 * SSP_IMPL_ANY leaves it to the importer (sacc: Co-Simulation when the FMU offers it). */
typedef enum SspImplementation { SSP_IMPL_ANY, SSP_IMPL_CS, SSP_IMPL_ME } SspImplementation;

/* A component or a system (the top one included). */
typedef struct SspElement {
	SspElementKind kind;
	const char *name;
	Loc loc;
	SspConnector *connectors;
	int nconnectors;
	SspBinding *bindings;
	int nbindings;
	/* components */
	const char *mime;        /* the type attribute (default application/x-fmu-sharedlibrary) */
	const char *source;      /* the source attribute as written */
	const char *fmu_path;    /* the FMU file it resolves to (inside the extraction for .ssp) */
	FmuInfo *info;           /* its model description (owned by the Compilation) */
	SspImplementation implementation; /* checked against what info offers */
	/* systems */
	struct SspElement *elements;
	int nelements;
	SspConnection *connections;
	int nconnections;
	/* the elements by name, once they are all read (ssp_element; empty: it searches) */
	NameIndex element_index;
} SspElement;

typedef struct SspModel {
	Compilation *c;
	const char *path;        /* the .ssp or .ssd as given */
	const char *ssd_name;    /* what messages call the SSD: "sys.ssp:SystemStructure.ssd" */
	const char *dir;         /* where relative URIs resolve: the extraction or the .ssd's dir */
	char *tmpdir;            /* the archive's extraction (malloc'd), removed by ssp_free */
	const char *version;     /* the version attribute as written ("1.0", "2.0") */
	int major;               /* 1 or 2 */
	const char *name;        /* the SystemStructureDescription's name */
	SspElement *root;        /* the top system */
	SspUnit *units;
	int nunits;
	SspEnumeration *enums;
	int nenums;
	double start, stop, step; /* DefaultExperiment; NaN when absent (step: SSP 2.0 or an
	                             annotation-free extension, NaN in SSP 1.0) */
} SspModel;

/* Whether path names an SSP: ends in .ssp or .ssd. */
bool ssp_is_path(const char *path);

/* Reads path (an .ssp archive, or an .ssd whose relative URIs resolve beside it), the
 * parameter files it binds and the model descriptions of its FMUs, and checks them.
 * Returns NULL after reporting every error found (capped as the sink caps).  Free with
 * ssp_free. */
SspModel *ssp_read(Compilation *c, const char *path);
/* Removes the extraction directory; the rest lives in the Compilation. */
void ssp_free(SspModel *m);

/* The unit of that name among m's units, or NULL. */
const SspUnit *ssp_find_unit(const SspModel *m, const char *name);

/* ---- the flat system ----------------------------------------------------------------------- */

/* One FMU instance of the flat system. */
typedef struct SspFlatComponent {
	const char *name;        /* "comp", or "sub.comp" inside nested system "sub" */
	const SspElement *elem;
	FmuInfo *info;
	const char *fmu_path;
} SspFlatComponent;

/* How a value crosses a connection: first the map (when nmap > 0: a value equal to some
 * from[k] becomes to[k], any other passes unchanged), then scale * x + offset (the unit
 * conversion and every LinearTransformation of the chain, folded). */
typedef struct SspConvert {
	const double *from, *to;
	int nmap;
	double scale, offset;
	bool converts_units;     /* a unit conversion is part of scale/offset */
	double unit_scale, unit_offset; /* that part alone, for --explain */
	const char *src_unit, *dst_unit; /* the units converted between, for --explain */
} SspConvert;

typedef struct SspFlatLink {
	int src_comp, src_var;   /* an FMU output (index into the flat components, FmuInfo.vars) */
	int dst_comp, dst_var;   /* an FMU input */
	SspConvert cv;
	const SspConnection *last; /* the connection that ends at the input */
} SspFlatLink;

/* A start value or parameter for one FMU variable, from the bindings (the highest level
 * and latest binding wins) or from a parameter connector of a system connected to it. */
typedef struct SspFlatStart {
	int comp, var;
	double value;            /* Real, Integer, Boolean (0/1), enumeration value */
	const char *text;        /* the value as written (also for String variables) */
	const SspParam *origin;
} SspFlatStart;

/* A top-system output connector, recorded under its own name. */
typedef struct SspFlatOutput {
	const char *name;
	int comp, var;           /* the FMU output that feeds it */
	SspConvert cv;
} SspFlatOutput;

/* A top-system input connector and an FMU input it feeds (through nested systems), for
 * the composite FMU of `sacc build SYSTEM.ssp`; a master has no use for it. */
typedef struct SspFlatInput {
	const SspConnector *k;   /* the top system's input connector */
	int comp, var;           /* the FMU input */
	SspConvert cv;
	const SspConnection *last; /* the connection that ends at the input */
} SspFlatInput;

typedef struct SspFlat {
	SspFlatComponent *comps;
	int ncomps;
	SspFlatLink *links;
	int nlinks;
	SspFlatStart *starts;
	int nstarts;
	SspFlatOutput *outputs;
	int noutputs;
	SspFlatInput *inputs;
	int ninputs;
} SspFlat;

/* Flattens m (read without errors) into f, in the Compilation's arena.  Units convert on
 * every connection between connectors of different units unless suppressUnitConversion
 * (or no_unit_conversion, for --no-unit-conversion).  Reports what only the whole system
 * shows (two connections into one input, incommensurable units, a type mismatch along a
 * chain, a parameter for no connector) and returns 0, or 1 after a report. */
int ssp_flatten(SspModel *m, bool no_unit_conversion, SspFlat *f);

/* The value x after cv (the map, then scale and offset). */
double ssp_convert(const SspConvert *cv, double x);

/* ---- sacc ssp ------------------------------------------------------------------------------ */

/* `sacc ssp SUBCOMMAND ...`: the subcommands are rows of a table in ssp_cli.c (import,
 * export); main.c dispatches `ssp` here.  Returns the exit status. */
struct CliCommand;
int ssp_main(const struct CliCommand *cmd, int argc, char **argv);

#endif
