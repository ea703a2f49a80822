/*
 * test_roofline.c - counters read back (report/ctrread) and the roofline
 * model and plot (report/roofline).
 *
 *   roofline.read.today        today's layout: sums of the three families,
 *                              breakdowns and float counters ignored
 *   roofline.read.schema2      peaks, per-type peaks, energy, regions
 *   roofline.read.errors       table of bad files: message and code each
 *   roofline.read.big          integers above INT64_MAX, sums that overflow
 *   roofline.read.load         from disk; a missing file is NPU_EIO
 *   roofline.read.fuzz_regress fuzz/regress/ctr inputs are handled cleanly
 *   roofline.eval              intensity, bound and % of roof by hand
 *   roofline.csv               exact CSV of a small chart
 *   roofline.svg.text          escaping, invalid UTF-8, title, determinism
 *   roofline.svg.size          the canvas grows with the legend only
 *   roofline.ceiling.gemm      a GEMM on a 32x32 array: compute-bound,
 *                              tile quantisation (200/224)^2, by hand
 *   roofline.ceiling.gemv      a GEMV: DRAM-bound, quantisation 1
 *   roofline.ceiling.dwconv    a depthwise conv on the vector unit
 *   roofline.ceiling.os_pack   OS dataflow, 2 MACs per PE, 4 cores
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../report/ceiling.h"
#include "../../report/ctrread.h"
#include "../../report/roofline.h"
#include "testutil.h"

static int parse(struct ctrread_file *f, const char *text, struct diag *d)
{
	diag_init(d, NULL);
	return ctrread_parse(f, "c.json", text, strlen(text), d);
}

START_TEST(read_today)
{
	static const char *text =
		"{\"npusim_version\": \"0.1.0\", \"config\": \"configs/x.cfg\",\n"
		" \"clock_ghz\": 0.7, \"cycles\": 1000, \"counters\": {\n"
		"  \"core0.matrix.macs\": 100, \"core1.matrix.macs\": 20,\n"
		"  \"core0.matrix.busy_cycles\": 5,\n"
		"  \"core0.scratchpad.read_bytes\": 64, \"core0.scratchpad.write_bytes\": 32,\n"
		"  \"core0.scratchpad.req.dma0.write_bytes\": 32,\n"
		"  \"core0.scratchpad.bank0.reads\": 3,\n"
		"  \"core0.accumulator.read_bytes\": 999,\n"
		"  \"dram.ch0.read_bytes\": 10, \"dram.ch1.write_bytes\": 5,\n"
		"  \"dram2.read_bytes\": 1, \"dram.ch0.bandwidth_gbps\": 1.5,\n"
		"  \"dram.chx.read_bytes\": 7, \"core.matrix.macs\": 7}}";
	struct ctrread_file f;
	struct diag d;

	ck_assert_int_eq(parse(&f, text, &d), 0);
	ck_assert_int_eq(f.schema, 0);
	ck_assert_str_eq(f.version, "0.1.0");
	ck_assert_str_eq(f.config, "configs/x.cfg");
	ck_assert(f.clock_ghz == 0.7);
	ck_assert_uint_eq(f.cycles, 1000);
	ck_assert_uint_eq(f.sums.macs, 120);
	ck_assert_int_eq(f.sums.n_macs, 2);
	ck_assert_uint_eq(f.sums.sram_bytes, 96);
	ck_assert_uint_eq(f.sums.dram_bytes, 16);
	ck_assert_int_eq(f.energy.present, 0);
	ck_assert_int_eq(f.peaks.present, 0);
	ck_assert_int_eq(f.n_regions, 0);
	ctrread_free(&f);
}
END_TEST

START_TEST(read_schema2)
{
	static const char *text =
		"{\"schema\": 2, \"config\": {\"file\": \"a.cfg\", \"hash\": \"0x1\"},\n"
		" \"programs\": [\"p.s\"], \"cycles\": 50, \"clock_ghz\": 1,\n"
		" \"peaks\": {\"macs_per_s_chip\": 1e12, \"dram_bytes_per_s\": 1e10,\n"
		"   \"spm_bytes_per_s\": 1e11, \"vec_ops_per_s\": 5,\n"
		"   \"macs_per_s_by_type\": {\"int8\": 1e12, \"int4\": 2e12}},\n"
		" \"counters\": {\"core0.matrix.macs\": 8},\n"
		" \"energy\": {\"total_pj\": 12.5, \"avg_power_w\": 0.25, \"by_component\": {}},\n"
		" \"regions\": [{\"name\": \"a\", \"core\": 1, \"entries\": 3, \"cycles\": 20,\n"
		"   \"counters\": {\"core1.matrix.macs\": 6, \"dram.ch0.write_bytes\": 4},\n"
		"   \"energy\": {\"total_pj\": 2}},\n"
		"  {\"name\": \"b\", \"cycles\": 0, \"counters\": {}}]}";
	struct ctrread_file f;
	struct diag d;

	ck_assert_int_eq(parse(&f, text, &d), 0);
	ck_assert_int_eq(f.schema, 2);
	ck_assert_str_eq(f.config, "a.cfg");
	ck_assert_int_eq(f.peaks.present, 1);
	ck_assert(f.peaks.peak[ARCH_PEAK_MACS_PER_S_CHIP] == 1e12);
	ck_assert(f.peaks.peak[ARCH_PEAK_DRAM_BYTES_PER_S] == 1e10);
	ck_assert(f.peaks.peak[ARCH_PEAK_SPM_BYTES_PER_S] == 1e11);
	ck_assert_int_eq(f.peaks.n_types, 2);
	ck_assert_str_eq(f.peaks.types[0].type, "int8");
	ck_assert_str_eq(f.peaks.types[1].type, "int4");
	ck_assert(f.peaks.types[1].macs_per_s == 2e12);
	ck_assert_int_eq(f.energy.present, 1);
	ck_assert(f.energy.total_pj == 12.5 && f.energy.avg_power_w == 0.25);
	ck_assert_int_eq(f.n_regions, 2);
	ck_assert_str_eq(f.regions[0].name, "a");
	ck_assert_int_eq(f.regions[0].core, 1);
	ck_assert_uint_eq(f.regions[0].entries, 3);
	ck_assert_uint_eq(f.regions[0].cycles, 20);
	ck_assert_uint_eq(f.regions[0].sums.macs, 6);
	ck_assert_uint_eq(f.regions[0].sums.dram_bytes, 4);
	ck_assert_int_eq(f.regions[0].energy.present, 1);
	ck_assert(f.regions[0].energy.avg_power_w < 0);
	ck_assert_int_eq(f.regions[1].core, -1);
	ck_assert_int_eq(f.regions[1].energy.present, 0);
	ctrread_free(&f);
}
END_TEST

/* Each bad file: the code and a piece of the message. */
static const struct {
	const char *text;
	int err;
	const char *msg;
} bad_files[] = {
	{ "", NPU_ECOUNTERS, "c.json:1:1: error: JSON: unexpected end of data (empty file)" },
	{ "{\"cycles\": 1,\n  \"counters\": {}", NPU_ECOUNTERS, "c.json:2:" },
	{ "{\"cycles\": 1, \"counters\": {}} x", NPU_ECOUNTERS, "c.json:1:31: error: JSON: unexpected character" },
	{ "{\"cycles\": 1, \"clock_ghz\": NaN, \"counters\": {}}", NPU_ECOUNTERS,
	  "clock_ghz: expected a finite number >= 0" },
	{ "[1, 2]", NPU_ECOUNTERS, "top level: expected an object" },
	{ "{\"counters\": {}}", NPU_ECOUNTERS, "cycles: missing" },
	{ "{\"cycles\": 1}", NPU_ECOUNTERS, "counters: missing" },
	{ "{\"cycles\": -1, \"counters\": {}}", NPU_ECOUNTERS, "cycles: expected a non-negative integer" },
	{ "{\"cycles\": 1.5, \"counters\": {}}", NPU_ECOUNTERS, "cycles: expected a non-negative integer" },
	{ "{\"cycles\": 1, \"counters\": []}", NPU_ECOUNTERS, "counters: expected an object" },
	{ "{\"cycles\": 1, \"counters\": {\"core0.matrix.macs\": \"7\"}}", NPU_ECOUNTERS,
	  "counters[\"core0.matrix.macs\"]: expected a non-negative integer" },
	{ "{\"cycles\": 1, \"counters\": {\"dram.ch0.read_bytes\": 2.5}}", NPU_ECOUNTERS,
	  "counters[\"dram.ch0.read_bytes\"]" },
	{ "{\"schema\": 3, \"cycles\": 1, \"counters\": {}}", NPU_ECOUNTERS, "schema 3 is not one" },
	{ "{\"schema\": \"2\", \"cycles\": 1, \"counters\": {}}", NPU_ECOUNTERS, "schema: expected" },
	{ "{\"cycles\": 1, \"clock_ghz\": 0, \"counters\": {}}", NPU_ECOUNTERS, "clock_ghz: must be above 0" },
	{ "{\"cycles\": 1, \"clock_ghz\": \"1\", \"counters\": {}}", NPU_ECOUNTERS, "clock_ghz: expected a number" },
	{ "{\"cycles\": 1, \"counters\": {}, \"energy\": 5}", NPU_ECOUNTERS, "energy: expected an object" },
	{ "{\"cycles\": 1, \"counters\": {}, \"energy\": {}}", NPU_ECOUNTERS, "energy.total_pj: missing" },
	{ "{\"cycles\": 1, \"counters\": {}, \"energy\": {\"total_pj\": -2}}", NPU_ECOUNTERS,
	  "energy.total_pj: expected a finite number >= 0" },
	{ "{\"cycles\": 1, \"counters\": {}, \"peaks\": {\"macs_per_s_by_type\": {\"int8\": true}}}",
	  NPU_ECOUNTERS, "peaks.macs_per_s_by_type.int8: expected a number" },
	{ "{\"cycles\": 1, \"counters\": {}, \"peaks\": {\"macs_per_s_by_type\": {\"\": 1}}}",
	  NPU_ECOUNTERS, "a type name must be" },
	{ "{\"cycles\": 1, \"counters\": {}, \"regions\": {}}", NPU_ECOUNTERS, "regions: expected an array" },
	{ "{\"cycles\": 1, \"counters\": {}, \"regions\": [3]}", NPU_ECOUNTERS, "regions[0]: expected an object" },
	{ "{\"cycles\": 1, \"counters\": {}, \"regions\": [{\"cycles\": 1}]}", NPU_ECOUNTERS,
	  "regions[0].name: expected a string" },
	{ "{\"cycles\": 1, \"counters\": {}, \"regions\": [{\"name\": \"a\", \"cycles\": 1, "
	  "\"counters\": {}}, {\"name\": \"b\", \"cycles\": 1}]}", NPU_ECOUNTERS,
	  "regions[1].counters: expected an object" },
	{ "{\"cycles\": 1, \"counters\": {}, \"regions\": [{\"name\": \"a\", \"core\": -1, "
	  "\"cycles\": 1, \"counters\": {}}]}", NPU_ECOUNTERS, "regions[0].core" },
};

