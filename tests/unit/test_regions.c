/*
 * test_regions.c - program regions (rbeg/rend): accounting, zero cost,
 * faults, through the run library (run_regions) as `npusim run` uses it.
 *
 *   regions.count.inside_equals_alone  the counters of a region holding
 *                                one mpre+mmul equal those of a run of
 *                                only that code; its cycles are the
 *                                distance between the markers (csrr)
 *   regions.count.reentry_nesting  entries, cycles and counters
 *                                accumulate over a loop; nested regions
 *                                add up; a region never entered is listed
 *                                with 0 entries
 *   regions.count.open_at_halt   a region left open closes when the core
 *                                finishes, after its units drained
 *   regions.count.phases         a name keeps its counters across
 *                                programs (phases) on one core
 *   regions.count.multicore      one list entry per core and region; the
 *                                chip-level DRAM counters are in scope
 *   regions.count.paused         a region open at a pause counts up to
 *                                the pause, and is unchanged by it
 *   regions.zero_cost            removing every marker changes no cycle
 *                                and no counter (a loop of 2 x 40
 *                                boundaries, DMA in flight across them)
 *   regions.fault.*              rend without rbeg, out of order,
 *                                recursion, depth 17, an id beyond the
 *                                table: each a fault at the marker's pc
 */
#include <stdio.h>
#include <string.h>

#include "runenv.h"

/* Load src on every core and run it to the end (must succeed). */
static void env_run(struct env *e, const char *src, struct chip_result *res)
{
	ck_assert_msg(run_load_source(e->r, "t.s", src, strlen(src), NULL,
				      RUN_ALL_CORES) == 0, "%s", env_log(e));
	ck_assert_msg(run_go(e->r, CYCLE_MAX, res) == 0, "%s", env_log(e));
}

/* The region called name on core, which must exist. */
static const struct ctr_region *region(const struct ctr_region *v, size_t n,
				       const char *name, int core)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (v[k].core == core && !strcmp(v[k].name, name))
			return &v[k];
	ck_abort_msg("no region %s on core %d", name, core);
	return NULL;
}

/* 16 x 16 x 16 int8 WS matrix setup: A at spm 0, B at spm 0x1000, C at
 * acc 0 (contents do not matter here, counters do). */
#define MSETUP                                                              \
	"\tli t0, ws\n\tmset df, t0\n\tli t0, int8\n\tmset itype, t0\n"     \
	"\tli t0, int32\n\tmset atype, t0\n\tli t0, 16\n\tmset m, t0\n"    \
	"\tmset k, t0\n\tmset n, t0\n"                                      \
	"\tli a0, 0\n\tli a1, 0\n\tli a2, 0x1000\n"
#define MMUL "\tmpre a2\n\tmmul a0, a1, zero\n"

