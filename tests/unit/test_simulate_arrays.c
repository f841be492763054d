/* test_simulate_arrays.c — FMI 3.0 array variables in `sacc simulate`, over the test FMUs
 * array3 (tests/fmus3/array3: y = x + gain .* u with x' = u, stats = {sum(y), max(y)}, the
 * size 3 from its structural parameter n, stats of fixed size 2) and matrix3 (two
 * dimensions, units, Integer and Boolean arrays): one column per element,
 * --set of a whole array and of one element, --input and connections element by element,
 * the result read back by name, and the errors.  Every expected value is worked out here
 * from the model's equations.  Runs the SACC_BUILD binary as a user would
 * (simulate_test.h). */
#define _GNU_SOURCE /* realpath(path, NULL) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sacc_test.h"

#include "assert_contains.h"
#include "csv.h"
#include "simulate_test.h"

static int setup(void **state)
{
	return sim_setup(state, "test_simulate_arrays");
}

/* y, x and stats of array3 after k steps of h from x = 0 with u and gain held. */
static void array3_at(const double u[3], const double gain[3], int k, double h, double y[3],
                      double stats[2])
{
	stats[0] = 0;
	for (int i = 0; i < 3; i++) {
		double x = 0;
		for (int s = 0; s < k; s++)
			x += u[i] * h;
		y[i] = x + gain[i] * u[i];
		stats[0] += y[i];
		stats[1] = i == 0 || y[i] > stats[1] ? y[i] : stats[1];
	}
}

static void simulate_arrays__one_column_per_element__hand_computed(void **state)
{
	Ctx *c = *state;
	char args[1024];
	snprintf(args, sizeof args, "'%s/fmus3/array3.fmu' --stop 0.2 --step 0.1 "
	         "--set 'array3.u=[1, 2,3]' -o '%s'", test_build_dir(), path_in(c, "r.csv"));
	assert_int_equal(simulate(c, args), 0);
	char *csv = file_in(c, "r.csv");
	/* every output, each array's elements in place, in order */
	assert_true(strncmp(csv, "time,array3.y[1],array3.y[2],array3.y[3],array3.stats[1],"
	                         "array3.stats[2]\n0,1,4,9,14,9\n", 75) == 0);
	free(csv);
	const double u[3] = {1, 2, 3}, gain[3] = {1, 2, 3};
	const char *yname[3] = {"array3.y[1]", "array3.y[2]", "array3.y[3]"};
	for (int k = 0; k <= 2; k++) {
		double y[3], st[2];
		array3_at(u, gain, k, 0.1, y, st);
		for (int i = 0; i < 3; i++)
			assert_cell(path_in(c, "r.csv"), yname[i], k, y[i]);
		assert_cell(path_in(c, "r.csv"), "array3.stats[1]", k, st[0]);
		assert_cell(path_in(c, "r.csv"), "array3.stats[2]", k, st[1]);
	}
	assert_tmp_empty(c);
}

static void simulate_arrays__set_one_element_and_record_some(void **state)
{
	Ctx *c = *state;
	char args[1024];
	/* u[2] alone: the others keep their start values (0); gain whole */
	snprintf(args, sizeof args, "'%s/fmus3/array3.fmu' --stop 0.1 --step 0.1 "
	         "--set 'array3.u[2]=5' --set 'array3.gain=[10,20,30]' "
	         "--record 'array3.y[2],array3.stats' -o '%s'", test_build_dir(),
	         path_in(c, "r.csv"));
	assert_int_equal(simulate(c, args), 0);
	char *csv = file_in(c, "r.csv");
	assert_true(strncmp(csv, "time,array3.y[2],array3.stats[1],array3.stats[2]\n", 49) ==
	            0);
	free(csv);
	const double u[3] = {0, 5, 0}, gain[3] = {10, 20, 30};
	double y[3], st[2];
	array3_at(u, gain, 1, 0.1, y, st);
	assert_cell(path_in(c, "r.csv"), "array3.y[2]", 1, y[1]);
	assert_cell(path_in(c, "r.csv"), "array3.stats[1]", 1, st[0]);
	assert_cell(path_in(c, "r.csv"), "array3.stats[2]", 1, st[1]);
}