START_TEST(read_errors)
{
	size_t i;

	for (i = 0; i < sizeof(bad_files) / sizeof(bad_files[0]); i++) {
		struct ctrread_file f;
		struct diag d;
		int rc = parse(&f, bad_files[i].text, &d);

		ck_assert_msg(rc == bad_files[i].err, "case %zu: rc %d", i, rc);
		ck_assert_msg(strstr(d.last, bad_files[i].msg) != NULL,
			      "case %zu: '%s' lacks '%s'", i, d.last, bad_files[i].msg);
		ck_assert_int_eq(d.n_errors, 1);
		/* left empty on failure */
		ck_assert_ptr_null(f.regions);
		ck_assert_ptr_null(f.version);
		ctrread_free(&f);
	}
}
END_TEST

START_TEST(read_big)
{
	struct ctrread_file f;
	struct diag d;

	/* 2^64 - 1 is a valid counter value */
	ck_assert_int_eq(parse(&f, "{\"cycles\": 18446744073709551615, \"counters\": "
				   "{\"dram.ch0.read_bytes\": 18446744073709551615}}", &d), 0);
	ck_assert_uint_eq(f.cycles, UINT64_MAX);
	ck_assert_uint_eq(f.sums.dram_bytes, UINT64_MAX);
	ctrread_free(&f);
	/* but their sum is not, nor twice the MACs */
	ck_assert_int_eq(parse(&f, "{\"cycles\": 1, \"counters\": "
				   "{\"dram.ch0.read_bytes\": 18446744073709551615, "
				   "\"dram.ch0.write_bytes\": 1}}", &d), NPU_ECOUNTERS);
	ck_assert_ptr_nonnull(strstr(d.last, "overflows 64 bits"));
	ck_assert_int_eq(parse(&f, "{\"cycles\": 1, \"counters\": "
				   "{\"core0.matrix.macs\": 9223372036854775808}}", &d),
			 NPU_ECOUNTERS);
	ck_assert_ptr_nonnull(strstr(d.last, "MAC count too large"));
	/* beyond 2^64: an error, not a wrapped value */
	ck_assert_int_eq(parse(&f, "{\"cycles\": 1, \"counters\": "
				   "{\"core0.matrix.macs\": 18446744073709551616}}", &d),
			 NPU_ECOUNTERS);
}
END_TEST