START_TEST(regions_count_inside_equals_alone)
{
	static const char with[] =
		MSETUP MMUL "\tfence all\n"
		"\tcsrr s0, cycle\n"
		"\trbeg mm\n" MMUL "\tfence all\n\trend mm\n"
		"\tcsrr s1, cycle\n"
		MMUL MMUL "\tfence all\n\thalt\n";
	static const char alone[] = MSETUP MMUL "\tfence all\n\thalt\n";
	struct env e, a;
	struct chip_result res;
	struct ctr_region *v;
	const struct ctr_region *g;
	struct ctr_sink s;
	size_t n, k, n_matrix = 0;

	env_new(&e, NULL, 0);
	env_run(&e, with, &res);
	ck_assert_int_eq(run_regions(e.r, &v, &n), 0);
	ck_assert_uint_eq(n, 1);
	g = region(v, n, "mm", 0);
	ck_assert_uint_eq(g->entries, 1);
	/* The markers take no slot: rbeg sits in the cycle after the first
	 * csrr, rend in the cycle of the second. */
	ck_assert_uint_eq(g->cycles, chip_reg(run_chip(e.r), 0, 9) -
					     chip_reg(run_chip(e.r), 0, 8) - 1);
	ck_assert_uint_gt(ctr(&g->s, "core0.matrix.macs"), 0);

	env_new(&a, NULL, 0);
	env_run(&a, alone, &res);
	ctr_sink_init(&s);
	ck_assert_int_eq(run_counters(a.r, &s), 0);
	ck_assert_uint_eq(ctr(&g->s, "core0.matrix.macs"), 16 * 16 * 16);
	/* Every matrix, scratchpad and accumulator counter of the region is
	 * what the code inside does alone. */
	for (k = 0; k < g->s.n; k++) {
		const char *nm = g->s.v[k].name;

		if (strncmp(nm, "core0.matrix.", 13) &&
		    strncmp(nm, "core0.scratchpad.", 17) &&
		    strncmp(nm, "core0.accumulator.", 18))
			continue;
		ck_assert_msg(g->s.v[k].u == ctr(&s, nm), "%s: region %llu, alone %llu",
			      nm, (unsigned long long)g->s.v[k].u,
			      (unsigned long long)ctr(&s, nm));
		n_matrix += !strncmp(nm, "core0.matrix.", 13);
	}
	ck_assert_uint_gt(n_matrix, 5);
	/* No DMA inside: nothing moved through DRAM. */
	ck_assert_uint_eq(ctr(&g->s, "dram.ch0.read_bytes"), 0);
	ck_assert_ptr_null(ctr_find(&g->s, "core0.cycles"));
	ctr_sink_free(&s);
	run_regions_free(v, n);
	env_free(&a);
	env_free(&e);
}
END_TEST

START_TEST(regions_count_reentry_nesting)
{
	static const char src[] =
		MSETUP
		"\tli s2, 3\n"
		"loop:\n"
		"\trbeg outer\n"
		"\trbeg \"inner one\"\n" MMUL "\tfence all\n\trend \"inner one\"\n"
		MMUL "\tfence all\n"
		"\trend outer\n"
		"\tdbnz s2, loop\n"
		"\tbeq zero, zero, done\n"
		"\trbeg never\n\trend never\n"
		"done:\n\thalt\n";
	struct env e;
	struct chip_result res;
	struct ctr_region *v;
	const struct ctr_region *in, *out, *nv;
	size_t n;

	env_new(&e, NULL, 0);
	env_run(&e, src, &res);
	ck_assert_int_eq(run_regions(e.r, &v, &n), 0);
	ck_assert_uint_eq(n, 3);
	/* In order of first appearance in the region table. */
	ck_assert_str_eq(v[0].name, "outer");
	ck_assert_str_eq(v[1].name, "inner one");
	ck_assert_str_eq(v[2].name, "never");
	out = region(v, n, "outer", 0);
	in = region(v, n, "inner one", 0);
	nv = region(v, n, "never", 0);
	ck_assert_uint_eq(out->entries, 3);
	ck_assert_uint_eq(in->entries, 3);
	ck_assert_uint_eq(nv->entries, 0);
	ck_assert_uint_eq(nv->cycles, 0);
	ck_assert_uint_eq(ctr(&nv->s, "core0.matrix.macs"), 0);
	ck_assert_uint_eq(ctr(&in->s, "core0.matrix.macs"), 3 * 4096);
	ck_assert_uint_eq(ctr(&out->s, "core0.matrix.macs"), 6 * 4096);
	ck_assert_uint_eq(ctr(&in->s, "core0.matrix.insns"), 6);
	ck_assert_uint_eq(ctr(&out->s, "core0.matrix.insns"), 12);
	ck_assert_uint_gt(in->cycles, 0);
	ck_assert_uint_gt(out->cycles, in->cycles);
	ck_assert_uint_lt(out->cycles, res.cycles);
	run_regions_free(v, n);
	env_free(&e);
}
END_TEST