static void simulate_arrays__input_columns_feed_elements(void **state)
{
	Ctx *c = *state;
	char args[1024];
	write_text(c, "in.csv", "time,array3.u[1],array3.u[2],array3.u[3]\n0,-1,0.5,2\n1,-1,0.5,2\n");
	snprintf(args, sizeof args, "'%s/fmus3/array3.fmu' --stop 0.2 --step 0.1 --input '%s' "
	         "-o '%s'", test_build_dir(), path_in(c, "in.csv"), path_in(c, "r.csv"));
	assert_int_equal(simulate(c, args), 0);
	const double u[3] = {-1, 0.5, 2}, gain[3] = {1, 2, 3};
	double y[3], st[2];
	array3_at(u, gain, 2, 0.1, y, st);
	assert_cell(path_in(c, "r.csv"), "array3.y[1]", 2, y[0]);
	assert_cell(path_in(c, "r.csv"), "array3.y[3]", 2, y[2]);
	assert_cell(path_in(c, "r.csv"), "array3.stats[2]", 2, st[1]);
}

static const char chain_sa[] = "fmu Array3 a at \"%s/fmus3/array3.fmu\"\n"
                               "fmu Array3 b at \"%s/fmus3/array3.fmu\"\n"
                               "a.y -> b.u\n";

/* a.y -> b.u element by element: b's u is a's y, under both masters (Jacobi gives b the
 * y of the step's start until the next step, Gauss-Seidel the new one, a stepping
 * first). */
static void simulate_arrays__connection_element_by_element(void **state)
{
	Ctx *c = *state;
	char text[512], args[1024];
	char *b = realpath(test_build_dir(), NULL);
	assert_non_null(b);
	snprintf(text, sizeof text, chain_sa, b, b);
	free(b);
	write_text(c, "chain.sa", text);
	const char *masters[] = {"jacobi", "gauss-seidel"};
	for (int m = 0; m < 2; m++) {
		snprintf(args, sizeof args, "'%s' --stop 0.1 --step 0.1 --master %s "
		         "--set 'a.u=[1,2,3]' -o '%s'", path_in(c, "chain.sa"), masters[m],
		         path_in(c, "r.csv"));
		assert_int_equal(simulate(c, args), 0);
		const double gain[3] = {1, 2, 3}, ua[3] = {1, 2, 3};
		const char *names[3] = {"b.y[1]", "b.y[2]", "b.y[3]"};
		for (int i = 0; i < 3; i++) {
			double ya0 = gain[i] * ua[i];      /* a.y at 0: x = 0 */
			double ya1 = ua[i] * 0.1 + ya0;    /* a.y at 0.1 */
			double ub = m == 0 ? ya0 : ya1;    /* what b held over the step, and after */
			assert_cell(path_in(c, "r.csv"), names[i], 0, gain[i] * ya0);
			assert_cell(path_in(c, "r.csv"), names[i], 1, ub * 0.1 + gain[i] * ub);
		}
	}
}

static void simulate_arrays__errors_name_the_array(void **state)
{
	Ctx *c = *state;
	char text[512], args[1024];
	char *b = realpath(test_build_dir(), NULL);
	assert_non_null(b);
	snprintf(text, sizeof text, "fmu Array3 a at \"%s/fmus3/array3.fmu\"\n"
	         "fmu Array3 b at \"%s/fmus3/array3.fmu\"\n"
	         "a.stats -> b.u\n", b, b);
	free(b);
	write_text(c, "sizes.sa", text);
	snprintf(args, sizeof args, "'%s' --stop 0.1", path_in(c, "sizes.sa"));
	assert_int_equal(simulate(c, args), 1);
	char *err = file_in(c, "err.txt");
	assert_contains(err, "sizes.sa:3:1: error: connection a.stats -> b.u: stats is an array "
	                     "of 2 Float64 and u is an array of 3 Float64: arrays connect element "
	                     "by element, to an array of the same dimensions");
	free(err);
	snprintf(args, sizeof args, "'%s/fmus3/array3.fmu' --set array3.u=1", test_build_dir());
	assert_usage_error(c, args, "scalar for an array",
	                   "--set array3.u=1: u is an array of 3: give every element, "
	                   "[v1,v2,...], or one, u[i]=v");
	snprintf(args, sizeof args, "'%s/fmus3/array3.fmu' --set 'array3.u=[1,2]'",
	         test_build_dir());
	assert_usage_error(c, args, "too few", "--set array3.u=[1,2]: u has 3 elements, not 2");
	snprintf(args, sizeof args, "'%s/fmus3/array3.fmu' --set 'array3.u=[1,2,3,4]'",
	         test_build_dir());
	assert_usage_error(c, args, "too many",
	                   "--set array3.u=[1,2,3,4]: u has 3 elements, not more than 3");
	snprintf(args, sizeof args, "'%s/fmus3/array3.fmu' --record 'array3.y[4]'",
	         test_build_dir());
	assert_usage_error(c, args, "no such element", "fmu 'array3' has no variable 'y[4]'");
}

