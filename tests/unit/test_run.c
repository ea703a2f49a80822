/*
 * test_run.c - the run library (run/run.h), driven without the CLI.
 *
 *   run.api.complete          config -> assemble -> bind from memory -> run
 *                             -> read back -> counters, against a reference
 *   run.phases.dram_kept      two programs back to back on one chip: the
 *                             second reads what the first left in DRAM and
 *                             starts where the first ended
 *   run.phases.until          pausing at a cycle and continuing gives the
 *                             same cycles and counters as one straight run
 *   run.cores.own_programs    different programs on different cores, each
 *                             with its own tensor table
 *   run.cores.missing         a core without a program is an error, not a
 *                             hang
 *   run.two_chips             two runs in one process, interleaved, give
 *                             the results of separate runs (no global state)
 *   run.partitions.*          partitions are chips of their own to their
 *                             programs (coreid, ncores, rsig, barrier, DMA
 *                             to remote scratchpads); faults name them
 *   run.launch.pipeline       a launcher starts programs on partitions
 *                             mid-phase, on a partition's finish and on a
 *                             signal across the NoC
 */
#include <stdio.h>
#include <string.h>

#include "../../report/energy.h"
#include "runenv.h"

/* DMA a 256-byte int8 tensor from DRAM src to DRAM dst through the
 * scratchpad at spm, one engine: descriptors run in order, so the write
 * back sees the load. */
#define COPY(src, dst, spm)                                                \
	"\tli t0, " #src "\n\tdset src, t0\n\tli t0, " #spm "\n\tdset dst, t0\n" \
	"\tli t0, dram\n\tdset smem, t0\n\tli t0, spm\n\tdset dmem, t0\n"    \
	"\tli t0, 256\n\tdset n0, t0\n\tdma 0\n"                             \
	"\tli t0, " #spm "\n\tdset src, t0\n\tli t0, " #dst "\n\tdset dst, t0\n" \
	"\tli t0, spm\n\tdset smem, t0\n\tli t0, dram\n\tdset dmem, t0\n"    \
	"\tdma 0\n\tfence all\n"

static const char copy1[] =
	".tensor X, dram, 0x0, int8, 256\n"
	".tensor Y, dram, 0x1000, int8, 256\n"
	COPY(0x0, 0x1000, 0x0) "\thalt\n";

static const char copy2[] =
	".tensor Y, dram, 0x1000, int8, 256\n"
	".tensor Z, dram, 0x2000, int8, 256\n"
	COPY(0x1000, 0x2000, 0x100) "\thalt\n";

static void pattern(int8_t *v, int n, int seed)
{
	int i;

	for (i = 0; i < n; i++)
		v[i] = (int8_t)(i * 7 + seed);
}

START_TEST(run_api_complete)
{
	/* y[i] = x[i] + 1 on the vector unit, int8, one row of 64. */
	static const char src[] =
		".tensor X, spm, 0x0, int8, 64\n"
		".tensor Y, spm, 0x100, int8, 64\n"
		".tensor ONE, spm, 0x200, int8, 64\n"
		"\tli t0, 64\n\tvset len, t0\n"
		"\tli a0, 0x100\n\tli a1, 0x0\n\tli a2, 0x200\n"
		"\tvadd a0, a1, a2\n\tfence all\n\thalt\n";
	struct env e;
	struct chip_result res;
	struct ctr_sink s;
	int8_t x[64], one[64], y[64];
	int i;

	env_new(&e, NULL, 0);
	ck_assert_msg(run_load_source(e.r, "t.s", src, strlen(src), NULL,
				      RUN_ALL_CORES) == 0, "%s", env_log(&e));
	pattern(x, 64, -100);
	memset(one, 1, sizeof(one));
	ck_assert_int_eq(run_write(e.r, "X", 0, x, sizeof(x)), 0);
	ck_assert_int_eq(run_write(e.r, "ONE", 0, one, sizeof(one)), 0);
	/* A wrong size is refused with the tensor's real size. */
	ck_assert_int_eq(run_write(e.r, "X", 0, x, 3), NPU_ETENSOR);
	ck_assert_msg(run_go(e.r, CYCLE_MAX, &res) == 0, "%s", env_log(&e));
	ck_assert_uint_gt(res.cycles, 0);
	ck_assert_int_eq(run_read(e.r, "Y", 0, y, sizeof(y)), 0);
	for (i = 0; i < 64; i++)
		ck_assert_int_eq(y[i], (int8_t)(x[i] + 1));
	ctr_sink_init(&s);
	ck_assert_int_eq(run_counters(e.r, &s), 0);
	ck_assert_uint_eq(ctr(&s, "core0.cycles"), res.cycles);
	ck_assert_uint_eq(ctr(&s, "core0.vector.insns"), 1);
	ck_assert_uint_eq(ctr(&s, "core0.vector.ops"), 64);
	ctr_sink_free(&s);
	ck_assert_ptr_null(run_tensor(e.r, "W", 0));
	ck_assert_ptr_nonnull(strstr(env_log(&e), "holds 64 bytes, not 3"));
	env_free(&e);
}
END_TEST