START_TEST(read_load)
{
	char path[] = "/tmp/npusim_ctrread_XXXXXX";
	struct ctrread_file f;
	struct diag d;
	FILE *fp;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	fp = fdopen(fd, "w");
	fputs("{\"cycles\": 7, \"counters\": {\"core0.matrix.macs\": 3}}\n", fp);
	fclose(fp);
	diag_init(&d, NULL);
	ck_assert_int_eq(ctrread_load(&f, path, &d), 0);
	ck_assert_uint_eq(f.cycles, 7);
	ck_assert_uint_eq(f.sums.macs, 3);
	ctrread_free(&f);
	remove(path);
	ck_assert_int_eq(ctrread_load(&f, path, &d), NPU_EIO);
	ck_assert_ptr_nonnull(strstr(d.last, "cannot open"));
	/* a directory reads as an error, not as an empty file */
	ck_assert_int_ne(ctrread_load(&f, "/tmp", &d), 0);
}
END_TEST

/* Inputs found by fuzzing the reader and the plot (fuzz/regress/ctr):
 * each is read (or refused with one message) and, when read, plotted. */
static void read_regress_one(const char *path, void *ctx)
{
	struct ctrread_file f;
	struct diag d;
	int rc;

	(void)ctx;
	diag_init(&d, NULL);
	rc = ctrread_load(&f, path, &d);
	ck_assert_msg(rc == 0 || d.n_errors == 1, "%s: %d errors", path,
		      d.n_errors);
	ctrread_free(&f);
}