/* Out of process (--isolate), the elements travel with the load to the host's seam: the
 * same result, byte for byte, as in process. */
static void simulate_arrays__isolated__same_as_in_process(void **state)
{
	Ctx *c = *state;
	char text[512], args[1024];
	snprintf(text, sizeof text, chain_sa, build_abs(), build_abs());
	write_text(c, "chain.sa", text);
	const char *common = "--stop 0.3 --step 0.1 --set 'a.u[2]=4' --set 'b.gain=[1,2,3]'";
	snprintf(args, sizeof args, "'%s' %s -o '%s'", path_in(c, "chain.sa"), common,
	         path_in(c, "in.csv"));
	assert_int_equal(simulate(c, args), 0);
	snprintf(args, sizeof args, "'%s' %s --isolate all -o '%s'", path_in(c, "chain.sa"),
	         common, path_in(c, "iso.csv"));
	assert_int_equal(simulate(c, args), 0);
	char *a = file_in(c, "in.csv"), *b = file_in(c, "iso.csv");
	assert_true(strlen(a) > 100);
	assert_string_equal(a, b);
	free(a);
	free(b);
	/* a.u = {0, 4, 0}: b.u = a.y = {0, 8, 0} at 0, b.y[2] = 2 * 8 */
	assert_cell(path_in(c, "in.csv"), "b.y[2]", 0, 16);
}

/* matrix3 (tests/fmus3/matrix3): two-dimensional arrays named A[i,j], row-major (the last
 * index fastest, as FMI 3.0 serializes them), their units in the header of --header units
 * (the names quoted: they hold a comma), Integer and Boolean arrays; the result read back by element name. */
static void simulate_arrays__two_dimensions__row_major_with_units(void **state)
{
	Ctx *c = *state;
	char args[1024];
	snprintf(args, sizeof args, "'%s/fmus3/matrix3.fmu' --stop 0.5 "
	         "--set 'matrix3.A=[1,9,3,0,5,6]' --set 'matrix3.k[2]=-4' --header units -o '%s'",
	         test_build_dir(), path_in(c, "r.csv"));
	assert_int_equal(simulate(c, args), 0);
	char *csv = file_in(c, "r.csv");
	const char *header =
		"time [s],\"matrix3.T[1,1] [cm]\",\"matrix3.T[1,2] [cm]\",\"matrix3.T[2,1] [cm]\","
		"\"matrix3.T[2,2] [cm]\",\"matrix3.T[3,1] [cm]\",\"matrix3.T[3,2] [cm]\","
		"matrix3.rowsum[1] [m],matrix3.rowsum[2] [m],matrix3.kk[1],matrix3.kk[2],"
		"matrix3.flags[1],matrix3.flags[2],matrix3.flags[3],matrix3.w2[1] [cm],"
		"matrix3.w2[2] [cm]\n";
	assert_true(strncmp(csv, header, strlen(header)) == 0);
	free(csv);
	/* A = {{1, 9, 3}, {0, 5, 6}}: T = transpose(A) */
	const double A[2][3] = {{1, 9, 3}, {0, 5, 6}};
	char name[64];
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 2; j++) {
			snprintf(name, sizeof name, "matrix3.T[%d,%d]", i + 1, j + 1);
			assert_cell(path_in(c, "r.csv"), name, 1, A[j][i]);
		}
	assert_cell(path_in(c, "r.csv"), "matrix3.rowsum[1]", 1, 0.01 * 1 + 0.01 * 9 + 0.01 * 3);
	assert_cell(path_in(c, "r.csv"), "matrix3.rowsum[2] [m]", 1, 0.01 * 0 + 0.01 * 5 + 0.01 * 6);
	assert_cell(path_in(c, "r.csv"), "matrix3.kk[1]", 1, 0);
	assert_cell(path_in(c, "r.csv"), "matrix3.kk[2]", 1, -8);
	assert_cell(path_in(c, "r.csv"), "matrix3.flags[1]", 1, 1);
	assert_cell(path_in(c, "r.csv"), "matrix3.flags[2]", 1, 1);
	assert_cell(path_in(c, "r.csv"), "matrix3.flags[3]", 1, 0);
}

