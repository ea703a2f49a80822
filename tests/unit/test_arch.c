/*
 * test_arch.c - the chip configuration: the key table, defaults, every
 * shipped config, the --dump round trip, every class of error with its
 * exact message and line, -s overrides, @include, placement and the
 * derived peaks against values computed by hand.
 *
 * Run from the repository root (make test does): fixtures are read from
 * configs/ and tests/configs/.
 */
#define _DEFAULT_SOURCE /* mkstemp, open_memstream under -std=c11 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../arch/arch.h"
#include "../../arch/arch_int.h"
#include "../../util/dtype.h"
#include "testutil.h"

/* The config fuzz target, replayed on its regressions (arch.fuzz_regress). */
#include "../../fuzz/fuzz_cfg.c"
#include "fuzzreplay.h"

/* ---- helpers ----------------------------------------------------------------*/

/* Load with every diagnostic captured as text into *out (caller frees). */
static int load_capture(struct arch *a, const char *path,
			const char *const *ov, int n, char **out)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct diag d;
	int rc;

	ck_assert_ptr_nonnull(fp);
	diag_init(&d, fp);
	rc = arch_load(a, path, ov, n, &d);
	fclose(fp);
	*out = buf;
	return rc;
}

/* Load that must succeed with no output at all. */
static void load_ok(struct arch *a, const char *path, const char *const *ov,
		    int n)
{
	char *out;
	int rc = load_capture(a, path, ov, n, &out);

	ck_assert_msg(rc == 0, "%s: rc %d:\n%s", path ? path : "<defaults>", rc,
		      out);
	ck_assert_str_eq(out, "");
	free(out);
}

/* Load that must fail with exactly these diagnostics (one per line). */
static void load_fails(const char *path, const char *const *ov, int n,
		       const char *expect)
{
	struct arch a;
	char *out;
	int rc = load_capture(&a, path, ov, n, &out);

	ck_assert_int_eq(rc, NPU_ECONFIG);
	ck_assert_str_eq(out, expect);
	/* a failed load leaves nothing behind */
	ck_assert_ptr_null(a.path);
	ck_assert_ptr_null(a.files);
	ck_assert_ptr_null(a.d.core_node);
	arch_free(&a);
	free(out);
}

/* Relative closeness for derived rates (products of exact integers and a
 * clock that is not always exact in binary). */
static void near(double got, double want)
{
	ck_assert_msg(fabs(got - want) <= 1e-9 * fabs(want),
		      "got %.17g want %.17g", got, want);
}

/* Every value and every derived quantity identical, bit for bit. */
static void assert_same(const struct arch *x, const struct arch *y)
{
	int i, k;

	for (i = 0; i < P_N; i++) {
		const char *key = param_info[i].key;

		switch (param_info[i].type) {
		case PT_INT:
		case PT_BOOL:
		case PT_ENUM:
			ck_assert_msg(x->v[i].i == y->v[i].i, "%s: %lld vs %lld",
				      key, (long long)x->v[i].i,
				      (long long)y->v[i].i);
			break;
		case PT_FLT:
			ck_assert_msg(memcmp(&x->v[i].f, &y->v[i].f,
					     sizeof(double)) == 0,
				      "%s: %.17g vs %.17g", key, x->v[i].f,
				      y->v[i].f);
			break;
		case PT_STR:
			ck_assert_str_eq(x->v[i].s, y->v[i].s);
			break;
		case PT_LIST:
			ck_assert_int_eq(x->v[i].l.n, y->v[i].l.n);
			for (k = 0; k < x->v[i].l.n; k++)
				ck_assert_int_eq(x->v[i].l.v[k], y->v[i].l.v[k]);
			break;
		}
	}
	ck_assert(ARCH_PEAK(x, MACS_PER_S_CORE) == ARCH_PEAK(y, MACS_PER_S_CORE));
	ck_assert(ARCH_PEAK(x, MACS_PER_S_CHIP) == ARCH_PEAK(y, MACS_PER_S_CHIP));
	ck_assert(ARCH_PEAK(x, SPM_BYTES_PER_S) == ARCH_PEAK(y, SPM_BYTES_PER_S));
	ck_assert(ARCH_PEAK(x, ACC_BYTES_PER_S) == ARCH_PEAK(y, ACC_BYTES_PER_S));
	ck_assert(ARCH_PEAK(x, NOC_BISECTION_BYTES_PER_S) ==
		  ARCH_PEAK(y, NOC_BISECTION_BYTES_PER_S));
	ck_assert(ARCH_PEAK(x, DRAM_BYTES_PER_S) == ARCH_PEAK(y, DRAM_BYTES_PER_S));
	ck_assert(ARCH_PEAK(x, VEC_OPS_PER_S) == ARCH_PEAK(y, VEC_OPS_PER_S));
	for (k = 0; k < ARCH_I(x, CHIP_CORES); k++)
		ck_assert_int_eq(x->d.core_node[k], y->d.core_node[k]);
	for (k = 0; k < ARCH_I(x, DRAM_CHANNELS); k++)
		ck_assert_int_eq(x->d.dram_node[k], y->d.dram_node[k]);
}

/* Dump a to a temp file, load it back, compare; returns the dump text. */
static char *roundtrip(const struct arch *a)
{
	char path[] = "/tmp/npusim-test-arch-XXXXXX";
	int fd = mkstemp(path);
	FILE *fp;
	struct arch b;
	char *text;
	long n;

	ck_assert_int_ge(fd, 0);
	fp = fdopen(fd, "w+");
	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(arch_dump(a, fp), 0);
	n = ftell(fp);
	text = calloc(1, (size_t)n + 1);
	rewind(fp);
	ck_assert_int_eq(fread(text, 1, (size_t)n, fp), n);
	fclose(fp);
	load_ok(&b, path, NULL, 0);
	assert_same(a, &b);
	arch_free(&b);
	unlink(path);
	return text;
}

/* ---- the table ----------------------------------------------------------------*/

START_TEST(arch_table_keys_unique_and_grouped)
{
	int i, j;

	for (i = 0; i < P_N; i++) {
		const char *k = param_info[i].key;

		ck_assert_ptr_nonnull(k);
		ck_assert_ptr_nonnull(param_info[i].doc);
		ck_assert_msg(strlen(param_info[i].doc) > 10, "%s: no doc", k);
		ck_assert_int_eq(arch_find_key(k), i);
		for (j = 0; j < i; j++) {
			size_t n = strlen(param_info[j].key);

			ck_assert_str_ne(param_info[j].key, k);
			/* no key may also be a group ("a.b" and "a.b.c") */
			ck_assert_msg(!(strncmp(k, param_info[j].key, n) == 0 &&
					k[n] == '.'),
				      "%s is a group of %s", param_info[j].key, k);
		}
		/* keys are lowercase dotted names libconfig accepts */
		for (j = 0; k[j]; j++)
			ck_assert_msg((k[j] >= 'a' && k[j] <= 'z') ||
					      (k[j] >= '0' && k[j] <= '9') ||
					      k[j] == '_' || k[j] == '.',
				      "bad char in %s", k);
	}
	ck_assert_int_eq(arch_find_key("core.matrix.rwos"), -1);
}
END_TEST

