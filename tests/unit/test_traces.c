/*
 * test_traces.c - the output side: counter dumps (exact JSON, CSV and text
 * for small sinks, units, escaping, atomic failure) and the gzip'ed Chrome
 * trace (well-formed JSON checked by a small independent validator, exact
 * text of a tiny trace, time conversion, lanes, determinism, digest).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <json-c/json.h>

#include "../../report/ctrout.h"
#include "../../report/energy.h"
#include "../../trace/trace.h"
#include "testutil.h"

/* ---- helpers ------------------------------------------------------------------*/

static char tmpdir[64];

static void mk_tmpdir(void)
{
	strcpy(tmpdir, "/tmp/npusim_trc_XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void rm_tmpdir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

/* Entries in tmpdir (temporary files included). */
static int n_files(void)
{
	char cmd[128];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A %s | wc -l", tmpdir);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(fscanf(p, "%d", &n), 1);
	pclose(p);
	return n;
}

static char *slurp(const char *path, size_t *n)
{
	FILE *fp = fopen(path, "rb");
	char *b = malloc(1 << 22);

	ck_assert_ptr_nonnull(fp);
	*n = fread(b, 1, (1 << 22) - 1, fp);
	b[*n] = '\0';
	fclose(fp);
	return b;
}

/* Decompress a gzip file with zlib (independent of the writer). */
static char *gunzip(const char *path, size_t *n)
{
	gzFile gz = gzopen(path, "rb");
	size_t cap = 1 << 16, len = 0;
	char *b = malloc(cap);
	int got;

	ck_assert_ptr_nonnull(gz);
	while ((got = gzread(gz, b + len, (unsigned)(cap - len - 1))) > 0) {
		len += (size_t)got;
		if (cap - len < 2) {
			cap *= 2;
			b = realloc(b, cap);
		}
	}
	ck_assert_int_eq(got, 0);
	gzclose(gz);
	b[len] = '\0';
	*n = len;
	return b;
}

/* Print to a string through the FILE* interface. */
static char *print_to_string(enum ctrout_fmt f, const struct ctr_sink *s,
			     const struct ctrout_meta *m)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&buf, &n);

	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(ctrout_print(fp, f, s, m), 0);
	fclose(fp);
	return buf;
}

static int count_of(const char *hay, const char *needle)
{
	int n = 0;

	for (; (hay = strstr(hay, needle)) != NULL; hay++)
		n++;
	return n;
}

/* ---- a small JSON validator (RFC 8259 grammar), for the trace ------------*/

struct jp {
	const char *s; /* text */
	size_t i;      /* position */
	int depth;     /* nesting, to bound recursion */
};

static int j_value(struct jp *p);

static void j_ws(struct jp *p)
{
	while (p->s[p->i] == ' ' || p->s[p->i] == '\n' || p->s[p->i] == '\t' ||
	       p->s[p->i] == '\r')
		p->i++;
}

static int j_string(struct jp *p)
{
	if (p->s[p->i] != '"')
		return 0;
	for (p->i++; p->s[p->i] != '"'; p->i++) {
		unsigned char c = (unsigned char)p->s[p->i];

		if (c < 0x20)
			return 0;
		if (c == '\\') {
			p->i++;
			if (p->s[p->i] == 'u') {
				int k;

				for (k = 1; k <= 4; k++)
					if (!strchr("0123456789abcdefABCDEF",
						    p->s[p->i + k]) ||
					    !p->s[p->i + k])
						return 0;
				p->i += 4;
			} else if (!p->s[p->i] ||
				   !strchr("\"\\/bfnrt", p->s[p->i])) {
				return 0;
			}
		}
	}
	p->i++;
	return 1;
}

static int j_number(struct jp *p)
{
	size_t st;

	if (p->s[p->i] == '-')
		p->i++;
	if (p->s[p->i] == '0')
		p->i++;
	else if (p->s[p->i] >= '1' && p->s[p->i] <= '9')
		while (p->s[p->i] >= '0' && p->s[p->i] <= '9')
			p->i++;
	else
		return 0;
	if (p->s[p->i] == '.') {
		st = ++p->i;
		while (p->s[p->i] >= '0' && p->s[p->i] <= '9')
			p->i++;
		if (p->i == st)
			return 0;
	}
	if (p->s[p->i] == 'e' || p->s[p->i] == 'E') {
		p->i++;
		if (p->s[p->i] == '+' || p->s[p->i] == '-')
			p->i++;
		st = p->i;
		while (p->s[p->i] >= '0' && p->s[p->i] <= '9')
			p->i++;
		if (p->i == st)
			return 0;
	}
	return 1;
}

static int j_seq(struct jp *p, char close, int keyed)
{
	p->i++;
	j_ws(p);
	if (p->s[p->i] == close) {
		p->i++;
		return 1;
	}
	for (;;) {
		j_ws(p);
		if (keyed) {
			if (!j_string(p))
				return 0;
			j_ws(p);
			if (p->s[p->i++] != ':')
				return 0;
		}
		if (!j_value(p))
			return 0;
		j_ws(p);
		if (p->s[p->i] == ',') {
			p->i++;
			continue;
		}
		if (p->s[p->i] == close) {
			p->i++;
			return 1;
		}
		return 0;
	}
}

static int j_value(struct jp *p)
{
	int ok;

	j_ws(p);
	if (++p->depth > 64)
		return 0;
	switch (p->s[p->i]) {
	case '{': ok = j_seq(p, '}', 1); break;
	case '[': ok = j_seq(p, ']', 0); break;
	case '"': ok = j_string(p); break;
	case 't': ok = strncmp(p->s + p->i, "true", 4) == 0; p->i += 4; break;
	case 'f': ok = strncmp(p->s + p->i, "false", 5) == 0; p->i += 5; break;
	case 'n': ok = strncmp(p->s + p->i, "null", 4) == 0; p->i += 4; break;
	default: ok = j_number(p); break;
	}
	p->depth--;
	return ok;
}

static int json_ok(const char *s)
{
	struct jp p = { s, 0, 0 };

	if (!j_value(&p))
		return 0;
	j_ws(&p);
	return s[p.i] == '\0';
}

START_TEST(traces_json_validator_self_check)
{
	ck_assert(json_ok("{\"a\":[1,-2.5e3,true,null,\"x\\u00e9\"]}"));
	ck_assert(!json_ok("{\"a\":1,}"));
	ck_assert(!json_ok("{\"a\":01}"));
	ck_assert(!json_ok("[1 2]"));
	ck_assert(!json_ok("\"tab\there\""));
	ck_assert(!json_ok("{\"a\":nan}"));
}
END_TEST

/* ---- JSON helpers -----------------------------------------------------------------*/

START_TEST(trc_json_escape_cases)
{
	char buf[64];

	ck_assert_uint_eq(trc_json_escape(buf, sizeof(buf), "a\"b\\c\n\t\x01"),
			  17);
	ck_assert_str_eq(buf, "a\\\"b\\\\c\\n\\t\\u0001");
	/* UTF-8 passes through. */
	trc_json_escape(buf, sizeof(buf), "caf\xc3\xa9");
	ck_assert_str_eq(buf, "caf\xc3\xa9");
	/* Truncation keeps escapes whole: room for "ab" and not "\\u0001". */
	ck_assert_uint_eq(trc_json_escape(buf, 6, "ab\x01z"), 9);
	ck_assert_str_eq(buf, "ab");
	ck_assert_uint_eq(trc_json_escape(NULL, 0, "\"\""), 4);
}
END_TEST

START_TEST(trc_json_double_shortest)
{
	char buf[40];

	trc_json_double(buf, sizeof(buf), 0.1);
	ck_assert_str_eq(buf, "0.1");
	trc_json_double(buf, sizeof(buf), 5.0);
	ck_assert_str_eq(buf, "5");
	trc_json_double(buf, sizeof(buf), 1.0 / 3.0);
	ck_assert_str_eq(buf, "0.3333333333333333"); /* 16 digits suffice */
	ck_assert(strtod(buf, NULL) == 1.0 / 3.0);
	trc_json_double(buf, sizeof(buf), 1e300);
	ck_assert_str_eq(buf, "1e+300");
	trc_json_double(buf, sizeof(buf), -2.5e-7);
	ck_assert_str_eq(buf, "-2.5e-07");
	trc_json_double(buf, sizeof(buf), NAN);
	ck_assert_str_eq(buf, "null");
	trc_json_double(buf, sizeof(buf), -INFINITY);
	ck_assert_str_eq(buf, "null");
}
END_TEST

/* ---- counters ------------------------------------------------------------------------*/