START_TEST(run_phases_dram_kept)
{
	struct env e;
	struct chip_result r1, r2;
	struct ctr_sink s1, s2;
	int8_t x[256], z[256];

	env_new(&e, NULL, 0);
	ck_assert_int_eq(run_load_source(e.r, "copy1.s", copy1, strlen(copy1),
					 NULL, RUN_ALL_CORES), 0);
	pattern(x, 256, 3);
	ck_assert_int_eq(run_write(e.r, "X", 0, x, sizeof(x)), 0);
	ck_assert_msg(run_go(e.r, CYCLE_MAX, &r1) == 0, "%s", env_log(&e));
	ctr_sink_init(&s1);
	ck_assert_int_eq(run_counters(e.r, &s1), 0);
	/* Loading during no phase is fine; the second program never saw X:
	 * Z can only equal X through the DRAM the first one wrote. */
	ck_assert_int_eq(run_load_source(e.r, "copy2.s", copy2, strlen(copy2),
					 NULL, RUN_ALL_CORES), 0);
	ck_assert_msg(run_go(e.r, CYCLE_MAX, &r2) == 0, "%s", env_log(&e));
	ck_assert_int_eq(run_read(e.r, "Z", 0, z, sizeof(z)), 0);
	ck_assert_mem_eq(z, x, sizeof(x));
	/* The second phase starts where the first ended and takes as long
	 * as the same copy does on a fresh chip (same DRAM state class:
	 * both start with the banks' rows open or closed alike is not
	 * guaranteed, so only order and growth are asserted). */
	ck_assert_uint_eq(r1.phase_start, 0);
	ck_assert_uint_eq(r2.phase_start, r1.cycles);
	ck_assert_uint_gt(r2.cycles, r1.cycles);
	/* Counters keep counting: the phase's own are the difference. */
	ctr_sink_init(&s2);
	ck_assert_int_eq(run_counters(e.r, &s2), 0);
	ck_assert_uint_eq(ctr(&s1, "core0.dma0.transfers"), 2);
	ck_assert_uint_eq(ctr(&s2, "core0.dma0.transfers"), 4);
	ck_assert_uint_eq(ctr(&s2, "core0.dma0.bytes_dram_to_sram") -
			  ctr(&s1, "core0.dma0.bytes_dram_to_sram"), 256);
	ctr_sink_free(&s1);
	ctr_sink_free(&s2);
	env_free(&e);
}
END_TEST

/* Energy from a real chip's dump: every part that the run's counters
 * feed is their count times its per-event energy, found by counter id
 * (the NoC's counters, "noc.hops", once read 0 through a name lookup). */
START_TEST(run_energy_of_dump)
{
	static const char *const ov[] = { "chip.cores=2", "noc.cols=2",
					  "noc.rows=2" };
	struct env e;
	struct chip_result res;
	struct ctr_sink s;
	struct energy en;
	int8_t x[256];
	uint64_t hops, rd, wr;

	env_new(&e, ov, 3);
	ck_assert_int_eq(run_load_source(e.r, "copy1.s", copy1, strlen(copy1),
					 NULL, RUN_ALL_CORES), 0);
	pattern(x, 256, 5);
	ck_assert_int_eq(run_write(e.r, "X", 0, x, sizeof(x)), 0);
	ck_assert_msg(run_go(e.r, CYCLE_MAX, &res) == 0, "%s", env_log(&e));
	ctr_sink_init(&s);
	ck_assert_int_eq(run_counters(e.r, &s), 0);
	hops = ctr_sum(&s, CTR_NOC_HOPS);
	rd = ctr_sum(&s, CTR_DRAM_READ_BYTES);
	wr = ctr_sum(&s, CTR_DRAM_WRITE_BYTES);
	ck_assert_uint_eq(hops, ctr(&s, "noc.hops"));
	ck_assert_uint_gt(hops, 0);
	/* both cores copied 256 bytes in and out */
	ck_assert_uint_eq(rd, 512);
	ck_assert_uint_eq(wr, 512);
	energy_of(&e.a, &s, res.cycles, &en);
	ck_assert(en.pj[ENERGY_NOC] == (double)hops * ARCH_F(&e.a, EN_NOC));
	ck_assert(en.pj[ENERGY_DRAM_READ] == (double)rd * ARCH_F(&e.a, EN_DRAM_RD));
	ck_assert(en.pj[ENERGY_DRAM_WRITE] == (double)wr * ARCH_F(&e.a, EN_DRAM_WR));
	ctr_sink_free(&s);
	env_free(&e);
}
END_TEST