START_TEST(arch_table_defaults_in_range)
{
	int i;

	for (i = 0; i < P_N; i++) {
		const struct param_info *p = &param_info[i];

		if (p->type == PT_INT || p->type == PT_FLT) {
			ck_assert_msg(p->lo <= p->def && p->def <= p->hi,
				      "%s default %g outside %g..%g", p->key,
				      p->def, p->lo, p->hi);
			/* preset-backed keys default to 0 = "from preset" */
			if (arch_is_preset_key(i))
				ck_assert_msg(p->def == 0 && p->lo == 0 &&
						      strstr(p->doc, "0 = from preset"),
					      "%s", p->key);
		}
		if (p->type == PT_ENUM) {
			ck_assert_int_ge(arch_enum_count(i), 2);
			ck_assert_int_ge(arch_enum_find(i, p->sdef), 0);
		}
	}
}
END_TEST

/*
 * Every ENUM key's generated constants against the loader's own split of
 * its value string: ARCH_<ID>_<VALUE> is the index of "value", ARCH_N_<ID>
 * the number of names, and the joined string has nothing else in it.  The
 * rows come from params.def itself, so a new key is covered unasked.
 */
struct enum_val {
	enum param_id id;   /* the key */
	int value;          /* ARCH_<ID>_<VALUE> */
	int n;              /* ARCH_N_<ID> */
	const char *name;   /* the value's name */
	const char *cname;  /* "ARCH_<ID>_<VALUE>", for messages */
};

static const struct enum_val enum_vals[] = {
#define EV(k, v, name) { P_##k, ARCH_##k##_##v, ARCH_N_##k, name, "ARCH_" #k "_" #v },
#define PINT(id, key, def, lo, hi, unit, doc)
#define PFLT(id, key, def, lo, hi, unit, doc)
#define PBOOL(id, key, def, doc)
#define PENUM(id, key, def, doc) ARCH_VALS_##id(EV, id)
#define PSTR(id, key, def, doc)
#define PLIST(id, key, lo, hi, unit, doc)
#include "../../arch/params.def"
#undef PINT
#undef PFLT
#undef PBOOL
#undef PENUM
#undef PSTR
#undef PLIST
#undef EV
};

START_TEST(arch_table_enum_constants_match_names)
{
	size_t k;
	int i, seen[P_N] = { 0 }, n_enum = 0;

	for (k = 0; k < sizeof(enum_vals) / sizeof(enum_vals[0]); k++) {
		const struct enum_val *e = &enum_vals[k];

		ck_assert_int_eq(param_info[e->id].type, PT_ENUM);
		ck_assert_msg(arch_enum_find(e->id, e->name) == e->value,
			      "%s = %d but \"%s\" is value %d of %s", e->cname,
			      e->value, e->name, arch_enum_find(e->id, e->name),
			      param_info[e->id].key);
		ck_assert_str_eq(arch_enum_at(e->id, e->value), e->name);
		ck_assert_int_eq(arch_enum_count(e->id), e->n);
		seen[e->id]++;
	}
	/* every value of every ENUM key has a constant, and only those */
	for (i = 0; i < P_N; i++) {
		if (param_info[i].type != PT_ENUM) {
			ck_assert_int_eq(seen[i], 0);
			continue;
		}
		n_enum++;
		ck_assert_msg(seen[i] == arch_enum_count(i), "%s: %d constants, "
			      "%d names", param_info[i].key, seen[i],
			      arch_enum_count(i));
	}
	ck_assert_int_ge(n_enum, 12);
	/* a few spelled out, as code uses them */
	ck_assert_int_eq(ARCH_NOC_TOPOLOGY_TORUS,
			 arch_enum_find(P_NOC_TOPOLOGY, "torus"));
	ck_assert_int_eq(ARCH_DRAM_MODE_IDEAL, arch_enum_find(P_DRAM_MODE, "ideal"));
	ck_assert_int_eq(ARCH_MTX_MODEL_PE, arch_enum_find(P_MTX_MODEL, "pe"));
	/* dram.mapping is a field string; the old enum names still load */
	ck_assert_int_eq(param_info[P_DRAM_MAPPING].type, PT_STR);
}
END_TEST

START_TEST(arch_table_enums_match_dtypes_and_presets)
{
	int k;

	/* in_type and acc_type names are npusim dtypes */
	for (k = 0; k < arch_enum_count(P_MTX_IN_TYPE); k++)
		ck_assert_int_ge(dtype_from_name(arch_enum_at(P_MTX_IN_TYPE, k)), 0);
	for (k = 0; k < arch_enum_count(P_MTX_ACC_TYPE); k++)
		ck_assert_int_ge(dtype_from_name(arch_enum_at(P_MTX_ACC_TYPE, k)), 0);
	ck_assert_int_eq(arch_dtype_bits(arch_enum_find(P_MTX_IN_TYPE, "int4")), 4);
	ck_assert_int_eq(arch_dtype_bits(arch_enum_find(P_MTX_IN_TYPE, "bf16")), 16);
	ck_assert_int_eq(arch_dtype_bits(arch_enum_find(P_MTX_IN_TYPE, "fp32")), 32);
	ck_assert_ptr_null(arch_enum_at(P_MTX_IN_TYPE, 99));
	ck_assert_int_eq(arch_enum_find(P_MTX_DATAFLOW, "xx"), -1);
	/* one preset per dram.preset name, each filling every preset key */
	ck_assert_int_eq(arch_enum_count(P_DRAM_PRESET), ARCH_N_DRAM_PRESET);
	for (k = 0; k < ARCH_N_DRAM_PRESET; k++) {
		struct arch a;
		char set[64];
		const char *ov[1] = { set };

		snprintf(set, sizeof(set), "dram.preset=%s",
			 arch_enum_at(P_DRAM_PRESET, k));
		load_ok(&a, NULL, ov, 1);
		ck_assert(ARCH_F(&a, DRAM_TCK) > 0);
		ck_assert_int_gt(ARCH_I(&a, DRAM_BUS_BITS), 0);
		ck_assert_int_gt(ARCH_I(&a, DRAM_TRFC), 0);
		ck_assert_int_eq(ARCH_I(&a, DRAM_BEATS_PER_TCK),
				 k == ARCH_DRAM_PRESET_LPDDR5_6400 ? 8 : 2);
		arch_free(&a);
	}
}
END_TEST

/* ---- defaults and shipped configs ---------------------------------------------*/