START_TEST(read_fuzz_regress)
{
	ck_assert_int_gt(test_each_file("fuzz/regress/ctr", read_regress_one,
					NULL), 0);
}
END_TEST

/* A chip of 1 Tops/s (int8), 2 Tops/s (int4), DRAM 10 GB/s (ridge at 100
 * ops/B), scratchpad 100 GB/s. */
static struct roofline_ceiling ceil2[] = {
	{ "int8, fp16", 1e12, 1 },
	{ "int4", 2e12, 0 },
};

static void chart(struct roofline_chart *c, const struct roofline_point *p, int n)
{
	memset(c, 0, sizeof(*c));
	c->chip = "test-chip";
	c->config = "t.cfg";
	c->n_cores = 2;
	c->clock_ghz = 1;
	c->ceilings = ceil2;
	c->n_ceilings = 2;
	c->core_ops_per_s = 5e11;
	c->dram_bytes_per_s = 1e10;
	c->sram_bytes_per_s = 1e11;
	c->points = p;
	c->n_points = n;
}

START_TEST(eval)
{
	/* 1e6 ops over 1e5 DRAM bytes (10 ops/B: roof 1e11) in 20 us (5e10) */
	struct roofline_point p = { "a.json", NULL, 0, 20000, 2e-5, 500000, 100000, 50000,
				0, 0, -1 };
	struct roofline_chart c;
	struct roofline_eval e;

	chart(&c, &p, 1);
	ck_assert(roofline_peak(&c) == 1e12);
	roofline_eval(&c, &p, &e);
	ck_assert_int_eq(e.plotted, 1);
	ck_assert(e.ops == 1e6);
	ck_assert(e.intensity == 10);
	ck_assert(e.sram_intensity == 20);
	ck_assert(fabs(e.attained - 5e10) < 1);
	ck_assert(fabs(e.roof - 1e11) < 1);
	ck_assert_int_eq(e.memory_bound, 1);
	ck_assert(fabs(e.pct - 50) < 1e-9);
	ck_assert(e.power_w < 0);
	/* 1000 ops/B: past the ridge, against the selected 1e12 */
	p.dram_bytes = 1000;
	roofline_eval(&c, &p, &e);
	ck_assert_int_eq(e.memory_bound, 0);
	ck_assert(e.roof == 1e12);
	ck_assert(fabs(e.pct - 5) < 1e-9);
	/* no selected ceiling: the highest is the roof */
	ceil2[0].selected = 0;
	ck_assert(roofline_peak(&c) == 2e12);
	ceil2[0].selected = 1;
	/* energy without a power: derived */
	p.has_energy = 1;
	p.energy_pj = 2e6; /* 2 uJ in 20 us = 0.1 W */
	roofline_eval(&c, &p, &e);
	ck_assert(fabs(e.power_w - 0.1) < 1e-12);
	/* nothing to place */
	p.dram_bytes = 0;
	roofline_eval(&c, &p, &e);
	ck_assert_int_eq(e.plotted, 0);
	p.dram_bytes = 5;
	p.macs = 0;
	roofline_eval(&c, &p, &e);
	ck_assert_int_eq(e.plotted, 0);
}
END_TEST