START_TEST(regions_count_open_at_halt)
{
	/* No fence: the mmul is still running at halt; the region closes
	 * when the core finishes, so it holds all of the mmul's work. */
	static const char src[] = MSETUP "\trbeg tail\n" MMUL "\thalt\n";
	struct env e;
	struct chip_result res;
	struct ctr_region *v;
	struct ctr_sink s;
	size_t n;

	env_new(&e, NULL, 0);
	env_run(&e, src, &res);
	ck_assert_int_eq(run_regions(e.r, &v, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(v[0].entries, 1);
	ctr_sink_init(&s);
	ck_assert_int_eq(run_counters(e.r, &s), 0);
	ck_assert_uint_eq(ctr(&v[0].s, "core0.matrix.macs"), 4096);
	ck_assert_uint_eq(ctr(&v[0].s, "core0.matrix.busy_cycles"),
			  ctr(&s, "core0.matrix.busy_cycles"));
	/* Opened after the 13-instruction setup, closed at the finish. */
	ck_assert_uint_eq(v[0].cycles, res.cycles - 13);
	ctr_sink_free(&s);
	run_regions_free(v, n);
	env_free(&e);
}
END_TEST

START_TEST(regions_count_phases)
{
	static const char p1[] = MSETUP "\trbeg k\n" MMUL "\tfence all\n\trend k\n\thalt\n";
	static const char p2[] = MSETUP "\trbeg other\n\trend other\n"
				 "\trbeg k\n" MMUL MMUL "\tfence all\n\trend k\n\thalt\n";
	struct env e;
	struct chip_result res;
	struct ctr_region *v;
	size_t n;

	env_new(&e, NULL, 0);
	env_run(&e, p1, &res);
	env_run(&e, p2, &res);
	ck_assert_int_eq(run_regions(e.r, &v, &n), 0);
	/* k is region 0 of p1 and region 1 of p2: one region by name. */
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(v[0].name, "k");
	ck_assert_str_eq(v[1].name, "other");
	ck_assert_uint_eq(v[0].entries, 2);
	ck_assert_uint_eq(ctr(&v[0].s, "core0.matrix.macs"), 3 * 4096);
	ck_assert_uint_eq(v[1].entries, 1);
	ck_assert_uint_eq(v[1].cycles, 0);
	run_regions_free(v, n);
	env_free(&e);
}
END_TEST

/* Copy 256 bytes DRAM -> spm on engine 0 and wait for it. */
#define DMA_IN                                                              \
	"\tli t0, 0\n\tdset src, t0\n\tdset dst, t0\n"                      \
	"\tli t0, dram\n\tdset smem, t0\n\tli t0, spm\n\tdset dmem, t0\n"   \
	"\tli t0, 256\n\tdset n0, t0\n"

static const char *const ov_2c[] = { "chip.cores=2", "noc.cols=4",
				     "noc.rows=1" };

START_TEST(regions_count_multicore)
{
	static const char src[] =
		".tensor X, dram, 0x0, int8, 256\n"
		DMA_IN "\trbeg load\n\tdma 0\n\tfence all\n\trend load\n\thalt\n";
	struct env e;
	struct chip_result res;
	struct ctr_region *v;
	size_t n;

	env_new(&e, ov_2c, 3);
	env_run(&e, src, &res);
	ck_assert_int_eq(run_regions(e.r, &v, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(v[0].core, 0);
	ck_assert_int_eq(v[1].core, 1);
	ck_assert_uint_eq(ctr(&v[0].s, "core0.dma0.bytes_dram_to_sram"), 256);
	ck_assert_uint_eq(ctr(&v[1].s, "core1.dma0.bytes_dram_to_sram"), 256);
	/* A core's scope has its own units and the chip's, not the other
	 * core's; the shared DRAM saw both cores' reads in both regions. */
	ck_assert_ptr_null(ctr_find(&v[0].s, "core1.dma0.bytes_dram_to_sram"));
	ck_assert_uint_ge(ctr(&v[0].s, "dram.ch0.read_bytes"), 256);
	ck_assert_uint_le(ctr(&v[0].s, "dram.ch0.read_bytes"), 512);
	run_regions_free(v, n);
	env_free(&e);
}
END_TEST

START_TEST(regions_count_paused)
{
	static const char src[] = MSETUP "\trbeg r\n" MMUL MMUL MMUL
				  "\tfence all\n\trend r\n\thalt\n";
	struct env e;
	struct chip_result res;
	struct ctr_region *v, *w;
	size_t n;

	env_new(&e, NULL, 0);
	ck_assert_int_eq(run_load_source(e.r, "t.s", src, strlen(src), NULL,
					 RUN_ALL_CORES), 0);
	/* The region opens at cycle 13; pause 10 cycles later. */
	ck_assert_int_eq(run_go(e.r, 23, &res), 0);
	ck_assert(res.paused);
	ck_assert_int_eq(run_regions(e.r, &v, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(v[0].entries, 1);
	ck_assert_uint_eq(v[0].cycles, chip_now(run_chip(e.r)) - 13);
	/* Reading it changed nothing: the finished run counts one entry. */
	ck_assert_int_eq(run_go(e.r, CYCLE_MAX, &res), 0);
	ck_assert_int_eq(run_regions(e.r, &w, &n), 0);
	ck_assert_uint_eq(w[0].entries, 1);
	ck_assert_uint_eq(ctr(&w[0].s, "core0.matrix.macs"), 3 * 4096);
	run_regions_free(v, n);
	run_regions_free(w, n);
	env_free(&e);
}
END_TEST

/* Drop every line holding an rbeg or rend. */
static void strip_markers(const char *src, char *out)
{
	const char *p = src;

	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p + 1) : strlen(p);

		if (!strstr(p, "rbeg") || strstr(p, "rbeg") >= p + len) {
			if (!strstr(p, "rend") || strstr(p, "rend") >= p + len) {
				memcpy(out, p, len);
				out += len;
			}
		}
		p += len;
	}
	*out = '\0';
}

START_TEST(regions_zero_cost)
{
	/* Boundaries everywhere: between scalar instructions, with DMA in
	 * flight across them, nested, in a loop of 40. */
	static const char src[] =
		".tensor X, dram, 0x0, int8, 256\n"
		MSETUP DMA_IN
		"\tli s2, 40\n"
		"loop:\n"
		"\trbeg a\n\taddi t1, t1, 1\n\trbeg b\n\tdma 0\n\trend b\n"
		"\tmul t2, t1, t1\n\trend a\n"
		"\trbeg c\n" MMUL "\trend c\n"
		"\tdbnz s2, loop\n"
		"\trbeg d\n\tfence all\n\trend d\n"
		"\trbeg open\n\tdma 1\n\thalt\n";
	char plain[sizeof(src)];
	struct env e, p;
	struct chip_result r1, r2;
	struct ctr_sink s1, s2;
	size_t k;

	strip_markers(src, plain);
	ck_assert_ptr_null(strstr(plain, "rbeg"));
	env_new(&e, NULL, 0);
	env_new(&p, NULL, 0);
	env_run(&e, src, &r1);
	env_run(&p, plain, &r2);
	ck_assert_uint_eq(r1.cycles, r2.cycles);
	ctr_sink_init(&s1);
	ctr_sink_init(&s2);
	ck_assert_int_eq(run_counters(e.r, &s1), 0);
	ck_assert_int_eq(run_counters(p.r, &s2), 0);
	ck_assert_uint_eq(s1.n, s2.n);
	for (k = 0; k < s1.n; k++) {
		ck_assert_str_eq(s1.v[k].name, s2.v[k].name);
		ck_assert_msg(s1.v[k].u == s2.v[k].u && s1.v[k].f == s2.v[k].f,
			      "%s: %llu with markers, %llu without", s1.v[k].name,
			      (unsigned long long)s1.v[k].u,
			      (unsigned long long)s2.v[k].u);
	}
	ctr_sink_free(&s1);
	ctr_sink_free(&s2);
	env_free(&e);
	env_free(&p);
}
END_TEST

/* src faults (NPU_EFAULT) with a message holding want and where. */
static void expect_fault(const char *src, const char *where, const char *want)
{
	struct env e;
	struct chip_result res;

	env_new(&e, NULL, 0);
	ck_assert_msg(run_load_source(e.r, "t.s", src, strlen(src), NULL,
				      RUN_ALL_CORES) == 0, "%s", env_log(&e));
	ck_assert_int_eq(run_go(e.r, CYCLE_MAX, &res), NPU_EFAULT);
	ck_assert_msg(strstr(env_log(&e), want) != NULL, "want '%s' in:\n%s",
		      want, env_log(&e));
	ck_assert_msg(strstr(env_log(&e), where) != NULL, "want '%s' in:\n%s",
		      where, env_log(&e));
	env_free(&e);
}

START_TEST(regions_fault_nesting)
{
	expect_fault("\tnop\n\trend x\n\thalt\n", "core 0 pc 0x4 cycle 1:",
		     "rend x: no region is open");
	expect_fault("\trbeg a\n\trbeg b\n\trend a\n\thalt\n",
		     "core 0 pc 0x8 cycle 0:",
		     "rend a: the innermost open region is b");
	/* The source line of the marker is noted. */
	expect_fault("\trbeg a\n\trbeg b\n\trend a\n\thalt\n", "t.s:3:",
		     "the instruction at pc 0x8");
	expect_fault("\trbeg a\n\tnop\n\trbeg a\n\thalt\n",
		     "core 0 pc 0x8 cycle 1:",
		     "rbeg a: the region is already open");
	/* 16 levels pass, the 17th faults. */
	expect_fault("\trbeg (0)\n\trbeg (1)\n\trbeg (2)\n"
		     "\trbeg (3)\n\trbeg (4)\n\trbeg (5)\n\trbeg (6)\n"
		     "\trbeg (7)\n\trbeg (8)\n\trbeg (9)\n\trbeg (10)\n"
		     "\trbeg (11)\n\trbeg (12)\n\trbeg (13)\n\trbeg (14)\n"
		     "\trbeg (15)\n\trbeg (16)\n\thalt\n",
		     "core 0 pc 0x40 cycle 0:",
		     "rbeg region16: regions nest at most 16 deep on a core");
}
END_TEST

START_TEST(regions_fault_bad_id)
{
	/* An image from another producer, with rbeg 3 and one name. */
	struct env e;
	struct chip_result res;
	struct prog_image *img = prog_new("gen");
	uint32_t code[2] = { 0, isa_op_info[ISA_OP_HALT].match };
	struct isa_insn in = { .op = ISA_OP_RBEG, .imm = 3 };
	char err[64];
	size_t id;

	ck_assert_int_eq(isa_encode(&in, &code[0], err, sizeof(err)), 0);
	ck_assert_int_eq(prog_add_code(img, code, 2), 0);
	ck_assert_int_eq(prog_add_region(img, "only", &id), 0);
	ck_assert_uint_eq(id, 0);
	ck_assert_str_eq(prog_region_name(img, 0), "only");
	ck_assert_ptr_null(prog_region_name(img, 1));
	/* Names are printable, 1..255 bytes. */
	ck_assert_int_eq(prog_add_region(img, "", &id), NPU_ERANGE);
	ck_assert_int_eq(prog_add_region(img, "a\tb", &id), NPU_ERANGE);
	env_new(&e, NULL, 0);
	ck_assert_int_eq(run_load_image(e.r, img, RUN_ALL_CORES), 0);
	ck_assert_int_eq(run_go(e.r, CYCLE_MAX, &res), NPU_EFAULT);
	ck_assert_msg(strstr(env_log(&e), "core 0 pc 0x0 cycle 0: error: rbeg: region 3 is not in the program's region table (1 region)"),
		      "%s", env_log(&e));
	env_free(&e);
	prog_free(img);
}
END_TEST

static Suite *suite_regions(void)
{
	Suite *s = suite_create("regions");

	TEST_ADD(s, regions_count_inside_equals_alone);
	TEST_ADD(s, regions_count_reentry_nesting);
	TEST_ADD(s, regions_count_open_at_halt);
	TEST_ADD(s, regions_count_phases);
	TEST_ADD(s, regions_count_multicore);
	TEST_ADD(s, regions_count_paused);
	TEST_ADD(s, regions_zero_cost);
	TEST_ADD(s, regions_fault_nesting);
	TEST_ADD(s, regions_fault_bad_id);
	return s;
}

TEST_MAIN(suite_regions)