START_TEST(ctrout_json_exact)
{
	static const char want[] =
		"{\n"
		"  \"schema\": 2,\n"
		"  \"npusim_version\": \"0.1.0\",\n"
		"  \"config\": {\"file\": \"configs/default.cfg\"},\n"
		"  \"programs\": [\"gemm.s\"],\n"
		"  \"clock_ghz\": 1.5,\n"
		"  \"cycles\": 1000,\n"
		"  \"counters\": {\n"
		"    \"core0.matrix.busy_cycles\": 100,\n"
		"    \"core0.matrix.macs\": 2048,\n"
		"    \"x.ratio\": 0.1,\n"
		"    \"x.bad\": null,\n"
		"    \"we\\\"ird\\\\name\\n\": 18446744073709551615\n"
		"  }\n"
		"}\n";
	struct ctrout_meta m = { "0.1.0", "configs/default.cfg", "gemm.s",
				 1000, 1.5 };
	struct ctr_sink s;
	char *out;

	ctr_sink_init(&s);
	ctr_emit_u64(&s, "core0.matrix", "busy_cycles", 100);
	ctr_emit_u64(&s, "core0.matrix", "macs", 2048);
	ctr_emit_f64(&s, "x", "ratio", 0.1);
	ctr_emit_f64(&s, "x", "bad", NAN);
	ctr_emit_u64(&s, NULL, "we\"ird\\name\n", UINT64_MAX);
	out = print_to_string(CTROUT_JSON, &s, &m);
	ck_assert_str_eq(out, want);
	ck_assert(json_ok(out));
	free(out);
	ctr_sink_free(&s);
}
END_TEST

/* Without metadata strings and counters: the required keys only. */
START_TEST(ctrout_json_minimal)
{
	struct ctrout_meta m = { NULL, NULL, NULL, 7, 0 };
	struct ctr_sink s;
	char *out;

	ctr_sink_init(&s);
	out = print_to_string(CTROUT_JSON, &s, &m);
	ck_assert_str_eq(out, "{\n  \"schema\": 2,\n  \"cycles\": 7,\n  \"counters\": {}\n}\n");
	ck_assert(json_ok(out));
	free(out);
}
END_TEST

START_TEST(ctrout_units)
{
	ck_assert_str_eq(ctrout_unit("core0.matrix.macs"), "MAC");
	ck_assert_str_eq(ctrout_unit("core0.matrix.busy_cycles"), "cycle");
	ck_assert_str_eq(ctrout_unit("core0.dma1.bytes_dram_to_sram"), "byte");
	ck_assert_str_eq(ctrout_unit("core0.noc.hops"), "hop");
	/* "reads" is an SRAM access or a DRAM burst: the path decides. */
	ck_assert_str_eq(ctrout_unit("core0.scratchpad.reads"), "access");
	/* Regression: a per-requestor counter names another unit (matrix)
	 * nearer the leaf than its memory; that unit has no "reads" row. */
	ck_assert_str_eq(ctrout_unit("core0.scratchpad.req.matrix.left.reads"), "access");
	ck_assert_str_eq(ctrout_unit("core0.accumulator.req.dma0.writes"), "access");
	ck_assert_str_eq(ctrout_unit("core0.cycles"), "cycle");
	ck_assert_str_eq(ctrout_unit("core3.accumulator.writes"), "access");
	ck_assert_str_eq(ctrout_unit("dram1.reads"), "burst");
	ck_assert_str_eq(ctrout_unit("chip.dram0.writes"), "burst");
	ck_assert_str_eq(ctrout_unit("core0.mystery.reads"), "");
	ck_assert_str_eq(ctrout_unit("core0.matrix.no_such_counter"), "");
	ck_assert_str_eq(ctrout_unit("reads"), "");
}
END_TEST

START_TEST(ctrout_csv_exact)
{
	static const char want[] =
		"# npusim counters, schema 2\n"
		"# npusim_version: v\n"
		"# config: c\n"
		"# program: p\n"
		"# clock_ghz: 1\n"
		"name,value,unit,region\n"
		"cycles,1000,cycle,\n"
		"core0.scratchpad.reads,300,access,\n"
		"dram0.reads,12,burst,\n"
		"core0.dma0.bytes_dram_to_sram,4096,byte,\n"
		"x.rate,0.25,,\n"
		"\"odd,\"\"name\"\"\",1,,\n";
	struct ctrout_meta m = { "v", "c", "p", 1000, 1.0 };
	struct ctr_sink s;
	char *out;

	ctr_sink_init(&s);
	ctr_emit_u64(&s, "core0.scratchpad", "reads", 300);
	ctr_emit_u64(&s, "dram0", "reads", 12);
	ctr_emit_u64(&s, "core0.dma0", "bytes_dram_to_sram", 4096);
	ctr_emit_f64(&s, "x", "rate", 0.25);
	ctr_emit_u64(&s, NULL, "odd,\"name\"", 1);
	out = print_to_string(CTROUT_CSV, &s, &m);
	ck_assert_str_eq(out, want);
	free(out);
	ctr_sink_free(&s);
}
END_TEST

/* A default chip with these overrides (derived peaks computed). */
static void chip_cfg(struct arch *a, const char *const *ov, int n)
{
	struct diag d;

	diag_init(&d, stderr);
	ck_assert_int_eq(arch_load(a, NULL, ov, n, &d), 0);
}

/* Counters of a small run: 1000 int8 MACs, 100 fp16 MACs, SRAM and DRAM
 * traffic, two activations, 10 flit-hops, emitted as chip_dump does (a
 * unit's own counters with their ids); plus breakdowns and rates, which
 * carry no id and must not be counted twice. */
static void energy_sink(struct ctr_sink *s)
{
	ctr_sink_init(s);
	ctr_emit_id(s, "core0.matrix", CTR_MATRIX_MACS, 1100);
	ctr_emit_id(s, "core0.matrix", CTR_MATRIX_MACS_INT8, 1000);
	ctr_emit_id(s, "core0.matrix", CTR_MATRIX_MACS_FP16, 100);
	ctr_emit_id(s, "core0.vector", CTR_VECTOR_OPS, 50);
	ctr_emit_id(s, "core0.scratchpad", CTR_SRAM_READ_BYTES, 400);
	ctr_emit_id(s, "core0.scratchpad", CTR_SRAM_WRITE_BYTES, 200);
	ctr_emit_u64(s, "core0.scratchpad.req.matrix.left", "read_bytes", 400);
	ctr_emit_id(s, "core0.accumulator", CTR_SRAM_WRITE_BYTES, 100);
	ctr_emit_id(s, "dram.ch0", CTR_DRAM_READ_BYTES, 64);
	ctr_emit_id(s, "dram.ch0", CTR_DRAM_WRITE_BYTES, 32);
	ctr_emit_id(s, "dram.ch0", CTR_DRAM_ACTIVATES, 2);
	/* the network's own counters are "noc.<leaf>": two parts, which a
	 * lookup by name once missed (energy.noc read 0) */
	ctr_emit_id(s, "noc", CTR_NOC_HOPS, 10);
	ctr_emit_u64(s, "noc.dram_read", "hops", 10);
	ctr_emit_f64(s, "dram.ch0", "bandwidth_gbps", 3.5);
}

/* Every part by hand from the config's per-event energies; doubling one
 * energy doubles exactly its part; static power x time. */