static char *render(const struct roofline_chart *c, int svg, size_t *len)
{
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, len);

	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(svg ? roofline_write_svg(c, fp) : roofline_write_csv(c, fp), 0);
	fclose(fp);
	return buf;
}

START_TEST(csv)
{
	struct roofline_point p[] = {
		{ "a.json", NULL, 0, 20000, 2e-5, 500000, 100000, 50000, 1, 3e6, 0.15 },
		{ "a.json", "x,\"y\"", 0, 100, 1e-7, 0, 10, 0, 0, 0, -1 },
	};
	struct roofline_chart c;
	size_t len;
	char *s;

	chart(&c, p, 2);
	s = render(&c, 0, &len);
	ck_assert_str_eq(s,
		"file,region,cycles,seconds,macs,ops,dram_bytes,sram_bytes,intensity,"
		"sram_intensity,attained_ops_per_s,roof_ops_per_s,bound,roof_pct,"
		"energy_pj,avg_power_w\n"
		"a.json,,20000,2e-05,500000,1000000,100000,50000,10,20,5e+10,1e+11,"
		"memory,50.00,3e+06,0.15\n"
		"a.json,\"x,\"\"y\"\"\",100,1e-07,0,0,10,0,0,,0,,,,,\n");
	free(s);
}
END_TEST

