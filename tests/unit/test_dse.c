/*
 * test_dse.c - sweep specs and their constraints (dse/expr.c, dse/spec.c).
 *
 *   dse.expr.*        precedence, logic, errors with columns
 *   dse.spec.points   values/range/log2/geom, zip groups, numbering
 *   dse.spec.errors   bad specs name file:line and what is wrong
 *   dse.spec.feasible constraints over parameters, config keys and peaks
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../dse/expr.h"
#include "../../dse/spec.h"
#include "testutil.h"

static int look(void *ctx, const char *name, size_t len, double *out)
{
	(void)ctx;
	if (len == 1 && name[0] == 'x') {
		*out = 6;
		return 0;
	}
	if (len == 8 && !memcmp(name, "a.b_c.d2", 8)) {
		*out = 0.5;
		return 0;
	}
	return -1;
}

static double ev(const char *t)
{
	double v = -999;
	char err[128];

	ck_assert_msg(expr_eval(t, look, NULL, &v, err, sizeof(err)) == 0,
		      "'%s': %s", t, err);
	return v;
}

static void ev_err(const char *t, const char *want)
{
	double v;
	char err[128];

	ck_assert_int_eq(expr_eval(t, look, NULL, &v, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, want) != NULL, "'%s': got '%s', want '%s'", t,
		      err, want);
}

START_TEST(dse_expr_values)
{
	ck_assert(ev("1 + 2 * 3") == 7);
	ck_assert(ev("(1 + 2) * 3") == 9);
	ck_assert(ev("x % 4 == 2 && x / 4 > 1") == 1);
	ck_assert(ev("-x + 1") == -5);
	ck_assert(ev("!(x < 6) || 0") == 1);
	ck_assert(ev("x <= 6 && x >= 6 && x != 5") == 1);
	ck_assert(ev("a.b_c.d2 * 4") == 2);
	ck_assert(ev("2e12 > 1.5e12") == 1);
	ck_assert(ev("1 - 2 - 3") == -4);       /* left to right */
	ck_assert(ev("24 / 4 / 2") == 3);
}
END_TEST

START_TEST(dse_expr_errors)
{
	ev_err("x +", "unexpected end at column 4");
	ev_err("(x + 1", "expected ')' at column 7");
	ev_err("y * 2", "unknown name 'y' at column 1");
	ev_err("x / (x - 6)", "division by zero");
	ev_err("x 2", "unexpected text at column 3");
}
END_TEST