START_TEST(arch_defaults_resolved)
{
	struct arch a;
	int n, i;
	const int64_t *l;

	ck_assert_int_eq(arch_init_defaults(&a), 0);
	for (i = 0; i < P_N; i++) {
		const struct param_info *p = &param_info[i];

		ck_assert_ptr_null(a.src[i].file);
		if (p->type == PT_INT && p->def != 0)
			ck_assert_int_eq(a.v[i].i, (int64_t)p->def);
		if (p->type == PT_ENUM)
			ck_assert_str_eq(arch_enum_name(&a, i), p->sdef);
	}
	ck_assert_str_eq(ARCH_S(&a, CHIP_NAME), "npusim-default");
	ck_assert_str_eq(arch_enum_name(&a, P_DRAM_PRESET), "lpddr5_6400");
	/* LPDDR5: 800 MHz CK, x16 channel, data at 8 beats per CK */
	ck_assert(ARCH_F(&a, DRAM_TCK) == 1.25);
	ck_assert_int_eq(ARCH_I(&a, DRAM_BUS_BITS), 16);
	ck_assert_int_eq(ARCH_I(&a, DRAM_BEATS_PER_TCK), 8);
	/* default placement: core 0 on node 0, channel 0 on node 1 */
	l = arch_list(&a, P_NOC_CORE_NODES, &n);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(l[0], 0);
	l = arch_list(&a, P_NOC_DRAM_NODES, &n);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(l[0], 1);
	ck_assert_int_eq(a.d.core_node[0], 0);
	ck_assert_int_eq(a.d.dram_node[0], 1);
	ck_assert(arch_clock_hz(&a) == 1e9);
	arch_free(&a);
	arch_free(&a); /* idempotent */
}
END_TEST

START_TEST(arch_configs_all_load)
{
	static const char *const must[] = { "default.cfg", "tpu-v1.cfg",
					     "gemmini.cfg", "datacenter.cfg" };
	int found[4] = { 0 }, n = 0, k;
	DIR *dir = opendir("configs");
	struct dirent *e;

	ck_assert_ptr_nonnull(dir);
	while ((e = readdir(dir))) {
		size_t len = strlen(e->d_name);
		char path[512];
		struct arch a;
		char *dump;

		if (len < 5 || strcmp(e->d_name + len - 4, ".cfg") != 0)
			continue;
		snprintf(path, sizeof(path), "configs/%s", e->d_name);
		load_ok(&a, path, NULL, 0);
		/* every shipped config survives its own dump */
		dump = roundtrip(&a);
		free(dump);
		arch_free(&a);
		for (k = 0; k < 4; k++)
			found[k] |= strcmp(e->d_name, must[k]) == 0;
		n++;
	}
	closedir(dir);
	for (k = 0; k < 4; k++)
		ck_assert_msg(found[k], "configs/%s missing", must[k]);
	ck_assert_int_ge(n, 4);
}
END_TEST

START_TEST(arch_config_default_peaks)
{
	struct arch a;

	load_ok(&a, "configs/default.cfg", NULL, 0);
	ck_assert_int_eq(ARCH_I(&a, MTX_ROWS), 32);
	ck_assert_str_eq(arch_enum_name(&a, P_MTX_DATAFLOW), "ws");
	ck_assert_int_eq(ARCH_I(&a, SPM_BYTES), 256 * 1024);
	ck_assert_int_eq(ARCH_I(&a, SPM_BANKS), 8);
	ck_assert_int_eq(ARCH_I(&a, ACC_BYTES), 64 * 1024);
	/* by hand: 32 x 32 PEs at 1 GHz */
	near(ARCH_PEAK(&a, MACS_PER_S_CORE), 1024e9);
	near(ARCH_PEAK(&a, MACS_PER_S_CHIP), 1024e9);
	/* 8 banks x 16 B x 1 port; 4 banks x 32 B x 1 port */
	near(ARCH_PEAK(&a, SPM_BYTES_PER_S), 128e9);
	near(ARCH_PEAK(&a, ACC_BYTES_PER_S), 128e9);
	/* 2x1 mesh: one link, 32 B, both directions */
	near(ARCH_PEAK(&a, NOC_BISECTION_BYTES_PER_S), 64e9);
	/* LPDDR5-6400 x16: 6400 MT/s x 2 B = 12.8 GB/s */
	near(ARCH_PEAK(&a, DRAM_BYTES_PER_S), 12.8e9);
	near(ARCH_PEAK(&a, VEC_OPS_PER_S), 16e9);
	arch_free(&a);
}
END_TEST

START_TEST(arch_config_tpu_v1_peaks)
{
	struct arch a;

	load_ok(&a, "configs/tpu-v1.cfg", NULL, 0);
	ck_assert_int_eq(ARCH_I(&a, MTX_ROWS) * ARCH_I(&a, MTX_COLS), 65536);
	ck_assert_int_eq(ARCH_I(&a, SPM_BYTES), 24LL << 20);
	ck_assert_int_eq(ARCH_I(&a, ACC_BYTES), 4LL << 20);
	ck_assert_int_eq(ARCH_I(&a, DRAM_BYTES), 8LL << 30);
	ck_assert(ARCH_B(&a, MTX_WEIGHT_DB));
	/* Jouppi et al.: 65536 MACs x 0.7 GHz = 45.9 TMAC/s = 92 TOPS */
	near(ARCH_PEAK(&a, MACS_PER_S_CHIP), 65536 * 0.7e9);
	ck_assert_int_eq((int)lround(2 * ARCH_PEAK(&a, MACS_PER_S_CHIP) / 1e12), 92);
	ck_assert_int_eq((int)lround(ARCH_PEAK(&a, MACS_PER_S_CHIP) / 1e11), 459);
	/* ideal DRAM: the configured 30 GB/s */
	near(ARCH_PEAK(&a, DRAM_BYTES_PER_S), 30e9);
	/* 4 banks x 256 B at 700 MHz; 4 x 1 KiB */
	near(ARCH_PEAK(&a, SPM_BYTES_PER_S), 4 * 256 * 0.7e9);
	near(ARCH_PEAK(&a, ACC_BYTES_PER_S), 4 * 1024 * 0.7e9);
	/* 3x1 mesh: one cut link of 64 B, two directions */
	near(ARCH_PEAK(&a, NOC_BISECTION_BYTES_PER_S), 64 * 2 * 0.7e9);
	ck_assert_int_eq(a.d.dram_node[0], 1);
	ck_assert_int_eq(a.d.dram_node[1], 2);
	arch_free(&a);
}
END_TEST