START_TEST(energy_by_hand)
{
	static const char *const ov[] = {
		"energy.mac_pj_int8=0.5", "energy.mac_pj_fp16=2", "energy.vector_op_pj=1",
		"energy.sram_read_pj_per_byte=0.25", "energy.sram_write_pj_per_byte=0.5",
		"energy.dram_read_pj_per_byte=10", "energy.dram_write_pj_per_byte=20",
		"energy.dram_activate_pj=100", "energy.noc_pj_per_flit_hop=3",
		"energy.leak_mw_core=1000", "chip.clock_ghz=2",
	};
	const char *ov2[12];
	struct arch a, b;
	struct ctr_sink s;
	struct energy e, f;
	int k;

	chip_cfg(&a, ov, 11);
	energy_sink(&s);
	energy_of(&a, &s, 2000, &e);
	ck_assert(fabs(e.pj[ENERGY_MAC] - (1000 * 0.5 + 100 * 2)) < 1e-9);
	ck_assert(fabs(e.pj[ENERGY_VECTOR] - 50) < 1e-9);
	/* the per-requester breakdown is not added to its scratchpad */
	ck_assert(fabs(e.pj[ENERGY_SRAM_READ] - 400 * 0.25) < 1e-9);
	ck_assert(fabs(e.pj[ENERGY_SRAM_WRITE] - 300 * 0.5) < 1e-9);
	ck_assert(fabs(e.pj[ENERGY_DRAM_READ] - 640) < 1e-9);
	ck_assert(fabs(e.pj[ENERGY_DRAM_WRITE] - 640) < 1e-9);
	ck_assert(fabs(e.pj[ENERGY_DRAM_ACTIVATE] - 200) < 1e-9);
	ck_assert(fabs(e.pj[ENERGY_NOC] - 30) < 1e-9);
	/* 2000 cycles at 2 GHz = 1000 ns; 1000 mW x 1000 ns = 1e6 pJ */
	ck_assert(fabs(e.pj[ENERGY_STATIC] - 1e6) < 1e-6);
	ck_assert(fabs(e.avg_power_w - e.total_pj / 1000.0 / 1000.0) < 1e-12);
	/* doubling energy.mac_pj_int8 adds exactly 1000 x 0.5 to mac only */
	for (k = 0; k < 11; k++)
		ov2[k] = ov[k];
	ov2[11] = "energy.mac_pj_int8=1";
	chip_cfg(&b, ov2, 12);
	energy_of(&b, &s, 2000, &f);
	ck_assert(fabs(f.pj[ENERGY_MAC] - (e.pj[ENERGY_MAC] + 500)) < 1e-9);
	for (k = 0; k < ENERGY_N_PARTS; k++)
		if (k != ENERGY_MAC)
			ck_assert(f.pj[k] == e.pj[k]);
	ctr_sink_free(&s);
	arch_free(&a);
	arch_free(&b);
}
END_TEST

/* Schema 2 JSON with the run's settings, peaks, energy and a region:
 * parsed back with json-c, every member where docs/formats.md puts it. */
START_TEST(ctrout_json_schema2)
{
	static const char *const ov[] = { "core.matrix.rows=16" };
	static const char *const defs[] = { "M=64" };
	static const char *const progs[] = { "gemm.s", "1=other.s" };
	struct arch a;
	struct ctr_sink s;
	struct ctr_region reg = { "tile", 0, 3, 123, { 0 } };
	struct ctrout_meta m = { "0.1.0", "c.cfg", "gemm.s", 2000, 1.0 };
	struct json_object *j, *x, *y;
	char *out;

	chip_cfg(&a, ov, 1);
	energy_sink(&s);
	ctr_sink_init(&reg.s);
	ctr_emit_id(&reg.s, "core0.matrix", CTR_MATRIX_MACS_INT8, 7);
	m.arch = &a;
	m.overrides = ov;
	m.n_overrides = 1;
	m.defines = defs;
	m.n_defines = 1;
	m.programs = progs;
	m.n_programs = 2;
	m.regions = &reg;
	m.n_regions = 1;
	out = print_to_string(CTROUT_JSON, &s, &m);
	ck_assert(json_ok(out));
	j = json_tokener_parse(out);
	ck_assert_ptr_nonnull(j);
	ck_assert(json_object_object_get_ex(j, "schema", &x) && json_object_get_int(x) == 2);
	ck_assert(json_object_object_get_ex(j, "config", &x));
	ck_assert(json_object_object_get_ex(x, "hash", &y));
	ck_assert(strncmp(json_object_get_string(y), "0x", 2) == 0);
	ck_assert(json_object_object_get_ex(x, "overrides", &y) &&
		  strcmp(json_object_get_string(json_object_array_get_idx(y, 0)),
			 "core.matrix.rows=16") == 0);
	ck_assert(json_object_object_get_ex(j, "programs", &x) &&
		  json_object_array_length(x) == 2);
	ck_assert(json_object_object_get_ex(j, "peaks", &x));
	ck_assert(json_object_object_get_ex(x, "macs_per_s_core", &y) &&
		  json_object_get_double(y) == 16.0 * 32 * 1e9);
	ck_assert(json_object_object_get_ex(x, "macs_per_s_by_type", &y) &&
		  json_object_object_get_ex(y, "int8", NULL));
	ck_assert(json_object_object_get_ex(j, "energy", &x) &&
		  json_object_object_get_ex(x, "by_component", &y) &&
		  json_object_object_get_ex(y, "dram_activate", NULL));
	ck_assert(json_object_object_get_ex(j, "regions", &x) &&
		  json_object_array_length(x) == 1);
	x = json_object_array_get_idx(x, 0);
	ck_assert(json_object_object_get_ex(x, "entries", &y) && json_object_get_int(y) == 3);
	ck_assert(json_object_object_get_ex(x, "counters", &y) &&
		  json_object_object_get_ex(y, "core0.matrix.macs_int8", NULL));
	ck_assert(json_object_object_get_ex(x, "energy", &y));
	json_object_put(j);
	free(out);
	/* the CSV carries the region's rows, tagged with its name */
	out = print_to_string(CTROUT_CSV, &s, &m);
	ck_assert_ptr_nonnull(strstr(out, "# config_hash: 0x"));
	ck_assert_ptr_nonnull(strstr(out, "# override: core.matrix.rows=16\n"));
	ck_assert_ptr_nonnull(strstr(out, "\ncycles,123,cycle,tile\nentries,3,,tile\n"));
	ck_assert_ptr_nonnull(strstr(out, "\ncore0.matrix.macs_int8,7,MAC,tile\n"));
	free(out);
	ctr_sink_free(&s);
	ctr_sink_free(&reg.s);
	arch_free(&a);
}
END_TEST

/* The resolved-config hash: equal for equal settings, whatever the
 * order of the overrides; different for different settings. */
START_TEST(arch_hash_settings)
{
	static const char *const o1[] = { "core.matrix.rows=16", "chip.cores=1" };
	static const char *const o2[] = { "chip.cores=1", "core.matrix.rows=16" };
	static const char *const o3[] = { "core.matrix.rows=8" };
	struct arch a, b, c;

	chip_cfg(&a, o1, 2);
	chip_cfg(&b, o2, 2);
	chip_cfg(&c, o3, 1);
	ck_assert(arch_hash(&a) == arch_hash(&b));
	ck_assert(arch_hash(&a) != arch_hash(&c));
	arch_free(&a);
	arch_free(&b);
	arch_free(&c);
}
END_TEST

/* stat's selection: globs on the full name or the leaf, breakdowns only
 * on request, --total sums cores (cycles: the latest), drops per-core
 * float rates and leaves chip-level units alone. */
START_TEST(ctrout_select_rules)
{
	static const char *const macs[] = { "macs" };
	static const char *const dma[] = { "core1.dma*.bytes_*" };
	struct ctr_sink s, o;

	ctr_sink_init(&s);
	ctr_emit_u64(&s, "core0", "cycles", 90);
	ctr_emit_u64(&s, "core0.matrix", "macs", 10);
	ctr_emit_f64(&s, "core0.matrix", "rate", 0.5);
	ctr_emit_u64(&s, "core0.dma0", "bytes_dram_to_sram", 4);
	ctr_emit_u64(&s, "core0.scratchpad.bank0", "reads", 3);
	ctr_emit_u64(&s, "core1", "cycles", 100);
	ctr_emit_u64(&s, "core1.matrix", "macs", 5);
	ctr_emit_f64(&s, "core1.matrix", "rate", 0.25);
	ctr_emit_u64(&s, "core1.dma0", "bytes_dram_to_sram", 6);
	ctr_emit_u64(&s, "dram.ch0", "reads", 2);
	ck_assert_int_eq(ctrout_select(&s, NULL, 0, 0, 0, &o), 0);
	ck_assert_uint_eq(o.n, 9); /* all but the bank breakdown */
	ck_assert_ptr_null(ctr_find(&o, "core0.scratchpad.bank0.reads"));
	ctr_sink_free(&o);
	ck_assert_int_eq(ctrout_select(&s, NULL, 0, 1, 0, &o), 0);
	ck_assert_uint_eq(o.n, 10);
	ctr_sink_free(&o);
	ck_assert_int_eq(ctrout_select(&s, macs, 1, 0, 0, &o), 0);
	ck_assert_uint_eq(o.n, 2);
	ck_assert_uint_eq(ctr_find(&o, "core1.matrix.macs")->u, 5);
	ctr_sink_free(&o);
	ck_assert_int_eq(ctrout_select(&s, dma, 1, 0, 0, &o), 0);
	ck_assert_uint_eq(o.n, 1);
	ctr_sink_free(&o);
	ck_assert_int_eq(ctrout_select(&s, NULL, 0, 0, 1, &o), 0);
	ck_assert_uint_eq(ctr_find(&o, "cycles")->u, 100);
	ck_assert_uint_eq(ctr_find(&o, "matrix.macs")->u, 15);
	ck_assert_uint_eq(ctr_find(&o, "dma0.bytes_dram_to_sram")->u, 10);
	ck_assert_ptr_null(ctr_find(&o, "matrix.rate"));
	ck_assert_uint_eq(ctr_find(&o, "dram.ch0.reads")->u, 2);
	ctr_sink_free(&o);
	ctr_sink_free(&s);
}
END_TEST