/* --max-cycles N lets a run of exactly N cycles finish and stops one
 * that needs N + 1 (it once let a run of N + 1 cycles through: the
 * engine stopped only at events after cycle N). */
START_TEST(run_max_cycles_exact)
{
	struct env e;
	struct chip_result res;
	cycle_t c;
	int8_t x[256];
	int k;

	env_new(&e, NULL, 0);
	ck_assert_int_eq(run_load_source(e.r, "copy1.s", copy1, strlen(copy1),
					 NULL, RUN_ALL_CORES), 0);
	ck_assert_msg(run_go(e.r, CYCLE_MAX, &res) == 0, "%s", env_log(&e));
	c = res.cycles;
	env_free(&e);
	for (k = 0; k < 2; k++) {
		struct run_params p;

		memset(&e, 0, sizeof(e));
		e.fp = open_memstream(&e.log, &e.log_len);
		diag_init(&e.d, e.fp);
		ck_assert_int_eq(arch_load(&e.a, NULL, NULL, 0, &e.d), 0);
		memset(&p, 0, sizeof(p));
		p.max_cycles = k ? c : c - 1;
		ck_assert_ptr_nonnull(e.r = run_new(&e.a, &p, &e.d));
		ck_assert_int_eq(run_load_source(e.r, "copy1.s", copy1, strlen(copy1),
						 NULL, RUN_ALL_CORES), 0);
		pattern(x, 256, 1);
		ck_assert_int_eq(run_write(e.r, "X", 0, x, sizeof(x)), 0);
		if (k)
			ck_assert_msg(run_go(e.r, CYCLE_MAX, &res) == 0, "%s", env_log(&e));
		else {
			ck_assert_int_eq(run_go(e.r, CYCLE_MAX, &res), NPU_ETIMEOUT);
			ck_assert_ptr_nonnull(strstr(env_log(&e), "cycle limit"));
		}
		env_free(&e);
	}
}
END_TEST

START_TEST(run_phases_until)
{
	struct env a, b;
	struct chip_result ra, rb;
	struct ctr_sink sa, sb;
	int8_t x[256];
	size_t i;
	int n = 0;

	pattern(x, 256, 9);
	env_new(&a, NULL, 0);
	env_new(&b, NULL, 0);
	ck_assert_int_eq(run_load_source(a.r, "c.s", copy1, strlen(copy1), NULL,
					 RUN_ALL_CORES), 0);
	ck_assert_int_eq(run_load_source(b.r, "c.s", copy1, strlen(copy1), NULL,
					 RUN_ALL_CORES), 0);
	ck_assert_int_eq(run_write(a.r, "X", 0, x, sizeof(x)), 0);
	ck_assert_int_eq(run_write(b.r, "X", 0, x, sizeof(x)), 0);
	ck_assert_int_eq(run_go(a.r, CYCLE_MAX, &ra), 0);
	/* b in slices of 23 cycles. */
	do {
		ck_assert_int_eq(run_go(b.r, (cycle_t)(n + 1) * 23, &rb), 0);
		if (rb.paused)
			ck_assert_uint_eq(chip_now(run_chip(b.r)),
					  (cycle_t)(n + 1) * 23);
		n++;
	} while (rb.paused);
	ck_assert_int_gt(n, 2);
	ck_assert_uint_eq(rb.cycles, ra.cycles);
	ctr_sink_init(&sa);
	ctr_sink_init(&sb);
	ck_assert_int_eq(run_counters(a.r, &sa), 0);
	ck_assert_int_eq(run_counters(b.r, &sb), 0);
	ck_assert_uint_eq(sa.n, sb.n);
	for (i = 0; i < sa.n; i++) {
		ck_assert_str_eq(sa.v[i].name, sb.v[i].name);
		ck_assert_msg(sa.v[i].u == sb.v[i].u && sa.v[i].f == sb.v[i].f,
			      "%s differs", sa.v[i].name);
	}
	ctr_sink_free(&sa);
	ctr_sink_free(&sb);
	env_free(&a);
	env_free(&b);
}
END_TEST

static const char *const ov_3c[] = { "chip.cores=3", "noc.cols=4",
				     "noc.rows=1" };