START_TEST(arch_config_datacenter_peaks)
{
	struct arch a;
	int k, x, y;

	load_ok(&a, "configs/datacenter.cfg", NULL, 0);
	ck_assert_int_eq(ARCH_I(&a, CHIP_CORES), 16);
	ck_assert_str_eq(arch_enum_name(&a, P_MTX_IN_TYPE), "bf16");
	ck_assert_str_eq(arch_enum_name(&a, P_MTX_ACC_TYPE), "fp32");
	ck_assert_str_eq(arch_enum_name(&a, P_DRAM_PRESET), "hbm3");
	/* cores fill the inner 4x4 of the 6x6 mesh */
	for (k = 0; k < 16; k++) {
		x = a.d.core_node[k] % 6;
		y = a.d.core_node[k] / 6;
		ck_assert_int_eq(x, 1 + k % 4);
		ck_assert_int_eq(y, 1 + k / 4);
	}
	/* DRAM channels on edge nodes, never corners */
	for (k = 0; k < 16; k++) {
		x = a.d.dram_node[k] % 6;
		y = a.d.dram_node[k] / 6;
		ck_assert(x == 0 || x == 5 || y == 0 || y == 5);
		ck_assert(!((x == 0 || x == 5) && (y == 0 || y == 5)));
	}
	near(ARCH_PEAK(&a, MACS_PER_S_CHIP), 16.0 * 128 * 128 * 1.2e9);
	/* 6x6 mesh: the cut crosses 6 links of 64 B, two directions */
	near(ARCH_PEAK(&a, NOC_BISECTION_BYTES_PER_S), 6 * 64 * 2 * 1.2e9);
	/* DDR-type formula with the resolved preset values */
	near(ARCH_PEAK(&a, DRAM_BYTES_PER_S),
	     16.0 * (double)ARCH_I(&a, DRAM_BUS_BITS) / 8 *
		     (double)ARCH_I(&a, DRAM_BEATS_PER_TCK) /
		     (ARCH_F(&a, DRAM_TCK) * 1e-9));
	arch_free(&a);
}
END_TEST

START_TEST(arch_peaks_torus_and_single_node)
{
	static const char *const torus[] = {
		"noc.topology=torus", "noc.cols=4", "noc.rows=3", "chip.cores=4",
	};
	static const char *const one[] = { "noc.cols=3", "noc.rows=1",
					   "dram.mode=ideal",
					   "dram.ideal.bandwidth_gbps=12.5" };
	struct arch a;

	load_ok(&a, NULL, torus, 4);
	/* cut across the 4-wide dimension: 3 rows, doubled by wraparound */
	near(ARCH_PEAK(&a, NOC_BISECTION_BYTES_PER_S), 2 * 3 * 32 * 2 * 1e9);
	near(ARCH_PEAK(&a, MACS_PER_S_CHIP), 4 * 1024e9);
	arch_free(&a);
	load_ok(&a, NULL, one, 4);
	near(ARCH_PEAK(&a, NOC_BISECTION_BYTES_PER_S), 1 * 32 * 2 * 1e9);
	near(ARCH_PEAK(&a, DRAM_BYTES_PER_S), 12.5e9);
	arch_free(&a);
}
END_TEST

/* ---- dump ---------------------------------------------------------------------*/

START_TEST(arch_dump_roundtrip_overrides)
{
	static const char *const ov[] = {
		"chip.name=quote\" back\\slash\ttab\nnewline", "chip.clock_ghz=0.123456789",
		"core.matrix.dataflow=os", "core.matrix.weight_double_buffer=true",
		"dram.tcl=40", "energy.mac_pj_int8=1e-7",
		"core.scratchpad.bytes=4G", "core.scratchpad.bank_width=4096",
		"noc.cols=4", "noc.rows=4", "noc.core_nodes=[5]",
		"noc.dram_nodes=[15]",
	};
	struct arch a;
	char *text;

	load_ok(&a, "configs/gemmini.cfg", ov, 12);
	ck_assert_int_eq(ARCH_I(&a, SPM_BYTES), 4294967296LL);
	text = roundtrip(&a);
	/* > 32-bit integers carry libconfig's L; provenance is marked */
	ck_assert_ptr_nonnull(strstr(text, "bytes = 4294967296L;"));
	ck_assert_ptr_nonnull(strstr(text, "tcl = 40;"));
	ck_assert_ptr_nonnull(strstr(text, "(set by -s)"));
	ck_assert_ptr_nonnull(strstr(text, "(= dram.preset)"));
	/* dram.tcl = 40 differs from the preset: marked as set, not preset */
	{
		const char *l = strstr(text, "tcl = 40;");
		const char *nl = strchr(l, '\n');
		const char *m = strstr(l, "(= dram.preset)");

		ck_assert_ptr_nonnull(strstr(l, "(set by -s)"));
		ck_assert(m == NULL || m > nl);
		l = strstr(text, "trcd = ");
		nl = strchr(l, '\n');
		m = strstr(l, "(= dram.preset)");
		ck_assert(m != NULL && m < nl);
	}
	ck_assert_ptr_nonnull(strstr(text, "# ---- derived peaks"));
	ck_assert_ptr_nonnull(strstr(text, "name = \"quote\\\" back\\\\slash\\ttab\\nnewline\";"));
	/* the name in the header comment cannot break the comment */
	ck_assert_ptr_nonnull(strstr(text, "# quote\" back\\slash?tab?newline: resolved"));
	free(text);
	arch_free(&a);
	/* the include fixture and the 64-bit fixture round-trip too */
	load_ok(&a, "tests/configs/inc-main.cfg", NULL, 0);
	free(roundtrip(&a));
	arch_free(&a);
	load_ok(&a, "tests/configs/ok-bigint.cfg", NULL, 0);
	free(roundtrip(&a));
	arch_free(&a);
}
END_TEST

START_TEST(arch_dump_peaks_text)
{
	struct arch a;
	char *text;

	load_ok(&a, "configs/tpu-v1.cfg", NULL, 0);
	text = roundtrip(&a);
	ck_assert_ptr_nonnull(strstr(text, "chip = {\n  name = \"tpu-v1\";"));
	ck_assert_ptr_nonnull(strstr(text, "  matrix = {\n    rows = 256;"));
	ck_assert_ptr_nonnull(strstr(text, "clock_ghz = 0.7;"));
	ck_assert_ptr_nonnull(strstr(text, "4.58752e+13 (45.9 T)"));
	ck_assert_ptr_nonnull(strstr(text, "9.17504e+13 (91.8 T)"));
	ck_assert_ptr_nonnull(strstr(text, "# DRAM bytes/s = dram.ideal.bandwidth_gbps x 1e9 = 3e+10 (30 G)"));
	/* a group is opened once even when its keys are not contiguous */
	ck_assert_ptr_null(strstr(strstr(text, "ideal = {") + 1, "ideal = {"));
	free(text);
	arch_free(&a);
}
END_TEST

/* ---- error classes ------------------------------------------------------------*/