/*
 * The text summary of a small run, checked against ratios computed by hand:
 * 1200 insns / 1000 cycles = 1.200 IPC; 800 busy / 1000 = 80%; 40 stall /
 * 800 busy = 5%; 524288 MACs / 819200 PE-cycles = 64%; 65536 bytes / 1000
 * cycles = 65.536 B/cycle = 65.536 GB/s at 1 GHz; 20 conflict cycles /
 * (300 + 100) accesses = 0.050.
 */
START_TEST(ctrout_text_exact)
{
	static const char want[] =
		"\n Counter summary for 'gemm.s' on 'default.cfg':\n\n"
		"         1,000  cycle     cycles                           #     1.000 us at 1 GHz\n"
		"\n"
		"         1,200  insn      core0.control.insns              #     1.200 insn per cycle\n"
		"         1,000  cycle     core0.control.busy_cycles        #   100.00% of cycles\n"
		"\n"
		"           800  cycle     core0.matrix.busy_cycles         #    80.00% of cycles\n"
		"            40  cycle     core0.matrix.stall_sram_cycles   #     5.00% of busy\n"
		"            40  cycle     core0.matrix.stall_cycles        #     5.00% of busy\n"
		"       524,288  MAC       core0.matrix.macs                #    64.00% PE utilisation\n"
		"       819,200  PE*cycle  core0.matrix.pe_cycles\n"
		"\n"
		"        65,536  byte      core0.dma0.bytes_dram_to_sram    #    65.536 B/cycle, 65.536 GB/s\n"
		"\n"
		"           300  access    core0.scratchpad.reads\n"
		"           100  access    core0.scratchpad.writes\n"
		"            20  cycle     core0.scratchpad.bank_conflicts  #     0.050 stall cycles per access\n"
		"\n"
		"     1,234.568            x.rate\n"
		"\n";
	struct ctrout_meta m = { "0.1.0", "default.cfg", "gemm.s", 1000, 1.0 };
	struct ctr_sink s;
	char *out;

	ctr_sink_init(&s);
	ctr_emit_u64(&s, "core0.control", "insns", 1200);
	ctr_emit_u64(&s, "core0.control", "busy_cycles", 1000);
	ctr_emit_u64(&s, "core0.matrix", "busy_cycles", 800);
	ctr_emit_u64(&s, "core0.matrix", "stall_sram_cycles", 40);
	ctr_emit_u64(&s, "core0.matrix", "stall_cycles", 40);
	ctr_emit_u64(&s, "core0.matrix", "macs", 524288);
	ctr_emit_u64(&s, "core0.matrix", "pe_cycles", 819200);
	ctr_emit_u64(&s, "core0.dma0", "bytes_dram_to_sram", 65536);
	ctr_emit_u64(&s, "core0.scratchpad", "reads", 300);
	ctr_emit_u64(&s, "core0.scratchpad", "writes", 100);
	ctr_emit_u64(&s, "core0.scratchpad", "bank_conflicts", 20);
	ctr_emit_f64(&s, "x", "rate", 1234.5678);
	out = print_to_string(CTROUT_TEXT, &s, &m);
	ck_assert_str_eq(out, want);
	free(out);
	ctr_sink_free(&s);
}
END_TEST

/* No ratio without its denominator; no times without a clock. */
START_TEST(ctrout_text_no_bogus_ratios)
{
	struct ctrout_meta m = { NULL, NULL, NULL, 0, 0 };
	struct ctr_sink s;
	char *out;

	ctr_sink_init(&s);
	ctr_emit_u64(&s, "core0.matrix", "macs", 10);           /* no pe_cycles */
	ctr_emit_u64(&s, "core0.vector", "stall_sram_cycles", 5); /* no busy */
	ctr_emit_u64(&s, "core0.vector", "busy_cycles", 0);
	ctr_emit_u64(&s, "dram0", "read_bytes", 64);             /* 0 cycles */
	out = print_to_string(CTROUT_TEXT, &s, &m);
	ck_assert_ptr_null(strchr(out, '#'));
	ck_assert_ptr_nonnull(strstr(out, " Counter summary:\n"));
	free(out);
	ctr_sink_free(&s);
}
END_TEST

/*
 * The derived.def table itself: every row's denominators are counters of
 * the numerator's own group (siblings in one unit instance), or RUN alone;
 * NONE only pads the end.  And the stall rule the table spells out row by
 * row: every stall_<reason>_cycles and stall_cycles of a group that counts
 * busy_cycles has its "% of busy" row, so a new stall counter cannot be
 * forgotten.
 */
START_TEST(ctrout_derived_table_consistent)
{
	int i, k, g, n_rows = 0;

	for (i = 0; i < CTR_N; i++) {
		const struct ctr_derived *r = &ctr_derived[i];
		int end = 0;

		if (r->shape == CTR_SH_NONE) {
			ck_assert_ptr_null(r->text);
			continue;
		}
		n_rows++;
		ck_assert_msg(r->text && *r->text, "%s", ctr_info[i].name);
		ck_assert_msg(r->shape == CTR_SH_PCT || r->shape == CTR_SH_RATIO,
			      "%s", ctr_info[i].name);
		ck_assert_int_ne(r->den[0], CTR_NONE);
		for (k = 0; k < 3; k++) {
			int d = r->den[k];

			if (d == CTR_NONE) {
				end = 1;
				continue;
			}
			ck_assert_msg(!end, "%s: NONE before a denominator",
				      ctr_info[i].name);
			if (d == CTR_RUN) {
				ck_assert_msg(k == 0 && r->den[1] == CTR_NONE &&
						      r->den[2] == CTR_NONE,
					      "%s: RUN must stand alone",
					      ctr_info[i].name);
				continue;
			}
			ck_assert_int_ge(d, 0);
			ck_assert_int_lt(d, CTR_N);
			ck_assert_msg(ctr_info[d].group == ctr_info[i].group,
				      "%s.%s divided by %s.%s (another unit)",
				      ctr_group_names[ctr_info[i].group],
				      ctr_info[i].name,
				      ctr_group_names[ctr_info[d].group],
				      ctr_info[d].name);
		}
	}
	ck_assert_int_ge(n_rows, 30);
	for (g = 0; g < CTR_N_GRP; g++) {
		int busy = -1;

		for (i = 0; i < CTR_N; i++)
			if ((int)ctr_info[i].group == g &&
			    !strcmp(ctr_info[i].name, "busy_cycles"))
				busy = i;
		if (busy < 0)
			continue;
		for (i = 0; i < CTR_N; i++) {
			const char *n = ctr_info[i].name;
			size_t len = strlen(n);

			if ((int)ctr_info[i].group != g || strncmp(n, "stall_", 6) ||
			    len < 13 || strcmp(n + len - 7, "_cycles"))
				continue;
			ck_assert_msg(ctr_derived[i].shape == CTR_SH_PCT &&
					      ctr_derived[i].den[0] == busy &&
					      ctr_derived[i].den[1] == CTR_NONE &&
					      !strcmp(ctr_derived[i].text, "of busy"),
				      "%s.%s has no \"%% of busy\" row in derived.def",
				      ctr_group_names[g], n);
		}
	}
}
END_TEST

/*
 * Every counter of every group through the text summary: each group's
 * counters emitted under one instance ("core0.<group>0"), all with value
 * 100, 1000 run cycles.  A counter with a derived.def row shows exactly
 * its ratio (100 / (100 x its denominators), or 100 / 1000 for RUN); a
 * byte counter its bandwidth; every other counter nothing.
 */