START_TEST(svg_text)
{
	struct roofline_point p[] = {
		{ "dir/a&b.json", NULL, 0, 20000, 2e-5, 500000, 100000, 50000, 0, 0, -1 },
		{ "dir/a&b.json", "<l1> \"q\" \xff\xc3(\xed\xa0\x80 \xe2\x82\xac", 0,
		  1000, 1e-6, 500, 100, 0, 0, 0, -1 },
		{ "b.json", "idle", 1, 1000, 1e-6, 0, 100, 0, 0, 0, -1 },
	};
	struct roofline_chart c;
	size_t len, len2;
	char *s, *s2;

	chart(&c, p, 3);
	s = render(&c, 1, &len);
	ck_assert_ptr_nonnull(strstr(s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "));
	ck_assert_ptr_nonnull(strstr(s, "Roofline: test-chip"));
	ck_assert_ptr_nonnull(strstr(s, "dir/a&amp;b.json"));
	/* invalid UTF-8 (a stray byte, a truncated sequence, a surrogate)
	 * becomes '?', valid multi-byte characters stay */
	ck_assert_ptr_nonnull(strstr(s, "&lt;l1&gt; &quot;q&quot; ?" "?(??? \xe2\x82\xac"));
	ck_assert_ptr_null(strstr(s, "\xff"));
	/* ceilings: both types of one peak on one label, the other dashed,
	 * one core's peak, both ridges */
	ck_assert_ptr_nonnull(strstr(s, "int8, fp16 peak 1 Tops/s"));
	ck_assert_ptr_nonnull(strstr(s, "int4 peak 2 Tops/s"));
	ck_assert_ptr_nonnull(strstr(s, "one core peak 500 Gops/s"));
	ck_assert_ptr_nonnull(strstr(s, "DRAM ridge 100 ops/B"));
	ck_assert_ptr_nonnull(strstr(s, "scratchpad ridge 10 ops/B"));
	ck_assert_ptr_nonnull(strstr(s, "DRAM 10 GB/s"));
	/* a point that cannot be placed says why */
	ck_assert_ptr_nonnull(strstr(s, ">no MACs</text>"));
	ck_assert_ptr_nonnull(strstr(s, "</svg>\n"));
	/* deterministic */
	s2 = render(&c, 1, &len2);
	ck_assert_uint_eq(len, len2);
	ck_assert_int_eq(memcmp(s, s2, len), 0);
	free(s);
	free(s2);
}
END_TEST

START_TEST(svg_size)
{
	struct roofline_point *p = calloc(100, sizeof(*p));
	struct roofline_chart c;
	int w, h, i;
	size_t len;
	char *s, want[64];

	for (i = 0; i < 100; i++) {
		p[i].file = "m.json";
		p[i].region = "layer";
		p[i].cycles = 1000 + (uint64_t)i;
		p[i].seconds = 1e-6 * (1 + i % 7);
		p[i].macs = 10000 + 977 * (uint64_t)i;
		p[i].dram_bytes = 100 + 31 * (uint64_t)(i % 13);
	}
	chart(&c, p, 1);
	roofline_svg_size(&c, &w, &h);
	ck_assert_int_eq(w, 1000);
	ck_assert_int_eq(h, 640);
	/* the legend needs 92 + 16 x (5 + n) pixels */
	chart(&c, p, 100);
	roofline_svg_size(&c, &w, &h);
	ck_assert_int_eq(h, 92 + 16 * 105);
	s = render(&c, 1, &len);
	snprintf(want, sizeof(want), "width=\"1000\" height=\"%d\"", h);
	ck_assert_ptr_nonnull(strstr(s, want));
	ck_assert_ptr_nonnull(strstr(s, ">100</text>"));
	free(s);
	free(p);
}
END_TEST

/* A 32 x 32 WS array at 1 GHz, one core, 16 vector lanes, an ideal DRAM
 * of 12.8 GB/s (12.8 bytes per cycle), plus the overrides in more. */
static void ceil_chip(struct arch *a, const char *const *more, int n_more)
{
	const char *ov[16] = {
		"core.matrix.rows=32", "core.matrix.cols=32",
		"core.matrix.dataflow=\"ws\"", "chip.clock_ghz=1.0",
		"chip.cores=1", "core.vector.lanes=16",
		"dram.mode=\"ideal\"", "dram.ideal.bandwidth_gbps=12.8",
	};
	int n = 8;
	struct diag d;
	for (int i = 0; i < n_more; i++)
		ov[n++] = more[i];
	diag_init(&d, NULL);
	ck_assert_msg(arch_load(a, NULL, ov, n, &d) == 0, "%s", d.last);
}

START_TEST(ceiling_gemm)
{
	/* M = 1024, K = N = 200 on 32 x 32: K takes 7 row tiles of 32
	 * (224 rows, 200 used), N 7 column tiles: eff = (200/224)^2;
	 * compute = 40,960,000 MACs / (1024 x eff) = 50,176 cycles; the
	 * bytes (A 204,800 + B 40,000 + C 204,800) take 35,125 at 12.8 B
	 * per cycle: compute-bound */
	struct arch a;
	struct ceil_result r;
	struct ceil_work w = { .unit = CEIL_ARRAY, .macs = 1024ull * 200 * 200,
			       .m = 1024, .k = 200, .n = 200,
			       .bytes = 204800 + 40000 + 204800, .cores = 1,
			       .dtype = DT_INT8 };
	ceil_chip(&a, NULL, 0);
	ceil_eval(&a, &w, &r);
	ck_assert_double_eq_tol(r.eff, (200.0 / 224) * (200.0 / 224), 1e-12);
	ck_assert_double_eq_tol(r.peak, 1024, 1e-9);
	ck_assert_double_eq_tol(r.compute, 50176, 1e-6);
	ck_assert_double_eq_tol(r.dram, 449600 / 12.8, 1e-6);
	ck_assert_double_eq_tol(r.cycles, 50176, 1e-6);
	ck_assert_int_eq(r.bound, CEIL_BOUND_ARRAY);
	ck_assert_str_eq(ceil_bound_name(r.bound), "array");
	arch_free(&a);
}
END_TEST

START_TEST(ceiling_gemv)
{
	/* M = 1, K = N = 1024: whole tiles (eff 1), 1,048,576 MACs in
	 * 1,024 cycles; the weights alone are 1 MiB: 1,050,624 bytes /
	 * 12.8 = 82,080 cycles, DRAM-bound */
	struct arch a;
	struct ceil_result r;
	struct ceil_work w = { .unit = CEIL_ARRAY, .macs = 1024ull * 1024,
			       .m = 1, .k = 1024, .n = 1024,
			       .bytes = 1024 + 1048576 + 1024, .cores = 1,
			       .dtype = DT_INT8 };
	ceil_chip(&a, NULL, 0);
	ceil_eval(&a, &w, &r);
	ck_assert_double_eq_tol(r.eff, 1, 1e-12);
	ck_assert_double_eq_tol(r.compute, 1024, 1e-9);
	ck_assert_double_eq_tol(r.cycles, 82080, 1e-6);
	ck_assert_int_eq(r.bound, CEIL_BOUND_DRAM);
	ck_assert_str_eq(ceil_bound_name(r.bound), "dram");
	arch_free(&a);
}
END_TEST

START_TEST(ceiling_dwconv)
{
	/* a 3x3 depthwise conv, 16 channels, 32 x 32 outputs: 147,456
	 * MACs, two vector ops each (vmul, vadd) = 294,912 ops over 16
	 * lanes = 18,432 cycles; its 32,768 + 16,384 + 144 bytes take
	 * 3,852.5 cycles: vector-bound, no array quantisation */
	struct arch a;
	struct ceil_result r;
	struct ceil_work w = { .unit = CEIL_VECTOR, .macs = 147456,
			       .ops = 2 * 147456, .bytes = 32768 + 16384 + 144,
			       .cores = 1, .dtype = DT_INT8 };
	ceil_chip(&a, NULL, 0);
	ceil_eval(&a, &w, &r);
	ck_assert_double_eq_tol(r.eff, 1, 1e-12);
	ck_assert_double_eq_tol(r.peak, 16, 1e-9);
	ck_assert_double_eq_tol(r.compute, 18432, 1e-6);
	ck_assert_double_eq_tol(r.dram, 49296 / 12.8, 1e-6);
	ck_assert_int_eq(r.bound, CEIL_BOUND_VECTOR);
	arch_free(&a);
}
END_TEST

START_TEST(ceiling_os_pack)
{
	/* OS on 4 cores with 2 int8 MACs per PE: M = 40 on 32 rows (40/64),
	 * N = 32 whole, K = 3 streamed 2 at a time (3/4): eff = 0.46875;
	 * peak 4 x 1024 x 2 = 8192 MACs per cycle; 3,840 MACs take
	 * 3840 / (8192 x 0.46875) = 1 cycle */
	static const char *const more[] = { "core.matrix.dataflow=\"os\"",
		"chip.cores=4", "core.matrix.macs_per_pe.int8=2", "noc.cols=5" };
	struct arch a;
	struct ceil_result r;
	struct ceil_work w = { .unit = CEIL_ARRAY, .macs = 40 * 3 * 32,
			       .m = 40, .k = 3, .n = 32, .bytes = 0,
			       .cores = 4, .dtype = DT_INT8 };
	ceil_chip(&a, more, 4);
	ceil_eval(&a, &w, &r);
	ck_assert_double_eq_tol(r.eff, 0.46875, 1e-12);
	ck_assert_double_eq_tol(r.peak, 8192, 1e-9);
	ck_assert_double_eq_tol(r.cycles, 1, 1e-9);
	/* bf16 packs one: the same work is 3/4 quantised on K no more */
	w.dtype = DT_BF16;
	ceil_eval(&a, &w, &r);
	ck_assert_double_eq_tol(r.eff, 40.0 / 64, 1e-12);
	ck_assert_double_eq_tol(r.peak, 4096, 1e-9);
	ck_assert_double_eq_tol(ceil_quant(200, 32), 200.0 / 224, 1e-12);
	ck_assert_double_eq_tol(ceil_quant(64, 32), 1, 1e-12);
	arch_free(&a);
}
END_TEST

static Suite *suite_roofline(void)
{
	Suite *s = suite_create("roofline");

	TEST_ADD(s, read_today);
	TEST_ADD(s, read_schema2);
	TEST_ADD(s, read_errors);
	TEST_ADD(s, read_big);
	TEST_ADD(s, read_load);
	TEST_ADD(s, read_fuzz_regress);
	TEST_ADD(s, eval);
	TEST_ADD(s, csv);
	TEST_ADD(s, svg_text);
	TEST_ADD(s, svg_size);
	TEST_ADD(s, ceiling_gemm);
	TEST_ADD(s, ceiling_gemv);
	TEST_ADD(s, ceiling_dwconv);
	TEST_ADD(s, ceiling_os_pack);
	return s;
}

TEST_MAIN(suite_roofline)