START_TEST(arch_err_unknown_keys)
{
	load_fails("tests/configs/bad-keys.cfg", NULL, 0,
		"tests/configs/bad-keys.cfg:4: error: unknown key 'core.matrix.rwos' (did you mean 'core.matrix.rows'?)\n"
		"tests/configs/bad-keys.cfg:6: error: unknown group 'core.matrx' (did you mean 'core.matrix'?)\n"
		"tests/configs/bad-keys.cfg:8: error: unknown key 'rows' (did you mean 'core.matrix.rows'?)\n"
		"tests/configs/bad-keys.cfg:9: error: unknown key 'dram.latency_ns' (did you mean 'dram.ideal.latency_ns'?)\n"
		"tests/configs/bad-keys.cfg:10: error: unknown key 'frobnicate' (see 'npusim config --keys')\n"
		"tests/configs/bad-keys.cfg:11: error: chip: expected a group of settings (chip = { ... }; holding e.g. chip.name), got an integer\n");
}
END_TEST

START_TEST(arch_err_types)
{
	load_fails("tests/configs/bad-types.cfg", NULL, 0,
		"tests/configs/bad-types.cfg:3: error: chip.cores: expected an integer (core), got a string\n"
		"tests/configs/bad-types.cfg:4: error: chip.clock_ghz: expected a number (GHz), got a boolean\n"
		"tests/configs/bad-types.cfg:7: error: core.matrix.rows: expected an integer (PE), got a float\n"
		"tests/configs/bad-types.cfg:7: error: core.matrix.dataflow: expected a string, one of \"ws\", \"os\", \"is\", got an integer\n"
		"tests/configs/bad-types.cfg:7: error: core.matrix.weight_double_buffer: expected true or false, got an integer\n"
		"tests/configs/bad-types.cfg:8: error: core.scratchpad.bytes: expected an integer (byte), got a group\n"
		"tests/configs/bad-types.cfg:10: error: noc.core_nodes[1]: expected an integer (node), got a float\n"
		"tests/configs/bad-types.cfg:10: error: noc.dram_nodes: expected a list of integers (node) like [0, 1, 2], got an integer\n");
}
END_TEST

START_TEST(arch_err_range_and_enum)
{
	load_fails("tests/configs/bad-range.cfg", NULL, 0,
		"tests/configs/bad-range.cfg:2: error: chip.clock_ghz = 250 is out of range; must be 0.001 .. 100 GHz\n"
		"tests/configs/bad-range.cfg:2: error: chip.cores = 0 is out of range; must be 1 .. 4096 core\n"
		"tests/configs/bad-range.cfg:4: error: core.matrix.cols = 5000 is out of range; must be 1 .. 4096 PE\n"
		"tests/configs/bad-range.cfg:4: error: core.matrix.dataflow = \"wss\" is not allowed; use one of \"ws\", \"os\", \"is\" (did you mean \"ws\"?)\n"
		"tests/configs/bad-range.cfg:4: error: core.matrix.in_type = \"int9\" is not allowed; use one of \"int4\", \"int8\", \"int16\", \"fp8e4m3\", \"fp8e5m2\", \"fp16\", \"bf16\", \"fp32\" (did you mean \"int4\"?)\n"
		"tests/configs/bad-range.cfg:6: error: noc.core_nodes[0] = 70000 is out of range; must be 0 .. 65535 node\n"
		"tests/configs/bad-range.cfg:7: error: integer 8589934592 does not fit in 32 bits and libconfig would read it wrongly; write 8589934592L (64-bit suffix)\n"
		"tests/configs/bad-range.cfg:7: error: dram.ideal.bandwidth_gbps = 0 is out of range; must be 0.001 .. 100000 GB/s\n");
}
END_TEST

START_TEST(arch_err_syntax_and_files)
{
	load_fails("tests/configs/bad-syntax.cfg", NULL, 0,
		   "tests/configs/bad-syntax.cfg:4: error: syntax error\n");
	load_fails("tests/configs/no-such.cfg", NULL, 0,
		   "tests/configs/no-such.cfg: error: cannot open the config file: No such file or directory\n");
	load_fails("tests/configs/inc-missing.cfg", NULL, 0,
		   "tests/configs/inc-missing.cfg:2: error: cannot open include file\n");
	/* Regression: @include of a directory made libconfig 1.5's scanner
	 * exit(2) with "input in flex scanner failed"; now file:line, also
	 * nested, and a directory as the config itself. */
	load_fails("tests/configs/inc-dir.cfg", NULL, 0,
		   "tests/configs/inc-dir.cfg:3: error: @include \"inc-parts\": tests/configs/inc-parts is a directory, not a config file\n");
	load_fails("tests/configs/inc-dir-nested.cfg", NULL, 0,
		   "tests/configs/inc-parts/dir-part.cfg:3: error: @include \".\": tests/configs/. is a directory, not a config file\n");
	load_fails("tests/configs/inc-dev.cfg", NULL, 0,
		   "tests/configs/inc-dev.cfg:2: error: @include \"/dev/null\": /dev/null is a device or pipe, not a config file\n");
	load_fails("tests/configs/inc-unterminated.cfg", NULL, 0,
		   "tests/configs/inc-unterminated.cfg:2: error: @include needs a file name in double quotes on one line, without backslashes\n");
	load_fails("tests/configs", NULL, 0,
		   "tests/configs: error: cannot read the config file: Is a directory\n");
	/* an error inside an included file names that file and line */
	load_fails("tests/configs/inc-bad.cfg", NULL, 0,
		   "tests/configs/inc-parts/bad-part.cfg:3: error: unknown key 'core.vector.lanez' (did you mean 'core.vector.lanes'?)\n");
}
END_TEST

START_TEST(arch_err_sram_and_types)
{
	load_fails("tests/configs/bad-sram.cfg", NULL, 0,
		"tests/configs/bad-sram.cfg:7: error: core.scratchpad.bank_width = 24 is not a power of two; bank interleaving takes address bits, so use e.g. 16 or 32\n"
		"tests/configs/bad-sram.cfg:5: error: core.scratchpad.bytes = 4096 is not a multiple of core.scratchpad.banks x core.scratchpad.bank_width = 3 x 24 = 72 bytes; use 4032 or 4104\n"
		"tests/configs/bad-sram.cfg:3: error: core.matrix.acc_type = \"int32\" cannot accumulate core.matrix.in_type = \"bf16\"; use acc_type = \"fp32\"\n"
		"tests/configs/bad-sram.cfg:5: error: core.scratchpad.bytes = 4096 cannot hold one 64x64 bf16 tile of the array (8192 bytes); make it at least that\n"
		"tests/configs/bad-sram.cfg:10: error: core.accumulator.bytes = 128 cannot hold one output row of the array (core.matrix.cols = 64 x 4 bytes = 256)\n");
}
END_TEST