START_TEST(ctrout_derived_every_row_printed)
{
	struct ctrout_meta m = { NULL, NULL, NULL, 1000, 1.0 };
	int g, i, k;

	for (g = 0; g < CTR_N_GRP; g++) {
		struct ctr_sink s;
		char inst[32], name[96], want[128], *out;

		snprintf(inst, sizeof(inst), "core0.%s0", ctr_group_names[g]);
		ctr_sink_init(&s);
		for (i = 0; i < CTR_N; i++)
			if ((int)ctr_info[i].group == g)
				ctr_emit_u64(&s, inst, ctr_info[i].name, 100);
		out = print_to_string(CTROUT_TEXT, &s, &m);
		for (i = 0; i < CTR_N; i++) {
			const struct ctr_derived *r = &ctr_derived[i];
			const char *line, *eol;
			double den = 0;
			char num[48];

			if ((int)ctr_info[i].group != g)
				continue;
			snprintf(name, sizeof(name), " %s.%s", inst, ctr_info[i].name);
			line = strstr(out, name);
			ck_assert_msg(line != NULL, "%s missing", name);
			eol = strchr(line, '\n');
			ck_assert_ptr_nonnull(eol);
			snprintf(want, sizeof(want), "%.*s", (int)(eol - line), line);
			if (r->shape != CTR_SH_NONE) {
				for (k = 0; k < 3; k++)
					den += r->den[k] == CTR_RUN ? 1000
					       : r->den[k] == CTR_NONE ? 0 : 100;
				if (r->shape == CTR_SH_PCT)
					snprintf(num, sizeof(num), "%.2f%% %s",
						 100.0 * 100 / den, r->text);
				else
					snprintf(num, sizeof(num), "%.3f %s",
						 100 / den, r->text);
				ck_assert_msg(strstr(want, num) != NULL,
					      "'%s' not in '%s'", num, want);
			} else if (!strcmp(ctr_info[i].unit, "byte")) {
				ck_assert_msg(strstr(want, "# ") &&
						      strstr(want, "0.100 B/cycle"),
					      "%s", want);
			} else {
				ck_assert_msg(strchr(want, '#') == NULL, "%s", want);
			}
		}
		free(out);
		ctr_sink_free(&s);
	}
}
END_TEST

START_TEST(ctrout_thousands_and_floats)
{
	struct ctrout_meta m = { NULL, NULL, NULL, 1234567890123ull, 2.0 };
	struct ctr_sink s;
	char *out;

	ctr_sink_init(&s);
	ctr_emit_f64(&s, "a", "neg", -0.0004);
	ctr_emit_f64(&s, "a", "big", 9876543.21);
	out = print_to_string(CTROUT_TEXT, &s, &m);
	ck_assert_ptr_nonnull(strstr(out, "1,234,567,890,123  cycle"));
	/* 1234567890123 cycles at 2 GHz = 617.284 s */
	ck_assert_ptr_nonnull(strstr(out, "617.284 s at 2 GHz"));
	ck_assert_ptr_nonnull(strstr(out, " 0.000  "));
	ck_assert_ptr_nonnull(strstr(out, "9,876,543.210  "));
	free(out);
	ctr_sink_free(&s);
}
END_TEST

START_TEST(ctrout_fmt_by_extension)
{
	ck_assert_int_eq(ctrout_fmt_of("c.json"), CTROUT_JSON);
	ck_assert_int_eq(ctrout_fmt_of("out/c.csv"), CTROUT_CSV);
	ck_assert_int_eq(ctrout_fmt_of("c.txt"), CTROUT_TEXT);
	ck_assert_int_eq(ctrout_fmt_of("c"), -1);
	ck_assert_int_eq(ctrout_fmt_of("d.json/c"), -1);
}
END_TEST

/* Atomic output: failures leave nothing and keep an older file intact. */
START_TEST(ctrout_write_atomic)
{
	struct ctrout_meta m = { NULL, NULL, NULL, 5, 0 };
	struct ctr_sink s;
	struct diag d;
	char path[128], *txt;
	size_t n;

	mk_tmpdir();
	diag_init(&d, NULL);
	ctr_sink_init(&s);
	ctr_emit_u64(&s, "core0.matrix", "macs", 1);
	snprintf(path, sizeof(path), "%s/none/c.json", tmpdir);
	ck_assert_int_eq(ctrout_write(path, CTROUT_JSON, &s, &m, &d), NPU_EIO);
	ck_assert_ptr_nonnull(strstr(d.last, "cannot create output file"));
	ck_assert_int_eq(n_files(), 0);

	snprintf(path, sizeof(path), "%s/c.json", tmpdir);
	ck_assert_int_eq(ctrout_write(path, CTROUT_JSON, &s, &m, &d), 0);
	ck_assert_int_eq(n_files(), 1);
	/* An incomplete sink is refused and the good file stays. */
	s.oom = 1;
	ck_assert_int_eq(ctrout_write(path, CTROUT_JSON, &s, &m, &d),
			 NPU_ENOMEM);
	ck_assert_ptr_nonnull(strstr(d.last, "counters incomplete"));
	ck_assert_int_eq(n_files(), 1);
	txt = slurp(path, &n);
	ck_assert_ptr_nonnull(strstr(txt, "\"core0.matrix.macs\": 1\n"));
	free(txt);
	s.oom = 0;
	ck_assert_int_eq(ctrout_print(stdout, (enum ctrout_fmt)9, &s, &m),
			 NPU_EINTERNAL);
	ctr_sink_free(&s);
	rm_tmpdir();
}
END_TEST

/* ---- trace ----------------------------------------------------------------------------*/

/* The whole uncompressed text of a one-span trace in cycle time. */
START_TEST(trace_exact_small)
{
	static const char want[] =
		"{\"otherData\":{\"generator\":\"npusim\",\"time\":\"1 us in the "
		"viewer = 1 cycle\"},\"traceEvents\":[\n"
		"{\"ph\":\"M\",\"pid\":0,\"name\":\"process_name\",\"args\":"
		"{\"name\":\"core 0\"}},\n"
		"{\"ph\":\"M\",\"pid\":0,\"name\":\"process_sort_index\","
		"\"args\":{\"sort_index\":0}},\n"
		"{\"ph\":\"M\",\"pid\":0,\"tid\":1,\"name\":\"thread_name\","
		"\"args\":{\"name\":\"matrix\"}},\n"
		"{\"ph\":\"M\",\"pid\":0,\"tid\":1,\"name\":"
		"\"thread_sort_index\",\"args\":{\"sort_index\":1000000}},\n"
		"{\"ph\":\"X\",\"pid\":0,\"tid\":1,\"ts\":10,\"dur\":64,"
		"\"name\":\"mm\",\"args\":{\"cycle\":10,\"cycles\":64,"
		"\"pc\":64}}\n"
		"]}\n";
	struct diag d;
	struct trc *t;
	char path[128], *txt;
	size_t n;
	int mtx;

	mk_tmpdir();
	diag_init(&d, NULL);
	snprintf(path, sizeof(path), "%s/t.json.gz", tmpdir);
	t = trc_open(path, 0, &d);
	ck_assert_ptr_nonnull(t);
	mtx = trc_track(t, 0, TRC_KIND_MATRIX, 0, "matrix");
	ck_assert_int_eq(mtx, 0);
	ck_assert_int_eq(trc_track(t, 0, TRC_KIND_MATRIX, 0, "matrix"), 0);
	trc_span(t, mtx, 10, 74, "mm", "\"pc\":64");
	ck_assert_uint_eq(trc_n_events(t), 5);
	ck_assert_int_eq(trc_close(t, &d), 0);
	txt = gunzip(path, &n);
	ck_assert_str_eq(txt, want);
	ck_assert(json_ok(txt));
	free(txt);
	rm_tmpdir();
}
END_TEST

/* A trace with every event kind on several cores and the chip. */
static struct trc *write_sample(const char *path, double ghz, struct diag *d)
{
	struct trc *t = trc_open(path, ghz, d);
	int ctl, mtx, dma, dram, ctl1;
	uint64_t c;

	ck_assert_ptr_nonnull(t);
	dram = trc_track(t, TRC_CHIP, TRC_KIND_DRAM, 0, "dram0");
	dma = trc_track(t, 0, TRC_KIND_DMA, 0, "dma0");
	mtx = trc_track(t, 0, TRC_KIND_MATRIX, 0, "matrix");
	ctl = trc_track(t, 0, TRC_KIND_CONTROL, 0, "control");
	ctl1 = trc_track(t, 1, TRC_KIND_CONTROL, 0, "control");
	for (c = 0; c < 4000; c += 20) {
		trc_span(t, ctl, c, c + 1, "dispatch", "\"pc\":\"0x40\"");
		trc_span(t, mtx, c + 2, c + 18, "mm",
			 "\"pc\":\"0x44\",\"m\":16,\"k\":16,\"n\":16");
		trc_span(t, dma, c, c + 30, "dma.load", "\"bytes\":4096");
		trc_span(t, dram, c + 3, c + 9, "RD", NULL);
		trc_counter(t, dma, c, "queue", (double)(c % 7));
	}
	trc_span(t, ctl1, 5, 5, "nop \"quoted\"\n", "");
	trc_instant(t, ctl1, 1999, "fault", "\"what\":\"address out of range\"");
	return t;
}

