/*
 * test_api.c - the public C API (include/npusim.h) through its own
 * header only, as a user's program sees it: the tables it mirrors
 * (error messages, element types, peaks) and models (npusim_model_*) on a
 * SCALE-Sim topology, whose numbers the test knows without a reference
 * simulator: every layer's MACs are M x N x K, and the model's counters
 * and regions are the run's.  tests/python covers the same calls on ONNX
 * models against the CLI.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "../../include/npusim.h"
#include "testutil.h"

/* Three GEMM layers: M, N, K. */
static const char topo[] =
	"Layer, M, N, K,\n"
	"a,32,48,16,\n"
	"b,64,16,48,\n"
	"c,8,8,64,\n";
static const uint64_t topo_macs[3] = { 32 * 48 * 16, 64 * 16 * 48, 8 * 8 * 64 };

/* The topology as DIR/t.csv in a new scratch folder (path: 256 bytes;
 * topo_done removes both). */
static void topo_file(char *path, size_t n)
{
	FILE *f;

	test_tmp_template(path, n - 8, "topo");
	ck_assert_ptr_nonnull(mkdtemp(path));
	strcat(path, "/t.csv");
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(topo, f);
	fclose(f);
}

static void topo_done(char *path)
{
	unlink(path);
	*strrchr(path, '/') = 0;
	rmdir(path);
}

START_TEST(api_tables)
{
	ck_assert_str_eq(npusim_strerror(NPUSIM_ENOMEM), "out of memory");
	ck_assert_str_eq(npusim_strerror(NPUSIM_EIO), "I/O error");
	ck_assert_str_eq(npusim_strerror(-100), "unknown error");
	ck_assert_str_eq(npusim_dtype_name(NPUSIM_BF16), "bf16");
	ck_assert_str_eq(npusim_dtype_name(NPUSIM_INT4), "int4");
	ck_assert_ptr_null(npusim_dtype_name(NPUSIM_FP32 + 1));
	/* every listed peak has a value; the first two are config values */
	npusim_config *cfg;
	double v;
	int k;

	ck_assert_int_eq(npusim_config_load(NULL, NULL, 0, &cfg, NULL), 0);
	ck_assert_str_eq(npusim_peak_name(0), "clock_ghz");
	for (k = 0; npusim_peak_name(k); k++)
		ck_assert_int_eq(npusim_config_peak(cfg, npusim_peak_name(k), &v), 0);
	ck_assert_int_gt(k, 10);
	ck_assert_int_eq(npusim_config_peak(cfg, "nonsense", &v), NPUSIM_EINVAL);
	npusim_config_free(cfg);
}
END_TEST