/* Write text to a temporary spec file; returns its path (static). */
static const char *spec_file(const char *text)
{
	static char path[64];
	FILE *fp;
	int fd;

	strcpy(path, "/tmp/npusim-spec-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	fp = fdopen(fd, "w");
	fputs(text, fp);
	fclose(fp);
	return path;
}

static int load(struct spec *s, const char *text, char **log)
{
	struct diag d;
	size_t n;
	FILE *mem = open_memstream(log, &n);
	const char *path = spec_file(text);
	int rc;

	diag_init(&d, mem);
	rc = spec_load(s, path, &d);
	fclose(mem);
	unlink(path);
	return rc;
}

START_TEST(dse_spec_points)
{
	struct spec s;
	struct spec_point pt;
	char *log = NULL;

	ck_assert_int_eq(load(&s,
		"program = \"asm/kernels/gemm.s\";\n"
		"params = (\n"
		"  { name = \"core.matrix.rows\"; values = [8, 16]; zip = \"a\"; },\n"
		"  { name = \"TM\"; define = true; range = [32, 96, 32]; },\n"
		"  { name = \"core.matrix.cols\"; values = [4, 32]; zip = \"a\"; },\n"
		"  { name = \"dram.channels\"; log2 = [1, 8]; },\n"
		"  { name = \"chip.clock_ghz\"; geom = [0.5, 2.0, 2.0]; }\n"
		");\n", &log), 0);
	free(log);
	/* dimensions: (rows, cols) 2, TM 3, channels 4 (1 2 4 8), clock 3 */
	ck_assert_int_eq(s.n_dims, 4);
	ck_assert_uint_eq(s.n_points, 2 * 3 * 4 * 3);
	ck_assert_str_eq(s.p[3].values[3], "8");
	ck_assert_str_eq(s.p[4].values[2], "2");
	ck_assert_str_eq(s.p[4].values[0], "0.5");
	/* the last dimension varies fastest; zipped ones move together */
	spec_point(&s, 0, &pt);
	ck_assert_str_eq(spec_value(&s, &pt, 0), "8");
	ck_assert_str_eq(spec_value(&s, &pt, 2), "4");
	spec_point(&s, 1, &pt);
	ck_assert_str_eq(spec_value(&s, &pt, 4), "1");
	spec_point(&s, 3 * 4 * 3, &pt);         /* the second array */
	ck_assert_str_eq(spec_value(&s, &pt, 0), "16");
	ck_assert_str_eq(spec_value(&s, &pt, 2), "32");
	ck_assert_str_eq(spec_value(&s, &pt, 1), "32");
	spec_point(&s, 71, &pt);                /* the last point */
	ck_assert_str_eq(spec_value(&s, &pt, 1), "96");
	ck_assert_str_eq(spec_value(&s, &pt, 3), "8");
	ck_assert_str_eq(spec_value(&s, &pt, 4), "2");
	spec_free(&s);
}
END_TEST

static void load_fails(const char *text, const char *want)
{
	struct spec s;
	char *log = NULL;

	ck_assert_int_ne(load(&s, text, &log), 0);
	ck_assert_msg(log && strstr(log, want), "got '%s', want '%s'", log ? log : "",
		      want);
	/* errors name the spec's line */
	ck_assert_msg(strstr(log, "/tmp/npusim-spec-") != NULL, "%s", log);
	free(log);
	spec_free(&s);
}

START_TEST(dse_spec_errors)
{
	load_fails("params = ();\n", "the spec needs program");
	load_fails("program = \"p.s\";\nparams = ( { name = \"core.matrx.rows\"; "
		   "values = [1]; } );\n", ":2: error: 'core.matrx.rows' is not a config key");
	load_fails("program = \"p.s\";\nparams = (\n { name = \"TM\"; define = true; } );\n",
		   ":3: error: parameter 'TM' needs exactly one of");
	load_fails("program = \"p.s\";\nparams = ( { name = \"TM\"; define = true; "
		   "range = [5, 1]; } );\n", "the range is empty");
	load_fails("program = \"p.s\";\nparams = (\n"
		   " { name = \"core.matrix.rows\"; values = [1, 2]; zip = \"z\"; },\n"
		   " { name = \"core.matrix.cols\"; values = [1]; zip = \"z\"; } );\n",
		   ":4: error: zip group 'z': 'core.matrix.cols' has 1 values");
	load_fails("program = \"p.s\"\nparams = ;\n", "syntax error");
}
END_TEST

START_TEST(dse_spec_feasible)
{
	struct spec s;
	struct spec_point pt;
	char *log = NULL, why[300];
	int line = 0;

	ck_assert_int_eq(load(&s,
		"program = \"p.s\";\n"
		"params = (\n"
		"  { name = \"core.matrix.rows\"; values = [16, 32, 64]; },\n"
		"  { name = \"TM\"; define = true; values = [64, 48]; }\n"
		");\n"
		"constraints = [ \"TM % core.matrix.rows == 0\",\n"
		"                \"peak.macs_per_s <= 2.1e12\" ];\n", &log), 0);
	free(log);
	spec_point(&s, 0, &pt);                  /* 16, 64 */
	ck_assert_int_eq(spec_feasible(&s, &pt, why, sizeof(why), &line), 1);
	spec_point(&s, 3, &pt);                  /* 32, 48 */
	ck_assert_int_eq(spec_feasible(&s, &pt, why, sizeof(why), &line), 0);
	ck_assert_str_eq(why, "TM % core.matrix.rows == 0");
	/* 64 rows x 32 cols at 1 GHz: 2.05 TMAC/s passes, 64x64 would not */
	spec_point(&s, 4, &pt);                  /* 64, 64 */
	ck_assert_int_eq(spec_feasible(&s, &pt, why, sizeof(why), &line), 1);
	spec_free(&s);
	/* every peak by its table name (the alias above is macs_per_s_chip),
	 * the per-type ones too: 16 x 32 PEs at 1 GHz, one int4 MAC each */
	ck_assert_int_eq(load(&s,
		"program = \"p.s\";\n"
		"params = ( { name = \"core.matrix.rows\"; values = [16]; } );\n"
		"constraints = [ \"peak.macs_per_s_chip == 16 * 32 * 1e9\",\n"
		"  \"peak.macs_per_s_int4 == peak.macs_per_s_chip\",\n"
		"  \"peak.noc_bytes_per_s == peak.noc_bisection_bytes_per_s\",\n"
		"  \"peak.vec_ops_per_s > 0 && peak.acc_bytes_per_s > 0\" ];\n",
		&log), 0);
	free(log);
	spec_point(&s, 0, &pt);
	ck_assert_int_eq(spec_feasible(&s, &pt, why, sizeof(why), &line), 1);
	spec_free(&s);
	ck_assert_int_eq(load(&s,
		"program = \"p.s\";\n"
		"params = ( { name = \"core.matrix.rows\"; values = [16]; } );\n"
		"constraints = [ \"core.matrix.rows > nonsense\" ];\n", &log), 0);
	free(log);
	spec_point(&s, 0, &pt);
	ck_assert_int_eq(spec_feasible(&s, &pt, why, sizeof(why), &line), -2);
	ck_assert_int_eq(line, 3);
	ck_assert_str_eq(why, "constraint 'core.matrix.rows > nonsense': "
			 "unknown name 'nonsense' at column 20");
	spec_free(&s);
}
END_TEST

START_TEST(dse_spec_regress)
{
	/* inputs the fuzzer found (fuzz/regress/spec): a failed load must
	 * leave nothing allocated (the asan suite checks for leaks) */
	struct spec s;
	struct diag d;
	FILE *mem;
	char *log = NULL;
	size_t n = 0;

	mem = open_memstream(&log, &n);
	diag_init(&d, mem);
	ck_assert_int_ne(spec_load(&s, "fuzz/regress/spec/leak-failed-load", &d), 0);
	fclose(mem);
	ck_assert_msg(log && strstr(log, "error"), "%s", log ? log : "");
	ck_assert_ptr_null(s.path);
	free(log);
}
END_TEST

static Suite *suite_dse(void)
{
	Suite *s = suite_create("dse");

	TEST_ADD(s, dse_expr_values);
	TEST_ADD(s, dse_expr_errors);
	TEST_ADD(s, dse_spec_points);
	TEST_ADD(s, dse_spec_errors);
	TEST_ADD(s, dse_spec_feasible);
	TEST_ADD(s, dse_spec_regress);
	return s;
}

TEST_MAIN(suite_dse)