START_TEST(trace_wellformed_and_metadata)
{
	struct diag d;
	struct trc *t;
	char path[128], *txt;
	uint64_t n_ev;
	size_t n;

	mk_tmpdir();
	diag_init(&d, NULL);
	snprintf(path, sizeof(path), "%s/t.json.gz", tmpdir);
	t = write_sample(path, 1.0, &d);
	n_ev = trc_n_events(t);
	/* Invisible until closed. */
	ck_assert_int_eq(access(path, F_OK), -1);
	ck_assert_int_eq(trc_close(t, &d), 0);
	ck_assert_int_eq(d.n_errors + d.n_warnings, 0);
	txt = gunzip(path, &n);
	ck_assert(json_ok(txt));
	ck_assert_int_eq(count_of(txt, "\"ph\":"), (int)n_ev);
	ck_assert_ptr_nonnull(strstr(txt, "\"displayTimeUnit\":\"ns\""));
	ck_assert_ptr_nonnull(strstr(txt, "\"clock_ghz\":1,"));
	/* Processes: core 0, core 1 and the chip. */
	ck_assert_int_eq(count_of(txt, "\"process_name\""), 3);
	ck_assert_ptr_nonnull(strstr(txt, "\"pid\":100000,\"name\":"
					  "\"process_name\",\"args\":{\"name\":"
					  "\"chip\"}"));
	ck_assert_ptr_nonnull(strstr(txt, "{\"name\":\"core 1\"}"));
	/* Tracks: dram0, dma0 (+ a second lane: 30-cycle DMAs every 20
	 * cycles overlap), matrix, control x2. */
	ck_assert_int_eq(count_of(txt, "\"thread_name\""), 6);
	ck_assert_ptr_nonnull(strstr(txt, "{\"name\":\"dma0 #2\"}"));
	/* Pipeline order: control 0 < matrix 1e6 < dma 3e6 (+ lane) <
	 * dram 6e6, from the kind (enum trc_kind), not the name. */
	ck_assert_ptr_nonnull(strstr(txt, "\"tid\":4,\"name\":"
					  "\"thread_sort_index\",\"args\":"
					  "{\"sort_index\":0}"));
	ck_assert_ptr_nonnull(strstr(txt, "{\"sort_index\":3000001}"));
	ck_assert_ptr_nonnull(strstr(txt, "{\"sort_index\":6000000}"));
	/* Escaped names, counters, instants. */
	ck_assert_ptr_nonnull(strstr(txt, "\"name\":\"nop \\\"quoted\\\"\\n\""));
	ck_assert_ptr_nonnull(strstr(txt, "\"ph\":\"C\",\"pid\":0,\"ts\":0.12,"
					  "\"name\":\"dma0\",\"args\":"
					  "{\"queue\":1}}"));
	ck_assert_ptr_nonnull(strstr(txt, "\"ph\":\"i\",\"s\":\"t\",\"pid\":1,"
					  "\"tid\":5,\"ts\":1.999,\"name\":"
					  "\"fault\",\"args\":{\"cycle\":1999,"
					  "\"what\":\"address out of range\"}"));
	free(txt);
	rm_tmpdir();
}
END_TEST

/* Cycles to viewer microseconds at the clock, exact to the picosecond. */
START_TEST(trace_real_time)
{
	struct diag d;
	struct trc *t;
	char path[128], *txt;
	size_t n;
	int k;

	mk_tmpdir();
	diag_init(&d, NULL);
	snprintf(path, sizeof(path), "%s/t.json.gz", tmpdir);
	/* 0.7 GHz: 1428.571... ps per cycle; 7 cycles = 10 ns exactly;
	 * 1 cycle rounds to 1429 ps. */
	t = trc_open(path, 0.7, &d);
	k = trc_track(t, 2, TRC_KIND_VECTOR, 0, "vector");
	trc_span(t, k, 7, 14, "a", NULL);
	trc_span(t, k, 14, 15, "b", NULL);
	trc_span(t, k, 2000000, 2000007, "c", NULL);
	ck_assert_int_eq(trc_close(t, &d), 0);
	txt = gunzip(path, &n);
	ck_assert(json_ok(txt));
	ck_assert_ptr_nonnull(strstr(txt, "\"ts\":0.01,\"dur\":0.01,\"name\":"
					  "\"a\",\"args\":{\"cycle\":7,"
					  "\"cycles\":7}"));
	/* b: 14 -> 20000 ps, 15 -> 21429 ps: back to back with a. */
	ck_assert_ptr_nonnull(strstr(txt, "\"ts\":0.02,\"dur\":0.001429,"));
	/* c: 2e6 cycles = 2857142.857 ns -> 2857142857 ps. */
	ck_assert_ptr_nonnull(strstr(txt, "\"ts\":2857.142857,\"dur\":0.01,"));
	ck_assert_ptr_nonnull(strstr(txt, "\"pid\":2,"));
	free(txt);
	rm_tmpdir();
}
END_TEST

/* Spans that overlap on a unit go to extra lanes; a lane is reused as
 * soon as its last span has ended. */
START_TEST(trace_lanes)
{
	struct diag d;
	struct trc *t;
	char path[128], *txt;
	size_t n;
	int k, i;

	mk_tmpdir();
	diag_init(&d, NULL);
	snprintf(path, sizeof(path), "%s/t.json.gz", tmpdir);
	t = trc_open(path, 0, &d);
	k = trc_track(t, 0, TRC_KIND_DMA, 1, "dma1");
	trc_span(t, k, 0, 10, "a", NULL);  /* lane 0, tid 1 */
	trc_span(t, k, 5, 15, "b", NULL);  /* lane 1, tid 2 */
	trc_span(t, k, 10, 20, "c", NULL); /* lane 0 again */
	ck_assert_int_eq(trc_close(t, &d), 0);
	ck_assert_int_eq(d.n_warnings, 0);
	txt = gunzip(path, &n);
	ck_assert_ptr_nonnull(strstr(txt, "\"tid\":2,\"name\":\"thread_name\","
					  "\"args\":{\"name\":\"dma1 #2\"}"));
	ck_assert_ptr_nonnull(strstr(txt, "\"tid\":1,\"ts\":0,"));
	ck_assert_ptr_nonnull(strstr(txt, "\"tid\":2,\"ts\":5,"));
	ck_assert_ptr_nonnull(strstr(txt, "\"tid\":1,\"ts\":10,"));
	free(txt);

	/* More than TRC_MAX_LANES in flight: written, with a warning. */
	t = trc_open(path, 0, &d);
	k = trc_track(t, 0, TRC_KIND_DMA, 0, "dma0");
	for (i = 0; i <= TRC_MAX_LANES; i++)
		trc_span(t, k, (uint64_t)i, 100, "x", NULL);
	ck_assert_int_eq(trc_close(t, &d), 0);
	ck_assert_int_eq(d.n_warnings, 1);
	ck_assert_ptr_nonnull(strstr(d.last, "1 spans overlap"));
	txt = gunzip(path, &n);
	ck_assert_int_eq(count_of(txt, "\"thread_name\""), TRC_MAX_LANES);
	free(txt);
	rm_tmpdir();
}
END_TEST

/* Same calls, same bytes; gzip header without a time stamp (RFC 1952). */
START_TEST(trace_deterministic)
{
	struct diag d;
	char p1[128], p2[128], *a, *b;
	size_t na, nb;
	struct trc *t;

	mk_tmpdir();
	diag_init(&d, NULL);
	snprintf(p1, sizeof(p1), "%s/a.json.gz", tmpdir);
	snprintf(p2, sizeof(p2), "%s/b.json.gz", tmpdir);
	t = write_sample(p1, 1.25, &d);
	ck_assert_int_eq(trc_close(t, &d), 0);
	t = write_sample(p2, 1.25, &d);
	ck_assert_int_eq(trc_close(t, &d), 0);
	a = slurp(p1, &na);
	b = slurp(p2, &nb);
	ck_assert_uint_eq(na, nb);
	ck_assert_int_eq(memcmp(a, b, na), 0);
	ck_assert_int_eq((unsigned char)a[0], 0x1f); /* ID1 */
	ck_assert_int_eq((unsigned char)a[1], 0x8b); /* ID2 */
	ck_assert_int_eq(a[2], 8);                   /* CM = deflate */
	ck_assert_int_eq(a[3], 0);                   /* FLG: no name */
	ck_assert_int_eq(a[4] | a[5] | a[6] | a[7], 0); /* MTIME = 0 */
	free(a);
	free(b);
	rm_tmpdir();
}
END_TEST