/* p.rowsum [m] -> q.w [cm] converts each element (x 100), p.kk -> q.k passes Integers; a
 * 3x2 array does not feed a 2x3 one. */
static void simulate_arrays__units_converted_per_element(void **state)
{
	Ctx *c = *state;
	char text[512], args[1024];
	char *b = realpath(test_build_dir(), NULL);
	assert_non_null(b);
	snprintf(text, sizeof text, "fmu Matrix3 p at \"%s/fmus3/matrix3.fmu\"\n"
	         "fmu Matrix3 q at \"%s/fmus3/matrix3.fmu\"\n"
	         "p.rowsum -> q.w\np.kk -> q.k\n", b, b);
	write_text(c, "m.sa", text);
	snprintf(text, sizeof text, "fmu Matrix3 p at \"%s/fmus3/matrix3.fmu\"\n"
	         "fmu Matrix3 q at \"%s/fmus3/matrix3.fmu\"\n"
	         "p.T -> q.A\n", b, b);
	write_text(c, "shape.sa", text);
	free(b);
	snprintf(args, sizeof args, "'%s' --stop 0.5 --set 'p.k=[3,-1]' -o '%s'",
	         path_in(c, "m.sa"), path_in(c, "r.csv"));
	assert_int_equal(simulate(c, args), 0);
	/* p.A at its start {{1, 2, 3}, {4, 5, 6}}: rowsum {0.06, 0.15} m */
	assert_cell(path_in(c, "r.csv"), "q.w2[1]", 1, 100 * (0.01 * 1 + 0.01 * 2 + 0.01 * 3));
	assert_cell(path_in(c, "r.csv"), "q.w2[2]", 1, 100 * (0.01 * 4 + 0.01 * 5 + 0.01 * 6));
	assert_cell(path_in(c, "r.csv"), "q.kk[1]", 1, 2 * 2 * 3);
	assert_cell(path_in(c, "r.csv"), "q.kk[2]", 1, 2 * 2 * -1);
	snprintf(args, sizeof args, "'%s' --stop 0.5", path_in(c, "shape.sa"));
	assert_int_equal(simulate(c, args), 1);
	char *err = file_in(c, "err.txt");
	assert_contains(err, "shape.sa:3:1: error: connection p.T -> q.A: T is an array of 3x2 "
	                     "Float64 and A is an array of 2x3 Float64: arrays connect element by "
	                     "element, to an array of the same dimensions");
	free(err);
}