START_TEST(api_model_topology)
{
	struct npusim_model_opts o = { .dtype = -1 };
	struct npusim_result res;
	struct npusim_layer L;
	npusim_config *cfg;
	npusim_model *m;
	npusim_run *r;
	char path[256], *err = NULL;
	uint64_t sum = 0;
	double v;
	int i, n_layers = 0;

	topo_file(path, sizeof path);
	ck_assert_int_eq(npusim_config_load(NULL, NULL, 0, &cfg, NULL), 0);
	o.kernels = "asm/kernels";
	ck_assert_msg(npusim_model_load(cfg, path, &o, &m, &err) == 0, "%s", err);
	ck_assert_int_ge(npusim_model_io_count(m, 0), 1);
	ck_assert_int_eq(npusim_model_layer_count(m), 0);
	ck_assert_msg(npusim_model_go(m, &res) == 0, "%s", npusim_model_error(m));
	ck_assert_uint_gt(res.cycles, 0);
	/* one layer per row, each with exactly its MACs, inside the run */
	ck_assert_int_eq(npusim_model_layer_count(m), 3);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(npusim_model_layer_get(m, i, &L), 0);
		ck_assert_uint_eq(L.macs, topo_macs[i]);
		ck_assert_uint_gt(L.cycles, 0);
		ck_assert(L.mac_util > 0 && L.mac_util <= 1);
		sum += L.cycles;
	}
	ck_assert_uint_le(sum, res.cycles);
	ck_assert_int_eq(npusim_model_layer_get(m, 3, &L), NPUSIM_EINVAL);
	/* the run's counters and a region per layer */
	r = npusim_model_run(m);
	ck_assert_int_eq(npusim_counter(r, "cycles", &v), 0);
	ck_assert(v == (double)res.cycles);
	ck_assert_int_eq(npusim_counter(r, "core0.matrix.macs", &v), 0);
	ck_assert(v >= (double)(topo_macs[0] + topo_macs[1] + topo_macs[2]));
	for (i = 0; i < npusim_region_count(r); i++) {
		const char *name;

		ck_assert_int_eq(npusim_region_get(r, i, &name, NULL, NULL, NULL), 0);
		n_layers += name[0] == 'L';
	}
	ck_assert_int_eq(n_layers, 3);
	/* outputs of the right size read back; a wrong size is refused */
	{
		const char *name;
		int ndim;
		int64_t shape[8];
		size_t n = 1;
		float *y;

		ck_assert_int_eq(npusim_model_io_get(m, 1, 0, &name, &ndim, shape), 0);
		for (i = 0; i < ndim; i++)
			n *= (size_t)shape[i];
		y = malloc(n * sizeof *y);
		ck_assert_int_eq(npusim_model_read(m, name, y, n), 0);
		for (size_t k = 0; k < n; k++)
			ck_assert(isfinite(y[k]));
		ck_assert_int_eq(npusim_model_read(m, name, y, n + 1), NPUSIM_EINVAL);
		ck_assert_ptr_nonnull(strstr(npusim_model_error(m), "holds"));
		free(y);
	}
	/* the same again: a new chip, the same cycles */
	{
		struct npusim_result again;

		ck_assert_int_eq(npusim_model_go(m, &again), 0);
		ck_assert_uint_eq(again.cycles, res.cycles);
	}
	npusim_model_free(m);
	npusim_config_free(cfg);
	topo_done(path);
}
END_TEST

START_TEST(api_model_errors)
{
	struct npusim_model_opts o = { .dtype = NPUSIM_FP8E4M3 };
	npusim_config *cfg;
	npusim_model *m = NULL;
	char path[256], *err = NULL;

	ck_assert_int_eq(npusim_config_load(NULL, NULL, 0, &cfg, NULL), 0);
	/* a missing file: named in the message, no handle */
	ck_assert_int_eq(npusim_model_load(cfg, "/nonexistent/m.onnx", NULL, &m, &err),
			 NPUSIM_EIO);
	ck_assert_ptr_null(m);
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/m.onnx"));
	npusim_free(err);
	/* a type the models do not run in */
	topo_file(path, sizeof path);
	ck_assert_int_eq(npusim_model_load(cfg, path, &o, &m, &err), NPUSIM_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "NPUSIM_BF16"));
	npusim_free(err);
	/* timing-only takes no values and gives none */
	o.dtype = -1;
	o.timing_only = 1;
	o.kernels = "asm/kernels";
	ck_assert_int_eq(npusim_model_load(cfg, path, &o, &m, NULL), 0);
	{
		const char *name;
		float x = 0;

		ck_assert_int_eq(npusim_model_io_get(m, 0, 0, &name, NULL, NULL), 0);
		ck_assert_int_eq(npusim_model_write(m, name, &x, 1), NPUSIM_EINVAL);
		ck_assert_ptr_nonnull(strstr(npusim_model_error(m), "timing-only"));
		ck_assert_int_eq(npusim_model_go(m, NULL), 0);
		ck_assert_int_eq(npusim_model_io_get(m, 1, 0, &name, NULL, NULL), 0);
		ck_assert_int_eq(npusim_model_read(m, name, &x, 1), NPUSIM_EINVAL);
	}
	npusim_model_free(m);
	npusim_config_free(cfg);
	topo_done(path);
}
END_TEST

static Suite *suite_api(void)
{
	Suite *s = suite_create("api");

	TEST_ADD(s, api_tables);
	TEST_ADD(s, api_model_topology);
	TEST_ADD(s, api_model_errors);
	return s;
}

TEST_MAIN(suite_api)