/* trc_digest is FNV-1a 64 over the JSON text the closed file holds. */
START_TEST(trace_digest_matches_content)
{
	struct diag d;
	struct trc *t;
	char path[128], *txt;
	uint64_t dig, h = 0xcbf29ce484222325ull;
	size_t n, i;

	mk_tmpdir();
	diag_init(&d, NULL);
	snprintf(path, sizeof(path), "%s/t.json.gz", tmpdir);
	t = write_sample(path, 1.0, &d);
	dig = trc_digest(t);
	ck_assert_uint_eq(trc_digest(t), dig);
	ck_assert_int_eq(trc_close(t, &d), 0);
	txt = gunzip(path, &n);
	ck_assert_uint_gt(n, 64 * 1024); /* several buffer flushes */
	for (i = 0; i < n; i++) {
		h ^= (unsigned char)txt[i];
		h *= 0x100000001b3ull;
	}
	ck_assert_uint_eq(dig, h);
	free(txt);
	rm_tmpdir();
}
END_TEST

/* Failures: nothing is ever left behind. */
START_TEST(trace_failures_leave_nothing)
{
	struct diag d;
	struct trc *t;
	char path[128];
	int k;

	mk_tmpdir();
	diag_init(&d, NULL);
	snprintf(path, sizeof(path), "%s/no/dir/t.json.gz", tmpdir);
	ck_assert_ptr_null(trc_open(path, 1.0, &d));
	ck_assert_ptr_nonnull(strstr(d.last, "cannot create output file"));

	snprintf(path, sizeof(path), "%s/t.json.gz", tmpdir);
	t = write_sample(path, 1.0, &d);
	ck_assert_int_eq(n_files(), 1); /* the temporary file */
	trc_abort(t);
	ck_assert_int_eq(n_files(), 0);
	trc_abort(NULL);

	t = trc_open(path, 1.0, &d);
	trc_span(t, 7, 0, 1, "x", NULL); /* no such track */
	ck_assert_int_eq(trc_close(t, &d), NPU_EINTERNAL);
	ck_assert_ptr_nonnull(strstr(d.last, "unknown track 7"));
	ck_assert_int_eq(n_files(), 0);

	t = trc_open(path, 1.0, &d);
	k = trc_track(t, 0, TRC_KIND_MATRIX, 0, "matrix");
	trc_span(t, k, 10, 9, "mm", NULL);
	ck_assert_int_eq(trc_close(t, &d), NPU_EINTERNAL);
	ck_assert_ptr_nonnull(strstr(d.last, "ends (cycle 9) before it starts "
					     "(cycle 10)"));
	ck_assert_int_eq(n_files(), 0);
	rm_tmpdir();
}
END_TEST

/* An event larger than the 64 KiB buffer still arrives intact. */
START_TEST(trace_huge_event)
{
	struct diag d;
	struct trc *t;
	char path[128], *txt, *args;
	size_t n, len = 200000;
	int k;

	mk_tmpdir();
	diag_init(&d, NULL);
	snprintf(path, sizeof(path), "%s/t.json.gz", tmpdir);
	args = malloc(len + 16);
	memcpy(args, "\"blob\":\"", 8);
	memset(args + 8, 'z', len);
	strcpy(args + 8 + len, "\"");
	t = trc_open(path, 0, &d);
	k = trc_track(t, 0, TRC_KIND_VECTOR, 0, "vector");
	trc_span(t, k, 0, 1, "a", NULL);
	trc_span(t, k, 1, 2, "big", args);
	trc_span(t, k, 2, 3, "c", NULL);
	ck_assert_int_eq(trc_close(t, &d), 0);
	txt = gunzip(path, &n);
	ck_assert(json_ok(txt));
	ck_assert_ptr_nonnull(strstr(txt, args));
	ck_assert_ptr_nonnull(strstr(txt, "\"name\":\"c\""));
	free(txt);
	free(args);
	rm_tmpdir();
}
END_TEST

/* Tracks are keyed and sorted by (core, kind, index); the name is only
 * a label, and a track with no event writes no metadata. */
START_TEST(trace_tracks_by_kind)
{
	struct diag d;
	struct trc *t;
	char path[128], *txt;
	size_t n;
	int a, b, c, e;

	mk_tmpdir();
	diag_init(&d, NULL);
	snprintf(path, sizeof(path), "%s/t.json.gz", tmpdir);
	t = trc_open(path, 0, &d);
	a = trc_track(t, 0, TRC_KIND_DMA, 12, "zz");
	b = trc_track(t, 0, TRC_KIND_SRAM, 1, "accumulator");
	c = trc_track(t, 0, TRC_KIND_DMA, 12, "another label");
	e = trc_track(t, 1, TRC_KIND_MATRIX, 0, "matrix"); /* never used */
	ck_assert_int_eq(a, c);
	ck_assert_int_ne(a, b);
	ck_assert_int_ge(e, 0);
	ck_assert_str_eq(trc_kind_name(TRC_KIND_DRAM), "dram");
	trc_span(t, a, 0, 1, "dma", NULL);
	trc_instant(t, b, 3, "x", NULL);
	ck_assert_int_eq(trc_close(t, &d), 0);
	txt = gunzip(path, &n);
	ck_assert(json_ok(txt));
	ck_assert_ptr_nonnull(strstr(txt, "{\"name\":\"zz\"}"));
	ck_assert_ptr_nonnull(strstr(txt, "{\"sort_index\":3001200}"));
	ck_assert_ptr_nonnull(strstr(txt, "{\"sort_index\":4000100}"));
	ck_assert_ptr_null(strstr(txt, "core 1"));
	ck_assert_int_eq(count_of(txt, "\"thread_name\""), 2);
	free(txt);
	rm_tmpdir();
}
END_TEST

/* --trace-window: spans touching the window are kept whole, instants and
 * counters inside it only; metadata only for what is written. */
START_TEST(trace_window)
{
	struct diag d;
	struct trc *t;
	char path[128], *txt;
	size_t n;
	int k;

	mk_tmpdir();
	diag_init(&d, NULL);
	snprintf(path, sizeof(path), "%s/t.json.gz", tmpdir);
	t = trc_open(path, 0, &d);
	trc_set_window(t, 100, 200);
	k = trc_track(t, 0, TRC_KIND_MATRIX, 0, "matrix");
	ck_assert(!trc_want(t, k, 0, 100));
	ck_assert(trc_want(t, k, 0, 101));
	ck_assert(trc_want(t, k, 100, 100));
	ck_assert(!trc_want(t, k, 200, 300));
	trc_span(t, k, 0, 100, "before", NULL);
	trc_span(t, k, 50, 150, "straddle", NULL);
	trc_span(t, k, 199, 400, "end", NULL);
	trc_span(t, k, 200, 300, "after", NULL);
	trc_instant(t, k, 99, "i99", NULL);
	trc_instant(t, k, 100, "i100", NULL);
	trc_counter(t, k, 199, "queue", 1);
	trc_counter(t, k, 200, "queue", 2);
	ck_assert_int_eq(trc_close(t, &d), 0);
	txt = gunzip(path, &n);
	ck_assert(json_ok(txt));
	ck_assert_ptr_null(strstr(txt, "\"before\""));
	ck_assert_ptr_nonnull(strstr(txt, "\"ts\":50,\"dur\":100,\"name\":\"straddle\""));
	ck_assert_ptr_nonnull(strstr(txt, "\"end\""));
	ck_assert_ptr_null(strstr(txt, "\"after\""));
	ck_assert_ptr_null(strstr(txt, "i99"));
	ck_assert_ptr_nonnull(strstr(txt, "i100"));
	ck_assert_ptr_nonnull(strstr(txt, "{\"queue\":1}"));
	ck_assert_ptr_null(strstr(txt, "{\"queue\":2}"));
	free(txt);

	/* Nothing in the window: a valid trace with no tracks at all. */
	t = trc_open(path, 0, &d);
	trc_set_window(t, 1000, UINT64_MAX);
	k = trc_track(t, 0, TRC_KIND_MATRIX, 0, "matrix");
	trc_span(t, k, 0, 10, "x", NULL);
	ck_assert_int_eq(trc_close(t, &d), 0);
	txt = gunzip(path, &n);
	ck_assert(json_ok(txt));
	ck_assert_ptr_null(strstr(txt, "\"ph\""));
	free(txt);
	rm_tmpdir();
}
END_TEST

/* --trace-units: kinds, names, core-qualified names, whole cores and the
 * chip; empty items are errors; items that select nothing are warned. */