START_TEST(arch_err_placement)
{
	static const char *const big[] = { "chip.cores=2" };

	load_fails("tests/configs/bad-noc.cfg", NULL, 0,
		"tests/configs/bad-noc.cfg:6: error: noc.core_nodes[2] = 1: node 1 already holds core 1; each node holds one core or one DRAM channel\n"
		"tests/configs/bad-noc.cfg:7: error: noc.dram_nodes[0] = 0: node 0 already holds core 0; each node holds one core or one DRAM channel\n"
		"tests/configs/bad-noc.cfg:7: error: noc.dram_nodes[1] = 9 is outside the 3x2 NoC (nodes 0 .. 5; node = y * noc.cols + x)\n");
	load_fails("tests/configs/bad-noc2.cfg", NULL, 0,
		"tests/configs/bad-noc2.cfg:8: error: noc.core_nodes has 1 entry but chip.cores = 2; give one node per core or leave it empty ([]) for the default placement\n"
		"tests/configs/bad-noc2.cfg:5: error: a torus needs 1 or at least 3 nodes per dimension (noc.cols = 2, noc.rows = 3): a ring of 2 links the same two routers twice; use noc.topology = \"mesh\" or 3+ nodes\n"
		"tests/configs/bad-noc2.cfg:7: error: noc.topology = \"torus\" needs noc.vcs >= 2: dimension-order routing on a ring deadlocks without a second (dateline) virtual channel\n");
	/* a rule broken only by an override points at the command line */
	load_fails("configs/default.cfg", big, 1,
		"<command line>: error: chip.cores = 2 and dram.channels = 1 need 3 NoC nodes (one each) but the 2x1 NoC has 2; enlarge noc.cols / noc.rows\n");
}
END_TEST

START_TEST(arch_err_dram)
{
	load_fails("tests/configs/bad-dram.cfg", NULL, 0,
		"tests/configs/bad-dram.cfg:4: error: chip.cores = 1 and dram.channels = 2 need 3 NoC nodes (one each) but the 2x1 NoC has 2; enlarge noc.cols / noc.rows\n"
		"tests/configs/bad-dram.cfg:5: error: dram.bytes = 1000000 is not a multiple of dram.channels x dram.row_bytes = 2 x 8192 = 16384; use 999424 or 1015808\n"
		"tests/configs/bad-dram.cfg:6: error: dram.tras = 10 is shorter than dram.trcd = 20; a row must stay open at least until it can be read\n"
		"tests/configs/bad-dram.cfg:8: error: dram.trfc = 20000 leaves no room for a column command before the next refresh of its banks: dram.trfc + 86 (a refresh's wait for open rows and an ACT's trcd) must be below dram.trefi = 12480\n");
	load_fails("tests/configs/bad-dram2.cfg", NULL, 0,
		"tests/configs/bad-dram2.cfg:4: error: dram.bus_bits = 12 is not a whole number of bytes; use a multiple of 8\n"
		"tests/configs/bad-dram2.cfg:6: error: dram.bytes = 268435456 exceeds what the devices hold: channels x ranks x banks x rows x row_bytes = 4194304; lower dram.bytes or add channels/rows\n");
}
END_TEST

START_TEST(arch_err_all_reported_with_exit_code)
{
	struct arch a;
	char *out, *p;
	int lines = 0;

	ck_assert_int_eq(load_capture(&a, "tests/configs/bad-types.cfg", NULL, 0,
				      &out), NPU_ECONFIG);
	for (p = out; *p; p++)
		lines += *p == '\n';
	ck_assert_int_eq(lines, 8);
	ck_assert_int_eq(npu_exit_status(NPU_ECONFIG), 2);
	free(out);
}
END_TEST

/* ---- @include, 64-bit literals ------------------------------------------------*/

START_TEST(arch_include_values_and_source)
{
	struct arch a;

	load_ok(&a, "tests/configs/inc-main.cfg", NULL, 0);
	ck_assert_str_eq(ARCH_S(&a, CHIP_NAME), "with \"include\"");
	ck_assert_str_eq(arch_enum_name(&a, P_DRAM_PRESET), "hbm2e");
	ck_assert_int_eq(ARCH_I(&a, DRAM_CHANNELS), 4);
	ck_assert_int_eq(ARCH_I(&a, DRAM_BYTES), 64LL << 20);
	ck_assert_int_eq(ARCH_I(&a, NOC_COLS), 3);
	/* the included value remembers its own file and line */
	ck_assert_str_eq(a.src[P_DRAM_CHANNELS].file,
			 "tests/configs/inc-parts/dram-hbm.cfg");
	ck_assert_int_eq(a.src[P_DRAM_CHANNELS].line, 4);
	ck_assert_str_eq(a.src[P_NOC_COLS].file, "tests/configs/inc-main.cfg");
	ck_assert_int_eq(a.src[P_NOC_COLS].line, 4);
	/* cores on 0,1 then channels on 2..5 of the 3x3 NoC */
	ck_assert_int_eq(a.d.core_node[1], 1);
	ck_assert_int_eq(a.d.dram_node[0], 2);
	ck_assert_int_eq(a.d.dram_node[3], 5);
	arch_free(&a);
}
END_TEST

START_TEST(arch_bigint_with_suffix)
{
	struct arch a;

	load_ok(&a, "tests/configs/ok-bigint.cfg", NULL, 0);
	ck_assert_int_eq(ARCH_I(&a, SPM_BYTES), 4294967296LL);
	ck_assert_int_eq(ARCH_I(&a, DRAM_BYTES), 1099511627776LL);
	ck_assert(ARCH_F(&a, DRAM_IDEAL_BW) == 100.0); /* int for a float key */
	ck_assert(ARCH_F(&a, DRAM_IDEAL_LAT) == 0.0);
	near(ARCH_PEAK(&a, DRAM_BYTES_PER_S), 100e9);
	arch_free(&a);
}
END_TEST

/* Write text to dir/name (a scratch file of a test). */
static void put_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(fputs(text, fp) >= 0, 1);
	fclose(fp);
}

/*
 * arch.cfg_audit: the lexer of libconfig 1.5's too-wide literals, on its
 * own.  Numbers in comments, strings and names ("b-5") are none; line
 * numbers count the lines of a block comment; an @include is followed
 * against incdir; a literal is claimed once, by its line and misread
 * value, and the unclaimed ones come out in the order found.
 */