START_TEST(run_cores_own_programs)
{
	/* Core 0 copies X to Y; cores 1-2 run another program with its own
	 * tensor table and registers, and meet core 0 at a barrier. */
	static const char other[] =
		".tensor S, spm, 0x40, int8, 8\n"
		"\tcsrr a0, coreid\n\tli a1, 22\n\tbarrier\n\thalt\n";
	char first[1024];
	struct env e;
	struct chip_result r;
	int8_t x[256], y[256], sv[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

	snprintf(first, sizeof(first), "%s", copy1);
	/* the copy program with a barrier before its halt */
	strcpy(strstr(first, "\thalt\n"), "\tli a1, 11\n\tbarrier\n\thalt\n");
	env_new(&e, ov_3c, 3);
	ck_assert_int_eq(run_load_source(e.r, "first.s", first, strlen(first),
					 NULL, 0, 0), 0);
	ck_assert_int_eq(run_load_source(e.r, "other.s", other, strlen(other),
					 NULL, 1, 2), 0);
	pattern(x, 256, 5);
	ck_assert_int_eq(run_write(e.r, "X", 0, x, sizeof(x)), 0);
	ck_assert_int_eq(run_write(e.r, "S", 2, sv, sizeof(sv)), 0);
	/* Each core's tensor table is its own program's. */
	ck_assert_ptr_null(run_tensor(e.r, "S", 0));
	ck_assert_ptr_null(run_tensor(e.r, "X", 1));
	ck_assert_int_eq(run_write(e.r, "X", 1, x, sizeof(x)), NPU_ETENSOR);
	ck_assert_msg(run_go(e.r, CYCLE_MAX, &r) == 0, "%s", env_log(&e));
	ck_assert_int_eq(run_read(e.r, "Y", 0, y, sizeof(y)), 0);
	ck_assert_mem_eq(y, x, sizeof(x));
	ck_assert_uint_eq(chip_reg(run_chip(e.r), 0, 11), 11);  /* a1 */
	ck_assert_uint_eq(chip_reg(run_chip(e.r), 1, 11), 22);
	ck_assert_uint_eq(chip_reg(run_chip(e.r), 2, 11), 22);
	ck_assert_uint_eq(chip_reg(run_chip(e.r), 2, 10), 2);   /* a0 */
	ck_assert_int_eq(run_read(e.r, "S", 2, y, 8), 0);
	ck_assert_mem_eq(y, sv, 8);
	ck_assert_ptr_nonnull(strstr(chip_program(run_chip(e.r), 1)->name,
				     "other.s"));
	env_free(&e);
}
END_TEST

START_TEST(run_cores_missing)
{
	struct env e;
	struct chip_result r;

	env_new(&e, ov_3c, 3);
	ck_assert_int_eq(run_load_source(e.r, "c.s", copy1, strlen(copy1),
					 NULL, 0, 1), 0);
	ck_assert_int_eq(run_go(e.r, CYCLE_MAX, &r), NPU_EUSAGE);
	ck_assert_ptr_nonnull(strstr(env_log(&e), "core 2 has no program"));
	/* Cores that do not exist are refused when loading. */
	ck_assert_int_eq(run_load_source(e.r, "c.s", copy1, strlen(copy1),
					 NULL, 2, 3), NPU_EUSAGE);
	ck_assert_ptr_nonnull(strstr(env_log(&e), "cores 2-3 do not exist"));
	env_free(&e);
}
END_TEST

START_TEST(run_two_chips)
{
	/* Two configs in one process, stepped alternately: each ends as it
	 * does alone. */
	static const char *const ov_b[] = { "core.dma.max_outstanding=1" };
	struct env a, b, a1, b1;
	struct chip_result ra, rb, r;
	int8_t x[256];
	int pa = 1, pb = 1, k;

	pattern(x, 256, 1);
	env_new(&a, NULL, 0);
	env_new(&b, ov_b, 1);
	env_new(&a1, NULL, 0);
	env_new(&b1, ov_b, 1);
	ck_assert_int_eq(run_load_source(a.r, "c.s", copy1, strlen(copy1), NULL, RUN_ALL_CORES), 0);
	ck_assert_int_eq(run_load_source(b.r, "c.s", copy1, strlen(copy1), NULL, RUN_ALL_CORES), 0);
	ck_assert_int_eq(run_load_source(a1.r, "c.s", copy1, strlen(copy1), NULL, RUN_ALL_CORES), 0);
	ck_assert_int_eq(run_load_source(b1.r, "c.s", copy1, strlen(copy1), NULL, RUN_ALL_CORES), 0);
	ck_assert_int_eq(run_write(a.r, "X", 0, x, 256), 0);
	ck_assert_int_eq(run_write(b.r, "X", 0, x, 256), 0);
	ck_assert_int_eq(run_write(a1.r, "X", 0, x, 256), 0);
	ck_assert_int_eq(run_write(b1.r, "X", 0, x, 256), 0);
	for (k = 1; pa || pb; k++) {
		if (pa) {
			ck_assert_int_eq(run_go(a.r, (cycle_t)k * 50, &ra), 0);
			pa = ra.paused;
		}
		if (pb) {
			ck_assert_int_eq(run_go(b.r, (cycle_t)k * 50, &rb), 0);
			pb = rb.paused;
		}
	}
	ck_assert_int_eq(run_go(a1.r, CYCLE_MAX, &r), 0);
	ck_assert_uint_eq(ra.cycles, r.cycles);
	ck_assert_int_eq(run_go(b1.r, CYCLE_MAX, &r), 0);
	ck_assert_uint_eq(rb.cycles, r.cycles);
	ck_assert_uint_ne(ra.cycles, rb.cycles); /* the configs differ */
	env_free(&a);
	env_free(&b);
	env_free(&a1);
	env_free(&b1);
}
END_TEST


/* Core 0 multicasts X from DRAM into the scratchpads of cores 0, 1 and 3
 * (dset dmask, 0b1011); after a barrier every core copies its scratchpad
 * at 0x200 to its own row of Y. */
static const char mcast_src[] =
	".tensor X, dram, 0x0, int8, 256\n"
	".tensor Y, dram, 0x1000, int8, 4, 256\n"
	"	csrr	a0, coreid\n"
	"	bnez	a0, join\n"
	"	li t0, 0\n"
	"	dset src, t0\n"
	"	li t0, 0x200\n"
	"	dset dst, t0\n"
	"	li t0, dram\n"
	"	dset smem, t0\n"
	"	li t0, rspm\n"
	"	dset dmem, t0\n"
	"	li t0, 0b1011\n"
	"	dset dmask, t0\n"
	"	li t0, 256\n"
	"	dset n0, t0\n"
	"	dma 0\n"
	"	fence all\n"
	"join:	barrier\n"
	"	li t0, 0x200\n"
	"	dset src, t0\n"
	"	slli t1, a0, 8\n"
	"	li t0, 0x1000\n"
	"	add t0, t0, t1\n"
	"	dset dst, t0\n"
	"	li t0, spm\n"
	"	dset smem, t0\n"
	"	li t0, dram\n"
	"	dset dmem, t0\n"
	"	li t0, 0\n"
	"	dset dmask, t0\n"
	"	li t0, 256\n"
	"	dset n0, t0\n"
	"	dma 0\n"
	"	fence all\n"
	"	halt\n"
;
static const char *const ov_4c[] = { "chip.cores=4", "noc.cols=5",
				     "noc.rows=1" };

static void mcast_run(const char *const *ov, int n_ov, uint64_t *flits)
{
	struct env e;
	struct chip_result r;
	struct ctr_sink s;
	int8_t x[256], y[4][256], zero[256];
	int k;

	env_new(&e, ov, n_ov);
	ck_assert_int_eq(run_load_source(e.r, "mc.s", mcast_src,
					 strlen(mcast_src), NULL, 0, 3), 0);
	pattern(x, 256, 3);
	memset(zero, 0, sizeof(zero));
	ck_assert_int_eq(run_write(e.r, "X", 0, x, sizeof(x)), 0);
	ck_assert_msg(run_go(e.r, CYCLE_MAX, &r) == 0, "%s", env_log(&e));
	ck_assert_int_eq(run_read(e.r, "Y", 0, y, sizeof(y)), 0);
	for (k = 0; k < 4; k++)
		ck_assert_msg(memcmp(y[k], k == 2 ? zero : x, 256) == 0,
			      "core %d's scratchpad", k);
	ctr_sink_init(&s);
	ck_assert_int_eq(run_counters(e.r, &s), 0);
	/* 4 bursts of 64 bytes to 3 cores: 12 writes of 1 + 64/32 flits and
	 * their 12 one-flit acknowledgements */
	ck_assert_uint_eq(ctr(&s, "noc.multicast.packets"), 24);
	ck_assert_uint_eq(ctr(&s, "noc.multicast.flits"), 48);
	*flits = ctr(&s, "noc.flits_injected");
	/* every flit delivered, router copies included */
	ck_assert_uint_eq(ctr(&s, "noc.flits"),
			  *flits + ctr(&s, "noc.flits_replicated"));
	ctr_sink_free(&s);
	env_free(&e);
}

START_TEST(run_multicast_source_and_router)
{
	/* The same bytes land either way; routers copy the 12 request
	 * packets at the fork (node 1: to core 1 and on to core 3) and at the
	 * source (core 0's own copy), so the NI injects 2 x 4 x 3 fewer
	 * flits. */
	static const char *const ov_r[] = { "chip.cores=4", "noc.cols=5",
					    "noc.rows=1", "noc.multicast=router" };
	uint64_t fs, fr;

	mcast_run(ov_4c, 3, &fs);
	mcast_run(ov_r, 4, &fr);
	ck_assert_uint_eq(fs - fr, 2 * 4 * 3);
}
END_TEST

/* Every one of 16 cores multicasts its 1 KiB row of X to all 16
 * scratchpads (at 1 KiB x coreid), all at once; after a barrier each core
 * writes its 16 KiB back: every row of Y must be all of X.  Trees from 16
 * sources cross on every link of the 4x4 mesh: the run must neither lose
 * a byte nor deadlock. */
static const char mc16_src[] =
	".tensor X, dram, 0x0, int8, 16, 1024\n"
	".tensor Y, dram, 0x10000, int8, 16, 16384\n"
	"	csrr	a0, coreid\n"
	"	slli	a1, a0, 10\n"
	"	dset	src, a1\n"
	"	li	t0, 0x4000\n"
	"	add	t0, t0, a1\n"
	"	dset	dst, t0\n"
	"	li	t0, dram\n"
	"	dset	smem, t0\n"
	"	li	t0, rspm\n"
	"	dset	dmem, t0\n"
	"	li	t0, 0xffff\n"
	"	dset	dmask, t0\n"
	"	li	t0, 1024\n"
	"	dset	n0, t0\n"
	"	dma	0\n"
	"	fence	all\n"
	"	barrier\n"
	"	li	t0, 0x4000\n"
	"	dset	src, t0\n"
	"	slli	t1, a0, 14\n"
	"	li	t0, 0x10000\n"
	"	add	t0, t0, t1\n"
	"	dset	dst, t0\n"
	"	li	t0, spm\n"
	"	dset	smem, t0\n"
	"	li	t0, dram\n"
	"	dset	dmem, t0\n"
	"	li	t0, 0\n"
	"	dset	dmask, t0\n"
	"	li	t0, 16384\n"
	"	dset	n0, t0\n"
	"	dma	0\n"
	"	fence	all\n"
	"	halt\n"
;

static void mc16_run(const char *mode)
{
	char ov_mode[64];
	const char *ov[] = { "chip.cores=16", "noc.cols=4", "noc.rows=5",
			     ov_mode };
	static int8_t x[16 * 1024], y[16][16384];
	struct env e;
	struct chip_result r;
	int k;

	snprintf(ov_mode, sizeof(ov_mode), "noc.multicast=%s", mode);
	env_new(&e, ov, 4);
	ck_assert_int_eq(run_load_source(e.r, "mc16.s", mc16_src,
					 strlen(mc16_src), NULL, 0, 15), 0);
	pattern(x, (int)sizeof(x), 11);
	ck_assert_int_eq(run_write(e.r, "X", 0, x, sizeof(x)), 0);
	ck_assert_msg(run_go(e.r, CYCLE_MAX, &r) == 0, "%s: %s", mode, env_log(&e));
	ck_assert_int_eq(run_read(e.r, "Y", 0, y, sizeof(y)), 0);
	for (k = 0; k < 16; k++)
		ck_assert_msg(memcmp(y[k], x, sizeof(x)) == 0, "%s: core %d", mode, k);
	env_free(&e);
}

START_TEST(run_multicast_all_to_all)
{
	mc16_run("source");
	mc16_run("router");
}
END_TEST

START_TEST(run_multicast_faults)
{
	/* a mask naming a core the chip does not have, and a mask on a
	 * copy that is not to rspm */
	static const char *const bad[] = {
		"\tli t0, 0x10\n\tdset dmask, t0\n\tli t0, rspm\n\tdset dmem, t0\n"
		"\tli t0, 4\n\tdset n0, t0\n\tdma 0\n\tfence all\n\thalt\n",
		"\tli t0, 0x3\n\tdset dmask, t0\n"
		"\tli t0, 4\n\tdset n0, t0\n\tdma 0\n\tfence all\n\thalt\n",
	};
	static const char *const want[] = {
		"dmask 0x10 names core 4, which does not exist",
		"dmask 0x3 names a multicast, but dmem is spm",
	};
	int i;

	for (i = 0; i < 2; i++) {
		struct env e;
		struct chip_result r;

		env_new(&e, ov_4c, 3);
		ck_assert_int_eq(run_load_source(e.r, "bad.s", bad[i],
						 strlen(bad[i]), NULL, 0, 3), 0);
		ck_assert_int_ne(run_go(e.r, CYCLE_MAX, &r), 0);
		ck_assert_msg(strstr(env_log(&e), want[i]) != NULL, "%s",
			      env_log(&e));
		env_free(&e);
	}
}
END_TEST


START_TEST(run_dreset_restores_defaults)
{
	/* A multicast mask and a second dimension left over from an earlier
	 * transfer would make this copy fault (dmask on a copy to spm) or
	 * move 4x the bytes; dreset returns every staging register to its
	 * program-start value, so the copy is exactly 256 bytes. */
	static const char src[] =
		".tensor X, dram, 0x0, int8, 256\n"
		".tensor Y, dram, 0x1000, int8, 256\n"
		"\tli t0, 3\n\tdset dmask, t0\n"
		"\tli t0, 4\n\tdset n1, t0\n"
		"\tli t0, 7\n\tdset esize, t0\n"
		"\tdreset\n"
		COPY(0x0, 0x1000, 0x0) "\thalt\n";
	struct env e;
	struct chip_result r;
	struct ctr_sink s;
	int8_t x[256], y[256];

	env_new(&e, ov_4c, 3);
	ck_assert_int_eq(run_load_source(e.r, "dr.s", src, strlen(src), NULL, 0, 3), 0);
	pattern(x, 256, 9);
	ck_assert_int_eq(run_write(e.r, "X", 0, x, sizeof(x)), 0);
	ck_assert_msg(run_go(e.r, CYCLE_MAX, &r) == 0, "%s", env_log(&e));
	ck_assert_int_eq(run_read(e.r, "Y", 0, y, sizeof(y)), 0);
	ck_assert_mem_eq(y, x, sizeof(x));
	ctr_sink_init(&s);
	ck_assert_int_eq(run_counters(e.r, &s), 0);
	ck_assert_uint_eq(ctr(&s, "core0.dma0.bytes_dram_to_sram"), 256);
	ctr_sink_free(&s);
	env_free(&e);
}
END_TEST

/*
 * Partitions {1, 3} of a 4-core chip: each core sees its partition as
 * its chip (coreid from 0, ncores its size), rsigs the next core of its
 * ring, waits for its own signal, meets its partition at a barrier and
 * DMAs 64 bytes of its scratchpad into scratchpad core (coreid + 1) %
 * ncores of the partition, at 0x100 + 64 x coreid.
 */
static const char part_src[] =
	"	csrr	a0, coreid\n"
	"	csrr	a1, ncores\n"
	"	addi	t1, a0, 1\n"
	"	bne	t1, a1, ring\n"
	"	li	t1, 0\n"
	"ring:	rsig	t1, 2\n"
	"	wait	ctl, 2, 1\n"
	"	barrier\n"
	"	li t0, 0\n	dset src, t0\n"
	"	slli t2, a0, 6\n	addi t2, t2, 0x100\n	dset dst, t2\n"
	"	li t0, spm\n	dset smem, t0\n"
	"	li t0, rspm\n	dset dmem, t0\n"
	"	dset dcore, t1\n"
	"	li t0, 64\n	dset n0, t0\n"
	"	dma 0\n	fence all\n	halt\n";

START_TEST(run_partitions_own_chips)
{
	static const int sizes[] = { 1, 3 };
	struct env e;
	struct chip_result r;
	struct chip *c;
	int k;

	env_new(&e, ov_4c, 3);
	c = run_chip(e.r);
	ck_assert_int_eq(chip_set_partitions(c, 2, sizes, &e.d), 0);
	ck_assert_int_eq(chip_partition(c, 1, &k), 3);
	ck_assert_int_eq(k, 1);
	ck_assert_msg(run_load_source(e.r, "p.s", part_src, strlen(part_src),
				      NULL, RUN_ALL_CORES) == 0, "%s",
		      env_log(&e));
	for (k = 0; k < 4; k++) {
		uint64_t n;
		uint8_t *spm = chip_mem(c, ISA_MEM_SPM, k, &n);

		memset(spm, 0x10 + k, 64);
	}
	ck_assert_msg(run_go(e.r, CYCLE_MAX, &r) == 0, "%s", env_log(&e));
	/* registers: core 0 alone; cores 1-3 are 0-2 of three */
	ck_assert_uint_eq(chip_reg(c, 0, 10), 0);
	ck_assert_uint_eq(chip_reg(c, 0, 11), 1);
	for (k = 1; k < 4; k++) {
		ck_assert_uint_eq(chip_reg(c, k, 10), (uint64_t)k - 1);
		ck_assert_uint_eq(chip_reg(c, k, 11), 3);
	}
	/* the DMA rings stayed inside the partitions */
	for (k = 0; k < 4; k++) {
		int p = k ? 1 : 0, base = p, size = p ? 3 : 1;
		int to = base + (k - base + 1) % size;
		uint64_t n;
		uint8_t *spm = chip_mem(c, ISA_MEM_SPM, to, &n);

		for (int i = 0; i < 64; i++)
			ck_assert_msg(spm[0x100 + 64 * (k - base) + i] == 0x10 + k,
				      "core %d's bytes at core %d", k, to);
	}
	/* sizes must add up to the chip's cores */
	ck_assert_int_eq(chip_set_partitions(c, 1, (int[]){ 5 }, &e.d),
			 NPU_EUSAGE);
	ck_assert_ptr_nonnull(strstr(env_log(&e), "the chip has 4 cores"));
	env_free(&e);
}
END_TEST

START_TEST(run_partitions_faults)
{
	static const int sizes[] = { 2, 2 };
	static const char bad_rsig[] =
		"	li t1, 2\n	rsig t1, 1\n	halt\n";
	struct env e;
	struct chip_result r;

	env_new(&e, ov_4c, 3);
	ck_assert_int_eq(chip_set_partitions(run_chip(e.r), 2, sizes, &e.d), 0);
	ck_assert_int_eq(run_load_source(e.r, "b.s", bad_rsig,
					 strlen(bad_rsig), NULL, RUN_ALL_CORES),
			 0);
	ck_assert_int_ne(run_go(e.r, CYCLE_MAX, &r), 0);
	ck_assert_ptr_nonnull(strstr(env_log(&e), "partition has 2 cores"));
	env_free(&e);
}
END_TEST

/*
 * A launcher: partition 0 runs copy1 (X -> Y), partition 1 waits with a
 * halt; when partition 0 is done it signals partition 1, whose launch
 * of copy2 (Y -> Z) starts when the packet arrives.  A second round of
 * the same image shows an image launched again.
 */
struct lctx {
	struct chip *c;
	struct diag *d;
	const struct prog_image *img2;
	int n_done[2], n_sig;
	cycle_t done0, sig1;
	int busy_rc;
};

static int launcher(void *ctx, int kind, int part, uint32_t tag, cycle_t when)
{
	struct lctx *l = ctx;

	if (kind == CHIP_DONE) {
		l->n_done[part]++;
		if (part == 0 && l->n_done[0] == 1) {
			l->done0 = when;
			return chip_signal(l->c, 0, 1, 77);
		}
		if (part == 1 && l->n_done[1] == 2)
			/* the second copy2: launched again, same image */
			return chip_launch(l->c, 1, l->img2, when, l->d);
		return 0;
	}
	ck_assert_int_eq(kind, CHIP_SIGNAL);
	ck_assert_int_eq(tag, 77);
	ck_assert_int_eq(part, 1);
	l->n_sig++;
	l->sig1 = when;
	/* partition 0 is done: launching there while 1 is idle is fine;
	 * launching on 1 twice is not */
	int rc = chip_launch(l->c, 1, l->img2, when, l->d);
	if (!rc)
		l->busy_rc = chip_launch(l->c, 1, l->img2, when, l->d);
	return rc;
}

START_TEST(run_launch_pipeline)
{
	static const int sizes[] = { 2, 2 };
	struct env e;
	struct chip_result r;
	struct lctx l;
	const struct prog_image *img1;
	int8_t x[256], z[256];

	env_new(&e, ov_4c, 3);
	memset(&l, 0, sizeof(l));
	l.c = run_chip(e.r);
	l.d = &e.d;
	ck_assert_int_eq(chip_set_partitions(l.c, 2, sizes, &e.d), 0);
	ck_assert_int_eq(run_assemble_source(e.r, "c2.s", copy2, strlen(copy2),
					     NULL, 2, &l.img2), 0);
	ck_assert_int_eq(run_assemble_source(e.r, "c1.s", copy1, strlen(copy1),
					     NULL, 2, &img1), 0);
	ck_assert_int_eq(run_load_image(e.r, img1, 0, 1), 0);
	ck_assert_int_eq(run_load_source(e.r, "idle", "\thalt\n", 6, NULL, 2,
					 3), 0);
	ck_assert_int_eq(chip_set_launcher(l.c, launcher, &l), 0);
	pattern(x, 256, 11);
	ck_assert_int_eq(run_write(e.r, "X", 0, x, sizeof(x)), 0);
	ck_assert_msg(run_go(e.r, CYCLE_MAX, &r) == 0, "%s", env_log(&e));
	ck_assert_int_eq(run_read(e.r, "Z", 2, z, sizeof(z)), 0);
	ck_assert_mem_eq(z, x, sizeof(x));
	ck_assert_int_eq(l.n_sig, 1);
	ck_assert_int_eq(l.n_done[0], 1);
	ck_assert_int_eq(l.n_done[1], 3);   /* halt, copy2, copy2 again */
	ck_assert_int_eq(l.busy_rc, NPU_EINTERNAL);
	ck_assert_ptr_nonnull(strstr(env_log(&e), "while core 2 still runs"));
	/* the signal crosses the NoC: it arrives after partition 0 is done */
	ck_assert_uint_gt(l.sig1, l.done0);
	ck_assert_uint_gt(r.cycles, l.sig1);
	env_free(&e);
}
END_TEST

static Suite *suite_run(void)
{
	Suite *s = suite_create("run");

	TEST_ADD(s, run_api_complete);
	TEST_ADD(s, run_phases_dram_kept);
	TEST_ADD(s, run_phases_until);
	TEST_ADD(s, run_energy_of_dump);
	TEST_ADD(s, run_max_cycles_exact);
	TEST_ADD(s, run_cores_own_programs);
	TEST_ADD(s, run_cores_missing);
	TEST_ADD(s, run_two_chips);
	TEST_ADD(s, run_multicast_source_and_router);
	TEST_ADD(s, run_multicast_all_to_all);
	TEST_ADD(s, run_dreset_restores_defaults);
	TEST_ADD(s, run_multicast_faults);
	TEST_ADD(s, run_partitions_own_chips);
	TEST_ADD(s, run_partitions_faults);
	TEST_ADD(s, run_launch_pipeline);
	return s;
}

TEST_MAIN(suite_run)