START_TEST(trace_units)
{
	struct diag d;
	struct trc *t;
	char path[128], *txt;
	size_t n;
	int m0, m1, d01, d11, ctl, ch0, s0;

	mk_tmpdir();
	diag_init(&d, NULL);
	snprintf(path, sizeof(path), "%s/t.json.gz", tmpdir);
	t = trc_open(path, 0, &d);
	ck_assert_int_eq(trc_set_units(t, "matrix,core1.dma1,scratchpad,chip,mtx", &d), 0);
	m0 = trc_track(t, 0, TRC_KIND_MATRIX, 0, "matrix");
	m1 = trc_track(t, 1, TRC_KIND_MATRIX, 0, "matrix");
	d01 = trc_track(t, 0, TRC_KIND_DMA, 1, "dma1");
	d11 = trc_track(t, 1, TRC_KIND_DMA, 1, "dma1");
	ctl = trc_track(t, 0, TRC_KIND_CONTROL, 0, "control");
	ch0 = trc_track(t, TRC_CHIP, TRC_KIND_DRAM, 0, "dram.ch0");
	s0 = trc_track(t, 0, TRC_KIND_SRAM, 0, "scratchpad");
	ck_assert(trc_want(t, m0, 0, 1) && trc_want(t, m1, 0, 1));
	ck_assert(!trc_want(t, d01, 0, 1) && trc_want(t, d11, 0, 1));
	ck_assert(!trc_want(t, ctl, 0, 1));
	ck_assert(trc_want(t, ch0, 0, 1) && trc_want(t, s0, 0, 1));
	trc_span(t, d01, 0, 5, "dropped", NULL);
	trc_span(t, d11, 0, 5, "kept", NULL);
	ck_assert_int_eq(trc_close(t, &d), 0);
	/* "mtx" is not a name: warned at close. */
	ck_assert_int_eq(d.n_warnings, 1);
	ck_assert_ptr_nonnull(strstr(d.last, "'mtx' matched no unit"));
	txt = gunzip(path, &n);
	ck_assert_ptr_null(strstr(txt, "dropped"));
	ck_assert_ptr_nonnull(strstr(txt, "kept"));
	free(txt);

	t = trc_open(path, 0, &d);
	ck_assert_int_eq(trc_set_units(t, "core2", &d), 0);
	ck_assert(trc_want(t, trc_track(t, 2, TRC_KIND_DMA, 0, "dma0"), 0, 1));
	ck_assert(!trc_want(t, trc_track(t, 1, TRC_KIND_DMA, 0, "dma0"), 0, 1));
	ck_assert(!trc_want(t, trc_track(t, TRC_CHIP, TRC_KIND_DRAM, 0,
					 "dram.ch0"), 0, 1));
	trc_abort(t);

	t = trc_open(path, 0, &d);
	ck_assert_int_eq(trc_set_units(t, "matrix,,dma", &d), NPU_EUSAGE);
	ck_assert_ptr_nonnull(strstr(d.last, "empty unit name"));
	trc_abort(t);
	t = trc_open(path, 0, &d);
	ck_assert_int_eq(trc_set_units(t, "", &d), NPU_EUSAGE);
	trc_abort(t);
	ck_assert_int_eq(n_files(), 1); /* the first trace; aborts left none */
	rm_tmpdir();
}
END_TEST

/* Flow arrows: bind_id on both slices; the end is dropped when its start
 * was (window, unit list, no such track). */
START_TEST(trace_flows)
{
	struct diag d;
	struct trc *t;
	char path[128], *txt;
	size_t n;
	int ctl, mtx;
	struct trc_flow out = { 7, 1, 0, TRC_KIND_OTHER, 0, 0, 0 };
	struct trc_flow in = { 7, 0, 0, TRC_KIND_CONTROL, 0, 10, 11 };

	mk_tmpdir();
	diag_init(&d, NULL);
	snprintf(path, sizeof(path), "%s/t.json.gz", tmpdir);
	t = trc_open(path, 0, &d);
	ctl = trc_track(t, 0, TRC_KIND_CONTROL, 0, "control");
	mtx = trc_track(t, 0, TRC_KIND_MATRIX, 0, "matrix");
	trc_span_flow(t, ctl, 10, 11, "mmul", NULL, &out);
	trc_span_flow(t, mtx, 12, 40, "mmul", NULL, &in);
	ck_assert_int_eq(trc_close(t, &d), 0);
	txt = gunzip(path, &n);
	ck_assert(json_ok(txt));
	ck_assert_ptr_nonnull(strstr(txt, "\"name\":\"mmul\",\"bind_id\":7,\"flow_out\":true,\"args\""));
	ck_assert_ptr_nonnull(strstr(txt, "\"name\":\"mmul\",\"bind_id\":7,\"flow_in\":true,\"args\""));
	free(txt);

	/* The start lies before the window: no dangling end. */
	t = trc_open(path, 0, &d);
	trc_set_window(t, 11, 100);
	ctl = trc_track(t, 0, TRC_KIND_CONTROL, 0, "control");
	mtx = trc_track(t, 0, TRC_KIND_MATRIX, 0, "matrix");
	trc_span_flow(t, ctl, 10, 11, "mmul", NULL, &out);
	trc_span_flow(t, mtx, 12, 40, "mmul", NULL, &in);
	ck_assert_int_eq(trc_close(t, &d), 0);
	txt = gunzip(path, &n);
	ck_assert_ptr_null(strstr(txt, "bind_id"));
	ck_assert_ptr_nonnull(strstr(txt, "\"mmul\""));
	free(txt);

	/* The control unit is not selected, or has no track at all. */
	t = trc_open(path, 0, &d);
	ck_assert_int_eq(trc_set_units(t, "matrix", &d), 0);
	ctl = trc_track(t, 0, TRC_KIND_CONTROL, 0, "control");
	mtx = trc_track(t, 0, TRC_KIND_MATRIX, 0, "matrix");
	trc_span_flow(t, ctl, 10, 11, "mmul", NULL, &out);
	trc_span_flow(t, mtx, 12, 40, "mmul", NULL, &in);
	ck_assert_int_eq(trc_close(t, &d), 0);
	txt = gunzip(path, &n);
	ck_assert_ptr_null(strstr(txt, "bind_id"));
	free(txt);
	t = trc_open(path, 0, &d);
	mtx = trc_track(t, 0, TRC_KIND_MATRIX, 0, "matrix");
	trc_span_flow(t, mtx, 12, 40, "mmul", NULL, &in);
	ck_assert_int_eq(trc_close(t, &d), 0);
	txt = gunzip(path, &n);
	ck_assert_ptr_null(strstr(txt, "bind_id"));
	free(txt);
	rm_tmpdir();
}
END_TEST

/* trc_json_member: a valid "key":"value" even when cut short. */
START_TEST(trc_json_member_cases)
{
	char buf[16], obj[20];

	trc_json_member(buf, sizeof(buf), "k", "a\"b");
	ck_assert_str_eq(buf, "\"k\":\"a\\\"b\"");
	trc_json_member(buf, sizeof(buf), "k", "0123456789abcdef");
	ck_assert_str_eq(buf, "\"k\":\"012345678\"");
	snprintf(obj, sizeof(obj), "{%s}", buf);
	ck_assert(json_ok(obj));
}
END_TEST

static Suite *suite_traces(void)
{
	Suite *s = suite_create("traces");

	TEST_ADD(s, traces_json_validator_self_check);
	TEST_ADD(s, trc_json_escape_cases);
	TEST_ADD(s, trc_json_double_shortest);
	TEST_ADD(s, ctrout_json_exact);
	TEST_ADD(s, ctrout_json_minimal);
	TEST_ADD(s, ctrout_units);
	TEST_ADD(s, ctrout_csv_exact);
	TEST_ADD(s, energy_by_hand);
	TEST_ADD(s, ctrout_json_schema2);
	TEST_ADD(s, arch_hash_settings);
	TEST_ADD(s, ctrout_select_rules);
	TEST_ADD(s, ctrout_text_exact);
	TEST_ADD(s, ctrout_text_no_bogus_ratios);
	TEST_ADD(s, ctrout_derived_table_consistent);
	TEST_ADD(s, ctrout_derived_every_row_printed);
	TEST_ADD(s, ctrout_thousands_and_floats);
	TEST_ADD(s, ctrout_fmt_by_extension);
	TEST_ADD(s, ctrout_write_atomic);
	TEST_ADD(s, trace_exact_small);
	TEST_ADD(s, trace_wellformed_and_metadata);
	TEST_ADD(s, trace_real_time);
	TEST_ADD(s, trace_lanes);
	TEST_ADD(s, trace_deterministic);
	TEST_ADD(s, trace_digest_matches_content);
	TEST_ADD(s, trace_failures_leave_nothing);
	TEST_ADD(s, trace_huge_event);
	TEST_ADD(s, trace_tracks_by_kind);
	TEST_ADD(s, trace_window);
	TEST_ADD(s, trace_units);
	TEST_ADD(s, trace_flows);
	TEST_ADD(s, trc_json_member_cases);
	return s;
}

TEST_MAIN(suite_traces)