START_TEST(arch_cfg_audit)
{
	struct cfg_audit au;
	char dir[256], top[300], part[300];
	const char *file, *msg;
	int line;

	test_tmp_template(dir, sizeof(dir), "npusim-test-audit-");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	put_file(dir, "top.cfg",
		 "a = \"4294967296\"; /* 4294967296\n */ b-5 = 1;\n"
		 "c = 4294967296;\n"
		 "@include \"part.cfg\"\n");
	put_file(dir, "part.cfg",
		 "d = [1,\n 0x100000000,\n 5000000000L ];\n"
		 "e = 99999999999999999999L; f = 2.5e10;\n");
	snprintf(top, sizeof(top), "%s/top.cfg", dir);
	snprintf(part, sizeof(part), "%s/part.cfg", dir);
	memset(&au, 0, sizeof(au));
	au.incdir = dir;
	cfg_audit_file(&au, top);
	ck_assert_int_eq(au.nomem, 0);
	ck_assert_int_eq(au.n_badlits, 3);
	ck_assert_ptr_null(cfg_audit_claim(&au, top, 1, 0));
	ck_assert_ptr_null(cfg_audit_claim(&au, top, 3, 1));
	ck_assert_str_eq(cfg_audit_claim(&au, top, 3, 0),
			 "integer 4294967296 does not fit in 32 bits and libconfig would read it wrongly; write 4294967296L (64-bit suffix)");
	ck_assert_ptr_null(cfg_audit_claim(&au, top, 3, 0));
	ck_assert_int_eq(cfg_audit_unclaimed(&au, &file, &line, &msg), 1);
	ck_assert_str_eq(file, part);
	ck_assert_int_eq(line, 2);
	ck_assert_str_eq(msg, "integer 0x100000000 does not fit in 32 bits and libconfig would read it wrongly; write 0x100000000L (64-bit suffix)");
	ck_assert_int_eq(cfg_audit_unclaimed(&au, &file, &line, &msg), 1);
	ck_assert_int_eq(line, 4);
	ck_assert_str_eq(msg, "integer 99999999999999999999L does not fit in 64 bits");
	ck_assert_int_eq(cfg_audit_unclaimed(&au, &file, &line, &msg), 0);
	cfg_audit_free(&au);
	ck_assert_int_eq(au.n_seen, 0);
	unlink(top);
	unlink(part);
	rmdir(dir);
}
END_TEST

/* ---- overrides ----------------------------------------------------------------*/

START_TEST(arch_override_types)
{
	static const char *const ov[] = {
		"core.scratchpad.bytes=512K", "core.accumulator.bytes = 0x20000",
		"dram.bytes=1G", "chip.clock_ghz=0.75", "chip.name=my chip",
		"core.matrix.weight_double_buffer=1", "core.matrix.dataflow=\"is\"",
		"noc.cols=4", "noc.rows=2", "chip.cores=3", "noc.core_nodes=(7, 6,5)",
		"noc.dram_nodes=[]", "core.matrix.rows=8", "core.matrix.rows=16",
		"core.matrix.cols=040",
	};
	struct arch a;
	int n;
	const int64_t *l;

	load_ok(&a, "configs/default.cfg", ov, 15);
	ck_assert_int_eq(ARCH_I(&a, SPM_BYTES), 512 * 1024);
	ck_assert_int_eq(ARCH_I(&a, ACC_BYTES), 0x20000);
	ck_assert_int_eq(ARCH_I(&a, DRAM_BYTES), 1LL << 30);
	ck_assert(ARCH_F(&a, CHIP_CLOCK_GHZ) == 0.75);
	ck_assert_str_eq(ARCH_S(&a, CHIP_NAME), "my chip");
	ck_assert(ARCH_B(&a, MTX_WEIGHT_DB));
	ck_assert_str_eq(arch_enum_name(&a, P_MTX_DATAFLOW), "is");
	/* a leading zero is decimal, as in libconfig files */
	ck_assert_int_eq(ARCH_I(&a, MTX_COLS), 40);
	/* applied in order: the last one wins */
	ck_assert_int_eq(ARCH_I(&a, MTX_ROWS), 16);
	l = arch_list(&a, P_NOC_CORE_NODES, &n);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(l[0], 7);
	ck_assert_int_eq(l[2], 5);
	/* "[]" replaced the file's [1]: channel 0 takes the lowest free node */
	ck_assert_int_eq(a.d.dram_node[0], 0);
	ck_assert_str_eq(a.src[P_MTX_ROWS].file, "<command line>");
	ck_assert_int_eq(a.src[P_MTX_ROWS].line, 0);
	ck_assert_str_eq(a.src[P_MTX_DATAFLOW].file, "<command line>");
	ck_assert_str_eq(a.src[P_MTX_ACC_TYPE].file, "configs/default.cfg");
	ck_assert_int_eq(a.src[P_MTX_ACC_TYPE].line, 37);
	arch_free(&a);
}
END_TEST

START_TEST(arch_router_multicast_needs_whole_packets)
{
	/* gemmini: 64-byte bursts over 16-byte links are 5-flit packets,
	 * more than its 4-flit buffers */
	static const char *const ov[] = { "noc.multicast=router" };
	static const char *const ok[] = { "noc.multicast=router",
					  "noc.buffer_depth=5" };
	struct arch a;

	load_fails("configs/gemmini.cfg", ov, 1,
		"<command line>: error: noc.multicast = \"router\" needs a multicast "
		"packet to fit in one virtual channel's buffer: noc.buffer_depth = 4 "
		"flits, a packet of one DMA burst (64 bytes over 16-byte flits, plus "
		"the head) is 5; raise noc.buffer_depth or use noc.multicast = "
		"\"source\"\n");
	load_ok(&a, "configs/gemmini.cfg", ok, 2);
	arch_free(&a);
}
END_TEST

START_TEST(arch_override_errors)
{
	static const char *const ov[] = {
		"core.matrix.rows", "core.matirx.rows=3", "core.matrix=3",
		"core.matrix.rows=abc", "core.matrix.rows=99999999999999999999",
		"dram.bytes=16777216T", "core.matrix.cols=0", "chip.clock_ghz=fast",
		"core.matrix.weight_double_buffer=yes", "dram.mode=ideall",
		"noc.core_nodes=[0,,1]", "noc.dram_nodes=[1,70000]",
	};

	load_fails(NULL, ov, 12,
		"<command line>: error: -s 'core.matrix.rows': expected key=value\n"
		"<command line>: error: unknown key 'core.matirx.rows' (did you mean 'core.matrix.rows'?)\n"
		"<command line>: error: -s core.matrix=3: 'core.matrix' is a group; set one of its keys (e.g. core.matrix.rows=...)\n"
		"<command line>: error: core.matrix.rows: 'abc' is not an integer (PE; K/M/G/T suffixes multiply by 1024^n)\n"
		"<command line>: error: core.matrix.rows: '99999999999999999999' is not an integer (PE; K/M/G/T suffixes multiply by 1024^n)\n"
		"<command line>: error: dram.bytes: '16777216T' is not an integer (byte; K/M/G/T suffixes multiply by 1024^n)\n"
		"<command line>: error: core.matrix.cols = 0 is out of range; must be 1 .. 4096 PE\n"
		"<command line>: error: chip.clock_ghz: 'fast' is not a number (GHz)\n"
		"<command line>: error: core.matrix.weight_double_buffer: 'yes' is not true or false\n"
		"<command line>: error: dram.mode = \"ideall\" is not allowed; use one of \"timed\", \"ideal\" (did you mean \"ideal\"?)\n"
		"<command line>: error: noc.core_nodes[1]: '' is not an integer; write a list like [0,1,2]\n"
		"<command line>: error: noc.dram_nodes[1] = 70000 is out of range; must be 0 .. 65535 node\n");
}
END_TEST