static const char array_ssd[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<ssd:SystemStructureDescription version=\"1.0\" name=\"arr\"\n"
	"    xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\"\n"
	"    xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\">\n"
	"  <ssd:System name=\"arr\">\n"
	"    <ssd:Elements>\n"
	"      <ssd:Component name=\"a\" source=\"resources/array3.fmu\">\n"
	"        <ssd:Connectors>\n"
	"          <ssd:Connector name=\"y\" kind=\"output\"><ssc:Real unit=\"cm\"/></ssd:Connector>\n"
	"        </ssd:Connectors>\n"
	"      </ssd:Component>\n"
	"      <ssd:Component name=\"b\" source=\"resources/array3.fmu\">\n"
	"        <ssd:Connectors>\n"
	"          <ssd:Connector name=\"u\" kind=\"input\"><ssc:Real unit=\"m\"/></ssd:Connector>\n"
	"        </ssd:Connectors>\n"
	"      </ssd:Component>\n"
	"    </ssd:Elements>\n"
	"    <ssd:Connections>\n"
	"      <ssd:Connection startElement=\"a\" startConnector=\"y\" endElement=\"b\" "
	"endConnector=\"u\"/>\n"
	"    </ssd:Connections>\n"
	"  </ssd:System>\n"
	"</ssd:SystemStructureDescription>\n";

/* An SSP link between two arrays: element by element, the connectors' units (cm into m)
 * converting each. */
static void simulate_arrays__ssp_link_element_by_element(void **state)
{
	Ctx *c = *state;
	char args[1024], fmu[PATH_MAX];
	assert_int_equal(mkdir(path_in(c, "resources"), 0755), 0);
	char *b = realpath(test_build_dir(), NULL);
	assert_non_null(b);
	snprintf(fmu, sizeof fmu, "%s/fmus3/array3.fmu", b);
	free(b);
	assert_int_equal(symlink(fmu, path_in(c, "resources/array3.fmu")), 0);
	write_text(c, "SystemStructure.ssd", array_ssd);
	snprintf(args, sizeof args, "'%s' --stop 0.1 --step 0.1 --master jacobi "
	         "--set 'a.u=[1,2,3]' -o '%s'", path_in(c, "SystemStructure.ssd"),
	         path_in(c, "r.csv"));
	assert_int_equal(simulate(c, args), 0);
	const double gain[3] = {1, 2, 3};
	const char *names[3] = {"b.y[1]", "b.y[2]", "b.y[3]"};
	for (int i = 0; i < 3; i++) {
		double ub = 0.01 * gain[i] * (i + 1); /* a.y at 0 in cm, into m */
		assert_cell(path_in(c, "r.csv"), names[i], 0, gain[i] * ub);
		assert_cell(path_in(c, "r.csv"), names[i], 1, ub * 0.1 + gain[i] * ub);
	}
	/* a parameter binding names a whole array: refused, naming it */
	static const char binding[] =
		"        <ssd:ParameterBindings><ssd:ParameterBinding><ssd:ParameterValues>\n"
		"          <ssv:ParameterSet version=\"1.0\" name=\"p\"><ssv:Parameters>\n"
		"            <ssv:Parameter name=\"gain\"><ssv:Real value=\"2\"/></ssv:Parameter>\n"
		"          </ssv:Parameters></ssv:ParameterSet>\n"
		"        </ssd:ParameterValues></ssd:ParameterBinding></ssd:ParameterBindings>\n";
	char ssd[4096];
	const char *cut = strstr(array_ssd, "      </ssd:Component>");
	assert_non_null(cut);
	snprintf(ssd, sizeof ssd, "%.*s%s%s", (int)(cut - array_ssd), array_ssd, binding, cut);
	char *ns = strstr(ssd, "xmlns:ssc");
	assert_non_null(ns);
	const char *ssv = "xmlns:ssv=\"http://ssp-standard.org/SSP1/"
	                  "SystemStructureParameterValues\" ";
	memmove(ns + strlen(ssv), ns, strlen(ns) + 1);
	memcpy(ns, ssv, strlen(ssv));
	write_text(c, "SystemStructure.ssd", ssd);
	snprintf(args, sizeof args, "'%s' --stop 0.1", path_in(c, "SystemStructure.ssd"));
	assert_int_equal(simulate(c, args), 1);
	char *err = file_in(c, "err.txt");
	assert_contains(err, "a parameter binding of 'a' names 'gain', which is an array of 3 "
	                     "Float64: only links carry arrays (element by element)");
	free(err);
	unlink(path_in(c, "resources/array3.fmu"));
	rmdir(path_in(c, "resources"));
}

/* `sacc build` ADAPTATION --fmi VERSION in the scratch directory: the exit status, stderr
 * in err.txt. */
static int build(Ctx *c, const char *script, int fmi)
{
	snprintf(c->cmd, sizeof c->cmd, "cd '%s' && '%s/sacc' build --fmi %d -o out '%s' "
	         ">/dev/null 2>'%s/err.txt'", c->dir, build_abs(), fmi, script, c->dir);
	int st = system(c->cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A script names array elements, not whole arrays: binding one, declaring one or binding
 * an array parameter is an error at build time naming it, in FMI 2.0 and 3.0 wrappers
 * alike (before, such a wrapper was built and failed when run). */
static void build_arrays__refused_by_name(void **state)
{
	Ctx *c = *state;
	char text[1024];
	const char *cases[][2] = {
		{"output ports Real y <- a.y\n",
		 "wrap.sa:7:26: error: port 'y' of inner fmu 'a' is an array of 3 Float64: a "
		 "script names its elements, not the whole array"},
		{"\twith output ports Real stats\n",
		 "wrap.sa:6:25: error: port 'stats' of inner fmu 'a' is an array of 2 Float64: a "
		 "script names its elements, not the whole array"},
		{"\twith param gain := 2\n",
		 "wrap.sa:6:13: error: parameter 'gain' of inner fmu 'a' is an array of 3 Float64: "
		 "array parameters cannot be bound yet"},
		{"\twith param n := 4\n",
		 "wrap.sa:6:13: error: 'n' of inner fmu 'a' is a structural parameter, which cannot "
		 "be bound: it stays at its start value 3"},
		{"\twith param gain[4] := 2\n",
		 "wrap.sa:6:13: error: subscript 4 of 'gain[4]' is out of range: parameter 'gain' of "
		 "inner fmu 'a' is an array of 3 Float64, subscripts 1 to 3"},
		{"\twith param gain[1,2] := 2\n",
		 "wrap.sa:6:13: error: parameter 'gain' of inner fmu 'a' has 1 dimension, not 2: "
		 "'gain[i]' names one element"},
		{"\twith param n[1] := 2\n",
		 "wrap.sa:6:13: error: parameter 'n' of inner fmu 'a' is not an array: it takes no "
		 "subscript"},
		{"\twith param gain[2] := true\n",
		 "wrap.sa:6:24: error: parameter 'gain[2]' of inner fmu 'a' is Real; the value is "
		 "Bool"},
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		int inner_clause = cases[k][0][0] == '\t';
		snprintf(text, sizeof text, "semantic adaptation reactive moore wrap\n"
		         "at \"./wrap.fmu\"\n\n\tfor inner fmu Array3 a\n\tat \"%s/fmus3/array3.fmu\"\n"
		         "%s\n%s", build_abs(), inner_clause ? cases[k][0] : "",
		         inner_clause ? "input ports Real uu\n" : cases[k][0]);
		write_text(c, "wrap.sa", text);
		for (int fmi = 2; fmi <= 3; fmi++) {
			assert_int_equal(build(c, "wrap.sa", fmi), 1);
			char *err = file_in(c, "err.txt");
			assert_contains(err, cases[k][1]);
			free(err);
		}
	}
}

/* aparam3's array parameters through a pass-through wrapper of either version, set by
 * sacc simulate: one element at a time in FMI 2.0 (a.w[2], scalars there), whole or by
 * element in FMI 3.0.  y = sum of (on[i] ? w[i] u : 0) + off[i], by hand. */
static void simulate_arrays__wrapper_array_parameters__both_versions(void **state)
{
	Ctx *c = *state;
	char text[1024], args[1024];
	snprintf(text, sizeof text, "semantic adaptation reactive mealy ap\nat \"./ap.fmu\"\n\n"
	         "\tfor inner fmu Aparam a\n\tat \"%s/fmus3/aparam3.fmu\"\n", build_abs());
	write_text(c, "ap.sa", text);
	const char *sets[2] = {"--set 'ap.a.w[2]=3' --set 'ap.a.on[2]=true' --set 'ap.a.off[1]=100'",
	                       "--set 'ap.a.w=[0.5,3]' --set 'ap.a.on[2]=true' "
	                       "--set 'ap.a.off[1]=100'"};
	for (int fmi = 2; fmi <= 3; fmi++) {
		assert_int_equal(build(c, "ap.sa", fmi), 0);
		snprintf(args, sizeof args, "'%s/out/ap.fmu' --stop 0.1 --step 0.1 --set 'ap.u=2' %s "
		         "-o '%s'", c->dir, sets[fmi - 2], path_in(c, "ap.csv"));
		assert_int_equal(simulate(c, args), 0);
		assert_cell(path_in(c, "ap.csv"), "ap.y", 1, 0.5 * 2 + 3 * 2 + 100 - 2);
	}
}

/* Lists of references keep an element with a comma in its brackets whole. */
static void csv_list_item__brackets__keep_commas(void **state)
{
	(void)state;
	assert_int_equal(csv_list_item("a.y[1,2],b.x"), 8);
	assert_int_equal(csv_list_item("a.x,b"), 3);
	assert_int_equal(csv_list_item("a.y[1,[2,3]],z"), 12);
	assert_int_equal(csv_list_item("last"), 4);
	assert_int_equal(csv_list_item(""), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			simulate_arrays__one_column_per_element__hand_computed, setup, teardown),
		cmocka_unit_test_setup_teardown(simulate_arrays__set_one_element_and_record_some,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(simulate_arrays__input_columns_feed_elements, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(simulate_arrays__connection_element_by_element,
		                                setup, teardown),
		cmocka_unit_test_setup_teardown(simulate_arrays__errors_name_the_array, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(
			simulate_arrays__two_dimensions__row_major_with_units, setup, teardown),
		cmocka_unit_test_setup_teardown(simulate_arrays__units_converted_per_element, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(simulate_arrays__ssp_link_element_by_element, setup,
		                                teardown),
		cmocka_unit_test_setup_teardown(
			simulate_arrays__wrapper_array_parameters__both_versions, setup, teardown),
		cmocka_unit_test_setup_teardown(build_arrays__refused_by_name, setup, teardown),
		cmocka_unit_test_setup_teardown(simulate_arrays__isolated__same_as_in_process, setup,
		                                teardown),
		cmocka_unit_test(csv_list_item__brackets__keep_commas),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