START_TEST(arch_override_fixes_file_error)
{
	static const char *const fix[] = { "core.matrix.cols=64",
					   "core.matrix.dataflow=os" };
	static const char *const fix2[] = { "noc.cols=3" };
	struct arch a;
	char *out;

	/* a bad value in the file still fails even when -s replaces it: the
	 * file itself is wrong */
	ck_assert_int_eq(load_capture(&a, "tests/configs/bad-range.cfg", fix, 2,
				      &out), NPU_ECONFIG);
	free(out);
	/* a cross-key rule the override satisfies passes */
	load_ok(&a, "tests/configs/bad-dram.cfg",
		(const char *const[]){ "noc.cols=3", "dram.bytes=16M",
				       "dram.tras=52", "dram.trcd=22",
				       "dram.trfc=560" }, 5);
	ck_assert_int_eq(ARCH_I(&a, DRAM_BYTES), 16LL << 20);
	arch_free(&a);
	ck_assert_int_eq(load_capture(&a, "tests/configs/bad-dram.cfg", fix2, 1,
				      &out), NPU_ECONFIG);
	ck_assert_ptr_null(strstr(out, "NoC nodes"));
	free(out);
}
END_TEST

/* ---- placement ---------------------------------------------------------------*/

START_TEST(arch_placement_fills_free_nodes)
{
	static const char *const ov[] = { "noc.cols=3", "noc.rows=2",
					  "chip.cores=2", "dram.channels=4",
					  "noc.core_nodes=[1,3]" };
	struct arch a;

	load_ok(&a, NULL, ov, 5);
	ck_assert_int_eq(a.d.core_node[0], 1);
	ck_assert_int_eq(a.d.core_node[1], 3);
	/* channels take the lowest free nodes: 0, 2, 4, 5 */
	ck_assert_int_eq(a.d.dram_node[0], 0);
	ck_assert_int_eq(a.d.dram_node[1], 2);
	ck_assert_int_eq(a.d.dram_node[2], 4);
	ck_assert_int_eq(a.d.dram_node[3], 5);
	arch_free(&a);
}
END_TEST

/* ---- text outputs ---------------------------------------------------------------*/

START_TEST(arch_doc_and_keys_cover_every_key)
{
	char *doc = NULL, *keys = NULL, *sum = NULL, want[160];
	size_t dn = 0, kn = 0, sn = 0;
	FILE *fp;
	struct arch a;
	int i, lines = 0;

	fp = open_memstream(&doc, &dn);
	arch_write_doc(fp);
	fclose(fp);
	fp = open_memstream(&keys, &kn);
	arch_list_keys(fp);
	fclose(fp);
	for (i = 0; i < P_N; i++) {
		snprintf(want, sizeof(want), "| `%s` |", param_info[i].key);
		ck_assert_msg(strstr(doc, want), "docs lack %s", param_info[i].key);
		snprintf(want, sizeof(want), "\n%s ", param_info[i].key);
		ck_assert_msg(strstr(keys, want), "--keys lacks %s",
			      param_info[i].key);
	}
	for (i = 0; keys[i]; i++)
		lines += keys[i] == '\n';
	ck_assert_int_eq(lines, P_N + 1);
	ck_assert_ptr_nonnull(strstr(doc, "### `core.matrix`"));
	ck_assert_ptr_nonnull(strstr(doc, "## Validation"));
	ck_assert_ptr_nonnull(strstr(doc, "## Derived peaks"));
	load_ok(&a, "configs/tpu-v1.cfg", NULL, 0);
	fp = open_memstream(&sum, &sn);
	arch_summary(&a, fp);
	fclose(fp);
	ck_assert_ptr_nonnull(strstr(sum, "45.9 TMAC/s"));
	ck_assert_ptr_nonnull(strstr(sum, "24 MiB"));
	arch_free(&a);
	free(doc);
	free(keys);
	free(sum);
}
END_TEST

/* ---- fuzz regressions ------------------------------------------------------*/

/*
 * Every input of fuzz/regress/cfg (crashers and hangs the fuzzer found)
 * and of its seed corpus fuzz/corpus/cfg, through the fuzz target itself
 * (fuzz/fuzz_cfg.c, included above): its invariants trap on failure.
 */
START_TEST(arch_fuzz_regress)
{
	ck_assert_int_gt(fuzz_replay_dir("fuzz/regress/cfg"), 0);
	ck_assert_int_gt(fuzz_replay_dir("fuzz/corpus/cfg"), 0);
}
END_TEST

static Suite *suite_arch(void)
{
	Suite *s = suite_create("arch");

	TEST_ADD(s, arch_table_keys_unique_and_grouped);
	TEST_ADD(s, arch_table_defaults_in_range);
	TEST_ADD(s, arch_table_enum_constants_match_names);
	TEST_ADD(s, arch_table_enums_match_dtypes_and_presets);
	TEST_ADD(s, arch_defaults_resolved);
	TEST_ADD(s, arch_configs_all_load);
	TEST_ADD(s, arch_config_default_peaks);
	TEST_ADD(s, arch_config_tpu_v1_peaks);
	TEST_ADD(s, arch_config_datacenter_peaks);
	TEST_ADD(s, arch_peaks_torus_and_single_node);
	TEST_ADD(s, arch_dump_roundtrip_overrides);
	TEST_ADD(s, arch_dump_peaks_text);
	TEST_ADD(s, arch_err_unknown_keys);
	TEST_ADD(s, arch_err_types);
	TEST_ADD(s, arch_err_range_and_enum);
	TEST_ADD(s, arch_err_syntax_and_files);
	TEST_ADD(s, arch_err_sram_and_types);
	TEST_ADD(s, arch_err_placement);
	TEST_ADD(s, arch_err_dram);
	TEST_ADD(s, arch_err_all_reported_with_exit_code);
	TEST_ADD(s, arch_include_values_and_source);
	TEST_ADD(s, arch_fuzz_regress);
	TEST_ADD(s, arch_bigint_with_suffix);
	TEST_ADD(s, arch_cfg_audit);
	TEST_ADD(s, arch_override_types);
	TEST_ADD(s, arch_override_errors);
	TEST_ADD(s, arch_router_multicast_needs_whole_packets);
	TEST_ADD(s, arch_override_fixes_file_error);
	TEST_ADD(s, arch_placement_fills_free_nodes);
	TEST_ADD(s, arch_doc_and_keys_cover_every_key);
	return s;
}

TEST_MAIN(suite_arch)
